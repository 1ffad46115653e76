"""The C engines against their Python references, hand for hand.

``gongzhu._speedups.SingleEngine`` and ``PairsEngine`` (``single-c``, ``pairs-c``) are the
twins of :class:`gongzhu.engines.single.SingleEngine` and
:class:`gongzhu.engines.pairs.PairsEngine`.  Driven by the same draws from the same deal,
a twin and its reference must agree at every step on everything an engine answers: the
phase, the seat, the legal actions (the very same objects), the holdings, taken cards,
the trick, its leader, the show log, the trick log, the shown copies taken, the refusal
of every play key, the result of a random playout from that point, of a copy played on
(the original unchanged) and of a redeal; and a plug-in's play rules must be asked the
same questions by both.

The helpers here (the rulesets, :class:`Twins`, :func:`state`) serve the C engines'
other test modules too.
"""

from __future__ import annotations

import functools
import random
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu import Deal
from gongzhu.actions import Play, Show
from gongzhu.cards import PIG, Suit
from gongzhu.masks import ALL_CARDS, SECOND_COPY, SUIT_MASKS, add_copy
from gongzhu.play import ILLEGAL, PLAY_RULE, PlayMoment, PlayRule, PlaySituation
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.rules import Rules
from gongzhu_variants import anmai, huapai, two_deck

from . import plugins

needs_c = pytest.mark.skipif(not gongzhu.engines.ACCELERATED, reason="the C engines are not built")
pytestmark = needs_c

HEARTS = SUIT_MASKS[Suit.HEARTS]
DIAMONDS = SUIT_MASKS[Suit.DIAMONDS]
NKEYS = 52 + 52 * 52
"""Play keys: 52 single cards, then ``52 + 52·a + b`` for two cards."""


# -- plug-in play rules -----------------------------------------------------------------------

CALLS: list[tuple[str, str, PlaySituation]] = []
"""Every question a test play rule was asked, in order: (rule, refuse or require, situation)."""


def scramble(situation: PlaySituation, salt: int) -> int:
    """A card mask that depends on every field of ``situation`` (so that twins must build
    identical situations to get identical answers)."""
    seed = zlib.crc32(repr((salt, *situation)).encode())
    return random.Random(seed).getrandbits(52)


def asked(name: str, part: str, when: PlayMoment, cards: int, situation: PlaySituation) -> None:
    """Log a question, and check that the rule is asked only where it can matter."""
    CALLS.append((name, part, situation))
    assert situation.moment & when, (name, situation)
    assert situation.candidates & cards, (name, situation)
    assert not situation.candidates & ~ALL_CARDS


def logged_rule(
    name: str,
    refuse: Callable[[PlaySituation], int] | None = None,
    require: Callable[[PlaySituation], int] | None = None,
    when: PlayMoment = PlayMoment.ANY,
    cards: int = ALL_CARDS,
) -> PlayRule:
    """A :class:`PlayRule` whose questions are logged in :data:`CALLS`."""
    named = (cards | cards >> SECOND_COPY) & ALL_CARDS  # either copy's bit names a card

    def wrap(part: str, answer: Callable[[PlaySituation], int] | None) -> Any:
        if answer is None:
            return None

        def ask(situation: PlaySituation) -> int:
            asked(name, part, when, named, situation)
            return answer(situation)

        return ask

    return PlayRule(
        name,
        refuse=wrap("refuse", refuse),
        reason=f"{{card}}: refused by {name}",
        require=wrap("require", require),
        when=when,
        cards=cards,
    )


class PlayRules:
    """A plug-in that adds play rules of a test's choosing."""

    def __init__(self, name: str, *rules: PlayRule) -> None:
        self.name = name
        self.rules = rules

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo(self.name, "play rules of a test's choosing")

    @hookimpl
    def gongzhu_play_config(self, config: Any) -> None:
        for rule in self.rules:
            config.add_rule(rule)


class Showable:
    """The showable cards of a test's choosing."""

    def __init__(self, cards: str) -> None:
        self.cards = gongzhu.parse_cards(cards)

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("showable", "showable cards of a test's choosing")

    @hookimpl(tryfirst=True)
    def gongzhu_showable_cards(self) -> tuple[gongzhu.Card, ...]:
        return self.cards


