"""The rules of thumb from the sources' strategy advice, each a named function, and the bot that
plays by them alone.

:class:`RulesBot` (the ``rules`` bot) asks :data:`SHOW_RULES` in the show phases and
:data:`PLAY_RULES` in play, in order, and plays the first answer; :func:`safe_fallback`
answers when none does.  It searches nothing, so it is the fastest bot worth playing
against; the default ``heuristic`` bot (:class:`~gongzhu.bots.heuristic.HeuristicBot`)
checks its play with a small search, and the ``search`` bot
(:class:`~gongzhu.bots.search.SearchBot`) keeps its play unless the search finds a better one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cached_property

from ..actions import Action, Play, Show, ShowKind, key_of_play
from ..cards import HEART_ACE, PIG, SHEEP, TRANSFORMER, Card, Rank, Suit, full_deck
from ..deal import SEATS
from ..implied import card_values, trick_winner, voids
from ..rules import Rules, load_rules
from ..view import Phase, SeatView
from .teams import SOLO, TableFormat, format_of

__all__ = [
    "PLAY_RULES",
    "SHOW_RULES",
    "Rule",
    "RulesBot",
    "Situation",
    "alike_plays",
    "avoid_transformer_with_negatives",
    "capture_own_sheep",
    "discard_dangerous_cards",
    "discard_pig_guards",
    "duck_under_when_hearts_in_trick",
    "dump_big_hearts_on_discard",
    "dump_pig_on_discard",
    "dump_transformer_on_loser",
    "feed_partner",
    "first_show_decision",
    "guard_pig_until_safe",
    "hunt_pig_with_low_spades",
    "lead_low_safe_card",
    "natural_following",
    "nearest_show",
    "quick_show",
    "run_full_hearts",
    "safe_fallback",
    "shed_high_card_when_last_and_clean",
    "show_decision",
    "take_sheep_when_safe",
    "void_short_suit",
    "wanted_shows",
]


Rule = Callable[["Situation"], Action | None]
"""A rule of thumb: an action it recommends (always a legal one), or ``None``."""

_SPADE_GUARDS = (Rank.KING, Rank.ACE)
_SHEEP_CATCHERS = (Rank.QUEEN, Rank.KING, Rank.ACE)


class Situation:
    """A seat's view, read for the rules: the trick, the cards seen, the points taken.

    :ivar view: the seat's view.
    :ivar rules: the ruleset (for card values, showable cards, the discard rule).
    :ivar format: the table's format (who are partners); :data:`~gongzhu.bots.SOLO`
        by default.
    """

    def __init__(self, view: SeatView, rules: Rules, format: TableFormat = SOLO) -> None:
        self.view = view
        self.rules = rules
        self.format = format
        self.seat = view.seat
        self.partners = format.partners(view.seat)
        """The seat's partners (none when every seat plays for itself)."""
        self.holding = view.holding
        """The seat's cards."""
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
        """Cards neither played nor in the seat's holding: held by the others."""
        left = Counter(full_deck(self.rules.table.copies))
        left.subtract(self.played)
        left.subtract(self.holding)
        return +left

    def out(self, card: Card) -> bool:
        """Whether another seat may still hold ``card``."""
        return self.unseen[card] > 0

    def suit_cards(self, suit: Suit) -> list[Card]:
        """The seat's cards of ``suit``, low to high."""
        return sorted(c for c in self.holding if c.suit is suit)

    def unseen_higher(self, card: Card) -> int:
        """How many unseen cards of ``card``'s suit rank above it."""
        return sum(n for c, n in self.unseen.items() if c.suit is card.suit and c.rank > card.rank)

    @cached_property
    def voids(self) -> tuple[frozenset[Suit], ...]:
        """The suits each seat is known to be void in (see :func:`voids`)."""
        return voids(self.view, self.rules)

    def others_void(self, suit: Suit) -> bool:
        """Whether another seat is known to be void in ``suit`` (it may discard on it)."""
        return any(suit in v for seat, v in enumerate(self.voids) if seat != self.seat)

    def friendly(self, seat: int) -> bool:
        """Whether ``seat`` is this seat or one of its partners."""
        return seat == self.seat or seat in self.partners

    def holds(self, card: Card) -> bool:
        """Whether the seat holds ``card``."""
        return card in self.holding

    # -- values ------------------------------------------------------------------------

    @cached_property
    def values(self) -> tuple[int, ...]:
        """Each card's worth to whoever takes it, by card index, given the shows the seat
        sees: :func:`gongzhu.implied.card_values` (the scorer's values; with two decks a
        card's first copy, its shown copy where one is shown)."""
        return card_values(self.rules, self.view)

    def value(self, card: Card) -> int:
        """The points ``card`` is worth to whoever takes it (the transformer: 0)."""
        return self.values[card.index]

    def play_value(self, play: Play) -> int:
        """The points of a play's cards."""
        return sum(self.value(c) for c in play.cards)

    @cached_property
    def taken(self) -> tuple[int, ...]:
        """Each seat's points taken so far (pig, sheep and hearts; the transformer ignored)."""
        points = [0] * SEATS
        for trick in self.view.tricks:
            points[trick.taker] += sum(self.value(c) for c in trick.cards)
        return tuple(points)

    @cached_property
    def hearts_taken_by(self) -> tuple[int, ...]:
        """How many hearts each seat has taken."""
        counts = [0] * SEATS
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
    def trick_keys(self) -> tuple[int, ...]:
        """The play keys of the trick under way."""
        return tuple(key_of_play(cards) for _, cards in self.trick)

    @cached_property
    def best(self) -> tuple[int, Card] | None:
        """``(seat, card)`` winning the trick so far (:func:`gongzhu.implied.trick_winner`,
        pairs ranked as the ruleset ranks them) and that play's highest card."""
        if not self.trick:
            return None
        leader = self.trick[0][0]
        seat = trick_winner(self.rules, leader, self.trick_keys)
        cards = self.trick[(seat - leader) % SEATS][1]
        return (seat, max(cards, key=lambda c: (c.rank, -c.index)))

    def top(self, play: Play) -> Card | None:
        """The play's highest card of the led suit (``None``: it cannot win)."""
        cards = [c for c in play.cards if c.suit is self.led]
        return max(cards, key=lambda c: c.rank) if cards else None

    @staticmethod
    def top_any(play: Play) -> Card:
        """The play's highest card, of any suit."""
        return max(play.cards, key=lambda c: (c.rank, -c.index))

    def wins_now(self, play: Play) -> bool:
        """Whether ``play`` would win the trick under way so far (``False`` when leading)."""
        if not self.trick:
            return False
        keys = (*self.trick_keys, play.key)
        return trick_winner(self.rules, self.trick[0][0], keys) == self.seat

    def partner_winning(self) -> bool:
        """Whether a partner's card is winning the trick under way."""
        best = self.best
        return best is not None and best[0] in self.partners

    def secure_for_team(self) -> bool:
        """Whether a partner's card wins the trick whatever the seats after me play.

        Each opponent still to play is known void in the led suit, or no
        unseen card of it ranks above the winning card.
        """
        best = self.best
        if best is None or best[0] not in self.partners:
            return False
        later = [(self.trick[0][0] + k) % SEATS for k in range(self.position + 1, SEATS)]
        rivals = [seat for seat in later if seat not in self.partners]
        if not rivals or not self.unseen_higher(best[1]):
            return True
        return all(best[1].suit in self.voids[seat] for seat in rivals)

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
        if not any(c.suit in preferred for c in self.holding):
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


