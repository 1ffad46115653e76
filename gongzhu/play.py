"""The play layer: how a hand is played, as frozen data and the engines that play it.

A ruleset compiles, when it is built, one :class:`PlayConfig` from what the
plug-ins set through :func:`~gongzhu.hookspecs.gongzhu_play_config`: how
many decks, whether pairs may be led, the shown-card lock, the discard rule,
and any play rules of a plug-in's own (:class:`PlayRule`).  Every field has
one owner: two plug-ins setting the same field is an error naming both,
unless one declares that it overrides the other.  Beside it the ruleset
compiles its show phase (:class:`~gongzhu.showphase.ShowPhase`); the two
together are an :class:`EngineSetup`, everything an engine reads of a ruleset.

The configuration names the *features* it needs (:attr:`PlayConfig.features`).
Engines, registered through :func:`~gongzhu.hookspecs.gongzhu_play_engines`
exactly as a third party's would be, each declare the features they
implement and the optional *capabilities* they offer (:class:`Capability`);
the ruleset runs on the fastest engine that implements all of its features
(:func:`select_engines`), and is refused, naming the missing features, when
none does.

An engine (:class:`HandEngine`) plays one whole hand as integers: the show
phases from the dealt cards, then every trick.  It holds each seat's cards
as a :data:`~gongzhu.masks.CardMask` and names each play by its *play key*
(:attr:`Play.key <gongzhu.actions.Play.key>`: a card index, or
``52 + 52·a + b`` for two cards ``a ≤ b``).  It explains a refused play by
the code of the rule that refused it, which :func:`explain_refusal` turns into
a :class:`Refusal`, the same for every engine.

The contract is closed: :class:`HandEngine` is everything a client calls on
an engine, beside the methods of the capabilities its spec declares, reached
through :meth:`EngineSpec.capable`; no client probes an engine or reads its
private fields.  The phase numbers an engine reports (:data:`PLAY_PHASE`...)
are defined here once, the play keys in :mod:`gongzhu.actions`
(:func:`~gongzhu.actions.key_of_cards`).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, Protocol, Self, overload

import attrs

from .actions import Action, Play, play_of_key
from .cards import Card, Suit
from .errors import GongzhuError, IncompatibleVariants, InvalidPlugin, PluginError
from .masks import ALL_CARDS, SECOND_COPY, SUIT_MASKS, CardMask, suits_of
from .plugin import DiscardRule, ShownCardLock
from .view import Phase

if TYPE_CHECKING:
    from .showphase import ShowPhase

__all__ = [
    "ENGINE_PHASES",
    "FEATURES",
    "FIRST_SHOW_PHASE",
    "ILLEGAL",
    "OVER",
    "OVER_PHASE",
    "PLAY_PHASE",
    "SHOW_PHASE",
    "Capability",
    "EndgamePlayoutsEngine",
    "EngineRegistry",
    "EngineSetup",
    "EngineSpec",
    "GreedyPlayoutEngine",
    "HandEngine",
    "LegalKeysEngine",
    "MismatchesEngine",
    "PlayConfig",
    "PlayConfigurator",
    "PlayMoment",
    "PlayRule",
    "PlaySituation",
    "PlayoutsEngine",
    "RandomHandsEngine",
    "RedealEngine",
    "Refusal",
    "ScoreEngine",
    "explain_refusal",
    "greedy_playout",
    "select_engines",
]

OVER: Final = -1
"""The seat an engine reports once the last card is played."""
ILLEGAL: Final = -2
"""What :meth:`HandEngine.play` and :meth:`HandEngine.show` return for a refused action
(nothing changes)."""

FIRST_SHOW_PHASE: Final = 0
"""The number an engine reports (:attr:`HandEngine.phase`) in the 首明 phase."""
SHOW_PHASE: Final = 1
"""The number an engine reports in the show phase."""
PLAY_PHASE: Final = 2
"""The number an engine reports in the play phase (the tricks)."""
OVER_PHASE: Final = 3
"""The number an engine reports once the hand is over."""

ENGINE_PHASES: Final = (Phase.FIRST_SHOW, Phase.SHOW, Phase.PLAY, Phase.OVER)
"""The phases by the number an engine reports (:attr:`HandEngine.phase`): the phase
numbers above, in order.  They are written here once for Python; the C engines'
(``gongzhu/engines/c/engine.h``) are held equal to them by a test."""

FEATURES: Final[dict[str, str]] = {
    "one-deck": "52 cards, 13 to each seat",
    "two-decks": "104 cards, 26 to each seat, identical copies interchangeable",
    "singles": "every play is one card",
    "pairs": "a lead may be an identical pair, followed by two cards (拱雙豬)",
    "shown-card-lock": "the restriction on shown cards (ShownCardLock, every field)",
    "discard-rule-strict": "a discard outside the preferred suits is illegal",
    "discard-rule-penalty": "a wrong discard is legal; its offender takes the trick's points",
    "play-rules": "plug-ins' own PlayRule objects, asked where they can matter",
}
"""Every feature a :class:`PlayConfig` may need, with what it means."""


class Capability(enum.Flag):
    """What an engine offers beyond playing hands, declared in its :class:`EngineSpec`.

    A declared capability is checked once, when a ruleset first makes a hand
    on the engine (the engine must have the method); callers then read the
    declaration (:meth:`EngineSpec.offers`), never probe the engine, and call
    the method through the typed handle that :meth:`EngineSpec.capable` gives
    (a :class:`RedealEngine`, :class:`GreedyPlayoutEngine`, :class:`LegalKeysEngine`,
    :class:`ScoreEngine`, :class:`RandomHandsEngine`, :class:`PlayoutsEngine`,
    :class:`EndgamePlayoutsEngine` or :class:`MismatchesEngine`).
    """

    NONE = 0
    REDEAL = enum.auto()
    """``redeal(holdings)``: each seat holds other cards, for determinised search
    (:meth:`HandState.with_holdings <gongzhu.hand.HandState.with_holdings>`)."""
    GREEDY_PLAYOUT = enum.auto()
    """``greedy_playout(values, random, teams=None)``: play to the end with the search bot's
    greedy policy (:meth:`HandState.greedy_play_out <gongzhu.hand.HandState.greedy_play_out>`)."""
    LEGAL_KEYS = enum.auto()
    """``legal_keys()``: the legal plays of the seat to act as play keys, in key order
    (two decks; with one deck :meth:`HandEngine.legal_mask` says it all)."""
    SCORE = enum.auto()
    """``score(data)``: the hand's raw scores, 满红 and 满贯, from the ruleset's compiled
    score data as the engine reads it (:attr:`Scorer.native
    <gongzhu.scoring.Scorer.native>`), so that bulk play scores a hand without building
    its facts (:class:`~gongzhu.bulk.RandomHands`)."""
    RANDOM_HANDS = enum.auto()
    """``random_hands(data, count, next_digest, random, lead)``: whole random hands
    dealt, played and scored inside the engine, which is their scratch space
    (:meth:`RandomHands.outcomes <gongzhu.bulk.RandomHands.outcomes>`)."""
    PLAYOUTS = enum.auto()
    """``playouts(data, keys, random, values=None, teams=None)``: a search's playouts of one
    position in one call: each play key played on a copy of the engine, the hand played
    out (at random; with ``values``, by the greedy policy, where the engine also declares
    :attr:`GREEDY_PLAYOUT`) and scored from ``data``, as :class:`PlayoutsEngine` says."""
    ENDGAME = enum.auto()
    """``playouts(data, keys, random, values, teams, endgame=tricks)``: greedy playouts whose
    last ``endgame`` tricks are searched exactly for two teams (alpha-beta over the
    engine's legal plays, the hand's end scored from ``data``), as
    :class:`EndgamePlayoutsEngine` says."""
    MISMATCHES = enum.auto()
    """``mismatches(keys, values, seats, teams=None, leads=False, points=False)``: plays keys
    and counts the plays the greedy policy would not have made, and ``read_deal(...)``
    draws a deal by that count, as :class:`MismatchesEngine` says (a search's reading of
    the plays so far on sampled deals)."""

    @property
    def method(self) -> str:
        """The engine method a single capability stands for."""
        return _CAPABILITY_METHODS[self]


_CAPABILITY_METHODS: Final = {
    Capability.REDEAL: "redeal",
    Capability.GREEDY_PLAYOUT: "greedy_playout",
    Capability.LEGAL_KEYS: "legal_keys",
    Capability.SCORE: "score",
    Capability.RANDOM_HANDS: "random_hands",
    Capability.PLAYOUTS: "playouts",
    Capability.ENDGAME: "playouts",
    Capability.MISMATCHES: "mismatches",
}


def greedy_playout(
    engine: GreedyPlayoutEngine,
    values: Sequence[int],
    random: Callable[[], float],
    teams: Sequence[int] | None = None,
) -> None:
    """Call the greedy playout of an engine that declares :attr:`Capability.GREEDY_PLAYOUT`
    (the handle :meth:`EngineSpec.capable` gives).

    ``teams`` is passed only when given, so an engine written for the
    two-argument call ``greedy_playout(values, random)`` still plays every
    seat for itself.
    """
    if teams is None:
        engine.greedy_playout(values, random)
    else:
        engine.greedy_playout(values, random, teams)


# -- refusals: the rules an engine names, and the one table of their messages ---------------

HOLDING: Final = "holding"
SHAPE: Final = "play-shape"
OPENING_LEAD: Final = "opening-lead"
FOLLOW_SUIT: Final = "follow-suit"
PAIR_FOLLOW: Final = "pair-follow"
SHOWN_CARD_LOCK: Final = "shown-card-lock"
DISCARD_RULE: Final = "discard-rule"

RULE_CODES: Final = {
    HOLDING: 1,
    SHAPE: 2,
    OPENING_LEAD: 3,
    FOLLOW_SUIT: 4,
    PAIR_FOLLOW: 5,
    SHOWN_CARD_LOCK: 6,
    DISCARD_RULE: 7,
}
"""The number an engine gives each core rule in :meth:`HandEngine.refusal`.  Code
:data:`PLAY_RULE` stands for the plug-ins' play rules (its detail: the rule's
position in :attr:`PlayConfig.rules`)."""
PLAY_RULE: Final = 8
_RULE_OF_CODE: Final = {code: rule for rule, code in RULE_CODES.items()}

# the details of some codes (the others carry a suit, a card index or a rule's position)
OVER_DETAIL: Final = 1
"""HOLDING's detail when no seat is to move: the hand is over."""
SHAPES: Final = (
    "a play is one card in single-deck play",
    "a lead is one card or an identical pair",
    "the lead was a pair: play 2",
    "the lead was one card: play 1",
    "a play is one card or two",
)
"""SHAPE's messages, by detail."""
LOCK_WHERE: Final = ("lead", "follow", "discard", "copies")
"""SHOWN_CARD_LOCK's detail: where the lock held the card (``copies``: two decks)."""


