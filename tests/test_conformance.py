"""The conformance kit (:mod:`gongzhu.testing`): every shipped ruleset passes, broken ones fail.

The kit compares every engine able to play a ruleset itself, so these tests
run once (``one_engine``).  The broken engines and plug-ins below each break
one invariant, and each test checks that the kit names it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest

import gongzhu
from gongzhu.actions import Action, Play
from gongzhu.cards import PIG, Suit
from gongzhu.engines import ACCELERATED, SingleEngine
from gongzhu.engines.base import PLAY, draw
from gongzhu.errors import GongzhuError, IncompatibleVariants
from gongzhu.hand import HandState
from gongzhu.masks import plays_of_mask
from gongzhu.play import ILLEGAL, PLAY_RULE, EngineSpec, PlayMoment, PlayRule, PlaySituation
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.rules import Rules
from gongzhu.testing import ConformanceError, ConformanceReport, check_ruleset

pytestmark = pytest.mark.one_engine

SHIPPED = (
    "39baobao",
    "huapai",
    "anmai",
    "biming",
    "chuyang-quanming",
    "fenpai-quanming",
    "shuangzhu",
    "same-colour-discard",
    "hearts-pips",
    "hearts-positive",
    "heart-three",
    "two-deck",
)

SINGLE_HANDS = 30
TWO_DECK_HANDS = 10  # two-deck hands are about three times slower


def hands_for(rules: Rules) -> int:
    return TWO_DECK_HANDS if "two-deck" in rules.names else SINGLE_HANDS


# -- every shipped plug-in, and combinations of them, pass -----------------------------------


def test_every_shipped_plugin_is_installed() -> None:
    assert set(SHIPPED) <= set(gongzhu.variant_names())


@pytest.mark.parametrize("name", [n for n in gongzhu.variant_names() if n in SHIPPED])
def test_shipped_plugin_conforms(name: str) -> None:
    rules = gongzhu.load_rules(name)
    report = check_ruleset(rules, hands_for(rules), seed=1)
    assert report.hands == hands_for(rules)
    assert report.engines == tuple(spec.name for spec in rules.engines)
    assert report.actions >= report.hands * len(report.engines) * 52
    assert report.refusals_checked > report.hands  # at least the finished hands' refusals


COMBINATIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("huapai", "anmai", "same-colour-discard"), {}),
    (("huapai", "two-deck"), {}),
    (("two-deck", "anmai"), {}),
    (("39baobao", "biming", "heart-three"), {}),
    (("same-colour-discard",), {"same_colour_strict": True}),
    (("same-colour-discard",), {"same_colour_offender": "last"}),
    (("huapai",), {"shown_lock_stuck": "hand"}),
    (("huapai", "two-deck"), {"shown_lock_stuck": "hand", "pair_beats_unmatched": True}),
    (("huapai", "shuangzhu", "hearts-pips"), {"zide_transformer": "alone"}),
    (("chuyang-quanming", "hearts-positive"), {}),
]


@pytest.mark.parametrize(
    ("names", "options"),
    COMBINATIONS,
    ids=["+".join(n) + "".join(f",{k}={v}" for k, v in o.items()) for n, o in COMBINATIONS],
)
def test_combination_conforms(names: tuple[str, ...], options: dict[str, Any]) -> None:
    rules = gongzhu.load_rules(*names, **options)
    report = check_ruleset(rules, hands_for(rules), seed=2)
    assert report.rules == rules.spec()


# -- the kit itself ----------------------------------------------------------------------


def test_report_is_reproducible_and_describes_the_run() -> None:
    rules = gongzhu.load_rules("huapai")
    report = check_ruleset(rules, 5, seed=7)
    assert isinstance(report, ConformanceReport)
    assert report == check_ruleset(rules, 5, seed=7)
    assert report.rules == {"variants": ["huapai"], "options": dict(rules.options)}
    assert report.hands == 5
    assert report.actions > 0 and report.refusals_checked > 0
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        report.hands = 6  # type: ignore[misc]


def test_engines_restricts_the_check() -> None:
    rules = gongzhu.load_rules()
    only = check_ruleset(rules, 3, engines=["single-python"])
    assert only.engines == ("single-python",)
    both = check_ruleset(rules, 3)
    assert both.actions == only.actions * len(rules.engines)
    with pytest.raises(IncompatibleVariants, match="no play engine 'pairs-python'"):
        check_ruleset(rules, 1, engines=["pairs-python"])
    with pytest.raises(ValueError, match="at least one engine"):
        check_ruleset(rules, 1, engines=[])


def test_no_hands_checks_nothing() -> None:
    report = check_ruleset(gongzhu.load_rules(), 0)
    assert (report.hands, report.actions, report.refusals_checked) == (0, 0, 0)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        check_ruleset("39baobao", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        check_ruleset(gongzhu.load_rules(), -1)


def test_conformance_error_is_a_gongzhu_error_and_an_assertion() -> None:
    error = ConformanceError("broke", rules="load_rules('huapai')", engine="e", seed=3, index=4)
    assert isinstance(error, GongzhuError) and isinstance(error, AssertionError)
    assert str(error) == "load_rules('huapai'), engine e, hand seed 3, action 4: broke"
    assert (error.rules, error.engine, error.seed, error.index, error.problem) == (
        "load_rules('huapai')",
        "e",
        3,
        4,
        "broke",
    )


# -- broken engines, registered as a third party's would be ----------------------------------

SINGLE_FEATURES = frozenset(
    {"one-deck", "singles", "shown-card-lock", "discard-rule-strict", "discard-rule-penalty"}
)

# Each engine below is the single-deck reference (SingleEngine: the show phases of the public
# ShowingEngine base, and the play phase) with one thing broken.


class OffSuitEngine(SingleEngine):
    """Offers, when following, one held card of another suit as well (and refuses it)."""

    __slots__ = ()

    def _legal_plays(self) -> tuple[Play, ...]:
        legal = super()._legal_plays()
        if self.trick:
            extra = [p for p in plays_of_mask(self.holdings[self.seat]) if p not in legal]
            if extra:
                return tuple(sorted((*legal, extra[0]), key=lambda p: p.key))
        return legal


class DroppingEngine(SingleEngine):
    """Loses a refused card from the seat's holding before it reports ILLEGAL."""

    __slots__ = ()

    def play(self, key: int) -> int:
        seat = self.seat
        result = super().play(key)
        if result == ILLEGAL and self.phase == PLAY and 0 <= key < 52:
            self.holdings[seat] &= ~(1 << key)
        return result


