"""``huapai``: the 华牌 competition rules (《中国华牌竞赛规则》), a base ruleset.

Source: rule source ``001``.  What the plug-in sets:

* opening lead: the holder of ♠3 leads every hand, any card;
* 首明 first show: a seat whose first dealt card is showable may show it
  before seeing the rest of its holding (the hand's 首明 phase); it scores ×4
  and is free of the play restrictions;
* the stricter shown-card restriction: a shown card may neither be played in
  the first trick of its suit (unless it is the holder's only card of it) nor
  be discarded before its suit has been led;
* 自得 self-capture: a showable card taken by the seat that was dealt it
  counts ×2 on top of its show factor (for ♥A only the ♥A itself doubles).
  With two decks it goes copy by copy: a shown copy is self-captured only by
  the seat that showed it, and a seat self-captures as many unshown copies of
  a card as it both took and was dealt unshown; each doubles only itself (a
  ♣10 its own multiplier and alone-value);
* raw scores, no normalisation: they add up across the hands of a match,
  which ends when a total reaches +1000 or −1000 (option: 800); the lowest
  total is 当猪.

Options (each a **(choice)** of docs/rules.rst):

``shown_lock_stuck`` = ``"play"`` | ``"hand"``
    When the restriction leaves a seat no legal card (it can: a seat void in
    the led suit holding only shown cards of unled suits), it lifts for that
    one play (default: the least change to the rule) or for the rest of the
    hand for that seat.
``zide_transformer`` = ``"both"`` | ``"alone"`` | ``"none"``
    What 自得 doubles for ♣10: both its multiplier and its alone-value
    (default: the source doubles "the value" of a self-captured card, and the
    transformer's value is both), only the alone-value, or nothing.
``match_target`` = ``1000`` | ``800``
    The total that ends a match (局); source 001 names both.
"""

from __future__ import annotations

from gongzhu.actions import ShowKind
from gongzhu.cards import TRANSFORMER, Card
from gongzhu.engine import add_copy, copies_in
from gongzhu.play import PlayConfigurator
from gongzhu.plugin import (
    Deal,
    OpeningLead,
    Options,
    OptionSet,
    ShownCardLock,
    VariantInfo,
    hookimpl,
)
from gongzhu.scoring import (
    SHOWN_WORDS,
    TRANSFORMER_ALONE,
    MaskScoring,
    ScoreStage,
    ScoringContext,
    ShowRecord,
    StageList,
    signed,
)

NAME = "huapai"
OPENING_CARD = Card.parse("3S")


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="华牌 competition rules",
        title_zh="华牌竞赛规则",
        base=True,
        summary="♠3 leads; 首明 ×4; 自得 ×2; strict shown-card lock; raw scores to ±1000.",
        normalisation="raw scores, added up across a match",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "shown_lock_stuck",
        "play",
        "When the shown-card restriction leaves a seat no legal card, it lifts for that "
        "one play ('play', default) or for the rest of the hand for that seat ('hand').",
        choices=("play", "hand"),
    )
    options.add(
        "zide_transformer",
        "both",
        "What 自得 (self-capture) doubles for ♣10: its multiplier and alone-value "
        "('both', default), only the alone-value ('alone'), or nothing ('none').",
        choices=("both", "alone", "none"),
    )
    options.add(
        "match_target",
        1000,
        "A match ends when a total reaches +target or −target (1000, or 800).",
        choices=(1000, 800),
    )


@hookimpl
def gongzhu_opening_lead(deal: Deal) -> OpeningLead:
    return OpeningLead(deal.first_receiver(OPENING_CARD))


@hookimpl
def gongzhu_show_kinds() -> tuple[ShowKind, ...]:
    return (ShowKind.FIRST,)


@hookimpl
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    lock = ShownCardLock(
        first_trick=True, discard_before_led=True, stuck=options["shown_lock_stuck"]
    )
    config.set("shown_card_lock", lock)


