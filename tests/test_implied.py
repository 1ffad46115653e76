"""What the rules imply (gongzhu.implied), held equal to the engines and the scorer.

Each fact is checked over every shipped ruleset and their combinations (each
base with up to two modifiers, where they compose), and each divergence the
layers above the engine once had gets a test of its own:

- the bots' card values took the largest of a card's show factors where the
  scorer multiplies them (two decks, ♥A shown twice: ×4, not ×2);
- the bots' trick winner ignored how pairs rank (a play not wholly in the
  led suit never wins after a pair lead);
- the encoder filed a penalty trick's unscored cards under its winner where
  the engine gives every card to the taker.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import pytest

import gongzhu
from gongzhu import Card, Play, Show, ShowKind, implied
from gongzhu.bots.rulebook import Situation
from gongzhu.cards import full_deck
from gongzhu.errors import IncompatibleVariants
from gongzhu.scoring import HandFacts, show_record

BASES = ("39baobao", "huapai")
MODIFIERS = (
    "anmai",
    "biming",
    "chuyang-quanming",
    "fenpai-quanming",
    "heart-three",
    "hearts-pips",
    "hearts-positive",
    "same-colour-discard",
    "shuangzhu",
    "two-deck",
)


@cache
def shipped_rulesets() -> tuple[tuple[str, ...], ...]:
    """Every base with up to two modifiers, where they compose."""
    found = []
    for base in BASES:
        for size in range(3):
            for extra in itertools.combinations(MODIFIERS, size):
                names = (base, *extra)
                try:
                    gongzhu.load_rules(*names)
                except IncompatibleVariants:
                    continue
                found.append(names)
    return tuple(found)


def test_the_combinations_are_many() -> None:
    assert len(shipped_rulesets()) > 60  # a silent filter would make every test below vacuous


def random_hand(rules: gongzhu.Rules, seed: int) -> gongzhu.HandState:
    """A hand played at random to its end, shows included."""
    hand = rules.new_hand(seed=seed)
    rng = random.Random(seed)
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


# -- who wins a trick -------------------------------------------------------------------------


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_trick_winner_is_the_engines(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    checked = 0
    for seed in range(3):
        hand = random_hand(rules, seed)
        for trick in hand.tricks:
            keys = [Play(cards).key for _seat, cards in trick.plays]
            assert implied.trick_winner(rules, trick.leader, keys) == trick.winner
            checked += 1
    assert checked >= 3 * 13


def pair_lead_hand(
    spades_to: tuple[int, ...] = (2, 3, 0), sheep_to: int | None = None
) -> gongzhu.HandState:
    """Two decks: seat 0 holds ♠9 ♠9 and seat 1 its one spade, ♠A; the other spades go to
    ``spades_to`` in turn (and both ♦J to ``sheep_to``); seat 0 leads the pair, seat 1
    follows with ♠A and another card."""
    rules = gongzhu.load_rules("two-deck")
    deck = list(full_deck(2))
    holdings: list[list[Card]] = [[], [], [], []]

    def give(seat: int, text: str) -> None:
        card = Card.parse(text)
        deck.remove(card)
        holdings[seat].append(card)

    give(0, "9S")
    give(0, "9S")
    give(1, "AS")
    if sheep_to is not None:
        give(sheep_to, "JD")
        give(sheep_to, "JD")
    spades = [c for c in deck if c.suit is gongzhu.Suit.SPADES]
    others = [c for c in deck if c.suit is not gongzhu.Suit.SPADES]
    for seat in spades_to:
        while spades and len(holdings[seat]) < 26:
            holdings[seat].append(spades.pop())
    for seat in range(4):
        while len(holdings[seat]) < 26:
            holdings[seat].append(others.pop())
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(holdings), leader=0)
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(hand.legal_actions()[0])
    hand.apply(Play.parse("9S 9S"))
    ace = Card.parse("AS")
    hand.apply(next(p for p in hand.legal_actions() if ace in p.cards))
    return hand


def test_the_bots_trick_winner_ranks_pairs() -> None:
    """Divergence: the rule-of-thumb bot read ♠A (with a heart) as beating a ♠9 pair."""
    hand = pair_lead_hand()
    _lead, (_, follow) = hand.current_trick
    assert Card.parse("AS") in follow and any(c.suit is not gongzhu.Suit.SPADES for c in follow)
    keys = hand.trick_keys
    assert implied.trick_winner(hand.rules, 0, keys) == 0
    situation = Situation(hand.view(2), hand.rules)
    assert situation.best is not None and situation.best[0] == 0
    # and the engine agrees once the trick is over
    while hand.current_trick:
        hand.apply(hand.legal_actions()[0])
    assert hand.tricks[0].winner == 0


def test_the_playouts_trick_winner_ranks_pairs() -> None:
    """Divergence: the greedy playout read ♠A (with another card) as winning a ♠9 pair
    lead, so a seat void in spades did not give its partner's winning trick the sheep."""
    from gongzhu.bots.playout import greedy_rollout_policy

    hand = pair_lead_hand(spades_to=(3, 0), sheep_to=2)
    assert hand.to_move == 2
    assert not any(c.suit is gongzhu.Suit.SPADES for c in hand.holding(2))
    choice = greedy_rollout_policy(hand, random.Random(0), teams=(0, 1, 0, 1))
    assert isinstance(choice, Play) and gongzhu.cards.SHEEP in choice.cards


