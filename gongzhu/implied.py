"""What the rules imply: the one place the layers above the engine ask.

A bot, an encoder or an environment needs facts that follow from a ruleset
and what a seat has seen: who is winning the trick under way, what a card is
worth to whoever takes it, what each seat has taken, which cards each seat
cannot hold, and deals that agree with a view.  Each is answered here, from
the compiled ruleset (:class:`~gongzhu.rules.Rules`) and the engines' and the
scorer's own rules, never restated:

- :func:`trick_winner`: the seat whose play wins a trick so far, pairs
  included, by :func:`gongzhu.engines.base.winning_position`, the function
  the Python engines finish every trick with (the C engines are held equal
  to them by the twin tests);
- :func:`card_values`: each card's worth to its taker given the shows, by
  :meth:`Scorer.card_values <gongzhu.scoring.Scorer.card_values>` (held
  equal to the scorer's raw scores on every shipped ruleset);
- :func:`taken_cards`: what each seat has taken, as the engines file it
  (every card of a trick to its taker);
- :func:`voids`, :func:`no_pairs`, :func:`unpairable`, :func:`locking_kinds`
  and :func:`knowledge`: what a view fixes about the hidden cards;
- :func:`sample_holdings`, :func:`sample_deal`, :func:`determinize` and
  :class:`Determinizer`: hidden cards dealt at random, consistently with a
  view, for determinised search and OpenSpiel's resampling.

>>> import gongzhu
>>> from gongzhu import implied
>>> rules = gongzhu.load_rules("two-deck")
>>> pair = gongzhu.Play.parse("9S 9S").key
>>> implied.trick_winner(rules, 2, [pair, gongzhu.Play.parse("TS JS").key])
3
>>> implied.trick_winner(rules, 2, [pair, gongzhu.Play.parse("AS 3H").key])  # not all ♠
2
"""

from __future__ import annotations

import functools
import operator
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Final, NamedTuple, Protocol, TypeAlias, cast

import attrs

from ._accel import accelerator
from .actions import PLAY_KEYS, Play, Show, ShowKind, cards_of_key, key_of_play
from .cards import Card, Suit, full_deck
from .deal import SEATS, Deal, put_first
from .engines.base import winning_position
from .errors import GongzhuError, IllegalAction, InvalidHoldings
from .hand import HandState
from .masks import (
    SECOND_COPY,
    SUIT_MASKS,
    CardMask,
    add_copies,
    mask_of,
    subtract_copies,
)
from .play import Capability, HandEngine
from .scoring import Scorer, ShowRecord, show_record
from .showphase import ShowPhase
from .view import Phase, SeatView, Trick

if TYPE_CHECKING:
    from .play import LegalKeysEngine, RedealEngine
    from .rules import Rules

__all__ = [
    "DealReading",
    "DealSource",
    "Determinizer",
    "Inconsistent",
    "Knowledge",
    "SampleWeights",
    "SampledEngine",
    "VoidReader",
    "card_values",
    "determinize",
    "knowledge",
    "locking_kinds",
    "no_pairs",
    "sample_deal",
    "sample_holdings",
    "shown_records",
    "start_of_play",
    "taken_cards",
    "trick_winner",
    "unpairable",
    "unshown_plays",
    "voids",
]


# -- the trick, values, what was taken ------------------------------------------------------


def trick_winner(rules: Rules, leader: int, keys: Sequence[int]) -> int:
    """The seat whose play wins the trick so far.

    :param rules: the ruleset (whether pairs outrank unmatched plays).
    :param leader: the seat that led the trick.
    :param keys: the trick's play keys so far, the lead first
        (:attr:`Play.key <gongzhu.actions.Play.key>`; one at least).
    :raises ValueError: no play yet.
    """
    if not keys:
        raise ValueError("a trick with no play has no winner")
    position = winning_position(keys, rules.play_config.pair_beats_unmatched)
    return (leader + position) % SEATS


def shown_records(view: SeatView) -> tuple[ShowRecord, ...]:
    """The shows ``view`` sees, a record per shown card (another seat's secret sale,
    whose cards the viewer does not see, has none), in the order shown."""
    return tuple(
        show_record(show.seat, card, show.kind) for show in view.shows for card in show.cards or ()
    )


def card_values(rules: Rules, shows: Iterable[ShowRecord] | SeatView = ()) -> tuple[int, ...]:
    """Each card's worth to whoever takes it, by card index, given the shows.

    The scorer's own values (:meth:`Scorer.card_values
    <gongzhu.scoring.Scorer.card_values>`): a shown card's factors multiply
    (with two decks, the 104 entries number each card's copies as the scorer
    does); the transformer, a multiplier, counts 0.

    :param shows: the shows, as :class:`~gongzhu.scoring.ShowRecord` objects,
        or a seat's view (the shows it sees: :func:`shown_records`).

    >>> import gongzhu
    >>> from gongzhu.scoring import show_record
    >>> rules = gongzhu.load_rules()
    >>> pig = gongzhu.Card.parse("QS")
    >>> shown = [show_record(0, pig, gongzhu.ShowKind.OPEN)]
    >>> card_values(rules)[pig.index], card_values(rules, shown)[pig.index]
    (-100, -200)
    """
    records = shown_records(shows) if isinstance(shows, SeatView) else tuple(shows)
    return _card_values(rules.scorer, records)


@functools.lru_cache(maxsize=256)
def _card_values(scorer: Scorer, records: tuple[ShowRecord, ...]) -> tuple[int, ...]:
    return scorer.card_values(records)


def taken_cards(tricks: Iterable[Trick]) -> tuple[tuple[Card, ...], ...]:
    """Each seat's taken cards after ``tricks``: every card of a trick goes to its
    :attr:`~gongzhu.view.Trick.taker` (the winner, or a discard penalty's offender),
    as the engines file them (:attr:`HandEngine.taken <gongzhu.play.HandEngine.taken>`)."""
    taken: list[list[Card]] = [[] for _ in range(SEATS)]
    for trick in tricks:
        taken[trick.taker].extend(trick.cards)
    return tuple(tuple(cards) for cards in taken)


@functools.lru_cache(maxsize=64)
def _locking_kinds(shows: ShowPhase) -> frozenset[ShowKind]:
    return frozenset(choice.show.kind for choice in shows.choices if choice.locks)


def locking_kinds(rules: Rules) -> frozenset[ShowKind]:
    """The show kinds whose cards the shown-card lock binds, as the compiled show phase
    says (:attr:`ShowChoice.locks <gongzhu.showphase.ShowChoice.locks>`); empty without
    a lock."""
    return _locking_kinds(rules.show_phase)


class SampleWeights(Protocol):
    """Soft facts that weight sampled deals (:class:`gongzhu.bots.sampler.Inference` is
    one): for each card the play argues about, a factor per seat."""

    @property
    def factors(self) -> Mapping[Card, Sequence[float]]:
        """Card -> a factor for each seat (1: nothing is inferred)."""


