"""Fixed-size encodings of actions, seat views and rewards, for learning agents.

Every adapter (:mod:`gongzhu.envs.pettingzoo`, :mod:`gongzhu.envs.gymnasium`,
:mod:`gongzhu.envs.openspiel`) uses these encodings; they depend on the
ruleset only through its deck count (:attr:`Rules.table.copies
<gongzhu.scoring.ScoreTable.copies>`), its showable cards
(:attr:`Rules.table.showable <gongzhu.scoring.ScoreTable.showable>`), the
show kinds it offers (:attr:`Rules.show_kinds <gongzhu.rules.Rules.show_kinds>`),
whether it has 首明 and auto-show, and its scoring cards.  :func:`layout`
computes them once per ruleset.

**Actions** are the integers of one ``Discrete(action_size(rules))`` space:

- ``[0, 52)``: play one card, numbered by its index (:attr:`Play.key
  <gongzhu.actions.Play.key>`, :attr:`Card.index <gongzhu.cards.Card.index>`);
- two decks only, the next 1378: play two cards ``a ≤ b`` (card indices; a
  pair when ``a == b``), in the order (0,0), (0,1), …, (0,51), (1,1), …, (51,51);
- then, for each show kind the ruleset offers, in :class:`~gongzhu.actions.ShowKind`
  order (open, first, secret), one index per multiset of showable cards
  holding up to ``copies`` of each: the showable cards in card order weigh
  ``(copies + 1) ** i``, and the index is ``Σ count_i · (copies + 1) ** i``
  (0 is the empty show).  One deck: 16 per kind; two decks: 81.

**Observations** are flat ``float32`` vectors of what one seat may know.
Seats are relative to the observer (0 the observer, 1 the next seat in
playing order, …); cards are counted in copies (0, 1 or 2), by card index.
:func:`observation_segments` lists the layout of a ruleset; in order (a
segment marked *if* is left out of a ruleset that cannot use it):

=================  ================  ==============================================
segment            size              contents
=================  ================  ==============================================
``holding``        52                the observer's cards (in 首明, its first card)
``played-by``      4 × 52            the cards each seat has played, this trick
                                     included: who played which card
``trick``          4 × 52            the trick under way, by relative seat
``taken``          4 × 52            the cards each seat has taken in tricks
``shown-<kind>``   4 × showable      per offered show kind: each seat's shown cards
``auto-shown``     4 × showable      *if* auto-show: the cards shown for each seat
``sold-hidden``    4                 *if* secret sales: how many cards each other
                                     seat sold secretly, cards unseen
``voids``          4 × 4             the suits (♠ ♥ ♦ ♣) each seat is known to hold
                                     none of (:func:`gongzhu.implied.voids`)
``holding-sizes``  4                 how many cards each seat holds
``phase``          3 or 4            one-hot: first-show (*if* 首明), show, play, over
``leader``         4                 one-hot relative seat leading this trick
``to-move``        4                 one-hot relative seat to move (zeros when over)
=================  ================  ==============================================

The observer's own secret sales appear with their cards under
``shown-secret``; another seat's appear only as a count under
``sold-hidden``, as :class:`~gongzhu.view.PublicShow` gives them.  Cards
"taken" are filed as the engines file them (:func:`gongzhu.implied.taken_cards`):
every card of a trick goes to its taker (its winner, or a 垫牌 penalty's offender).

**Information states** (OpenSpiel's perfect-recall tensor) are the
observation followed by the whole history, trick by trick
(:func:`information_state_segments`; ``T`` is the most tricks a hand has,
13 per deck):

=================  ========================  ======================================
segment            size                      contents
=================  ========================  ======================================
``first-card``     52                        *if* 首明: the observer's first dealt card
``first-turns``    4                         *if* 首明: the seats that had a 首明 turn
``played-in``      copies × 52 × T           per copy of each card (the first played,
                                             then the second): the trick it was
                                             played in, one-hot
``played-seat``    2 × 52 × 4                *if* two decks: per copy, who played it
                                             (one deck: ``played-by`` says it)
``trick-leaders``  T × 4                     per trick begun, the relative seat that
                                             led it
=================  ========================  ======================================

Together with the observation they determine every turn of the hand as the
observer saw it (the order of a trick follows from its leader; the show
turns are taken in a fixed order), and nothing more.

**Rewards** (:class:`Reward`) are a seat's score of the hand, ``"raw"``
points (:attr:`ScoreSheet.raw <gongzhu.scoring.ScoreSheet.raw>`) or
``"final"`` (normalised) ones (:meth:`HandState.returns
<gongzhu.hand.HandState.returns>`), or its 2-vs-2 team's, ``"team"`` and
``"team-final"`` (the team's mean score less the other team's: zero-sum,
:attr:`Reward.team`), times a scale: by default raw points times 0.01
(:data:`DEFAULT_REWARD`, :data:`DEFAULT_SCALES`), in all three adapters.
An illegal action's default reward, :func:`default_illegal_reward`, is on
the same scale: five spreads (:func:`reward_spread`) below zero.

:func:`encode_observation` and :func:`encode_information_state` compute the
vectors from a :class:`~gongzhu.view.SeatView`: they are the reference.
The adapters use :class:`gongzhu.envs.fast.HandEncoder`, which keeps them up
to date as the hand is played and gives the same vectors.

numpy is imported on first use, not when this module is imported.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import operator
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs

from ..actions import Action, Play, Show, ShowKind, play_of_key
from ..batch import ActionTable
from ..cards import Card, Suit, full_deck
from ..errors import InvalidScoreInput
from ..rules import Rules, load_rules
from ..view import Phase, SeatView

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..hand import HandState

__all__ = [
    "DEFAULT_REWARD",
    "DEFAULT_SCALES",
    "OBSERVATION_KINDS",
    "PAIR_COUNT",
    "REWARD_KINDS",
    "Layout",
    "ObservationKind",
    "Reward",
    "RewardKind",
    "RulesLike",
    "ScoreBounds",
    "Segment",
    "action_mask",
    "action_number",
    "action_size",
    "batch_actions",
    "check_observation",
    "decode_action",
    "default_illegal_reward",
    "encode_action",
    "encode_information_state",
    "encode_observation",
    "information_state_high",
    "information_state_segments",
    "information_state_size",
    "layout",
    "make_reward",
    "observation_high",
    "observation_segments",
    "observation_size",
    "render_text",
    "resolve_rules",
    "reward_spread",
    "rule_names",
    "score_bounds",
    "vector_high",
]

SEATS: Final = 4
CARDS: Final = 52
SUITS: Final = 4
PAIR_COUNT: Final = CARDS * (CARDS + 1) // 2
"""How many two-card plays the two-deck action range holds (1378)."""

RulesLike = Rules | str | Sequence[str] | None
"""What the adapters accept as a ruleset: a :class:`~gongzhu.rules.Rules`, a
ruleset name or names joined by ``+`` (``"huapai+anmai"``, as OpenSpiel's
game string takes them), a sequence of names (``("huapai", "anmai")``), or
``None`` for the default rules."""


def rule_names(text: str) -> tuple[str, ...]:
    """The plug-in names of a ruleset written as one string, joined by ``+``.

    >>> rule_names("huapai + anmai"), rule_names("39baobao")
    (('huapai', 'anmai'), ('39baobao',))
    """
    return tuple(name for name in (part.strip() for part in text.split("+")) if name)


def stand_in(base: str, message: str) -> type:
    """A class standing in for a framework's base class ``base`` that is not installed.

    The adapter modules subclass it so that they import (docs, doctest
    collection) without their framework; building an environment then raises
    :class:`ImportError` with ``message`` (which names the extra to install).
    """

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        raise ImportError(message)

    def __class_getitem__(cls: type, _item: object) -> type:
        return cls

    return type(
        base.rpartition(".")[2],
        (),
        {
            "__doc__": f"Stands in for ``{base}`` when it is not installed.",
            "__init__": __init__,
            "__class_getitem__": classmethod(__class_getitem__),
        },
    )


def resolve_rules(rules: RulesLike) -> Rules:
    """The :class:`~gongzhu.rules.Rules` that ``rules`` names (see :data:`RulesLike`).

    :raises UnknownVariant: a name no installed plug-in has.
    """
    if rules is None:
        return load_rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return load_rules(*rule_names(rules))
    return load_rules(*rules)


@attrs.frozen
class Segment:
    """One named slice ``[start, stop)`` of an observation vector.

    :ivar high: the largest value an entry of the slice takes.
    """

    name: str
    start: int
    stop: int
    high: float

    @property
    def size(self) -> int:
        """How many entries the slice holds."""
        return self.stop - self.start


@attrs.frozen(eq=False)
class Layout:
    """The action and observation encodings of one ruleset (see the module docs).

    :ivar copies: how many decks the ruleset plays with.
    :ivar showable: the showable cards, in card order.
    :ivar show_kinds: the show kinds offered, in :class:`ShowKind` order.
    :ivar show_offsets: ``kind -> first action index`` of each offered kind.
    :ivar show_block: how many action indices each show kind takes.
    :ivar action_size: the size of the action space.
    :ivar segments: the observation's slices, in order.
    :ivar observation_size: the length of the observation vector.
    :ivar phases: the phases the ``phase`` segment has an entry for, in order.
    :ivar first_shows: whether the ruleset has 首明.
    :ivar auto_show: whether the ruleset has auto-show.
    :ivar tricks: the most tricks a hand has (13 per deck).
    :ivar history_segments: the slices the information state adds after the
        observation, in order (their offsets count from the information state's start).
    :ivar information_state_size: the length of the information-state vector.
    """

    copies: int
    showable: tuple[Card, ...]
    show_kinds: tuple[ShowKind, ...]
    show_offsets: dict[ShowKind, int]
    show_block: int
    action_size: int
    segments: tuple[Segment, ...]
    observation_size: int
    phases: tuple[Phase, ...]
    first_shows: bool
    auto_show: bool
    tricks: int
    history_segments: tuple[Segment, ...]
    information_state_size: int
    _pairs: tuple[tuple[int, int], ...] = attrs.field(repr=False)
    _show_cards: tuple[tuple[Card, ...], ...] = attrs.field(repr=False)
    _show_index: dict[Show, int] = attrs.field(factory=dict, repr=False)
    _actions: list[Action] = attrs.field(factory=list, repr=False)

    def segment(self, name: str) -> Segment:
        """The slice called ``name``, of the observation or of the information state.

        :raises KeyError: no slice has that name in this ruleset.
        """
        for segment in (*self.segments, *self.history_segments):
            if segment.name == name:
                return segment
        raise KeyError(name)

    def has(self, name: str) -> bool:
        """Whether this ruleset's encodings have a slice called ``name``."""
        return any(s.name == name for s in (*self.segments, *self.history_segments))

    # -- actions ------------------------------------------------------------------------

    def encode(self, action: Action) -> int:
        """The index of ``action`` (see :func:`encode_action`)."""
        if isinstance(action, Play):
            indices = sorted(card.index for card in action.cards)
            if len(indices) == 1:
                return indices[0]
            if len(indices) == 2 and self.copies == 2:
                a, b = indices
                return CARDS + a * CARDS - a * (a - 1) // 2 + (b - a)
            raise ValueError(f"{action} has no index: this ruleset plays one card at a time")
        if isinstance(action, Show):
            found = self._show_index.get(action)
            if found is not None:
                return found
            offset = self.show_offsets.get(action.kind)
            if offset is None:
                raise ValueError(
                    f"{action} has no index: the ruleset has no {action.kind.value} shows"
                )
            index = 0
            base = self.copies + 1
            for position, card in enumerate(self.showable):
                count = action.cards.count(card)
                if count > self.copies:
                    raise ValueError(f"{action} has no index: more copies than the deck holds")
                index += count * base**position
            if any(card not in self.showable for card in action.cards):
                raise ValueError(f"{action} has no index: it shows a card that is not showable")
            self._show_index[action] = offset + index
            return offset + index
        raise TypeError(f"not an action: {action!r}")

    def decode(self, index: int) -> Action:
        """The action numbered ``index`` (see :func:`decode_action`)."""
        if type(index) is int and 0 <= index < self.action_size:
            actions = self._actions
            if not actions:
                actions.extend(self._decode(i) for i in range(self.action_size))
            return actions[index]
        if isinstance(index, bool) or not 0 <= index < self.action_size:
            raise ValueError(f"action index {index!r} is outside [0, {self.action_size})")
        return self.decode(int(index))

    def _decode(self, index: int) -> Action:
        if index < CARDS:
            return play_of_key(index)
        if self.copies == 2 and index < CARDS + PAIR_COUNT:
            a, b = self._pairs[index - CARDS]
            return play_of_key(CARDS + a * CARDS + b)
        for kind in self.show_kinds:
            offset = self.show_offsets[kind]
            if offset <= index < offset + self.show_block:
                return Show(self._show_cards[index - offset], kind)
        raise AssertionError("unreachable: the ranges cover [0, action_size)")  # pragma: no cover

    def key_of(self, index: int) -> int:
        """The play key (:attr:`Play.key <gongzhu.actions.Play.key>`) of play index
        ``index``, or -1 for a show's index."""
        if index < CARDS:
            return index
        if self.copies == 2 and index < CARDS + PAIR_COUNT:
            a, b = self._pairs[index - CARDS]
            return CARDS + a * CARDS + b
        return -1


def _phases(first_shows: bool) -> tuple[Phase, ...]:
    return tuple(p for p in Phase if first_shows or p is not Phase.FIRST_SHOW)


@functools.lru_cache(maxsize=64)
def layout(rules: Rules) -> Layout:
    """The encodings of ``rules`` (computed once per ruleset, then cached)."""
    copies = rules.table.copies
    showable = tuple(sorted(rules.table.showable))
    kinds = tuple(kind for kind in ShowKind if kind in rules.show_kinds)
    first_shows = ShowKind.FIRST in kinds
    auto_show = bool(rules.show_phase.auto_show)
    block = (copies + 1) ** len(showable)
    start = CARDS + (PAIR_COUNT if copies == 2 else 0)
    offsets = {kind: start + k * block for k, kind in enumerate(kinds)}
    pairs = tuple((a, b) for a in range(CARDS) for b in range(a, CARDS)) if copies == 2 else ()
    show_cards = tuple(
        tuple(card for card, count in zip(showable, counts, strict=True) for _ in range(count))
        # itertools.product varies its last factor fastest: reverse to weigh card i by base**i
        for counts in (
            tuple(reversed(c)) for c in itertools.product(range(copies + 1), repeat=len(showable))
        )
    )
    phases = _phases(first_shows)
    tricks = 13 * copies
    segments: list[Segment] = []

    def add(into: list[Segment], name: str, size: int, high: float, begin: int = 0) -> None:
        begin = into[-1].stop if into else begin
        into.append(Segment(name, begin, begin + size, high))

    add(segments, "holding", CARDS, copies)
    add(segments, "played-by", SEATS * CARDS, copies)
    add(segments, "trick", SEATS * CARDS, copies)
    add(segments, "taken", SEATS * CARDS, copies)
    for kind in kinds:
        add(segments, f"shown-{kind.value}", SEATS * len(showable), copies)
    if auto_show:
        add(segments, "auto-shown", SEATS * len(showable), copies)
    if ShowKind.SECRET in kinds:
        add(segments, "sold-hidden", SEATS, copies * len(showable))
    add(segments, "voids", SEATS * SUITS, 1)
    add(segments, "holding-sizes", SEATS, copies * CARDS // SEATS)
    add(segments, "phase", len(phases), 1)
    add(segments, "leader", SEATS, 1)
    add(segments, "to-move", SEATS, 1)
    size = segments[-1].stop
    history: list[Segment] = []
    if first_shows:
        add(history, "first-card", CARDS, 1, size)
        add(history, "first-turns", SEATS, 1, size)
    add(history, "played-in", copies * CARDS * tricks, 1, size)
    if copies == 2:
        add(history, "played-seat", copies * CARDS * SEATS, 1, size)
    add(history, "trick-leaders", tricks * SEATS, 1, size)
    return Layout(
        copies=copies,
        showable=showable,
        show_kinds=kinds,
        show_offsets=offsets,
        show_block=block,
        action_size=start + len(kinds) * block,
        segments=tuple(segments),
        observation_size=size,
        phases=phases,
        first_shows=first_shows,
        auto_show=auto_show,
        tricks=tricks,
        history_segments=tuple(history),
        information_state_size=history[-1].stop,
        pairs=pairs,
        show_cards=show_cards,
    )


# -- actions -------------------------------------------------------------------------------


def action_size(rules: Rules) -> int:
    """The size of the ruleset's ``Discrete`` action space.

    52 + 16 per show kind with one deck (39baobao: 68; huapai + anmai: 100);
    52 + 1378 + 81 per show kind with two decks (two-deck: 1511).
    """
    return layout(rules).action_size


def encode_action(rules: Rules, action: Action) -> int:
    """The index of ``action`` in the ruleset's action space.

    :raises ValueError: the action has no index in this ruleset (two cards in
        one-deck play, a show kind the ruleset lacks, a card that is not showable).
    """
    return layout(rules).encode(action)


@functools.lru_cache(maxsize=64)
def batch_actions(rules: Rules) -> ActionTable:
    """The numbering of this module's action space as a :class:`gongzhu.batch.ActionTable`,
    for a :class:`~gongzhu.batch.HandBatch` whose masks and actions are the adapters'
    (made from :meth:`Layout.encode`, once per ruleset).

    >>> from gongzhu.batch import HandBatch
    >>> rules = load_rules("huapai")
    >>> batch = HandBatch(rules, 2, actions=batch_actions(rules))
    >>> batch.legal_mask().shape == (2, action_size(rules))
    True
    """
    codec = layout(rules)
    return ActionTable.numbered(rules, codec.encode, codec.action_size)


def action_number(action: Any) -> int:
    """``action`` as the whole number it is: an int, a numpy integer, or a float with no
    fraction (``3.0``), as an environment's ``step`` takes it.

    A numpy scalar or a 0-d array (a model's answer) counts as the number it holds.

    :raises ValueError: anything else (``3.7`` is refused, not truncated to 3).

    >>> import numpy
    >>> action_number(3.0), action_number(True), action_number(numpy.array(4.0))
    (3, 1, 4)
    """
    if getattr(action, "ndim", None) == 0 and hasattr(action, "item"):
        action = action.item()  # a numpy scalar, a 0-d array or tensor: its Python number
    try:
        return operator.index(action)
    except TypeError:
        pass
    if isinstance(action, numbers.Real):
        number = float(action)
        if math.isfinite(number) and number.is_integer():
            return int(number)
    raise ValueError(f"an action is a whole number of the action space, not {action!r}")


def decode_action(rules: Rules, index: int) -> Action:
    """The action numbered ``index`` (any integer type, numpy's included).

    Every index decodes to an action; whether it is legal now is for
    :func:`action_mask` (or :meth:`HandState.apply <gongzhu.hand.HandState.apply>`) to say.

    :raises ValueError: ``index`` is outside ``[0, action_size(rules))``.
    """
    return layout(rules).decode(int(index))


def action_mask(rules: Rules, legal_actions: Iterable[Action]) -> npt.NDArray[np.int8]:
    """An ``int8`` vector of ``action_size(rules)`` with 1 at each legal action's index."""
    import numpy as np

    codec = layout(rules)
    mask = np.zeros(codec.action_size, dtype=np.int8)
    for action in legal_actions:
        mask[codec.encode(action)] = 1
    return mask


# -- observations --------------------------------------------------------------------------


def observation_size(rules: Rules) -> int:
    """The length of the ruleset's observation vector.

    739 for 39baobao, 740 for huapai, 760 for huapai + anmai, 723 for two-deck.
    """
    return layout(rules).observation_size


def observation_segments(rules: Rules) -> tuple[Segment, ...]:
    """The named slices of the ruleset's observation vector, in order."""
    return layout(rules).segments


def information_state_size(rules: Rules) -> int:
    """The length of the ruleset's information-state vector (observation and history).

    1467 for 39baobao, 1524 for huapai, 1544 for huapai + anmai, 3947 for two-deck.
    """
    return layout(rules).information_state_size


def information_state_segments(rules: Rules) -> tuple[Segment, ...]:
    """The named slices of the information-state vector: the observation's, then the
    history's."""
    codec = layout(rules)
    return codec.segments + codec.history_segments


def _high(segments: Iterable[Segment], size: int) -> npt.NDArray[np.float32]:
    import numpy as np

    high = np.zeros(size, dtype=np.float32)
    for segment in segments:
        high[segment.start : segment.stop] = segment.high
    return high


ObservationKind = Literal["observation", "information_state"]
"""What an adapter observes: the ``"observation"`` vector (the default, compact) or the
``"information_state"`` vector, which adds the whole history (perfect recall: the order
of the tricks, who led each)."""

OBSERVATION_KINDS: Final[tuple[str, ...]] = ("observation", "information_state")
"""The observation kinds (:data:`ObservationKind`), in order."""


def check_observation(kind: str) -> ObservationKind:
    """``kind``, checked to be one of :data:`OBSERVATION_KINDS`.

    :raises ValueError: another value.
    """
    if kind not in OBSERVATION_KINDS:
        raise ValueError(
            f"observation must be one of {', '.join(map(repr, OBSERVATION_KINDS))}, not {kind!r}"
        )
    return kind  # type: ignore[return-value]


def vector_high(rules: Rules, kind: str = "observation") -> npt.NDArray[np.float32]:
    """The largest value each entry of the vector of ``kind`` takes (the lowest is 0):
    :func:`observation_high` or :func:`information_state_high`.

    :raises ValueError: an unknown kind.
    """
    if check_observation(kind) == "observation":
        return observation_high(rules)
    return information_state_high(rules)


def observation_high(rules: Rules) -> npt.NDArray[np.float32]:
    """The largest value each entry of the observation takes (the lowest is 0)."""
    codec = layout(rules)
    return _high(codec.segments, codec.observation_size)


def information_state_high(rules: Rules) -> npt.NDArray[np.float32]:
    """The largest value each entry of the information state takes (the lowest is 0)."""
    codec = layout(rules)
    return _high(information_state_segments(rules), codec.information_state_size)


def encode_observation(rules: Rules, view: SeatView) -> npt.NDArray[np.float32]:
    """The observation vector of ``view`` (see the module docs for its layout).

    It reads nothing but ``view``: two hands that look the same to a seat
    encode the same for it.  This is the reference implementation;
    :class:`gongzhu.envs.fast.HandEncoder` gives the same vectors faster.
    """
    import numpy as np

    from ..implied import taken_cards, voids

    codec = layout(rules)
    obs = np.zeros(codec.observation_size, dtype=np.float32)
    me = view.seat

    def rel(seat: int) -> int:
        return (seat - me) % SEATS

    def count(name: str, cards: Iterable[Card], row: int = 0, width: int = CARDS) -> None:
        base = codec.segment(name).start + row * width
        for card in cards:
            obs[base + card.index] += 1

    count("holding", view.holding)
    for trick in view.tricks:
        for seat, cards in trick.plays:
            count("played-by", cards, rel(seat))
    for seat, cards in enumerate(taken_cards(view.tricks)):
        count("taken", cards, rel(seat))
    for seat, played in view.current_trick:
        count("played-by", played, rel(seat))
        count("trick", played, rel(seat))
    showable = codec.showable
    for show in view.shows:
        if show.cards is None:
            obs[codec.segment("sold-hidden").start + rel(show.seat)] += show.count
            continue
        name = "auto-shown" if show.forced else f"shown-{show.kind.value}"
        base = codec.segment(name).start + rel(show.seat) * len(showable)
        for card in show.cards:
            obs[base + showable.index(card)] += 1
    start = codec.segment("voids").start
    for seat, suits in enumerate(voids(view, rules)):
        for suit in suits:
            obs[start + rel(seat) * SUITS + suit.value] = 1
    sizes = codec.segment("holding-sizes").start
    for seat, size in enumerate(view.holding_sizes):
        obs[sizes + rel(seat)] = size
    obs[codec.segment("phase").start + codec.phases.index(view.phase)] = 1
    obs[codec.segment("leader").start + rel(view.leader)] = 1
    if view.to_move is not None:
        obs[codec.segment("to-move").start + rel(view.to_move)] = 1
    return obs


def encode_information_state(
    rules: Rules,
    view: SeatView,
    *,
    first_card: Card | None = None,
    first_turns: Iterable[int] = (),
) -> npt.NDArray[np.float32]:
    """The information-state vector of ``view``: its observation, then the history.

    :param first_card: the observer's first dealt card (read with 首明 only).
    :param first_turns: the seats that had a 首明 turn so far (read with 首明 only).

    The reference implementation, as :func:`encode_observation`.
    """
    import numpy as np

    codec = layout(rules)
    state = np.zeros(codec.information_state_size, dtype=np.float32)
    state[: codec.observation_size] = encode_observation(rules, view)
    me = view.seat
    if codec.first_shows:
        if first_card is not None:
            state[codec.segment("first-card").start + first_card.index] = 1
        for seat in first_turns:
            state[codec.segment("first-turns").start + (seat - me) % SEATS] = 1
    played_in = codec.segment("played-in").start
    seats = codec.segment("played-seat").start if codec.copies == 2 else 0
    leaders = codec.segment("trick-leaders").start
    tricks = [trick.plays for trick in view.tricks]
    if view.current_trick:
        tricks.append(view.current_trick)
    copies_played = [0] * CARDS
    for number, plays in enumerate(tricks):
        state[leaders + number * SEATS + (plays[0][0] - me) % SEATS] = 1
        for seat, cards in plays:
            for card in cards:
                slot = copies_played[card.index]
                copies_played[card.index] += 1
                where = slot * CARDS + card.index
                state[played_in + where * codec.tricks + number] = 1
                if codec.copies == 2:
                    state[seats + where * SEATS + (seat - me) % SEATS] = 1
    return state


# -- rewards -------------------------------------------------------------------------------

RewardKind = Literal["raw", "final", "team", "team-final"]
"""Which score a reward pays: a seat's own ``"raw"`` points or ``"final"`` (normalised)
ones, or its team's, 2-vs-2: ``"team"`` of raw points, ``"team-final"`` of final ones."""

REWARD_KINDS: Final[tuple[str, ...]] = ("raw", "final", "team", "team-final")
"""The reward kinds (:data:`RewardKind`), in order."""

DEFAULT_REWARD: Final[RewardKind] = "raw"
"""The adapters' default reward kind: raw points."""

DEFAULT_SCALES: Final[dict[str, float]] = {
    "raw": 0.01,
    "final": 0.001,
    "team": 0.01,
    "team-final": 0.001,
}
"""The default scale of each reward kind: a reward is the score times its scale."""

_TEAM_OF: Final = {"team": "raw", "team-final": "final"}


@functools.lru_cache(maxsize=64)
def _team_weights(rules: Rules) -> tuple[tuple[float, ...], ...]:
    """Per seat, the weight of each seat's score in its team reward: the bots' ``"team"``
    objective at a 2-vs-2 table (:func:`gongzhu.bots.objective.seat_objective` with
    :data:`~gongzhu.bots.PARTNERS`), ½ for each partner, -½ for each rival."""
    from ..bots.objective import seat_objective
    from ..bots.teams import PARTNERS

    weights = []
    for seat in range(SEATS):
        found = seat_objective("team", seat, PARTNERS, rules).weights
        assert found is not None
        weights.append(found)
    return tuple(weights)


@attrs.frozen
class Reward:
    """How an adapter pays a hand: a seat's score of one kind, times a scale.

    Make one with :func:`make_reward`.

    :ivar kind: ``"raw"`` (:attr:`ScoreSheet.raw <gongzhu.scoring.ScoreSheet.raw>`),
        ``"final"`` (:meth:`HandState.returns <gongzhu.hand.HandState.returns>`), or
        their team rewards ``"team"`` and ``"team-final"`` (:attr:`team`).
    :ivar scale: what the score is multiplied by.
    """

    kind: RewardKind
    scale: float

    @property
    def base(self) -> Literal["raw", "final"]:
        """The seat scores the reward reads: ``"raw"`` or ``"final"``."""
        return _TEAM_OF.get(self.kind, self.kind)  # type: ignore[return-value]

    @property
    def team(self) -> bool:
        """Whether the reward is a team's, 2-vs-2 (:data:`~gongzhu.bots.PARTNERS`:
        seats 0 and 2 against 1 and 3).

        A seat's team reward is its team's mean score (of :attr:`base`) less
        the other team's: the bots' ``"team"`` objective
        (:mod:`gongzhu.bots.objective`), half the team difference the arena
        measures.  Partners are paid the same, their rivals the opposite: the
        four rewards of a hand sum to zero, whatever the ruleset, where the
        seats' own raw points need not.
        """
        return self.kind in _TEAM_OF

    def scores(self, hand: HandState) -> tuple[float, ...]:
        """The unscaled scores of the finished ``hand`` (raw, final, or a team's)."""
        scores = hand.raw_scores() if self.base == "raw" else hand.returns()
        if not self.team:
            return tuple(map(float, scores))
        return tuple(
            sum(w * s for w, s in zip(weights, scores, strict=True))
            for weights in _team_weights(hand.rules)
        )

    def of(self, hand: HandState) -> tuple[float, ...]:
        """Each seat's reward for the finished ``hand``.

        :raises HandNotOver: while cards remain to be played.
        """
        scale = self.scale
        return tuple(score * scale for score in self.scores(hand))

    def of_arrays(
        self, rules: Rules, raw: npt.NDArray[Any], final: npt.NDArray[Any]
    ) -> npt.NDArray[np.float64]:
        """Each seat's reward for many finished hands at once: :meth:`of` of each, from
        their ``(hands, 4)`` raw and final scores (as :class:`gongzhu.batch.HandBatch`
        gives them), as an ``(hands, 4)`` array.

        :param rules: the hands' ruleset (a team reward's weights are its).
        """
        import numpy as np

        scores = np.asarray(raw if self.base == "raw" else final, dtype=np.float64)
        if self.team:
            scores = scores @ np.asarray(_team_weights(rules), dtype=np.float64).T
        return scores * self.scale

    def bounds(self, rules: Rules) -> tuple[float, float]:
        """The lowest and the highest reward of a hand of ``rules`` (:func:`score_bounds`).

        A team reward is a mean of seat scores less another: it lies within the
        seat bounds' low less high and high less low.
        """
        found = score_bounds(rules)
        if self.base == "raw":
            low, high = found.raw_low, found.raw_high
        else:
            low, high = found.final_low, found.final_high
        if self.team:
            low, high = low - high, high - low
        return low * self.scale, high * self.scale

    def spread(self, rules: Rules) -> float:
        """The standard deviation of a seat's reward in random play (:func:`reward_spread`,
        scaled)."""
        return reward_spread(rules, self.kind) * self.scale

    def illegal(self, rules: Rules) -> float:
        """The default reward of an illegal action, five spreads below zero
        (:func:`default_illegal_reward`)."""
        return default_illegal_reward(rules, self.kind, self.scale)


def make_reward(kind: str = DEFAULT_REWARD, scale: float | None = None) -> Reward:
    """The :class:`Reward` of ``kind`` and ``scale`` (``None``: :data:`DEFAULT_SCALES`).

    :raises ValueError: a kind not in :data:`REWARD_KINDS`, or a scale that is
        not a positive finite number.
    """
    if kind not in DEFAULT_SCALES:
        raise ValueError(
            f"reward must be one of {', '.join(map(repr, REWARD_KINDS))}, not {kind!r}"
        )
    if scale is None:
        scale = DEFAULT_SCALES[kind]
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0 < scale < 1e300:
        raise ValueError(f"reward_scale must be a positive number, not {scale!r}")
    return Reward(kind, float(scale))  # type: ignore[arg-type]


# -- text ----------------------------------------------------------------------------------


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(card.symbol for card in cards) or "-"


def render_text(hand: HandState) -> str:
    """A plain-text picture of ``hand`` for a spectator (every seat's cards shown)."""
    lines = [
        f"gongzhu {' + '.join(hand.rules.names)}: {hand.phase.value}, "
        f"{len(hand.tricks)} tricks played, "
        + ("hand over" if hand.to_move is None else f"seat {hand.to_move} to move")
    ]
    shown = hand.shown
    for seat in range(SEATS):
        line = f"  seat {seat}: {_cards(hand.holding(seat))}"
        if shown[seat]:
            line += f"  | shown {_cards(shown[seat])}"
        scoring = [c for c in hand.taken(seat) if hand.rules.table.is_scoring(c)]
        if scoring:
            line += f"  | took {_cards(scoring)}"
        lines.append(line)
    if hand.tricks:
        lines.append(f"  last trick: {hand.tricks[-1]}")
    if hand.current_trick:
        played = "  ".join(f"{seat}:{_cards(cards)}" for seat, cards in hand.current_trick)
        lines.append(f"  this trick: {played}")
    if hand.is_over:
        lines.append(f"  scores: {' '.join(map(str, hand.returns()))}")
    return "\n".join(lines)


# -- score bounds --------------------------------------------------------------------------


@attrs.frozen
class ScoreBounds:
    """The extreme scores of one seat in one hand of a ruleset (see :func:`score_bounds`).

    :ivar raw_low: the lowest raw score (:attr:`ScoreSheet.raw
        <gongzhu.scoring.ScoreSheet.raw>`).
    :ivar raw_high: the highest raw score.
    :ivar final_low: the lowest final (normalised) score
        (:meth:`HandState.returns <gongzhu.hand.HandState.returns>`).
    :ivar final_high: the highest final score.
    """

    raw_low: int
    raw_high: int
    final_low: int
    final_high: int


@functools.lru_cache(maxsize=64)
def score_bounds(rules: Rules) -> ScoreBounds:
    """The extreme scores of ``rules``, from its own scorer on the extreme hands.

    Every candidate hand gives one seat all the scoring cards (every copy) but
    for a few left to a second seat: any of the sheep, the pig, the
    transformer and one copy of one heart (so that 满红 and 满贯 are both in
    and out).  Each is scored with no shows, with every showable card shown
    openly, sold secretly, or first-shown one card (the rest openly), by
    either seat, as the ruleset offers, with and without that seat having
    been dealt the cards it showed (自得); the bounds are the extremes of
    every seat's raw and final scores.  That covers the core scoring pipeline's
    worst and best hands (all the negative cards, every factor applied) and
    those of the shipped variants; a plug-in whose extremes lie elsewhere
    may exceed them, which is why :func:`default_illegal_reward` keeps a
    margin.  Computed once per ruleset (a few thousand scorings), then cached.
    """
    table = rules.table
    copies = table.copies
    scoring = [card for card in full_deck(1) if table.is_scoring(card)]
    showable = sorted(table.showable)
    hearts = [card for card in scoring if card.suit is Suit.HEARTS]
    singles = [card for card in scoring if card.suit is not Suit.HEARTS]
    shows: list[dict[str, tuple[Card, ...]]] = [{}]
    every = tuple(card for card in showable for _ in range(copies))
    if ShowKind.OPEN in rules.show_kinds:
        shows.append({"shown": every})
    if ShowKind.SECRET in rules.show_kinds:
        shows.append({"secret": every})
    if ShowKind.FIRST in rules.show_kinds:
        for card in showable:
            rest = list(every)
            rest.remove(card)
            show: dict[str, tuple[Card, ...]] = {"first_shown": (card,)}
            if rest and ShowKind.OPEN in rules.show_kinds:
                show["shown"] = tuple(rest)
            shows.append(show)
    raw: list[int] = []
    final: list[int] = []
    for left_singles in itertools.chain.from_iterable(
        itertools.combinations(singles, n) for n in range(len(singles) + 1)
    ):
        for left_heart in (None, *hearts):
            left = [*left_singles] + ([left_heart] if left_heart is not None else [])
            mine = [card for card in scoring for _ in range(copies)]
            for card in left:
                mine.remove(card)
            theirs = [card for card in scoring for _ in range(copies)]
            for card in mine:
                theirs.remove(card)
            for show, shower, dealt in itertools.product(shows, (0, 1), (False, True)):
                kwargs: dict[str, Any] = {key: {shower: cards} for key, cards in show.items()}
                if dealt:  # the shower was dealt what it showed (自得 reads it)
                    kwargs["dealt"] = {shower: [c for cards in show.values() for c in cards]}
                try:
                    sheet = rules.score({0: mine, 1: theirs}, **kwargs)
                except InvalidScoreInput:  # a show this ruleset refuses
                    continue
                raw.extend(sheet.raw)
                final.extend(sheet.final)
    return ScoreBounds(min(raw), max(raw), min(final), max(final))


ILLEGAL_SPREADS: Final = 5
"""How many spreads (:func:`reward_spread`) below zero the default illegal-action reward is."""

SPREAD_HANDS: Final = 1000
"""How many seeded random hands :func:`reward_spread` plays."""


@functools.lru_cache(maxsize=64)
def reward_spread(rules: Rules, kind: str = DEFAULT_REWARD) -> float:
    """The spread of a seat's score of ``kind`` (unscaled): its standard deviation over
    :data:`SPREAD_HANDS` hands of uniformly random legal actions, seeded 0, 1, …, to three
    significant digits (the same on every engine and in every process; computed once per
    ruleset, a fraction of a second, then cached).

    39baobao: 288 raw points (4 260 final); huapai: 643; two-deck: 1 260 (18 200 final).
    """
    import random
    import statistics

    reward = make_reward(kind)  # checks the kind
    scores: list[float] = []
    for seed in range(SPREAD_HANDS):
        hand = rules.new_hand(seed)
        hand.play_out(random.Random(seed).random)
        scores.extend(reward.scores(hand))
    return float(f"{statistics.pstdev(scores):.3g}") or 1.0  # three significant digits


def default_illegal_reward(
    rules: Rules, kind: str = DEFAULT_REWARD, scale: float | None = None
) -> float:
    """The adapters' default reward for an illegal action: five spreads below zero.

    :data:`ILLEGAL_SPREADS` times :func:`reward_spread` of ``kind``, times
    ``scale`` (``None``: the kind's :data:`DEFAULT_SCALES` entry), negated: on
    the rewards' own scale, worse than all but the rarest hands whatever the
    ruleset (-14.4 for 39baobao's raw points at the default scale, -32.15 for
    huapai, -63 for two-deck), where the worst hand's score would lie 8 to 23
    spreads down.

    :raises ValueError: a bad ``kind`` or ``scale`` (see :func:`make_reward`).
    """
    reward = make_reward(kind, scale)
    return -ILLEGAL_SPREADS * reward_spread(rules, reward.kind) * reward.scale