# -- what a card is worth ---------------------------------------------------------------------


def shows_of(rules: gongzhu.Rules, rng: random.Random) -> list[gongzhu.scoring.ShowRecord]:
    """Random shows of the ruleset's showable cards: each copy shown or not, of a kind the
    ruleset offers, by a random seat."""
    kinds = sorted(rules.show_kinds, key=lambda kind: kind.value) or [ShowKind.OPEN]
    records = []
    for card in sorted(rules.table.showable):
        for _copy in range(rules.table.copies):
            if rng.random() < 0.5:
                records.append(show_record(rng.randrange(4), card, rng.choice(kinds)))
    return records


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_card_values_are_the_scorers(names: tuple[str, ...]) -> None:
    """Each card's value, every copy, is what the scorer gives a seat that took it alone."""
    rules = gongzhu.load_rules(*names)
    scorer = rules.scorer
    copies = rules.table.copies
    rng = random.Random(hash(names) & 0xFFFF)
    for _ in range(4):
        shows = shows_of(rules, rng)
        values = implied.card_values(rules, shows)
        assert len(values) == 52 * copies
        for card in full_deck():
            if not rules.table.is_scoring(card) or card == gongzhu.cards.TRANSFORMER:
                assert values[card.index] == 0
                continue
            mine = [record for record in shows if record.card == card]
            for copy in range(copies):
                shown_taken = None
                if copies == 2:
                    taken_shows = [mine[copy]] if copy < len(mine) else []
                    shown_taken = (tuple(taken_shows), (), (), ())
                facts = HandFacts((card.bit, 0, 0, 0), None, tuple(shows), shown_taken)
                assert scorer.pipeline_sheet(facts).raw[0] == values[card.index + 52 * copy], (
                    card,
                    copy,
                    shows,
                )


def test_the_bots_card_values_multiply_show_factors() -> None:
    """Divergence: with two decks and ♥A shown twice the scorer counts every heart ×4; the
    rule-of-thumb bot took the largest factor, ×2."""
    rules = gongzhu.load_rules("two-deck")
    ace = Card.parse("AH")
    for seed in range(200):
        hand = rules.new_hand(seed=seed)
        holders = [seat for seat in range(4) for card in hand.holding(seat) if card == ace]
        if len(set(holders)) == 2:
            break
    else:
        pytest.fail("no deal gives the two ♥A to two seats")
    while hand.phase is not gongzhu.Phase.PLAY:
        seat = hand.to_move
        assert seat is not None
        show = Show((ace,), ShowKind.OPEN)
        hand.apply(
            show if seat in holders and show in hand.legal_actions() else hand.legal_actions()[0]
        )
    assert [s.cards for s in hand.shows].count((ace,)) == 2
    five = Card.parse("5H")
    situation = Situation(hand.view(hand.to_move or 0), rules)
    expected = rules.table.heart_values[five.rank] * 4
    assert implied.card_values(rules, hand.view(0))[five.index] == expected
    assert situation.value(five) == expected