class SharingEngine(SingleEngine):
    """A copy that shares the seats' cards with its original."""

    __slots__ = ()

    def _copy_play(self, new: Any) -> None:
        super()._copy_play(new)
        new.holdings = self.holdings


class SilentEngine(SingleEngine):
    """Refuses plays without saying why."""

    __slots__ = ()

    def refusal(self, key: int) -> tuple[int, int] | None:
        return None


class UnknownRuleEngine(SingleEngine):
    """Explains each refusal by a plug-in play rule the ruleset does not have (code
    PLAY_RULE, rule 0: the ruleset has none), or by a code no rule has."""

    __slots__ = ()

    def refusal(self, key: int) -> tuple[int, int] | None:
        found = super().refusal(key)
        return None if found is None else (PLAY_RULE, 0) if key % 2 else (99, 0)


class LaxEngine(SingleEngine):
    """Lists the right plays but accepts any held card (no follow-suit check in play())."""

    __slots__ = ()

    def play(self, key: int) -> int:
        if self.phase != PLAY or not 0 <= key < 52 or not self.holdings[self.seat] >> key & 1:
            return ILLEGAL
        self._play(key)
        return self.seat


class RepeatingEngine(SingleEngine):
    """Lists its first legal play twice."""

    __slots__ = ()

    def _legal_plays(self) -> tuple[Play, ...]:
        legal = super()._legal_plays()
        return (*legal, legal[0])


class LeaderTakesAllEngine(SingleEngine):
    """The leader wins every trick: self-consistent, but not what the reference plays."""

    __slots__ = ()

    def _finish_trick(self) -> None:
        leader = self.trick_leader
        trick = tuple(self.trick)
        for key in trick:
            self.taken[leader] |= 1 << key
        self.trick_log.append((leader, trick, leader, leader))
        self.trick = []
        self.offenders = []
        if self.holdings[leader]:
            self.seat = leader
        else:
            self._finish()


class OtherPlayoutEngine(SingleEngine):
    """Plays out at random drawing the legal cards highest first: its hands are right, but
    not the ones the same draws make through legal() and play()."""

    __slots__ = ()

    def _random_plays(self, random: Callable[[], float]) -> None:
        while self.phase == PLAY:
            legal = self._legal_plays()
            self._play(legal[len(legal) - 1 - draw(random, len(legal))].key)


