"""The deal: the cards of one or two decks in the order they were dealt round the table.

:class:`Deal` is a core value type: hands are dealt from it, records store
it, and plug-ins read it at phase boundaries (the opening lead).  It is also
importable from :mod:`gongzhu.plugin`, where plug-in authors find the values
hooks exchange.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable, Iterable, MutableSequence, Sequence
from operator import itemgetter
from typing import Any, Final

import attrs

from ._accel import accelerator
from .cards import Card, full_deck, parse_cards
from .errors import InvalidCard, times

__all__ = ["SEATS", "Deal", "dealt_masks", "put_first", "seed_digest"]

SEATS: Final = 4
"""The number of seats at the table."""


_SHAKE_256: Callable[[bytes], Any] | None = None
"""hashlib.shake_256 once the first deal is shuffled: hashlib loads OpenSSL, a few
milliseconds that ``import gongzhu`` need not spend."""


def _import_shake_256() -> Callable[[bytes], Any]:
    global _SHAKE_256
    from hashlib import shake_256

    _SHAKE_256 = shake_256
    return shake_256


@attrs.frozen
class Deal:
    """The cards in the order they were dealt, one at a time round the table.

    Card ``k`` of :attr:`order` goes to seat ``(first_seat + k) % 4``.  The
    order matters: 首明 is decided on each seat's first card, and in two-deck
    play the first seat dealt a ♣2 leads.
    """

    order: tuple[Card, ...] = attrs.field(converter=parse_cards)
    first_seat: int = attrs.field(default=0)

    @order.validator
    def _check_order(self, _attribute: object, value: tuple[Card, ...]) -> None:
        copies, rest = divmod(len(value), 52)
        counts = [0] * 52
        for card in value:
            counts[card.index] += 1
        if rest or copies not in (1, 2) or counts.count(copies) != 52:
            expected = copies if copies in (1, 2) and not rest else 1 if len(value) < 78 else 2
            wrong = [
                f"{Card.from_index(index)} {times(count) if count else 'missing'}"
                for index, count in enumerate(counts)
                if count != expected
            ]
            shown = ", ".join(wrong[:4]) + (f" and {len(wrong) - 4} more" if len(wrong) > 4 else "")
            raise InvalidCard(
                f"a deal must hold every card of one or two decks exactly once per deck "
                f"(got {len(value)} cards: {shown})"
            )

    @first_seat.validator
    def _check_first(self, _attribute: object, value: int) -> None:
        if value not in range(SEATS):
            raise InvalidCard(f"first_seat must be 0-3, not {value!r}")

    @classmethod
    def shuffled(cls, seed: int, copies: int = 1, first_seat: int = 0) -> Deal:
        """A deal shuffled reproducibly from ``seed`` (any integer).

        The cards of :func:`~gongzhu.cards.full_deck` are sorted by 64-bit
        keys read from the SHAKE-256 digest of the seed (its two's-complement
        bytes, little-endian): a uniform permutation, the same on every
        platform and Python version.  Records keep the deal itself, so
        replays never depend on this algorithm.
        """
        return cls.shuffled_with_masks(seed, copies, first_seat)[0]

    @classmethod
    def shuffled_with_masks(
        cls, seed: int, copies: int = 1, first_seat: int = 0
    ) -> tuple[Deal, list[int]]:
        """:meth:`shuffled`, and each seat's dealt cards as a card mask (a second copy of a
        card at bit ``52 + index``), which hands are played from (by seat: what
        :attr:`HandState.dealt_masks <gongzhu.hand.HandState.dealt_masks>` holds)."""
        if first_seat not in range(SEATS):
            raise InvalidCard(f"first_seat must be 0-3, not {first_seat!r}")
        deck = _DECKS[copies] if copies in _DECKS else full_deck(copies)
        order, masks = _shuffle(seed_digest(seed, len(deck)), deck)
        if first_seat:
            holdings = [0, 0, 0, 0]
            for k in range(SEATS):
                holdings[(first_seat + k) & 3] = masks[k]
        else:
            holdings = list(masks)
        # a permutation of a deck: nothing to check
        return cls.unchecked(order, first_seat), holdings

    @classmethod
    def unchecked(cls, order: tuple[Card, ...], first_seat: int) -> Deal:
        """A deal of ``order`` without the checks, for callers that built a permutation of
        one or two decks themselves (a wrong ``order`` makes a deal that plays wrong)."""
        deal = object.__new__(cls)
        object.__setattr__(deal, "order", order)
        object.__setattr__(deal, "first_seat", first_seat)
        return deal

    @classmethod
    def from_holdings(
        cls, holdings: Sequence[Iterable[Card | str] | str], first_seat: int = 0
    ) -> Deal:
        """A deal whose seats receive ``holdings`` (each in the order given)."""
        parsed = [parse_cards(h) for h in holdings]
        if len(parsed) != SEATS or len({len(h) for h in parsed}) != 1:
            raise InvalidCard("a deal needs four holdings of equal size")
        order = [
            parsed[(first_seat + k) % SEATS][k // SEATS] for k in range(SEATS * len(parsed[0]))
        ]
        return cls(tuple(order), first_seat)

    @property
    def copies(self) -> int:
        """How many decks the deal uses (1 or 2)."""
        return len(self.order) // 52

    def holding(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` receives, in dealing order."""
        start = (seat - self.first_seat) % SEATS
        return self.order[start::SEATS]

    @property
    def holdings(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's cards, in dealing order."""
        return tuple(self.holding(s) for s in range(SEATS))

    def first_card(self, seat: int) -> Card:
        """The first card ``seat`` received."""
        return self.order[(seat - self.first_seat) % SEATS]

    def first_receiver(self, card: Card) -> int:
        """The seat that was dealt a copy of ``card`` first."""
        index = card.index
        for k, dealt in enumerate(self.order):
            if dealt.index == index:
                return (self.first_seat + k) % SEATS
        raise InvalidCard(f"{card} is not in the deal")


_DECKS: Final = {1: full_deck(1), 2: full_deck(2)}


def seed_digest(seed: int, cards: int) -> bytes:
    """The bytes a deal of ``cards`` cards is shuffled by (:meth:`Deal.shuffled`): 8 a
    card of the SHAKE-256 digest of ``seed``'s two's-complement bytes, little-endian."""
    shake_256 = _SHAKE_256 or _import_shake_256()
    size = (seed.bit_length() + 8) // 8
    digest: bytes = shake_256(seed.to_bytes(size, "little", signed=True)).digest(8 * cards)
    return digest


def put_first(
    cards: MutableSequence[Card],
    first: Card | None = None,
    *,
    showable: int = 0,
    showable_first: bool | None = None,
) -> bool:
    """Put at ``cards[0]`` the card a seat's first place needs, swapping it with the card
    there: ``first`` itself; else, where ``showable_first`` is given, the first card that
    is showable (its bit in the card mask ``showable``) exactly when it says.

    首明 asks a seat about its first dealt card, and only when it is showable: a
    deal that agrees with what the 首明 turns showed gives a seat its 首明 card
    first, and a showable first card exactly when the seat had a 首明 turn.
    Every deal made to agree with a hand (a determinised sample, a hand's
    holdings changed, OpenSpiel's resampling) places first cards by this rule.

    :return: ``False`` when no such card is among ``cards`` (nothing moves), else
        ``True`` (also when neither ``first`` nor ``showable_first`` is given: then
        nothing is asked of the first place, and nothing moves).
    """
    if first is not None:
        try:
            at = cards.index(first)
        except ValueError:
            return False
    elif showable_first is not None:
        at = next(
            (i for i, card in enumerate(cards) if bool(card.bit & showable) == showable_first),
            -1,
        )
        if at < 0:
            return False
    else:
        return True
    cards[0], cards[at] = cards[at], cards[0]
    return True


def _shuffle_deck(digest: bytes, deck: tuple[Card, ...]) -> tuple[tuple[Card, ...], list[int]]:
    """``deck`` sorted by the 64-bit little-endian keys of ``digest`` (8 bytes a card; equal
    keys keep deck order), and the card masks of the seats dealt from position 0 round the
    table (seat ``k`` gets positions ``k, k + 4, ...``).

    ``deck`` is :func:`~gongzhu.cards.full_deck`: position ``i`` holds card ``i // copies``;
    a second copy of a card goes to bit ``52 + index``.  The C accelerator's
    ``shuffle_deck`` does the same (the tests compare them).
    """
    if len(digest) != 8 * len(deck):
        raise ValueError("shuffle_deck: the digest must hold 8 bytes per card")
    if sys.byteorder == "little":
        keys = memoryview(digest).cast("Q").tolist()
    else:  # the keys are little-endian on every platform
        keys = list(struct.unpack(f"<{len(deck)}Q", digest))
    positions = sorted(range(len(deck)), key=keys.__getitem__)
    copies = len(deck) // 52
    indices = positions if copies == 1 else [position // copies for position in positions]
    return itemgetter(*positions)(deck), dealt_masks(indices)


def dealt_masks(indices: Sequence[int], first_seat: int = 0) -> list[int]:
    """Each seat's card mask, the cards (by index) dealt in this order round the table:
    the ``k``-th to seat ``(first_seat + k) % 4``, a second copy of a card at bit
    ``52 + index``."""
    masks = [0, 0, 0, 0]
    if len(indices) == 52:
        for k in range(SEATS):
            masks[(first_seat + k) & 3] = sum(map(_BITS.__getitem__, indices[k::SEATS]))
        return masks
    for k in range(SEATS):
        mask = 0
        for bit in map(_BITS.__getitem__, indices[k::SEATS]):
            mask |= bit << 52 if mask & bit else bit  # a second copy at bit 52 + index
        masks[(first_seat + k) & 3] = mask
    return masks


_BITS: Final = tuple(1 << i for i in range(52))


_shuffle: Final[Callable[[bytes, tuple[Card, ...]], tuple[Any, Any]]] = (
    getattr(accelerator("_speedups"), "shuffle_deck", None) or _shuffle_deck
)
