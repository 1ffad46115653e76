"""Scoring a finished hand: a pipeline of stages that ends in a :class:`ScoreSheet`.

The core pipeline, in order (each stage is a function of a
:class:`ScoringContext`, named so plug-ins can insert, replace or remove it
through :func:`~gongzhu.hookspecs.gongzhu_score_stages`):

``values``
    each scoring card taken gets its base value times its show factor; the
    hearts share the factor of the showable heart; each transformer taken sets
    the seat's multiplier (×2, ×4 shown) and its value when alone (+50, +100).
``full-hearts``
    满红: a seat with every heart has the hearts' sum change sign.
``slam``
    满贯: a seat with every scoring card has the pig change sign too.
``total``
    the sum of the values; with a transformer, times the multiplier, or its
    alone-value when it is the only scoring card taken (a sum of 0 stays 0).

Then the ruleset's normalisation (:func:`~gongzhu.hookspecs.gongzhu_normalise`)
turns the raw totals into the hand's result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, overload

import attrs

from ._accel import accelerator
from .actions import ShowKind
from .cards import PIG, SHEEP, TRANSFORMER, Card, Rank, Suit

if TYPE_CHECKING:
    from .plugin import Options

__all__ = [
    "DEFAULT_CARD_VALUES",
    "DEFAULT_HEART_VALUES",
    "DEFAULT_SHOW_FACTORS",
    "SHOWN_WORDS",
    "CompiledScorer",
    "Entry",
    "ScoreSheet",
    "ScoreStage",
    "ScoreTable",
    "ScoringContext",
    "SeatTally",
    "ShowRecord",
    "StageList",
    "core_stages",
    "run_pipeline",
    "show_record",
    "signed",
]

PIG_VALUE: Final = -100
SHEEP_VALUE: Final = 100
TRANSFORMER_MULTIPLIER: Final = 2
TRANSFORMER_ALONE: Final = 50

DEFAULT_HEART_VALUES: Final[Mapping[Rank, int]] = {
    Rank.ACE: -50,
    Rank.KING: -40,
    Rank.QUEEN: -30,
    Rank.JACK: -20,
    **{r: -10 for r in (Rank.TEN, Rank.NINE, Rank.EIGHT, Rank.SEVEN, Rank.SIX, Rank.FIVE)},
    **{r: 0 for r in (Rank.FOUR, Rank.THREE, Rank.TWO)},
}
"""The standard heart table (source 000 and source 001 agree)."""

DEFAULT_CARD_VALUES: Final[Mapping[Card, int]] = {PIG: PIG_VALUE, SHEEP: SHEEP_VALUE}
"""The scoring cards besides the hearts and the transformer: the pig and the sheep."""

DEFAULT_SHOW_FACTORS: Final[Mapping[ShowKind, int]] = {
    ShowKind.OPEN: 2,
    ShowKind.FIRST: 4,
    ShowKind.SECRET: 2,
}
"""Show factors: 明 ×2, 首明 ×4, 暗卖 scored as shown ×2."""


@attrs.frozen
class ScoreTable:
    """The compiled scoring data of a ruleset (built once by :func:`gongzhu.load_rules`).

    The scoring cards (分牌) are the table's: every heart (valued by
    :attr:`heart_values`), the transformer, and the cards of
    :attr:`card_values` (by default the pig and the sheep;
    :func:`~gongzhu.hookspecs.gongzhu_card_values` changes them).

    :ivar copies: decks in play (1 or 2).
    :ivar showable: the cards that may be shown.
    :ivar heart_values: each heart's base value, by rank.
    :ivar show_factors: the factor of each kind of show.
    :ivar card_values: the other scoring cards (not the transformer) and
        their base values.
    """

    copies: int
    showable: frozenset[Card]
    heart_values: Mapping[Rank, int]
    show_factors: Mapping[ShowKind, int]
    card_values: Mapping[Card, int] = attrs.field(factory=lambda: dict(DEFAULT_CARD_VALUES))
    _bits: int = attrs.field(init=False, repr=False, eq=False)

    @_bits.default
    def _scoring_bits(self) -> int:
        return Suit.HEARTS.mask | TRANSFORMER.bit | sum(card.bit for card in self.card_values)

    @property
    def is_standard(self) -> bool:
        """Whether the scoring cards and their values are the core's (the pig and the
        sheep at −100 and +100): what the :class:`CompiledScorer` computes."""
        return dict(self.card_values) == dict(DEFAULT_CARD_VALUES)

    @property
    def showable_heart(self) -> Card | None:
        """The showable heart, whose show multiplies every heart (♥A by default)."""
        return next((c for c in self.showable if c.suit is Suit.HEARTS), None)

    def base_value(self, card: Card) -> int:
        """The value of a scoring card before any factor (the transformer has none: 0)."""
        if card.suit is Suit.HEARTS:
            return self.heart_values[card.rank]
        return self.card_values.get(card, 0)

    def is_scoring(self, card: Card) -> bool:
        """Whether ``card`` is a scoring card (分牌): a heart, the transformer, or a card of
        :attr:`card_values`."""
        return bool(self._bits >> card.index & 1)

    @property
    def scoring_mask(self) -> int:
        """The card mask of every copy of the scoring cards (a second copy at bit 52 + index)."""
        bits = self._bits
        return bits | (bits << 52 if self.copies == 2 else 0)

    @property
    def scoring_count(self) -> int:
        """How many scoring cards the deck holds (by default 16 per copy)."""
        return self._bits.bit_count() * self.copies


@attrs.frozen
class ShowRecord:
    """One shown card: who showed it and how."""

    seat: int
    card: Card
    kind: ShowKind


_RECORDS: dict[tuple[int, int, ShowKind], ShowRecord] = {}


def show_record(seat: int, card: Card, kind: ShowKind) -> ShowRecord:
    """``ShowRecord(seat, card, kind)``, made once and then shared (records are frozen):
    hands list their shows this way at every phase change, at no allocation."""
    key = (seat, card.index, kind)
    record = _RECORDS.get(key)
    if record is None:
        record = _RECORDS[key] = ShowRecord(seat, card, kind)
    return record


@attrs.define
class Entry:
    """One scoring card a seat took (other than a transformer), with its current value.

    :ivar card: the card.
    :ivar value: its current value.
    :ivar shown: two decks, a showable card: the show of this copy (who showed it,
        and how) when it is a shown copy, else ``None``; set by the ``values``
        stage (always ``None`` with one deck).
    """

    card: Card
    value: int = 0
    shown: ShowRecord | None = None


@attrs.define
class SeatTally:
    """What the pipeline knows and has worked out about one seat.

    :ivar transformer_shows: two decks: per copy of :attr:`transformers`, in
        order, its show when it is a shown copy, else ``None``; set by the
        ``values`` stage (empty with one deck).
    """

    seat: int
    entries: list[Entry]
    transformers: list[Card]
    multiplier: int = 1
    alone: int = 0
    total: int = 0
    full_hearts: bool = False
    slam: bool = False
    lines: list[str] = attrs.field(factory=list)
    transformer_shows: list[ShowRecord | None] = attrs.field(factory=list)

    def hearts(self) -> list[Entry]:
        """The seat's heart entries."""
        return [e for e in self.entries if e.card.suit is Suit.HEARTS]

    def sum_of(self, entries: Sequence[Entry]) -> int:
        """The summed value of ``entries``."""
        return sum(e.value for e in entries)

    def note(self, ctx: ScoringContext, line: str) -> None:
        """Add a line to the seat's explanation (dropped when ``ctx.explain`` is off)."""
        if ctx.explain:
            self.lines.append(line)