class EnginePlugin:
    """A modifier that only registers one engine (as a third party's engine would be)."""

    def __init__(self, name: str, engine: type[SingleEngine], features: frozenset[str]) -> None:
        self.name = name
        self.engine = engine
        self.features = features

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo(self.name, f"The {self.name} engine")

    @hookimpl
    def gongzhu_play_engines(self, engines: Any) -> None:
        # (Any: mypy reads EngineSpec's converter=frozenset as taking Iterable[_T_co], which
        # no argument matches; the library's own registrations show the same error)
        features: Any = self.features
        engines.add(EngineSpec(self.name, self.engine, features, speed=1))


def with_engine(
    name: str, engine: type[SingleEngine], features: frozenset[str] = SINGLE_FEATURES
) -> Rules:
    return Rules.from_plugins(EnginePlugin(name, engine, features))


def check_alone(rules: Rules, name: str, hands: int = 20) -> ConformanceReport:
    return check_ruleset(rules, hands, engines=[name])


def test_a_correct_third_party_engine_passes() -> None:
    rules = with_engine("plain", SingleEngine)
    report = check_ruleset(rules, 10)
    assert "plain" in report.engines and "single-python" in report.engines
    assert report.engines == tuple(spec.name for spec in rules.engines)


def test_a_third_party_engine_on_the_showing_base_passes() -> None:
    """An engine written from scratch on the public ShowingEngine base (its own play
    phase: any card may be played) conforms alone, and differs from the reference."""
    from .test_hooks import AnyCardPlugin

    rules = Rules.from_plugins(AnyCardPlugin())
    assert rules.engine_spec.name == "any-card"
    report = check_ruleset(rules, 10, engines=["any-card"])
    assert report.engines == ("any-card",) and report.actions >= 10 * 52
    with pytest.raises(ConformanceError, match="disagree on the legal actions"):
        check_ruleset(rules, 10, engines=["single-python", "any-card"])


def test_catches_a_legal_action_that_does_not_apply() -> None:
    rules = with_engine("off-suit", OffSuitEngine)
    with pytest.raises(ConformanceError, match=r"the legal action play \w+ (was refused|does not)"):
        check_alone(rules, "off-suit")


def test_catches_engines_disagreeing_on_the_legal_actions() -> None:
    rules = with_engine("off-suit", OffSuitEngine)
    with pytest.raises(ConformanceError, match="disagree on the legal actions") as caught:
        check_ruleset(rules, 20, engines=["single-python", "off-suit"])
    error = caught.value
    assert error.engine == "single-python vs off-suit"
    assert "only off-suit offers play" in error.problem


def test_catches_a_refusal_that_changes_the_hand() -> None:
    rules = with_engine("dropping", DroppingEngine)
    with pytest.raises(ConformanceError, match="changed the hand: cards held") as caught:
        check_alone(rules, "dropping")
    error = caught.value
    assert error.engine == "dropping" and error.rules == repr(rules)
    assert isinstance(error.seed, int) and isinstance(error.index, int)
    assert f"hand seed {error.seed}, action {error.index}:" in str(error)
    assert str(error).startswith(repr(rules))
    # the record rebuilds the position where it broke
    assert error.record is not None
    again = gongzhu.replay(error.record, rules=rules)
    assert again.seed == error.seed and len(again.history) == error.index
    assert again.deal == rules.new_hand(seed=error.seed).deal


def test_catches_a_clone_sharing_state_with_its_original() -> None:
    rules = with_engine("sharing", SharingEngine)
    with pytest.raises(ConformanceError, match=r"clone .*changed (the|its) original"):
        check_alone(rules, "sharing")


def test_catches_a_refusal_without_a_reason() -> None:
    rules = with_engine("silent", SilentEngine)
    with pytest.raises(ConformanceError, match="gives no Refusal"):
        check_alone(rules, "silent")


def test_catches_a_refusal_by_a_rule_that_does_not_exist() -> None:
    rules = with_engine("unknown-rule", UnknownRuleEngine)
    with pytest.raises(
        ConformanceError, match=r"raised (IndexError|KeyError) instead of IllegalAction"
    ) as caught:
        check_alone(rules, "unknown-rule")
    assert isinstance(caught.value.__cause__, IndexError | KeyError)


