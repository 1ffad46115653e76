"""Bots: anything with ``choose(view) -> action``, found by name in an entry-point group.

A bot sees only a :class:`~gongzhu.view.SeatView` (``hand.view(seat)``),
never the full state.  Every bot, the shipped ones included, is registered
in the entry-point group ``gongzhu.bots`` as a factory called
``factory(seed=seed, **options)``; :func:`make_bot` builds one by name and
:func:`bot_names` lists them.  The shipped bots:

- ``random`` (:class:`RandomBot`) and ``first`` (:class:`FirstLegalBot`);
- ``heuristic`` (:class:`HeuristicBot`): rules of thumb from the strategy
  advice of the sources, each a small named function (:data:`PLAY_RULES`);
- ``search`` (:class:`SearchBot`): determinised Monte-Carlo search over
  deals sampled consistently with the view (:func:`sample_deal`,
  :func:`determinize`).

Bots that need the ruleset (its card values, discard rule, scoring) take it
as the ``rules`` option: a view does not say which ruleset is being played.

>>> import gongzhu
>>> rules = gongzhu.load_rules()
>>> bots = [make_bot("heuristic", seed=seat, rules=rules) for seat in range(4)]
>>> play_hand(rules.new_hand(seed=3), bots).is_over
True
"""

from __future__ import annotations

import importlib.metadata
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any, Protocol, cast, runtime_checkable

import attrs

from .actions import Action, Play, Show, ShowKind
from .cards import HEART_ACE, PIG, SHEEP, TRANSFORMER, Card, Rank, Suit, full_deck
from .errors import GongzhuError, IllegalAction
from .hand import HandState
from .plugin import Deal
from .rules import Rules, load_rules
from .view import Phase, SeatView

__all__ = [
    "BOTS",
    "DEFAULT_BUDGET_MS",
    "ENTRY_POINT_GROUP",
    "PLAY_RULES",
    "SHOW_RULES",
    "Bot",
    "BotRegistry",
    "FirstLegalBot",
    "HeuristicBot",
    "Inconsistent",
    "Knowledge",
    "RandomBot",
    "RolloutPolicy",
    "Rule",
    "SearchBot",
    "Situation",
    "UnknownBot",
    "avoid_transformer_with_negatives",
    "bot_names",
    "capture_own_sheep",
    "determinize",
    "discard_dangerous_cards",
    "discard_pig_guards",
    "duck_under_when_hearts_in_trick",
    "dump_big_hearts_on_discard",
    "dump_pig_on_discard",
    "dump_transformer_on_loser",
    "first_show_decision",
    "greedy_rollout_policy",
    "guard_pig_until_safe",
    "hunt_pig_with_low_spades",
    "knowledge",
    "lead_low_safe_card",
    "make_bot",
    "natural_following",
    "no_pairs",
    "play_hand",
    "random_rollout_policy",
    "run_full_hearts",
    "safe_fallback",
    "sample_deal",
    "sample_hands",
    "shed_high_card_when_last_and_clean",
    "show_decision",
    "take_sheep_when_safe",
    "void_short_suit",
    "voids",
]


# -------------------------------------------------------------------------------------------------
# The interface and the simplest bots
# -------------------------------------------------------------------------------------------------


@runtime_checkable
class Bot(Protocol):
    """The bot interface: pick one of ``view.legal_actions``."""

    def choose(self, view: SeatView) -> Action:
        """Pick one of ``view.legal_actions`` (the view of the seat to move)."""
        ...


class RandomBot:
    """Chooses uniformly among the legal actions (reproducibly, from ``seed``).

    ``rules`` is accepted (and unused) like every shipped bot's.
    """

    def __init__(self, seed: int | None = None, *, rules: Rules | None = None) -> None:
        del rules
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        """A uniformly random legal action."""
        return self._rng.choice(view.legal_actions)


class FirstLegalBot:
    """Always takes the first legal action: deterministic, for tests.

    ``seed`` and ``rules`` are accepted (and ignored) so that every shipped
    bot is built the same way.
    """

    def __init__(self, seed: int | None = None, *, rules: Rules | None = None) -> None:
        del seed, rules

    def choose(self, view: SeatView) -> Action:
        """The first legal action."""
        return view.legal_actions[0]


def play_hand(hand: HandState, bots: Sequence[Bot]) -> HandState:
    """Let ``bots`` (one per seat) play ``hand`` to the end; return it.

    Each bot is shown only its seat's view.
    """
    if len(bots) != 4:
        raise ValueError("play_hand needs four bots, one per seat")
    while not hand.is_over:
        seat = hand.current_seat
        assert seat is not None
        hand.apply(bots[seat].choose(hand.view(seat)))
    return hand


# -------------------------------------------------------------------------------------------------
# The registry: bots by entry-point name
# -------------------------------------------------------------------------------------------------

ENTRY_POINT_GROUP = "gongzhu.bots"
"""The entry-point group bots are registered in."""


class UnknownBot(GongzhuError, KeyError, ValueError):
    """No bot is registered under the requested name.

    Also a :class:`KeyError` (a lookup in :data:`BOTS` that fails) and a
    :class:`ValueError` (what :func:`make_bot` raised before bots were plug-ins).

    :ivar name: the name asked for.
    :ivar available: the names that are registered.
    """

    def __init__(self, name: str, available: Iterable[str]) -> None:
        self.name = name
        self.available = tuple(sorted(available))
        listed = ", ".join(self.available) or "none"
        self.message = f"no gongzhu bot named {name!r}; installed: {listed}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class BotRegistry(Mapping[str, Callable[..., Bot]]):
    """A read-only mapping of bot name -> factory, read from the entry points.

    The names are read once (:meth:`refresh` reads them again); a factory is
    imported the first time it is looked up.  A missing name raises
    :class:`UnknownBot`, which is also a :class:`KeyError`.
    """

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self._group = group
        self._points: dict[str, importlib.metadata.EntryPoint] | None = None
        self._loaded: dict[str, Callable[..., Bot]] = {}

    def _entry_points(self) -> dict[str, importlib.metadata.EntryPoint]:
        if self._points is None:
            found = importlib.metadata.entry_points(group=self._group)
            self._points = {ep.name: ep for ep in found}
        return self._points

    def refresh(self) -> None:
        """Read the installed entry points again (after installing a bot at run time)."""
        self._points = None
        self._loaded.clear()

    def __getitem__(self, name: str) -> Callable[..., Bot]:
        factory = self._loaded.get(name)
        if factory is not None:
            return factory
        point = self._entry_points().get(name)
        if point is None:
            raise UnknownBot(name, self._entry_points())
        factory = point.load()
        if not callable(factory):
            raise GongzhuError(f"bot entry point {name!r} ({point.value}) is not callable")
        self._loaded[name] = factory
        return factory

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entry_points()))

    def __len__(self) -> int:
        return len(self._entry_points())

    def __contains__(self, name: object) -> bool:
        return name in self._entry_points()

    def __repr__(self) -> str:
        return f"<BotRegistry {self._group}: {', '.join(self)}>"


BOTS = BotRegistry()
"""Bots by name (the ``gongzhu.bots`` entry points), each a factory ``f(seed=..., **options)``."""


def bot_names() -> list[str]:
    """The names of the registered bots, sorted."""
    return list(BOTS)


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """The bot called ``name``, built from ``seed`` and its ``options``.

    >>> make_bot("first").__class__.__name__
    'FirstLegalBot'

    :raises UnknownBot: no bot has that name (the message lists the names).
    """
    if not isinstance(name, str) or name not in BOTS:
        raise UnknownBot(str(name), BOTS)
    return BOTS[name](seed=seed, **options)


