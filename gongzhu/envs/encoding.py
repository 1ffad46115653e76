"""Fixed-size encodings of actions and seat views, for learning agents.

Both adapters (:mod:`gongzhu.envs.pettingzoo`, :mod:`gongzhu.envs.gymnasium`)
use these encodings; they depend on the ruleset only through its deck count
(:attr:`Rules.table.copies <gongzhu.scoring.ScoreTable.copies>`), its showable
cards (:attr:`Rules.table.showable <gongzhu.scoring.ScoreTable.showable>`) and
the show kinds it offers (:attr:`Rules.show_kinds <gongzhu.rules.Rules.show_kinds>`).
:func:`layout` computes them once per ruleset.

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

**Observations** are flat ``float32`` vectors built from a
:class:`~gongzhu.view.SeatView` only, so they hold exactly what the seat may
know.  Seats are relative to the observer (0 the observer, 1 the next seat
in playing order, …); cards are counted in copies (0, 1 or 2), by card index.
:func:`observation_segments` lists the layout of a ruleset; in order:

=================  ================  ==============================================
segment            size              contents
=================  ================  ==============================================
``holding``        52                the observer's cards (in 首明, its first card)
``played``         52                every card played so far, this trick included
``trick``          4 × 52            the trick under way, by relative seat
``taken``          4 × 52            the cards each seat has taken in tricks
``shown-<kind>``   4 × showable      per offered show kind: each seat's shown cards
``sold-hidden``    4                 (with secret sales) how many cards each other
                                     seat sold secretly, cards unseen
``holding-sizes``  4                 how many cards each seat holds
``phase``          4                 one-hot: first-show, show, play, over
``leader``         4                 one-hot relative seat leading this trick
``to-move``        4                 one-hot relative seat to move (zeros when over)
=================  ================  ==============================================

The observer's own secret sales appear with their cards under
``shown-secret``; another seat's appear only as a count under
``sold-hidden``, as :class:`~gongzhu.view.PublicShow` gives them.  Cards
"taken" follow the rules of a trick: every card goes to its winner, except
its scoring cards, which go to its taker (a 垫牌 penalty's offender).

numpy is imported on first use, not when this module is imported.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from ..actions import Action, Play, Show, ShowKind, play_of_key
from ..cards import Card, Suit, full_deck
from ..errors import InvalidScoreInput
from ..rules import Rules, load_rules
from ..view import Phase, SeatView

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..hand import HandState

__all__ = [
    "PAIR_COUNT",
    "Layout",
    "RulesLike",
    "ScoreBounds",
    "Segment",
    "action_mask",
    "action_size",
    "decode_action",
    "default_illegal_reward",
    "encode_action",
    "encode_observation",
    "layout",
    "observation_high",
    "observation_segments",
    "observation_size",
    "render_text",
    "resolve_rules",
    "score_bounds",
]

SEATS: Final = 4
CARDS: Final = 52
PAIR_COUNT: Final = CARDS * (CARDS + 1) // 2
"""How many two-card plays the two-deck action range holds (1378)."""

_PHASES: Final = tuple(Phase)

RulesLike = Rules | str | Sequence[str] | None
"""What the adapters accept as a ruleset: a :class:`~gongzhu.rules.Rules`, a
ruleset name, a sequence of names (``("huapai", "anmai")``), or ``None`` for
the default rules."""


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
        return load_rules(rules)
    return load_rules(*rules)


@attrs.frozen
class Segment:
    """One named slice ``[start, stop)`` of the observation vector.

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
    """

    copies: int
    showable: tuple[Card, ...]
    show_kinds: tuple[ShowKind, ...]
    show_offsets: dict[ShowKind, int]
    show_block: int
    action_size: int
    segments: tuple[Segment, ...]
    observation_size: int
    _pairs: tuple[tuple[int, int], ...] = attrs.field(repr=False)
    _show_cards: tuple[tuple[Card, ...], ...] = attrs.field(repr=False)

    def segment(self, name: str) -> Segment:
        """The observation slice called ``name``.

        :raises KeyError: no slice has that name in this ruleset.
        """
        for segment in self.segments:
            if segment.name == name:
                return segment
        raise KeyError(name)

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
            return offset + index
        raise TypeError(f"not an action: {action!r}")

    def decode(self, index: int) -> Action:
        """The action numbered ``index`` (see :func:`decode_action`)."""
        if isinstance(index, bool) or not 0 <= index < self.action_size:
            raise ValueError(f"action index {index!r} is outside [0, {self.action_size})")
        index = int(index)
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


@functools.lru_cache(maxsize=64)
def layout(rules: Rules) -> Layout:
    """The encodings of ``rules`` (computed once per ruleset, then cached)."""
    copies = rules.table.copies
    showable = tuple(sorted(rules.table.showable))
    kinds = tuple(kind for kind in ShowKind if kind in rules.show_kinds)
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
    segments: list[Segment] = []

    def add(name: str, size: int, high: float) -> None:
        begin = segments[-1].stop if segments else 0
        segments.append(Segment(name, begin, begin + size, high))

    add("holding", CARDS, copies)
    add("played", CARDS, copies)
    add("trick", SEATS * CARDS, copies)
    add("taken", SEATS * CARDS, copies)
    for kind in kinds:
        add(f"shown-{kind.value}", SEATS * len(showable), copies)
    if ShowKind.SECRET in kinds:
        add("sold-hidden", SEATS, copies * len(showable))
    add("holding-sizes", SEATS, copies * CARDS // SEATS)
    add("phase", len(_PHASES), 1)
    add("leader", SEATS, 1)
    add("to-move", SEATS, 1)
    return Layout(
        copies=copies,
        showable=showable,
        show_kinds=kinds,
        show_offsets=offsets,
        show_block=block,
        action_size=start + len(kinds) * block,
        segments=tuple(segments),
        observation_size=segments[-1].stop,
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

    552 for 39baobao, 588 for huapai + anmai, 552 for two-deck.
    """
    return layout(rules).observation_size