@attrs.define
class ScoringContext:
    """Everything a stage may read or change while a hand is scored."""

    table: ScoreTable
    options: Options
    seats: list[SeatTally]
    shows: tuple[ShowRecord, ...]
    dealt: tuple[tuple[Card, ...], ...] | None
    shown_taken: list[list[ShowRecord]] | None = None
    """Per seat, the shown copies it took, when copies make that a question (two decks)."""
    explain: bool = True
    """Whether stages write readable lines (off when only the numbers are wanted)."""

    def pop_copy_factor(self, seat: int, card: Card) -> int:
        """The show factor of the next copy of ``card`` that ``seat`` took, using it up.

        With one deck, the card's own factor (nothing is used up).  With two
        decks each shown copy doubles only itself (:doc:`rules`, a
        **(choice)**): the factor of the first shown copy of ``card`` left in
        :attr:`shown_taken` for the seat, which is removed from it, or 1 when
        none is left (an unshown copy).  Call it once per copy taken.
        """
        return self._pop_copy(seat, card)[1]

    def _pop_copy(self, seat: int, card: Card) -> tuple[ShowRecord | None, int]:
        """:meth:`pop_copy_record` and :meth:`pop_copy_factor` at once: the copy's show
        (``None`` for an unshown copy, and with one deck) and its show factor."""
        if self.shown_taken is None:
            return None, self.show_factor(card)
        record = self.pop_copy_record(seat, card)
        return record, 1 if record is None else self.table.show_factors[record.kind]

    def pop_copy_record(self, seat: int, card: Card) -> ShowRecord | None:
        """Two decks: the show of the next copy of ``card`` that ``seat`` took, using it
        up: the first shown copy of ``card`` left in :attr:`shown_taken` for the seat
        (removed from it), or ``None`` for an unshown copy (and always with one deck).
        :meth:`pop_copy_factor` uses it."""
        if self.shown_taken is None:
            return None
        taken = self.shown_taken[seat]
        for position, record in enumerate(taken):
            if record.card == card:
                del taken[position]
                return record
        return None

    def show_factor(self, card: Card) -> int:
        """The product of the factors of every shown copy of ``card`` (1 if none)."""
        factor = 1
        for show in self.shows:
            if show.card == card:
                factor *= self.table.show_factors[show.kind]
        return factor

    def shown_kind(self, card: Card) -> ShowKind | None:
        """How ``card`` was shown, or ``None`` (the first shown copy, in two-deck play)."""
        return next((s.kind for s in self.shows if s.card == card), None)

    @property
    def hearts_factor(self) -> int:
        """The factor every heart is multiplied by: that of the showable heart."""
        heart = self.table.showable_heart
        return 1 if heart is None else self.show_factor(heart)