# -------------------------------------------------------------------------------------------------
# Sampling the hidden cards
# -------------------------------------------------------------------------------------------------

_DEFAULT_SHOWABLE = frozenset({PIG, SHEEP, TRANSFORMER, HEART_ACE})
_SEATS = 4


class Inconsistent(GongzhuError):
    """No deal agrees with the view (the view was not made by a real hand), or none was found."""


def voids(view: SeatView, rules: Rules | None = None) -> tuple[frozenset[Suit], ...]:
    """The suits each seat is known to hold none of now.

    - A seat that plays any card off the led suit has none of it left (it
      must follow as far as it can).
    - With ``rules``: a shown card the lock binds (:class:`~gongzhu.plugin.ShownCardLock`,
      one deck) played in the first trick of its suit was its holder's only
      card of that suit; a discard outside the preferred suits of a discard
      rule (:class:`~gongzhu.plugin.DiscardRule`) that drew no penalty, or
      any such discard under a strict rule, shows the seat had none of them.
    """
    found: list[set[Suit]] = [set() for _ in range(_SEATS)]
    tricks: list[tuple[tuple[tuple[int, tuple[Card, ...]], ...], int | None, int | None]] = [
        (t.plays, t.winner, t.taker) for t in view.tricks
    ]
    if view.current_trick:
        tricks.append((view.current_trick, None, None))
    lock = rules.shown_card_lock if rules is not None else None
    locked: list[set[Card]] = [set() for _ in range(_SEATS)]
    if lock is not None and lock.first_trick and rules is not None and rules.table.copies == 1:
        for show in view.shows:
            if show.cards is not None and show.kind not in lock.exempt:
                locked[show.seat].update(show.cards)
    rule = rules.discard_rule if rules is not None else None
    led_before: set[Suit] = set()
    for plays, winner, taker in tricks:
        led = plays[0][1][0].suit
        first_of_suit = led not in led_before
        led_before.add(led)
        preferred = rule.preferred.get(led, frozenset()) if rule is not None else frozenset()
        offenders = []
        for index, (seat, cards) in enumerate(plays):
            if index and any(card.suit is not led for card in cards):
                found[seat].add(led)
                if preferred and any(c.suit is not led and c.suit not in preferred for c in cards):
                    offenders.append(seat)
            if first_of_suit and any(c in locked[seat] and c.suit is led for c in cards):
                found[seat].add(led)
        if rule is None or not offenders:
            continue
        if rule.strict or (taker is not None and taker == winner):
            innocent = offenders  # no penalty: none of them held a preferred card
        elif taker is None:
            innocent = []
        else:
            at = offenders.index(taker) if taker in offenders else None
            if at is None:
                innocent = []
            elif rule.offender == "first":
                innocent = offenders[:at]
            else:
                innocent = offenders[at + 1 :]
        for seat in innocent:
            found[seat].update(preferred)
    return tuple(frozenset(v) for v in found)


def no_pairs(view: SeatView) -> tuple[frozenset[Suit], ...]:
    """Two decks: the suits in which each seat holds no pair (it followed a pair unmatched)."""
    found: list[set[Suit]] = [set() for _ in range(_SEATS)]
    tricks = [t.plays for t in view.tricks]
    if view.current_trick:
        tricks.append(view.current_trick)
    for plays in tricks:
        lead = plays[0][1]
        if len(lead) != 2 or lead[0] != lead[1]:
            continue
        led = lead[0].suit
        for seat, cards in plays[1:]:
            if len(cards) == 2 and cards[0] != cards[1] and all(c.suit is led for c in cards):
                found[seat].add(led)
    return tuple(frozenset(v) for v in found)


@attrs.frozen
class Knowledge:
    """What a view fixes about the hidden cards (computed by :func:`knowledge`).

    :ivar copies: decks in play (1 or 2).
    :ivar played: each seat's cards played so far (tricks and the trick under way).
    :ivar known: cards each seat is known to hold now (the viewer: its hand;
        the others: shown cards not yet played).
    :ivar sizes: how many cards each seat holds now.
    :ivar pool: the cards no seat is known to hold, to be dealt.
    :ivar voids: the suits each seat holds none of.
    :ivar no_pairs: the suits in which each seat holds no pair (two decks).
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


def _minus(cards: Iterable[Card], remove: Iterable[Card]) -> list[Card]:
    """The multiset ``cards`` less ``remove`` (each removed card once)."""
    left = Counter(remove)
    out = []
    for card in cards:
        if left[card]:
            left[card] -= 1
        else:
            out.append(card)
    return out


def knowledge(view: SeatView, rules: Rules | None = None) -> Knowledge:
    """Everything ``view`` fixes about the hidden cards.

    :param rules: the ruleset (its deck count and showable cards); without it,
        one deck and the default showable cards, or two decks when the view's
        card count says so.
    :raises Inconsistent: the view's cards do not add up to a deck.
    """
    seat = view.seat
    played: list[list[Card]] = [[] for _ in range(_SEATS)]
    for trick in view.tricks:
        for who, cards in trick.plays:
            played[who].extend(cards)
    for who, cards in view.current_trick:
        played[who].extend(cards)
    first_show = view.phase is Phase.FIRST_SHOW
    if rules is not None:
        copies = rules.table.copies
        showable = frozenset(rules.table.showable)
    else:
        total = sum(view.hand_sizes) + sum(map(len, played))
        copies = 2 if total == 104 else 1
        showable = _DEFAULT_SHOWABLE
    full = 13 * copies
    sizes = tuple(full for _ in range(_SEATS)) if first_show else tuple(view.hand_sizes)
    known: list[list[Card]] = [[] for _ in range(_SEATS)]
    known[seat] = list(view.hand)
    shown_by: list[list[Card]] = [[] for _ in range(_SEATS)]
    secret_count = [0] * _SEATS
    for show in view.shows:
        if show.cards is None:
            secret_count[show.seat] += show.count
        else:
            shown_by[show.seat].extend(show.cards)
    for who in range(_SEATS):
        if who != seat:
            known[who] = _minus(shown_by[who], played[who])
    secret_need = [0] * _SEATS
    for who in range(_SEATS):
        if secret_count[who]:
            candidates = [c for c in _minus(played[who], shown_by[who]) if c in showable]
            secret_need[who] = max(0, secret_count[who] - len(candidates))
    seen = [card for cards in known for card in cards] + [c for p in played for c in p]
    pool = _minus(full_deck(copies), seen)
    if len(pool) + len(seen) != 52 * copies:
        raise Inconsistent("the view's cards are not one deck")
    if sum(sizes) - sum(map(len, known)) != len(pool):
        raise Inconsistent(
            f"the view's hand sizes {sizes} do not match the {len(pool)} unseen cards"
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
    )


def _deal_pool(facts: Knowledge, rng: random.Random) -> list[list[Card]] | None:
    """One random assignment of the pool to the seats' free places, or ``None`` (dead end)."""
    hands = [list(k) for k in facts.known]
    room = [size - len(k) for size, k in zip(facts.sizes, facts.known, strict=True)]
    pool = list(facts.pool)
    rng.shuffle(pool)
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
            hands[who].append(card)
            room[who] -= 1
    sellers = [who for who in range(_SEATS) if facts.secret_count[who]]
    by_suit = {
        suit: [s for s in range(_SEATS) if suit not in facts.voids[s] and room[s] > 0]
        for suit in Suit
    }
    pairs_checked = any(facts.no_pairs)
    showable_checked = not facts.hidden_showable_ok
    # most constrained suits first (the pool is shuffled, so at random within a suit);
    # each card to a seat with room, weighted by the room left: a uniform deal if unconstrained
    pool.sort(key=lambda card: len(by_suit[card.suit]))
    for card in pool:
        seats = [s for s in by_suit[card.suit] if room[s] > 0]
        if pairs_checked:
            seats = [s for s in seats if not (card.suit in facts.no_pairs[s] and card in hands[s])]
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
        hands[s].append(card)
        room[s] -= 1
    return hands