class DealSource(Protocol):
    """Where a :class:`DealReading` draws its candidate deals: a :class:`Determinizer`'s dealer
    of the hidden cards."""

    def deal(self, rng: random.Random) -> list[CardMask] | None:
        """Each seat's hidden holding in one dealt deal (card masks), or ``None`` (a dead
        end)."""

    @property
    def native(self) -> object | None:
        """The dealer's C twin (``SampleDealer``), which deals the same deals draw for draw,
        or ``None`` where there is none."""


class DealReading(Protocol):
    """What the play says of whole sampled deals (:class:`gongzhu.bots.sampler.PlayReading` is
    one): each re-dealt sample of a :class:`Determinizer` is the deal it draws."""

    def draw(self, dealer: DealSource, rng: random.Random) -> list[CardMask] | None:
        """One deal of ``dealer``'s, drawn by the reading (``None``: none found)."""


# -- the hidden cards -------------------------------------------------------------------------


class Inconsistent(GongzhuError):
    """No deal agrees with the view (the view was not made by a real hand), or none was found."""


@functools.cache
def _key_tables() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Per play key: the suits of its cards (bits, ``1 << suit``), the suit of its first
    card, and its cards' first-copy bits (a card mask)."""
    suits, first, cards_mask = [], [], []
    for key in range(PLAY_KEYS):
        bits = mask = 0
        cards = cards_of_key(key)
        for card in cards:
            bits |= 1 << card // 13  # (two cards of one suit: one bit)
            mask |= 1 << card
        suits.append(bits)
        first.append(cards[0] // 13)
        cards_mask.append(mask)
    return tuple(suits), tuple(first), tuple(cards_mask)


@functools.lru_cache(maxsize=64)
def _void_rules(
    rules: Rules | None,
) -> tuple[frozenset[ShowKind], tuple[int, ...], bool, bool]:
    """What a :class:`VoidReader` reads of a ruleset, worked out once: the show kinds whose
    cards the lock binds in the first trick of their suit (one deck), the discard rule's
    preferred suits by led suit (bits), whether it is strict, whether its first offender
    takes the points."""
    lock = rules.shown_card_lock if rules is not None else None
    kinds: frozenset[ShowKind] = frozenset()
    if rules is not None and lock is not None and lock.first_trick and rules.table.copies == 1:
        kinds = locking_kinds(rules)
    rule = rules.discard_rule if rules is not None else None
    preferred = [0] * 4
    if rule is not None:
        for led, suits in rule.preferred.items():
            preferred[int(led)] = sum(1 << int(suit) for suit in suits)
    return (
        kinds,
        tuple(preferred),
        rule is not None and rule.strict,
        rule is None or rule.offender == "first",
    )


class VoidReader:
    """The suits each seat is known to hold none of, read from a hand's play a play at a
    time: the rules :func:`voids` folds over a view, for an encoder that follows a hand
    as it is played (:class:`gongzhu.envs.fast.HandEncoder`).

    Feed it the shows the lock binds (:meth:`show`), every play in order
    (:meth:`play`) and every finished trick (:meth:`finish`); it answers what each
    reveals.  A lead, and a play wholly in the led suit, reveal nothing and
    change nothing unless the seat has cards bound (:attr:`locked`,
    :attr:`private_locked`) and the suit was not led before (:attr:`led`): a
    caller that follows many plays may leave those out.  Suits are bits, ``1 << suit``, a
    suit's number being its cards' ``index // 13`` (♠ ♥ ♦ ♣).

    - A seat that plays any card off the led suit has none of it left (it
      must follow as far as it can).
    - A shown card the lock binds (:class:`~gongzhu.plugin.ShownCardLock` with
      ``first_trick``, one deck) played in the first trick of its suit was its
      holder's only card of that suit.  The lock on a secret sale's cards is
      known to the seller alone, and so is what it reveals (:attr:`private`).
    - A discard outside the preferred suits of a discard rule
      (:class:`~gongzhu.plugin.DiscardRule`) shows that a seat that drew no
      penalty, or any such seat under a strict rule, had none of them.

    :param rules: the ruleset (its lock and discard rule); ``None``: neither.
    :ivar void: per seat, the suits every seat knows it holds none of.
    :ivar private: per seat, the suits only that seat knows it holds none of.
    :ivar suits_of_key: per play key, the suits of its cards (bits).
    """

    __slots__ = (
        "_first",
        "_lock_kinds",
        "_mask_of_key",
        "_offenders",
        "_preferred",
        "_strict",
        "_suit_of_key",
        "bound",
        "led",
        "locked",
        "private",
        "private_locked",
        "suits_of_key",
        "void",
    )

    def __init__(self, rules: Rules | None = None) -> None:
        self._lock_kinds, self._preferred, self._strict, self._first = _void_rules(rules)
        self._offenders: list[int] = []
        self.suits_of_key, self._suit_of_key, self._mask_of_key = _key_tables()
        self.void = [0] * SEATS
        self.private = [0] * SEATS
        self.locked = [0] * SEATS
        """Per seat, the card mask of its shown cards the lock binds (known to all)."""
        self.private_locked = [0] * SEATS
        """Per seat, the same for the cards of its secret sales (known to it alone)."""
        self.led = 0
        """The suits led in the finished tricks (bits)."""
        self.bound = False
        """Whether a show bound cards (then a play on the led suit can reveal a void)."""

    def copy(self) -> VoidReader:
        """An independent copy, to follow a copy of the hand."""
        new = object.__new__(VoidReader)
        for name in VoidReader.__slots__:
            value = getattr(self, name)
            setattr(new, name, value[:] if isinstance(value, list) else value)
        return new

    @property
    def binds(self) -> bool:
        """Whether a show can bind cards (a lock that reveals voids is in force)."""
        return bool(self._lock_kinds)

    @property
    def reading(self) -> tuple[frozenset[ShowKind], tuple[int, ...], bool, bool]:
        """What the reader reads of its ruleset: the show kinds whose cards the lock binds,
        the discard rule's preferred suits by led suit (bits), whether it is strict, whether
        its first offender takes the points (for a twin of the reader, such as the batch's
        observations in C: :class:`gongzhu.batch.ObservationTable`)."""
        return self._lock_kinds, self._preferred, self._strict, self._first

    def show(
        self, seat: int, kind: ShowKind, cards: Iterable[Card], *, forced: bool = False
    ) -> None:
        """``seat`` showed ``cards`` (``forced``: an automatic show)."""
        if kind not in self._lock_kinds:
            return
        bits = sum(1 << card.index for card in cards)
        self.bound = self.bound or bool(bits)
        if kind is ShowKind.SECRET and not forced:
            self.private_locked[seat] |= bits
        else:
            self.locked[seat] |= bits

    def play(self, seat: int, position: int, key: int, lead_key: int) -> tuple[int, int]:
        """``seat`` played ``key`` at ``position`` (0: the lead) of a trick led by
        ``lead_key``: the suits it newly shows the seat holds none of, known to all
        and known to the seat alone."""
        led = self._suit_of_key[lead_key]
        bit = 1 << led
        public = private = 0
        suits = self.suits_of_key[key]
        if position and suits & ~bit:
            public = bit
            preferred = self._preferred[led]
            if preferred and suits & ~preferred & ~bit:
                if self._strict:
                    public |= preferred
                else:
                    self._offenders.append(seat)
        if (self.locked[seat] or self.private_locked[seat]) and not self.led & bit:
            led_cards = self._mask_of_key[key] & SUIT_MASKS[led]
            if self.locked[seat] & led_cards:
                public |= bit
            elif self.private_locked[seat] & led_cards:
                private = bit
        public &= ~self.void[seat]
        self.void[seat] |= public
        private &= ~(self.void[seat] | self.private[seat])
        self.private[seat] |= private
        return public, private

    def finish(self, lead_key: int, winner: int, taker: int) -> list[tuple[int, int]]:
        """A trick led by ``lead_key`` is over: ``(seat, suits)`` for each seat it newly
        shows holds none of the suits (a discard rule's innocent offenders)."""
        led = self._suit_of_key[lead_key]
        self.led |= 1 << led
        offenders = self._offenders
        if not offenders:
            return []
        self._offenders = []
        if taker == winner:
            innocent = offenders  # no penalty: none of them held a preferred card
        elif taker in offenders:
            at = offenders.index(taker)
            innocent = offenders[:at] if self._first else offenders[at + 1 :]
        else:
            innocent = []
        out = []
        preferred = self._preferred[led]
        for seat in innocent:
            new = preferred & ~self.void[seat]
            if new:
                self.void[seat] |= new
                out.append((seat, new))
        return out


def voids(view: SeatView, rules: Rules) -> tuple[frozenset[Suit], ...]:
    """The suits each seat is known to hold none of now, as ``view`` shows them: the
    play so far read by a :class:`VoidReader` (see there for the rules).

    :param rules: the ruleset being played (its shown-card lock and discard rule).
    """
    last = _LAST_VOIDS[0]
    if last is not None and last[0] is view and last[1] is rules:
        return last[2]  # (a bot asks again of the view it decides on)
    reader = VoidReader(rules)
    if reader.binds:
        for show in view.shows:
            if show.cards:
                reader.show(show.seat, show.kind, show.cards, forced=show.forced)
    for trick in view.tricks:
        reader.finish(_read_plays(reader, trick.plays), trick.winner, trick.taker)
    if view.current_trick:
        _read_plays(reader, view.current_trick)
    seat = view.seat
    bits = reader.void[:]
    bits[seat] |= reader.private[seat]
    found = tuple(_SUITS_OF_BITS[mask] for mask in bits)
    _LAST_VOIDS[0] = (view, rules, found)  # one reference, replaced whole (threads)
    return found


_SUITS_OF_BITS: Final = tuple(
    frozenset(suit for suit in Suit if mask >> int(suit) & 1) for mask in range(16)
)
"""The suits of each 4-bit mask of suits."""

_LAST_VOIDS: list[tuple[SeatView, Rules | None, tuple[frozenset[Suit], ...]] | None] = [None]
"""The last view :func:`voids` read, its ruleset and its answer."""


def _read_plays(reader: VoidReader, plays: Sequence[tuple[int, tuple[Card, ...]]]) -> int:
    """A trick's plays read, in order, leaving out those that reveal nothing (as
    :class:`VoidReader` allows); the lead's key."""
    lead_cards = plays[0][1]
    lead = key_of_play(lead_cards)
    led = lead_cards[0].suit
    locked, private = reader.locked, reader.private_locked
    first_of_suit = not reader.led >> int(led) & 1
    for position, (who, cards) in enumerate(plays):
        if (position and any(card.suit is not led for card in cards)) or (
            first_of_suit and (locked[who] or private[who])
        ):
            reader.play(who, position, key_of_play(cards), lead)
    return lead


def _all_tricks(view: SeatView) -> list[tuple[tuple[int, tuple[Card, ...]], ...]]:
    """The plays of every trick ``view`` shows, the one under way last."""
    tricks = [t.plays for t in view.tricks]
    if view.current_trick:
        tricks.append(view.current_trick)
    return tricks


def _unmatched_under_pairs(
    plays: tuple[tuple[int, tuple[Card, ...]], ...],
) -> list[tuple[int, Suit]]:
    """After a pair lead, ``(seat, led suit)`` for each seat that followed it with two
    unmatched cards of that suit (it held no pair of it); after another lead, none."""
    lead = plays[0][1]
    if len(lead) != 2 or lead[0] != lead[1]:
        return []
    led = lead[0].suit
    return [
        (seat, led)
        for seat, cards in plays[1:]
        if len(cards) == 2 and cards[0] != cards[1] and all(c.suit is led for c in cards)
    ]


def no_pairs(view: SeatView) -> tuple[frozenset[Suit], ...]:
    """Two decks: the suits in which each seat holds no pair (it followed a pair unmatched)."""
    found: list[set[Suit]] = [set() for _ in range(SEATS)]
    for plays in _all_tricks(view):
        for seat, led in _unmatched_under_pairs(plays):
            found[seat].add(led)
    return tuple(frozenset(v) for v in found)


def unpairable(view: SeatView) -> tuple[frozenset[Card], ...]:
    """Two decks: the cards of which each seat can hold no second copy now.

    A seat that followed a pair lead with two unmatched cards of the led suit
    held no pair of that suit then (:func:`no_pairs`): no card of the suit it
    has played since, that trick's included, had its twin in the seat's hand,
    so the twin of each is elsewhere.
    """
    found: list[set[Card]] = [set() for _ in range(SEATS)]
    since: list[set[Suit]] = [set() for _ in range(SEATS)]
    for plays in _all_tricks(view):
        for seat, led in _unmatched_under_pairs(plays):
            since[seat].add(led)
        for seat, cards in plays:
            found[seat].update(c for c in cards if c.suit in since[seat])
    return tuple(frozenset(cards) for cards in found)


def unshown_plays(view: SeatView, rules: Rules) -> tuple[tuple[Card, ...], ...]:
    """Two decks: each seat's plays of a card it showed that the lock proves were the other
    copy, so the shown copy is still in its hand.

    A seat that showed one copy of a card, and only one, the lock binds in the first trick
    of its suit (:class:`~gongzhu.plugin.ShownCardLock` with ``first_trick``) and played a
    copy of it in that trick played the shown one only if it was its only card of the suit
    (two copies count as two cards); one that played another card of the suit after that
    trick was not so, and played the unshown copy.  (A seat that showed both copies, one
    of them by a show the lock does not bind, such as 首明, played a shown one either
    way; one whose other cards of the suit were locked too, where a plug-in makes two
    cards of a suit showable, may have had the lock lifted.)  One deck, or another lock:
    none.
    """
    found: list[list[Card]] = [[] for _ in range(SEATS)]
    lock = rules.shown_card_lock
    if rules.table.copies != 2 or lock is None or not lock.first_trick or lock.stuck != "play":
        return tuple(tuple(cards) for cards in found)
    kinds = locking_kinds(rules)
    bound: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    shown: list[Counter[Card]] = [Counter() for _ in range(SEATS)]
    for show in view.shows:
        if show.cards:
            shown[show.seat].update(show.cards)
            if show.kind in kinds:
                bound[show.seat].update(show.cards)
    if any(bound):
        tricks = _all_tricks(view)
        led: set[Suit] = set()
        for at, plays in enumerate(tricks):
            suit = plays[0][1][0].suit
            if suit in led:
                continue
            led.add(suit)
            for who, cards in plays:
                for card in set(cards):
                    if (
                        card.suit is suit
                        and bound[who][card] == 1
                        and shown[who][card] == 1  # (both shown: it played a shown one)
                        and sum(n for c, n in bound[who].items() if c.suit is suit) == 1
                        and cards.count(card) == 1
                        and any(
                            c.suit is suit
                            for later in tricks[at + 1 :]
                            for seat, played in later
                            if seat == who
                            for c in played
                        )
                    ):
                        found[who].append(card)
    return tuple(tuple(cards) for cards in found)


@attrs.frozen
class Knowledge:
    """What a view fixes about the hidden cards (computed by :func:`knowledge`).

    :ivar copies: decks in play (1 or 2).
    :ivar played: each seat's cards played so far (tricks and the trick under way).
    :ivar known: cards each seat is known to hold now (the viewer: its holding;
        the others: shown cards not yet played).
    :ivar sizes: how many cards each seat holds now.
    :ivar pool: the cards no seat is known to hold, to be dealt.
    :ivar voids: the suits each seat holds none of.
    :ivar no_pairs: the suits in which each seat holds no pair (two decks).
    :ivar unpairable: the cards of which each seat holds no second copy (two
        decks, :func:`unpairable`).
    :ivar secret_need: for each seat, how many showable cards from the pool it
        must hold to have made its secret sales.
    :ivar secret_count: for each seat, the number of cards of its hidden secret sales.
    :ivar showable: the showable cards of the ruleset.
    :ivar hidden_showable_ok: whether a seat may hold an unshown, unsold showable
        card (``False`` once the automatic fourth show has revealed them all).
    """

    copies: int
    played: tuple[tuple[Card, ...], ...]
    known: tuple[tuple[Card, ...], ...]
    sizes: tuple[int, ...]
    pool: tuple[Card, ...]
    voids: tuple[frozenset[Suit], ...]
    no_pairs: tuple[frozenset[Suit], ...]
    secret_need: tuple[int, ...]
    secret_count: tuple[int, ...]
    showable: frozenset[Card]
    hidden_showable_ok: bool
    unpairable: tuple[frozenset[Card], ...] = (frozenset(),) * SEATS


def _minus(cards: Iterable[Card], remove: Iterable[Card]) -> list[Card]:
    """The multiset ``cards`` less ``remove`` (each removed card once)."""
    if isinstance(remove, Sized) and not len(remove):
        return list(cards)
    left = Counter(remove)
    out = []
    for card in cards:
        if left[card]:
            left[card] -= 1
        else:
            out.append(card)
    return out


def knowledge(view: SeatView, rules: Rules) -> Knowledge:
    """Everything ``view`` fixes about the hidden cards.

    :param rules: the ruleset being played (its decks, showable cards, lock and
        discard rule: a view alone does not say them).
    :raises Inconsistent: the view's cards do not add up to a deck.
    """
    seat = view.seat
    played: list[list[Card]] = [[] for _ in range(SEATS)]
    for trick in view.tricks:
        for who, cards in trick.plays:
            played[who].extend(cards)
    for who, cards in view.current_trick:
        played[who].extend(cards)
    first_show = view.phase is Phase.FIRST_SHOW
    copies = rules.table.copies
    showable = frozenset(rules.table.showable)
    full = 13 * copies
    sizes = tuple(full for _ in range(SEATS)) if first_show else tuple(view.holding_sizes)
    known: list[list[Card]] = [[] for _ in range(SEATS)]
    known[seat] = list(view.holding)
    shown_by: list[list[Card]] = [[] for _ in range(SEATS)]
    secret_count = [0] * SEATS
    for show in view.shows:
        if show.cards is None:
            secret_count[show.seat] += show.count
        else:
            shown_by[show.seat].extend(show.cards)
    unshown = unshown_plays(view, rules)
    for who in range(SEATS):
        if who != seat:  # (a copy the lock proves was not the shown one leaves that one held)
            known[who] = _minus(shown_by[who], _minus(played[who], unshown[who]))
    secret_need = [0] * SEATS
    for who in range(SEATS):
        if secret_count[who]:
            candidates = [c for c in _minus(played[who], shown_by[who]) if c in showable]
            secret_need[who] = max(0, secret_count[who] - len(candidates))
    seen = [card for cards in known for card in cards] + [c for p in played for c in p]
    if copies == 1:  # _minus by card bits: the same cards in the same order, faster
        gone = 0
        for card in seen:
            gone |= 1 << card.index
        pool = [card for card in full_deck(1) if not gone >> card.index & 1]
    else:  # each card twice in a row, less its copies seen: _minus's order, by counts
        count = [0] * 52
        for card in seen:
            count[card.index] += 1
        pool = [card for card in full_deck(1) for _ in range(2 - count[card.index])]
    if len(pool) + len(seen) != 52 * copies:
        raise Inconsistent("the view's cards are not one deck")
    if sum(sizes) - sum(map(len, known)) != len(pool):
        raise Inconsistent(
            f"the view's holding sizes {sizes} do not match the {len(pool)} unseen cards"
        )
    hidden_ok = not any(show.forced for show in view.shows)
    return Knowledge(
        copies=copies,
        played=tuple(tuple(p) for p in played),
        known=tuple(tuple(k) for k in known),
        sizes=sizes,
        pool=tuple(pool),
        voids=voids(view, rules),
        no_pairs=no_pairs(view),
        secret_need=tuple(secret_need),
        secret_count=tuple(secret_count),
        showable=showable,
        hidden_showable_ok=hidden_ok,
        unpairable=unpairable(view) if copies == 2 else (frozenset(),) * SEATS,
    )


def _deal_pool(facts: Knowledge, rng: random.Random) -> list[list[Card]] | None:
    """One random assignment of the pool to the seats' free places, or ``None`` (dead end)."""
    holdings = [list(k) for k in facts.known]
    room = [size - len(k) for size, k in zip(facts.sizes, facts.known, strict=True)]
    draw = rng.random
    pool = sorted(facts.pool, key=lambda _card: draw())  # a random order, cheaper than shuffle
    showable = facts.showable
    # secret sales first: each seller gets the showable cards it needs
    for who, need in enumerate(facts.secret_need):
        for _ in range(need):
            options = [
                i
                for i, c in enumerate(pool)
                if c in showable and c.suit not in facts.voids[who] and room[who] > 0
            ]
            if not options:
                return None
            card = pool.pop(rng.choice(options))
            holdings[who].append(card)
            room[who] -= 1
    sellers = [who for who in range(SEATS) if facts.secret_count[who]]
    by_suit = {
        suit: [s for s in range(SEATS) if suit not in facts.voids[s] and room[s] > 0]
        for suit in Suit
    }
    pairs_checked = any(facts.no_pairs)
    showable_checked = not facts.hidden_showable_ok
    # most constrained suits first (the pool is shuffled, so at random within a suit);
    # each card to a seat with room, weighted by the room left: a uniform deal if unconstrained
    free: list[Card] = []
    if not pairs_checked and not showable_checked:
        # the cards any seat with room may hold go last, in their shuffled order, into
        # the room left: the same uniform fill as card by card, without a draw per card
        anyone = [s for s in range(SEATS) if room[s] > 0]
        open_suits = {suit for suit, seats in by_suit.items() if seats == anyone}
        if open_suits:
            free = [card for card in pool if card.suit in open_suits]
            pool = [card for card in pool if card.suit not in open_suits]
    if len(pool) > 1:
        pool.sort(key=lambda card: len(by_suit[card.suit]))
    for card in pool:
        seats = [s for s in by_suit[card.suit] if room[s] > 0]
        if pairs_checked:
            seats = [
                s
                for s in seats
                if not (
                    card.suit in facts.no_pairs[s]
                    and (card in holdings[s] or card in facts.unpairable[s])
                )
            ]
        if showable_checked and card in showable:
            seats = [s for s in seats if s in sellers]
        if not seats:
            return None
        if len(seats) == 1:
            s = seats[0]
        else:
            pick = rng.randrange(sum(room[s] for s in seats))
            for s in seats:
                pick -= room[s]
                if pick < 0:
                    break
        holdings[s].append(card)
        room[s] -= 1
    start = 0
    for s in range(SEATS):
        if room[s]:
            holdings[s].extend(free[start : start + room[s]])
            start += room[s]
    return holdings


_LevelCard: TypeAlias = "tuple[int, tuple[int, ...]] | tuple[int, tuple[int, ...], int, int]"
"""A constrained card of :class:`_MaskDealer`: its bit and the seats that may take it, and
for a guarded suit its index and the seats of the guard (bits)."""


class _MaskDealer:
    """:func:`_deal_pool` straight into card masks, for the common case: no secret sale by
    another seat and no showable card whose holder is fixed by an auto-show.

    With two decks each copy of a card in the pool is dealt as a bit of its own (the
    first copy's bit, or the second's where the first is taken), and each seat's mask is
    then put in the form every mask has (:mod:`gongzhu.masks`: a second copy only with
    the first).  A suit in which some seat holds no pair (:attr:`Knowledge.no_pairs`) is
    guarded: its cards are dealt one by one with the constrained cards, never a second
    copy to such a seat, nor a copy of a card it cannot pair (:attr:`Knowledge.unpairable`),
    and without the inference's weights.

    What does not depend on the sample (each seat's known cards and room, which
    seats may take each suit) is worked out once per view; :meth:`deal` then
    deals the constrained cards one by one, most constrained first, each to a
    seat with room weighted by its room, and the cards any seat may hold, in a
    random order, into the room left (the same draws of chance as
    :func:`_deal_pool`, not the same draws of ``rng``).
    """

    def __init__(self, facts: Knowledge, inference: SampleWeights | None = None) -> None:
        self.known = [mask_of(cards) for cards in facts.known]
        self.copies = facts.copies
        taken = functools.reduce(operator.or_, self.known, 0)
        room = [size - len(k) for size, k in zip(facts.sizes, facts.known, strict=True)]
        self.room = room
        anyone = tuple(s for s in range(SEATS) if room[s] > 0)
        by_suit = {suit: tuple(s for s in anyone if suit not in facts.voids[s]) for suit in Suit}
        levels: dict[int, list[_LevelCard]] = {}
        weighted: list[tuple[int, tuple[int, ...], Sequence[float]]] = []
        inferred = inference.factors if inference is not None else {}
        free = []
        for card in facts.pool:
            seats = by_suit[card.suit]
            bit = card.bit
            if taken & bit:  # with two decks: its first copy's bit is another copy's
                bit <<= SECOND_COPY
            taken |= bit
            guards = [s for s in seats if card.suit in facts.no_pairs[s]]
            if guards:  # no seat of `guards` may take a second copy, nor one it cannot pair
                barred = {
                    s for s in guards if card in facts.unpairable[s] or card in facts.known[s]
                }
                seats = tuple(s for s in seats if s not in barred)
                guard = sum(1 << s for s in guards if s not in barred)
                levels.setdefault(len(seats), []).append((bit, seats, card.index, guard))
                continue
            factors = inferred.get(card)
            if factors is not None and len(seats) > 1 and len({factors[s] for s in seats}) > 1:
                weighted.append((bit, seats, factors))
            elif seats == anyone:
                free.append(bit)
            else:
                levels.setdefault(len(seats), []).append((bit, seats))
        self.weighted = sorted(weighted, key=lambda entry: len(entry[1]))
        self.levels = [levels[n] for n in sorted(levels)]
        self.free = free
        speedups = accelerator("_speedups")
        self._in_c = None
        if speedups is not None:  # the same deals, draw for draw, in C
            self._in_c = speedups.SampleDealer(
                self.known,
                self.room,
                tuple(
                    (bit, seats, tuple(map(float, factors)))
                    for bit, seats, factors in self.weighted
                ),
                tuple(tuple(level) for level in self.levels),
                tuple(self.free),
                copies=self.copies,
            )

    @property
    def native(self) -> object | None:
        """The C twin that deals (``SampleDealer``), or ``None`` (Python deals)."""
        return self._in_c

    @classmethod
    def of(cls, facts: Knowledge, inference: SampleWeights | None = None) -> _MaskDealer | None:
        """A dealer for ``facts``, or ``None`` where :func:`_deal_pool` must deal."""
        if any(facts.secret_count) or any(facts.secret_need):
            return None
        if not facts.hidden_showable_ok and any(c in facts.showable for c in facts.pool):
            return None
        return cls(facts, inference)

    def deal(self, rng: random.Random) -> list[CardMask] | None:
        """Each seat's card mask in one sample, or ``None`` (a dead end).

        The cards the weights (``inference``) favour go first, each to a seat with
        room weighted by its room times its factor.  With the C engines built, the C
        twin deals (``SampleDealer``: the same draws, the same deal).
        """
        if self._in_c is not None:
            return cast("list[CardMask] | None", self._in_c.deal(rng.random))
        return self.deal_in_python(rng)

    def deal_in_python(self, rng: random.Random) -> list[CardMask] | None:
        """:meth:`deal` in Python: the reference the C twin is held to."""
        masks = self.known[:]
        room = self.room[:]
        draw = rng.random
        for bit, seats, factors in self.weighted:
            open_ = [s for s in seats if room[s]]
            if not open_:
                return None
            s = open_[0]
            if len(open_) > 1:
                target = draw() * sum(room[t] * factors[t] for t in open_)
                for s in open_:
                    target -= room[s] * factors[s]
                    if target < 0:
                        break
            masks[s] |= bit
            room[s] -= 1
        for level in self.levels:
            for bit, seats, *guarded in (
                sorted(level, key=lambda _entry: draw()) if len(level) > 1 else level
            ):
                open_ = [s for s in seats if room[s]]
                if guarded:  # not to a seat of the guard that has a copy already
                    index, guard = guarded
                    open_ = [
                        s
                        for s in open_
                        if not (
                            guard >> s & 1 and (masks[s] | masks[s] >> SECOND_COPY) >> index & 1
                        )
                    ]
                if not open_:
                    return None
                s = open_[0]
                if len(open_) > 1:
                    pick = int(draw() * sum(room[t] for t in open_))
                    for s in open_:
                        pick -= room[s]
                        if pick < 0:
                            break
                masks[s] |= bit
                room[s] -= 1
        free = sorted(self.free, key=lambda _bit: draw())
        start = 0
        for s in range(SEATS):
            if room[s]:
                end = start + room[s]
                masks[s] |= functools.reduce(operator.or_, free[start:end], 0)
                start = end
        if self.copies != 1:  # a copy dealt on the second copy's bit alone is a first copy
            masks = [add_copies(0, mask) for mask in masks]
        return masks


def sample_holdings(
    view: SeatView,
    rng: random.Random,
    *,
    rules: Rules,
    tries: int = 200,
    facts: Knowledge | None = None,
) -> tuple[tuple[Card, ...], ...]:
    """Each seat's current cards in one sample consistent with ``view`` (the viewer's own).

    In the 首明 phase the holdings are whole (the viewer knows only its first card).

    :raises Inconsistent: no consistent assignment was found in ``tries`` attempts.
    """
    facts = knowledge(view, rules) if facts is None else facts
    for _ in range(tries):
        holdings = _deal_pool(facts, rng)
        if holdings is not None:
            return tuple(tuple(sorted(h)) for h in holdings)
    raise Inconsistent(f"no deal consistent with seat {view.seat}'s view in {tries} tries")


def _first_cards(view: SeatView) -> dict[int, Card]:
    """The first dealt card of each seat that made a 首明 (and the viewer's, in that phase)."""
    firsts = {
        show.seat: show.cards[0]
        for show in view.shows
        if show.kind is ShowKind.FIRST and show.cards
    }
    if view.phase is Phase.FIRST_SHOW and view.holding:
        firsts[view.seat] = view.holding[0]
    return firsts


def _deal_of(
    dealt: Sequence[Sequence[Card]],
    firsts: dict[int, Card],
    showable: frozenset[Card],
    first_seat: int,
    lead_card: Card | None,
) -> Deal:
    """A :class:`Deal` of the ``dealt`` holdings: first-shown cards first, other showables last."""
    ordered = []
    # showable cards last, the lead card first among the rest, else in card order
    lead = -1 if lead_card is None else lead_card.index
    rank = [index + (200 if index != lead else 0) for index in range(52)]
    for card in showable:
        rank[card.index] += 400

    def key(card: Card) -> int:
        return rank[card.index]

    for who, cards in enumerate(dealt):
        rest = sorted(cards, key=key)  # (a seat without a 首明 card: an unshowable first)
        if not put_first(rest, firsts.get(who)):
            raise Inconsistent(f"seat {who}'s 首明 card is not among its sampled cards")
        ordered.append(rest)
    size = len(ordered[0])
    if any(len(h) != size for h in ordered):
        raise Inconsistent("the sampled holdings are not of equal size")
    order = tuple(ordered[(first_seat + k) % SEATS][k // SEATS] for k in range(SEATS * size))
    return Deal.unchecked(order, first_seat)  # a permutation of the deck(s) by construction


def _first_seat(view: SeatView, leader: int) -> int:
    """A first seat for a deal that agrees with ``view``: ``leader``, unless the order of
    the 首明 shows says otherwise.

    首明 asks the seats in dealing order from the deal's first seat, so the
    seats that made a 首明 show made it in that order; which seat was dealt
    first is public only so far.  The leader where that order allows it,
    else the first seat (from 0) that it allows.
    """
    firsts = [show.seat for show in view.shows if show.kind is ShowKind.FIRST]

    def fits(first: int) -> bool:
        places = [(seat - first) % SEATS for seat in firsts]
        return places == sorted(places)

    if fits(leader):
        return leader
    return next((first for first in range(SEATS) if fits(first)), leader)


def sample_deal(
    view: SeatView, rng: random.Random, *, rules: Rules, facts: Knowledge | None = None
) -> Deal:
    """A whole deal consistent with ``view``: the hidden cards dealt at random.

    Each seat is dealt its current cards (sampled) and the cards it has
    played; a seat's 首明 card is its first card.  The first seat of the deal
    is not public (see :func:`determinize` for what it is set to).

    :param rules: the ruleset being played (see :func:`knowledge`).
    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :raises Inconsistent: no consistent deal was found.
    """
    facts = knowledge(view, rules) if facts is None else facts
    holdings = sample_holdings(view, rng, rules=rules, facts=facts)
    leader = view.tricks[0].leader if view.tricks else view.leader
    if view.phase is Phase.FIRST_SHOW:
        dealt = [list(h) for h in holdings]
    else:
        dealt = [list(h) + list(p) for h, p in zip(holdings, facts.played, strict=True)]
    return _deal_of(dealt, _first_cards(view), facts.showable, _first_seat(view, leader), None)


def _replay(
    view: SeatView,
    rules: Rules,
    deal: Deal,
    leader: int | None,
    facts: Knowledge,
    rng: random.Random,
) -> HandState | None:
    """``deal`` with the view's public history applied, or ``None`` where it does not fit."""
    hand = rules.new_hand(deal=deal, leader=leader)
    pending = list(view.shows)
    try:
        while hand.phase is Phase.FIRST_SHOW or hand.phase is Phase.SHOW:
            seat = hand.to_move
            assert seat is not None
            if hand.phase is view.phase and seat == view.to_move:
                break  # the state is where the view is
            kind_first = hand.phase is Phase.FIRST_SHOW
            match = next(
                (
                    s
                    for s in pending
                    if s.seat == seat and (s.kind is ShowKind.FIRST) == kind_first and not s.forced
                ),
                None,
            )
            if match is None:
                hand.apply(Show((), ShowKind.FIRST if kind_first else ShowKind.OPEN))
                continue
            pending.remove(match)
            if match.cards is None:
                shown_already = [
                    c for s in view.shows if s.seat == seat and s.cards for c in s.cards
                ]
                candidates = [
                    c for c in _minus(hand.dealt(seat), shown_already) if c in facts.showable
                ]
                if len(candidates) < match.count:
                    return None
                cards = tuple(rng.sample(candidates, match.count))
            else:
                cards = match.cards
            hand.apply(Show(cards, match.kind))
        if view.phase is Phase.PLAY or view.phase is Phase.OVER:
            if hand.phase is not Phase.PLAY:
                return None
            for trick in view.tricks:
                for _seat, cards in trick.plays:
                    hand.apply(_play(cards))
            for _seat, cards in view.current_trick:
                hand.apply(_play(cards))
    except IllegalAction:
        return None
    return hand


def _play(cards: tuple[Card, ...]) -> Play:
    """The play of ``cards`` (interned for one card)."""
    return Play.of(cards[0]) if len(cards) == 1 else Play(cards)


def _agrees(view: SeatView, hand: HandState) -> bool:
    """Whether ``hand`` shows ``view.seat`` exactly ``view``."""
    return hand.view(view.seat) == view


@functools.lru_cache(maxsize=64)
def _lead_card(rules: Rules) -> Card | None:
    """The card the ruleset's opening lead names (♣2, ♠3...), if any (cached for the
    rulesets in use, as many as the registry keeps)."""
    return rules.opening_lead(Deal.shuffled(0, rules.table.copies)).card


def determinize(
    view: SeatView,
    rules: Rules,
    rng: random.Random,
    *,
    tries: int = 50,
    check: bool = True,
    facts: Knowledge | None = None,
) -> HandState:
    """A full hand state the seat cannot tell from the real one: a sample, history replayed.

    The hidden cards are dealt by :func:`sample_holdings`; the public history
    (shows and plays) is replayed on the sampled deal, which refutes samples
    that break a rule the real play kept.  The first seat of the sampled deal
    is the first trick's leader (the view does not say who was dealt first),
    unless the order of the 首明 shows, which are made in dealing order, says
    the deal began elsewhere; then the first seat that order allows.  The
    hand's leader is given explicitly, except before the first card when the
    ruleset's opening-lead rule picks the same seat from the sample, which
    keeps a forced opening lead (♣2) in force.  (Once a card is played the
    explicit leader costs nothing, and a hand whose leader was given, as in a
    match's later hands, is not refuted for a lead the rule would forbid.)

    :param check: also require ``state.view(view.seat) == view`` (the
        default; a search may skip it for speed, the replay having checked
        the cards).
    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :raises Inconsistent: no sample survived ``tries`` attempts.
    """
    facts = knowledge(view, rules) if facts is None else facts
    basis = _ReplayBasis.of(view, rules, facts)
    for _ in range(tries):
        holdings = _deal_pool(facts, rng)
        if holdings is None:
            continue
        if view.phase is Phase.FIRST_SHOW:
            return _first_show_state(view, rules, holdings, facts, basis, rng)
        state = _replayed_sample(view, rules, holdings, facts, basis, rng)
        if state is not None and (not check or _agrees(view, state)):
            return state
    raise Inconsistent(f"no sample agreed with seat {view.seat}'s view in {tries} tries")


def start_of_play(
    view: SeatView, rules: Rules, rng: random.Random, *, facts: Knowledge | None = None
) -> HandState:
    """A sampled hand as it stood when the play began: the view's shows made on a deal
    consistent with the view, no card played yet (for replaying the view's plays on other
    deals, as :class:`gongzhu.bots.sampler.PlayReading` does).

    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :raises Inconsistent: the view is not in the play phase, or no deal agreed with it.
    """
    if view.phase is not Phase.PLAY:
        raise Inconsistent(f"seat {view.seat}'s view is not in the play phase")
    facts = knowledge(view, rules) if facts is None else facts
    leader = view.tricks[0].leader if view.tricks else view.leader
    bare = attrs.evolve(view, tricks=(), current_trick=(), leader=leader)
    for _ in range(50):
        deal = sample_deal(view, rng, rules=rules, facts=facts)
        state = _replay(bare, rules, deal, leader, facts, rng)
        if state is not None and state.phase is Phase.PLAY:
            return state
    raise Inconsistent(f"no deal agreed with seat {view.seat}'s view in 50 tries")


@attrs.frozen
class _ReplayBasis:
    """What every replay of one view's samples shares (worked out once per view).

    :ivar leader: the first trick's leader.
    :ivar firsts: the first dealt card of each seat that made a 首明.
    :ivar lead_card: the card the ruleset's opening lead names, if any.
    :ivar played_any: whether a card has been played.
    :ivar first_seat: the sampled deal's first seat (:func:`_first_seat`).
    """

    leader: int
    firsts: dict[int, Card]
    lead_card: Card | None
    played_any: bool
    first_seat: int

    @classmethod
    def of(cls, view: SeatView, rules: Rules, facts: Knowledge) -> _ReplayBasis:
        leader = view.tricks[0].leader if view.tricks else view.leader
        return cls(
            leader,
            _first_cards(view),
            _lead_card(rules),
            any(facts.played),
            _first_seat(view, leader),
        )

    def explicit_leader(self, view: SeatView, rules: Rules, deal: Deal) -> int | None:
        """The leader to give a replay on ``deal``: ``None`` keeps the opening-lead rule.

        The rule stays in force only before the first card, and only when it
        picks the leader from the sampled deal.  A leader to move can tell
        more: its legal leads are the rule's one card exactly when the rule
        is in force (a leader named for a match's later hand leads freely,
        whatever it holds).
        """
        leader = self.leader
        if self.played_any or rules.opening_lead(deal).seat != leader:
            return leader
        if view.seat != leader or view.to_move != leader or view.phase is not Phase.PLAY:
            return None
        card = self.lead_card
        forced = card is not None and tuple(view.legal_actions) == (Play.of(card),)
        return None if forced else leader


def _replayed_sample(
    view: SeatView,
    rules: Rules,
    holdings: list[list[Card]],
    facts: Knowledge,
    basis: _ReplayBasis,
    rng: random.Random,
) -> HandState | None:
    """The view's history replayed on a deal of the sampled ``holdings``, or ``None`` (refuted)."""
    dealt = [h + list(p) for h, p in zip(holdings, facts.played, strict=True)]
    deal = _deal_of(dealt, basis.firsts, facts.showable, basis.first_seat, basis.lead_card)
    return _replay(view, rules, deal, basis.explicit_leader(view, rules, deal), facts, rng)


class SampledEngine(NamedTuple):
    """A sampled hand as its engine (see :meth:`Determinizer.sample_engine`)."""

    engine: HandEngine
    """The sample's engine, at the view's point of the hand (the caller's to change)."""
    dealt: tuple[CardMask, ...]
    """Each seat's dealt cards in the sample (what scoring stages such as 自得 read)."""


class Determinizer:
    """Many sampled states for one view, fast: :func:`determinize` without the replays.

    The first sample replays the public history on a sampled deal (as
    :func:`determinize` does); each later one deals the hidden cards afresh
    (:func:`sample_holdings`) into a copy of that state
    (:meth:`HandState.with_holdings <gongzhu.hand.HandState.with_holdings>`),
    which costs a small part of a replay.  The samples are drawn as
    :func:`determinize` draws them (``check=False``), and a sample the
    template cannot take is replayed.  The copies are used only where the
    sampler's knowledge is exact, which is where a replay never refutes a
    sample: in the play phase, without plug-in :class:`~gongzhu.play.PlayRule`
    objects, without another seat's secret sale (whose sold cards each
    replay picks) and, with two decks, without another seat's show the
    shown-card lock binds (which copy such a seat played first, the sampler
    follows only in part).  There, :meth:`sample_engine` checks each sample on the engine
    instead (:attr:`replays_plays`): dealt as the others, re-dealt into a copy of the
    hand at the start of its play, and the view's plays replayed, each checked legal.
    Elsewhere (a show phase included) every sample is replayed.

    :param view: the seat's view.
    :param rules: the ruleset being played.
    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :param tries: sampled deals tried per sample before giving up.
    :param inference: soft facts from the play (:func:`gongzhu.bots.sampler.infer`) that weight
        the re-dealt samples of :meth:`sample_engine` (one deck); the replayed
        samples are dealt without it.
    :raises Inconsistent: the view's cards do not add up (from :func:`knowledge`).
    """

    def __init__(
        self,
        view: SeatView,
        rules: Rules,
        *,
        facts: Knowledge | None = None,
        tries: int = 20,
        inference: SampleWeights | None = None,
        reading: DealReading | None = None,
    ) -> None:
        self.view = view
        self.rules = rules
        self.facts = knowledge(view, rules) if facts is None else facts
        self.tries = tries
        self._basis = _ReplayBasis.of(view, rules, self.facts)
        self._template: HandState | None = None
        self._dealer = _MaskDealer.of(self.facts, inference)
        self._reading = reading
        plain = (
            view.phase is Phase.PLAY
            and not rules.play_config.rules
            and not any(show.cards is None and show.seat != view.seat for show in view.shows)
        )
        self._redeal = plain and (rules.table.copies == 1 or not _locked_elsewhere(view, rules))
        spec = rules.engine_spec
        self._replays_plays = (
            plain
            and not self._redeal
            and spec.offers(Capability.REDEAL)
            and spec.offers(Capability.LEGAL_KEYS)
        )
        self._start: LegalKeysEngine | None = None
        self._keys: list[int] = []
        self._played: list[CardMask] = []

    @property
    def redeals(self) -> bool:
        """Whether later samples are re-dealt copies of one replayed state (see the class)."""
        return self._redeal

    @property
    def replays_plays(self) -> bool:
        """Whether :meth:`sample_engine` checks each sample by replaying the view's plays on
        the engine, from the start of the play, rather than replaying the whole hand (with two
        decks after another seat's show the lock binds: see the class)."""
        return self._replays_plays

    def sample_engine(self, rng: random.Random) -> SampledEngine:
        """A sample as a bare engine and the dealt cards it implies: :meth:`sample` for searches.

        Where samples are re-dealt copies (:attr:`redeals`) and the engine can
        re-deal (:attr:`~gongzhu.play.Capability.REDEAL`), the template's engine
        is copied and re-dealt directly: no :class:`~gongzhu.hand.HandState` is
        made, and the checks of :meth:`HandState.with_holdings
        <gongzhu.hand.HandState.with_holdings>`, which the sampler's knowledge
        makes true, are skipped.  Elsewhere it is :meth:`sample`'s state's engine.

        :raises Inconsistent: no sample was found in ``tries`` attempts.
        """
        if self._replays_plays:
            return self._replayed_engine(rng)
        template = self._template
        if template is None or not template.engine_spec.offers(Capability.REDEAL):
            state = self.sample(rng)
            redeal = state.engine_spec.offers(Capability.REDEAL)
            if not (self._reading is not None and state is self._template and redeal):
                engine = state.engine  # the search's fast path
                if state is self._template:  # kept for the next samples: the caller gets a copy
                    engine = engine.copy()
                return SampledEngine(engine, state.dealt_masks)
            template = state  # with a reading, the first sample too is read: re-dealt from it
        masks = None
        for _ in range(self.tries):
            masks = self._hidden_masks(rng)
            if masks is not None:
                break
        if masks is None:
            raise self._not_found()
        base = template.engine
        now = base.holdings
        engine = base.copy()
        if self.facts.copies == 1:
            dealt = tuple(
                d & ~h | m for d, h, m in zip(template.dealt_masks, now, masks, strict=True)
            )
        else:
            dealt = tuple(
                add_copies(subtract_copies(d, h), m)
                for d, h, m in zip(template.dealt_masks, now, masks, strict=True)
            )
        cast("RedealEngine", engine).redeal(masks)  # (its spec offers REDEAL: checked above)
        return SampledEngine(engine, dealt)

    def _hidden_masks(self, rng: random.Random) -> list[CardMask] | None:
        """Each seat's cards now in one sampled deal (by the dealer, read where there is a
        reading, else by the pool), or ``None`` (a dead end)."""
        dealer = self._dealer
        if dealer is None:
            holdings = _deal_pool(self.facts, rng)
            return None if holdings is None else [mask_of(cards) for cards in holdings]
        return dealer.deal(rng) if self._reading is None else self._reading.draw(dealer, rng)

    def _not_found(self) -> Inconsistent:
        """The error of a sample not found in :attr:`tries` attempts."""
        return Inconsistent(
            f"no sample agreed with seat {self.view.seat}'s view in {self.tries} tries"
        )

    def _replayed_engine(self, rng: random.Random) -> SampledEngine:
        """A sample whose deal the engine re-deals at the start of the play and whose plays
        it replays, each checked legal (:attr:`replays_plays`)."""
        start = self._start
        if start is None:  # (worked out at the first sample: most views never need it)
            begun = start_of_play(self.view, self.rules, rng, facts=self.facts)
            start = self._start = self.rules.engine_spec.capable(
                begun.engine, Capability.LEGAL_KEYS
            )
            self._keys = [key_of_play(c) for trick in _all_tricks(self.view) for _, c in trick]
            self._played = [mask_of(cards) for cards in self.facts.played]
        for _ in range(self.tries):
            masks = self._hidden_masks(rng)
            if masks is None:
                continue
            dealt = [add_copies(m, p) for m, p in zip(masks, self._played, strict=True)]
            engine = start.copy()
            cast("RedealEngine", engine).redeal(dealt)  # (its spec offers REDEAL: see __init__)
            for key in self._keys:
                if key not in engine.legal_keys():
                    break  # a play the real hand made is illegal on this deal: refuted
                engine.play(key)
            else:
                return SampledEngine(engine, tuple(dealt))
        raise self._not_found()

    def sample(self, rng: random.Random) -> HandState:
        """A state the seat cannot tell from the real one (unchecked against the view).

        :raises Inconsistent: no sample was found in ``tries`` attempts.
        """
        template = self._template
        if template is None:
            state = determinize(
                self.view, self.rules, rng, tries=self.tries, check=False, facts=self.facts
            )
            if self._redeal:
                self._template = state
            return state
        for _ in range(self.tries):
            holdings = _deal_pool(self.facts, rng)
            if holdings is None:
                continue
            try:
                return template.with_holdings(holdings)
            except InvalidHoldings:
                # this sample changes what the template's history fixed (with 首明: which
                # seats were asked about their first card): replay it instead
                replayed = _replayed_sample(
                    self.view, self.rules, holdings, self.facts, self._basis, rng
                )
                if replayed is not None:
                    return replayed
        raise self._not_found()


def _locked_elsewhere(view: SeatView, rules: Rules) -> bool:
    """Whether a seat other than the viewer made a show the shown-card lock binds."""
    binds = locking_kinds(rules)
    return any(show.seat != view.seat and show.kind in binds and show.cards for show in view.shows)


def _first_show_state(
    view: SeatView,
    rules: Rules,
    holdings: list[list[Card]],
    facts: Knowledge,
    basis: _ReplayBasis,
    rng: random.Random,
) -> HandState:
    """A state in the 首明 phase: the deal's first seat matters, so try each."""
    for first_seat in rng.sample(range(SEATS), SEATS):
        deal = _deal_of(holdings, basis.firsts, facts.showable, first_seat, basis.lead_card)
        state = _replay(view, rules, deal, basis.explicit_leader(view, rules, deal), facts, rng)
        if state is not None and _agrees(view, state):
            return state
    raise Inconsistent("no 首明-phase sample agreed with the view")
