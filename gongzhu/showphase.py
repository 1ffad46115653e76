"""The show phases as data: every show a seat may make, compiled once per ruleset.

Before the first trick a hand has up to two show phases: 首明 (each seat
whose first dealt card is showable decides on that card alone, in dealing
order) and the show phase proper (亮牌: each seat in turn from the leader
shows what it wants to, openly, or sells it secretly where 暗卖 is offered).
Then auto-show may reveal the rest (39baobao, 逼明), and the shown-card lock
holds some shown cards.  What a seat may do depends only on the showable
cards it holds, so a ruleset compiles every answer once, when it is built
(:func:`build_show_phase`, asking :func:`~gongzhu.hookspecs.gongzhu_filter_shows`
once per holding): a :class:`ShowPhase` lists every show as a numbered
:class:`ShowChoice`, and for each holding the choices a seat holding it has.
The engines play the show phases from this table (:mod:`gongzhu.engines`:
the Python reference and its C twin), and no hook is asked while a hand is
played.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Final

import attrs

from .actions import Action, Show, ShowKind
from .cards import Card
from .errors import IncompatibleVariants
from .masks import SECOND_COPY, CardMask, both_copies, cards_of_mask, mask_of, subtract_copies
from .plugin import ShownCardLock
from .scoring import ShowRecord, show_record
from .view import Phase

__all__ = [
    "KINDS",
    "MAX_SHOWABLE",
    "ShowChoice",
    "ShowFilter",
    "ShowPhase",
    "build_show_phase",
    "copy_record",
    "sub_multisets",
]

KINDS: Final = tuple(ShowKind)
"""The show kinds by the code engines use for them (their position here)."""

MAX_SHOWABLE: Final = {1: 8, 2: 5}
"""The most showable cards a ruleset may have, by deck copies (the table has one
entry per holding: 2⁸ with one deck, 3⁵ with two)."""

ShowFilter = Callable[[tuple[Card, ...], ShowKind, list[tuple[Card, ...]]], None]
""":func:`~gongzhu.hookspecs.gongzhu_filter_shows` as the builder calls it:
``(holding, kind, choices)``, editing ``choices`` in place."""


@attrs.frozen
class ShowChoice:
    """One show a seat may make, with what a hand derives from it worked out once.

    :ivar id: its number: its position in :attr:`ShowPhase.choices`.
    :ivar show: the action.
    :ivar copies: the shown cards as a card mask (a card shown twice: both copies).
    :ivar factor: the show factor of its kind.
    :ivar locks: whether the shown-card lock holds the shown cards.
    :ivar kind_code: its kind's position in :data:`KINDS`.
    """

    id: int
    show: Show
    copies: CardMask
    factor: int
    locks: bool
    kind_code: int


class _CopyRecords(dict[tuple[int, int, int], ShowRecord]):
    """(seat, card index, kind code) -> its :class:`~gongzhu.scoring.ShowRecord`, made on
    first use."""

    def __missing__(self, key: tuple[int, int, int]) -> ShowRecord:
        seat, index, kind = key
        record = self[key] = show_record(seat, Card.from_index(index), KINDS[kind])
        return record


copy_record: Final[Callable[[tuple[int, int, int]], ShowRecord]] = _CopyRecords().__getitem__
"""The :class:`~gongzhu.scoring.ShowRecord` of a shown copy as engines name it:
``(seat that showed it, card index, kind code)`` (:meth:`HandEngine.shown_taken
<gongzhu.play.HandEngine.shown_taken>`)."""


def sub_multisets(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every sub-multiset of ``cards`` (each sorted), smallest first, each once."""
    seen: dict[tuple[Card, ...], None] = {}
    for size in range(len(cards) + 1):
        for combo in itertools.combinations(sorted(cards), size):
            seen.setdefault(combo)
    return list(seen)


