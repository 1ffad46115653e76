"""The exceptions gongzhu raises.

Every exception is a :class:`GongzhuError`, so one ``except GongzhuError``
catches anything the library reports about bad input.  Where a built-in
exception class fits as well (a malformed card is also a :class:`ValueError`,
an unknown plug-in also a :class:`LookupError`) the error inherits from both.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Final

__all__ = [
    "GongzhuError",
    "HandLimitReached",
    "HandNotOver",
    "IllegalAction",
    "IncompatibleVariants",
    "InvalidCard",
    "InvalidHoldings",
    "InvalidOption",
    "InvalidPlugin",
    "InvalidRecord",
    "InvalidScoreInput",
    "NotAnAction",
    "PluginError",
    "PluginLoadError",
    "UnknownName",
    "UnknownVariant",
]


class GongzhuError(Exception):
    """Base class of every error gongzhu raises on purpose."""


class InvalidCard(GongzhuError, ValueError):
    """A card (or a list of cards) could not be read from text."""


class IllegalAction(GongzhuError, ValueError):
    """An action that the rules do not allow in the current state.

    The state it was applied to is left exactly as it was.

    :ivar action: the rejected action (as given).
    :ivar seat: the seat whose turn it was, or ``None`` when the hand is over.
    :ivar rule: a short sentence naming the rule the action breaks.
    :ivar refusal: for a refused card play, the play engine's
        :class:`~gongzhu.play.Refusal` (its ``rule`` names the rule:
        ``"follow-suit"``, ``"shown-card-lock"``, a plug-in's rule...), else ``None``.
    """

    def __init__(self, action: Any, seat: int | None, rule: str, refusal: Any = None) -> None:
        self.action = action
        self.seat = seat
        self.rule = rule
        self.refusal = refusal
        who = "the hand is over" if seat is None else f"seat {seat}"
        super().__init__(f"illegal action {_describe(action)} ({who}): {rule}")


class InvalidSeat(GongzhuError, ValueError):
    """A seat that is not 0-3 (an ``int``, not a ``bool``)."""


class UnknownName(GongzhuError, LookupError):
    """No plug-in is installed under a requested entry-point name.

    The base of :class:`UnknownVariant` and :class:`gongzhu.bots.UnknownBot
    <gongzhu.bots.registry.UnknownBot>`: the message names what was asked for
    and lists what is installed.

    :ivar name: the name asked for.
    :ivar available: the names that are installed.
    """

    kind: str = "plug-in"
    """What the names name, in the message ("variant", "bot")."""

    def __init__(self, name: str, available: Iterable[str]) -> None:
        self.name = name
        self.available = tuple(sorted(available))
        listed = ", ".join(self.available) or "none"
        self.message = f"no gongzhu {self.kind} named {name!r}; installed: {listed}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message  # as given, also for a KeyError subclass (which would quote it)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the class and its two arguments (for multiprocessing)."""
        return (type(self), (self.name, self.available))


class UnknownVariant(UnknownName):
    """No variant plug-in is installed under the requested entry-point name."""

    kind = "variant"


class PluginLoadError(GongzhuError):
    """An installed plug-in whose entry point cannot be loaded (its module fails to import,
    or does not have the object the entry point names).

    :ivar name: the entry-point name.
    :ivar origin: the distribution that installed it (``"name version"``), or the entry
        point's value when the distribution is not known.
    :ivar cause: the exception loading it raised (also ``__cause__``).
    """

    def __init__(self, name: str, origin: str, cause: BaseException) -> None:
        self.name = name
        self.origin = origin
        self.cause = cause
        said = one_line(str(cause))
        super().__init__(  # one line, whatever the cause says (its text is in ``cause``)
            f"the plug-in {name!r} (installed by {origin}) cannot be loaded: "
            f"{type(cause).__name__}: {said}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the class and its three arguments (for multiprocessing)."""
        return (type(self), (self.name, self.origin, self.cause))


class IncompatibleVariants(GongzhuError):
    """The requested plug-ins cannot be combined into one ruleset."""


class InvalidPlugin(IncompatibleVariants):
    """A plug-in that cannot take part in any ruleset: it implements an unknown hook or one
    whose arguments do not fit, does not describe itself with a
    :class:`~gongzhu.plugin.VariantInfo`, or describes itself under another name."""


class InvalidOption(GongzhuError, ValueError):
    """A ruleset option that no loaded plug-in declares, or a bad value for one."""


class InvalidScoreInput(GongzhuError, ValueError):
    """Input to :meth:`gongzhu.Rules.score` that cannot describe a finished hand."""


class InvalidHoldings(GongzhuError, ValueError):
    """Cards given to :meth:`HandState.with_holdings <gongzhu.hand.HandState.with_holdings>`
    that do not fit the hand."""


class NotAnAction(GongzhuError, TypeError):
    """A value given as an action that is not one (a :class:`~gongzhu.actions.Play` or a
    :class:`~gongzhu.actions.Show`): text, ``None``, a card..."""


class PluginError(GongzhuError):
    """A plug-in's own code raised while a ruleset was built or a hand was scored (a bug
    of the plug-in's, not of gongzhu's): the message names the plug-in and the hook, or
    the score stage, where they are known.

    :ivar plugin: the plug-in's entry-point name, or ``None`` where it is not known.
    :ivar where: the hook (``gongzhu_heart_values``) or ``score stage 'name'``.
    :ivar cause: the exception raised (also ``__cause__``).
    """

    def __init__(self, plugin: str | None, where: str, cause: BaseException) -> None:
        self.plugin = plugin
        self.where = where
        self.cause = cause
        said = one_line(str(cause))
        who = "a plug-in" if plugin is None else f"the plug-in {plugin!r}"
        super().__init__(f"{who} failed in {where}: {type(cause).__name__}: {said}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the class and its three arguments (for multiprocessing)."""
        return (type(self), (self.plugin, self.where, self.cause))


class HandLimitReached(GongzhuError):
    """A match did not end within its hand limit (an unreachable target?).

    :ivar target: the match's target, or ``None`` for a match without one.
    """

    def __init__(self, message: str, target: int | None = None) -> None:
        self.target = target
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the class, the message and the target (for multiprocessing)."""
        return (type(self), (str(self), self.target))


class HandNotOver(GongzhuError):
    """A result was asked of a hand that is still being played."""


class InvalidRecord(GongzhuError, ValueError):
    """A game record that cannot be replayed.

    :ivar hand: which hand of the record (0 for a single-hand record), or ``None`` when
        the problem is a match record's own (its totals, its losers).
    :ivar index: the index of the offending action, or ``None`` when the
        problem is not an action (the deal, the rules, the stored result).
    :ivar reason: what is wrong.
    """

    def __init__(self, reason: str, *, hand: int | None = 0, index: int | None = None) -> None:
        self.hand = hand
        self.index = index
        self.reason = reason
        where = "match" if hand is None else f"hand {hand}"
        where += "" if index is None else f", action {index}"
        super().__init__(f"invalid record ({where}): {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the reason, the hand and the index (for multiprocessing)."""
        return (functools.partial(type(self), hand=self.hand, index=self.index), (self.reason,))


def one_line(text: str) -> str:
    """``text`` in one line: its lines, stripped, joined by spaces (a plug-in's message
    may say more than one)."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def times(count: int) -> str:
    """How many times, in words, for messages: ``never``, ``once``, ``twice``, ``3 times``."""
    return {0: "never", 1: "once", 2: "twice"}.get(count, f"{count} times")


_LONGEST: Final = 60
"""The most characters of a given text a message repeats (a record may hold megabytes)."""


def _cut(text: str) -> str:
    return text if len(text) <= _LONGEST else text[:_LONGEST]


def _more(text: str) -> str:
    return "" if len(text) <= _LONGEST else f"… ({len(text):,} characters)"


def quoted(text: str) -> str:
    """``text`` quoted for a message (``'ZZ'``), its first 60 characters and its length
    when it is longer."""
    return repr(_cut(text)) + _more(text)


def _describe(action: Any) -> str:
    text = str(action)
    if text and not text[0].isalpha():
        return quoted(text)
    return _cut(text) + _more(text)
