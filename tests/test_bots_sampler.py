"""The sampler: every sampled deal agrees with everything the seat's view shows."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Action, Phase
from gongzhu.bots import determinize, knowledge, sample_deal, sample_holdings
from gongzhu.cards import full_deck
from gongzhu.hand import HandState
from gongzhu.implied import Determinizer, Knowledge, unshown_plays
from gongzhu.masks import SECOND_COPY, cards_of_mask
from gongzhu.plugin import VariantInfo, hookimpl

RULESETS = [
    ("39baobao",),
    ("huapai",),
    ("39baobao", "anmai"),
    ("huapai", "anmai"),
    ("two-deck",),
    ("two-deck", "anmai"),
    ("39baobao", "same-colour-discard"),
    ("fenpai-quanming",),
    ("chuyang-quanming",),
    ("biming",),
    ("heart-three",),
]


def random_position(names: tuple[str, ...], seed: int, steps: int) -> HandState:
    """A hand of ``names`` after ``steps`` random actions (shows included)."""
    rules = gongzhu.load_rules(*names)
    hand = rules.new_hand(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def check_holdings(
    hand: HandState, seat: int, holdings: tuple[tuple[gongzhu.Card, ...], ...]
) -> None:
    view = hand.view(seat)
    rules = hand.rules
    facts = knowledge(view, rules)
    assert holdings[seat] == tuple(sorted(view.holding)) or view.phase is Phase.FIRST_SHOW
    if view.phase is not Phase.FIRST_SHOW:
        assert tuple(len(h) for h in holdings) == view.holding_sizes
    everything = Counter(c for h in holdings for c in h)
    for played in facts.played:
        everything.update(played)
    assert everything == Counter(full_deck(rules.table.copies))
    for other in range(4):
        held = Counter(holdings[other])
        for card in facts.known[other]:
            assert held[card] > 0, (other, card)
        for card in holdings[other]:
            assert card.suit not in facts.voids[other]
        # the seat's true cards respect the same constraints
        for card in hand.holding(other):
            assert card.suit not in facts.voids[other]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    names=st.sampled_from(RULESETS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 110),
    viewer=st.integers(0, 3),
    sample_seed=st.integers(0, 1000),
)
def test_every_sample_agrees_with_the_view(
    names: tuple[str, ...], seed: int, steps: int, viewer: int, sample_seed: int
) -> None:
    hand = random_position(names, seed, steps)
    if hand.is_over:
        return
    seat = viewer
    if hand.phase is Phase.FIRST_SHOW:
        assert hand.to_move is not None
        seat = hand.to_move  # who is asked depends on the hidden deal order
    view = hand.view(seat)
    rng = random.Random(sample_seed)
    for _ in range(3):
        check_holdings(hand, seat, sample_holdings(view, rng, rules=hand.rules))
        deal = sample_deal(view, rng, rules=hand.rules)
        assert deal.copies == hand.rules.table.copies
        state = determinize(view, hand.rules, rng, tries=300)
        assert state.view(seat) == view
        for other in range(4):
            if hand.phase is not Phase.FIRST_SHOW:
                assert len(state.holding(other)) == view.holding_sizes[other]


def test_voids_are_found_from_discards() -> None:
    deal = gongzhu.Deal.from_holdings(
        [
            "AC KC QC JC TC 9C 8C 2S 3S 4S 2H 3H 4H",
            "QS AS KS 5S 6S AH KH QH 2D 3D 4D 5D 6D",
            "7C 6C 5C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
            "4C 3C 2C TS JS 8H 7H 6H 5H JD QD KD TD",
        ]
    )
    rules = gongzhu.load_rules()
    hand = rules.new_hand(deal=deal, leader=0)
    for _ in range(4):
        hand.apply(gongzhu.Show(()))
    for text in ["AC", "2D", "5C", "2C"]:
        hand.apply(gongzhu.Play.parse(text))
    view = hand.view(0)
    facts = knowledge(view, rules)
    assert gongzhu.Suit.CLUBS in facts.voids[1]
    rng = random.Random(3)
    for _ in range(20):
        holdings = sample_holdings(view, rng, rules=rules)
        assert not any(c.suit is gongzhu.Suit.CLUBS for c in holdings[1])


def test_secret_sales_are_respected() -> None:
    rules = gongzhu.load_rules("39baobao", "anmai")
    deal = gongzhu.Deal.from_holdings(
        [
            "AC KC QC JC TC 9C 8C 2S 3S 4S 2H 3H 4H",
            "QS AS KS 5S 6S AH KH QH 2D 3D 4D 5D 6D",
            "7C 6C 5C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
            "4C 3C 2C TS JS 8H 7H 6H 5H JD QD KD TD",
        ]
    )
    hand = rules.new_hand(deal=deal, leader=0)
    hand.apply(gongzhu.Show(()))
    hand.apply(gongzhu.Show("QS AH", gongzhu.ShowKind.SECRET))  # seat 1 sells two cards
    hand.apply(gongzhu.Show(()))
    hand.apply(gongzhu.Show(()))
    view = hand.view(0)
    assert view.shows[0].cards is None and view.shows[0].count == 2
    showable = rules.table.showable
    rng = random.Random(5)
    for _ in range(30):
        holdings = sample_holdings(view, rng, rules=rules)
        assert sum(1 for c in holdings[1] if c in showable) >= 2
        assert determinize(view, rules, rng).view(0) == view


TWO_DECK_RULESETS = [("two-deck",), ("huapai", "two-deck"), ("two-deck", "anmai")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(TWO_DECK_RULESETS),
    seed=st.integers(0, 10_000),
    steps=st.integers(4, 100),
    viewer=st.integers(0, 3),
    sample_seed=st.integers(0, 1000),
)
@example(names=("huapai", "two-deck"), seed=96, steps=95, viewer=0, sample_seed=0)  # below
def test_two_deck_redealt_samples_agree_with_the_view(
    names: tuple[str, ...], seed: int, steps: int, viewer: int, sample_seed: int
) -> None:
    """The re-dealt two-deck samples (each copy dealt as a bit of its own, then each mask
    put in the usual form) hold what the view allows: the viewer's cards, each seat's
    number, no suit a seat showed void in, and with the cards played every copy once."""
    hand = random_position(names, seed, steps)
    if hand.phase is not Phase.PLAY:
        return
    view = hand.view(viewer)
    sampler = Determinizer(view, hand.rules)
    rng = random.Random(sample_seed)
    facts = knowledge(view, hand.rules)
    for _ in range(4):
        engine, dealt = sampler.sample_engine(rng)
        holdings = tuple(cards_of_mask(mask) for mask in engine.holdings)
        for mask in (*engine.holdings, *dealt):
            assert mask >> SECOND_COPY & ~mask == 0  # a second copy only with the first
        check_holdings(hand, viewer, tuple(tuple(sorted(h)) for h in holdings))
        for seat in range(4):
            assert Counter(cards_of_mask(dealt[seat])) == Counter(holdings[seat]) + Counter(
                facts.played[seat]
            )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(TWO_DECK_RULESETS),
    seed=st.integers(0, 10_000),
    steps=st.integers(8, 100),
    viewer=st.integers(0, 3),
    sample_seed=st.integers(0, 1000),
)
def test_two_deck_samples_checked_by_their_plays_agree_with_the_whole_replay(
    names: tuple[str, ...], seed: int, steps: int, viewer: int, sample_seed: int
) -> None:
    """With two decks after another seat's locked show, each sample is checked by replaying
    the view's plays on the engine (:attr:`Determinizer.replays_plays`): its holdings are
    what the view allows, and the whole hand replayed on its deal (shows included, as
    :func:`determinize` replays it) is not refuted and shows the seat its view."""
    from gongzhu.implied import _ReplayBasis, _replayed_sample

    hand = random_position(names, seed, steps)
    if hand.phase is not Phase.PLAY:
        return
    view = hand.view(viewer)
    sampler = Determinizer(view, hand.rules)
    if not sampler.replays_plays:
        return
    facts = knowledge(view, hand.rules)
    basis = _ReplayBasis.of(view, hand.rules, facts)
    rng = random.Random(sample_seed)
    for _ in range(3):
        engine, dealt = sampler.sample_engine(rng)
        holdings = [list(cards_of_mask(mask)) for mask in engine.holdings]
        check_holdings(hand, viewer, tuple(tuple(sorted(h)) for h in holdings))
        assert engine.trick_count == len(view.tricks)
        for seat in range(4):
            assert Counter(cards_of_mask(dealt[seat])) == Counter(holdings[seat]) + Counter(
                facts.played[seat]
            )
        state = _replayed_sample(view, hand.rules, holdings, facts, basis, rng)
        assert state is not None
        assert state.view(viewer) == view


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from([*RULESETS, *TWO_DECK_RULESETS]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 110),
    viewer=st.integers(0, 3),
)
@example(names=("two-deck",), seed=72, steps=40, viewer=0)  # a shown copy played, then void
@example(names=("huapai", "two-deck"), seed=7603, steps=23, viewer=2)  # ♠Q shown twice: 首明, 亮
def test_what_knowledge_says_a_seat_holds_it_holds(
    names: tuple[str, ...], seed: int, steps: int, viewer: int
) -> None:
    """The cards :func:`knowledge` places with a seat (shown and not played, with two decks
    read through the lock: :func:`unshown_plays`) are in its hand, and the rest of its hand
    is among the unseen cards, in no suit it is known to lack."""
    hand = random_position(names, seed, steps)
    if hand.is_over or hand.phase is not Phase.PLAY:
        return
    facts = knowledge(hand.view(viewer), hand.rules)
    pool = Counter(facts.pool)
    for seat in range(4):
        held = Counter(hand.holding(seat))
        assert not Counter(facts.known[seat]) - held, seat
        assert not held - Counter(facts.known[seat]) - pool, seat
        assert all(card.suit not in facts.voids[seat] for card in held)


def test_a_shown_copy_the_lock_kept_from_the_first_trick_of_its_suit_is_known() -> None:
    """Two decks under huapai's lock: seat 1 showed one ♣10, played a ♣10 in the first club
    trick and a club after it, so that ♣10 was the other copy, and the shown one is still
    in its hand.  (Read as played, no sample agreed with the view in 20 tries.)"""
    hand = random_position(("huapai", "two-deck"), 96, 95)
    view = hand.view(0)
    ten = gongzhu.Card.parse("TC")
    first_clubs = next(t for t in view.tricks if t.plays[0][1][0].suit is ten.suit)
    assert (1, (ten,)) in first_clubs.plays
    assert any(s.seat == 1 and s.cards == (ten,) for s in view.shows)
    assert unshown_plays(view, hand.rules) == ((), (ten,), (), ())
    facts = knowledge(view, hand.rules)
    assert facts.known[1] == (ten,)
    assert ten in hand.holding(1)
    assert ten not in facts.pool  # (the other copy was played)
    Determinizer(view, hand.rules).sample_engine(random.Random(0))  # found now
    # with one deck a shown card has no other copy: nothing to read
    assert unshown_plays(view, gongzhu.load_rules("huapai")) == ((),) * 4


def pairless_ok(facts: Knowledge, seat: int, cards: tuple[gongzhu.Card, ...]) -> None:
    """``seat``'s dealt ``cards`` hold no pair of a suit it holds none of, and no copy of a
    card it cannot pair."""
    held = Counter(cards)
    for card, copies in held.items():
        if card.suit in facts.no_pairs[seat]:
            assert copies == 1, (seat, card)
            assert card not in facts.unpairable[seat], (seat, card)


@pytest.mark.parametrize("pairless", [False, True])
def test_two_deck_mask_dealer_deals_as_the_pool_does(pairless: bool) -> None:
    """Dealt into masks, the hidden copies fall to each seat as often as
    :func:`~gongzhu.implied._deal_pool` deals them (1,500 deals each, a mid-hand view
    with voids, and one where a seat holds no pair of a suit): the same chances, by other
    draws."""
    from gongzhu.implied import _deal_pool, _MaskDealer

    rules = gongzhu.load_rules("two-deck")
    for seed in range(80):  # a view where some seat shows a void (or holds no pair)
        hand = random_position(("two-deck",), seed, 70)
        if hand.phase is not Phase.PLAY:
            continue
        facts = knowledge(hand.view(0), rules)
        if any(facts.voids[1:]) and any(facts.no_pairs[1:]) == pairless:
            break
    else:
        raise AssertionError("no view with a void")
    dealer = _MaskDealer.of(facts)
    assert dealer is not None
    rng = random.Random(5)
    by_mask: Counter[tuple[int, gongzhu.Card]] = Counter()
    by_pool: Counter[tuple[int, gongzhu.Card]] = Counter()
    n = 1500
    dealt = pooled = 0
    for _ in range(4 * n):  # (a dead end deals nothing: the next deal is drawn)
        if dealt >= n and pooled >= n:
            break
        masks = dealer.deal(rng) if dealt < n else None
        if masks is not None:
            dealt += 1
            for seat in range(1, 4):
                by_mask.update((seat, card) for card in cards_of_mask(masks[seat]))
                pairless_ok(facts, seat, cards_of_mask(masks[seat]))
        holdings = _deal_pool(facts, rng) if pooled < n else None
        if holdings is not None:
            pooled += 1
            for seat in range(1, 4):
                by_pool.update((seat, card) for card in holdings[seat])
    assert dealt == pooled == n  # (dead ends are rare: a few in a hundred)
    for key in by_mask.keys() | by_pool.keys():
        mean = (by_mask[key] + by_pool[key]) / (2 * n)  # copies a deal: 0, 1 or 2
        spread = (2 * n * 2 * mean) ** 0.5  # the difference's, a deal's variance <= 2 * mean
        assert abs(by_mask[key] - by_pool[key]) < 5 * spread + 1, key


class _SpadeAceShowable:
    """A plug-in of this test's own: the ♠A showable too, so that a seat can show two
    cards of one suit, both of which the lock binds."""

    @staticmethod
    @hookimpl
    def gongzhu_variant_info() -> VariantInfo:
        return VariantInfo(name="spade-ace", title="Spade ace showable", summary="♠A shows.")

    @staticmethod
    @hookimpl
    def gongzhu_showable_cards(options: object) -> list[gongzhu.Card]:
        return [gongzhu.Card.parse(c) for c in ("QS", "AS", "JD", "TC", "AH")]


def test_a_lock_lifted_for_two_shown_cards_of_a_suit_reads_nothing() -> None:
    """Seat 1 shows one ♠Q and one ♠A and holds no other spade: in the first spade trick
    both are locked, the lock lifts and it plays its shown ♠Q, then its ♠A later.  That
    later spade proves nothing of which ♠Q was played, so :func:`unshown_plays` reads
    nothing, and :func:`knowledge` never places a ♠Q with seat 1 (nor finds three)."""
    base = gongzhu.load_rules("two-deck")
    rules = gongzhu.Rules.from_plugins(
        ("39baobao", base.plugin("39baobao")),
        ("two-deck", base.plugin("two-deck")),
        _SpadeAceShowable,
    )
    card = gongzhu.Card.parse
    deck = list(full_deck(2))
    hold: list[list[gongzhu.Card]] = [[], [], [], []]
    for seat, name in ((1, "QS"), (1, "AS"), (0, "2C"), (0, "2C")):
        deck.remove(card(name))
        hold[seat].append(card(name))
    rng = random.Random(5)
    rng.shuffle(deck)
    plain = [c for c in deck if c.suit is not gongzhu.Suit.SPADES]
    hold[1] += plain[:24]
    rest = [c for c in deck if c.suit is gongzhu.Suit.SPADES] + plain[24:]
    for seat in (0, 2, 3):
        while len(hold[seat]) < 26:
            hold[seat].append(rest.pop())
    hand = rules.new_hand(deal=gongzhu.Deal(tuple(hold[k % 4][k // 4] for k in range(104)), 0))
    while hand.phase is not Phase.PLAY:
        wanted = ["AS", "QS"] if hand.to_move == 1 else []
        hand.apply(
            next(
                a
                for a in hand.legal_actions()
                if isinstance(a, gongzhu.Show) and sorted(map(str, a.cards)) == wanted
            )
        )
    play = random.Random(1)
    read = 0
    spades = gongzhu.Suit.SPADES
    while not hand.is_over:
        legal: Sequence[Action] = hand.legal_actions()
        if hand.to_move == 1:  # its spades on spade tricks only, the ♠Q first
            trick = hand.view(1).current_trick
            led = trick[0][1][0].suit if trick else None
            queen = [a for a in legal if a.cards == (card("QS"),)]
            other = [a for a in legal if all(c.suit is not spades for c in a.cards)]
            legal = queen if led is spades and queen else other or legal
        hand.apply(play.choice(legal))
        for viewer in (0, 2, 3):
            view = hand.view(viewer)
            assert unshown_plays(view, rules)[1] == ()
            facts = knowledge(view, rules)  # (never three ♠Q)
            assert not Counter(facts.known[1]) - Counter(hand.holding(1))
            read += any(c.suit is gongzhu.Suit.SPADES for t in view.tricks for c in t.cards)
    assert read  # spades were played
