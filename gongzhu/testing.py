"""A conformance kit for plug-in and engine authors: random hands against every invariant.

:func:`check_ruleset` plays seeded random hands of a ruleset through the
public API only (:meth:`Rules.new_hand <gongzhu.rules.Rules.new_hand>`,
:meth:`~gongzhu.hand.HandState.legal_actions`,
:meth:`~gongzhu.hand.HandState.apply`, :meth:`~gongzhu.hand.HandState.clone`,
:meth:`~gongzhu.hand.HandState.view`, records and :func:`gongzhu.replay`),
in the spirit of PettingZoo's ``api_test`` and OpenSpiel's random
simulation test, and checks what every ruleset must keep, whatever its
plug-ins:

- while the hand is not over, the legal actions are never empty, hold no
  duplicates, belong to the seat to move, and each of them applies;
- every card of the deal is played exactly once, each seat plays the cards
  it was dealt, and the four seats' taken cards are the whole deck;
- a refused action (another card of the deck, a card of another seat, a
  ``Show`` in the play phase, a two-card play in single-deck play, ...)
  raises :class:`~gongzhu.errors.IllegalAction` naming a rule (card plays:
  with a :class:`~gongzhu.play.Refusal`) and changes nothing;
- a clone played to the end leaves its original as it was, and its own
  record replays;
- each seat's :meth:`~gongzhu.hand.HandState.view` holds its own cards only,
  and legal actions only for the seat to move;
- a record replays to an equal record and score sheet, and
  :meth:`~gongzhu.hand.HandState.returns` equals ``score().final``;
- every engine able to play the ruleset
  (:attr:`Rules.engines <gongzhu.rules.Rules.engines>`: with plug-in
  :class:`~gongzhu.play.PlayRule` objects, every engine that implements
  ``"play-rules"``, the four core engines among them) plays each hand,
  given the same random choices, identically: legal actions and shows at
  every step, history, tricks, record, score sheet and what scoring reads
  (:meth:`~gongzhu.hand.HandState.facts`);
- on every engine, the hand played out inside the engine
  (:meth:`~gongzhu.hand.HandState.play_out`, the path of
  :func:`gongzhu.simulate`) with the same random draws is the hand the
  legal actions applied one by one made: the same record and score sheet.

A broken invariant raises :class:`ConformanceError`, naming the ruleset,
the engine, the hand's seed and the action index.  A run is reproducible
(the same arguments fail the same way), and the error carries the hand's
record up to the failure, which :func:`gongzhu.replay` rebuilds.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, NoReturn

import attrs

from .actions import Action, Play, Show, ShowKind
from .cards import Card
from .errors import GongzhuError, IllegalAction
from .hand import HandState
from .match import Match
from .play import Refusal
from .record import replay, replay_match
from .rules import Rules
from .scoring import ScoreSheet
from .view import Phase, Trick

__all__ = ["MATCH_HANDS", "ConformanceError", "ConformanceReport", "check_ruleset"]

_APPLY_CHANCE: Final = 0.25
"""The share of steps at which every legal action is applied (each to a clone)."""
_VIEW_CHANCE: Final = 0.05
"""The share of steps at which every seat's view is checked."""
_REFUSAL_CHANCE: Final = 0.02
"""The share of steps at which illegal actions are tried."""
_BOUNDARY_REFUSAL_CHANCE: Final = 0.3
"""The same, at a hand's first action and at its first card play."""
_CLONE_CHANCE: Final = 0.005
"""The share of steps at which a clone is played to the end (and its record replayed)."""