class AutoShow:
    """Auto-show after ``count`` shown copies (two decks have none of their own)."""

    def __init__(self, count: int) -> None:
        self.count = count

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("auto-show", "auto-show of a test's choosing")

    @hookimpl(tryfirst=True)
    def gongzhu_auto_show_threshold(self) -> int:
        return self.count


def no_heart_leads(situation: PlaySituation) -> int:
    """Hearts may not be led before a heart was played (narrow: leads, hearts)."""
    return 0 if situation.played & HEARTS else HEARTS


def pig_when_void(situation: PlaySituation) -> int:
    """Play the pig when you cannot follow (narrow: discards, the pig)."""
    return PIG.bit


def low_follow(situation: PlaySituation) -> int:
    """Follow under the best card so far, when you can (reads the trick as cards)."""
    led = situation.led_suit
    assert led is not None and situation.moment is PlayMoment.FOLLOW
    best = max(card.index for card in situation.trick if card.suit is led)
    assert all(play.cards for play in situation.plays) and situation.unled_suits is not None
    return sum(1 << i for i in range(led * 13, best) if situation.holds(gongzhu.Card.from_index(i)))


def odd_ints(situation: PlaySituation) -> int:
    """Valid but odd answers: second-copy bits, bits beyond 104, negative numbers (a bool
    is refused: tests/test_hardening_rules.py)."""
    mask = scramble(situation, 3)
    return (mask, mask << SECOND_COPY, mask | 1 << 300, ~mask, -1, 1)[mask % 6]


def rule_sets(copies: int) -> dict[str, tuple[PlayRule, ...]]:
    """Test play rules: refusing, requiring, both; narrow ``when``/``cards`` and defaults."""
    return {
        "refuse": (
            logged_rule("no-heart-leads", no_heart_leads, when=PlayMoment.LEAD, cards=HEARTS),
        ),
        "require": (
            logged_rule(
                "pig-when-void", require=pig_when_void, when=PlayMoment.DISCARD, cards=PIG.bit
            ),
            logged_rule("low-follow", require=low_follow, when=PlayMoment.FOLLOW),
        ),
        "both": (
            logged_rule("scrambled", lambda s: scramble(s, 1), lambda s: scramble(s, 2)),
            logged_rule(
                "odd-ints",
                odd_ints,
                lambda s: scramble(s, 4) << SECOND_COPY * (copies - 1),
                when=PlayMoment.FOLLOW | PlayMoment.DISCARD,
                cards=DIAMONDS | PIG.bit << SECOND_COPY,  # either copy's bit names the card
            ),
        ),
    }


# -- the rulesets -----------------------------------------------------------------------------