def test_catches_an_illegal_action_accepted() -> None:
    rules = with_engine("lax", LaxEngine)
    with pytest.raises(ConformanceError, match="is not a legal action, but it was accepted"):
        check_alone(rules, "lax")


def test_catches_repeated_legal_actions() -> None:
    rules = with_engine("repeating", RepeatingEngine)
    with pytest.raises(ConformanceError, match="the legal actions repeat play"):
        check_alone(rules, "repeating")


def test_catches_an_engine_playing_other_tricks() -> None:
    rules = with_engine("leader-takes-all", LeaderTakesAllEngine)
    with pytest.raises(ConformanceError, match="disagree on the tricks played") as caught:
        check_ruleset(rules, 5, engines=["single-python", "leader-takes-all"])
    assert caught.value.engine == "single-python vs leader-takes-all"
    # alone, its hands are self-consistent, but they do not replay on the ruleset's engine
    with pytest.raises(ConformanceError, match="its record does not replay"):
        check_alone(rules, "leader-takes-all", 5)


def test_catches_a_random_playout_that_draws_otherwise() -> None:
    rules = with_engine("other-playout", OtherPlayoutEngine)
    with pytest.raises(
        ConformanceError, match=r"play_out\(\) with the same random draws"
    ) as caught:
        check_alone(rules, "other-playout", 3)
    assert caught.value.engine == "other-playout" and caught.value.index is None


def test_catches_an_engine_that_crashes() -> None:
    class CrashingEngine(SingleEngine):
        __slots__ = ()

        def _legal_plays(self) -> tuple[Play, ...]:
            if self.trick_count * 4 + len(self.trick) > 16:
                raise KeyError("oops")
            return super()._legal_plays()

    rules = with_engine("crashing", CrashingEngine)
    with pytest.raises(ConformanceError, match="KeyError raised: 'oops'") as caught:
        check_alone(rules, "crashing", 1)
    assert isinstance(caught.value.__cause__, KeyError)


# -- plug-in play rules, on every engine -------------------------------------------------------


def no_hearts_led_before_broken(situation: PlaySituation) -> int:
    """Refuses: a heart may not be led while no heart has been played (unless it is all the
    seat holds: then the rule gives way)."""
    hearts = Suit.HEARTS.mask
    return hearts if not situation.played & hearts else 0


def pig_when_void(situation: PlaySituation) -> int:
    """Requires: a seat that cannot follow discards the pig when it holds one."""
    return PIG.bit


