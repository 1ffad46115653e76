"""Measuring bots against each other on duplicate deals (``gongzhu arena``).

Each deal is played once per seat assignment, so every side holds every
seat's cards and the luck of the deal cancels out:

``2v2``
    partners sit opposite (seats 0 and 2 against 1 and 3); each deal is
    played twice, the teams swapped.  A team's score is the sum of its two
    seats' raw points; a hand gives the difference A − B.  The bots are told
    the format (:data:`~gongzhu.bots.PARTNERS`), so the bots that listen play
    for their team.
``1v3``
    bot A at one seat, bot B at the other three; each deal is played four
    times, A at each seat in turn.  A hand gives A's raw points less the
    mean of the three others'.  Every seat plays for itself.

A deal's value is the mean over its hands, and the standard error is taken
over deals (the hands of one deal are correlated).  Identical bots score
exactly 0.  Deal *i* comes from a seed derived from the run's seed and *i*
alone, so results do not depend on the number of workers, nor on the
backend that runs them (local processes or Ray tasks: :mod:`gongzhu.backends`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from . import backends
from .actions import Action, Show
from .bots import Bot, make_bot
from .errors import GongzhuError
from .hand import HandState
from .rules import Rules, load_rules
from .runner import task_size
from .view import Phase

__all__ = ["FORMATS", "ArenaResult", "play_deal", "run_arena"]

FORMATS: Final = ("2v2", "1v3")
"""The arena's formats."""


@attrs.frozen
class ArenaResult:
    """What an arena run measured.

    :ivar a: bot A's name.
    :ivar b: bot B's name.
    :ivar format: ``"2v2"`` or ``"1v3"``.
    :ivar deals: duplicate deals played.
    :ivar hands: hands played (2 or 4 per deal).
    :ivar mean: A's advantage in raw points per hand (see the module).
    :ivar stderr: the standard error of ``mean``, over deals (``None`` after one deal).
    """

    a: str
    b: str
    format: str
    deals: int
    hands: int
    mean: float
    stderr: float | None

    @property
    def z(self) -> float | None:
        """``mean / stderr``: above 2.33, A is better with 99% confidence (one-sided).

        ``0.0`` for identical results; ``None`` when it is not defined (one deal, or
        deals that all differed by the same nonzero amount).
        """
        if self.stderr:
            return self.mean / self.stderr
        if self.stderr is not None and self.mean == 0:
            return 0.0
        return None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the result, ``z`` included."""
        return {**attrs.asdict(self), "z": self.z}


def _quietest_show(legal: Sequence[Action]) -> Action:
    """The legal show with the fewest cards (showing nothing where that is allowed)."""
    shows = [a for a in legal if isinstance(a, Show)]
    return min(shows, key=lambda a: len(a.cards)) if shows else legal[0]


def _play(hand: HandState, bots: Sequence[Bot], shows: bool) -> tuple[int, ...]:
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        if not shows and hand.phase is not Phase.PLAY:
            hand.apply(_quietest_show(hand.legal_actions()))
        else:
            hand.apply(bots[seat].choose(hand.view(seat)))
    return hand.score().raw


def play_deal(
    rules: Rules,
    deal_seed: int,
    a: str,
    b: str,
    *,
    format: str = "2v2",
    shows: bool = False,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> float:
    """Play one deal under every seat assignment of ``format``: A's mean advantage per hand.

    :param rules: the ruleset.
    :param deal_seed: the deal's seed (``rules.new_hand(deal_seed)``).
    :param a: bot A's name (:func:`gongzhu.bots.make_bot`).
    :param b: bot B's name.
    :param format: ``"2v2"`` or ``"1v3"``.
    :param shows: let the bots show cards; ``False`` (default) shows nothing.
    :param options: per bot name, options for :func:`~gongzhu.bots.make_bot`.
    """
    if format not in FORMATS:
        raise GongzhuError(f"arena format must be one of {', '.join(FORMATS)}, not {format!r}")
    options = options or {}
    layouts: list[tuple[tuple[int, ...], tuple[str, ...]]]
    if format == "2v2":  # (A's seats, the names by seat)
        layouts = [((0, 2), (a, b, a, b)), ((1, 3), (b, a, b, a))]
    else:
        layouts = [((k,), tuple(a if seat == k else b for seat in range(4))) for k in range(4)]
    total = 0  # in thirds of a point for 1v3, kept exact: identical bots give exactly 0
    for mine, names in layouts:
        bots = [
            make_bot(
                name, seed=deal_seed * 4 + seat, rules=rules, format=format, **options.get(name, {})
            )
            for seat, name in enumerate(names)
        ]
        raw = _play(rules.new_hand(deal_seed), bots, shows)
        ours = sum(raw[s] for s in mine)
        theirs = sum(raw) - ours
        # 2v2: team against team; 1v3: A against the mean of the other three
        total += ours - theirs if len(mine) == 2 else 3 * ours - theirs
    return total / len(layouts) / (1 if format == "2v2" else 3)


def _deal_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) % (2**63)


_Setting = tuple[dict[str, Any], int, str, str, str, bool, dict[str, Any]]
"""What every deal of a run shares: the ruleset's spec, the run's seed, the bots, the
format, the shows and the bots' options."""