StageFunc = Callable[[ScoringContext], None]


def _per_seat() -> list[dict[int, int]]:
    return [{}, {}, {}, {}]


@attrs.define
class MaskScoring:
    """What the card-mask form of a scoring stage reads and changes.

    A stage that only changes some cards' own values (自得 doubles a
    self-captured card) can say so on card masks too
    (:attr:`ScoreStage.on_masks`), and the ruleset then keeps the fast
    :class:`CompiledScorer`.  Card masks hold bit ``card.index`` (with two
    decks, a second copy at bit ``52 + card.index``).

    One deck: a card goes to one seat, so stages multiply into :attr:`own`
    and :attr:`alone`.  Two decks (a stage whose :attr:`ScoreStage.two_decks`
    is set): the copies of a card may go to different seats and differ
    (a shown copy doubles only itself), so stages multiply into
    :attr:`copy_own` and :attr:`copy_alone`, per seat and per copy.  A seat's
    copies of a card are numbered as the compiled scorer counts them: first
    the shown copies it took, in :attr:`shown_taken` order, then its unshown
    ones; its first copy is at bit ``card.index``, a second at bit
    ``52 + card.index`` (where its taken mask has them).

    :ivar table: the compiled scoring data.
    :ivar options: the ruleset's option values.
    :ivar taken: per seat, the cards it took.
    :ivar dealt: per seat, the cards it was dealt.
    :ivar factors: card bit -> the product of its show factors (read only;
        two decks: of every shown copy).
    :ivar own: card bit -> a factor on that card's own value: the pig's or
        the sheep's value, one heart's value (before 满红 turns the hearts'
        sign), or the transformer's multiplier and alone-value both.  Stages
        multiply into it (one deck).
    :ivar alone: a factor on the transformer's alone-value only (one deck).
    :ivar shows: two decks: every shown copy, in the order shown (read only;
        empty with one deck).
    :ivar shown_taken: two decks: per seat, the shown copies it took (read
        only; empty with one deck).
    :ivar copy_own: two decks: per seat, copy bit -> a factor on that copy's
        own value, as :attr:`own` is for a card.  Stages multiply into it
        (:meth:`multiply_copy`).
    :ivar copy_alone: two decks: per seat, transformer copy bit -> a factor on
        that copy's alone-value only.  Stages multiply into it.
    """

    table: ScoreTable
    options: Options
    taken: Sequence[int]
    dealt: Sequence[int]
    factors: Mapping[int, int]
    own: dict[int, int] = attrs.field(factory=dict)
    alone: int = 1
    shows: Sequence[ShowRecord] = ()
    shown_taken: Sequence[Sequence[ShowRecord]] = ()
    copy_own: list[dict[int, int]] = attrs.field(factory=_per_seat)
    copy_alone: list[dict[int, int]] = attrs.field(factory=_per_seat)

    def multiply(self, card: Card, factor: int) -> None:
        """Multiply ``card``'s own value by ``factor`` (see :attr:`own`)."""
        bit = 1 << card.index
        self.own[bit] = self.own.get(bit, 1) * factor

    def multiply_copy(self, seat: int, card: Card, copy: int, factor: int) -> None:
        """Two decks: multiply the own value of ``seat``'s copy number ``copy`` (0 or
        1, as :attr:`copy_own` numbers them) of ``card`` by ``factor``."""
        bit = 1 << (card.index + 52 * copy)
        own = self.copy_own[seat]
        own[bit] = own.get(bit, 1) * factor


MaskStageFunc = Callable[[MaskScoring], None]


@attrs.frozen
class ScoreStage:
    """A named step of the scoring pipeline.

    :ivar name: the stage's name (other plug-ins place theirs by it).
    :ivar run: the step, on the :class:`ScoringContext`.
    :ivar on_masks: the same step on card masks (:class:`MaskScoring`), or
        ``None``.  Only a stage that changes cards' own values can have one,
        and it must sit between ``values`` and ``full-hearts``: a pipeline of
        the core's stages and such stages is scored by the
        :class:`CompiledScorer`, which the tests compare with the pipeline.
    :ivar two_decks: whether :attr:`on_masks` handles two decks too (the
        per-copy :attr:`MaskScoring.copy_own` and
        :attr:`MaskScoring.copy_alone`); without it a two-deck ruleset with
        the stage is scored by the pipeline.
    """

    name: str
    run: StageFunc
    on_masks: MaskStageFunc | None = None
    two_decks: bool = False