@attrs.frozen(eq=False)
class ShowPhase:
    """A ruleset's show phases, compiled: what engines play them from.

    A *holding* is the card mask of the showable cards a seat holds and has
    not shown (both copies with two decks).

    :ivar copies: decks in play (1 or 2).
    :ivar showable: every copy of the showable cards (card mask).
    :ivar cards: the showable cards' indices, ascending.
    :ivar first_shows: whether the hand has a 首明 phase.
    :ivar auto_show: once this many showable copies are shown, the rest are
        shown for their holders (0: never).
    :ivar choices: every show, by :attr:`ShowChoice.id`.
    :ivar held: holding -> the ids of the shows of a seat's show turn (its open
        shows, then its secret sales where the ruleset offers them).
    :ivar first: a showable card's index -> the ids of the 首明 shows of a seat
        dealt it first.
    :ivar forced: holding -> the id of the open show of all of it, made by
        auto-show (with :attr:`auto_show` only).
    :ivar kinds: the show kinds the ruleset offers.
    :ivar ruleset: how messages name the ruleset (``"huapai + anmai"``).
    """

    copies: int
    showable: CardMask
    cards: tuple[int, ...]
    first_shows: bool
    auto_show: int
    choices: tuple[ShowChoice, ...]
    held: Mapping[CardMask, tuple[int, ...]]
    first: Mapping[int, tuple[int, ...]]
    forced: Mapping[CardMask, int]
    kinds: frozenset[ShowKind]
    ruleset: str
    _held_shows: dict[CardMask, tuple[Show, ...]] = attrs.field(init=False, repr=False)
    _first_shows: dict[int, tuple[Show, ...]] = attrs.field(init=False, repr=False)
    _records: tuple[tuple[tuple[ShowRecord, ...], ...], ...] = attrs.field(init=False, repr=False)

    @_held_shows.default
    def _make_held_shows(self) -> dict[CardMask, tuple[Show, ...]]:
        return {mask: self.shows_of(ids) for mask, ids in self.held.items()}

    @_first_shows.default
    def _make_first_shows(self) -> dict[int, tuple[Show, ...]]:
        return {index: self.shows_of(ids) for index, ids in self.first.items()}

    @_records.default
    def _make_records(self) -> tuple[tuple[tuple[ShowRecord, ...], ...], ...]:
        return tuple(
            tuple(
                tuple(show_record(seat, card, choice.show.kind) for card in choice.show.cards)
                for seat in range(4)
            )
            for choice in self.choices
        )

    def shows_of(self, ids: Sequence[int]) -> tuple[Show, ...]:
        """The :class:`~gongzhu.actions.Show` actions of choices ``ids``."""
        return tuple(self.choices[i].show for i in ids)

    def held_shows(self, holding: CardMask) -> tuple[Show, ...]:
        """The shows of a seat's show turn, holding ``holding`` (the same tuple each time)."""
        return self._held_shows[holding]

    def first_shows_of(self, index: int) -> tuple[Show, ...]:
        """The 首明 shows of a seat whose first card has index ``index`` (empty when it is
        not showable)."""
        return self._first_shows.get(index, ())

    def holding(self, dealt: CardMask, shown: CardMask) -> CardMask:
        """The holding of a seat dealt ``dealt`` that has shown ``shown`` (card masks)."""
        held = dealt & self.showable
        if held >> SECOND_COPY or shown >> SECOND_COPY:
            return subtract_copies(held, shown)
        return held & ~shown

    def records(self, seat: int, choice: int) -> tuple[ShowRecord, ...]:
        """The :class:`~gongzhu.scoring.ShowRecord` of each card of show ``choice`` by ``seat``."""
        return self._records[choice][seat]

    def records_of(self, log: Sequence[tuple[int, int, bool]]) -> tuple[ShowRecord, ...]:
        """Every shown card of an engine's :attr:`~gongzhu.play.HandEngine.show_log`, in
        the order shown."""
        table = self._records
        made: tuple[ShowRecord, ...] = ()
        for seat, choice, _forced in log:
            made += table[choice][seat]
        return made

    def refusal(self, phase: Phase, seat: int, holding: CardMask, action: Action) -> str:
        """Why ``action`` is not among a seat's shows (for an error message).

        :param phase: the hand's phase (a show phase).
        :param seat: the seat to act.
        :param holding: what it may show: in the 首明 phase its first card (when
            showable), else its holding.
        :param action: the refused action.
        """
        if not isinstance(action, Show):
            return f"it is the {phase.value} phase: each seat takes one Show"
        if phase is Phase.FIRST_SHOW and action.kind is not ShowKind.FIRST:
            return "in the 首明 phase a seat first-shows its first card or not (first-show ...)"
        if phase is Phase.SHOW and action.kind is ShowKind.FIRST:
            return "首明 is decided on the first dealt card only, before the rest of the deal"
        if action.kind not in self.kinds:
            return f"{self.ruleset} has no {action.kind.value} shows"
        for card in action.cards:
            if not card.bit & self.showable:
                return f"{card} is not a showable card"
        held = cards_of_mask(holding)
        for card in action.cards:
            if action.cards.count(card) > held.count(card):
                return f"seat {seat} does not hold {card} (or has shown it already)"
        return f"{self.ruleset} forbids this show for a seat holding " + (
            " ".join(map(str, held)) or "no showable card"
        )