ONE_DECK: dict[str, Callable[[], Rules]] = {
    "39baobao": lambda: gongzhu.load_rules(),
    "huapai": lambda: gongzhu.load_rules("huapai"),
    "huapai+anmai": lambda: gongzhu.load_rules("huapai", "anmai"),
    "anmai": lambda: gongzhu.load_rules("anmai"),
    "biming+huapai": lambda: gongzhu.load_rules("biming", "huapai"),
    "same-colour-penalty-first": lambda: gongzhu.load_rules("same-colour-discard"),
    "same-colour-penalty-last": lambda: gongzhu.load_rules(
        "same-colour-discard", same_colour_offender="last"
    ),
    "same-colour-strict": lambda: gongzhu.load_rules(
        "same-colour-discard", same_colour_strict=True
    ),
    "same-colour-strict-last": lambda: gongzhu.load_rules(
        "same-colour-discard", same_colour_strict=True, same_colour_offender="last"
    ),
    "huapai+same-colour-stuck-hand": lambda: gongzhu.load_rules(
        "huapai", "same-colour-discard", shown_lock_stuck="hand"
    ),
    "chuyang-quanming": lambda: gongzhu.load_rules("chuyang-quanming"),
    "fenpai-quanming": lambda: gongzhu.load_rules("fenpai-quanming"),
    "heart-three+huapai": lambda: gongzhu.load_rules("heart-three", "huapai"),
    "hearts-pips": lambda: gongzhu.load_rules("hearts-pips"),
    "hearts-positive": lambda: gongzhu.load_rules("hearts-positive"),
    "shuangzhu": lambda: gongzhu.load_rules("shuangzhu"),
    "lock-discards-hand": lambda: Rules.from_plugins(plugins.LockDiscards("hand")),
    "strict-colours+lock-discards": lambda: Rules.from_plugins(
        plugins.Colours(strict=True), plugins.LockDiscards("hand")
    ),
    "eight-showable+huapai+anmai": lambda: Rules.from_plugins(
        huapai, anmai, Showable("QS JD TC AH KS 2S 3D 4C"), shown_lock_stuck="hand"
    ),
    "show-family": lambda: Rules.from_plugins(plugins.ShowFamily(), plugins.MustShowPig()),
}
TWO_DECKS: dict[str, Callable[[], Rules]] = {
    "two-deck": lambda: gongzhu.load_rules("two-deck"),
    "huapai+two-deck": lambda: gongzhu.load_rules("huapai", "two-deck"),
    "two-deck+anmai": lambda: gongzhu.load_rules("two-deck", "anmai"),
    "two-deck-pair-beats": lambda: gongzhu.load_rules("two-deck", pair_beats_unmatched=True),
    "two-deck+huapai-stuck-hand": lambda: gongzhu.load_rules(
        "huapai", "two-deck", shown_lock_stuck="hand"
    ),
    "two-deck+auto-show": lambda: Rules.from_plugins(two_deck, AutoShow(3)),
    "two-deck+five-showable+first-shows": lambda: Rules.from_plugins(
        huapai, two_deck, anmai, Showable("QS JD TC AH 2S"), AutoShow(6)
    ),
}
WITH_RULES: dict[str, Callable[[], Rules]] = {
    **{
        f"rules-{kind}": functools.partial(
            lambda kind: Rules.from_plugins(PlayRules("test-rules", *rule_sets(1)[kind])), kind
        )
        for kind in ("refuse", "require", "both")
    },
    "rules-all+huapai-stuck-hand": lambda: Rules.from_plugins(
        huapai,
        PlayRules("test-rules", *(r for rules in rule_sets(1).values() for r in rules)),
        shown_lock_stuck="hand",
    ),
    **{
        f"two-deck-rules-{kind}": functools.partial(
            lambda kind: Rules.from_plugins(two_deck, PlayRules("test-rules", *rule_sets(2)[kind])),
            kind,
        )
        for kind in ("refuse", "require", "both")
    },
    "two-deck-rules-all+anmai": lambda: Rules.from_plugins(
        two_deck,
        anmai,
        PlayRules("test-rules", *(r for rules in rule_sets(2).values() for r in rules)),
        pair_beats_unmatched=True,
    ),
}
RULESETS: dict[str, Callable[[], Rules]] = {**ONE_DECK, **TWO_DECKS, **WITH_RULES}


@functools.cache
def ruleset(name: str) -> Rules:
    """The ruleset called ``name`` in :data:`RULESETS`, built once."""
    return RULESETS[name]()


# -- twins ------------------------------------------------------------------------------------


def state(engine: Any) -> tuple[object, ...]:
    """Everything an engine answers about its hand, as plain values."""
    taken = engine.shown_taken()
    return (
        engine.phase,
        engine.seat,
        tuple(engine.holdings),
        tuple(engine.taken),
        tuple(engine.trick),
        engine.trick_leader,
        engine.trick_count,
        tuple(engine.show_log),
        tuple(engine.trick_log),
        None if taken is None else tuple(tuple(seat) for seat in taken),
    )


def engine_specs(rules: Rules) -> tuple[Any, Any]:
    """The ruleset's C engine and its Python reference."""
    names = {spec.name: spec for spec in rules.engines}
    kind = "pairs" if rules.table.copies == 2 else "single"
    return names[f"{kind}-c"], names[f"{kind}-python"]


