"""An OpenSpiel game: one hand of gongzhu for four players (extra ``gongzhu[openspiel]``).

Importing this module registers the Python game ``python_gongzhu`` with
pyspiel, so that OpenSpiel's algorithms (IS-MCTS, CFR, …) and tests run on
gongzhu::

    import pyspiel
    import gongzhu.envs.openspiel  # registers python_gongzhu

    game = pyspiel.load_game("python_gongzhu", {"rules": "huapai+anmai"})
    state = game.new_initial_state()

The game is sequential, general-sum, with imperfect information and
explicit chance:

**The deal** is chance, one card at a time in dealing order: card ``k``
goes to seat ``k % 4`` (the deal's first seat is 0), and each chance
outcome is a card index 0-51, with probability proportional to the copies
of it still undealt.  52 chance nodes deal one deck, 104 two.  This keeps
every state a plain action history (OpenSpiel's serialisation replays it)
and makes the dealing order, which the rules read (首明 is decided on the
first card; with two decks the first seat dealt a ♣2 leads), part of it.

**Actions** are those of :mod:`gongzhu.envs.encoding` (plays, shows, first
shows, secret sales, two-deck pairs): ``num_distinct_actions`` is
:func:`~gongzhu.envs.encoding.action_size` of the ruleset.

**Returns** are the raw points of the hand (:attr:`ScoreSheet.raw
<gongzhu.scoring.ScoreSheet.raw>`), paid at the end.  The game's utility
bounds are twice the extremes :func:`~gongzhu.envs.encoding.score_bounds`
finds.

**Observations** come from :meth:`HandState.view <gongzhu.hand.HandState.view>`
(:class:`~gongzhu.view.SeatView`) alone.  The observation tensor is
:func:`~gongzhu.envs.encoding.encode_observation`; the information state
tensor adds the seat's first dealt card and which seats had a 首明 turn;
the information state string is the seat's view with its first card and
every turn so far as the seat saw it (another seat's secret sale shows only
its size), so it has perfect recall.  While the cards are dealt a seat
knows only its first card, as in the 首明 phase.

**Resampling**: :meth:`GongzhuState.resample_from_infostate` deals the
hidden cards with :func:`gongzhu.bots.sample_deal` and replays the public
turns, so OpenSpiel's IS-MCTS searches over deals the seat cannot tell
from the real one.

The game parameters are ``rules``, the ruleset's variant names joined by
``+`` (default ``"39baobao"``), and ``options``, its options as
``name=value`` pairs joined by ``,`` (values read as JSON, else as text;
default none).  This module imports without OpenSpiel installed (so that
documentation builds); then it registers nothing and building a game
raises :class:`ImportError`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..actions import Action, Show, ShowKind
from ..bots import Inconsistent, sample_deal
from ..cards import Card
from ..deal import Deal
from ..errors import GongzhuError
from ..rules import Rules, load_rules
from ..view import PublicShow, SeatView
from . import encoding

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyspiel

    from ..hand import HandState
    from ..scoring import ScoreSheet

    _Game = pyspiel.Game
    _State = pyspiel.State
else:
    try:
        import pyspiel
    except ImportError:  # the module stays importable (docs, doctest collection)
        pyspiel = None

        _Game = _State = object
    else:
        _Game = pyspiel.Game
        _State = pyspiel.State

__all__ = [
    "DEFAULT_RULES",
    "GAME_NAME",
    "GongzhuGame",
    "GongzhuObserver",
    "GongzhuState",
    "parse_options",
]

GAME_NAME: Final = "python_gongzhu"
"""The name the game is registered under (``pyspiel.load_game(GAME_NAME)``)."""

DEFAULT_RULES: Final = "39baobao"
"""The ``rules`` parameter's default."""

_MISSING: Final = (
    "gongzhu.envs.openspiel needs OpenSpiel: python -m pip install 'gongzhu[openspiel]'"
)
_SEATS: Final = 4
_CARDS: Final = 52
_RESAMPLE_TRIES: Final = 500


def parse_options(text: str) -> dict[str, Any]:
    """The ruleset options of the ``options`` game parameter (``"name=value,..."``).

    Each value is read as JSON (``3``, ``true``, ``"exact"``) and, when that
    fails, taken as text (``zero_sum=exact``).

    :raises GongzhuError: an item that is not ``name=value``.
    """
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise GongzhuError(f"game parameter options: {item!r} is not name=value")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value.strip()
    return options


def _rules_of(params: dict[str, Any]) -> Rules:
    names = [name.strip() for name in str(params.get("rules", DEFAULT_RULES)).split("+")]
    return load_rules(*filter(None, names), **parse_options(str(params.get("options", ""))))


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Gong Zhu (拱猪), one hand",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_SEATS,
        min_num_players=_SEATS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"rules": DEFAULT_RULES, "options": ""},
    )


