"""Actions a seat takes: :class:`Play` a card (or a pair) and :class:`Show` cards.

Actions are immutable values that compare by content, so
``state.apply(Play.parse("QS"))`` works as well as applying an object that
:meth:`HandState.legal_actions` returned.  Their text forms are what records
store::

    play QS          play JD JD          (a pair, two-deck play)
    show QS AH       show -              (show nothing)
    first-show QS    first-show -        (首明, decided on the first dealt card)
    sell QS AH       sell -              (暗卖, a secret sale)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias

import attrs

from .cards import Card, parse_cards
from .errors import InvalidCard

__all__ = [
    "ONE_CARD_KEYS",
    "PLAY_KEYS",
    "Action",
    "Play",
    "Show",
    "ShowKind",
    "cards_of_key",
    "key_of_cards",
    "key_of_play",
    "parse_action",
    "play_of_key",
]

ONE_CARD_KEYS: Final = 52
"""How many play keys name one card: a key below it is the card's index; a key from it
up names two cards, ``ONE_CARD_KEYS + 52·a + b`` for card indices ``a ≤ b``."""
PLAY_KEYS: Final = ONE_CARD_KEYS + 52 * 52
"""Every play key is below this (the C engines' ``NKEYS``)."""


def key_of_cards(first: int, second: int | None = None) -> int:
    """The play key of one card (``second`` left out) or of two, in any order.

    Play keys are written here once for Python (the C engines' ``TWO_KEY`` is held equal
    to it by a test): a card index for one card, ``52 + 52·a + b`` for two cards ``a ≤ b``
    (a pair: ``a == b``).

    >>> key_of_cards(5), key_of_cards(9, 2), key_of_cards(2, 9), key_of_cards(3, 3)
    (5, 165, 165, 211)
    """
    if second is None:
        return first
    if second < first:
        first, second = second, first
    return ONE_CARD_KEYS + 52 * first + second


def cards_of_key(key: int) -> tuple[int, ...]:
    """The card indices a play key plays, lowest first (the inverse of :func:`key_of_cards`).

    >>> cards_of_key(5), cards_of_key(165)
    ((5,), (2, 9))
    """
    if key < ONE_CARD_KEYS:
        return (key,)
    return divmod(key - ONE_CARD_KEYS, 52)


class ShowKind(enum.Enum):
    """How a card was shown.  The kind decides its factor and its play restrictions."""

    OPEN = "open"
    """亮牌 / 卖牌: shown to everyone after the deal."""
    FIRST = "first"
    """首明: shown on seeing only the first dealt card."""
    SECRET = "secret"
    """暗卖: sold secretly; the others learn only how many cards were sold."""

    # Members are singletons compared by identity, so the identity hash is consistent
    # with equality; Enum's own __hash__ (hash of the name, in Python) costs a Python
    # call at every lookup of the dicts keyed by kind (show factors, lock exemptions).
    __hash__ = object.__hash__

    @property
    def verb(self) -> str:
        """The word an action of this kind starts with in text."""
        return _VERBS[self]


_VERBS: Final = {ShowKind.OPEN: "show", ShowKind.FIRST: "first-show", ShowKind.SECRET: "sell"}


def _to_cards(value: Iterable[Card | str] | Card | str) -> tuple[Card, ...]:
    if isinstance(value, Card):
        return (value,)
    if isinstance(value, str):
        return tuple(sorted(parse_cards(value)))
    return tuple(sorted(parse_cards(value)))


def key_of_play(cards: Sequence[Card]) -> int:
    """The play key of a play's cards, one or two (:func:`key_of_cards` of their indices;
    -1 for more than two): :attr:`Play.key` without making the :class:`Play`.

    >>> key_of_play(parse_cards("3C")), key_of_play(parse_cards("2S 9S"))
    (40, 59)
    """
    if len(cards) == 1:
        return cards[0].index
    if len(cards) == 2:
        return key_of_cards(cards[0].index, cards[1].index)
    return -1


@attrs.frozen(repr=False)
class Play:
    """Play one card, or two (a pair, or two cards following a pair) in two-deck play.

    ``cards`` accepts cards or card text; it is stored sorted.
    """

    cards: tuple[Card, ...] = attrs.field(converter=_to_cards)
    key: int = attrs.field(init=False, eq=False, repr=False)
    """The engine's integer name of this play (derived from ``cards``)."""

    @key.default
    def _key_default(self) -> int:
        return key_of_play(self.cards)

    @classmethod
    def parse(cls, text: str) -> Play:
        """``Play.parse("QS")`` or ``Play.parse("play QS")``.

        :raises InvalidCard: when ``text`` is not a play's text.
        """
        if not isinstance(text, str):
            raise InvalidCard(f"expected play text, got {type(text).__name__}: {text!r}")
        action = parse_action(text if text.split()[:1] == ["play"] else f"play {text}")
        assert isinstance(action, Play)
        return action

    @classmethod
    def of(cls, card: Card) -> Play:
        """The interned single-card play of ``card`` (fast; used by the engine)."""
        return SINGLE_PLAYS[card.index]

    def __str__(self) -> str:
        return "play " + (" ".join(map(str, self.cards)) or "-")

    def __repr__(self) -> str:
        return f"Play.parse({' '.join(map(str, self.cards))!r})"


@attrs.frozen(repr=False)
class Show:
    """Show (亮) the given showable cards; ``Show(())`` shows none.

    In the show phase each seat takes exactly one ``Show`` listing every card it
    shows.  ``kind`` tells an open show from a first show (首明) or a secret
    sale (暗卖); only rulesets that offer those kinds accept them.
    """

    cards: tuple[Card, ...] = attrs.field(converter=_to_cards, default=())
    kind: ShowKind = attrs.field(default=ShowKind.OPEN, converter=ShowKind)

    def __str__(self) -> str:
        return f"{self.kind.verb} " + (" ".join(map(str, self.cards)) or "-")

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


Action: TypeAlias = Play | Show
"""Any action a seat can take."""

SINGLE_PLAYS: Final[tuple[Play, ...]] = tuple(Play(Card.from_index(i)) for i in range(52))

_KINDS_BY_VERB: Final = {kind.verb: kind for kind in ShowKind}
_TWO_CARD_PLAYS: dict[int, Play] = {}


def play_of_key(key: int) -> Play:
    """The play the engine calls ``key``: a card index, or ``52 + a*52 + b`` for two cards.

    :raises InvalidCard: ``key`` is not an integer from 0 to ``52 + 52*52 - 1``.
    """
    if type(key) is int:
        if 0 <= key < ONE_CARD_KEYS:
            return SINGLE_PLAYS[key]
        play = _TWO_CARD_PLAYS.get(key)
        if play is not None:
            return play
    if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key < PLAY_KEYS:
        raise InvalidCard(
            f"not a play key: {key!r} (0-51 for one card, 52 + a*52 + b for two, below {PLAY_KEYS})"
        )
    key = int(key)  # an int subclass: its plain value
    if key < ONE_CARD_KEYS:
        return SINGLE_PLAYS[key]
    play = _TWO_CARD_PLAYS.get(key)
    if play is None:
        first, second = cards_of_key(key)
        play = _TWO_CARD_PLAYS[key] = Play((Card.from_index(first), Card.from_index(second)))
    return play


def parse_action(text: str) -> Action:
    """Read an action from its text form (``play QS``, ``show QS AH``, ``show -``: a show
    of nothing says so, a bare ``show`` is refused).

    :raises InvalidCard: when the text is not an action.
    """
    if not isinstance(text, str):
        raise InvalidCard(f"expected action text, got {type(text).__name__}: {text!r}")
    verb, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    if not rest and verb in _KINDS_BY_VERB:  # "show" alone: a client that lost its cards
        raise InvalidCard(f"{verb} needs its cards, or - for none: {text!r}")
    cards = () if rest in ("", "-") else parse_cards(rest)
    if verb == "play":
        if not cards:
            raise InvalidCard(f"a play needs a card: {text!r}")
        if len(cards) == 1:
            return SINGLE_PLAYS[cards[0].index]
        return Play(cards)
    kind = _KINDS_BY_VERB.get(verb)
    if kind is None:
        raise InvalidCard(f"not an action: {text!r} (play, show, first-show or sell)")
    return Show(cards, kind)
