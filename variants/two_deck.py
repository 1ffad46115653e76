"""``two-deck`` 拱雙豬: two decks, 26 cards each, pairs, a modifier for either base.

Source: seed ``003`` (拱雙豬), with RULES.md deciding what it leaves open.

* 104 cards, dealt 26 to each seat; identical cards are interchangeable, so
  ``legal_actions()`` lists each distinct play once (a pair appears once).
* A lead is one card or an identical pair (两张完全相同的牌).  With 39baobao
  the first seat dealt a ♣2 leads ♣2 — one, or both as a pair.
* Following a pair: a pair of the led suit if you hold one; else two cards
  of the led suit; else your one card of it and any card; else any two cards.
* Ranking a trick led by a pair: a play not wholly in the led suit never
  wins; two unmatched cards of the led suit beat any pair and rank by their
  higher card; pairs rank by rank.  Equal plays: the first played wins (this
  also settles two identical single cards).
* Scoring: each ♣10 taken is a ×2 multiplier (two: ×4); only ♣10s taken:
  +50 each.  Full hearts (满红) is all 26 hearts; the slam (满贯) all 32
  scoring cards.
* Showing: each copy is shown on its own and doubles only itself (a shown
  ♥A still doubles every heart; two shown ♥A ×4) — a **(choice)** of
  RULES.md.  A seat holding a shown and an unshown copy of a card plays the
  unshown one first, so the shown-card restriction only binds when every copy
  the seat holds is shown; a shown copy taken by another seat scores its
  factor for that seat.  39baobao's "three shown reveal the fourth" is a
  single-deck rule: with two decks nothing is shown automatically.

It composes with ``39baobao`` and ``huapai`` and their show and scoring
modifiers; it refuses ``same-colour-discard`` (no discard rule for two-card
plays is defined) and ``biming`` (逼明 counts the four cards of one deck).

Option ``pair_beats_unmatched`` (default ``False``): ``True`` takes the
encyclopaedia's reading, where a pair of the led suit beats two unmatched
cards of it (pairs still rank by rank, unmatched by their higher card).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from gongzhu.actions import Play, ShowKind, play_of_key
from gongzhu.cards import Card
from gongzhu.engine import (
    LOW,
    OVER,
    SUIT_MASKS,
    SUIT_OF,
    PlayCore,
    add_copy,
    copies_in,
    remove_copy,
    subtract_copies,
)
from gongzhu.hand import HandState
from gongzhu.plugin import Deal, OptionSet, VariantInfo, hookimpl
from gongzhu.scoring import ShowRecord

NAME = "two-deck"
ILLEGAL = -2
SUITS_BOTH = tuple(mask | mask << 52 for mask in SUIT_MASKS)  # both copies' bits of a suit


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def pair_key(index: int) -> int:
    """The play key of the pair of card ``index``."""
    return 52 + index * 52 + index


def two_key(first: int, second: int) -> int:
    """The play key of two cards (any order)."""
    low, high = sorted((first, second))
    return 52 + low * 52 + high


def cards_of_key(key: int) -> tuple[int, ...]:
    """The card indices a play key plays."""
    if key < 52:
        return (key,)
    return divmod(key - 52, 52)


class TwoDeckCore(PlayCore):
    """The two-deck play engine: copy-counting masks, single cards and pairs."""

    __slots__ = ("_legal_keys", "pair_beats_unmatched", "shown_left", "taken_shows", "trick_shows")

    def __init__(
        self,
        hands: Sequence[int],
        flags: tuple[bool, bool, bool, bool, bool],
        preferred: Sequence[int] | None,
        history: list[Any],
        tricks: list[Any],
    ) -> None:
        super().__init__(hands, flags, preferred, history, tricks)
        self.pair_beats_unmatched = False
        self.shown_left: list[list[tuple[int, ShowKind]]] = [[], [], [], []]
        self.taken_shows: list[list[ShowRecord]] = [[], [], [], []]
        self.trick_shows: list[ShowRecord] = []
        self._legal_keys: list[int] | None = None

    def set_shows(self, records: Sequence[ShowRecord]) -> None:
        """The copies each seat showed: they score their factor for whoever takes them."""
        self._legal_keys = None
        for record in records:
            self.shown_left[record.seat].append((record.card.index, record.kind))

    def copy(self, history: list[Any], tricks: list[Any]) -> TwoDeckCore:
        new = super().copy(history, tricks)
        assert isinstance(new, TwoDeckCore)
        new.pair_beats_unmatched = self.pair_beats_unmatched
        new.shown_left = [seat[:] for seat in self.shown_left]
        new.taken_shows = [seat[:] for seat in self.taken_shows]
        new.trick_shows = self.trick_shows[:]
        new._legal_keys = None
        return new

    # -- legality ----------------------------------------------------------------------

    def _candidates(self, hand: int) -> list[int]:
        """The plays the follow rules allow, before the shown-card restriction."""
        trick = self.trick
        if not trick:
            if self.forced and hand & self.forced:
                index = self.forced.bit_length() - 1
                return [index] + ([pair_key(index)] if copies_in(hand, index) == 2 else [])
            return _indices(hand & LOW) + [pair_key(i) for i in _indices(hand >> 52)]
        lead = trick[0]
        led = SUIT_OF[cards_of_key(lead)[0]]
        suited = hand & SUITS_BOTH[led]
        if lead < 52:
            return _indices((suited or hand) & LOW)
        if suited >> 52:  # 1. a pair of the led suit
            return [pair_key(i) for i in _indices(suited >> 52)]
        singles = _indices(suited & LOW)
        if len(singles) >= 2:  # 2. two cards of the led suit
            return sorted(two_key(a, b) for a, b in combinations(singles, 2))
        if singles:  # 3. the one card of the led suit and any other card
            rest = remove_copy(hand, singles[0])
            return sorted(two_key(singles[0], other) for other in _indices(rest & LOW))
        # 4. any two cards
        keys = [two_key(a, b) for a, b in combinations(_indices(hand & LOW), 2)]
        return sorted(keys + [pair_key(i) for i in _indices(hand >> 52)])

    def _blocked(self, key: int, hand: int, locked: int) -> bool:
        """Whether ``key`` must use a shown copy the restriction withholds now."""
        trick = self.trick
        led = SUIT_OF[cards_of_key(trick[0])[0]] if trick else -1
        cards = cards_of_key(key)
        for index in set(cards):
            needed = cards.count(index)
            free = copies_in(hand, index) - copies_in(locked, index)
            if free >= needed:
                continue
            suit = SUIT_OF[index]
            unled = bool(self.unled & SUIT_MASKS[suit])
            if not trick or suit == led:
                applies = self.lock_first and (unled if not trick else self.first_of_suit)
                # a shown card the seat cannot avoid (no other card of its suit) is free
                if applies and subtract_copies(hand & SUITS_BOTH[suit], locked):
                    return True
            elif self.lock_discards and unled:
                return True
        return False

    def legal_keys(self) -> list[int]:
        """The keys of the legal plays of the seat to move, ascending (kept until a play)."""
        if self._legal_keys is None:
            self._legal_keys = self._compute_legal_keys()
        return self._legal_keys

    def _compute_legal_keys(self) -> list[int]:
        seat = self.seat
        hand = self.hands[seat]
        candidates = self._candidates(hand)
        locked = 0 if self.lifted[seat] else self.locked[seat] & hand
        if not locked:
            return candidates
        touched = set(_indices(locked & LOW))
        allowed = [
            key
            for key in candidates
            if touched.isdisjoint(cards_of_key(key)) or not self._blocked(key, hand, locked)
        ]
        if allowed:
            return allowed
        if self.lift_for_hand:  # the restriction leaves nothing: it lifts
            self.lifted[seat] = True
        return candidates

    def legal_mask(self) -> int:
        mask = 0
        for key in self.legal_keys():
            for index in cards_of_key(key):
                mask |= 1 << index
        return mask

    def legal(self) -> tuple[Play, ...]:
        return tuple(play_of_key(key) for key in self.legal_keys())

    # -- playing ---------------------------------------------------------------------

    def play(self, key: int) -> int:
        if key not in self.legal_keys():
            return ILLEGAL
        self._play(key)
        return self.seat

    def _play(self, key: int) -> None:
        self._legal_keys = None
        seat = self.seat
        cards = cards_of_key(key)
        if not self.trick:
            suit_mask = SUIT_MASKS[SUIT_OF[cards[0]]]
            self.first_of_suit = bool(self.unled & suit_mask)
            self.unled &= ~suit_mask
            self.forced = 0
        hand = self.hands[seat]
        for index in cards:
            shown = [n for n, (card, _kind) in enumerate(self.shown_left[seat]) if card == index]
            if copies_in(hand, index) <= len(shown):  # only shown copies left: one goes
                _card, kind = self.shown_left[seat].pop(shown[0])
                self.trick_shows.append(ShowRecord(seat, Card.from_index(index), kind))
                if copies_in(self.locked[seat], index):
                    self.locked[seat] = remove_copy(self.locked[seat], index)
            hand = remove_copy(hand, index)
        self.hands[seat] = hand
        self.trick.append(key)
        self.history.append((seat, play_of_key(key)))
        if len(self.trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _rank(self, key: int, led: int, pair_lead: bool) -> tuple[int, int] | None:
        cards = cards_of_key(key)
        if any(SUIT_OF[index] != led for index in cards):
            return None  # not wholly in the led suit: never wins
        top = max(index % 13 for index in cards)
        if not pair_lead:
            return (0, top)
        is_pair = cards[0] == cards[1]
        return (int(is_pair == self.pair_beats_unmatched), top)

    def _finish_trick(self) -> None:
        trick = self.trick
        lead = trick[0]
        led = SUIT_OF[cards_of_key(lead)[0]]
        best: tuple[int, int] | None = None
        position = 0
        for n, key in enumerate(trick):
            rank = self._rank(key, led, lead >= 52)
            if rank is not None and (best is None or rank > best):
                best, position = rank, n
        leader = self.trick_leader
        winner = (leader + position) & 3
        taken = self.taken[winner]
        for key in trick:
            for index in cards_of_key(key):
                taken = add_copy(taken, index)
        self.taken[winner] = taken
        self.taken_shows[winner].extend(self.trick_shows)
        self.trick_shows = []
        self.tricks.append((leader, tuple(trick), winner, winner))
        self.trick = []
        self.trick_leader = winner
        self.seat = winner if self.hands[winner] else OVER

    def random_playout(self, random: Callable[[], float]) -> None:
        while self.seat != OVER:
            keys = self.legal_keys()
            self._play(keys[int(random() * len(keys))])


class TwoDeckHand(HandState):
    """A hand of 拱雙豬: the two-deck engine, and copy-aware shows and scoring."""

    __slots__ = ()
    core_class = TwoDeckCore

    def __init__(self, rules: Any, deal: Deal, *, seed: int | None, leader: int | None) -> None:
        super().__init__(rules, deal, seed=seed, leader=leader)
        self._core.pair_beats_unmatched = rules.options["pair_beats_unmatched"]

    def _deal_masks(self, deal: Deal) -> list[int]:
        hands = [0, 0, 0, 0]
        for seat in range(4):
            for card in deal.hand(seat):
                hands[seat] = add_copy(hands[seat], card.index)
        return hands

    def _start_play_phase(self) -> None:
        super()._start_play_phase()
        self._core.set_shows(self.show_records)

    def _shown_copies_taken(self) -> list[list[ShowRecord]] | None:
        return [list(records) for records in self._core.taken_shows]

    def _why_illegal(self, action: Play) -> str:
        seat: int = self.seat_to_move  # type: ignore[assignment]
        core = self._core
        hand = core.hands[seat]
        cards = action.cards
        for card in cards:
            if cards.count(card) > copies_in(hand, card.index):
                return f"seat {seat} does not hold {' '.join(map(str, cards))}"
        if len(cards) not in (1, 2):
            return "a play is one card or two"
        if not core.trick:
            if len(cards) == 2 and cards[0] != cards[1]:
                return "a lead is one card or an identical pair"
            if core.forced:
                forced = Card.from_index(core.forced.bit_length() - 1)
                return f"the opening lead must be {forced} (one, or both as a pair)"
            return f"{cards[0]} was shown and may not be led in the first trick of its suit"
        lead = play_of_key(core.trick[0]).cards
        led = lead[0].suit
        suited = hand & SUITS_BOTH[led]
        if len(cards) != len(lead):
            return f"the lead was {'a pair' if len(lead) == 2 else 'one card'}: play {len(lead)}"
        if len(lead) == 1:
            if suited and cards[0].suit is not led:
                return f"must follow suit: seat {seat} holds {led.symbol}"
        elif suited >> 52 and not (cards[0] == cards[1] and cards[0].suit is led):
            return f"following a pair: play a pair of {led.symbol} (seat {seat} holds one)"
        elif suited.bit_count() >= 2 and any(c.suit is not led for c in cards):
            return f"following a pair: play two {led.symbol} (seat {seat} holds them)"
        elif suited.bit_count() == 1 and all(c.suit is not led for c in cards):
            return f"following a pair: play your {led.symbol} card and any other"
        return "a shown card may not be played yet (the shown-card restriction)"


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="Two decks, with pairs",
        title_zh="拱雙豬",
        conflicts={"biming", "same-colour-discard"},
        summary="104 cards, 26 each; leads of one card or a pair; two pigs, sheep, transformers.",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "pair_beats_unmatched",
        False,
        "False (default, after a published two-deck implementation): two unmatched cards "
        "of the led suit beat any pair.  True (the encyclopaedia's reading): a pair beats them.",
    )


@hookimpl
def gongzhu_deck_copies() -> int:
    return 2


@hookimpl
def gongzhu_hand_class() -> type[HandState]:
    return TwoDeckHand


@hookimpl
def gongzhu_auto_show_threshold() -> int:
    return 0  # "three shown reveal the fourth" is a single-deck rule