def _max_turns(rules: Rules) -> int:
    """The most decisions a hand takes: a card at a time, and each seat's show turns."""
    return _CARDS * rules.table.copies + _SEATS * (len(rules.show_kinds) + 1)


class GongzhuGame(_Game):  # type: ignore[misc,valid-type]
    """The ``python_gongzhu`` game: one hand of a ruleset (see the module docs).

    :param params: the game parameters ``rules`` and ``options`` (strings).
    :ivar rules: the ruleset played.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        if pyspiel is None:
            raise ImportError(_MISSING)
        params = {"rules": DEFAULT_RULES, "options": "", **(params or {})}
        rules = _rules_of(params)
        bounds = encoding.score_bounds(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.action_size(rules),
            max_chance_outcomes=_CARDS,
            num_players=_SEATS,
            min_utility=float(2 * min(bounds.raw_low, 0)),
            max_utility=float(2 * max(bounds.raw_high, 0)),
            utility_sum=None,
            max_game_length=_max_turns(rules),
        )
        super().__init__(_game_type(), info, params)
        self.rules: Rules = rules

    def new_initial_state(self) -> GongzhuState:
        """The state before the deal (a chance node)."""
        return GongzhuState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> GongzhuObserver:
        """The observer of ``iig_obs_type`` (default: the observation of one seat)."""
        return GongzhuObserver(
            self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class GongzhuState(_State):  # type: ignore[misc,valid-type]
    """A state of the hand: the deal under way, or a :class:`~gongzhu.hand.HandState`.

    :ivar order: the card indices dealt so far, in dealing order.
    :ivar hand: the hand once every card is dealt (``None`` before).
    """

    def __init__(self, game: GongzhuGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.order: list[int] = []
        self.hand: HandState | None = None
        self._undealt = [self.rules.table.copies] * _CARDS
        self._sheet: ScoreSheet | None = None

    # -- the OpenSpiel API -----------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to move, or ``pyspiel.PlayerId.CHANCE`` / ``TERMINAL``."""
        if self.hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.hand.to_move
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.hand is not None and player == self.hand.to_move
        codec = encoding.layout(self.rules)
        return sorted(codec.encode(action) for action in self.hand.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that may be dealt next, each with its probability."""
        left = _CARDS * self.rules.table.copies - len(self.order)
        return [(card, count / left) for card, count in enumerate(self._undealt) if count]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            if not self._undealt[action]:
                raise GongzhuError(f"card {Card.from_index(action)} is dealt out already")
            self._undealt[action] -= 1
            self.order.append(action)
            if len(self.order) == _CARDS * self.rules.table.copies:
                deal = Deal(tuple(Card.from_index(index) for index in self.order))
                self.hand = self.rules.new_hand(deal=deal)
            return
        self.hand.apply(encoding.decode_action(self.rules, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {Card.from_index(action)}"
        return str(encoding.decode_action(self.rules, action))

    def is_terminal(self) -> bool:
        """Whether every card has been played."""
        return self.hand is not None and self.hand.is_over

    def returns(self) -> list[float]:
        """Each seat's raw points once the hand is over (zeros before)."""
        if not self.is_terminal():
            return [0.0] * _SEATS
        if self._sheet is None:
            assert self.hand is not None
            self._sheet = self.hand.score()
        return [float(points) for points in self._sheet.raw]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | None = None
    ) -> GongzhuState:
        """A state ``player_id`` cannot tell from this one, the hidden cards dealt anew.

        The other seats' cards come from :func:`gongzhu.bots.sample_deal`
        (while the cards are being dealt, the undealt places are simply
        redrawn); the seats' first cards are placed to agree with the 首明
        turns; then the public turns are replayed, another seat's secret
        sales with cards drawn from its sampled holding.  A sample whose replay
        departs from the real turns, or whose information state differs, is
        drawn again.

        :param probability_sampler: a source of floats in [0, 1) (pyspiel's
            ``UniformProbabilitySampler``) seeding the draw; ``None``: fresh randomness.
        :raises Inconsistent: no agreeing sample in 500 attempts.
        """
        draw = probability_sampler() if probability_sampler is not None else random.random()
        rng = random.Random(int(draw * 2**53))
        game = self.get_game()
        if self.hand is None:
            return self._resample_deal(game, player_id, rng)
        target = self.information_state_string(player_id)
        view = self.hand.view(player_id)
        for _ in range(_RESAMPLE_TRIES):
            try:
                dealt = sample_deal(view, rng, rules=self.rules).holdings
            except Inconsistent:
                continue
            state = self._replayed(game, self._order_of(dealt, player_id, rng), player_id, rng)
            if state is not None and state.information_state_string(player_id) == target:
                return state
        raise Inconsistent(
            f"no deal agreeing with seat {player_id}'s information state in "
            f"{_RESAMPLE_TRIES} samples"
        )

    def __str__(self) -> str:
        if self.hand is None:
            dealt = " ".join(Card.from_index(index).symbol for index in self.order)
            return f"dealing: {len(self.order)} cards dealt: {dealt}"
        return encoding.render_text(self.hand)

    # -- resampling ------------------------------------------------------------------------

    def _resample_deal(self, game: GongzhuGame, player: int, rng: random.Random) -> GongzhuState:
        """During the deal: the player's first card kept, every other dealt card redrawn."""
        known = self.order[player] if len(self.order) > player else None
        deck = [card for card in range(_CARDS) for _ in range(self.rules.table.copies)]
        if known is not None:
            deck.remove(known)
        rng.shuffle(deck)
        state = game.new_initial_state()
        for position in range(len(self.order)):
            state.apply_action(known if position == player else deck.pop())
        return state

    def _order_of(
        self, dealt: Sequence[Sequence[Card]], player: int, rng: random.Random
    ) -> list[int]:
        """A dealing order of the seats' ``dealt`` cards whose first cards fit the 首明 turns."""
        assert self.hand is not None
        first_turns = {
            seat for seat, action in self.hand.history if _kind(action) is ShowKind.FIRST
        }
        shown_first = {
            seat: action.cards[0]
            for seat, action in self.hand.history
            if isinstance(action, Show) and action.kind is ShowKind.FIRST and action.cards
        }
        showable = self.rules.showable_mask
        holdings: list[list[Card]] = []
        for seat, cards in enumerate(dealt):
            cards = list(cards)
            rng.shuffle(cards)
            first: Card | None
            if seat == player:
                first = Card.from_index(self.order[player])
            elif seat in shown_first:
                first = shown_first[seat]
            elif self.rules.first_shows:
                wanted = seat in first_turns
                first = next((c for c in cards if bool(c.bit & showable) == wanted), None)
            else:
                first = None
            if first is not None and first in cards:
                cards.remove(first)
                cards.insert(0, first)
            holdings.append(cards)
        size = len(holdings[0])
        return [holdings[k % _SEATS][k // _SEATS].index for k in range(_SEATS * size)]

    def _replayed(
        self, game: GongzhuGame, order: list[int], player: int, rng: random.Random
    ) -> GongzhuState | None:
        """``order`` dealt, then this hand's turns replayed as ``player`` saw them (or ``None``)."""
        assert self.hand is not None
        state = game.new_initial_state()
        try:
            for card in order:
                state.apply_action(card)
            codec = encoding.layout(self.rules)
            for seat, action in self.hand.history:
                hand = state.hand
                assert hand is not None
                if hand.to_move != seat:
                    return None
                if isinstance(action, Show) and action.kind is ShowKind.SECRET and seat != player:
                    options = [
                        a
                        for a in hand.legal_actions()
                        if isinstance(a, Show)
                        and a.kind is ShowKind.SECRET
                        and len(a.cards) == len(action.cards)
                    ]
                    if not options:
                        return None
                    action = rng.choice(options)
                state.apply_action(codec.encode(action))
        except (GongzhuError, pyspiel.SpielError):
            return None
        return state


def _kind(action: Action) -> ShowKind | None:
    return action.kind if isinstance(action, Show) else None


# -- observations --------------------------------------------------------------------------


def _public(show: PublicShow, seat: int) -> str:
    cards = "hidden" if show.cards is None else " ".join(c.symbol for c in show.cards) or "-"
    forced = " (forced)" if show.forced else ""
    return f"{show.seat}:{show.kind.value} {show.count} {cards}{forced}"


def _turn(seat: int, action: Action, viewer: int) -> str:
    if isinstance(action, Show):
        if action.kind is ShowKind.SECRET and seat != viewer:
            return f"{seat}:secret {len(action.cards)}"
        return f"{seat}:{action.kind.value} " + (" ".join(c.symbol for c in action.cards) or "-")
    return f"{seat}:" + " ".join(c.symbol for c in action.cards)


def _view_lines(view: SeatView) -> list[str]:
    lines = [
        f"phase {view.phase.value}",
        "holding " + (" ".join(c.symbol for c in view.holding) or "-"),
        "sizes " + " ".join(map(str, view.holding_sizes)),
    ]
    if view.shows:
        lines.append("shows " + ", ".join(_public(show, view.seat) for show in view.shows))
    if view.tricks:
        lines.append(f"tricks {len(view.tricks)}, last: {view.tricks[-1]}")
    if view.current_trick:
        lines.append(
            "trick "
            + "  ".join(
                f"{seat}:{' '.join(c.symbol for c in cards)}" for seat, cards in view.current_trick
            )
        )
    lines.append(f"leader {view.leader}")
    lines.append("over" if view.to_move is None else f"to move {view.to_move}")
    return lines


class GongzhuObserver:
    """OpenSpiel's observer of a :class:`GongzhuState` (the ``PyObserver`` interface).

    With ``perfect_recall`` (the information state) the tensor is the
    :func:`~gongzhu.envs.encoding.encode_observation` vector, then 52
    entries for the seat's first dealt card and 4 for the seats (relative)
    that had a 首明 turn; the string lists the view and every turn so far.
    Without it, the tensor is the observation vector and the string the
    view.  Private information: ``SINGLE_PLAYER`` (the default) sees the
    seat's own cards; ``NONE`` sees no holding (and the seat's own
    secret sales only by their size); ``ALL_PLAYERS`` adds every seat's
    holding (``holdings``: 4 × 52 entries, relative seats) to the public part.

    :raises ValueError: observer parameters (there are none).
    """

    def __init__(self, rules: Rules, iig_obs_type: pyspiel.IIGObservationType, params: Any) -> None:
        import numpy

        if params:
            raise ValueError(f"the gongzhu observer takes no parameters, not {params!r}")
        self.rules = rules
        self.perfect_recall: bool = iig_obs_type.perfect_recall
        private = iig_obs_type.private_info
        self.private: str = (
            "none"
            if private == pyspiel.PrivateInfoType.NONE
            else "all"
            if private == pyspiel.PrivateInfoType.ALL_PLAYERS
            else "single"
        )
        size = encoding.observation_size(rules)
        pieces = [("observation", size)]
        if self.private == "all":
            pieces.append(("holdings", _SEATS * _CARDS))
        if self.perfect_recall:
            pieces += [("first_card", _CARDS), ("first_turns", _SEATS)]
        self.tensor: npt.NDArray[np.float32] = numpy.zeros(sum(n for _, n in pieces), numpy.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        start = 0
        for name, n in pieces:
            self.dict[name] = self.tensor[start : start + n]
            start += n

    def _view(self, state: GongzhuState, player: int) -> SeatView | None:
        if state.hand is None:
            return None
        view = state.hand.view(player)
        if self.private != "none":
            return view
        import attrs

        return attrs.evolve(
            view,
            holding=(),
            legal_actions=(),
            shows=tuple(
                attrs.evolve(show, cards=None) if show.kind is ShowKind.SECRET else show
                for show in view.shows
            ),
        )

    def set_from(self, state: GongzhuState, player: int) -> None:
        """Fill :attr:`tensor` with ``state`` as ``player`` observes it."""
        self.tensor.fill(0)
        view = self._view(state, player)
        observation = self.dict["observation"]
        codec = encoding.layout(self.rules)
        first = state.order[player] if len(state.order) > player else None
        if view is not None:
            observation[:] = encoding.encode_observation(self.rules, view)
        elif first is not None and self.private != "none":
            observation[codec.segment("holding").start + first] = 1  # dealing: the first card
        if self.private == "all":
            holdings = self.dict["holdings"]
            for seat in range(_SEATS):
                row = (seat - player) % _SEATS
                cards = (
                    state.hand.holding(seat)
                    if state.hand is not None
                    else [Card.from_index(i) for i in state.order[seat::_SEATS]]
                )
                for card in cards:
                    holdings[row * _CARDS + card.index] += 1
        if self.perfect_recall:
            if first is not None and self.private != "none":
                self.dict["first_card"][first] = 1
            if state.hand is not None:
                for seat, action in state.hand.history:
                    if _kind(action) is ShowKind.FIRST:
                        self.dict["first_turns"][(seat - player) % _SEATS] = 1

    def string_from(self, state: GongzhuState, player: int) -> str:
        """``state`` as ``player`` observes it, as text."""
        lines = [f"seat {player}"]
        first = state.order[player] if len(state.order) > player else None
        if self.private != "none" and first is not None:
            lines.append(f"first card {Card.from_index(first).symbol}")
        if self.private == "all":
            for seat in range(_SEATS):
                cards = (
                    state.hand.holding(seat)
                    if state.hand is not None
                    else [Card.from_index(i) for i in state.order[seat::_SEATS]]
                )
                lines.append(f"seat {seat} holds " + (" ".join(c.symbol for c in cards) or "-"))
        view = self._view(state, player)
        if view is None:
            lines.append(f"dealing, {len(state.order)} cards dealt")
            return "\n".join(lines)
        lines += _view_lines(view)
        if self.perfect_recall:
            assert state.hand is not None
            viewer = player if self.private != "none" else -1
            turns = [_turn(seat, action, viewer) for seat, action in state.hand.history]
            lines.append("turns " + (", ".join(turns) or "-"))
        return "\n".join(lines)


if pyspiel is not None:
    pyspiel.register_game(_game_type(), GongzhuGame)