def sample_hands(
    view: SeatView,
    rng: random.Random,
    *,
    rules: Rules | None = None,
    tries: int = 200,
    facts: Knowledge | None = None,
) -> tuple[tuple[Card, ...], ...]:
    """Each seat's current cards in one sample consistent with ``view`` (the viewer's own).

    In the 首明 phase the hands are whole (the viewer knows only its first card).

    :raises Inconsistent: no consistent assignment was found in ``tries`` attempts.
    """
    facts = knowledge(view, rules) if facts is None else facts
    for _ in range(tries):
        hands = _deal_pool(facts, rng)
        if hands is not None:
            return tuple(tuple(sorted(h)) for h in hands)
    raise Inconsistent(f"no deal consistent with seat {view.seat}'s view in {tries} tries")


def _first_cards(view: SeatView) -> dict[int, Card]:
    """The first dealt card of each seat that made a 首明 (and the viewer's, in that phase)."""
    firsts = {
        show.seat: show.cards[0]
        for show in view.shows
        if show.kind is ShowKind.FIRST and show.cards
    }
    if view.phase is Phase.FIRST_SHOW and view.hand:
        firsts[view.seat] = view.hand[0]
    return firsts


def _deal_of(
    dealt: Sequence[Sequence[Card]],
    firsts: dict[int, Card],
    showable: frozenset[Card],
    first_seat: int,
    lead_card: Card | None,
) -> Deal:
    """A :class:`Deal` of the ``dealt`` hands: first-shown cards first, other showables last."""
    ordered = []
    for who, cards in enumerate(dealt):
        rest = sorted(cards, key=lambda c: (c in showable, c != lead_card, c.index))
        first = firsts.get(who)
        if first is not None:
            rest.remove(first)
            rest.insert(0, first)
        ordered.append(rest)
    size = len(ordered[0])
    if any(len(h) != size for h in ordered):
        raise Inconsistent("the sampled hands are not of equal size")
    order = tuple(ordered[(first_seat + k) % _SEATS][k // _SEATS] for k in range(_SEATS * size))
    deal = object.__new__(Deal)  # a permutation of the deck(s) by construction: nothing to check
    object.__setattr__(deal, "order", order)
    object.__setattr__(deal, "first_seat", first_seat)
    return deal


def sample_deal(view: SeatView, rng: random.Random, *, rules: Rules | None = None) -> Deal:
    """A whole deal consistent with ``view``: the hidden cards dealt at random.

    Each seat is dealt its current cards (sampled) and the cards it has
    played; a seat's 首明 card is its first card.  The first seat of the deal
    is not public (see :func:`determinize` for what it is set to).

    :param rules: the ruleset (its deck count and showable cards); see :func:`knowledge`.
    :raises Inconsistent: no consistent deal was found.
    """
    facts = knowledge(view, rules)
    hands = sample_hands(view, rng, rules=rules, facts=facts)
    leader = view.tricks[0].leader if view.tricks else view.leader
    if view.phase is Phase.FIRST_SHOW:
        dealt = [list(h) for h in hands]
    else:
        dealt = [list(h) + list(p) for h, p in zip(hands, facts.played, strict=True)]
    return _deal_of(dealt, _first_cards(view), facts.showable, leader, None)


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
    dealt = [hand.dealt(s) for s in range(_SEATS)]
    pending = list(view.shows)
    try:
        while hand.phase is Phase.FIRST_SHOW or hand.phase is Phase.SHOW:
            seat = hand.current_seat
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
                candidates = [c for c in _minus(dealt[seat], shown_already) if c in facts.showable]
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


_LEAD_CARDS: dict[int, tuple[Rules, Card | None]] = {}


def _lead_card(rules: Rules) -> Card | None:
    """The card the ruleset's opening lead names (♣2, ♠3...), if any (cached)."""
    cached = _LEAD_CARDS.get(id(rules))
    if cached is None or cached[0] is not rules:
        cached = _LEAD_CARDS[id(rules)] = (
            rules,
            rules.opening_lead(Deal.shuffled(0, rules.table.copies)).card,
        )
    return cached[1]


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

    The hidden cards are dealt by :func:`sample_hands`; the public history
    (shows and plays) is replayed on the sampled deal, which refutes samples
    that break a rule the real play kept.  The first seat of the sampled deal
    is the first trick's leader (the view does not say who was dealt first);
    the hand's leader is given explicitly unless the ruleset's opening-lead
    rule picks the same seat from the sample, which keeps a forced opening
    lead (♣2) in force before the first trick is led.

    :param check: also require ``state.view(view.seat) == view`` (the
        default; a search may skip it for speed, the replay having checked
        the cards).
    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :raises Inconsistent: no sample survived ``tries`` attempts.
    """
    facts = knowledge(view, rules) if facts is None else facts
    leader = view.tricks[0].leader if view.tricks else view.leader
    firsts = _first_cards(view)
    lead_card = _lead_card(rules)
    for _ in range(tries):
        hands = _deal_pool(facts, rng)
        if hands is None:
            continue
        if view.phase is Phase.FIRST_SHOW:
            return _first_show_state(view, rules, hands, firsts, facts, leader, lead_card, rng)
        dealt = [h + list(p) for h, p in zip(hands, facts.played, strict=True)]
        deal = _deal_of(dealt, firsts, facts.showable, leader, lead_card)
        explicit: int | None = leader
        if rules.opening_lead(deal).seat == leader:
            explicit = None
        state = _replay(view, rules, deal, explicit, facts, rng)
        if state is not None and (not check or _agrees(view, state)):
            return state
    raise Inconsistent(f"no sample agreed with seat {view.seat}'s view in {tries} tries")


def _first_show_state(
    view: SeatView,
    rules: Rules,
    hands: list[list[Card]],
    firsts: dict[int, Card],
    facts: Knowledge,
    leader: int,
    lead_card: Card | None,
    rng: random.Random,
) -> HandState:
    """A state in the 首明 phase: the deal's first seat matters, so try each."""
    for first_seat in rng.sample(range(_SEATS), _SEATS):
        deal = _deal_of(hands, firsts, facts.showable, first_seat, lead_card)
        explicit: int | None = None if rules.opening_lead(deal).seat == leader else leader
        state = _replay(view, rules, deal, explicit, facts, rng)
        if state is not None and _agrees(view, state):
            return state
    raise Inconsistent("no 首明-phase sample agreed with the view")


# -------------------------------------------------------------------------------------------------
# The heuristic bot: rules of thumb
# -------------------------------------------------------------------------------------------------

Rule = Callable[["Situation"], Action | None]
"""A rule of thumb: an action it recommends (always a legal one), or ``None``."""

_SPADE_GUARDS = (Rank.KING, Rank.ACE)
_SHEEP_CATCHERS = (Rank.QUEEN, Rank.KING, Rank.ACE)


class Situation:
    """A seat's view, read for the rules: the trick, the cards seen, the points taken.

    :ivar view: the seat's view.
    :ivar rules: the ruleset (for card values, showable cards, the discard rule).
    """

    def __init__(self, view: SeatView, rules: Rules) -> None:
        self.view = view
        self.rules = rules
        self.seat = view.seat
        self.hand = view.hand
        self.legal = view.legal_actions
        self.plays: tuple[Play, ...] = tuple(a for a in view.legal_actions if isinstance(a, Play))
        self.trick = view.current_trick
        self.position = len(view.current_trick)
        """0 when leading, 3 when playing last."""
        self.led: Suit | None = self.trick[0][1][0].suit if self.trick else None

    # -- cards -------------------------------------------------------------------------

    @cached_property
    def played(self) -> Counter[Card]:
        """Every card played so far (both copies counted with two decks)."""
        seen: Counter[Card] = Counter()
        for trick in self.view.tricks:
            seen.update(trick.cards)
        for _, cards in self.trick:
            seen.update(cards)
        return seen

    @cached_property
    def unseen(self) -> Counter[Card]:
        """Cards neither played nor in the seat's hand: held by the others."""
        left = Counter(full_deck(self.rules.table.copies))
        left.subtract(self.played)
        left.subtract(self.hand)
        return +left

    def out(self, card: Card) -> bool:
        """Whether another seat may still hold ``card``."""
        return self.unseen[card] > 0

    def suit_cards(self, suit: Suit) -> list[Card]:
        """The seat's cards of ``suit``, low to high."""
        return sorted(c for c in self.hand if c.suit is suit)

    def unseen_higher(self, card: Card) -> int:
        """How many unseen cards of ``card``'s suit rank above it."""
        return sum(n for c, n in self.unseen.items() if c.suit is card.suit and c.rank > card.rank)

    @cached_property
    def voids(self) -> tuple[frozenset[Suit], ...]:
        """The suits each seat is known to be void in (see :func:`voids`)."""
        return voids(self.view)

    def others_void(self, suit: Suit) -> bool:
        """Whether another seat is known to be void in ``suit`` (it may discard on it)."""
        return any(suit in v for seat, v in enumerate(self.voids) if seat != self.seat)

    def holds(self, card: Card) -> bool:
        """Whether the seat holds ``card``."""
        return card in self.hand

    # -- values ------------------------------------------------------------------------

    @cached_property
    def factors(self) -> dict[Card, int]:
        """Each publicly shown card's show factor (×2 open, ×4 首明...)."""
        table = self.rules.table.show_factors
        out: dict[Card, int] = {}
        for show in self.view.shows:
            for card in show.cards or ():
                out[card] = max(out.get(card, 1), table[show.kind])
        return out

    def value(self, card: Card) -> int:
        """The points ``card`` is worth to whoever takes it (the transformer: 0)."""
        table = self.rules.table
        base = table.base_value(card)
        if not base:
            return 0
        if card.suit is Suit.HEARTS:
            heart = table.showable_heart
            return base * (self.factors.get(heart, 1) if heart is not None else 1)
        return base * self.factors.get(card, 1)

    def play_value(self, play: Play) -> int:
        """The points of a play's cards."""
        return sum(self.value(c) for c in play.cards)

    @cached_property
    def taken(self) -> tuple[int, ...]:
        """Each seat's points taken so far (pig, sheep and hearts; the transformer ignored)."""
        points = [0] * _SEATS
        for trick in self.view.tricks:
            points[trick.taker] += sum(self.value(c) for c in trick.cards)
        return tuple(points)

    @cached_property
    def hearts_taken_by(self) -> tuple[int, ...]:
        """How many hearts each seat has taken."""
        counts = [0] * _SEATS
        for trick in self.view.tricks:
            counts[trick.taker] += sum(1 for c in trick.cards if c.suit is Suit.HEARTS)
        return tuple(counts)

    @cached_property
    def trick_value(self) -> int:
        """The points in the trick under way."""
        return sum(self.value(c) for _, cards in self.trick for c in cards)

    def transformer_in_trick(self) -> bool:
        """Whether the transformer lies in the trick under way."""
        return any(TRANSFORMER in cards for _, cards in self.trick)

    # -- the trick ---------------------------------------------------------------------

    @cached_property
    def best(self) -> tuple[int, Card] | None:
        """``(seat, card)`` winning the trick so far: the highest card of the led suit."""
        if not self.trick:
            return None
        best: tuple[int, Card] | None = None
        for seat, cards in self.trick:
            for card in cards:
                if card.suit is self.led and (best is None or card.rank > best[1].rank):
                    best = (seat, card)
        return best

    def top(self, play: Play) -> Card | None:
        """The play's highest card of the led suit (``None``: it cannot win)."""
        cards = [c for c in play.cards if c.suit is self.led]
        return max(cards, key=lambda c: c.rank) if cards else None

    @staticmethod
    def top_any(play: Play) -> Card:
        """The play's highest card, of any suit."""
        return max(play.cards, key=lambda c: (c.rank, -c.index))

    def wins_now(self, play: Play) -> bool:
        """Whether ``play`` would beat the trick's best card so far."""
        best = self.best
        top = self.top(play)
        return top is not None and best is not None and top.rank > best[1].rank

    def following(self) -> bool:
        """Whether the seat can follow the led suit (its legal plays are of that suit)."""
        return bool(self.trick) and any(self.top(p) is not None for p in self.plays)

    def suit_led_before(self, suit: Suit) -> bool:
        """Whether ``suit`` was led in an earlier trick."""
        return any(t.plays[0][1][0].suit is suit for t in self.view.tricks)

    def penalty_free(self, plays: Sequence[Play]) -> list[Play]:
        """The plays that do not break a discard rule (垫牌规则: the offender takes the points)."""
        rule = self.rules.discard_rule
        if rule is None or self.led is None:
            return list(plays)
        preferred = rule.preferred.get(self.led, frozenset())
        if not any(c.suit in preferred for c in self.hand):
            return list(plays)
        good = [p for p in plays if all(c.suit in preferred or c.suit is self.led for c in p.cards)]
        return good or list(plays)

    # -- plans -------------------------------------------------------------------------

    @cached_property
    def full_hearts_plan(self) -> bool:
        """Whether to go for 满红: a long strong heart suit and no heart lost to another seat."""
        hearts = self.suit_cards(Suit.HEARTS)
        others_have = any(n for s, n in enumerate(self.hearts_taken_by) if s != self.seat)
        high = sum(1 for c in hearts if c.rank >= Rank.TEN)
        held = len(hearts) + self.hearts_taken_by[self.seat]
        return not others_have and len(hearts) >= 7 and high >= 4 and held >= 8


# -- helpers ---------------------------------------------------------------------------------


def _rank(play: Play) -> int:
    return max(int(c.rank) for c in play.cards)


def _lowest(plays: Sequence[Play]) -> Play:
    return min(plays, key=lambda p: (_rank(p), len(p.cards), p.key))


def _highest(plays: Sequence[Play]) -> Play:
    return max(plays, key=lambda p: (_rank(p), -p.key))


def _with(plays: Sequence[Play], card: Card) -> list[Play]:
    return [p for p in plays if card in p.cards]


# -- show rules ------------------------------------------------------------------------------


def first_show_decision(s: Situation) -> Action | None:
    """首明: decline, unless the ruleset forces it.

    Seed 001, 17: "首明的牌能否給自己增加正分或給別人增加負分完全靠運氣，所以，
    首明要謹慎" — whether a first show helps is luck, so be careful with it.
    """
    if s.view.phase is not Phase.FIRST_SHOW:
        return None
    shows = [a for a in s.legal if isinstance(a, Show)]
    return min(shows, key=lambda a: len(a.cards)) if shows else None


def _wanted_shows(s: Situation) -> set[Card]:
    hand = s.hand
    spades = s.suit_cards(Suit.SPADES)
    diamonds = s.suit_cards(Suit.DIAMONDS)
    want: set[Card] = set()
    if PIG in hand and len(spades) >= 5:
        want.add(PIG)  # 17: 明什么，其相应花色的牌就要多一些 (show with length in the suit)
    if SHEEP in hand and len(diamonds) >= 5 and any(c.rank > Rank.JACK for c in diamonds):
        want.add(SHEEP)  # 4a: 羊牌少時不要明羊 (few diamonds: do not show the sheep)
    if s.full_hearts_plan and HEART_ACE in hand:
        want.add(HEART_ACE)
    # 5b: the transformer is a double-edged sword: never shown by choice
    return set(sorted(want, key=lambda c: c.index)[:2])  # 17: 明牌不要超過兩張


def show_decision(s: Situation) -> Action | None:
    """亮牌 / 暗卖: show the pig or sheep only with length in its suit, at most two cards.

    Seed 001, 17: "明什么，其相应花色的牌就要多一些" (show a card when you hold
    many of its suit), "一家的明牌不要超過兩張" (never more than two shown);
    4a: "羊牌少時不要明羊" (few diamonds: do not show the sheep); 5: the
    transformer is a double-edged sword (not shown).  A secret sale of the
    same cards is preferred when offered: it scores the same and hides them.
    Under forced-show rules the nearest legal show is taken.
    """
    if s.view.phase is not Phase.SHOW:
        return None
    shows = [a for a in s.legal if isinstance(a, Show)]
    if not shows:
        return None
    want = _wanted_shows(s)

    def distance(show: Show) -> tuple[int, int, int]:
        cards = set(show.cards)
        kind_rank = 0 if show.kind is ShowKind.SECRET else 1
        return (len(cards ^ want), len(show.cards), kind_rank)

    return min(shows, key=distance)


# -- play rules: leading ---------------------------------------------------------------------


def run_full_hearts(s: Situation) -> Action | None:
    """满红: with a long strong heart suit and no heart lost, take the hearts.

    Seed 001, 1 and 15: go for full hearts only with the strength for it (a
    long suit, 大長套); once a heart is lost, give up (1c: 一旦跑了一張紅桃，
    就要由收紅桃改為分紅了).  Leads the top heart once the low ones are gone
    from the others' hands, and wins any trick that holds a heart.
    """
    if not s.plays or not s.full_hearts_plan:
        return None
    if s.position == 0:
        hearts = [p for p in s.plays if all(c.suit is Suit.HEARTS for c in p.cards)]
        if hearts and not any(s.unseen_higher(s.top_any(p)) for p in hearts[-1:]):
            return _highest(hearts)
        return None
    has_heart = any(c.suit is Suit.HEARTS for _, cards in s.trick for c in cards)
    if has_heart and s.led is not None:
        winners = [p for p in s.plays if s.wins_now(p)]
        if winners:
            return _highest(winners)
    return None


def take_sheep_when_safe(s: Situation) -> Action | None:
    """捉羊: lead a 羊圈 (♦Q/K/A) to catch the sheep, or win a trick the sheep lies in.

    Seed 001, 4c: "如果自己羊牌少，且有羊圈，應該在得到一圈牌的首領機會時直接出
    羊圈捉羊" (few diamonds and a catcher: lead it to catch the sheep); 4d: "在一味
    捉羊時也要小心豬等負分牌" (mind the pig while catching: the trick must be worth it).
    """
    if not s.plays:
        return None
    if s.position == 0:
        if not s.out(SHEEP) or s.holds(SHEEP):
            return None
        diamonds = s.suit_cards(Suit.DIAMONDS)
        if not 1 <= len(diamonds) <= 3:
            return None
        catchers = [
            p
            for p in s.plays
            if len(p.cards) == 1
            and p.cards[0].suit is Suit.DIAMONDS
            and p.cards[0].rank in _SHEEP_CATCHERS
            and not s.unseen_higher(p.cards[0])
        ]
        return _highest(catchers) if catchers else None
    sheep_here = any(SHEEP in cards for _, cards in s.trick)
    if not sheep_here or not s.following():
        return None
    value = s.trick_value
    if value <= 0:
        return None
    winners = [p for p in s.plays if s.wins_now(p) and s.play_value(p) >= 0]
    if not winners:
        return None
    if s.position == 3:
        return _lowest(winners)
    safe = [p for p in winners if not s.unseen_higher(s.top_any(p))]
    if safe and (not s.out(PIG) or s.position == 2):
        return _lowest(safe)
    return None


def capture_own_sheep(s: Situation) -> Action | None:
    """自得羊: holding the sheep, win it back when no higher diamond can take it.

    Seed 001, 4b: "在沒有可捉羊的東西的情況下，直接自得羊" (when nothing is left
    that can catch the sheep, take it yourself): lead it once every higher
    diamond is gone, or play it last on a point-free diamond trick it wins.
    Otherwise keep it under cover: follow diamonds low.
    """
    if not s.holds(SHEEP) or not s.plays:
        return None
    with_sheep = _with(s.plays, SHEEP)
    if s.position == 0:
        if with_sheep and not s.unseen_higher(SHEEP) and not s.out(PIG):
            return with_sheep[0]
        if with_sheep and not s.unseen_higher(SHEEP) and not s.others_void(Suit.DIAMONDS):
            return with_sheep[0]
        return None
    if s.led is not Suit.DIAMONDS or not s.following():
        return None
    winning = [p for p in with_sheep if s.wins_now(p)]
    if winning and s.trick_value >= 0 and (s.position == 3 or not s.unseen_higher(SHEEP)):
        return winning[0]
    others = [p for p in s.plays if SHEEP not in p.cards and s.top(p) is not None]
    if others and s.best is not None and s.best[1].rank > Rank.JACK and with_sheep:
        ducks = [p for p in others if not s.wins_now(p)]
        return _highest(ducks) if ducks else None
    return None


def hunt_pig_with_low_spades(s: Situation) -> Action | None:
    """拱豬: lead spades below the pig while the pig is out and I hold no spade above it.

    Seed 001, 12a: with several spades and neither the pig nor its guards
    (♠K, ♠A), lead spades to push the pig out (直接以大牌拱豬…不出豬還繼續拱);
    a spade below ♠Q never takes it unless its holder must follow with it.
    """
    if s.position != 0 or not s.out(PIG) or s.holds(PIG):
        return None
    spades = s.suit_cards(Suit.SPADES)
    if any(c.rank > Rank.QUEEN for c in spades) or len(spades) < 2:
        return None
    low = [
        p for p in s.plays if all(c.suit is Suit.SPADES and c.rank < Rank.QUEEN for c in p.cards)
    ]
    return _highest(low) if low else None


def void_short_suit(s: Situation) -> Action | None:
    """断门: lead from the shortest side suit of small cards, to be void in it early.

    Seed 001, 12b: "能首先斷門哪種花色就首先出那種花色的牌" (lead the suit you can
    void first); 14b: choose the suit with the fewest cards but not a lone
    high card (斷門不可盲目): the lead must be one another seat can beat.
    Never spades while holding the pig (3a: 不要領出黑桃).
    """
    if s.position != 0:
        return None
    best: tuple[int, int, Play] | None = None
    for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES):
        cards = s.suit_cards(suit)
        if not 1 <= len(cards) <= 2:
            continue
        if suit is Suit.SPADES and (s.holds(PIG) or s.out(PIG)):
            continue
        if suit is Suit.DIAMONDS and s.holds(SHEEP):
            continue
        if suit is Suit.CLUBS and s.holds(TRANSFORMER):
            continue
        plays = [p for p in s.plays if all(c.suit is suit for c in p.cards)]
        plays = [p for p in plays if s.unseen_higher(s.top_any(p)) >= 2]
        if not plays:
            continue
        low = _lowest(plays)
        key = (len(cards), _rank(low))
        if best is None or key < best[:2]:
            best = (key[0], key[1], low)
    return best[2] if best else None


def lead_low_safe_card(s: Situation) -> Action | None:
    """Lead the card least likely to win points: low, in a suit others still hold.

    Seed 001, 12c: "首引出牌牌小、不容易得到負分的花色" (lead small cards of a suit
    that will not collect negatives); 3a: not spades while holding the pig;
    3b: never a pig guard (♠K, ♠A) while the pig is out.
    """
    if s.position != 0 or not s.plays:
        return None

    def risk(p: Play) -> tuple[float, int]:
        card = s.top_any(p)
        higher = s.unseen_higher(card)
        points = -s.play_value(p)
        danger = 0.0 if higher else 10.0
        danger += 1.0 / (1 + higher)
        if card.suit is Suit.SPADES:
            if s.out(PIG) and card.rank in _SPADE_GUARDS:
                danger += 20
            if s.holds(PIG) and len(s.suit_cards(Suit.SPADES)) <= 3:
                danger += 5
        if card in (PIG, SHEEP, TRANSFORMER):
            danger += 8
        if card.suit is Suit.HEARTS and not higher:
            danger += 5
        if s.others_void(card.suit):
            danger += 2
        return (danger + points / 50, int(card.rank))

    return min(s.plays, key=risk)


# -- play rules: following -------------------------------------------------------------------


def guard_pig_until_safe(s: Situation) -> Action | None:
    """Play the pig on a trick already won by ♠K or ♠A; otherwise keep it under cover.

    Seed 001, 3a/3b: hold the pig back and "以適當時機扔出豬" (throw it at the
    right moment): when a spade above the pig is winning, the pig goes to that
    seat.  Holding the pig, follow spades low otherwise.
    """
    if s.led is not Suit.SPADES or not s.holds(PIG) or not s.following():
        return None
    best = s.best
    with_pig = _with(s.plays, PIG)
    if best is not None and best[1].rank > Rank.QUEEN and with_pig:
        return _lowest(with_pig)
    below = [p for p in s.plays if PIG not in p.cards and not s.wins_now(p)]
    if below:
        return _highest(below)
    return None


def avoid_transformer_with_negatives(s: Situation) -> Action | None:
    """Do not take the transformer while holding negative points.

    Seed 001, 12c: "一旦有了負分，就一定要不得到變壓器" (once you have negative
    points, never take the transformer); 5b.  Clubs led with my points below
    zero: duck under the best club while the transformer is in the trick or out.
    """
    if s.led is not Suit.CLUBS or not s.following() or s.taken[s.seat] >= 0:
        return None
    if not (s.transformer_in_trick() or s.out(TRANSFORMER)):
        return None
    ducks = [p for p in s.plays if not s.wins_now(p) and TRANSFORMER not in p.cards]
    if ducks:
        return _highest(ducks)
    return None


def dump_transformer_on_loser(s: Situation) -> Action | None:
    """Give the transformer to a seat that holds negative points.

    Seed 001, 16: "一家已經得到了豬，此時，其余三人的目標就應該是給這一家變壓器"
    (once a seat has the pig, give it the transformer); "一家得到了羊或全紅，就不要
    給這一家變壓器" (never to a seat with the sheep or full hearts).
    """
    if not s.holds(TRANSFORMER) or s.best is None:
        return None
    winner, best_card = s.best
    if s.taken[winner] >= 0 or winner == s.seat:
        return None
    candidates = [p for p in _with(s.plays, TRANSFORMER) if not s.wins_now(p)]
    candidates = [p for p in s.penalty_free(candidates)] if candidates else []
    if not candidates:
        return None
    if s.led is Suit.CLUBS and best_card.rank < Rank.TEN:
        return None
    if s.position < 3 and s.led is not None:
        later_beat = s.unseen_higher(best_card) if best_card.suit is s.led else 0
        if later_beat and s.led is Suit.CLUBS:
            return None
    return candidates[0]


def duck_under_when_hearts_in_trick(s: Situation) -> Action | None:
    """With points against the winner in the trick, play under the winning card.

    Seed 001, 11 and 12c: avoid collecting negatives: when hearts (or the pig)
    lie in the trick, follow with the highest card that still loses; when
    every card wins, play the highest if last (the trick is mine anyway, shed
    the big card) and the lowest otherwise (a later seat may still overtake).
    """
    if not s.following() or (s.trick_value >= 0 and s.led is not Suit.HEARTS):
        return None
    plays = s.penalty_free(s.plays)
    ducks = [p for p in plays if not s.wins_now(p)]
    if ducks:
        return _highest(ducks)
    if s.position == 3:
        return _highest(plays)
    return _lowest(plays)


def natural_following(s: Situation) -> Action | None:
    """自然跟牌法: in a suit's second and later rounds, follow under the previous seat's card.

    Seed 001, 11: "上家出大牌則跟跟大牌，上家出小牌則跟小牌，但一定跟的牌要小于本家
    的上家，但大于本家持有的該花色最小的牌" — follow below the card of the seat
    before, but above my lowest of the suit (kept as an exit card), unless
    only one card can be played.
    """
    if not s.following() or s.position == 3 or s.led is None:
        return None
    if not s.suit_led_before(s.led):
        return None
    previous = s.trick[-1][1]
    prev_top = max((c for c in previous if c.suit is s.led), key=lambda c: c.rank, default=None)
    if prev_top is None:
        prev_top = s.best[1] if s.best else None
    if prev_top is None:
        return None
    on_suit = [p for p in s.plays if s.top(p) is not None]
    if len(on_suit) == 1:
        return on_suit[0]
    lowest = _lowest(on_suit)
    under = [
        p
        for p in on_suit
        if p is not lowest and _rank(p) < int(prev_top.rank) and not s.wins_now(p)
    ]
    if under:
        return _highest(under)
    return None


def shed_high_card_when_last_and_clean(s: Situation) -> Action | None:
    """Last to play on a point-free trick: win it with the highest card (shed a big card).

    Seed 001, 8 and 12b: keep small exit cards (脫手張) and get rid of the
    high ones when it costs nothing: a clean trick taken last costs no points.
    Not with the transformer out while holding negatives (12c).
    """
    if s.position != 3 or not s.following() or s.trick_value < 0:
        return None
    if s.transformer_in_trick() and s.taken[s.seat] < 0:
        return None
    plays = [p for p in s.plays if PIG not in p.cards]
    if not plays:
        return None
    if s.trick_value > 0:
        winners = [p for p in plays if s.wins_now(p)]
        return _highest(winners) if winners else None
    return _highest(plays)


# -- play rules: discarding ------------------------------------------------------------------


def dump_pig_on_discard(s: Situation) -> Action | None:
    """垫猪: void in the led suit, discard the pig onto another seat's trick.

    Seed 001, 3a: "在以適當時機扔出豬或豬圈" (throw the pig when the moment comes);
    14: voiding a suit is what makes discarding the pig possible.  Not when a
    discard rule would make me take the trick's points for it.
    """
    if not s.trick or s.following() or not s.holds(PIG):
        return None
    plays = s.penalty_free(_with(s.plays, PIG))
    plays = [p for p in plays if p in s.penalty_free(s.plays)]
    return plays[0] if plays else None


def discard_pig_guards(s: Situation) -> Action | None:
    """Void in the led suit with the pig still out: discard ♠A or ♠K, the pig's catchers.

    Seed 001, 3b/3c: a high spade held while the pig is out is how one
    takes it (the pig is dropped under it); with few spades, discard them.
    """
    if not s.trick or s.following() or not s.out(PIG):
        return None
    spades = s.suit_cards(Suit.SPADES)
    guards = [c for c in spades if c.rank in _SPADE_GUARDS]
    if not guards or len(spades) - len(guards) >= 3:
        return None
    plays = [p for p in s.penalty_free(s.plays) if any(c in guards for c in p.cards)]
    return _highest(plays) if plays else None


def dump_big_hearts_on_discard(s: Situation) -> Action | None:
    """Discard the heart worth the most points (♥A first) onto another seat's trick.

    Seed 001, 2a: "在能墊到其他不收全紅家的情況下，立即墊出" (discard big hearts as
    soon as you can onto a seat not going for full hearts).
    """
    if not s.trick or s.following():
        return None
    plays = s.penalty_free(s.plays)
    hearts = [p for p in plays if any(c.suit is Suit.HEARTS for c in p.cards)]
    if not hearts:
        return None
    if s.full_hearts_plan:
        return None
    worst = min(hearts, key=lambda p: (s.play_value(p), -_rank(p)))
    if s.play_value(worst) >= 0 and _rank(worst) < Rank.TEN:
        return None
    return worst


def discard_dangerous_cards(s: Situation) -> Action | None:
    """Discard the cards that would win tricks later: pig guards, then the highest card.

    Seed 001, 3b/3c: ♠K and ♠A catch the pig while it is out; 14: discard
    from short suits to void them; never the sheep (a positive card).
    """
    if not s.trick or s.following():
        return None
    plays = s.penalty_free(s.plays)
    plays = [p for p in plays if SHEEP not in p.cards] or plays

    def danger(p: Play) -> tuple[int, int, int]:
        card = s.top_any(p)
        guard = card.suit is Suit.SPADES and card.rank in _SPADE_GUARDS and s.out(PIG)
        length = len(s.suit_cards(card.suit))
        return (1 if guard else 0, _rank(p) - 2 * length, -p.key)

    return max(plays, key=danger)


def safe_fallback(s: Situation) -> Action:
    """Any time: the lowest legal play carrying no positive points, else the first legal action.

    Not an advice: the rule of last resort, so the bot always has a legal answer.
    """
    if s.plays:
        plays = [p for p in s.plays if s.play_value(p) <= 0] or list(s.plays)
        return _lowest(plays)
    return s.legal[0]


SHOW_RULES: tuple[Rule, ...] = (first_show_decision, show_decision)
"""The rules asked in the show phases, in order."""

PLAY_RULES: tuple[Rule, ...] = (
    run_full_hearts,
    take_sheep_when_safe,
    capture_own_sheep,
    guard_pig_until_safe,
    dump_pig_on_discard,
    discard_pig_guards,
    dump_transformer_on_loser,
    dump_big_hearts_on_discard,
    discard_dangerous_cards,
    avoid_transformer_with_negatives,
    duck_under_when_hearts_in_trick,
    natural_following,
    shed_high_card_when_last_and_clean,
    hunt_pig_with_low_spades,
    void_short_suit,
    lead_low_safe_card,
)
"""The rules asked in the play phase, in order; :func:`safe_fallback` after them."""


class HeuristicBot:
    """A rule-based player (see the module docstring and :data:`PLAY_RULES`).

    :param seed: seeds the tie-breaking among equal choices (the rules are
        deterministic; the seed is accepted for a uniform factory interface).
    :param rules: the ruleset being played (card values, showable cards,
        discard rule); the view does not carry it.  Default: 39baobao.
    :param rules_order: the play rules to use, in order (default :data:`PLAY_RULES`).
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        rules_order: Sequence[Rule] | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        self.rules = load_rules() if rules is None else rules
        self.play_rules = tuple(PLAY_RULES if rules_order is None else rules_order)
        self.last_rule: str | None = None
        """The name of the rule that made the last decision (for tests and explanations)."""

    def choose(self, view: SeatView) -> Action:
        """The first firing rule's action (always one of ``view.legal_actions``)."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            self.last_rule = "only-action"
            return legal[0]
        situation = Situation(view, self.rules)
        rules = SHOW_RULES if view.phase is not Phase.PLAY else self.play_rules
        for rule in rules:
            action = rule(situation)
            if action is not None and action in legal:
                self.last_rule = rule.__name__
                return action
        self.last_rule = "safe_fallback"
        return safe_fallback(situation)


# -------------------------------------------------------------------------------------------------
# The search bot: determinised Monte-Carlo search
# -------------------------------------------------------------------------------------------------

DEFAULT_BUDGET_MS = 50.0
"""The default time budget of one decision, in milliseconds (on one core)."""

RolloutPolicy = Callable[[HandState, random.Random], Action]
"""A fast policy for playouts: the action to apply in a (full-information) state."""

_QUEEN = int(Rank.QUEEN)
_SPADES = Suit.SPADES
_HEARTS = Suit.HEARTS


def _values(rules: Rules) -> tuple[int, ...]:
    """Each card's base value by index (pig, sheep, hearts; 0 for the rest)."""
    values = [0] * 52
    for card in full_deck():
        values[card.index] = rules.table.base_value(card)
    return tuple(values)


_VALUE_CACHE: dict[int, tuple[int, ...]] = {}


def _card_values(rules: Rules) -> tuple[int, ...]:
    key = id(rules)
    values = _VALUE_CACHE.get(key)
    if values is None:
        values = _VALUE_CACHE[key] = _values(rules)
    return values


def random_rollout_policy(state: HandState, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


def _top(play: Play) -> Card:
    cards = play.cards
    return cards[0] if len(cards) == 1 or cards[0].rank >= cards[1].rank else cards[1]


def greedy_rollout_policy(state: HandState, rng: random.Random) -> Action:
    """A cheap greedy player: the heuristic's main rules, reading only the trick and the cards.

    Leads low (never the pig, its guards, the sheep or the transformer by
    choice); follows under a trick holding points, wins a trick holding the
    sheep, drops the pig under ♠K/♠A; discards the pig, then the transformer
    onto points, the worst heart, then high cards, never the sheep.  A few
    microseconds a decision, for playouts on sampled states.
    """
    if state.phase is not Phase.PLAY:
        return rng.choice(state.legal_actions())
    legal = cast(tuple[Play, ...], state.legal_actions())
    if len(legal) == 1:
        return legal[0]
    trick = state.current_trick
    if not trick:
        best_play = legal[0]
        best_key = 1e9
        for play in legal:
            card = _top(play)
            rank = int(card.rank)
            key = rank + rng.random()
            if card.suit is _SPADES:
                if card == PIG:
                    key += 30
                elif rank > _QUEEN:
                    key += 20
            elif card.suit is _HEARTS:
                key += 2
            elif card in (SHEEP, TRANSFORMER):
                key += 15
            if key < best_key:
                best_key, best_play = key, play
        return best_play
    values = _card_values(state.rules)
    led = trick[0][1][0].suit
    best_rank = 0
    points = 0
    negative = False
    transformer = False
    for _seat, cards in trick:
        for card in cards:
            value = values[card.index]
            points += value
            negative = negative or value < 0
            transformer = transformer or card == TRANSFORMER
            if card.suit is led and card.rank > best_rank:
                best_rank = int(card.rank)
    last = len(trick) == 3
    follow = [p for p in legal if p.cards[0].suit is led]
    if follow:
        if led is _SPADES and best_rank > _QUEEN:
            for play in follow:
                if PIG in play.cards:
                    return play
        under = [p for p in follow if int(_top(p).rank) < best_rank]
        over = [p for p in follow if int(_top(p).rank) > best_rank]
        if negative or led is _HEARTS:
            if under:
                return max(under, key=_top_rank)
            return max(follow, key=_top_rank) if last else min(follow, key=_top_rank)
        safe = [p for p in follow if PIG not in p.cards] or follow
        if points > 0 and over:
            return min(over, key=_top_rank) if last else max(over, key=_top_rank)
        if last:
            for play in over:
                if SHEEP in play.cards:
                    return play
            keep = [p for p in safe if SHEEP not in p.cards and TRANSFORMER not in p.cards]
            return max(keep or safe, key=_top_rank)
        if under:
            return max(under, key=_top_rank)
        return min(safe, key=_top_rank)
    worst = legal[0]
    worst_key = -1e9
    for play in legal:
        value = 0
        rank = 0
        for card in play.cards:
            value += values[card.index]
            rank = max(rank, int(card.rank))
        key = -value * 2 + rank
        if PIG in play.cards:
            key += 1000
        if TRANSFORMER in play.cards:
            key += 300 if negative else -30
        if value > 0:
            key -= 500
        if key > worst_key:
            worst_key, worst = key, play
    return worst


def _top_rank(play: Play) -> int:
    return int(_top(play).rank)


_POLICIES: dict[str, RolloutPolicy] = {
    "greedy": greedy_rollout_policy,
    "random": random_rollout_policy,
}


class SearchBot:
    """Determinised Monte-Carlo search: sampled deals, each action played out, best mean score.

    :param seed: seeds the sampling and the playouts.
    :param rules: the ruleset being played (the view does not carry it; the
        sampled states are hands of this ruleset).  Default: 39baobao.
    :param budget_ms: the time budget of one decision, in milliseconds
        (default :data:`DEFAULT_BUDGET_MS`); ``None`` for no time limit.
    :param samples: the most sampled deals per decision (``None``: as many
        as the time budget allows).  With ``budget_ms=None`` this makes the
        bot deterministic for a seed, whatever the machine.
    :param rollout: the playout policy: ``"greedy"`` (default) or ``"random"``,
        or a :data:`RolloutPolicy`.
    :param playouts: playouts per action per sampled deal.
    :param margin: the search overrules the heuristic's choice only when its
        best action beats it by more than ``margin`` standard errors (paired
        over the sampled deals); ``None`` always takes the search's best.
    :param prune: after four sampled deals, stop playing out the actions whose
        mean is ``prune`` standard errors (paired) below the best's, so the
        budget goes to the contenders; ``None`` plays out every action.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        samples: int | None = None,
        rollout: str | RolloutPolicy = "greedy",
        playouts: int = 1,
        margin: float | None = 1.0,
        prune: float | None = 2.0,
    ) -> None:
        if budget_ms is None and samples is None:
            raise ValueError("SearchBot needs a budget: budget_ms, samples or both")
        self.rules = load_rules() if rules is None else rules
        self.budget_ms = budget_ms
        self.samples = samples
        self.playouts = playouts
        self.margin = margin
        self.prune = prune
        self.policy: RolloutPolicy = _POLICIES[rollout] if isinstance(rollout, str) else rollout
        self._rng = random.Random(seed)
        self._fallback = HeuristicBot(seed, rules=self.rules)
        self.last_stats: dict[str, float] = {}
        """Of the last decision: ``samples`` drawn, ``playouts`` run, ``ms`` spent."""

    def choose(self, view: SeatView) -> Action:
        """The legal action with the best mean score over sampled deals and playouts."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            return legal[0]
        if view.phase is not Phase.PLAY:
            return self._fallback.choose(view)
        return self._search(view, legal)

    def _search(self, view: SeatView, legal: Sequence[Action]) -> Action:
        start = time.perf_counter()
        deadline = None if self.budget_ms is None else start + self.budget_ms / 1000
        rng = self._rng
        seat = view.seat
        prior = self._fallback.choose(view) if self.margin is not None else None
        keep = None if prior is None else legal.index(prior)
        scores: list[list[float]] = [[] for _ in legal]
        active = list(range(len(legal)))
        try:
            facts = knowledge(view, self.rules)
        except Inconsistent:
            return self._fallback.choose(view)
        samples = 0
        playouts = 0
        policy = self.policy
        while self.samples is None or samples < self.samples:
            if deadline is not None and samples:
                now = time.perf_counter()
                per_sample = (now - start) / samples
                if now + per_sample > deadline:  # the next sample would overrun the budget
                    break
            try:
                state = determinize(view, self.rules, rng, tries=20, check=False, facts=facts)
            except Inconsistent:
                break
            samples += 1
            for i in active:
                total = 0.0
                for _ in range(self.playouts):
                    child = state.clone()
                    child.apply(legal[i])
                    while not child.is_over:
                        child.apply(policy(child, rng))
                    total += child.returns()[seat]
                scores[i].append(total / self.playouts)
                playouts += self.playouts
            if self.prune is not None and samples >= 4 and len(active) > 2:
                active = self._pruned(active, scores, keep)
        self.last_stats = {
            "samples": samples,
            "playouts": playouts,
            "ms": (time.perf_counter() - start) * 1000,
        }
        if not samples:
            return self._fallback.choose(view)
        means = {i: sum(scores[i]) / len(scores[i]) for i in active}
        best = max(active, key=means.__getitem__)
        if keep is None or best == keep or samples < 2:
            return legal[best]
        # keep the heuristic's choice unless the search is sure enough it is worse
        mean, stderr = _paired(scores[best], scores[keep])
        assert self.margin is not None
        if mean > self.margin * stderr:
            return legal[best]
        return legal[keep]

    def _pruned(self, active: list[int], scores: list[list[float]], keep: int | None) -> list[int]:
        """``active`` less the actions clearly worse than the best so far (``prune`` errors)."""
        assert self.prune is not None
        best = max(active, key=lambda i: sum(scores[i]) / len(scores[i]))
        out = []
        for i in active:
            if i in (best, keep):
                out.append(i)
                continue
            mean, stderr = _paired(scores[best], scores[i])
            if mean <= self.prune * stderr:
                out.append(i)
        return out


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """The mean of ``a - b`` over their common (first) samples, and its standard error."""
    n = min(len(a), len(b))
    diffs = [x - y for x, y in zip(a[:n], b[:n], strict=True)]
    if n < 2:
        return (diffs[0] if diffs else 0.0), float("inf")
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5