# -- what each seat has taken -----------------------------------------------------------------


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_taken_cards_are_the_engines(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    for seed in range(3):
        hand = random_hand(rules, seed)
        taken = implied.taken_cards(hand.tricks)
        for seat in range(4):
            assert Counter(taken[seat]) == Counter(hand.taken(seat))


def penalty_hand() -> gongzhu.HandState:
    """A same-colour-discard hand in which some trick's points went to an offender."""
    rules = gongzhu.load_rules("same-colour-discard")
    for seed in range(500):
        hand = random_hand(rules, seed)
        if any(trick.penalty for trick in hand.tricks):
            return hand
    pytest.fail("no penalty in 500 random hands")


def test_the_encoder_files_taken_cards_as_the_engine() -> None:
    """Divergence: the encoder filed a penalty trick's unscored cards under its winner."""
    pytest.importorskip("numpy")
    from gongzhu.envs import encoding

    hand = penalty_hand()
    rules = hand.rules
    segment = encoding.layout(rules).segment("taken")
    for viewer in range(4):
        obs = encoding.encode_observation(rules, hand.view(viewer))
        rows = obs[segment.start : segment.start + 4 * 52].reshape(4, 52)
        for seat in range(4):
            expected = [0.0] * 52
            for card in hand.taken(seat):
                expected[card.index] += 1
            assert list(rows[(seat - viewer) % 4]) == expected, (viewer, seat)


# -- deals that agree with a view -------------------------------------------------------------


def test_a_determinised_deal_keeps_the_order_of_the_first_shows() -> None:
    """huapai: seats 0 and 2 made 首明 shows, in that order, and seat 1 leads.  Samples dealt
    from the leader asked seat 2 before seat 0, and no sample agreed with the view."""
    rules = gongzhu.load_rules("huapai")
    hand = rules.new_hand(seed=48)
    rng = random.Random(48)
    for _ in range(3):
        hand.apply(rng.choice(hand.legal_actions()))
    view = hand.view(0)
    assert [show.seat for show in view.shows if show.kind is ShowKind.FIRST] == [0, 2]
    assert view.leader == 1
    for seed in range(5):
        state = implied.determinize(view, rules, random.Random(seed), tries=20)
        assert state.view(0) == view


# -- the voids a secret sale's lock reveals to the seller alone -------------------------------


class LockSales:
    """The shown-card lock, binding secret sales too (no shipped ruleset does)."""

    @gongzhu.plugin.hookimpl
    def gongzhu_variant_info(self) -> gongzhu.plugin.VariantInfo:
        return gongzhu.plugin.VariantInfo("lock-sales", "Lock sales")

    @gongzhu.plugin.hookimpl
    def gongzhu_play_config(self, config: gongzhu.plugin.PlayConfigurator) -> None:
        lock = gongzhu.plugin.ShownCardLock(first_trick=True, exempt={ShowKind.FIRST})
        config.set("shown_card_lock", lock, overrides="39baobao")


def sold_spade_hand() -> gongzhu.HandState:
    """Seat 1 sells its one spade, ♠Q, secretly, and must follow seat 0's ♠2 with it."""
    import gongzhu_variants.anmai

    rules = gongzhu.Rules.from_plugins(LockSales(), ("anmai", gongzhu_variants.anmai))
    assert ShowKind.SECRET in implied.locking_kinds(rules)
    deck = list(full_deck())
    queen, two = Card.parse("QS"), Card.parse("2S")
    others = [c for c in deck if c not in (queen, two)]
    spades = [c for c in others if c.suit is gongzhu.Suit.SPADES]
    rest = [c for c in others if c.suit is not gongzhu.Suit.SPADES]
    holdings = [[two], [queen], [], []]
    for seat in (2, 3, 0):
        while spades and len(holdings[seat]) < 13:
            holdings[seat].append(spades.pop())
    for seat in range(4):
        while len(holdings[seat]) < 13:
            holdings[seat].append(rest.pop())
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(holdings), leader=0)
    while hand.phase is not gongzhu.Phase.PLAY:
        sale = Show((queen,), ShowKind.SECRET)
        hand.apply(sale if hand.to_move == 1 else hand.legal_actions()[0])
    hand.apply(Play.of(two))
    hand.apply(Play.of(queen))
    return hand


