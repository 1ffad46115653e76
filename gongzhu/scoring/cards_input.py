"""Scoring from lists of cards: checking the input, and which seat took which shown copy.

:func:`score_cards` is the body of :meth:`Rules.score <gongzhu.rules.Rules.score>`:
it checks what a caller says each seat took, showed and was dealt against a
ruleset's deck and show kinds, attributes the shown copies of two decks to
their takers, and hands the result, as :class:`~gongzhu.scoring.HandFacts`, to
the ruleset's :class:`~gongzhu.scoring.Scorer`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ..actions import ShowKind
from ..cards import Card, parse_cards
from ..deal import SEATS
from ..errors import InvalidCard, InvalidScoreInput, times
from ..masks import mask_of
from .scorer import HandFacts, Scorer
from .sheet import ScoreSheet
from .table import ShowRecord

__all__ = [
    "CardsBySeat",
    "ShownCopiesBySeat",
    "attribute_shown_copies",
    "cards_by_seat",
    "score_cards",
]

CardsBySeat = Mapping[int, Iterable[Card | str] | str]
"""Seat -> cards, as callers write them: card objects or card text."""

ShownCopiesBySeat = Mapping[int, Iterable[Card | str | ShowRecord] | str]
"""Seat -> the shown copies it took (two decks): cards, or the
:class:`~gongzhu.scoring.ShowRecord` of a copy where its card alone does not say
which it is."""


def cards_by_seat(value: CardsBySeat | None, what: str) -> dict[int, tuple[Card, ...]]:
    """``value`` checked and parsed: seat 0-3 -> its cards (``{}`` for ``None``).

    :param what: how error messages name the input (``"taken"``).
    :raises InvalidScoreInput: not a mapping, a seat outside 0-3, or bad card text.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidScoreInput(
            f"{what} must be a mapping seat -> cards, not {type(value).__name__}"
        )
    out: dict[int, tuple[Card, ...]] = {}
    for seat, cards in value.items():
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(SEATS):
            raise InvalidScoreInput(f"{what}: seat {seat!r} is not a seat 0-3")
        try:
            out[seat] = parse_cards(cards)
        except InvalidCard as exc:
            raise InvalidScoreInput(f"{what} of seat {seat}: {exc}") from None
    return out


def score_cards(
    scorer: Scorer,
    show_kinds: Collection[ShowKind],
    ruleset: str,
    taken: CardsBySeat,
    *,
    shown: CardsBySeat | None = None,
    first_shown: CardsBySeat | None = None,
    secret: CardsBySeat | None = None,
    dealt: CardsBySeat | None = None,
    shown_taken: ShownCopiesBySeat | None = None,
) -> ScoreSheet:
    """Check a finished hand described by cards, and score it with ``scorer``.

    :param show_kinds: the kinds of show the ruleset offers.
    :param ruleset: how error messages name the ruleset (``"huapai + anmai"``).

    The other parameters, and the errors, are those of
    :meth:`Rules.score <gongzhu.rules.Rules.score>`.
    """
    table = scorer.table
    taken_cards = cards_by_seat(taken, "taken")
    limit = table.copies
    counts: dict[Card, int] = {}
    for cards in taken_cards.values():
        for card in cards:
            counts[card] = counts.get(card, 0) + 1
            if counts[card] > limit:
                raise InvalidScoreInput(
                    f"{card} is taken {times(counts[card])}; the deck holds it {times(limit)}"
                )
    dealt_cards = cards_by_seat(dealt, "dealt") if dealt is not None else None
    if dealt_cards is not None:
        deal_counts: dict[Card, int] = {}
        for cards in dealt_cards.values():
            for card in cards:
                deal_counts[card] = deal_counts.get(card, 0) + 1
        for card, count in deal_counts.items():
            if count > limit:
                raise InvalidScoreInput(
                    f"dealt: {card} is dealt {times(count)}; the deck holds it {times(limit)}"
                )
    shows: list[ShowRecord] = []
    for kind, value in (
        (ShowKind.OPEN, shown),
        (ShowKind.FIRST, first_shown),
        (ShowKind.SECRET, secret),
    ):
        by_seat = cards_by_seat(value, kind.value + " shows")
        if by_seat and any(by_seat.values()) and kind not in show_kinds:
            raise InvalidScoreInput(f"{ruleset} has no {kind.value} shows")
        for seat, cards in by_seat.items():
            for card in cards:
                if card not in table.showable:
                    raise InvalidScoreInput(
                        f"seat {seat} shows {card}, which is not showable under "
                        f"{ruleset} (showable: "
                        f"{' '.join(map(str, sorted(table.showable)))})"
                    )
                if dealt_cards is not None and cards.count(card) > dealt_cards.get(seat, ()).count(
                    card
                ):
                    raise InvalidScoreInput(f"seat {seat} shows {card} but was not dealt it")
                shows.append(ShowRecord(seat, card, kind))
    show_counts: dict[Card, int] = {}
    for record in shows:
        show_counts[record.card] = show_counts.get(record.card, 0) + 1
        if show_counts[record.card] > limit:
            raise InvalidScoreInput(
                f"{record.card} is shown {times(show_counts[record.card])}; "
                f"the deck holds it {times(limit)}"
            )
    per_seat = [taken_cards.get(seat, ()) for seat in range(SEATS)]
    attributed = None
    if limit == 2:
        attributed = attribute_shown_copies(per_seat, shows, shown_taken)
    elif shown_taken is not None:
        raise InvalidScoreInput("shown_taken is for two decks, where copies are told apart")
    dealt_masks = (
        None if dealt_cards is None else [mask_of(dealt_cards.get(s, ())) for s in range(SEATS)]
    )
    facts = HandFacts([mask_of(cards) for cards in per_seat], dealt_masks, tuple(shows), attributed)
    return scorer.sheet(facts)