class Counting:
    """A seeded random stream that counts its draws."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed).random
        self.draws = 0

    def __call__(self) -> float:
        self.draws += 1
        return self.random()


class Twins:
    """A C engine and its Python reference, made from the same arguments."""

    def __init__(
        self,
        rules: Rules,
        holdings: Sequence[int],
        leader: int,
        forced: int,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> None:
        self.rules = rules
        c_spec, python_spec = engine_specs(rules)
        args = (list(holdings), leader, forced, first_seat, list(first_cards))
        self.c: Any = rules.make_engine(c_spec, *args)
        self.python: Any = rules.make_engine(python_spec, *args)
        self.codes: set[tuple[int, int]] = set()  # the refusals check_refusals met

    @classmethod
    def dealt(cls, rules: Rules, seed: int, rng: random.Random) -> Twins:
        """Twins of the hand ``seed`` deals, from a random first seat; the opening lead by
        the rules, or (one time in four) any seat leading any card, as in a match."""
        first_seat = rng.randrange(4)
        deal, holdings = Deal.shuffled_with_masks(seed, rules.table.copies, first_seat)
        lead = rules.opening_lead(deal)
        leader, forced = lead.seat, 0 if lead.card is None else lead.card.bit
        if rng.random() < 0.25:
            leader, forced = rng.randrange(4), 0
        firsts = [deal.first_card(seat).index for seat in range(4)]
        return cls(rules, holdings, leader, forced, first_seat, firsts)

    def pair(self) -> tuple[Any, Any]:
        return self.c, self.python

    def check(self) -> tuple[Any, ...]:
        """Both answer alike now; the legal actions."""
        c, python = self.c, self.python
        assert state(c) == state(python)
        assert all(type(forced) is bool for _seat, _id, forced in c.show_log)
        c_legal, python_legal = c.legal(), python.legal()
        assert c_legal == python_legal
        assert all(a is b for a, b in zip(c_legal, python_legal, strict=True))  # interned
        if c.phase == 2:
            assert c.legal_mask() == python.legal_mask()
            if self.rules.table.copies == 2:
                keys = c.legal_keys()
                assert keys == python.legal_keys() == [play.key for play in c_legal]
            else:
                assert [p.key for p in c_legal] == [i for i in range(52) if c.legal_mask() >> i & 1]
            assert all(isinstance(play, Play) for play in c_legal)
            assert bool(c_legal) is bool(c.holdings[c.seat])  # empty only for an empty hand
        elif c.phase < 2:
            assert c_legal and all(isinstance(show, Show) for show in c_legal)
        else:
            assert c_legal == () and c.seat == -1
        return c_legal

    def check_refusals(self, keys: Iterable[int] = range(-1, NKEYS)) -> None:
        """The same refusal of every key, asking the rules the same questions."""
        c, python = self.c, self.python
        legal = {play.key for play in c.legal()} if c.phase == 2 else set()
        for key in keys:
            del CALLS[:]
            found = c.refusal(key)
            c_calls = CALLS[:]
            del CALLS[:]
            assert python.refusal(key) == found, key
            assert c_calls == CALLS, key
            assert (found is None) is (key in legal), key
            if found is not None:
                self.codes.add(found)

    def act(self, draw: float, *, blind: bool = False) -> None:
        """Take the ``int(draw * n)``-th of the ``n`` legal actions on both: the same answer,
        and the rules asked the same questions.  ``blind``: without asking either engine
        for its legal actions first (a copy is asked)."""
        c, python = self.c, self.python
        legal = c.copy().legal() if blind else c.legal()
        index = int(draw * len(legal))
        del CALLS[:]
        if c.phase < 2:
            seat = c.show(index)
            c_calls = CALLS[:]
            del CALLS[:]
            assert python.show(index) == seat
        else:
            seat = c.play(legal[index].key)
            c_calls = CALLS[:]
            del CALLS[:]
            assert python.play(legal[index].key) == seat
        assert c_calls == CALLS
        assert seat == c.seat and seat != ILLEGAL

    def refuse_some(self, rng: random.Random) -> None:
        """A few refused actions: ILLEGAL from both, nothing changed."""
        c, python = self.c, self.python
        before = state(c)
        legal = {play.key for play in c.legal()} if c.phase == 2 else set()
        for key in (rng.randrange(NKEYS), rng.randrange(-3, 60), 2**64 + 1, -(2**70)):
            if key not in legal:
                assert c.play(key) == python.play(key) == ILLEGAL
        for choice in (-1, len(c.legal()), 2**70) if c.phase < 2 else (0, -1):
            assert c.show(choice) == python.show(choice) == ILLEGAL
        assert state(c) == state(python) == before

    def check_playout(self, seed: int) -> None:
        """Copies of both played out from here with the same draws: the same hand, as many
        draws; the originals unchanged."""
        before = state(self.c)
        copies = [engine.copy() for engine in self.pair()]
        assert type(copies[0]) is type(self.c) and type(copies[1]) is type(self.python)
        assert state(copies[0]) == state(copies[1]) == before
        streams = [Counting(seed), Counting(seed)]
        c_result, python_result = (
            outcome(engine.random_playout, stream)
            for engine, stream in zip(copies, streams, strict=True)
        )
        assert c_result == python_result
        assert state(copies[0]) == state(copies[1])
        assert streams[0].draws == streams[1].draws
        assert state(self.c) == state(self.python) == before
        if c_result is not None:  # a seat to move holds nothing: no hand was dealt
            assert c_result == ("ValueError", "the seat to move holds no card")
            assert not any(self.c.holdings)
            return
        assert copies[0].phase == 3 and copies[0].seat == -1
        assert not any(copies[0].holdings)
        copies[0].random_playout(streams[0])  # over: nothing to do, no draw
        assert streams[0].draws == streams[1].draws

    def check_copy_played_on(self, rng: random.Random, steps: int) -> None:
        """Copies played on step by step agree; the originals do not move."""
        before = state(self.c)
        twins = self.copy()
        for _ in range(steps):
            if twins.check() == ():
                break
            twins.act(rng.random())
        twins.check()
        assert state(self.c) == state(self.python) == before

    def copy(self) -> Twins:
        """Twins of the two engines' copies."""
        twins = object.__new__(Twins)
        twins.rules, twins.codes = self.rules, set()
        twins.c, twins.python = self.c.copy(), self.python.copy()
        return twins

    def check_redeal(self, rng: random.Random) -> None:
        """Copies redealt alike (the same cards, each seat its count) play on alike."""
        twins = self.copy()
        c, python = twins.c, twins.python
        now = list(c.holdings)
        copies = [i for seat in now for i in _indices(seat)]
        rng.shuffle(copies)
        masks = []
        for seat in now:
            mask = 0
            for _ in range(seat.bit_count()):
                mask = add_copy(mask, copies.pop())
            masks.append(mask)
        for engine in (c, python):
            engine.redeal(masks)
        assert list(c.holdings) == list(python.holdings) == masks
        twins.check()
        twins.check_refusals(range(-1, 60))
        seed = rng.getrandbits(32)
        c.random_playout(random.Random(seed).random)
        python.random_playout(random.Random(seed).random)
        assert state(c) == state(python)


