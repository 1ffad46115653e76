"""A 39baobao session of eight hands: each hand after the first is led by the last pig-taker."""

import gongzhu
from gongzhu.bots import RandomBot

rules = gongzhu.load_rules()
match = rules.new_match(seed=8, hands=8)
match.play([RandomBot(seat) for seat in range(4)])
for number, hand in enumerate(match.hands, 1):
    print(f"hand {number}: led by seat {hand.leader}, final {hand.score().final}")
print("totals:", match.totals, "losers (当猪):", match.losers)