def build_show_phase(
    *,
    copies: int,
    showable: Collection[Card],
    kinds: Collection[ShowKind],
    factors: Mapping[ShowKind, int],
    lock: ShownCardLock | None,
    auto_show: int | None,
    filter_shows: ShowFilter,
    ruleset: str,
) -> ShowPhase:
    """Compile a ruleset's show phases: every holding's shows, asked of the plug-ins once.

    :param copies: decks in play.
    :param showable: the showable cards.
    :param kinds: the show kinds the ruleset offers (open shows, 首明, secret sales).
    :param factors: each kind's show factor.
    :param lock: the shown-card lock (it says which kinds it holds), or ``None``.
    :param auto_show: the auto-show count, or ``None``/0 for none.
    :param filter_shows: the plug-ins' filter of the shows of one holding.
    :param ruleset: how messages name the ruleset.
    :raises IncompatibleVariants: more showable cards than :data:`MAX_SHOWABLE`, or
        filters that leave a seat no open show.
    """
    cards = tuple(sorted(showable))
    limit = MAX_SHOWABLE[copies]
    if len(cards) > limit:
        raise IncompatibleVariants(
            f"{ruleset} has {len(cards)} showable cards; at most {limit} are possible "
            f"with {copies} deck{'s' if copies > 1 else ''}"
        )
    choices: list[ShowChoice] = []
    by_show: dict[Show, int] = {}

    def choice_id(show: Show) -> int:
        found = by_show.get(show)
        if found is None:
            locks = lock is not None and show.kind not in lock.exempt
            found = by_show[show] = len(choices)
            code = KINDS.index(show.kind)
            choices.append(
                ShowChoice(found, show, mask_of(show.cards), factors[show.kind], locks, code)
            )
        return found

    def allowed(holding: tuple[Card, ...], kind: ShowKind) -> list[int]:
        if kind not in kinds:
            return []
        options = sub_multisets(holding)
        if kind is ShowKind.SECRET:  # a sale sells something; the other kinds may show nothing
            options = [option for option in options if option]
        filter_shows(holding, kind, options)
        if not options and kind is not ShowKind.SECRET:
            raise IncompatibleVariants(
                f"the show filters of {ruleset} leave no legal {kind.value} show for a seat "
                "holding " + " ".join(map(str, holding))
            )
        return [choice_id(Show(option, kind)) for option in options]

    held: dict[CardMask, tuple[int, ...]] = {}
    forced: dict[CardMask, int] = {}
    for counts in itertools.product(range(copies + 1), repeat=len(cards)):
        holding = tuple(card for card, n in zip(cards, counts, strict=True) for _ in range(n))
        mask = mask_of(holding)
        held[mask] = tuple(allowed(holding, ShowKind.OPEN) + allowed(holding, ShowKind.SECRET))
        if auto_show and holding:
            forced[mask] = choice_id(Show(holding, ShowKind.OPEN))
    first: dict[int, tuple[int, ...]] = {}
    if ShowKind.FIRST in kinds:
        for card in cards:
            first[card.index] = tuple(allowed((card,), ShowKind.FIRST))
    low = mask_of(cards)
    return ShowPhase(
        copies=copies,
        showable=both_copies(low) if copies == 2 else low,
        cards=tuple(card.index for card in cards),
        first_shows=ShowKind.FIRST in kinds,
        auto_show=auto_show or 0,
        choices=tuple(choices),
        held=MappingProxyType(held),
        first=MappingProxyType(first),
        forced=MappingProxyType(forced),
        kinds=frozenset(kinds),
        ruleset=ruleset,
    )