def self_capture(ctx: ScoringContext) -> None:
    """自得: a showable card taken back by the seat dealt it counts ×2 again.

    With two decks, copy by copy: a shown copy is taken back only by the seat
    that showed it; unshown copies are interchangeable, so a seat takes back
    the fewer of the unshown copies of a card it took and those it was dealt
    unshown.
    Each copy taken back doubles only itself (a ♣10 its own multiplier and
    alone-value, as ``zide_transformer`` says).
    """
    if ctx.dealt is None:
        return
    if ctx.shown_taken is not None:
        _self_capture_copies(ctx)
        return
    showable = ctx.table.showable
    transformer_rule = ctx.options["zide_transformer"]
    for tally in ctx.seats:
        mine = list(ctx.dealt[tally.seat])
        for entry in tally.entries:
            if entry.card in showable and entry.card in mine:
                mine.remove(entry.card)
                before = entry.value
                entry.value *= 2
                tally.note(
                    ctx,
                    f"自得 self-capture {entry.card.symbol}: {signed(before)} ×2 = "
                    f"{signed(entry.value)}",
                )
        for card in tally.transformers:
            if card in mine and transformer_rule != "none":
                mine.remove(card)
                if transformer_rule == "both":
                    tally.multiplier *= 2
                tally.alone *= 2
                tally.note(
                    ctx,
                    f"自得 self-capture {card.symbol}: multiplier ×{tally.multiplier}, "
                    f"alone {signed(tally.alone)}",
                )


def _self_capture_copies(ctx: ScoringContext) -> None:
    """自得 with two decks (:func:`self_capture`): each copy the seat took is judged by
    its show (:attr:`Entry.shown <gongzhu.scoring.Entry.shown>`, set by ``values``)."""
    assert ctx.dealt is not None and ctx.shown_taken is not None
    showable = ctx.table.showable
    factors = ctx.table.show_factors
    transformer_rule = ctx.options["zide_transformer"]
    for tally in ctx.seats:
        seat = tally.seat
        unshown: dict[Card, int] = {}  # card -> the unshown copies the seat was dealt
        for card in ctx.dealt[seat]:
            if card in showable:
                unshown[card] = unshown.get(card, 0) + 1
        for show in ctx.shows:
            if show.seat == seat and unshown.get(show.card, 0):
                unshown[show.card] -= 1
        for entry in tally.entries:
            if entry.card in showable and _own_copy(entry.card, entry.shown, seat, unshown):
                before = entry.value
                entry.value *= 2
                tally.note(
                    ctx,
                    f"自得 self-capture {entry.card.symbol}{_which(entry.shown)}: "
                    f"{signed(before)} ×2 = {signed(entry.value)}",
                )
        if transformer_rule == "none":
            continue
        records = tally.transformer_shows
        records = records + [None] * (len(tally.transformers) - len(records))
        for card, record in zip(tally.transformers, records, strict=True):
            if _own_copy(card, record, seat, unshown):
                if transformer_rule == "both":
                    tally.multiplier *= 2
                tally.alone += TRANSFORMER_ALONE * (1 if record is None else factors[record.kind])
                tally.note(
                    ctx,
                    f"自得 self-capture {card.symbol}{_which(record)}: multiplier "
                    f"×{tally.multiplier}, alone {signed(tally.alone)}",
                )


def _own_copy(card: Card, shown: ShowRecord | None, seat: int, unshown: dict[Card, int]) -> bool:
    """Whether a copy of ``card`` that ``seat`` took is its own: a shown copy if the seat
    showed it; an unshown one while ``unshown`` (card -> the unshown copies the seat was
    dealt and has not yet taken back) has one left, which it uses up."""
    if shown is not None:
        return shown.seat == seat
    if unshown.get(card, 0):
        unshown[card] -= 1
        return True
    return False


def _which(shown: ShowRecord | None) -> str:
    """Which copy a two-deck 自得 line is about."""
    return " (unshown copy)" if shown is None else f" ({SHOWN_WORDS[shown.kind]} copy)"