def outcome(call: Callable[..., object], *args: object) -> tuple[str, str] | None:
    """``None`` when ``call(*args)`` returns, else its exception's type name and message."""
    try:
        call(*args)
    except Exception as error:
        return type(error).__name__, str(error)
    return None


def _indices(mask: int) -> list[int]:
    """The card index of each copy in ``mask``."""
    return [i for i in range(52) for half in (0, SECOND_COPY) if mask >> (half + i) & 1]


def walk(
    rules: Rules,
    seed: int,
    *,
    refusals: int = 0,
    playouts: int = 1,
    copies: int = 0,
    redeals: int = 0,
    at_leads: bool = False,
    keys: Callable[[Twins], Iterable[int]] = lambda twins: range(-1, NKEYS),
) -> Twins:
    """Play the hand ``seed`` deals on twins from one stream of draws, checking every step;
    every ``refusals``-th step (and at the first lead, and with ``at_leads`` at every lead)
    the refusal of each of ``keys``, every ``playouts``-th a playout from there, every
    ``copies``-th a copy played on, every ``redeals``-th (in play) a redeal (0: never)."""
    rng = random.Random(seed)
    twins = Twins.dealt(rules, seed, rng)
    step = 0
    while twins.check():
        leading = twins.c.phase == 2 and not twins.c.trick
        first_lead = leading and not twins.c.trick_count
        if refusals and (step % refusals == 0 or first_lead or (at_leads and leading)):
            twins.check_refusals(keys(twins))
        if playouts and step % playouts == 0:
            twins.check_playout(seed + step)
        if copies and step % copies == 0:
            twins.check_copy_played_on(random.Random(seed - step), 5)
        if redeals and twins.c.phase == 2 and step % redeals == 0:
            twins.check_redeal(random.Random(seed * 3 + step))
        if step % 7 == 0:
            twins.refuse_some(rng)
        twins.act(rng.random())
        if step % 3 == 1 and twins.c.phase == 2:
            twins.act(rng.random(), blind=True)
        step += 1
    twins.check_refusals(iter([-1, 0, 51, 52, NKEYS - 1]))  # over: (holding, over) for all
    assert twins.c.refusal(0) == (1, 1)
    return twins