class StageList(Sequence[ScoreStage]):
    """The ordered scoring pipeline that :func:`gongzhu_score_stages` edits."""

    def __init__(self, stages: Sequence[ScoreStage] = ()) -> None:
        self._stages = list(stages)

    @overload
    def __getitem__(self, index: int) -> ScoreStage: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ScoreStage]: ...

    def __getitem__(self, index: int | slice) -> ScoreStage | Sequence[ScoreStage]:
        return self._stages[index]

    def __len__(self) -> int:
        return len(self._stages)

    def __iter__(self) -> Iterator[ScoreStage]:
        return iter(self._stages)

    @property
    def names(self) -> list[str]:
        """The stage names in order."""
        return [s.name for s in self._stages]

    def index(self, name: str) -> int:  # type: ignore[override]
        """The position of the stage called ``name`` (:class:`KeyError` if absent)."""
        for i, stage in enumerate(self._stages):
            if stage.name == name:
                return i
        raise KeyError(f"no scoring stage named {name!r}; stages: {', '.join(self.names)}")

    def insert_after(self, name: str, stage: ScoreStage) -> None:
        """Insert ``stage`` right after the stage called ``name``."""
        self._stages.insert(self.index(name) + 1, stage)

    def insert_before(self, name: str, stage: ScoreStage) -> None:
        """Insert ``stage`` right before the stage called ``name``."""
        self._stages.insert(self.index(name), stage)

    def replace(self, name: str, stage: ScoreStage) -> None:
        """Put ``stage`` in the place of the stage called ``name``."""
        self._stages[self.index(name)] = stage

    def remove(self, name: str) -> None:
        """Remove the stage called ``name``."""
        del self._stages[self.index(name)]

    def append(self, stage: ScoreStage) -> None:
        """Add ``stage`` at the end."""
        self._stages.append(stage)


def signed(n: int) -> str:
    """A score as score sheets print it: ``+200``, ``−100`` (a minus sign), ``0``."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


SHOWN_WORDS: Final = {
    ShowKind.OPEN: "shown",
    ShowKind.FIRST: "first-shown 首明",
    ShowKind.SECRET: "sold 暗卖",
}
"""How score sheets name each kind of show."""


def _factor_note(factor: int, what: str) -> str:
    return "" if factor == 1 else f" ×{factor} ({what})"


def _shown(ctx: ScoringContext, card: Card) -> str:
    kind = ctx.shown_kind(card)
    return SHOWN_WORDS[kind] if kind is not None else "shown"


def stage_values(ctx: ScoringContext) -> None:
    """Base value × show factor for each card; the transformer's multiplier and alone-value."""
    table = ctx.table
    hearts_factor = ctx.hearts_factor
    explain = ctx.explain
    heart = table.showable_heart
    copies_known = ctx.shown_taken is not None  # two decks: which copy is which
    showable = table.showable
    if explain:
        heart_word = _shown(ctx, heart) if heart is not None else "shown"
        heart_note = _factor_note(hearts_factor, f"{heart.symbol if heart else '♥'} {heart_word}")
    for tally in ctx.seats:
        hearts_base = 0
        for entry in tally.entries:
            base = table.base_value(entry.card)
            if entry.card.suit is Suit.HEARTS:
                hearts_base += base
                entry.value = base * hearts_factor
                if copies_known and entry.card in showable:  # its show, for later stages
                    entry.shown = ctx.pop_copy_record(tally.seat, entry.card)
            else:
                entry.shown, factor = ctx._pop_copy(tally.seat, entry.card)
                entry.value = base * factor
                if explain:
                    name = _CARD_NAMES.get(entry.card, "card")
                    copy = entry.shown  # two decks: this copy's own show, if it had one
                    word = _shown(ctx, entry.card) if copy is None else SHOWN_WORDS[copy.kind]
                    note = _factor_note(factor, word)
                    tally.lines.append(f"{name} {entry.card.symbol} {signed(base)}{note}")
        hearts = tally.hearts() if explain else None
        if hearts:
            tally.lines.append(
                f"hearts ×{len(hearts)} {signed(hearts_base)}{heart_note}"
                + (f" = {signed(tally.sum_of(hearts))}" if hearts_factor != 1 else "")
            )
        shown = False
        for card in tally.transformers:
            record, factor = ctx._pop_copy(tally.seat, card)
            if copies_known:
                tally.transformer_shows.append(record)
            shown = shown or factor != 1
            tally.multiplier *= TRANSFORMER_MULTIPLIER * factor
            tally.alone += TRANSFORMER_ALONE * factor
        if tally.transformers and explain:
            note = f" ({_shown(ctx, TRANSFORMER)})" if shown else ""
            tally.lines.append(f"transformer ♣10 ×{tally.multiplier}{note}")


