"""The heuristic bot: the rules of thumb (:mod:`~gongzhu.bots.rulebook`), checked by a small search.

Wherever the seat has a real choice of plays (two or more plays that are not
alike: :func:`~gongzhu.bots.rulebook.alike_plays`), leads included, the rules' play is checked on a
few sampled deals played out (a :class:`~gongzhu.bots.SearchBot` with the
rules' choice as its prior); ``where="stake"`` checks only where points are
at stake (:func:`points_at_stake`), as the bot did until 2026-12-07.  The
rules of thumb live in :mod:`gongzhu.bots.rulebook`.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final, SupportsIndex

import attrs

from ..actions import Action
from ..cards import TRANSFORMER
from ..play import Capability
from ..rules import Rules, load_rules
from ..view import Phase, SeatView
from .rulebook import Rule, RulesBot, Situation, alike_plays
from .search import SearchBot, check_endgame
from .teams import TableFormat

__all__ = [
    "CHECK_SAMPLES",
    "CHECK_SHARES",
    "CHECK_WHERE",
    "HeuristicBot",
    "points_at_stake",
]


CHECK_SAMPLES: Final = 32
"""The sampled deals with which the heuristic bot checks a decision where points are at
stake (other decisions: :data:`CHECK_SHARES`)."""

CHECK_SHARES: Final = MappingProxyType({"lead": 1.5, "stake": 1.0, "other": 0.75})
"""What part of ``check`` a check draws, by decision: a lead; a follow or discard where
points are at stake (:func:`points_at_stake`); any other follow or discard.  A lead,
with the most plays to tell apart, draws the most."""

CHECK_WHERE: Final = ("all", "stake")
"""Which decisions the heuristic bot checks: every play with a choice (``"all"``), or only
those where points are at stake (``"stake"``, :func:`points_at_stake`)."""


def points_at_stake(s: Situation) -> bool:
    """Whether a decision may move points: following or discarding with scoring cards about.

    A card worth points (the pig, the sheep, a heart that counts) or the
    transformer lies in the trick under way or among the seat's legal plays
    (leads are not checked).
    """
    if not s.trick or len(s.plays) < 2:
        return False
    table = s.rules.table
    for _, cards in s.trick:
        for card in cards:
            if card is TRANSFORMER or table.base_value(card):
                return True
    return any(card is TRANSFORMER or table.base_value(card) for p in s.plays for card in p.cards)


class _Decided:
    """A prior that answers the action the rules already chose (so a check does not ask
    them again)."""

    def __init__(self) -> None:
        self.action: Action | None = None

    def choose(self, view: SeatView) -> Action:
        assert self.action is not None
        return self.action


def _samples(check: object) -> int:
    """``check`` as a whole number of samples, at least 0 (any integer type, not a bool)."""
    try:
        if isinstance(check, bool):
            raise TypeError
        samples = operator.index(check)  # type: ignore[arg-type]
    except TypeError:
        samples = -1
    if samples < 0:
        raise ValueError(f"check must be a number of samples, at least 0, not {check!r}")
    return samples


class HeuristicBot:
    """The rules of thumb (a :class:`~gongzhu.bots.rulebook.RulesBot`), checked by a search.

    :param seed: seeds the checks' sampling and playouts.
    :param rules: the ruleset being played (card values, showable cards,
        discard rule); the view does not carry it.  Default: 39baobao.
    :param rules_order: the play rules to use, in order (default
        :data:`~gongzhu.bots.rulebook.PLAY_RULES`).
    :param format: the table's format (:func:`~gongzhu.bots.format_of`): in
        ``"2v2"`` the bot plays for its team; default: each seat for itself.
    :param check: the rules' play is checked on at most this many sampled
        deals played out where points are at stake, and on its
        :data:`CHECK_SHARES` elsewhere (:attr:`check_samples`: a small
        :class:`~gongzhu.bots.SearchBot` search over one play of each group
        of alike plays, which keeps the rules' play unless another is better
        by more than a standard error, and stops once every other play is
        pruned); 0 plays by the rules alone, as the ``rules`` bot does.  The
        number of samples, not a time, bounds a check: the bot plays the
        same for a seed on any machine.  With two decks a check draws a
        quarter as many where it checks only the plays at stake, and an
        eighth where it checks every play (a two-deck sample costs several
        one-deck ones).
    :param where: which plays are checked (:data:`CHECK_WHERE`): ``"all"``,
        every play with a choice of plays that are not alike; ``"stake"``,
        only where points are at stake (:func:`points_at_stake`).  Default:
        ``"all"`` where the ruleset's engine plays the greedy playout itself,
        with one deck or two; ``"stake"`` where the check's playouts are
        random.
    :param endgame: the hand's last tricks each of the check's playouts searches
        exactly (the search's ``endgame``, :data:`~gongzhu.bots.search.DEFAULT_ENDGAME`
        for the search bot); default 0: the check plays its playouts greedily to the
        end, as the heuristic was measured (the end game nearly doubles a check's cost,
        over the heuristic's 1 ms a decision).
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        rules_order: Sequence[Rule] | None = None,
        format: str | TableFormat | None = None,
        check: SupportsIndex = CHECK_SAMPLES,
        where: str | None = None,
        endgame: int = 0,
    ) -> None:
        check = _samples(check)
        check_endgame(endgame)  # refused with or without a check
        rules = load_rules() if rules is None else rules
        if where is None:  # two decks' many plays, or random playouts: at stake only
            greedy = rules.engine_spec.offers(Capability.GREEDY_PLAYOUT)
            where = "all" if greedy else "stake"
        if where not in CHECK_WHERE:
            raise ValueError(
                f"where must be one of {', '.join(map(repr, CHECK_WHERE))}, not {where!r}"
            )
        self.where = where
        """Which plays are checked: ``"all"`` or ``"stake"`` (see ``where``)."""
        self._decided = _Decided()
        self.rules = rules
        self._check = check
        copies = self.rules.table.copies  # two decks: a quarter, an eighth checking all
        per_deal = check / (copies**2 * (copies if where == "all" else 1))
        self._samples = MappingProxyType(
            {kind: max(1, int(per_deal * share)) for kind, share in CHECK_SHARES.items()}
        )
        self.by_rules = RulesBot(rules=self.rules, rules_order=rules_order, format=format)
        """The rules-only bot whose play is checked."""
        self._checker = (
            SearchBot(
                seed,
                rules=self.rules,
                budget_ms=None,
                samples=self._samples["stake"],
                format=self.by_rules.format,
                shows="prior",
                prior=self._decided,
                reading=0,  # a check's few samples are dealt as the view allows
                endgame=endgame,
                alike=False,  # the view it is given holds one play of each group already
            )
            if check
            else None
        )
        self.last_rule: str | None = None
        """The name of the rule that made the last decision, or ``"checked"`` where the
        check overruled it (for tests and explanations)."""

    @property
    def check(self) -> int:
        """The sampled deals a check draws (0: no check); fixed when the bot is made."""
        return self._check

    @property
    def endgame(self) -> int:
        """The last tricks the check's playouts search exactly (0: none); fixed when the bot
        is made."""
        return self._checker.endgame if self._checker is not None else 0

    @property
    def check_samples(self) -> Mapping[str, int]:
        """The sampled deals a check draws at most, by decision (:data:`CHECK_SHARES` of
        :attr:`check`; with two decks a quarter of that at stake only, an eighth checking
        every play; at least one)."""
        return self._samples

    @property
    def format(self) -> TableFormat:
        """The table's format: the bot plays for its team when it has partners."""
        return self.by_rules.format

    @format.setter
    def format(self, format: TableFormat) -> None:
        self.set_format(format)

    @property
    def play_rules(self) -> tuple[Rule, ...]:
        """The play rules in use, in order."""
        return self.by_rules.play_rules

    @play_rules.setter
    def play_rules(self, rules_order: Sequence[Rule]) -> None:
        self.by_rules.play_rules = rules_order  # checked there

    def set_format(self, format: TableFormat) -> None:
        """Hear the table's format (:func:`~gongzhu.bots.tell_format` calls this)."""
        self.by_rules.set_format(format)
        if self._checker is not None:
            self._checker.set_format(format)

    def choose(self, view: SeatView) -> Action:
        """The rules' action, or the check's where the check finds a better one."""
        by_rules = self.by_rules
        if len(view.legal_actions) < 2:
            action = by_rules.choose(view)  # the only action, or the error of a seat not to move
            self.last_rule = by_rules.last_rule
            return action
        situation = Situation(view, self.rules, self.format)
        action = by_rules.decide(situation)
        self.last_rule = by_rules.last_rule
        if self._checker is None or view.phase is not Phase.PLAY:
            return action
        stake = points_at_stake(situation)  # (never at a lead)
        kind = "stake" if stake else "other" if situation.trick else "lead"
        if self.where == "stake" and kind != "stake":
            return action
        groups = alike_plays(situation)
        if len(groups) < 2:
            return action
        legal = tuple(action if action in group else group[0] for group in groups)
        if len(legal) < len(view.legal_actions):
            view = attrs.evolve(view, legal_actions=legal)
        self._decided.action = action
        self._checker.samples = self._samples[kind]
        checked = self._checker.choose(view)
        if checked != action:
            self.last_rule = "checked"
        return checked