# -- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_twins_play_dealt_hands_alike(name: str) -> None:
    rules = ruleset(name)
    two = rules.table.copies == 2
    for seed in range(3 if two else 6):
        walk(rules, seed, refusals=30 if two else 4, playouts=3, copies=9, redeals=11)


@pytest.mark.parametrize(
    "name", ["huapai+same-colour-stuck-hand", "two-deck+anmai", "rules-both", "two-deck-rules-both"]
)
def test_twins_refuse_every_key_alike_at_every_step(name: str) -> None:
    walk(ruleset(name), 1, refusals=1, playouts=0)


def held_keys(twins: Twins) -> list[int]:
    """The keys of the plays the seat to move could make of its cards (and a few more)."""
    if twins.c.phase != 2:
        return [-1, 0, 52]
    hand = twins.c.holdings[twins.c.seat]
    cards = [i for i in range(52) if hand >> i & 1]
    pairs = [52 + 53 * i for i in cards if hand >> (52 + i) & 1]
    if twins.rules.table.copies == 1:
        return [-1, *range(60)]
    two = [52 + 52 * a + b for a in cards for b in cards if a < b]
    return [-1, *range(52), *pairs, *two, 53, NKEYS - 1]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (
            ("strict-colours+lock-discards", "same-colour-strict", "rules-all+huapai-stuck-hand"),
            {(1, 0), (1, 1), (2, 0), (3, 0), (4, 0), (6, 0), (6, 1), (6, 2), (7, 0), (8, 0)},
        ),
        (
            ("two-deck", "two-deck+huapai-stuck-hand", "two-deck-rules-all+anmai"),
            # (pair-follow step 3, any two cards, refuses no two cards the seat holds)
            {
                (1, 0),
                (1, 1),
                (2, 1),
                (2, 2),
                (2, 3),
                (2, 4),
                (3, 0),
                (4, 0),
                (5, 0),
                (5, 1),
                (5, 2),
                (6, 3),
                (8, 0),
            },
        ),
    ],
    ids=["one-deck", "two-decks"],
)
def test_the_walks_meet_every_rule(names: tuple[str, ...], expected: set[tuple[int, int]]) -> None:
    """The hands the twins are held equal on exercise every rule of the cascade: a refusal
    of each code (its detail reduced to 0 where it names a card or a suit) was compared."""
    met: set[tuple[int, int]] = set()
    for name in names:
        rules = ruleset(name)
        for seed in range(2 if rules.table.copies == 2 else 3):
            twins = walk(rules, seed, refusals=1, playouts=0, keys=held_keys)
            for code, detail in twins.codes:
                if code in (3, 4, 7, 8):  # a card, a suit, a rule's position
                    detail = 0
                elif code == 5:  # the led suit and the step
                    detail %= 4
                met.add((code, detail))
    assert met >= expected