@attrs.frozen
class Refusal:
    """Why an engine refuses a play: the rule, by name, and a sentence for people.

    :ivar rule: ``"holding"`` (the seat lacks the cards), ``"play-shape"``
        (not a play this ruleset has: two cards in single-deck play),
        ``"opening-lead"``, ``"follow-suit"``, ``"pair-follow"``,
        ``"shown-card-lock"``, ``"discard-rule"``, or the
        :attr:`PlayRule.name` of a plug-in's own rule.
    :ivar message: what :class:`~gongzhu.errors.IllegalAction` says.
    """

    rule: str
    message: str


def explain_refusal(
    config: PlayConfig, code: int, detail: int, seat: int, cards: Sequence[Card]
) -> Refusal:
    """The :class:`Refusal` an engine means by ``(code, detail)`` (:meth:`HandEngine.refusal`).

    Every engine reports refusals as these two numbers; the sentences are here
    alone, so the same refusal reads the same on every engine.

    :param config: the ruleset's play configuration (it names the plug-ins' rules).
    :param code: the rule's code (:data:`RULE_CODES`, or :data:`PLAY_RULE`).
    :param detail: what the code's rule says about the refusal (a suit, a card...).
    :param seat: the seat that tried the play.
    :param cards: the cards of the play.
    """
    what = " ".join(map(str, cards))
    if code == PLAY_RULE:
        rule = config.rules[detail]
        return Refusal(rule.name, rule.reason.replace("{card}", what))
    rule_name = _RULE_OF_CODE[code]
    return Refusal(rule_name, _MESSAGES[rule_name](config, detail, seat, what, cards))