def self_capture_masks(hand: MaskScoring) -> None:
    """自得 on card masks: the same as :func:`self_capture`, for the compiled scorer."""
    if hand.table.copies != 1:
        _self_capture_copy_masks(hand)
        return
    showable = _showable_mask(hand.table.showable)
    transformer_rule = hand.options["zide_transformer"]
    own = hand.own  # card bit -> factor on the card's own value (MaskScoring.own)
    for taken, dealt in zip(hand.taken, hand.dealt, strict=True):
        mine = taken & dealt & showable
        while mine:  # each showable card the seat was dealt and took back, lowest first
            bit = mine & -mine
            mine ^= bit
            if bit != _TRANSFORMER_BIT or transformer_rule == "both":
                own[bit] = own.get(bit, 1) * 2
            elif transformer_rule == "alone":
                hand.alone *= 2


def _self_capture_copy_masks(hand: MaskScoring) -> None:
    """自得 on two-deck card masks, copy by copy (:func:`_self_capture_copies`): into
    :attr:`MaskScoring.copy_own` (or, ♣10 under ``zide_transformer="alone"``,
    :attr:`MaskScoring.copy_alone`), numbering a seat's copies as it does."""
    showable = _showable_mask(hand.table.showable)
    transformer_rule = hand.options["zide_transformer"]
    if transformer_rule == "none":
        showable &= ~_TRANSFORMER_BIT
    showed = [0, 0, 0, 0]  # per seat, the copies it showed (a second at bit 52 + index)
    for record in hand.shows:
        showed[record.seat] = add_copy(showed[record.seat], record.card.index)
    for seat, (taken, dealt) in enumerate(zip(hand.taken, hand.dealt, strict=True)):
        # the showable cards of which the seat took a copy and was dealt one
        cards = (taken | taken >> 52) & (dealt | dealt >> 52) & showable
        if not cards:
            continue
        shown_taken: dict[int, list[bool]] = {}  # card bit -> per shown copy taken: its own?
        for record in hand.shown_taken[seat] if hand.shown_taken else ():
            shown_taken.setdefault(record.card.bit, []).append(record.seat == seat)
        own = hand.copy_own[seat]
        while cards:
            bit = cards & -cards
            cards ^= bit
            index = bit.bit_length() - 1
            factors = (
                hand.copy_alone[seat]
                if bit == _TRANSFORMER_BIT and transformer_rule == "alone"
                else own
            )
            # the seat's copies as the compiled scorer numbers them: the shown ones it
            # took first (its own if it showed them), then its unshown ones, as many of
            # them its own as it was dealt unshown
            count = copies_in(taken, index)
            mine = shown_taken.get(bit, [])[:count]
            dealt_unshown = copies_in(dealt, index) - copies_in(showed[seat], index)
            mine += [True] * min(count - len(mine), max(dealt_unshown, 0))
            for copy, is_own in enumerate(mine):
                if is_own:  # copy 0 at the card's bit, copy 1 at bit 52 + index
                    copy_bit = bit << 52 if copy else bit
                    factors[copy_bit] = factors.get(copy_bit, 1) * 2


_SHOWABLE_MASKS: dict[frozenset[Card], int] = {}
_TRANSFORMER_BIT = TRANSFORMER.bit


def _showable_mask(showable: frozenset[Card]) -> int:
    """The card mask of ``showable`` (worked out once per ruleset's set)."""
    mask = _SHOWABLE_MASKS.get(showable)
    if mask is None:
        mask = _SHOWABLE_MASKS[showable] = sum(card.bit for card in showable)
    return mask


@hookimpl
def gongzhu_score_stages(stages: StageList) -> None:
    stages.insert_after(
        "values", ScoreStage("self-capture", self_capture, self_capture_masks, two_decks=True)
    )


@hookimpl
def gongzhu_match_over(totals: tuple[int, ...], target: int | None, options: Options) -> bool:
    limit = options["match_target"] if target is None else target
    return any(abs(total) >= limit for total in totals)