def test_the_test_rules_were_asked_and_refused() -> None:
    """The test play rules matter: they refuse plays, and both engines say so."""
    codes: set[tuple[int, int]] = set()
    for name in ("rules-refuse", "rules-require", "two-deck-rules-both"):
        rules = ruleset(name)
        for seed in range(3):
            rng = random.Random(seed)
            twins = Twins.dealt(rules, seed, rng)
            while twins.check():
                if twins.c.phase == 2:
                    for key in range(52):
                        found = twins.c.refusal(key)
                        if found is not None and found[0] == PLAY_RULE:
                            codes.add((len(rules.play_config.rules), found[1]))
                twins.act(rng.random())
    assert {(1, 0), (2, 0), (2, 1)} <= codes


# -- any holdings, any lead, any first cards ----------------------------------------------------


@st.composite
def hands(draw: st.DrawFn, rules: Rules) -> tuple[list[int], int, int, int, list[int]]:
    """Four holdings of as many cards (from none to all; often few, often showable cards,
    where the shown-card lock is most likely to leave a seat nothing), a leader, a forced
    card (held by the leader, by another seat or by none), a first seat, any first cards."""
    copies = rules.table.copies
    size = draw(st.one_of(st.integers(0, 3), st.integers(0, 13 * copies)))
    order = draw(st.permutations(range(52 * copies)))  # position p: a copy of card p % 52
    if draw(st.booleans()):
        showable = rules.show_phase.showable
        order.sort(key=lambda position: not showable >> position % 52 & 1)
    holdings = [0, 0, 0, 0]
    for k, position in enumerate(order[: 4 * size]):
        holdings[k % 4] = add_copy(holdings[k % 4], position % 52)
    leader = draw(st.integers(0, 3))
    forced = draw(
        st.one_of(
            st.just(0),
            st.integers(0, 51).map(lambda i: 1 << i),
            st.just(holdings[leader] & -holdings[leader] & ALL_CARDS),
        )
    )
    first_seat = draw(st.integers(0, 3))
    first_cards = draw(
        st.lists(
            st.one_of(st.integers(0, 51), st.sampled_from(rules.show_phase.cards or (0,))),
            min_size=4,
            max_size=4,
        )
    )
    return holdings, leader, forced, first_seat, first_cards


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(n for n in RULESETS if n in ONE_DECK or n.startswith("rules"))),
    data=st.data(),
)
def test_twins_play_any_single_deck_hand_alike(name: str, data: st.DataObject) -> None:
    play_any_hand(ruleset(name), data)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(n for n in RULESETS if n in TWO_DECKS or n.startswith("two"))),
    data=st.data(),
)
def test_twins_play_any_two_deck_hand_alike(name: str, data: st.DataObject) -> None:
    play_any_hand(ruleset(name), data)


def play_any_hand(rules: Rules, data: st.DataObject) -> None:
    args = data.draw(hands(rules))
    rng = data.draw(st.randoms(use_true_random=False))
    twins = Twins(rules, *args)
    step = 0
    while twins.check():
        if twins.c.phase == 2 and not twins.c.holdings[twins.c.seat]:
            # the seat to move holds nothing (no card dealt): both refuse to play on
            for engine in twins.pair():
                with pytest.raises(ValueError, match="holds no card"):
                    engine.copy().random_playout(random.random)
            break
        if step % 5 == 0:
            twins.check_refusals(iter(rng.sample(range(-1, NKEYS), 60)))
            twins.check_playout(step)
        twins.refuse_some(rng)
        twins.act(rng.random())
        step += 1


# -- the shown-card lock leaving a seat nothing -------------------------------------------------


def holdings_of(*texts: str) -> list[int]:
    """Card masks of four holdings written as card text (a card twice: both copies)."""
    masks = []
    for text in texts:
        mask = 0
        for card in gongzhu.parse_cards(text):
            mask = add_copy(mask, card.index)
        masks.append(mask)
    return masks


def shows_then_check(twins: Twins, shows: dict[int, str]) -> None:
    """Each seat's show turn: the open show of the cards in ``shows`` (else nothing)."""
    while twins.check() and twins.c.phase < 2:
        legal = twins.c.legal()
        index = legal.index(gongzhu.Show(shows.get(twins.c.seat, "")))
        twins.act((index + 0.5) / len(legal))


def play_card(twins: Twins, text: str) -> None:
    play = gongzhu.Play.parse(text)
    assert play in twins.check()
    twins.act((twins.check().index(play) + 0.5) / len(twins.check()))