def attribute_shown_copies(
    taken: Sequence[Sequence[Card]],
    shows: Sequence[ShowRecord],
    shown_taken: ShownCopiesBySeat | None,
) -> list[list[ShowRecord]]:
    """Two decks: per seat, the shown copies it took (each doubles only itself).

    With ``shown_taken`` (seat -> the shown copies it took) that is checked
    and used.  A shown copy is named by its card when every shown copy of
    that card is alike (shown by one seat, the same way), else by its
    :class:`~gongzhu.scoring.ShowRecord` (who showed it, and how).  By
    default each shown copy goes, in the order shown, to the lowest seat
    that took a copy of that card not yet given one.

    :raises InvalidScoreInput: ``shown_taken`` gives a seat a shown copy that
        was not shown, that it did not take, or that its card alone does not
        name; or it leaves more copies of a card unshown than there are.
    """
    out: list[list[ShowRecord]] = [[], [], [], []]

    def room(seat: int, card: Card) -> int:
        """How many copies of ``card`` ``seat`` took that are not yet given a shown copy."""
        return list(taken[seat]).count(card) - sum(r.card == card for r in out[seat])

    pending = list(shows)
    if shown_taken is None:
        for record in pending:
            taker = next((s for s in range(SEATS) if room(s, record.card) > 0), None)
            if taker is not None:
                out[taker].append(record)
        return out
    given = _shown_copies_by_seat(shown_taken)
    # the copies named by their show records first, so that what a card names does not
    # depend on the order of the seats
    for seat, (records, _cards) in given.items():
        for named in records:
            if named not in pending or room(seat, named.card) < 1:
                raise InvalidScoreInput(
                    f"shown_taken: seat {seat} cannot have taken {named.card} "
                    f"shown by seat {named.seat} ({named.kind.value})"
                )
            pending.remove(named)
            out[seat].append(named)
    for seat, (_records, cards) in given.items():
        for card in dict.fromkeys(cards):  # each card once, in the order given
            wanted = cards.count(card)
            shown = [r for r in pending if r.card == card]
            if wanted > len(shown) or room(seat, card) < wanted:
                how_many = "a shown" if wanted == 1 else f"{wanted} shown"
                raise InvalidScoreInput(
                    f"shown_taken: seat {seat} cannot have taken {how_many} {card}"
                )
            if wanted < len(shown) and len({(r.seat, r.kind) for r in shown}) > 1:
                raise InvalidScoreInput(
                    f"shown_taken: seat {seat} took a shown {card}, but the shown copies "
                    f"of {card} differ ({_shows_of(shown)}): name the one it took by its "
                    f"ShowRecord(seat, card, kind)"
                )
            for record in shown[:wanted]:
                pending.remove(record)
                out[seat].append(record)
    copies = 2  # two decks
    for card in {r.card for r in shows}:
        taken_copies = sum(list(cards).count(card) for cards in taken)
        attributed = sum(r.card == card for seat in out for r in seat)
        unshown = copies - sum(r.card == card for r in shows)
        if taken_copies - attributed > unshown:
            raise InvalidScoreInput(
                f"shown_taken: {taken_copies} copies of {card} were taken and "
                f"{copies - unshown} shown, so a shown one was among them: say who took it"
            )
    return out


def _shown_copies_by_seat(
    value: ShownCopiesBySeat,
) -> dict[int, tuple[list[ShowRecord], tuple[Card, ...]]]:
    """``shown_taken`` checked and parsed: seat -> the shown copies it took named by their
    show records, and those named by their cards."""
    if not isinstance(value, Mapping):
        cards_by_seat(value, "shown_taken")  # raises: not a mapping
    out: dict[int, tuple[list[ShowRecord], tuple[Card, ...]]] = {}
    for seat, given in value.items():
        records: list[ShowRecord] = []
        texts: list[Card | str] = []
        for item in () if isinstance(given, str) else given:
            if isinstance(item, ShowRecord):
                records.append(item)
            else:
                texts.append(item)
        parsed = cards_by_seat({seat: given if isinstance(given, str) else texts}, "shown_taken")
        for parsed_seat, cards in parsed.items():
            out[parsed_seat] = (records, cards)
    return out


def _shows_of(shows: Iterable[ShowRecord]) -> str:
    return ", ".join(f"seat {r.seat} {r.kind.value}" for r in shows)