class ConformanceError(GongzhuError, AssertionError):
    """A ruleset (its plug-ins, or one of its play engines) broke an invariant.

    :ivar rules: the ruleset, as ``repr(rules)`` (``load_rules('huapai')``).
    :ivar engine: the engine the hand ran on (``"a vs b"`` when two disagree).
    :ivar seed: the hand's seed (``rules.new_hand(seed=...)``).
    :ivar index: the index of the action at which it broke (the length of
        the hand's history then), or ``None`` for a finished hand's check.
    :ivar problem: what broke.
    :ivar record: the hand's record (:meth:`~gongzhu.hand.HandState.to_record`)
        when it broke, or ``None``: its deal and the actions played, so
        ``gongzhu.replay(error.record, rules=rules)`` rebuilds the position
        (on the ruleset's default engine).
    """

    def __init__(
        self,
        problem: str,
        *,
        rules: str,
        engine: str,
        seed: int | None,
        index: int | None,
        record: dict[str, Any] | None = None,
    ) -> None:
        self.problem = problem
        self.rules = rules
        self.engine = engine
        self.seed = seed
        self.index = index
        self.record = record
        where = "the finished hand" if index is None else f"action {index}"
        super().__init__(f"{rules}, engine {engine}, hand seed {seed}, {where}: {problem}")


@attrs.frozen
class ConformanceReport:
    """What :func:`check_ruleset` checked (it raises on the first failure instead).

    :ivar rules: the ruleset's :meth:`~gongzhu.rules.Rules.spec` (plug-ins and options).
    :ivar hands: how many random hands were played on each engine.
    :ivar engines: the names of the engines checked (all of them: fastest
        first); each hand on the others was compared with the first's.
    :ivar actions: how many actions were applied to those hands, on all
        engines (clones and probes not counted).
    :ivar refusals_checked: how many illegal actions were tried and refused
        without changing anything.
    :ivar match_hands: how many hands the match played to check the match-level
        hooks (:func:`check_ruleset`), on the ruleset's own engine.
    """

    rules: dict[str, Any] = attrs.field(hash=False)
    hands: int
    engines: tuple[str, ...]
    actions: int
    refusals_checked: int
    match_hands: int = 0


@attrs.define
class _Tally:
    actions: int = 0
    refusals: int = 0


class _Context:
    """Where a check runs, to name it in a :class:`ConformanceError`."""

    __slots__ = ("engine", "index", "rules", "seed", "state")

    def __init__(
        self, rules: str, engine: str, seed: int | None, state: HandState | None = None
    ) -> None:
        self.rules = rules
        self.engine = engine
        self.seed = seed
        self.state = state
        self.index: int | None = 0

    def error(self, problem: str) -> ConformanceError:
        record = None
        if self.state is not None:
            try:
                record = self.state.to_record()
            except Exception:  # a hand broken beyond recording
                record = None
        return ConformanceError(
            problem,
            rules=self.rules,
            engine=self.engine,
            seed=self.seed,
            index=self.index,
            record=record,
        )

    def fail(self, problem: str) -> NoReturn:
        raise self.error(problem)