def observation_segments(rules: Rules) -> tuple[Segment, ...]:
    """The named slices of the ruleset's observation vector, in order."""
    return layout(rules).segments


def observation_high(rules: Rules) -> npt.NDArray[np.float32]:
    """The largest value each entry of the observation takes (the lowest is 0)."""
    import numpy as np

    high = np.zeros(layout(rules).observation_size, dtype=np.float32)
    for segment in layout(rules).segments:
        high[segment.start : segment.stop] = segment.high
    return high


def encode_observation(rules: Rules, view: SeatView) -> npt.NDArray[np.float32]:
    """The observation vector of ``view`` (see the module docs for its layout).

    It reads nothing but ``view``: two hands that look the same to a seat
    encode the same for it.
    """
    import numpy as np

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
    is_scoring = rules.table.is_scoring
    for trick in view.tricks:
        cards = trick.cards
        count("played", cards)
        count("taken", (c for c in cards if not is_scoring(c)), rel(trick.winner))
        count("taken", (c for c in cards if is_scoring(c)), rel(trick.taker))
    for seat, played in view.current_trick:
        count("played", played)
        count("trick", played, rel(seat))
    showable = codec.showable
    for show in view.shows:
        if show.cards is None:
            obs[codec.segment("sold-hidden").start + rel(show.seat)] += show.count
            continue
        base = codec.segment(f"shown-{show.kind.value}").start + rel(show.seat) * len(showable)
        for card in show.cards:
            obs[base + showable.index(card)] += 1
    sizes = codec.segment("holding-sizes").start
    for seat, size in enumerate(view.holding_sizes):
        obs[sizes + rel(seat)] = size
    obs[codec.segment("phase").start + _PHASES.index(view.phase)] = 1
    obs[codec.segment("leader").start + rel(view.leader)] = 1
    if view.to_move is not None:
        obs[codec.segment("to-move").start + rel(view.to_move)] = 1
    return obs


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


def default_illegal_reward(rules: Rules) -> float:
    """The adapters' default reward for an illegal action: below any hand's result.

    Twice the lowest final score :func:`score_bounds` finds (and at most -1):
    -59 208 for 39baobao, -28 800 for huapai, -692 808 for two-deck (whose
    final scores reach several hundred thousand).
    """
    return float(min(-1, 2 * score_bounds(rules).final_low))