def test_a_locked_sale_reveals_a_void_to_the_seller_alone() -> None:
    pytest.importorskip("numpy")
    import numpy as np

    from gongzhu.envs import encoding
    from gongzhu.envs.fast import HandEncoder

    hand = sold_spade_hand()
    spades = gongzhu.Suit.SPADES
    assert spades in implied.voids(hand.view(1), hand.rules)[1]
    assert all(spades not in implied.voids(hand.view(seat), hand.rules)[1] for seat in (0, 2, 3))
    encoder = HandEncoder(hand.rules)
    encoder.reset(hand)
    for seat in range(4):
        reference = encoding.encode_observation(hand.rules, hand.view(seat))
        assert np.array_equal(encoder.observation(seat), reference), seat


def test_two_cards_of_one_suit_are_one_suit() -> None:
    """The reader's suits of a play: two cards of the led suit follow it (they summed to
    the next suit's bit, and a seat following a ♦K pair with ♦3 ♦4 was read void in ♦)."""
    from gongzhu.actions import key_of_cards

    reader = implied.VoidReader()
    three, four = Card.parse("3D").index, Card.parse("4D").index
    assert reader.suits_of_key[key_of_cards(three, four)] == 1 << int(gongzhu.Suit.DIAMONDS)
    pair = key_of_cards(Card.parse("KD").index, Card.parse("KD").index)
    assert reader.play(0, 0, pair, pair) == (0, 0)
    assert reader.play(1, 1, key_of_cards(three, four), pair) == (0, 0)
    assert reader.void == [0, 0, 0, 0]


def test_put_first_places_the_card_a_seats_first_place_needs() -> None:
    """The one rule every deal made to agree with a hand places first cards by."""
    from gongzhu.deal import put_first

    cards = [Card.parse(text) for text in ("2C", "QS", "3D", "AH")]
    showable = gongzhu.load_rules().showable_mask
    mine = cards[:]
    assert put_first(mine, Card.parse("AH")) and mine[0] == Card.parse("AH")
    assert sorted(mine) == sorted(cards)
    mine = cards[:]
    assert put_first(mine, showable=showable, showable_first=True) and mine[0] == Card.parse("QS")
    mine = [Card.parse("QS"), Card.parse("2C")]
    assert put_first(mine, showable=showable, showable_first=False)
    assert mine == [Card.parse("2C"), Card.parse("QS")]
    mine = [Card.parse("QS"), Card.parse("AH")]
    assert not put_first(mine, showable=showable, showable_first=False)
    assert not put_first(mine, Card.parse("2C"))
    assert mine == [Card.parse("QS"), Card.parse("AH")]  # nothing moved


# -- what a view fixes of the hidden cards, on every ruleset ----------------------------------


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_what_a_view_fixes_is_true_of_the_real_hand(names: tuple[str, ...]) -> None:
    """At every step of random hands, for every seat: no seat holds a card of a suit the
    view says it is void in, nor a second copy the view says it cannot hold, and every
    card the view says a seat holds, it holds."""
    rules = gongzhu.load_rules(*names)
    checked = 0
    for seed in range(2):
        hand = rules.new_hand(seed=seed)
        rng = random.Random(seed)
        while not hand.is_over:
            for seat in range(4):
                view = hand.view(seat)
                if view.phase is gongzhu.Phase.FIRST_SHOW:
                    continue
                facts = implied.knowledge(view, rules)
                for other in range(4):
                    held = Counter(hand.holding(other))
                    assert not any(card.suit in facts.voids[other] for card in held), other
                    assert all(held[card] < 2 for card in facts.unpairable[other]), other
                    assert not Counter(facts.known[other]) - held, other
                checked += 1
            hand.apply(rng.choice(hand.legal_actions()))
    assert checked > 100
