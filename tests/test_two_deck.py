"""拱雙豬 two-deck play: pairs, the follow cascade, the ranking, copies in scoring."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Phase, Play, Show
from gongzhu.actions import play_of_key
from gongzhu.engines.pairs import pair_key, two_key
from gongzhu.errors import IllegalAction, IncompatibleVariants
from gongzhu.masks import add_copy
from gongzhu.play import ILLEGAL, EngineSetup, PlayConfig
from gongzhu.plugin import ShownCardLock
from gongzhu.scoring import ShowRecord
from gongzhu.showphase import KINDS

from .conftest import BOTH_ENGINES, engine_state, pipeline_sheet

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

ALL_HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
LOCK = ShownCardLock(first_trick=True, discard_before_led=False)  # 39baobao's lock
SPEC = {"name": "pairs-python"}
SHOW_PHASE, PLAY_PHASE = 1, 2  # gongzhu.play.ENGINE_PHASES
OPEN = KINDS.index(gongzhu.ShowKind.OPEN)  # the kind code of an open show


@pytest.fixture(autouse=True)
def _pairs_engine(engine: str) -> None:
    """The engine-level tests run on the Python reference and, when built, the C twin."""
    SPEC["name"] = "pairs-python" if engine == "python" else "pairs-c"


def mask(text: str) -> int:
    out = 0
    for card in gongzhu.parse_cards(text):
        out = add_copy(out, card.index)
    return out


def key(text: str) -> int:
    cards = gongzhu.parse_cards(text)
    return cards[0].index if len(cards) == 1 else two_key(cards[0].index, cards[1].index)


def core(
    hands: list[str],
    *,
    pair_beats_unmatched: bool = False,
    forced: int = 0,
    shows: dict[int, str] | None = None,
    lock: ShownCardLock | None = LOCK,
) -> Any:  # the engine's own methods beyond the HandEngine protocol (legal_keys)
    """An engine of the two-deck ruleset's show phase and this play configuration, seat 0
    leading, in its play phase after each seat showed its cards in ``shows`` (or nothing)."""
    assert len({len(gongzhu.parse_cards(h)) for h in hands}) == 1, "as many cards each"
    config = PlayConfig(
        deck_copies=2, pairs=True, pair_beats_unmatched=pair_beats_unmatched, shown_card_lock=lock
    )
    rules = gongzhu.load_rules("two-deck")
    setup = EngineSetup(config, rules.show_phase)
    spec = rules.engine_named(SPEC["name"])
    prepared = setup if spec.prepare is None else spec.prepare(setup)
    firsts = [gongzhu.parse_cards(h)[0].index for h in hands]
    engine = spec.factory(prepared, [mask(h) for h in hands], 0, forced, 0, firsts)
    shows = shows or {}
    while engine.phase == SHOW_PHASE:
        wanted = Show(shows.get(engine.seat, ""))
        assert engine.show(engine.legal().index(wanted)) != ILLEGAL
    assert engine.phase == PLAY_PHASE and engine.seat == 0
    return engine


def legal(engine: Any) -> list[str]:
    keys = engine.legal_keys()
    assert tuple(map(play_of_key, keys)) == tuple(engine.legal())
    return [" ".join(map(str, play_of_key(k).cards)) for k in keys]


def shown_taken(engine: Any) -> list[list[tuple[int, int, int]]]:
    return [[tuple(record) for record in seat] for seat in engine.shown_taken()]


# -- leads and follows --------------------------------------------------------------------


def test_a_lead_is_one_card_or_an_identical_pair() -> None:
    engine = core(["8D 8D AS", "2C 3C 4C", "5C 6C 7C", "8C 9C JC"])
    assert legal(engine) == ["AS", "8D", "8D 8D"]  # each distinct play once


@pytest.mark.parametrize(
    ("follower", "expected"),
    [
        ("QD QD 3D AS", ["QD QD"]),  # 1. a pair of the led suit
        ("3D QD AS AS", ["3D QD"]),  # 2. two cards of the led suit
        ("3D AS KS 2C", ["KS 3D", "AS 3D", "3D 2C"]),  # 3. the one card and any card
        ("AS AS 2C 5H", ["AS AS", "AS 5H", "AS 2C", "5H 2C"]),  # 4. any two cards
    ],
)
def test_following_a_pair(follower: str, expected: list[str]) -> None:
    engine = core(["8D 8D 2S 2S", follower, "4C 4C 5C 5C", "3C 3C 6C 6C"])
    assert engine.play(pair_key(gongzhu.Card.parse("8D").index)) == 1
    assert sorted(legal(engine)) == sorted(expected)
    before = engine_state(engine)
    assert engine.play(key("2C")) == ILLEGAL  # one card cannot follow a pair, nor a card not held
    assert engine.seat == 1  # nothing changed
    assert engine_state(engine) == before


def test_following_a_single_card() -> None:
    engine = core(["8D KS 9C", "3D 3D QS", "AS AS 2H", "2C 3C 4C"])
    engine.play(key("8D"))
    assert legal(engine) == ["3D"]  # the pair of 3D is one play: one card
    engine.play(key("3D"))
    assert legal(engine) == ["AS", "2H"]  # void: anything, each card once (♠A once)


def test_opening_lead_two_of_clubs_one_or_both() -> None:
    engine = core(
        ["2C 2C AS", "3C 6C 7C", "4C 8C 9C", "5C JC KC"], forced=gongzhu.Card.parse("2C").bit
    )
    assert legal(engine) == ["2C", "2C 2C"]


# -- ranking --------------------------------------------------------------------------------


FILLERS = ("6H 6H", "7H 7H", "8H 8H", "9H 9H")


def trick_winner(plays: list[str], **options: Any) -> int:
    engine = core([p + " " + f for p, f in zip(plays, FILLERS, strict=True)], **options)
    for play in plays:
        assert engine.play(key(play)) != ILLEGAL, play
    assert engine.trick_count == 1 and not engine.trick
    leader, keys, winner, taker = engine.trick_log[-1]
    assert (leader, tuple(keys), taker) == (0, tuple(map(key, plays)), winner)
    assert engine.seat == winner  # the winner leads the next trick
    return int(winner)


def test_worked_ranking_example() -> None:
    """♦88 led: ♦K♥A < ♦88 < ♦AA < ♦23 < ♦9Q, and a later ♦2Q < an earlier ♦2Q."""
    assert trick_winner(["8D 8D", "KD AH", "5D 5D", "2C 3C"]) == 0  # 88 beats KA (not all ♦) and 55
    assert trick_winner(["8D 8D", "KD AH", "AD AD", "KH KH"]) == 2  # AA beats 88
    assert trick_winner(["8D 8D", "KD AH", "AD AD", "2D 3D"]) == 3  # unmatched beats any pair
    assert trick_winner(["8D 8D", "2D 3D", "9D QD", "AD AD"]) == 2  # by the higher card: Q beats 3
    assert trick_winner(["8D 8D", "2D QD", "2D QD", "AD AD"]) == 1  # equal: the first played wins
    assert trick_winner(["8D 8D", "9D QD", "2D QD", "AD AD"]) == 1  # equal higher card: first wins


def test_option_pair_beats_unmatched() -> None:
    assert trick_winner(["8D 8D", "KD AH", "AD AD", "2D 3D"], pair_beats_unmatched=True) == 2
    assert trick_winner(["8D 8D", "2D 3D", "9D QD", "KC KC"], pair_beats_unmatched=True) == 0


def test_identical_single_cards_first_played_wins() -> None:
    assert trick_winner(["QS", "QS", "2S", "KD"]) == 0


# -- shown copies --------------------------------------------------------------------------


def test_unshown_copy_is_played_first_and_shown_copy_scores_for_its_taker() -> None:
    engine = core(["QS QS 2S", "3S AS 5S", "6S 7S 8S", "9S TS JS"], shows={0: "QS"}, lock=None)
    choices = gongzhu.load_rules("two-deck").show_phase.choices
    assert [(seat, choices[i].show) for seat, i, forced in engine.show_log if not forced] == [
        (0, Show("QS")),
        (1, Show(())),
        (2, Show(())),
        (3, Show(())),
    ]
    for card in ("QS", "3S", "6S", "9S"):  # seat 0 still holds the shown copy: this one is unshown
        assert engine.play(key(card)) != ILLEGAL
    assert engine.trick_log[-1][2] == 0 and shown_taken(engine) == [[], [], [], []]
    for card in ("QS", "AS", "7S", "TS"):  # seat 0 leads its last ♠Q, the shown one
        assert engine.play(key(card)) != ILLEGAL
    shown = (0, gongzhu.PIG.index, OPEN)  # (the seat that showed it, the card, its kind)
    assert engine.trick_log[-1][2] == 1 and shown_taken(engine) == [[], [shown], [], []]


def test_two_shown_copies_are_two_cards_of_the_suit() -> None:
    """The lock's exemption is for the holder's only card of the suit: two ♠Q are two cards."""
    engine = core(["QS QS 2D", "3S AS 5S", "6S 7S 8S", "9S TS JS"], shows={0: "QS QS"})
    assert legal(engine) == ["2D"]  # neither ♠Q nor the pair may open the spades
    assert engine.refusal(key("QS")) is not None and engine.play(key("QS")) == ILLEGAL
    one = core(["QS QS 2D", "3S AS 5S", "6S 7S 8S", "9S TS JS"], shows={0: "QS"})
    assert legal(one) == ["QS", "2D"]  # the unshown copy may; the pair needs the shown one
    alone = core(["QS 2D 3D", "3S AS 5S", "6S 7S 8S", "9S TS JS"], shows={0: "QS"})
    assert legal(alone) == ["QS", "2D", "3D"]  # the holder's only spade is exempt


# -- scoring --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_deck() -> gongzhu.Rules:
    return gongzhu.load_rules("two-deck")


@pytest.mark.parametrize(
    ("cards", "raw"),
    [
        ("TC", 50),
        ("TC TC", 100),  # only ♣10s: +50 each
        ("TC TC QS", -400),  # ×2 each: ×4
        ("QS QS", -200),
        (ALL_HEARTS, -200),  # 13 hearts is not full hearts with two decks
        (ALL_HEARTS + " " + ALL_HEARTS, 400),  # 26 hearts: 满红
        (f"{ALL_HEARTS} {ALL_HEARTS} QS QS JD JD TC TC", (200 + 400 + 200) * 4),  # 32: 满贯
    ],
)
def test_two_deck_scores(two_deck: gongzhu.Rules, cards: str, raw: int) -> None:
    assert two_deck.score({0: cards}).raw[0] == raw


def test_each_shown_copy_doubles_only_itself(two_deck: gongzhu.Rules) -> None:
    assert two_deck.score({0: "QS QS"}, shown={1: "QS"}).raw[0] == -300
    assert two_deck.score({0: "QS", 1: "QS"}, shown={2: "QS"}).raw[:2] == (-200, -100)
    given = two_deck.score({0: "QS", 1: "QS"}, shown={2: "QS"}, shown_taken={1: "QS"})
    assert given.raw[:2] == (-100, -200)
    assert two_deck.score({0: "KH"}, shown={1: "AH", 2: "AH"}).raw[0] == -160  # two ♥A: ×4
    assert two_deck.score({0: "TC QS"}, shown={1: "TC"}).raw[0] == -400


def test_shown_taken_is_checked(two_deck: gongzhu.Rules) -> None:
    with pytest.raises(gongzhu.errors.InvalidScoreInput, match="cannot have taken a shown QS"):
        two_deck.score({0: "QS"}, shown={2: "QS"}, shown_taken={1: "QS"})
    with pytest.raises(gongzhu.errors.InvalidScoreInput, match="for two decks"):
        gongzhu.load_rules().score({0: "QS"}, shown={2: "QS"}, shown_taken={0: "QS"})


# -- hands -----------------------------------------------------------------------------------


def test_a_hand_deals_26_each_and_shows_copies(two_deck: gongzhu.Rules) -> None:
    hand = two_deck.new_hand(seed=3)
    assert [len(hand.holding(s)) for s in range(4)] == [26] * 4
    assert sorted(c for s in range(4) for c in hand.holding(s)) == list(gongzhu.full_deck(2))
    leader = hand.to_move
    assert leader is not None
    assert gongzhu.Card.parse("2C") in hand.holding(leader)
    assert hand.deal.first_receiver(gongzhu.Card.parse("2C")) == leader
    legal = hand.legal_actions()
    assert len(set(legal)) == len(legal)
    held = [c for c in hand.holding(leader) if c in two_deck.table.showable]
    assert Show(tuple(held)) in legal  # every copy can be shown


def test_illegal_two_deck_plays_name_the_rule(two_deck: gongzhu.Rules) -> None:
    hand = two_deck.new_hand(seed=3)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    seat = hand.to_move
    assert seat is not None
    highest = hand.holding(seat)[-1]
    assert str(highest) != "2C"
    with pytest.raises(IllegalAction, match="the opening lead must be 2C"):
        hand.apply(Play((highest,)))
    with pytest.raises(
        IllegalAction, match=r"a lead is one card or an identical pair|does not hold"
    ):
        hand.apply(Play("2C 3C"))


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("two-deck", "same-colour-discard"), "lacks discard-rule-penalty"),
        (("two-deck", "biming"), "cannot be combined"),
    ],
)
def test_refused_combinations(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(IncompatibleVariants, match=message):
        gongzhu.load_rules(*names)


COMBINATIONS = [
    ("two-deck",),
    ("huapai", "two-deck"),
    ("two-deck", "anmai"),
    ("two-deck", "fenpai-quanming"),
    ("two-deck", "chuyang-quanming", "hearts-positive"),
    ("huapai", "two-deck", "heart-three", "shuangzhu"),
]


@settings(max_examples=150, deadline=None)
@given(
    names=st.sampled_from(COMBINATIONS),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
    pairs=st.booleans(),
)
def test_random_two_deck_hands(
    names: tuple[str, ...], seed: int, rng: random.Random, pairs: bool
) -> None:
    hand = gongzhu.load_rules(*names).new_hand(seed)
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        two_card = [a for a in legal if isinstance(a, Play) and len(a.cards) == 2]
        hand.apply(rng.choice(two_card) if pairs and two_card else rng.choice(legal))
    plays = [c for _, a in hand.history if isinstance(a, Play) for c in a.cards]
    assert sorted(plays) == list(gongzhu.full_deck(2)), "each of the 104 cards played once"
    assert len(hand.tricks) <= 26
    assert all(len({len(cards) for _, cards in t.plays}) == 1 for t in hand.tricks)
    assert sorted(c for s in range(4) for c in hand.taken(s)) == list(gongzhu.full_deck(2))
    sheet = hand.score()
    assert sorted(c for cards in sheet.captured for c in cards) == sorted(
        c for c in gongzhu.full_deck(2) if hand.rules.table.is_scoring(c)
    )
    assert hand.returns() == sheet.final
    again = gongzhu.replay(hand.to_record())
    assert again.score() == sheet and again.to_record() == hand.to_record()
    clone_check = gongzhu.load_rules(*names).new_hand(seed)
    assert clone_check.clone().to_record() == clone_check.to_record()


def test_pair_leads_happen_and_replay(two_deck: gongzhu.Rules) -> None:
    rng = random.Random(4)
    hand = two_deck.new_hand(seed=8)
    while not hand.is_over:
        legal = hand.legal_actions()
        pairs = [a for a in legal if isinstance(a, Play) and len(a.cards) == 2]
        hand.apply(pairs[0] if pairs else rng.choice(legal))
    assert len(hand.tricks) < 26  # some tricks were pairs
    assert gongzhu.replay(hand.to_record()).score() == hand.score()


COMPILED = [
    ("two-deck",),
    ("two-deck", "anmai"),
    ("two-deck", "heart-three"),
    ("huapai", "two-deck"),  # with 自得's mask stage, per copy
    ("huapai", "two-deck", "anmai"),
]


@settings(max_examples=200, deadline=None)
@given(
    names=st.sampled_from(COMPILED),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
)
def test_compiled_returns_equal_the_pipeline(
    names: tuple[str, ...], seed: int, rng: random.Random
) -> None:
    rules = gongzhu.load_rules(*names)
    assert rules.compiled_scorer is not None
    hand = rules.new_hand(seed)
    while hand.phase is not Phase.PLAY:  # shown copies make the per-copy factors matter
        legal = hand.legal_actions()
        hand.apply(legal[-1] if rng.random() < 0.5 else rng.choice(legal))
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    sheet = pipeline_sheet(hand)  # the pipeline's, not the compiled scorer's
    assert hand.returns() == hand.score().final == sheet.final
    assert hand.score() == sheet  # the lines and every number, too
    assert hand.outcome()[1:] == (any(sheet.full_hearts), any(sheet.slam))


@pytest.mark.parametrize("seed", range(60))
def test_compiled_scorer_on_extreme_two_deck_captures(seed: int) -> None:
    """Full hearts, slams, lone transformers and shown copies taken by others: built."""
    rules = gongzhu.load_rules("two-deck", "anmai")  # open shows and secret sales
    scorer = rules.compiled_scorer
    assert scorer is not None
    rng = random.Random(seed)
    scoring = [c for c in gongzhu.full_deck(2) if rules.table.is_scoring(c)]
    owner = rng.randrange(4)
    taken = [0, 0, 0, 0]
    captured: dict[int, list[gongzhu.Card]] = {s: [] for s in range(4)}
    kinds_offered = sorted(rules.show_kinds, key=lambda kind: kind.value)
    lone = rng.random() < 0.2  # a seat that takes transformers only
    for card in scoring:
        seat = owner if rng.random() < 0.8 else rng.randrange(4)
        if lone and seat == owner and card != gongzhu.TRANSFORMER:
            seat = (owner + 1) % 4
        taken[seat] = add_copy(taken[seat], card.index)
        captured[seat].append(card)
    shows = [
        ShowRecord(rng.randrange(4), card, rng.choice(kinds_offered))
        for card in sorted(rules.table.showable)
        for _copy in range(2)
        if rng.random() < 0.5
    ]
    shown_taken: list[list[ShowRecord]] = [[], [], [], []]
    for record in shows:  # each shown copy goes to a seat that took a copy without one yet
        seats = [
            s
            for s in range(4)
            if captured[s].count(record.card) > [r.card for r in shown_taken[s]].count(record.card)
        ]
        shown_taken[rng.choice(seats)].append(record)
    kinds: dict[gongzhu.ShowKind, dict[Any, Any]] = {kind: {} for kind in gongzhu.ShowKind}
    for record in shows:
        kinds[record.kind].setdefault(record.seat, []).append(record.card)
    sheet = rules.score(
        captured,
        shown=kinds[gongzhu.ShowKind.OPEN],
        secret=kinds[gongzhu.ShowKind.SECRET],
        shown_taken=dict(enumerate(shown_taken)),  # the copies by their show records
    )
    assert scorer.raw_copies(taken, sheet.shows, shown_taken) == sheet.raw
    assert scorer.full_hearts(taken, 2) == any(sheet.full_hearts)
    assert scorer.slam(taken, 2) == any(sheet.slam)