@pytest.mark.parametrize("stuck", ["play", "hand"])
def test_a_discard_lock_that_leaves_nothing_lifts_alike(stuck: str) -> None:
    """Seat 1, void in hearts, must discard red (strict colours) and holds only the shown
    ♦J in red: the lock (no shown card discarded before its suit is led) leaves it nothing
    and lifts.  With ``stuck="hand"`` it stays lifted: the shown ♠Q may then be discarded
    on hearts, with ``"play"`` not."""
    rules = Rules.from_plugins(plugins.Colours(strict=True), plugins.LockDiscards(stuck))
    holdings = holdings_of("2H 3H 4H 5H", "JD QS 3S 4S", "6H 7H 8H 9H", "TH JH KH AH")
    twins = Twins(rules, holdings, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {1: "JD QS"})
    play_card(twins, "2H")
    assert [str(p) for p in twins.check()] == ["play JD"]  # the lock lifts
    twins.check_refusals()
    for card in ("JD", "6H", "AH"):
        play_card(twins, card)
    assert twins.c.seat == 3
    play_card(twins, "TH")
    play_card(twins, "3H")
    legal = {str(p) for p in twins.check()}
    assert legal == (
        {"play QS", "play 3S", "play 4S"} if stuck == "hand" else {"play 3S", "play 4S"}
    )
    twins.check_refusals()
    for copy in (twins.c.copy(), twins.c.copy().copy()):  # copies keep the lift and the cache
        assert copy.legal() == twins.c.legal()
    twins.check_playout(1)


@pytest.mark.parametrize("name", ["two-deck", "two-deck+huapai-stuck-hand"])
def test_a_follow_lock_that_leaves_nothing_lifts_alike(name: str) -> None:
    """Seat 1 holds both copies of the ♠Q, shown, in the first trick of spades: a shown copy
    may not follow there unless it is the holder's only spade (two copies are two cards):
    the lock leaves it nothing and lifts; both copies then count as shown when taken."""
    rules = ruleset(name)
    holdings = holdings_of("2S 3S", "QS QS", "4S 5S", "6S 7S")
    twins = Twins(rules, holdings, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {1: "QS QS"})
    play_card(twins, "2S")
    assert [str(p) for p in twins.check()] == ["play QS"]
    twins.check_refusals()
    for card in ("QS", "4S", "6S"):
        play_card(twins, card)
    assert twins.c.seat == 1  # its ♠Q took the trick: it leads the other
    for copy in (twins.c.copy(), twins.python.copy()):
        assert [str(p) for p in copy.legal()] == ["play QS"]
    twins.check_playout(2)
    twins.c.random_playout(random.Random(3).random)
    twins.python.random_playout(random.Random(3).random)
    twins.check()
    taken = twins.c.shown_taken()
    assert sorted(record for seat in taken for record in seat) == [(1, PIG.index, 0)] * 2


def test_the_largest_legal_sets_alike() -> None:
    """The most plays a seat can have (holdings are of as many cards: 26 at most): seat 0
    holds both copies of every spade and leads any one or any pair of them; seat 1, void in
    spades with 26 different cards, follows a pair with any two of them (325 keys)."""
    spades, clubs = SUIT_MASKS[Suit.SPADES], SUIT_MASKS[Suit.CLUBS]
    red = SUIT_MASKS[Suit.HEARTS] | SUIT_MASKS[Suit.DIAMONDS]
    # seats 1 and 2 hold a copy each of every red card
    holdings = [spades | spades << 52, red, red, clubs | clubs << 52]
    twins = Twins(ruleset("two-deck"), holdings, 0, 0, 0, [0, 0, 0, 0])
    shows_then_check(twins, {})
    assert [p.key for p in twins.check()] == [*range(13), *(52 + 53 * i for i in range(13))]
    twins.act(25.5 / 26)  # the pair of spade aces
    assert twins.c.trick == (52 + 53 * 12,)
    legal = twins.check()
    assert len(legal) == 26 * 25 // 2 and all(len(play.cards) == 2 for play in legal)
    twins.check_refusals()
    twins.check_playout(4)