def check_ruleset(
    rules: Rules, hands: int = 100, *, seed: int = 0, engines: Iterable[str] | None = None
) -> ConformanceReport:
    """Play ``hands`` random hands of ``rules`` and check every invariant a ruleset keeps.

    The run is reproducible: a :class:`random.Random` seeded with ``seed``
    draws each hand's deal seed (``rules.new_hand(seed=...)``), the stream
    of random choices (the ``int(r * len(legal))``-th legal action) and the
    steps at which views, refusals and clones are probed.  Each hand is
    played on every engine checked with the same choices, and the engines
    must agree.

    >>> import gongzhu
    >>> check_ruleset(gongzhu.load_rules(), hands=3).hands
    3

    :param rules: the ruleset to check (from :func:`~gongzhu.rules.load_rules`
        or :meth:`Rules.from_plugins <gongzhu.rules.Rules.from_plugins>`).
    :param hands: how many hands to play.
    :param seed: the seed of the whole run.
    :param engines: the names of the engines to check, among
        :attr:`Rules.engines <gongzhu.rules.Rules.engines>`; ``None``: all of them.
    :return: what was checked.
    :raises ConformanceError: at the first broken invariant, naming the
        ruleset, the engine, the hand's seed, the action index and the problem.
    :raises IncompatibleVariants: an engine named in ``engines`` cannot play ``rules``.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"check_ruleset takes a Rules, not {type(rules).__name__}")
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 0:
        raise ValueError(f"hands must be a non-negative integer, not {hands!r}")
    if engines is None:
        names = tuple(spec.name for spec in rules.engines)
    else:
        wanted = [engines] if isinstance(engines, str) else list(engines)
        if not wanted:
            raise ValueError("engines: name at least one engine (or None for all)")
        names = tuple(rules.engine_named(name).name for name in dict.fromkeys(wanted))
    stream = random.Random(seed)
    tally = _Tally()
    described = repr(rules)
    for _ in range(hands):
        hand_seed = stream.randrange(2**63)
        choice_seed = stream.getrandbits(64)
        probe_seed = stream.getrandbits(64)
        _check_hand(rules, described, names, hand_seed, choice_seed, probe_seed, tally)
    match_hands = 0
    if hands:
        match_hands = _check_match(rules, described, stream.randrange(2**63), stream.random)
    return ConformanceReport(
        rules=rules.spec(),
        hands=hands,
        engines=names,
        actions=tally.actions,
        refusals_checked=tally.refusals,
        match_hands=match_hands,
    )


MATCH_HANDS: Final = 3
"""The most hands of the match :func:`check_ruleset` plays."""


def _check_match(rules: Rules, described: str, seed: int, choose: Callable[[], float]) -> int:
    """A match of up to :data:`MATCH_HANDS` random hands: the match-level hooks
    (:func:`~gongzhu.hookspecs.gongzhu_normalise`, ``gongzhu_match_over``,
    ``gongzhu_next_leader``, ``gongzhu_match_losers``) asked as a match asks them, and its
    record replayed.  Returns the hands played."""
    context = _Context(described, rules.engine_spec.name, seed)
    context.index = None
    match = Match(rules, seed=seed, hands=MATCH_HANDS)
    try:
        while not match.is_over:
            hand = context.state = match.new_hand()
            while not hand.is_over:
                legal = hand.legal_actions()
                hand.apply(legal[int(choose() * len(legal))])
            match.record_hand(hand)
        context.state = None
        losers = match.losers
        record = json.loads(json.dumps(match.to_record(), allow_nan=False))
        again = replay_match(record, rules=rules)
    except (GongzhuError, ValueError) as exc:  # a plug-in's answer, or a record it spoiled
        context.fail(f"a match: {exc}")
    if (again.totals, again.losers) != (match.totals, losers):
        context.fail(
            f"a match's record replays to totals {again.totals} and losers {again.losers}, "
            f"not {match.totals} and {losers}"
        )
    return len(match.hands)


# -- one hand, on every engine in lockstep ----------------------------------------------------


def _check_hand(
    rules: Rules,
    described: str,
    names: Sequence[str],
    hand_seed: int,
    choice_seed: int,
    probe_seed: int,
    tally: _Tally,
) -> None:
    contexts = [_Context(described, name, hand_seed) for name in names]
    current = contexts[0]
    try:
        states = []
        for context in contexts:
            current = context
            context.state = rules.new_hand(seed=hand_seed, engine=context.engine)
            states.append(context.state)
        choices = random.Random(choice_seed)
        probes = [random.Random(probe_seed) for _ in names]  # the same probes on every engine
        limit = 2 * len(states[0].deal.order) + 16
        first_play = [True] * len(names)
        steps = 0
        while True:
            for k, (state, context, probe) in enumerate(zip(states, contexts, probes, strict=True)):
                current = context
                context.index = len(state.history)
                at_first_play = state.phase is Phase.PLAY and first_play[k]
                if at_first_play:
                    first_play[k] = False
                _check_step(rules, state, context, probe, tally, at_first_play or steps == 0)
            current = contexts[0]
            _check_agreement(states, contexts)
            primary = states[0]
            if primary.is_over:
                break
            steps += 1
            if steps > limit:
                current.fail(f"the hand does not end after {limit} actions")
            legal = primary.legal_actions()
            pick = int(choices.random() * len(legal))
            for state, context in zip(states, contexts, strict=True):
                current = context
                action = state.legal_actions()[pick]
                try:
                    state.apply(action)
                except IllegalAction as error:
                    context.fail(f"the legal action {action} was refused: {error}")
                tally.actions += 1
        results = []
        for k, (state, context) in enumerate(zip(states, contexts, strict=True)):
            current = context
            context.index = None
            results.append(_check_finished(rules, state, context, tally, replays=k == 0))
        current = contexts[0]
        _check_same_results(states, contexts, results)
        for context, result in zip(contexts, results, strict=True):
            current = context
            _check_play_out(rules, hand_seed, choice_seed, result, context)
    except ConformanceError:
        raise
    except Exception as error:  # a crash inside an engine or a plug-in
        raise current.error(f"{type(error).__name__} raised: {error}") from error


def _check_step(
    rules: Rules,
    state: HandState,
    context: _Context,
    probe: random.Random,
    tally: _Tally,
    boundary: bool,
) -> None:
    """The checks of one step: legal actions, and (at random steps) views, refusals, clones.

    ``boundary``: the step is the hand's first action or its first card play.
    """
    if state.is_over:
        return
    legal = _check_legal(state, context)
    if probe.random() < _APPLY_CHANCE:
        _check_owned(state, legal, context)
        seat = state.to_move
        assert seat is not None
        before = (len(state.history), state.holding(seat), state.current_trick)
        for action in legal:
            twin = state.clone()
            try:
                twin.apply(action)
            except IllegalAction as error:
                context.fail(f"the legal action {action} does not apply: {error}")
            if (len(state.history), state.holding(seat), state.current_trick) != before:
                context.fail(f"applying the legal action {action} to a clone changed the original")
    if probe.random() < _VIEW_CHANCE:
        _check_views(state, context)
    if probe.random() < (_BOUNDARY_REFUSAL_CHANCE if boundary else _REFUSAL_CHANCE):
        _check_refusals(state, context, probe, tally)
    if probe.random() < _CLONE_CHANCE:
        _check_clone(rules, state, context, probe)


def _check_legal(state: HandState, context: _Context) -> tuple[Action, ...]:
    legal = state.legal_actions()
    if not legal:
        context.fail(f"no legal action while the hand is not over (phase {state.phase.value})")
    if len(set(legal)) != len(legal):
        repeated = sorted(str(a) for a, n in Counter(legal).items() if n > 1)
        context.fail(f"the legal actions repeat {', '.join(repeated)}")
    if state.to_move is None:
        context.fail("the hand is not over but no seat is to move")
    return legal


def _check_owned(state: HandState, legal: tuple[Action, ...], context: _Context) -> None:
    """Card plays use the mover's own cards; shows are the other phases' actions."""
    seat = state.to_move
    assert seat is not None
    if state.phase is Phase.PLAY:
        held = state.holding(seat)
        for action in legal:
            if not isinstance(action, Play):
                context.fail(f"the legal action {action} is not a Play in the play phase")
            cards = action.cards
            if not cards or any(held.count(card) < cards.count(card) for card in cards):
                context.fail(f"the legal action {action} uses cards seat {seat} does not hold")
    else:
        for action in legal:
            if not isinstance(action, Show):
                context.fail(
                    f"the legal action {action} is not a Show in the {state.phase.value} phase"
                )


def _check_views(state: HandState, context: _Context) -> None:
    legal = state.legal_actions()
    to_move = state.to_move
    for seat in range(4):
        view = state.view(seat)
        if view.seat != seat or view.to_move != to_move or view.phase is not state.phase:
            context.fail(f"seat {seat}'s view names the wrong seat, seat to move or phase")
        if state.phase is Phase.FIRST_SHOW:
            own: tuple[Card, ...] = (state.deal.first_card(seat),)
        else:
            own = state.holding(seat)
        if tuple(view.holding) != own or Counter(view.holding) - Counter(state.dealt(seat)):
            context.fail(
                f"seat {seat}'s view shows the cards {_cards(view.holding)}, "
                f"not its own {_cards(own)}"
            )
        expected = legal if seat == to_move else ()
        if tuple(view.legal_actions) != expected:
            context.fail(
                f"seat {seat}'s view lists the legal actions {_actions(view.legal_actions)}, "
                f"not {_actions(expected)}"
            )
        for show in view.shows:
            if show.kind is ShowKind.SECRET and show.seat != seat and show.cards is not None:
                context.fail(f"seat {seat}'s view reveals seat {show.seat}'s secret sale")


# -- refusals ---------------------------------------------------------------------------


def _illegal_candidates(state: HandState, probe: random.Random) -> list[tuple[str, Action]]:
    """A few actions the seat to move may not take, each with what it is."""
    legal = set(state.legal_actions())
    seat = state.to_move
    assert seat is not None
    deck = list(dict.fromkeys(state.deal.order))  # each card once, in a reproducible order
    found: list[tuple[str, Action]] = []
    if state.phase is Phase.PLAY:
        held = state.holding(seat)
        found += [("a card of the deck", Play.of(card)) for card in probe.sample(deck, 3)]
        other = (seat + 1 + probe.randrange(3)) % 4
        theirs = [c for c in state.holding(other) if c not in held]
        if theirs:
            found.append((f"a card of seat {other}", Play.of(probe.choice(theirs))))
        unplayable = [c for c in held if Play.of(c) not in legal]
        if unplayable:
            found.append(("a held card that is not legal", Play.of(probe.choice(unplayable))))
        found.append(("a Show in the play phase", Show(())))
        if len(held) >= 2:
            found.append(("a two-card play", Play(probe.sample(held, 2))))
        found.append(("a two-card play of cards not held", Play(probe.sample(deck, 2))))
        found.append(("an empty play", Play(())))
    else:
        found.append((f"a card play in the {state.phase.value} phase", Play.of(probe.choice(deck))))
        for kind in ShowKind:
            found.append((f"a {kind.value} show", Show((probe.choice(deck),), kind)))
        found.append(("a show of two cards", Show(probe.sample(deck, 2))))
    unique = dict.fromkeys((what, action) for what, action in found if action not in legal)
    return list(unique)


def _quick_state(state: HandState) -> tuple[Any, ...]:
    """What a refused action must leave as it was (cheap to take at every try)."""
    return (
        state.phase,
        state.to_move,
        state.is_over,
        state.history,
        state.legal_actions(),
        tuple(state.holding(s) for s in range(4)),
        tuple(state.taken(s) for s in range(4)),
        state.current_trick,
        state.trick_leader,
        len(state.tricks),
    )


_QUICK_FIELDS: Final = (
    "phase",
    "seat to move",
    "is_over",
    "history",
    "legal actions",
    "cards held",
    "taken cards",
    "trick under way",
    "trick leader",
    "tricks",
)


def _full_state(state: HandState) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """Everything observable of a hand: its record, and :func:`_quick_state`."""
    return state.to_record(), _quick_state(state)


def _difference(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    return ", ".join(
        name for name, a, b in zip(_QUICK_FIELDS, before, after, strict=True) if a != b
    )


def _full_difference(
    before: tuple[dict[str, Any], tuple[Any, ...]], after: tuple[dict[str, Any], tuple[Any, ...]]
) -> str:
    old, new = before[0], after[0]
    changed = [
        f"record field {k!r}" for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)
    ]
    quick = _difference(before[1], after[1])
    return ", ".join([*changed, quick] if quick else changed)


def _check_refusals(
    state: HandState, context: _Context, probe: random.Random, tally: _Tally
) -> None:
    full = _full_state(state)
    before = full[1]
    for what, action in _illegal_candidates(state, probe):
        try:
            state.apply(action)
        except IllegalAction as error:
            if not isinstance(error.rule, str) or not error.rule:
                context.fail(f"refusing {what} ({action}) names no rule (IllegalAction.rule)")
            if state.phase is Phase.PLAY and isinstance(action, Play):
                refusal = error.refusal
                if not isinstance(refusal, Refusal):
                    context.fail(
                        f"refusing {what} ({action}) gives no Refusal "
                        f"(IllegalAction.refusal is {refusal!r})"
                    )
                if not isinstance(refusal.rule, str) or not refusal.rule:
                    context.fail(f"refusing {what} ({action}) gives a Refusal naming no rule")
        except Exception as error:
            raise context.error(
                f"{what} ({action}) raised {type(error).__name__} instead of IllegalAction: {error}"
            ) from error
        else:
            context.fail(f"{what} ({action}) is not a legal action, but it was accepted")
        changed = _difference(before, _quick_state(state))
        if changed:
            context.fail(f"refusing {what} ({action}) changed the hand: {changed}")
        tally.refusals += 1
    changed = _full_difference(full, _full_state(state))
    if changed:
        context.fail(f"refused actions changed the hand: {changed}")


# -- clones -----------------------------------------------------------------------------


def _play_out(state: HandState, random_: Callable[[], float], context: _Context, what: str) -> None:
    limit = 2 * len(state.deal.order) + 16
    for _ in range(limit):
        if state.is_over:
            return
        legal = state.legal_actions()
        if not legal:
            context.fail(f"{what}: no legal action while the hand is not over")
        action = legal[int(random_() * len(legal))]
        try:
            state.apply(action)
        except IllegalAction as error:
            context.fail(f"{what}: the legal action {action} was refused: {error}")
    context.fail(f"{what}: the hand does not end after {limit} actions")


def _check_clone(rules: Rules, state: HandState, context: _Context, probe: random.Random) -> None:
    before = _full_state(state)
    clone = state.clone()
    if clone.to_record() != before[0] or _quick_state(clone) != before[1]:
        context.fail("a fresh clone differs from its original")
    _play_out(clone, random.Random(probe.getrandbits(64)).random, context, "a clone")
    changed = _full_difference(before, _full_state(state))
    if changed:
        context.fail(f"playing a clone to the end changed its original: {changed}")
    _check_cards(clone, context, "a clone played to the end: ")
    _check_replay(rules, clone.to_record(), clone.score(), context, "a clone played to the end: ")


# -- finished hands ---------------------------------------------------------------------


def _check_finished(
    rules: Rules, state: HandState, context: _Context, tally: _Tally, *, replays: bool
) -> tuple[dict[str, Any], ScoreSheet]:
    """A finished hand's checks; its record and score sheet.

    ``replays``: also replay its record (the other engines' records are
    compared with this one's instead).
    """
    if not state.is_over or state.phase is not Phase.OVER or state.to_move is not None:
        context.fail("the hand stopped before it was over")
    if state.legal_actions():
        context.fail("a finished hand has legal actions")
    action = Play(state.deal.order[0])
    try:
        state.apply(action)
    except IllegalAction:
        tally.refusals += 1
    else:
        context.fail(f"a finished hand accepted {action}")
    _check_cards(state, context, "")
    record, sheet = state.to_record(), state.score()
    if replays:
        _check_replay(rules, record, sheet, context, "")
    if tuple(state.returns()) != tuple(sheet.final):
        context.fail(f"returns() {state.returns()} differ from score().final {sheet.final}")
    return record, sheet


def _check_cards(state: HandState, context: _Context, what: str) -> None:
    """Every card played once, by the seat dealt it; the taken cards are the deck.

    ``what`` starts each problem's description (``""`` for the hand itself).
    """
    deal = state.deal
    deck = Counter(deal.order)
    plays = [(seat, a.cards) for seat, a in state.history if isinstance(a, Play)]
    played = Counter(card for _, cards in plays for card in cards)
    if played != deck:
        missing, extra = deck - played, played - deck
        context.fail(
            f"{what}the cards played are not the deal's "
            f"(never played: {_cards(missing.elements())}; "
            f"played too often or not dealt: {_cards(extra.elements())})"
        )
    for k in range(4):
        seat = (deal.first_seat + k) % 4
        dealt = state.dealt(seat)
        if Counter(dealt) != Counter(deal.order[k::4]):
            context.fail(f"{what}seat {seat} was dealt {_cards(dealt)}, not its cards of the deal")
        mine = Counter(card for who, cards in plays if who == seat for card in cards)
        if mine != Counter(dealt):
            context.fail(
                f"{what}seat {seat} played {_cards(sorted(mine.elements()))}, "
                f"not the cards it was dealt {_cards(dealt)}"
            )
        if state.holding(seat):
            context.fail(f"{what}seat {seat} still holds {_cards(state.holding(seat))}")
    taken = Counter(card for seat in range(4) for card in state.taken(seat))
    if taken != deck:
        context.fail(
            f"{what}the four seats' taken cards are not the whole deck "
            f"(not taken: {_cards((deck - taken).elements())}; "
            f"taken too often: {_cards((taken - deck).elements())})"
        )
    in_tricks = [(seat, cards) for trick in state.tricks for seat, cards in trick.plays]
    if in_tricks != plays:
        context.fail(f"{what}the tricks' plays are not the history's plays")
    leader = state.leader
    for number, trick in enumerate(state.tricks, 1):
        seats = [seat for seat, _ in trick.plays]
        if trick.leader != leader or seats != [(leader + i) % 4 for i in range(4)]:
            context.fail(f"{what}trick {number} is not led by the last winner, in seat order")
        if trick.winner not in seats or trick.taker not in range(4):
            context.fail(f"{what}trick {number} has winner {trick.winner}, taker {trick.taker}")
        leader = trick.winner


def _check_replay(
    rules: Rules, record: dict[str, Any], sheet: ScoreSheet, context: _Context, what: str
) -> None:
    """``record`` goes through JSON and replays to an equal record and score sheet."""
    try:
        text = json.dumps(record)
    except (TypeError, ValueError) as error:
        context.fail(f"{what}its record is not JSON-ready: {error}")
    if json.loads(text) != record:
        context.fail(f"{what}its record changes through JSON")
    try:
        again = replay(json.loads(text), rules=rules)
    except GongzhuError as error:
        context.fail(f"{what}its record does not replay: {error}")
    replayed = again.to_record()
    if replayed != record:
        changed = sorted(k for k in set(record) | set(replayed) if replayed.get(k) != record.get(k))
        context.fail(f"{what}the replayed record differs in {', '.join(changed)}")
    if again.score() != sheet:
        context.fail(f"{what}the replayed hand's score sheet differs")


def _check_play_out(
    rules: Rules,
    hand_seed: int,
    choice_seed: int,
    result: tuple[dict[str, Any], ScoreSheet],
    context: _Context,
) -> None:
    """The hand dealt anew and played out inside the engine with the same random draws is
    the hand the legal actions made, applied one by one (``result``: its record and sheet)."""
    again = rules.new_hand(seed=hand_seed, engine=context.engine)
    context.state = again
    again.play_out(random.Random(choice_seed).random)
    if not again.is_over:
        context.fail("play_out() stopped before the hand was over")
    record, sheet = result
    played = again.to_record()
    if played != record:
        changed = sorted(k for k in set(record) | set(played) if played.get(k) != record.get(k))
        context.fail(
            "play_out() with the same random draws plays another hand than the legal "
            f"actions applied one by one: its record differs in {', '.join(changed)}"
        )
    if again.score() != sheet:
        context.fail("play_out() with the same random draws gives another score sheet")


# -- engines agree ------------------------------------------------------------------------


def _check_agreement(states: Sequence[HandState], contexts: Sequence[_Context]) -> None:
    """Every engine is at the same step with the same legal actions as the first."""
    first, one = states[0], contexts[0]
    for state, context in zip(states[1:], contexts[1:], strict=False):
        pair = _Context(one.rules, f"{one.engine} vs {context.engine}", one.seed, first)
        pair.index = len(first.history)
        for number, (mine_, theirs_) in enumerate(zip(first.tricks, state.tricks, strict=False), 1):
            if mine_ != theirs_:
                pair.fail(
                    f"the engines disagree on the tricks played: trick {number} is "
                    f"{_trick(mine_)} on {one.engine}, {_trick(theirs_)} on {context.engine}"
                )
        if len(first.tricks) != len(state.tricks) or first.current_trick != state.current_trick:
            pair.fail("the engines disagree on the tricks played (the trick under way)")
        if state.shows != first.shows:
            pair.fail(
                f"the engines disagree on the shows made: {_shows(first)} on {one.engine}, "
                f"{_shows(state)} on {context.engine}"
            )
        if (state.phase, state.to_move, state.is_over) != (
            first.phase,
            first.to_move,
            first.is_over,
        ):
            pair.fail(
                f"the engines disagree on the phase or the seat to move: "
                f"{first.phase.value}/{first.to_move} against "
                f"{state.phase.value}/{state.to_move}"
            )
        mine, theirs = first.legal_actions(), state.legal_actions()
        if mine != theirs:
            only_first = [a for a in mine if a not in theirs]
            only_other = [a for a in theirs if a not in mine]
            pair.fail(
                "the engines disagree on the legal actions: "
                f"only {one.engine} offers {_actions(only_first)}, "
                f"only {context.engine} offers {_actions(only_other)}"
                + ("" if only_first or only_other else " (same actions, other order)")
            )


def _check_same_results(
    states: Sequence[HandState],
    contexts: Sequence[_Context],
    results: Sequence[tuple[dict[str, Any], ScoreSheet]],
) -> None:
    """Every engine finished the hand as the first did."""
    first, one = states[0], contexts[0]
    for state, context, result in zip(states[1:], contexts[1:], results[1:], strict=True):
        pair = _Context(one.rules, f"{one.engine} vs {context.engine}", one.seed, first)
        pair.index = None
        compared = [
            ("history", state.history, first.history),
            ("tricks", state.tricks, first.tricks),
            ("records", result[0], results[0][0]),
            ("score sheets", result[1], results[0][1]),
            (
                "taken cards",
                [state.taken(seat) for seat in range(4)],
                [first.taken(seat) for seat in range(4)],
            ),
            ("facts for scoring", state.facts(), first.facts()),
        ]
        for what, theirs, mine in compared:
            if theirs != mine:
                pair.fail(f"the engines' {what} differ")


# -- text ---------------------------------------------------------------------------------


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(map(str, cards)) or "none"


def _trick(trick: Trick) -> str:
    plays = "  ".join(f"{seat}:{_cards(cards)}" for seat, cards in trick.plays)
    return f"[{plays}; won by {trick.winner}, taken by {trick.taker}]"


def _shows(state: HandState) -> str:
    made = ", ".join(
        f"{show.seat}:{show.kind.value} {_cards(show.cards or ())}"
        + (" (auto-show)" if show.forced else "")
        for show in state.shows
    )
    return f"[{made}]"


def _actions(actions: Iterable[Action]) -> str:
    return ", ".join(map(str, actions)) or "nothing"