def _play_deals(job: tuple[_Setting, int, int]) -> list[float]:
    """The values of ``count`` deals of a run from deal ``start``: one task."""
    (spec, seed, a, b, format, shows, options), start, count = job
    stop = start + count
    rules = load_rules(*spec["variants"], **spec["options"])
    return [
        play_deal(rules, _deal_seed(seed, i), a, b, format=format, shows=shows, options=options)
        for i in range(start, stop)
    ]


def run_arena(
    rules: Rules,
    a: str,
    b: str,
    deals: int,
    *,
    format: str = "2v2",
    seed: int = 0,
    workers: int = 1,
    shows: bool = False,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: Callable[[int, int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> ArenaResult:
    """Play ``deals`` duplicate deals of bot ``a`` against bot ``b``.

    :param workers: processes to play in (the result is the same for any number).
    :param progress: called as ``progress(done, deals)`` as deals finish.
    :param backend: ``"local"`` (processes) or ``"ray"`` (Ray tasks, on the
        cluster at ``address`` or a local Ray instance); see
        :func:`gongzhu.backends.imap`.  The result is the same on both.
    :param options: bot name -> keyword options for that bot
        (``{"search": {"objective": "team"}}``).
    :raises GongzhuError: an unknown format, bot or backend, options a bot
        refuses, or a non-positive count.
    :raises BackendUnavailable: ``backend="ray"`` without Ray installed.
    """
    if format not in FORMATS:
        raise GongzhuError(f"arena format must be one of {', '.join(FORMATS)}, not {format!r}")
    if deals < 1 or workers < 1:
        raise GongzhuError("an arena needs at least one deal and one worker")
    plain = {name: dict(values) for name, values in (options or {}).items()}
    for name in (a, b):  # an unknown bot, or options it refuses, fail here, before any work
        try:
            make_bot(name, rules=rules, **plain.get(name, {}))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, GongzhuError):
                raise
            raise GongzhuError(f"bot {name!r} refuses its options: {exc}") from None
    setting: _Setting = (rules.spec(), seed, a, b, format, shows, plain)
    workers = min(workers, deals)
    tasks = backends.Chunks(setting, deals, task_size((a, b), deals, workers))
    results = _Running()
    values = backends.imap(
        _play_deals,
        tasks,
        backend=backend,
        workers=workers,
        address=address,
    )
    try:
        for batch in values:
            results.extend(batch)
            if progress is not None:
                progress(results.count, deals)
    except KeyboardInterrupt as exc:
        # the deals finished so far are the result of a run cut short: kept on the exception
        exc.result = _result(a, b, format, results) if results.count else None  # type: ignore[attr-defined]
        raise
    finally:
        values.close()
    return _result(a, b, format, results)


class _Running:
    """The deals' values so far, in constant memory: their count, sum, and squared
    deviations from their mean (Welford's)."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.mean = 0.0
        self.squares = 0.0

    def extend(self, values: Iterable[float]) -> None:
        for value in values:
            self.count += 1
            self.total += value
            delta = value - self.mean
            self.mean += delta / self.count
            self.squares += delta * (value - self.mean)


def _result(a: str, b: str, format: str, results: _Running) -> ArenaResult:
    """The result of the deals ``results`` has read."""
    deals = results.count
    mean = results.total / deals
    variance = results.squares / (deals - 1) if deals > 1 else None
    return ArenaResult(
        a=a,
        b=b,
        format=format,
        deals=deals,
        hands=deals * (2 if format == "2v2" else 4),
        mean=mean,
        stderr=None if variance is None else math.sqrt(variance / deals),
    )
