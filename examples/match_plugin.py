"""A match-level plug-in, written against gongzhu.plugin alone: "spread" matches.

A match asks three hooks as it goes, and this plug-in answers each from what
it is given, keeping no state of its own (a match's record replays only so):

- ``gongzhu_match_over``: the match ends once the best and the worst totals
  are ``SPREAD`` apart, or after ``MOST_HANDS`` hands (True or False: the
  plug-in decides, so a match needs no target);
- ``gongzhu_match_losers``: every seat with a negative total (当猪), or the
  lowest where none is;
- ``gongzhu_next_leader``: the seat with the lowest result of the hand just
  played leads the next one.

Run it: ``python examples/match_plugin.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import gongzhu
from gongzhu.bots import RandomBot
from gongzhu.plugin import HandState, VariantInfo, hookimpl

SPREAD = 15000
MOST_HANDS = 12


class Spread:
    """The plug-in (a module would do as well, installed under an entry point)."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo(
            "spread",
            "Spread matches",
            summary=f"A match ends when the totals are {SPREAD} apart, or after "
            f"{MOST_HANDS} hands; the losers are the seats below zero.",
        )

    @hookimpl
    def gongzhu_match_over(self, totals: Sequence[int], hands: int) -> bool:
        return max(totals) - min(totals) >= SPREAD or hands >= MOST_HANDS

    @hookimpl
    def gongzhu_match_losers(self, totals: Sequence[int]) -> Sequence[int]:
        below = [seat for seat, total in enumerate(totals) if total < 0]
        return below or [totals.index(min(totals))]

    @hookimpl
    def gongzhu_next_leader(self, hand: HandState) -> int:
        final = hand.score().final
        return final.index(min(final))  # the hand's loser leads the next one


if __name__ == "__main__":
    rules = gongzhu.Rules.from_plugins(Spread())
    assert rules.decides_match_end  # so a match of these rules needs no target
    match = rules.new_match(seed=3)
    match.play([RandomBot(seat) for seat in range(4)])
    for number, hand in enumerate(match.hands, 1):
        print(f"hand {number}: led by seat {hand.leader}, final {hand.score().final}")
    print("totals:", match.totals, "losers (当猪):", match.losers)
    again = gongzhu.replay_match(match.to_record(), rules=rules)  # the record replays
    assert again.totals == match.totals and again.losers == match.losers
    print("the match's record replays")
