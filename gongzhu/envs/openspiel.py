"""An OpenSpiel game: one hand of gongzhu for four players (extra ``gongzhu[openspiel]``).

Importing this module registers the Python game ``python_gongzhu`` with
pyspiel, so that OpenSpiel's algorithms (IS-MCTS, CFR, …) and tests run on
gongzhu::

    import pyspiel
    import gongzhu.envs.openspiel  # registers python_gongzhu

    game = pyspiel.load_game("python_gongzhu", {"rules": "huapai+anmai"})
    state = game.new_initial_state()

The game is sequential, general-sum (zero-sum with a team reward), with
imperfect information and explicit chance:

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

**Returns** are the rewards of :mod:`gongzhu.envs.encoding`, paid at the
end: by default each seat's raw points (:attr:`ScoreSheet.raw
<gongzhu.scoring.ScoreSheet.raw>`) times 0.01, as in the other adapters.
The game's utility bounds are twice the extremes
:func:`~gongzhu.envs.encoding.score_bounds` finds, on the same scale
(:meth:`Reward.bounds <gongzhu.envs.encoding.Reward.bounds>`).  With
``reward=team`` (or ``team-final``) each seat is paid its team's, 2-vs-2
(seats 0 and 2 against 1 and 3: :attr:`Reward.team
<gongzhu.envs.encoding.Reward.team>`); the returns then sum to zero, and
the game declares itself ``ZERO_SUM`` with a utility sum of 0 (the
registered type, and that of every other reward, is ``GENERAL_SUM``).

**Observations** are what the seat may know, kept up to date by the
state's :class:`~gongzhu.envs.fast.HandEncoder`.  The observation tensor
is the observation vector of :mod:`gongzhu.envs.encoding`; the information
state tensor is the observation followed by the history (who played which
card in which trick, who led each trick, and with 首明 the seat's first
card and who had a 首明 turn); the information state string is the seat's
view and every turn so far as the seat saw it (another seat's secret sale
shows only its size).  Both have perfect recall, and one information state
has one tensor.  With 首明 a seat knows its first card from the moment it
is dealt; without, the order of its cards is no part of what it knows.

**Resampling**: :meth:`GongzhuState.resample_from_infostate` deals the
hidden cards with :func:`gongzhu.bots.sample_deal` and replays the public
turns, so OpenSpiel's IS-MCTS searches over deals the seat cannot tell
from the real one.

The game parameters are ``rules``, the ruleset's variant names joined by
``+`` (default ``"39baobao"``); ``options``, its options as ``name:value``
items joined by ``;`` (``name=value`` and ``,`` are read too; values read
as JSON, else as text; default none); ``reward`` (``"raw"``, ``"final"``,
``"team"`` or ``"team-final"``) and ``reward_scale`` (0: the kind's default).  The game keeps
them in canonical form, so that its game string loads the same game again
and it pickles.  This module imports without OpenSpiel installed (so that
documentation builds); then it registers nothing and building a game
raises :class:`ImportError`.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..actions import Action, Show, ShowKind
from ..bots import Inconsistent, sample_deal
from ..cards import Card
from ..deal import Deal, put_first
from ..errors import GongzhuError
from ..rules import Rules, load_rules
from ..view import PublicShow, SeatView
from . import encoding

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyspiel

    from ..hand import HandState
    from .fast import HandEncoder

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
    "options_parameter",
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
_UNSAFE: Final = re.compile(r"[,;=()]")


def parse_options(text: str) -> dict[str, Any]:
    """The ruleset options of the ``options`` game parameter.

    Items are ``name:value`` (the form :func:`options_parameter` writes, which
    survives OpenSpiel's game strings) or ``name=value``, separated by ``;`` or
    ``,``.  Each value is read as JSON (``3``, ``true``, ``"exact"``) and, when
    that fails, taken as text (``zero_sum:exact``).

    :raises GongzhuError: an item that is neither ``name:value`` nor ``name=value``.
    """
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in re.split(r"[;,]", text))):
        cut = min((item.find(sep) for sep in ":=" if sep in item), default=-1)
        name, value = item[:cut].strip(), item[cut + 1 :].strip()
        if cut < 0 or not name:
            raise GongzhuError(f"game parameter options: {item!r} is not name:value")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    return options


def options_parameter(options: dict[str, Any]) -> str:
    """The ``options`` game parameter of ruleset ``options``: ``name:value`` items joined by
    ``;``, in name order, which :func:`parse_options` reads back and OpenSpiel's game
    strings carry unchanged (``pyspiel.load_game(str(game))`` gives the same game).

    :raises GongzhuError: a name or value that a game string cannot carry (one
        holding ``,``, ``;``, ``=``, ``(`` or ``)``: a list, say).
    """
    items = []
    for name, value in sorted(options.items()):
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        if isinstance(value, str):
            try:
                json.loads(value)
            except json.JSONDecodeError:
                pass
            else:  # text that reads as JSON ("true", "3"): keep it a string
                text = json.dumps(value)
        for part in (name, text):
            if _UNSAFE.search(part) or ":" in name:
                raise GongzhuError(
                    f"the ruleset option {name}={value!r} cannot be written in an OpenSpiel "
                    "game string (it holds one of , ; = ( ))"
                )
        items.append(f"{name}:{text}")
    return ";".join(items)


def _game_type(zero_sum: bool = False) -> pyspiel.GameType:
    """The game's type: general-sum, as registered; zero-sum for a game paying team
    rewards (:attr:`Reward.team <gongzhu.envs.encoding.Reward.team>`)."""
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Gong Zhu (拱猪), one hand",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_SEATS,
        min_num_players=_SEATS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "rules": DEFAULT_RULES,
            "options": "",
            "reward": encoding.DEFAULT_REWARD,
            "reward_scale": 0.0,
        },
    )


def _max_turns(rules: Rules) -> int:
    """The most decisions a hand takes: a card at a time, and each seat's show turns."""
    return _CARDS * rules.table.copies + _SEATS * (len(rules.show_kinds) + 1)


class GongzhuGame(_Game):  # type: ignore[misc,valid-type]
    """The ``python_gongzhu`` game: one hand of a ruleset (see the module docs).

    :param params: the game parameters: ``rules`` and ``options`` (strings),
        ``reward`` (:data:`~gongzhu.envs.encoding.RewardKind`) and ``reward_scale`` (a float; 0,
        the default, for the kind's default scale).  The game keeps them in a
        canonical form (``options`` as :func:`options_parameter` writes them, the
        scale actually used), so that ``pyspiel.load_game(str(game))`` gives the
        same game.
    :ivar rules: the ruleset played.
    :ivar reward: what a hand pays (:class:`~gongzhu.envs.encoding.Reward`).
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        if pyspiel is None:
            raise ImportError(_MISSING)
        params = {
            "rules": DEFAULT_RULES,
            "options": "",
            "reward": encoding.DEFAULT_REWARD,
            "reward_scale": 0.0,
            **(params or {}),
        }
        options = parse_options(str(params["options"]))
        names = encoding.rule_names(str(params["rules"]))
        rules = load_rules(*names, **options)
        scale = float(params["reward_scale"])
        reward = encoding.make_reward(str(params["reward"]), scale if scale else None)
        low, high = reward.bounds(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.action_size(rules),
            max_chance_outcomes=_CARDS,
            num_players=_SEATS,
            min_utility=2 * min(low, 0.0),
            max_utility=2 * max(high, 0.0),
            utility_sum=0.0 if reward.team else None,  # team rewards are zero-sum
            max_game_length=_max_turns(rules),
        )
        params = {
            **params,
            "rules": "+".join(names),
            "options": options_parameter(options),
            "reward": reward.kind,
            "reward_scale": reward.scale,
        }
        super().__init__(_game_type(zero_sum=reward.team), info, params)
        self.rules: Rules = rules
        self.reward: encoding.Reward = reward

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
    :ivar encoder: the :class:`~gongzhu.envs.fast.HandEncoder` following the hand
        once every card is dealt (``None`` before).
    """

    def __init__(self, game: GongzhuGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.order: list[int] = []
        self.encoder: HandEncoder | None = None
        self._player = _CHANCE  # kept up to date: OpenSpiel asks for it many times a step
        self._reward: encoding.Reward = game.reward
        self._undealt = [self.rules.table.copies] * _CARDS
        self._remaining = list(range(_CARDS))  # the cards with a copy left to deal
        self._returns: list[float] | None = None

    @property
    def hand(self) -> HandState | None:
        """The hand once every card is dealt (``None`` before).

        The encoder holds it: OpenSpiel clones a Python state by deep-copying each of its
        attributes apart, which would give two attributes two copies of the hand.
        """
        encoder = self.encoder
        return None if encoder is None else encoder.hand

    # -- the OpenSpiel API -----------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to move, or ``pyspiel.PlayerId.CHANCE`` / ``TERMINAL``."""
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        assert self.encoder is not None and player == self._player
        return self.encoder.legal_indices()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that may be dealt next, each with its probability."""
        left = _CARDS * self.rules.table.copies - len(self.order)
        if self.rules.table.copies == 1:
            return list(zip(self._remaining, itertools.repeat(1.0 / left)))
        undealt = self._undealt
        return [(card, undealt[card] / left) for card in self._remaining]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            if not self._undealt[action]:
                raise GongzhuError(f"card {Card.from_index(action)} is dealt out already")
            self._undealt[action] -= 1
            if not self._undealt[action]:
                self._remaining.remove(action)
            self.order.append(action)
            if len(self.order) == _CARDS * self.rules.table.copies:
                deal = Deal(tuple(Card.from_index(index) for index in self.order))
                from .fast import HandEncoder

                hand = self.rules.new_hand(deal=deal)
                self.encoder = HandEncoder(self.rules, information_state=True)
                self.encoder.reset(hand)
                self._player = _player_of(hand)
            return
        playing = self.hand
        assert playing is not None
        playing.apply(encoding.layout(self.rules).decode(action))
        self._player = _player_of(playing)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {Card.from_index(action)}"
        return str(encoding.decode_action(self.rules, action))

    def is_terminal(self) -> bool:
        """Whether every card has been played."""
        return self._player == _TERMINAL

    def returns(self) -> list[float]:
        """Each seat's reward once the hand is over, zeros before: by default its raw
        points times 0.01 (the game's ``reward`` and ``reward_scale``)."""
        if not self.is_terminal():
            return [0.0] * _SEATS
        if self._returns is None:
            assert self.hand is not None
            self._returns = list(self._reward.of(self.hand))
        return self._returns[:]

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
        """During the deal: with 首明 the player's first card kept, every other dealt card
        redrawn."""
        known = _first_card(self, player)
        deck = [card for card in range(_CARDS) for _ in range(self.rules.table.copies)]
        if known is not None:
            deck.remove(known)
        rng.shuffle(deck)
        state = game.new_initial_state()
        for position in range(len(self.order)):
            state.apply_action(known if known is not None and position == player else deck.pop())
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
            if not self.rules.first_shows:
                pass  # no 首明: the order of a seat's cards is no one's knowledge
            elif seat == player:
                put_first(cards, Card.from_index(self.order[player]))
            elif seat in shown_first:
                put_first(cards, shown_first[seat])
            else:  # a showable first card exactly when the seat had a 首明 turn
                put_first(cards, showable=showable, showable_first=seat in first_turns)
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


def _player_of(hand: HandState) -> int:
    seat = hand.to_move
    return _TERMINAL if seat is None else seat


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


def _first_card(state: GongzhuState, player: int) -> int | None:
    """The index of ``player``'s first dealt card when the ruleset has 首明 (which makes it
    part of what the seat knows) and it is dealt; else ``None``."""
    if not state.rules.first_shows or len(state.order) <= player:
        return None
    return state.order[player]


def _first_turns(state: GongzhuState) -> set[int]:
    if state.hand is None or not state.rules.first_shows:
        return set()
    return {seat for seat, action in state.hand.history if _kind(action) is ShowKind.FIRST}


class GongzhuObserver:
    """OpenSpiel's observer of a :class:`GongzhuState` (the ``PyObserver`` interface).

    Without ``perfect_recall`` the tensor is the seat's observation vector;
    with it (the information state) the observation followed by the history
    (:func:`~gongzhu.envs.encoding.information_state_segments`: with 首明
    the seat's first card and who had a 首明 turn, then who played which card
    in which trick and who led each trick), and the string lists the view and
    every turn so far.  Both come from the state's
    :class:`~gongzhu.envs.fast.HandEncoder`.  Private information:
    ``SINGLE_PLAYER`` (the default) sees the seat's own cards; ``NONE`` sees
    no holding (and the seat's own secret sales only by their size);
    ``ALL_PLAYERS`` adds every seat's holding (``holdings``: 4 × 52 entries,
    relative seats).  :attr:`dict` names the tensor's parts: ``observation``,
    ``history`` (with perfect recall) and ``holdings`` (with every seat's cards).

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
        codec = encoding.layout(rules)
        self._size = codec.observation_size
        self._state_size = codec.information_state_size if self.perfect_recall else self._size
        pieces = [("observation", codec.observation_size)]
        if self.perfect_recall:
            pieces.append(("history", codec.information_state_size - codec.observation_size))
        if self.private == "all":
            pieces.append(("holdings", _SEATS * _CARDS))
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
        encoder = state.encoder
        if encoder is not None and self.private == "single":
            if self.perfect_recall:
                encoder.information_state(player, self.tensor)
            else:
                encoder.observation(player, self.tensor)
            return
        self.tensor.fill(0)
        if not state.order:  # nothing dealt (OpenSpiel sizes tensors on a new state)
            return
        first = _first_card(state, player) if self.private != "none" else None
        view = self._view(state, player)
        part = self.tensor[: self._state_size]
        if view is not None:
            if self.perfect_recall:
                part[:] = encoding.encode_information_state(
                    self.rules,
                    view,
                    first_card=None if first is None else Card.from_index(first),
                    first_turns=_first_turns(state),
                )
            else:
                part[:] = encoding.encode_observation(self.rules, view)
        elif first is not None:  # dealing: a seat knows its first card (with 首明)
            codec = encoding.layout(self.rules)
            part[codec.segment("holding").start + first] = 1
            if self.perfect_recall:
                part[codec.segment("first-card").start + first] = 1
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

    def string_from(self, state: GongzhuState, player: int) -> str:
        """``state`` as ``player`` observes it, as text."""
        lines = [f"seat {player}"]
        first = _first_card(state, player) if self.private != "none" else None
        if first is not None:
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
    _CHANCE = int(pyspiel.PlayerId.CHANCE)
    _TERMINAL = int(pyspiel.PlayerId.TERMINAL)
    pyspiel.register_game(_game_type(), GongzhuGame)
else:
    _CHANCE, _TERMINAL = -1, -4