def stage_full_hearts(ctx: ScoringContext) -> None:
    """满红: every heart taken by one seat: the hearts' sum changes sign."""
    need = 13 * ctx.table.copies
    for tally in ctx.seats:
        hearts = tally.hearts()
        if len(hearts) == need:
            tally.full_hearts = True
            for entry in hearts:
                entry.value = -entry.value
            tally.note(ctx, f"满红 full hearts: hearts count {signed(tally.sum_of(hearts))}")


def stage_slam(ctx: ScoringContext) -> None:
    """满贯: every scoring card taken by one seat: the pig changes sign too."""
    need = ctx.table.scoring_count
    for tally in ctx.seats:
        if len(tally.entries) + len(tally.transformers) == need:
            tally.slam = True
            for entry in tally.entries:
                if entry.card == PIG:
                    entry.value = -entry.value
            pigs = [e for e in tally.entries if e.card == PIG]
            tally.note(ctx, f"满贯 slam: the pig counts {signed(tally.sum_of(pigs))}")


def stage_total(ctx: ScoringContext) -> None:
    """Sum the values; apply the transformer (or its alone-value)."""
    for tally in ctx.seats:
        subtotal = tally.sum_of(tally.entries)
        if not tally.transformers:
            tally.total = subtotal
        elif tally.entries:
            tally.total = subtotal * tally.multiplier
            if ctx.explain:
                tally.lines.append(
                    f"transformer: {signed(subtotal)} ×{tally.multiplier} = {signed(tally.total)}"
                )
        else:
            tally.total = tally.alone
            tally.note(ctx, f"transformer alone: {signed(tally.alone)}")


_CARD_NAMES: Final = {PIG: "pig", SHEEP: "sheep"}
_STANDARD_BITS: Final = Suit.HEARTS.mask | PIG.bit | SHEEP.bit | TRANSFORMER.bit
_PIG_BIT: Final = PIG.bit
_SHEEP_BIT: Final = SHEEP.bit
_TRANSFORMER_BIT: Final = TRANSFORMER.bit
_HEARTS_MASK: Final = Suit.HEARTS.mask
_PIG_INDEX: Final = PIG.index
_SHEEP_INDEX: Final = SHEEP.index
_TRANSFORMER_INDEX: Final = TRANSFORMER.index
_TRANSFORMERS_BOTH: Final = TRANSFORMER.bit | TRANSFORMER.bit << 52
_PIGS_BOTH: Final = PIG.bit | PIG.bit << 52
_SHEEP_BOTH: Final = SHEEP.bit | SHEEP.bit << 52
_HEARTS_BOTH: Final = Suit.HEARTS.mask | Suit.HEARTS.mask << 52


def _copy_factors(
    mask: int, index: int, shown: Mapping[int, list[int]], own: Mapping[int, int] | None = None
) -> list[int]:
    """The show factor of each copy of card ``index`` in ``mask``: the seat's taken shown
    copies of it in order (``shown``: card index -> their factors, as
    :meth:`ScoringContext.pop_copy_factor` uses them up), then 1; each times its own
    factor in ``own`` (copy bit -> factor: :attr:`MaskScoring.copy_own`), if any."""
    count = (mask >> index & 1) + (mask >> (52 + index) & 1)
    factors = shown.get(index)
    if not factors:
        out = [1] * count
    else:
        out = factors[:count]
        out += [1] * (count - len(out))
    if own:
        for copy in range(count):
            out[copy] *= own.get(1 << (index + 52 * copy), 1)
    return out


def core_stages() -> StageList:
    """A fresh copy of the core pipeline: ``values``, ``full-hearts``, ``slam``, ``total``."""
    return StageList(
        [
            ScoreStage("values", stage_values),
            ScoreStage("full-hearts", stage_full_hearts),
            ScoreStage("slam", stage_slam),
            ScoreStage("total", stage_total),
        ]
    )


_CORE_FUNCS: Final = tuple(s.run for s in core_stages())


_raw_copies: Final[Callable[..., tuple[int, ...] | None] | None] = getattr(
    accelerator("_pairs"), "raw_copies", None
)
"""The C accelerator's two-deck scorer (``None`` without it)."""