class RefuseAndRequire:
    """Two plug-in play rules: one that refuses, one that requires."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("refuse-and-require", "A refusing and a requiring play rule")

    @hookimpl
    def gongzhu_play_config(self, config: Any) -> None:
        config.add_rule(
            PlayRule(
                "hearts-unbroken",
                no_hearts_led_before_broken,
                "{card}: no heart may be led before one is played",
                when=PlayMoment.LEAD,
                cards=Suit.HEARTS.mask,
            )
        )
        config.add_rule(
            PlayRule(
                "pig-when-void",
                require=pig_when_void,
                reason="{card}: discard the pig",
                when=PlayMoment.DISCARD,
                cards=PIG.bit,
            )
        )


CORE_ENGINES = {
    1: {"single-python", "single-c"} if ACCELERATED else {"single-python"},
    2: {"pairs-python", "pairs-c"} if ACCELERATED else {"pairs-python"},
}


RULE_SETS = [(), ("two-deck",), ("huapai",), ("huapai", "two-deck")]


def with_play_rules(names: tuple[str, ...]) -> tuple[Rules, Rules]:
    """The ruleset of ``names`` with the two play rules, and without them."""
    base = gongzhu.load_rules(*names)
    installed = [(name, base.plugin(name)) for name in base.names]
    return Rules.from_plugins(*installed, RefuseAndRequire()), base


@pytest.mark.parametrize("names", RULE_SETS, ids=lambda names: "+".join(names) or "39baobao")
def test_plugin_play_rules_conform_on_every_engine(names: tuple[str, ...]) -> None:
    rules, _base = with_play_rules(names)
    assert "play-rules" in rules.play_config.features
    assert [rule.name for rule in rules.play_config.rules] == ["hearts-unbroken", "pig-when-void"]
    engines = {spec.name for spec in rules.engines}
    assert engines == CORE_ENGINES[rules.table.copies]  # every core engine plays rules
    report = check_ruleset(rules, hands_for(rules), seed=3)
    assert set(report.engines) == engines
    assert report.refusals_checked > report.hands


def expected_legal(hand: HandState, base: HandState) -> tuple[tuple[Action, ...], set[str]]:
    """The legal actions of ``hand`` (with the two rules), worked out from those of ``base``
    (the same position without them) as PlayRule says, and the rules that narrowed them."""
    legal = base.legal_actions()
    if hand.phase is not gongzhu.Phase.PLAY:
        return legal, set()
    narrowed: set[str] = set()
    plays = [play for play in legal if isinstance(play, Play)]
    trick = hand.current_trick
    played = {
        card for _, action in hand.history if isinstance(action, Play) for card in action.cards
    }
    if not trick and all(card.suit is not Suit.HEARTS for card in played):
        kept = [play for play in plays if all(card.suit is not Suit.HEARTS for card in play.cards)]
        if kept and kept != plays:  # a rule that would leave nothing gives way
            plays, narrowed = kept, narrowed | {"hearts-unbroken"}
    seat = hand.to_move
    assert seat is not None
    if trick and all(card.suit is not trick[0][1][0].suit for card in hand.holding(seat)):
        using = [play for play in plays if PIG in play.cards]
        if using and using != plays:
            plays, narrowed = using, narrowed | {"pig-when-void"}
    return tuple(plays), narrowed


@pytest.mark.parametrize("names", RULE_SETS, ids=lambda names: "+".join(names) or "39baobao")
def test_plugin_play_rules_narrow_as_they_say_on_every_engine(names: tuple[str, ...]) -> None:
    """Each engine's legal plays with the rules are the plays without them, narrowed as the
    rules say: a reference written from PlayRule's description, not from an engine."""
    rules, base_rules = with_play_rules(names)
    for spec in rules.engines:
        narrowed: set[str] = set()
        for seed in range(hands_for(rules) // 2):
            hand = rules.new_hand(seed, engine=spec.name)
            base = base_rules.new_hand(seed, engine=spec.name)
            rng = random.Random(seed)
            while not hand.is_over:
                expected, why = expected_legal(hand, base)
                assert hand.legal_actions() == expected, (spec.name, seed, len(hand.history))
                narrowed |= why
                action = rng.choice(expected)
                hand.apply(action)
                base.apply(action)
        assert narrowed == {"hearts-unbroken", "pig-when-void"}, spec.name  # both bound


# -- broken plug-ins -----------------------------------------------------------------------


class DriftingScores:
    """A normalisation with hidden state: the same hand scores differently each time."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("drifting-scores", "Drifting scores")

    @hookimpl(tryfirst=True)
    def gongzhu_normalise(self, raw: tuple[int, ...]) -> tuple[int, ...]:
        self.calls += 1
        return tuple(score + self.calls for score in raw)


def test_catches_scores_that_do_not_replay() -> None:
    rules = Rules.from_plugins(DriftingScores())
    with pytest.raises(ConformanceError, match=r"the finished hand: .*(replay|differ)"):
        check_ruleset(rules, 3)


class RepeatedShows:
    """A show filter that lists one choice twice."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("repeated-shows", "Repeated shows")

    @hookimpl
    def gongzhu_filter_shows(self, choices: list[tuple[Any, ...]]) -> None:
        if choices:
            choices.append(choices[-1])


def test_catches_repeated_shows() -> None:
    rules = Rules.from_plugins(RepeatedShows())
    with pytest.raises(ConformanceError, match=r"action 0: the legal actions repeat show"):
        check_ruleset(rules, 3)


def test_catches_a_view_that_leaks_legal_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    original = HandState.view

    def leaky(self: HandState, seat: int) -> Any:
        return attrs.evolve(original(self, seat), legal_actions=self.legal_actions())

    monkeypatch.setattr(HandState, "view", leaky)
    with pytest.raises(ConformanceError, match="view lists the legal actions"):
        check_ruleset(gongzhu.load_rules(), 5)


def test_catches_a_view_that_shows_another_seats_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    original = HandState.view

    def peeking(self: HandState, seat: int) -> Any:
        view = original(self, seat)
        return attrs.evolve(
            view, holding=tuple(sorted(view.holding + self.holding((seat + 1) % 4)))
        )

    monkeypatch.setattr(HandState, "view", peeking)
    with pytest.raises(ConformanceError, match="view shows the cards"):
        check_ruleset(gongzhu.load_rules(), 5)