def alike_plays(s: Situation) -> list[list[Play]]:
    """The seat's legal plays in groups that cannot differ in any play, low to high.

    Two cards of a suit are alike when the seat holds both, no card between
    them in rank is held by another seat or lies in the trick under way, and
    the ruleset values them alike (the same points to whoever takes them,
    both scoring or neither, both showable or neither): whatever anyone
    plays after, either wins or loses exactly where the other would.  With
    two decks, and with plays of two cards, every play is a group of its own.
    """
    plays = list(s.plays)
    table = s.rules.table
    if table.copies != 1 or any(len(p.cards) != 1 for p in plays):
        return [[p] for p in plays]
    live = [*s.unseen, *(c for _, cards in s.trick for c in cards)]
    values = s.values
    showable = table.showable

    def kind(card: Card) -> tuple[int, bool, bool]:
        return (values[card.index], table.is_scoring(card), card in showable)

    groups: list[list[Play]] = []
    last: Card | None = None
    for play in sorted(plays, key=lambda p: (p.cards[0].suit, p.cards[0].rank)):
        card = play.cards[0]
        if (
            last is not None
            and last.suit is card.suit
            and kind(last) == kind(card)
            and not any(c.suit is card.suit and last.rank < c.rank < card.rank for c in live)
        ):
            groups[-1].append(play)
        else:
            groups.append([play])
        last = card
    return groups


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

    Source 001, 17: "首明的牌能否給自己增加正分或給別人增加負分完全靠運氣，所以，
    首明要謹慎" — whether a first show helps is luck, so be careful with it.
    """
    if s.view.phase is not Phase.FIRST_SHOW:
        return None
    shows = [a for a in s.legal if isinstance(a, Show)]
    return min(shows, key=lambda a: len(a.cards)) if shows else None


def wanted_shows(holding: Sequence[Card]) -> set[Card]:
    """The cards the show advice would show from ``holding`` (at most two).

    Source 001, 17: "明什么，其相应花色的牌就要多一些" (show a card when you hold
    many of its suit), "一家的明牌不要超過兩張" (never more than two shown);
    4a: "羊牌少時不要明羊" (few diamonds: do not show the sheep); 5: the
    transformer is a double-edged sword (not shown); the showable heart only
    with a hand for 满红.
    """
    spades = [c for c in holding if c.suit is Suit.SPADES]
    diamonds = [c for c in holding if c.suit is Suit.DIAMONDS]
    hearts = [c for c in holding if c.suit is Suit.HEARTS]
    want: set[Card] = set()
    if PIG in holding and len(spades) >= 5:
        want.add(PIG)
    if SHEEP in holding and len(diamonds) >= 5 and any(c.rank > Rank.JACK for c in diamonds):
        want.add(SHEEP)
    strong_hearts = sum(1 for c in hearts if c.rank >= Rank.TEN)
    if HEART_ACE in holding and len(hearts) >= 8 and strong_hearts >= 4:
        want.add(HEART_ACE)  # the 满红 plan (Situation.full_hearts_plan) before any trick
    return set(sorted(want, key=lambda c: c.index)[:2])


def nearest_show(legal: Sequence[Action], want: set[Card]) -> Show | None:
    """The legal show closest to showing exactly ``want`` (a secret sale preferred), if any."""
    shows = [a for a in legal if isinstance(a, Show)]
    if not shows:
        return None

    def distance(show: Show) -> tuple[int, int, int]:
        cards = set(show.cards)
        kind_rank = 0 if show.kind is ShowKind.SECRET else 1
        return (len(cards ^ want), len(show.cards), kind_rank)

    return min(shows, key=distance)


def quick_show(phase: Phase, legal: Sequence[Action], holding: Sequence[Card]) -> Action:
    """The show rules' choice from a holding alone (no view): for playouts that reach a show.

    :func:`first_show_decision` in the 首明 phase, :func:`show_decision` in
    the show phase; the first legal action when neither has one.
    """
    if phase is Phase.FIRST_SHOW:
        shows = [a for a in legal if isinstance(a, Show)]
        return min(shows, key=lambda a: len(a.cards)) if shows else legal[0]
    return nearest_show(legal, wanted_shows(holding)) or legal[0]


def show_decision(s: Situation) -> Action | None:
    """亮牌 / 暗卖: show the pig or sheep only with length in its suit, at most two cards.

    Source 001, 17: "明什么，其相应花色的牌就要多一些" (show a card when you hold
    many of its suit), "一家的明牌不要超過兩張" (never more than two shown);
    4a: "羊牌少時不要明羊" (few diamonds: do not show the sheep); 5: the
    transformer is a double-edged sword (not shown).  A secret sale of the
    same cards is preferred when offered: it scores the same and hides them.
    Under forced-show rules the nearest legal show is taken
    (:func:`wanted_shows`, :func:`nearest_show`).
    """
    if s.view.phase is not Phase.SHOW:
        return None
    return nearest_show(s.legal, wanted_shows(s.holding))


# -- play rules: leading ---------------------------------------------------------------------


def run_full_hearts(s: Situation) -> Action | None:
    """满红: with a long strong heart suit and no heart lost, take the hearts.

    Source 001, 1 and 15: go for full hearts only with the strength for it (a
    long suit, 大長套); once a heart is lost, give up (1c: 一旦跑了一張紅桃，
    就要由收紅桃改為分紅了).  Leads the top heart once the low ones are gone
    from the others' holdings, and wins any trick that holds a heart.
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

    Source 001, 4c: "如果自己羊牌少，且有羊圈，應該在得到一圈牌的首領機會時直接出
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

    Source 001, 4b: "在沒有可捉羊的東西的情況下，直接自得羊" (when nothing is left
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

    Source 001, 12a: with several spades and neither the pig nor its guards
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

    Source 001, 12b: "能首先斷門哪種花色就首先出那種花色的牌" (lead the suit you can
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

    Source 001, 12c: "首引出牌牌小、不容易得到負分的花色" (lead small cards of a suit
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

    Source 001, 3a/3b: hold the pig back and "以適當時機扔出豬" (throw it at the
    right moment): when a spade above the pig is winning, the pig goes to that
    seat (never to a partner).  Holding the pig, follow spades low otherwise.
    """
    if s.led is not Suit.SPADES or not s.holds(PIG) or not s.following():
        return None
    best = s.best
    with_pig = _with(s.plays, PIG)
    if best is not None and best[1].rank > Rank.QUEEN and with_pig and not s.partner_winning():
        return _lowest(with_pig)
    below = [p for p in s.plays if PIG not in p.cards and not s.wins_now(p)]
    if below:
        return _highest(below)
    return None


def avoid_transformer_with_negatives(s: Situation) -> Action | None:
    """Do not take the transformer while holding negative points.

    Source 001, 12c: "一旦有了負分，就一定要不得到變壓器" (once you have negative
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

    Source 001, 16: "一家已經得到了豬，此時，其余三人的目標就應該是給這一家變壓器"
    (once a seat has the pig, give it the transformer); "一家得到了羊或全紅，就不要
    給這一家變壓器" (never to a seat with the sheep or full hearts).
    """
    if not s.holds(TRANSFORMER) or s.best is None:
        return None
    winner, best_card = s.best
    if s.taken[winner] >= 0 or s.friendly(winner):
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

    Source 001, 11 and 12c: avoid collecting negatives: when hearts (or the pig)
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

    Source 001, 11: "上家出大牌則跟跟大牌，上家出小牌則跟小牌，但一定跟的牌要小于本家
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

    Source 001, 8 and 12b: keep small exit cards (脫手張) and get rid of the
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

    Source 001, 3a: "在以適當時機扔出豬或豬圈" (throw the pig when the moment comes);
    14: voiding a suit is what makes discarding the pig possible.  Not when a
    discard rule would make me take the trick's points for it.
    """
    if not s.trick or s.following() or not s.holds(PIG) or s.partner_winning():
        return None
    plays = s.penalty_free(_with(s.plays, PIG))
    plays = [p for p in plays if p in s.penalty_free(s.plays)]
    return plays[0] if plays else None


def discard_pig_guards(s: Situation) -> Action | None:
    """Void in the led suit with the pig still out: discard ♠A or ♠K, the pig's catchers.

    Source 001, 3b/3c: a high spade held while the pig is out is how one
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

    Source 001, 2a: "在能墊到其他不收全紅家的情況下，立即墊出" (discard big hearts as
    soon as you can onto a seat not going for full hearts).
    """
    if not s.trick or s.following() or s.partner_winning():
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

    Source 001, 3b/3c: ♠K and ♠A catch the pig while it is out; 14: discard
    from short suits to void them; never the sheep (a positive card).
    """
    if not s.trick or s.following():
        return None
    plays = s.penalty_free(s.plays)
    plays = [p for p in plays if SHEEP not in p.cards] or plays
    if s.partner_winning():  # no points onto a partner's trick
        plays = [p for p in plays if s.play_value(p) >= 0 and TRANSFORMER not in p.cards] or plays
    return max(plays, key=lambda p: _discard_danger(s, p))


def _discard_danger(s: Situation, p: Play) -> tuple[int, int, int]:
    """How much a discard is worth getting rid of: pig guards, then high cards of short suits."""
    card = s.top_any(p)
    guard = card.suit is Suit.SPADES and card.rank in _SPADE_GUARDS and s.out(PIG)
    length = len(s.suit_cards(card.suit))
    return (1 if guard else 0, _rank(p) - 2 * length, -p.key)


def feed_partner(s: Situation) -> Action | None:
    """2-vs-2: a partner surely wins the trick: give it the sheep; void, discard a clean high card.

    Source 001, on 對家結組 (partners opposite, the competition format): "在出一張牌
    時就要考慮扔的這張牌對于搭檔來說有利還是有弊…搭檔出方片A時考慮給羊是否合理" (weigh
    each discard for the partner: with the partner's ♦A winning, give it the
    sheep).  Partners score together: the pig and the hearts are kept for an
    opponent's trick.
    """
    if not s.partners or not s.trick or not s.secure_for_team():
        return None
    plays = s.penalty_free(s.plays)
    gifts = [p for p in plays if SHEEP in p.cards and s.play_value(p) > 0 and not s.wins_now(p)]
    if gifts:
        return gifts[0]
    if s.following():
        return None
    clean = [p for p in plays if s.play_value(p) == 0 and TRANSFORMER not in p.cards]
    return max(clean, key=lambda p: _discard_danger(s, p)) if clean else None


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
    feed_partner,
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


def _checked_rules(rules_order: object, name: str = "rules_order") -> tuple[Rule, ...]:
    """``rules_order`` as a tuple of rules; a :class:`ValueError` names what is not one.

    :param name: what the caller calls it, for the message.
    """
    if isinstance(rules_order, str) or not isinstance(rules_order, Sequence):
        raise ValueError(f"{name} must be a sequence of rules, not {rules_order!r}")
    for rule in rules_order:
        if not callable(rule):
            raise ValueError(f"{name} holds {rule!r}, which is not a rule (a function)")
    return tuple(rules_order)


class RulesBot:
    """Plays by the rules of thumb alone: the first rule that answers decides.

    :param seed: accepted like every shipped bot's; the rules draw nothing at random.
    :param rules: the ruleset being played (card values, showable cards,
        discard rule); the view does not carry it.  Default: 39baobao.
    :param rules_order: the play rules to use, in order (default :data:`PLAY_RULES`).
    :param format: the table's format (:func:`~gongzhu.bots.format_of`): in
        ``"2v2"`` the bot plays for its team; default: each seat for itself.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        rules_order: Sequence[Rule] | None = None,
        format: str | TableFormat | None = None,
    ) -> None:
        del seed
        self.rules = load_rules() if rules is None else rules
        self._play_rules = _checked_rules(PLAY_RULES if rules_order is None else rules_order)
        self.format: TableFormat = format_of(format)
        """The table's format: the bot plays for its team when it has partners."""
        self.last_rule: str | None = None
        """The name of the rule that made the last decision (for tests and explanations)."""

    @property
    def play_rules(self) -> tuple[Rule, ...]:
        """The play rules in use, in order; assigning checks them as ``rules_order`` is."""
        return self._play_rules

    @play_rules.setter
    def play_rules(self, rules_order: Sequence[Rule]) -> None:
        self._play_rules = _checked_rules(rules_order, "play_rules")

    def set_format(self, format: TableFormat) -> None:
        """Hear the table's format (:func:`~gongzhu.bots.tell_format` calls this)."""
        self.format = format

    def choose(self, view: SeatView) -> Action:
        """The first firing rule's action (always one of ``view.legal_actions``)."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            self.last_rule = "only-action"
            return legal[0]
        return self.decide(Situation(view, self.rules, self.format))

    def decide(self, situation: Situation) -> Action:
        """The first firing rule's action in ``situation`` (a view read by this bot's rules
        and format), for a caller that reads the situation too."""
        rules = SHOW_RULES if situation.view.phase is not Phase.PLAY else self.play_rules
        for rule in rules:
            action = rule(situation)
            if action is not None and action in situation.legal:
                self.last_rule = rule.__name__
                return action
        self.last_rule = "safe_fallback"
        return safe_fallback(situation)