class CompiledScorer:
    """The core pipeline compiled to mask arithmetic, for :meth:`HandState.returns`.

    Used only when a ruleset's pipeline is exactly :func:`core_stages`; the
    tests check it against the pipeline on random hands.  One deck:
    :meth:`raw`; two decks, where each shown copy scores for its taker:
    :meth:`raw_copies`.
    """

    __slots__ = (
        "_alone",
        "_factors",
        "_heart",
        "_heart_bit",
        "_heart_index",
        "_heart_list",
        "_heart_values",
        "_hi",
        "_lo",
        "_scoring",
    )

    def __init__(self, table: ScoreTable) -> None:
        heart = table.showable_heart
        self._heart = heart
        self._heart_index = -1 if heart is None else heart.index
        self._factors = dict(table.show_factors)
        self._heart_bit = 0 if heart is None else heart.bit
        values = [table.heart_values[Rank(r + 2)] for r in range(13)]
        self._heart_list = tuple(values)
        self._heart_values = {1 << (13 + r): values[r] for r in range(13)}
        self._lo = [sum(values[r] for r in range(7) if m >> r & 1) for m in range(128)]
        self._hi = [sum(values[7 + r] for r in range(6) if m >> r & 1) for m in range(64)]
        self._scoring = _STANDARD_BITS
        self._alone = TRANSFORMER_ALONE

    @staticmethod
    def fits(stages: Sequence[ScoreStage], copies: int = 1) -> bool:
        """Whether ``stages`` is the core pipeline, with only stages that have a mask
        form (:attr:`ScoreStage.on_masks`; with two decks, one that handles them:
        :attr:`ScoreStage.two_decks`) added between ``values`` and ``full-hearts``."""
        core = [s for s in stages if s.on_masks is None]
        if tuple(s.run for s in core) != _CORE_FUNCS:
            return False
        added = [i for i, s in enumerate(stages) if s.on_masks is not None]
        if not added:
            return True
        if copies != 1 and not all(stages[i].two_decks for i in added):
            return False
        names = [s.name for s in stages]
        low, high = names.index("values"), names.index("full-hearts")
        return all(low < i < high for i in added)

    @staticmethod
    def mask_stages(stages: Sequence[ScoreStage]) -> tuple[MaskStageFunc, ...]:
        """The mask forms of the stages that have one, in order."""
        return tuple(s.on_masks for s in stages if s.on_masks is not None)

    def full_hearts(self, taken: Sequence[int], copies: int = 1) -> bool:
        """Whether some seat took every heart, every copy (满红)."""
        hearts = _HEARTS_MASK if copies == 1 else _HEARTS_MASK | _HEARTS_MASK << 52
        return any(mask & hearts == hearts for mask in taken)

    def slam(self, taken: Sequence[int], copies: int = 1) -> bool:
        """Whether some seat took every scoring card, every copy (满贯)."""
        scoring = self._scoring if copies == 1 else self._scoring | self._scoring << 52
        return any(mask & scoring == scoring for mask in taken)

    def full_hearts_by_seat(self, taken: Sequence[int], copies: int = 1) -> tuple[bool, ...]:
        """Per seat, whether it took every heart, every copy (满红)."""
        hearts = _HEARTS_MASK if copies == 1 else _HEARTS_MASK | _HEARTS_MASK << 52
        return tuple([mask & hearts == hearts for mask in taken])

    def slam_by_seat(self, taken: Sequence[int], copies: int = 1) -> tuple[bool, ...]:
        """Per seat, whether it took every scoring card, every copy (满贯)."""
        scoring = self._scoring if copies == 1 else self._scoring | self._scoring << 52
        return tuple([mask & scoring == scoring for mask in taken])

    def raw_copies(
        self,
        taken: Sequence[int],
        shows: Sequence[ShowRecord],
        shown_taken: Sequence[Sequence[ShowRecord]],
        own: Sequence[Mapping[int, int]] | None = None,
        alone: Sequence[Mapping[int, int]] | None = None,
    ) -> tuple[int, ...]:
        """Two decks: raw scores from each seat's taken-card mask (a second copy at bit
        52 + index), every shown copy, and per seat the shown copies it took.

        ``own`` and ``alone`` are what the mask stages left
        (:attr:`MaskScoring.copy_own`, :attr:`MaskScoring.copy_alone`: per seat,
        copy bit -> factor), or ``None``.
        """
        raw = self._raw_copies_c(taken, shows, shown_taken, own, alone)
        if raw is None:
            return self._raw_copies(taken, shows, shown_taken, own, alone)
        return raw

    def _raw_copies_c(
        self,
        taken: Sequence[int],
        shows: Sequence[ShowRecord],
        shown_taken: Sequence[Sequence[ShowRecord]],
        own: Sequence[Mapping[int, int]] | None = None,
        alone: Sequence[Mapping[int, int]] | None = None,
    ) -> tuple[int, ...] | None:
        """:meth:`raw_copies` by the C accelerator, or ``None`` without it or where its
        64 bits cannot hold the scores (then :meth:`_raw_copies` answers)."""
        if _raw_copies is None:
            return None
        args = (
            taken,
            self._heart_list,
            self._heart_index,
            shows,
            shown_taken,
            self._factors,
            (_PIG_INDEX, PIG_VALUE),
            (_SHEEP_INDEX, SHEEP_VALUE),
            (_TRANSFORMER_INDEX, TRANSFORMER_MULTIPLIER),
            self._scoring,
            self._alone,
        )
        if own is None and alone is None:
            return _raw_copies(*args)
        return _raw_copies(*args, own, alone)

    def _raw_copies(
        self,
        taken: Sequence[int],
        shows: Sequence[ShowRecord],
        shown_taken: Sequence[Sequence[ShowRecord]],
        own: Sequence[Mapping[int, int]] | None = None,
        alone: Sequence[Mapping[int, int]] | None = None,
    ) -> tuple[int, ...]:
        """:meth:`raw_copies` in Python (the reference of the C accelerator's)."""
        factors = self._factors
        hearts_factor = 1
        heart = self._heart_index
        for record in shows:  # every shown copy of the showable heart multiplies the hearts
            if record.card.index == heart:
                hearts_factor *= factors[record.kind]
        scoring = self._scoring | self._scoring << 52
        lo, hi = self._lo, self._hi
        out = []
        for seat, mask in enumerate(taken):
            mask &= scoring
            if not mask:
                out.append(0)
                continue
            first = mask >> 13 & 0x1FFF
            second = mask >> 65 & 0x1FFF
            total = (lo[first & 0x7F] + hi[first >> 7] + lo[second & 0x7F] + hi[second >> 7]) * (
                hearts_factor
            )
            seat_own = own[seat] if own else None
            seat_alone = alone[seat] if alone else None
            if seat_own:  # a heart copy's own factor, before 满红 turns the sign
                for bit, factor in seat_own.items():
                    if bit & mask & _HEARTS_BOTH:
                        value = self._heart_list[(bit.bit_length() - 1) % 52 - 13]
                        total += value * hearts_factor * (factor - 1)
            if first == second == 0x1FFF:
                total = -total
            records = shown_taken[seat]
            if not records and not seat_own and not seat_alone:
                # no shown copy taken and no copy factors: every copy counts once
                total = self._unshown_copies(mask, total, mask == scoring)
                out.append(total)
                continue
            shown: dict[int, list[int]] = {}
            for record in records:  # the shown copies this seat took, in order
                shown.setdefault(record.card.index, []).append(factors[record.kind])
            if mask & _PIGS_BOTH:
                value = PIG_VALUE * sum(_copy_factors(mask, _PIG_INDEX, shown, seat_own))
                total += -value if mask == scoring else value
            if mask & _SHEEP_BOTH:
                total += SHEEP_VALUE * sum(_copy_factors(mask, _SHEEP_INDEX, shown, seat_own))
            if mask & _TRANSFORMERS_BOTH:
                transformers = _copy_factors(mask, _TRANSFORMER_INDEX, shown, seat_own)
                if mask & ~_TRANSFORMERS_BOTH:
                    for factor in transformers:
                        total *= TRANSFORMER_MULTIPLIER * factor
                else:
                    lone = _copy_factors(mask, _TRANSFORMER_INDEX, {}, seat_alone)
                    total = sum(
                        self._alone * factor * only
                        for factor, only in zip(transformers, lone, strict=True)
                    )
            out.append(total)
        return tuple(out)

    def _unshown_copies(self, mask: int, total: int, slam: bool) -> int:
        """:meth:`raw_copies` for a seat that took no shown copy: the pig, the sheep and
        the transformer on ``total``, the hearts' value (two decks)."""
        if mask & _PIGS_BOTH:
            value = PIG_VALUE * ((mask >> _PIG_INDEX & 1) + (mask >> (52 + _PIG_INDEX) & 1))
            total += -value if slam else value
        if mask & _SHEEP_BOTH:
            total += SHEEP_VALUE * ((mask >> _SHEEP_INDEX & 1) + (mask >> (52 + _SHEEP_INDEX) & 1))
        if mask & _TRANSFORMERS_BOTH:
            count = (mask >> _TRANSFORMER_INDEX & 1) + (mask >> (52 + _TRANSFORMER_INDEX) & 1)
            if mask & ~_TRANSFORMERS_BOTH:
                total *= TRANSFORMER_MULTIPLIER**count
            else:
                total = self._alone * count
        return total

    def raw(
        self,
        taken: Sequence[int],
        factors: Mapping[int, int],
        own: Mapping[int, int] | None = None,
        alone: int = 1,
    ) -> tuple[int, ...]:
        """Raw scores from each seat's taken-card mask and the show factor per card bit.

        ``own`` and ``alone`` are what the mask stages left
        (:attr:`MaskScoring.own`, :attr:`MaskScoring.alone`).
        """
        hearts_factor = factors.get(self._heart_bit, 1)
        pig_factor = factors.get(_PIG_BIT, 1)
        sheep_factor = factors.get(_SHEEP_BIT, 1)
        transformer_factor = factors.get(_TRANSFORMER_BIT, 1)
        alone_value = self._alone * alone
        heart_own: list[tuple[int, int]] = []
        if own:
            pig_factor *= own.get(_PIG_BIT, 1)
            sheep_factor *= own.get(_SHEEP_BIT, 1)
            transformer_factor *= own.get(_TRANSFORMER_BIT, 1)
            heart_own = [
                (bit, self._heart_values[bit] * hearts_factor * (factor - 1))
                for bit, factor in own.items()
                if bit & _HEARTS_MASK and factor != 1
            ]
        scoring_mask = self._scoring
        lo, hi = self._lo, self._hi
        out = []
        for mask in taken:
            mask &= scoring_mask
            if not mask:
                out.append(0)
                continue
            chunk = mask >> 13 & 0x1FFF
            total = (lo[chunk & 0x7F] + hi[chunk >> 7]) * hearts_factor
            for bit, extra in heart_own:
                if mask & bit:
                    total += extra
            if chunk == 0x1FFF:
                total = -total
            if mask & _PIG_BIT:
                pig = PIG_VALUE * pig_factor
                total += -pig if mask == scoring_mask else pig
            if mask & _SHEEP_BIT:
                total += SHEEP_VALUE * sheep_factor
            if mask & _TRANSFORMER_BIT:
                if mask == _TRANSFORMER_BIT:
                    total = alone_value * transformer_factor
                else:
                    total *= TRANSFORMER_MULTIPLIER * transformer_factor
            out.append(total)
        return tuple(out)