def _holding(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    return "the hand is over" if detail == OVER_DETAIL else f"seat {seat} does not hold {what}"


def _shape(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    return SHAPES[detail]


def _opening_lead(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    card = Card.from_index(detail)
    return f"the opening lead must be {card}" + (
        " (one, or both as a pair)" if config.pairs else ""
    )


def _follow_suit(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    return f"must follow suit: seat {seat} holds {Suit(detail).symbol}"


def _pair_follow(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    led, step = divmod(detail, 4)
    symbol = Suit(led).symbol
    return (
        f"following a pair: play a pair of {symbol} (seat {seat} holds one)",
        f"following a pair: play two {symbol} (seat {seat} holds them)",
        f"following a pair: play your {symbol} card and any other",
        "following a pair: play any two cards",
    )[step]


def _shown_card_lock(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    where = LOCK_WHERE[detail]
    if where == "copies":
        return (
            f"{what}: a shown card may not be played yet (the shown-card restriction: not in "
            "the first trick of its suit unless it is the holder's only card of that suit)"
        )
    suit = cards[0].suit.symbol
    if where == "lead":
        return (
            f"{what} was shown and may not be led in the first trick of "
            f"{suit} unless it is the holder's only {suit}"
        )
    if where == "follow":
        return (
            f"{what} was shown and may not be played in the first trick of "
            f"{suit} unless it is the holder's only {suit}"
        )
    return f"{what} was shown and may not be discarded before {suit} has been led"


def _discard_rule(config: PlayConfig, detail: int, seat: int, what: str, cards: Any) -> str:
    led = Suit(detail)
    colour = "red" if led.is_red else "black"
    return (
        f"垫牌规则: a seat void in {led.symbol} must discard a card of the same colour "
        f"({colour}) while it holds one"
    )


_MESSAGES: Final[dict[str, Callable[[PlayConfig, int, int, str, Any], str]]] = {
    HOLDING: _holding,
    SHAPE: _shape,
    OPENING_LEAD: _opening_lead,
    FOLLOW_SUIT: _follow_suit,
    PAIR_FOLLOW: _pair_follow,
    SHOWN_CARD_LOCK: _shown_card_lock,
    DISCARD_RULE: _discard_rule,
}


# -- plug-ins' own play rules ----------------------------------------------------------------


class PlayMoment(enum.Flag):
    """When a seat plays: what a :class:`PlayRule` says it can matter at."""

    LEAD = enum.auto()
    """The seat leads the trick."""
    FOLLOW = enum.auto()
    """The seat holds a card of the led suit (any number: after a pair lead under two
    decks, a seat that holds one card of the led suit follows, though it plays one card
    beside it that is not)."""
    DISCARD = enum.auto()
    """The seat holds no card of the led suit (every card it plays is a discard)."""
    ANY = LEAD | FOLLOW | DISCARD
    """Every play."""


class PlaySituation(NamedTuple):
    """What a :class:`PlayRule` sees when it is asked about the seat to move.

    A light value (a named tuple of integers), made by the engine only where
    the rule can matter (:attr:`PlayRule.when`, :attr:`PlayRule.cards`).

    :ivar seat: the seat to move.
    :ivar holding: its cards (card mask; two decks: a second copy at bit 52 + index).
    :ivar trick_keys: the plays of the trick under way, in order, as play keys
        (empty when the seat leads); :attr:`plays` has them as
        :class:`~gongzhu.actions.Play` objects, so a rule can tell which cards
        made one play (a pair) from two plays.
    :ivar played: every card played so far in the hand, this trick's included
        (first-copy bits: a card played at all).
    :ivar unled: the cards of the suits no trick has been led in yet (first-copy bits).
    :ivar candidates: the cards of the plays still allowed by the rules before
        this one (first-copy bits).
    """

    seat: int
    holding: CardMask
    trick_keys: tuple[int, ...]
    played: CardMask
    unled: CardMask
    candidates: CardMask

    @property
    def plays(self) -> tuple[Play, ...]:
        """The plays of the trick under way, in order."""
        return tuple(map(play_of_key, self.trick_keys))

    @property
    def trick(self) -> tuple[Card, ...]:
        """Every card played to the trick under way, in order (the plays flattened)."""
        return tuple(card for key in self.trick_keys for card in play_of_key(key).cards)

    @property
    def unled_suits(self) -> frozenset[Suit]:
        """The suits no trick has been led in yet."""
        return suits_of(self.unled)

    @property
    def leading(self) -> bool:
        """Whether the seat leads the trick."""
        return not self.trick_keys

    @property
    def led_suit(self) -> Suit | None:
        """The suit led in the trick under way, or ``None`` when the seat leads."""
        return play_of_key(self.trick_keys[0]).cards[0].suit if self.trick_keys else None

    @property
    def moment(self) -> PlayMoment:
        """Whether the seat leads, can follow suit, or must discard."""
        led = self.led_suit
        if led is None:
            return PlayMoment.LEAD
        holding = self.holding | self.holding >> SECOND_COPY
        return PlayMoment.FOLLOW if holding & SUIT_MASKS[led] else PlayMoment.DISCARD

    def holds(self, card: Card) -> bool:
        """Whether the seat holds (a copy of) ``card``."""
        return bool(self.holding >> card.index & 1)


def _first_copies(mask: CardMask) -> CardMask:
    """A rule's ``cards``: a card mask read as the cards it names (either copy)."""
    if not isinstance(mask, int) or isinstance(mask, (bool, enum.Enum)) or mask < 0:
        hint = " (a suit's cards: Suit.SPADES.mask)" if isinstance(mask, enum.Enum) else ""
        raise InvalidPlugin(f"PlayRule.cards must be a card mask{hint}, not {mask!r}")
    cards = (mask | mask >> SECOND_COPY) & ALL_CARDS
    if not cards:
        raise InvalidPlugin("PlayRule.cards names no card: the rule would never be asked")
    return cards


@attrs.frozen
class PlayRule:
    """A plug-in's own legality rule, applied after the core's rules.

    A rule may *refuse* cards, *require* them, or both.  ``refuse`` gets a
    :class:`PlaySituation` and returns the card mask of the cards the seat
    may not play now: a play that uses any of them is removed.  ``require``
    returns the cards a play must use one of: when any of them is still
    allowed, only the plays that use one remain ("play the ♠Q when you cannot
    follow": with a pair led under two decks, the two-card discards that
    include it).  Cards are named by either copy's bit.  A rule that would
    leave the seat no legal play lifts for that play (the seat is stuck, so
    the rule gives way).  Rules run in the order the plug-ins add them, each
    seeing what the earlier ones allowed (:attr:`PlaySituation.candidates`).

    A rule is asked only where it can matter: at the moments of :attr:`when`,
    and when some play still allowed uses one of :attr:`cards`.  Narrow both
    as far as the rule allows: the engines then call it rarely, and a ruleset
    with play rules plays at nearly the speed of one without.  A rule that
    depends on ruleset options is built in
    :func:`~gongzhu.hookspecs.gongzhu_play_config`, which receives them (a
    closure or a small class).  Its answer must depend on the situation
    alone.

    :ivar name: the rule's name, reported as :attr:`Refusal.rule`.
    :ivar refuse: the cards the seat may not play now, or ``None``.
    :ivar reason: the sentence a refusal gives; ``{card}`` is replaced by
        the refused play's cards.
    :ivar require: the cards a play must use one of, or ``None``.
    :ivar when: the moments the rule can matter at (default: every play).
    :ivar cards: the cards it can refuse or require (default: all).
    :ivar owner: the plug-in that added it, set as it is added
        (:meth:`PlayConfigurator.add_rule`; a plug-in leaves it out): a rule whose
        code fails is named with it (:class:`~gongzhu.errors.PluginError`).
    """

    name: str
    refuse: Callable[[PlaySituation], CardMask] | None = None
    reason: str = "{card} may not be played now"
    require: Callable[[PlaySituation], CardMask] | None = None
    when: PlayMoment = PlayMoment.ANY
    cards: CardMask = attrs.field(default=ALL_CARDS, converter=_first_copies)
    owner: str | None = attrs.field(default=None, kw_only=True, eq=False)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidPlugin(f"a PlayRule needs a name, not {self.name!r}")
        if self.refuse is None and self.require is None:
            raise InvalidPlugin(f"play rule {self.name!r} neither refuses nor requires")
        for part in (self.refuse, self.require):
            if part is not None and not callable(part):
                raise InvalidPlugin(f"play rule {self.name!r}: {part!r} is not callable")
        if not isinstance(self.when, PlayMoment) or not self.when:
            raise InvalidPlugin(
                f"play rule {self.name!r}: when must be PlayMoment values, not {self.when!r}"
            )

    def refused(self, situation: PlaySituation) -> CardMask:
        """:attr:`refuse`'s answer in ``situation``, as a card mask (an engine's call).

        :raises PluginError: the function raised, or answered other than a card mask
            (the C engines name the rule the same way).
        """
        assert self.refuse is not None
        return self._asked(self.refuse, situation)

    def required(self, situation: PlaySituation) -> CardMask:
        """:attr:`require`'s answer in ``situation``, as a card mask (see :meth:`refused`)."""
        assert self.require is not None
        return self._asked(self.require, situation)

    def _asked(self, part: Callable[[PlaySituation], CardMask], situation: PlaySituation) -> int:
        try:
            answer = part(situation)
            if answer is None or isinstance(answer, bool):  # (a bool is no card mask)
                raise TypeError(f"it answered {answer!r}, not a card mask")
            try:  # (a negative number is a mask: ~mask names every card but mask's)
                return operator.index(answer)
            except TypeError:
                raise TypeError(f"it answered {answer!r}, not a card mask") from None
        except GongzhuError:
            raise
        except Exception as exc:
            raise PluginError(self.owner, f"play rule {self.name!r}", exc) from exc


_FIELDS: Final = ("deck_copies", "pairs", "pair_beats_unmatched", "shown_card_lock", "discard_rule")


@attrs.frozen
class PlayConfig:
    """How tricks are played under a ruleset: compiled once, when it is built.

    :ivar deck_copies: 1, or 2 for 拱雙豬.
    :ivar pairs: a lead may be one card or an identical pair; a pair is
        followed by two cards (a pair of the led suit if held, else two of
        the suit, else the one card of the suit and any card, else any two).
    :ivar pair_beats_unmatched: with pairs: in a trick led by a pair, a
        pair of the led suit beats two unmatched cards of it (``False``:
        two unmatched cards beat any pair).
    :ivar shown_card_lock: the restriction on shown cards, or ``None``.
    :ivar discard_rule: the constraint on discards, or ``None``.
    :ivar rules: the plug-ins' own play rules, in order.
    :ivar owners: for each field set by a plug-in, that plug-in's name (and
        ``"rule:NAME"`` for each play rule).
    :ivar lock_flags: derived: the lock as engines read it, ``(first_trick,
        discard_before_led, lifts_for_hand)``, all ``False`` without a lock.
    :ivar discard_flags: derived: the discard rule as engines read it,
        ``(strict, penalty, last_offender)``, all ``False`` without a rule.
    :ivar preferred_discard_masks: derived: per led suit (by
        :class:`~gongzhu.cards.Suit` value), the card mask of the preferred
        discard suits, or ``None`` without a discard rule.
    """

    deck_copies: int = 1
    pairs: bool = False
    pair_beats_unmatched: bool = False
    shown_card_lock: ShownCardLock | None = None
    discard_rule: DiscardRule | None = None
    rules: tuple[PlayRule, ...] = ()
    owners: tuple[tuple[str, str], ...] = attrs.field(default=(), eq=False, repr=False)
    # -- derived once, for the engines (a hand's engine reads them when it is made) --
    lock_flags: tuple[bool, bool, bool] = attrs.field(init=False, eq=False, repr=False)
    discard_flags: tuple[bool, bool, bool] = attrs.field(init=False, eq=False, repr=False)
    preferred_discard_masks: tuple[int, ...] | None = attrs.field(init=False, eq=False, repr=False)

    @lock_flags.default
    def _lock_flags(self) -> tuple[bool, bool, bool]:
        lock = self.shown_card_lock
        if lock is None:
            return (False, False, False)
        return (lock.first_trick, lock.discard_before_led, lock.stuck == "hand")

    @discard_flags.default
    def _discard_flags(self) -> tuple[bool, bool, bool]:
        rule = self.discard_rule
        if rule is None:
            return (False, False, False)
        return (rule.strict, not rule.strict, rule.offender == "last")

    @preferred_discard_masks.default
    def _preferred_discard_masks(self) -> tuple[int, ...] | None:
        rule = self.discard_rule
        if rule is None:
            return None
        return tuple(sum(s.mask for s in rule.preferred.get(Suit(i), ())) for i in range(4))

    @property
    def features(self) -> frozenset[str]:
        """The :data:`FEATURES` an engine must implement to play this configuration."""
        out = {"one-deck" if self.deck_copies == 1 else "two-decks"}
        out.add("pairs" if self.pairs else "singles")
        if self.shown_card_lock is not None:
            out.add("shown-card-lock")
        if self.discard_rule is not None:
            out.add("discard-rule-strict" if self.discard_rule.strict else "discard-rule-penalty")
        if self.rules:
            out.add("play-rules")
        return frozenset(out)

    def owner(self, field: str) -> str | None:
        """The plug-in that set ``field``, or ``None`` when it has its default."""
        return dict(self.owners).get(field)


class PlayConfigurator:
    """What :func:`~gongzhu.hookspecs.gongzhu_play_config` implementations set fields on.

    Each plug-in is handed its own view (:meth:`for_plugin`) of one shared
    configuration, so that what it sets is recorded as its own.

    >>> from gongzhu.plugin import ShownCardLock
    >>> config = PlayConfigurator()
    >>> config.for_plugin("base").set("shown_card_lock", ShownCardLock())
    >>> config.for_plugin("strict-tables").set(
    ...     "shown_card_lock", ShownCardLock(discard_before_led=True))
    Traceback (most recent call last):
    ...
    gongzhu.errors.IncompatibleVariants: play setting 'shown_card_lock' is set by both 'base' and \
'strict-tables'; one of them must declare that it overrides the other (overrides=...)
    """

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._owners: dict[str, str] = {}
        self._overrides: dict[str, frozenset[str]] = {}
        self._rules: list[PlayRule] = []
        self._rule_owners: dict[str, str] = {}
        self._plugin = ""

    def for_plugin(self, name: str) -> PlayConfigurator:
        """This configuration, as the plug-in called ``name`` sets it (what it sets is its)."""
        view = object.__new__(PlayConfigurator)
        view.__dict__.update(self.__dict__)  # the same dicts and list: one configuration
        view._plugin = name
        return view

    def set(self, field: str, value: Any, *, overrides: str | Collection[str] = ()) -> None:
        """Set a field of the :class:`PlayConfig`.

        :param field: ``"deck_copies"``, ``"pairs"``, ``"pair_beats_unmatched"``,
            ``"shown_card_lock"`` or ``"discard_rule"``.
        :param value: its value (checked when the configuration is built).
        :param overrides: the plug-in name(s) whose setting of the same field
            this one replaces.  Without it, a second plug-in setting a field
            is an error naming both.
        :raises IncompatibleVariants: an unknown field, or a clash.
        """
        if field not in _FIELDS:
            raise IncompatibleVariants(
                f"{self._plugin or 'a plug-in'} sets unknown play setting {field!r} "
                f"(known: {', '.join(_FIELDS)})"
            )
        mine = frozenset([overrides] if isinstance(overrides, str) else overrides)
        previous = self._owners.get(field)
        if previous is not None and previous not in mine:
            if self._plugin in self._overrides.get(field, frozenset()):
                return  # the earlier setter declared that it overrides this one
            raise IncompatibleVariants(
                f"play setting {field!r} is set by both {previous!r} and {self._plugin!r}; "
                "one of them must declare that it overrides the other (overrides=...)"
            )
        self._values[field] = value
        self._owners[field] = self._plugin
        self._overrides[field] = mine

    def add_rule(self, rule: PlayRule) -> None:
        """Add a play rule of the plug-in's own (see :class:`PlayRule`)."""
        if not isinstance(rule, PlayRule):
            raise IncompatibleVariants(
                f"{self._plugin or 'a plug-in'} adds {rule!r}, which is not a PlayRule"
            )
        owner = self._rule_owners.get(rule.name)
        if owner is not None:
            raise IncompatibleVariants(
                f"play rule {rule.name!r} is added by both {owner!r} and {self._plugin!r}"
            )
        self._rule_owners[rule.name] = self._plugin
        self._rules.append(attrs.evolve(rule, owner=self._plugin or None))

    def build(self) -> PlayConfig:
        """The frozen configuration, checked."""
        values = dict(self._values)
        copies = values.get("deck_copies", 1)
        if copies not in (1, 2) or isinstance(copies, bool):
            raise IncompatibleVariants(f"play setting deck_copies must be 1 or 2, not {copies!r}")
        for flag in ("pairs", "pair_beats_unmatched"):
            if not isinstance(values.get(flag, False), bool):
                raise IncompatibleVariants(f"play setting {flag} must be True or False")
        lock = values.get("shown_card_lock")
        if lock is not None and not isinstance(lock, ShownCardLock):
            raise IncompatibleVariants("play setting shown_card_lock must be a ShownCardLock")
        discard = values.get("discard_rule")
        if discard is not None and not isinstance(discard, DiscardRule):
            raise IncompatibleVariants("play setting discard_rule must be a DiscardRule")
        return PlayConfig(
            **values,
            rules=tuple(self._rules),
            owners=tuple(sorted(self._owners.items()))
            + tuple(sorted((f"rule:{name}", owner) for name, owner in self._rule_owners.items())),
        )


# -- engines ---------------------------------------------------------------------------------


@attrs.frozen
class EngineSetup:
    """What an engine reads of a ruleset: compiled once, shared by all its hands.

    :ivar play: how tricks are played.
    :ivar shows: the show phases, as data.
    """

    play: PlayConfig
    shows: ShowPhase


class HandEngine(Protocol):
    """One hand, played from the dealt cards to the last trick: what
    :class:`~gongzhu.hand.HandState` drives and :func:`gongzhu.simulate` runs.

    An engine is made by its :attr:`EngineSpec.factory` as
    ``factory(prepared, holdings, leader, forced, first_seat, first_cards)``:
    ``prepared`` is what :attr:`EngineSpec.prepare` made of the ruleset's
    :class:`EngineSetup` (the setup itself without ``prepare``),
    ``holdings`` each seat's dealt cards (card masks), ``leader`` the seat
    that leads the first trick, ``forced`` the card mask of the card it must
    lead (or 0), ``first_seat`` the seat dealt the first card and
    ``first_cards`` each seat's first dealt card's index, by seat (首明 asks
    about them, in dealing order from ``first_seat``).

    It then plays the hand: the 首明 phase and the show phase as the
    ruleset's :class:`~gongzhu.showphase.ShowPhase` says (auto-show and the
    shown-card lock included), and the tricks as its :class:`PlayConfig`
    says.  Everything it holds is integers; :class:`~gongzhu.hand.HandState`
    turns them into objects.  Bad input raises :class:`ValueError` (or
    :class:`TypeError`) and changes nothing; no input may crash the
    interpreter.

    Engines answer for what they hold, and the tests hold every engine to its
    pure-Python reference (:mod:`gongzhu.engines`), hand for hand.

    This protocol is the whole of what a client may call on an engine, with
    the methods of the capabilities its :class:`EngineSpec` declares
    (:class:`Capability`, reached through :meth:`EngineSpec.capable`); a
    client never probes an engine for a method (``hasattr``), and never reads
    its private fields.
    """

    @property
    def phase(self) -> int:
        """The phase, by its position in :data:`ENGINE_PHASES`."""

    @property
    def seat(self) -> int:
        """The seat to act, or :data:`OVER`."""

    @property
    def holdings(self) -> Sequence[CardMask]:
        """Each seat's cards now."""

    @property
    def taken(self) -> Sequence[CardMask]:
        """Each seat's taken cards, penalties included."""

    @property
    def trick(self) -> Sequence[int]:
        """The play keys of the trick under way."""

    @property
    def trick_leader(self) -> int:
        """The seat that leads the trick under way (the hand's leader before play)."""

    @property
    def show_log(self) -> Sequence[tuple[int, int, bool]]:
        """Every show decision and automatic show, in order: ``(seat, choice id, forced)``.

        A choice id indexes :attr:`ShowPhase.choices <gongzhu.showphase.ShowPhase.choices>`;
        ``forced`` marks an automatic show (auto-show), which is no seat's decision.
        """

    @property
    def trick_log(self) -> Sequence[tuple[int, tuple[int, ...], int, int]]:
        """Every finished trick: ``(leader, play keys, winner, taker)``."""

    @property
    def trick_count(self) -> int:
        """How many tricks are finished (``len(trick_log)``, without building it)."""

    def legal(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act, in a stable order: the ruleset's
        :class:`~gongzhu.actions.Show` objects in a show phase, the plays (in key
        order) in the play phase; empty once the hand is over."""

    def legal_mask(self) -> CardMask:
        """The cards of the legal plays of the seat to act, as a card mask (first-copy
        bits: with two decks, a card of any legal play, a pair's card included).  With
        one deck it is the legal plays themselves, without building them.

        :raises ValueError: the hand is not in its play phase.
        """

    def show(self, choice: int) -> int:
        """Take show number ``choice`` of :meth:`legal` for the seat to act.

        :return: the next seat to act, or :data:`ILLEGAL` (nothing changes)
            outside a show phase or for a number out of range.
        """

    def play(self, key: int) -> int:
        """Play ``key`` for the seat to act, if it is legal.

        :return: the next seat to act, :data:`OVER` after the last card, or
            :data:`ILLEGAL` (nothing changes).
        """

    def refusal(self, key: int) -> tuple[int, int] | None:
        """Why play ``key`` is refused now, as ``(code, detail)`` (see
        :func:`explain_refusal`), or ``None`` when it is legal.  ``key`` is -1 for a
        play of more than two cards."""

    def copy(self) -> Self:
        """An independent copy (of the same type: a capability's handle copies as one)."""

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end from any phase: one ``random()`` draw per decision, the
        ``int(r * n)``-th of its ``n`` legal actions (shows or plays, as :meth:`legal`
        orders them)."""

    def shown_taken(self) -> Sequence[Sequence[tuple[int, int, int]]] | None:
        """Two decks: per seat, the shown copies it took, as ``(seat that showed it,
        card index, show kind code)``, in the order taken; ``None`` with one deck (a
        shown card is one card, so who took it needs no engine's word)."""


class RedealEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.REDEAL` (see :meth:`EngineSpec.capable`)."""

    def redeal(self, holdings: Sequence[CardMask]) -> None:
        """Each seat holds ``holdings[seat]`` now, in the play phase: the seats keep
        their counts and hold the same cards between them; only the holdings change.

        :raises ValueError: not in the play phase, or holdings that break the above.
        """


class GreedyPlayoutEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.GREEDY_PLAYOUT`."""

    def greedy_playout(
        self, values: Sequence[int], random: Callable[[], float], teams: Sequence[int] = ...
    ) -> None:
        """Play to the end, in the play phase, with the search bot's greedy policy
        (:mod:`gongzhu.bots.playout`): ``values`` each card's points, ``random`` the
        tie-breaks, ``teams`` (optional) each seat's team."""


class LegalKeysEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.LEGAL_KEYS`."""

    def legal_keys(self) -> Sequence[int]:
        """The play keys of the legal plays of the seat to act, in key order.

        :raises ValueError: the hand is not in its play phase.
        """


class ScoreEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.SCORE`."""

    def score(self, data: Any) -> tuple[tuple[int, ...], bool, bool]:
        """The hand's raw scores (before normalising), and whether some seat took every
        heart (满红) or every scoring card (满贯): :meth:`Scorer.outcome
        <gongzhu.scoring.Scorer.outcome>`'s numbers before the normalisation, read from
        ``data`` (:attr:`Scorer.native <gongzhu.scoring.Scorer.native>`).

        :raises OverflowError: a score beyond 64 bits (score the facts in Python).
        :raises TypeError: ``data`` is no score data of this engine's kind.
        :raises ValueError: data of another deck count.
        """


class RandomHandsEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.RANDOM_HANDS`."""

    def random_hands(
        self,
        data: Any,
        count: int,
        next_digest: Callable[[], object],
        random: Callable[[], float] | None,
        lead: tuple[int, int],
    ) -> list[tuple[tuple[int, ...], bool, bool]]:
        """Play ``count`` hands at random on this engine's tables, each to its
        :meth:`ScoreEngine.score` numbers.

        Hand ``i`` is dealt from the ``i``-th ``next_digest()``
        (:func:`~gongzhu.deal.seed_digest` of its seed, the first seat 0; or a pair
        of it and the ``random`` the hand draws from instead, ``random`` then
        perhaps ``None``), led as
        ``lead`` says (``(card index, forced)`` of a :class:`~gongzhu.plugin.LeadRule`,
        the index -1 for the first seat), played as :meth:`HandEngine.random_playout`
        plays (the same draws) and scored from ``data``.  The engine holds the last
        hand afterwards.

        :raises ValueError: a digest of the wrong size, a bad lead, or ``data`` of
            another deck count.
        """


class PlayoutsEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.PLAYOUTS`."""

    def playouts(
        self,
        data: Any,
        keys: Sequence[int],
        random: Callable[[], float],
        values: Sequence[int] | None = None,
        teams: Sequence[int] | None = None,
    ) -> tuple[tuple[int, ...], ...]:
        """The raw scores of each play in ``keys`` (legal play keys of the seat to act, in
        the play phase), each played on a copy of this engine, played out and scored from
        ``data`` (:attr:`Scorer.native <gongzhu.scoring.Scorer.native>`): what
        ``copy()``, ``play(key)``, :meth:`~HandEngine.random_playout` (or, with
        ``values``, :meth:`GreedyPlayoutEngine.greedy_playout` with ``values`` and
        ``teams``) and :meth:`ScoreEngine.score` give key after key, drawing from
        ``random`` in the same order.  This engine is not changed.

        A key may repeat: each time it is played again, and drawn for.

        :raises ValueError: not in the play phase, a key that is not legal (every key
            is checked before any is played), ``teams`` without ``values``, ``values``
            on an engine without the greedy playout, or ``data`` of another deck count.
        :raises TypeError: ``random`` not callable, ``keys`` not a sequence of ints, or
            ``data`` no score data.
        :raises RuntimeError: the engine changed under the call (Python code it ran: a
            key's ``__index__``, ``random()``, a plug-in's play rule).
        :raises OverflowError: a score beyond 64 bits (score the facts in Python); the
            draws of the playouts before it are taken.

        What ``random()`` or a plug-in's play rule raises
        (:class:`~gongzhu.errors.PluginError`) goes through, the draws made until then
        taken; the engine is unchanged in every case.
        """


class MismatchesEngine(HandEngine, Protocol):
    """An engine that declares :attr:`Capability.MISMATCHES`."""

    def mismatches(
        self,
        keys: Sequence[int],
        values: Sequence[int],
        seats: int,
        teams: Sequence[int] | None = None,
        leads: bool = False,
        points: bool = False,
    ) -> int:
        """Play the cards ``keys`` in order from here (one deck: a key is a card's index)
        and count the plays of the seats in ``seats`` (bit ``s`` for seat ``s``) that the
        greedy playout policy would not have made where the seat had a choice: the policy
        of :meth:`GreedyPlayoutEngine.greedy_playout` with ``values``, playing for
        ``teams`` in every trick; with ``points``, off the lead only the plays where the
        policy's card or the seat's is worth points or is the transformer.  On a lead, any
        lead of the policy's lowest lead key is its play (its draw picks among them); leads
        count only with ``leads``.  Nothing is drawn.  The engine is left where the keys
        lead it: call it on a copy.

        :raises ValueError: a key that may not be played (after the keys before it), or
            ``values`` not 52 whole numbers.
        """

    def read_deal(
        self,
        dealer: object,
        candidates: int,
        played: Sequence[int],
        factor: float,
        random: Callable[[], float],
        keys: Sequence[int],
        values: Sequence[int],
        seats: int,
        teams: Sequence[int] | None = None,
        leads: bool = False,
        points: bool = False,
    ) -> list[int] | None:
        """From this engine at the start of the play, one of ``candidates`` deals of
        ``dealer`` (the sampler's ``SampleDealer``), each as likely as ``factor`` to the
        number of its :meth:`mismatches` (on each seat's hidden holding with ``played[s]``
        added): after each deal of weight ``w`` > 0, one ``random()`` keeps it with chance
        ``w`` / the weights so far.  ``None`` when every deal was a dead end.

        :raises ValueError: ``factor`` not in ``(0, 1]``, the engine past the start of the
            play, or a deal whose cards are not the engine's.
        """


class EndgamePlayoutsEngine(PlayoutsEngine, Protocol):
    """An engine that declares :attr:`Capability.ENDGAME` (and :attr:`Capability.PLAYOUTS`)."""

    def playouts(
        self,
        data: Any,
        keys: Sequence[int],
        random: Callable[[], float],
        values: Sequence[int] | None = None,
        teams: Sequence[int] | None = None,
        endgame: int = 0,
    ) -> tuple[tuple[int, ...], ...]:
        """:meth:`PlayoutsEngine.playouts`, and with ``endgame`` (a number of tricks, 1 to
        13; ``values`` and ``teams`` given) each greedy playout stops once no seat holds
        more than ``endgame`` cards, and the rest of the hand is searched exactly: the
        team of the seat to act (``teams[seat]``) plays to make its raw points less the
        other seats' as high as it can, the other seats to make them as low, every seat
        seeing every card, and the raw scores are those of the hand's end on the line so
        found (:meth:`ScoreEngine.score` of it; with several best lines, one of them).
        The end game draws nothing from ``random``.

        :raises ValueError: as :meth:`PlayoutsEngine.playouts`; ``endgame`` not a whole
            number 0 to 13 (:class:`TypeError` for a non-integer), or given without
            ``values`` and ``teams``.
        :raises OverflowError: a score beyond 64 bits (2**59 in the end game).
        """


_ENGINE_METHODS: Final = tuple(
    name
    for name, value in vars(HandEngine).items()
    if not name.startswith("_") and callable(value) and not isinstance(value, property)
)
"""The methods every engine has (the properties are read, not called)."""


def _features(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class EngineSpec:
    """An engine, as registered through :func:`~gongzhu.hookspecs.gongzhu_play_engines`.

    :ivar name: a unique name (``"single-c"``).
    :ivar factory: makes a :class:`HandEngine` for one hand (see there).
    :ivar features: the :data:`FEATURES` it implements.
    :ivar speed: a relative speed; among the engines that can play a
        configuration, the fastest is used.
    :ivar summary: one line for people.
    :ivar capabilities: the optional :class:`Capability` methods it offers.
    :ivar prepare: turns a ruleset's :class:`EngineSetup` into what the
        factory takes, once per ruleset (an engine in C builds its tables
        here); ``None``: the factory takes the setup itself.
    """

    name: str
    factory: Callable[..., HandEngine]
    features: frozenset[str] = attrs.field(converter=_features)
    speed: int = 1
    summary: str = ""
    capabilities: Capability = attrs.field(default=Capability.NONE)
    prepare: Callable[[EngineSetup], Any] | None = None

    @features.validator
    def _check_features(self, _attribute: object, value: frozenset[str]) -> None:
        unknown = sorted(value - FEATURES.keys())
        if unknown:
            raise IncompatibleVariants(
                f"engine {self.name!r} declares unknown feature(s) {', '.join(unknown)}"
            )

    @capabilities.validator
    def _check_capabilities(self, _attribute: object, value: Capability) -> None:
        if not isinstance(value, Capability):
            raise IncompatibleVariants(
                f"engine {self.name!r}: capabilities must be Capability flags, not {value!r}"
            )

    def offers(self, capability: Capability) -> bool:
        """Whether the engine declares ``capability``."""
        return capability in self.capabilities

    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.REDEAL]
    ) -> RedealEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.GREEDY_PLAYOUT]
    ) -> GreedyPlayoutEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.LEGAL_KEYS]
    ) -> LegalKeysEngine: ...
    @overload
    def capable(self, engine: HandEngine, capability: Literal[Capability.SCORE]) -> ScoreEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.RANDOM_HANDS]
    ) -> RandomHandsEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.PLAYOUTS]
    ) -> PlayoutsEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.ENDGAME]
    ) -> EndgamePlayoutsEngine: ...
    @overload
    def capable(
        self, engine: HandEngine, capability: Literal[Capability.MISMATCHES]
    ) -> MismatchesEngine: ...
    def capable(self, engine: HandEngine, capability: Capability) -> HandEngine:
        """``engine`` (one this spec made), typed as offering ``capability``.

        The typed path to a capability's method: ``spec.capable(engine,
        Capability.REDEAL).redeal(masks)``.  It reads the declaration only (the
        engine's method was checked when the ruleset first made a hand on it).

        :raises IncompatibleVariants: the spec does not declare ``capability``.
        """
        if capability not in self.capabilities:
            raise IncompatibleVariants(f"engine {self.name!r} does not declare {capability.name}")
        return engine

    def check(self, engine: object) -> None:
        """That ``engine`` (one it made) has the methods of :class:`HandEngine` that are
        not properties, and the method of each declared capability.

        :raises IncompatibleVariants: naming the method or capability it lacks.
        """
        for method in _ENGINE_METHODS:
            if not callable(getattr(engine, method, None)):
                raise IncompatibleVariants(
                    f"engine {self.name!r} makes engines with no {method}() method "
                    "(gongzhu.play.HandEngine)"
                )
        for capability in Capability:
            declared = capability and capability in self.capabilities
            if declared and not callable(getattr(engine, capability.method, None)):
                raise IncompatibleVariants(
                    f"engine {self.name!r} declares {capability.name} but its engines have "
                    f"no {capability.method}() method"
                )


class EngineRegistry:
    """Where :func:`~gongzhu.hookspecs.gongzhu_play_engines` implementations add engines."""

    def __init__(self) -> None:
        self._engines: dict[str, EngineSpec] = {}

    def add(self, spec: EngineSpec) -> None:
        """Register an engine.

        :raises IncompatibleVariants: another engine has the same name.
        """
        if not isinstance(spec, EngineSpec):
            raise IncompatibleVariants(f"{spec!r} is not an EngineSpec")
        if spec.name in self._engines:
            raise IncompatibleVariants(f"two play engines are named {spec.name!r}")
        self._engines[spec.name] = spec

    def __iter__(self) -> Iterator[EngineSpec]:
        return iter(self._engines.values())

    def __len__(self) -> int:
        return len(self._engines)


def select_engines(config: PlayConfig, engines: Iterable[EngineSpec]) -> tuple[EngineSpec, ...]:
    """The engines that implement every feature ``config`` needs, fastest first.

    :raises IncompatibleVariants: when none does, naming what each lacks.
    """
    engines = list(engines)
    need = config.features
    able = [e for e in engines if need <= e.features]
    if not able:
        closest = min(engines, key=lambda e: (len(need - e.features), -e.speed), default=None)
        missing = sorted(need - closest.features) if closest is not None else sorted(need)
        described = ", ".join(f"{feature}{_set_by(config, feature)}" for feature in missing)
        others = ", ".join(e.name for e in engines) or "none"
        raise IncompatibleVariants(
            f"no play engine can play this ruleset: the closest, "
            f"{closest.name if closest else 'none'}, lacks {described} (engines: {others})"
        )
    able.sort(key=lambda e: -e.speed)
    return tuple(able)


_FIELD_OF: Final = {
    "one-deck": "deck_copies",
    "two-decks": "deck_copies",
    "pairs": "pairs",
    "singles": "pairs",
    "shown-card-lock": "shown_card_lock",
    "discard-rule-strict": "discard_rule",
    "discard-rule-penalty": "discard_rule",
}


def _set_by(config: PlayConfig, feature: str) -> str:
    if feature == "play-rules":
        named = (f"{rule.name} of {config.owner('rule:' + rule.name)}" for rule in config.rules)
        return f" (rules {', '.join(named)})"
    owner = config.owner(_FIELD_OF.get(feature, ""))
    return f" (set by {owner})" if owner else ""
