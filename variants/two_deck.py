"""``two-deck`` 拱雙豬: two decks, 26 cards each, pairs, a modifier for either base.

Source: rule source ``003`` (拱雙豬), with docs/rules.rst deciding what it leaves open.

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
  docs/rules.rst.  A seat holding a shown and an unshown copy of a card plays the
  unshown one first, so the shown-card restriction only binds when every copy
  the seat holds is shown; a shown copy taken by another seat scores its
  factor for that seat.  39baobao's "three shown reveal the fourth" is a
  single-deck rule: with two decks nothing is shown automatically.

The plug-in only configures play (``deck_copies=2``, ``pairs``,
``pair_beats_unmatched``: see :class:`gongzhu.play.PlayConfig`); the core's
``pairs-c`` and ``pairs-python`` engines play it.  It composes with
``39baobao`` and ``huapai`` and their show and scoring modifiers; no engine
implements a discard rule for two-card plays, so a ruleset with
``same-colour-discard`` (or any discard rule) is refused, naming the missing
feature; ``biming`` is refused (逼明 counts the four cards of one deck).

Option ``pair_beats_unmatched`` (default ``False``): ``True`` takes the
encyclopaedia's reading, where a pair of the led suit beats two unmatched
cards of it (pairs still rank by rank, unmatched by their higher card).
"""

from __future__ import annotations

from gongzhu.plugin import Options, OptionSet, PlayConfigurator, VariantInfo, hookimpl

NAME = "two-deck"


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="Two decks, with pairs",
        title_zh="拱雙豬",
        conflicts={"biming"},
        summary="104 cards, 26 each; leads of one card or a pair; two pigs, sheep, transformers.",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "pair_beats_unmatched",
        False,
        "false (default, after a published two-deck implementation): two unmatched cards "
        "of the led suit beat any pair.  true (the encyclopaedia's reading): a pair beats them.",
    )


@hookimpl
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    config.set("deck_copies", 2)
    config.set("pairs", True)
    config.set("pair_beats_unmatched", options["pair_beats_unmatched"])


@hookimpl
def gongzhu_auto_show_threshold() -> int:
    return 0  # "three shown reveal the fourth" is a single-deck rule