Lines = tuple[tuple[str, ...], ...]
"""Per seat, the readable steps of a score sheet."""


@attrs.frozen(eq=False)
class ScoreSheet:
    """The result of one hand.

    :ivar raw: each seat's score before normalisation.
    :ivar final: each seat's result after the ruleset's normalisation.
    :ivar captured: the scoring cards each seat took.
    :ivar shows: every shown card, with who showed it and how.
    :ivar full_hearts: which seats took every heart (满红).
    :ivar slam: which seats took every scoring card (满贯).
    :ivar lines: per seat, the readable steps that give its raw score, in
        order.  They are steps, not addends: a later line can restate an
        earlier value (自得 doubles a card already listed, 满红 turns the
        hearts' sign, the transformer multiplies the subtotal), so the raw
        score is where the steps end, not the sum of the lines.  Pass the
        lines, or a function that builds them: it is called once, when they
        are first read (:meth:`HandState.score <gongzhu.hand.HandState.score>`
        explains lazily, so a sheet read only for its numbers costs little).
    :ivar normalisation: a sentence saying how ``final`` follows from ``raw``.
    """

    raw: tuple[int, ...]
    final: tuple[int, ...]
    captured: tuple[tuple[Card, ...], ...]
    shows: tuple[ShowRecord, ...]
    full_hearts: tuple[bool, ...]
    slam: tuple[bool, ...]
    _lines: Lines | Callable[[], Lines] = attrs.field(alias="lines", repr=False)
    normalisation: str = ""

    @property
    def lines(self) -> Lines:
        """Per seat, the readable steps that give its raw score (built on first use)."""
        lines = self._lines
        if callable(lines):
            lines = lines()
            object.__setattr__(self, "_lines", lines)
        return lines

    def _key(self) -> tuple[object, ...]:
        return (
            self.raw,
            self.final,
            self.captured,
            self.shows,
            self.full_hearts,
            self.slam,
            self.lines,
            self.normalisation,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ScoreSheet)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the lines built (a function that builds them may not pickle)."""
        return (ScoreSheet, self._key())

    def explain(self, seat: int) -> list[str]:
        """Readable lines that show how ``seat``'s score came about."""
        lines = list(self.lines[seat]) or ["no scoring cards"]
        lines.append(f"raw {signed(self.raw[seat])}")
        if self.final != self.raw:
            lines.append(f"final {signed(self.final[seat])} ({self.normalisation})")
        return lines

    def __str__(self) -> str:
        rows = ["seat  raw     final   how"]
        for seat, (raw, final) in enumerate(zip(self.raw, self.final, strict=True)):
            how = "; ".join(self.lines[seat]) or "no scoring cards"
            rows.append(f"{seat:<5} {raw:<7} {final:<7} {how}")
        return "\n".join(rows)


def run_pipeline(
    table: ScoreTable,
    options: Options,
    stages: Sequence[ScoreStage],
    captured: Sequence[Sequence[Card]],
    shows: tuple[ShowRecord, ...],
    dealt: tuple[tuple[Card, ...], ...] | None,
    shown_taken: Sequence[Sequence[ShowRecord]] | None = None,
    *,
    explain: bool = True,
) -> ScoringContext:
    """Run ``stages`` over what each seat took; return the finished context.

    With ``explain=False`` the stages skip their readable lines.
    """
    tallies = []
    for seat, cards in enumerate(captured):
        scoring = sorted(c for c in cards if table.is_scoring(c))
        tallies.append(
            SeatTally(
                seat,
                [Entry(c) for c in scoring if c != TRANSFORMER],
                [c for c in scoring if c == TRANSFORMER],
            )
        )
    taken_copy = None if shown_taken is None else [list(records) for records in shown_taken]
    ctx = ScoringContext(table, options, tallies, shows, dealt, taken_copy, explain)
    for stage in stages:
        stage.run(ctx)
    return ctx
