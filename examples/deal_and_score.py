"""Deal a hand, let four random bots play it, print the tricks and the score sheet."""

import gongzhu
from gongzhu.bots import RandomBot, play_hand

rules = gongzhu.load_rules()  # the 39baobao rules
hand = play_hand(rules.new_hand(seed=2026), [RandomBot(seat) for seat in range(4)])

for number, trick in enumerate(hand.tricks, 1):
    print(f"trick {number:>2}: {trick}")
sheet = hand.score()
for seat in range(4):
    print(f"seat {seat}: " + "; ".join(sheet.explain(seat)))

# Score a hand from what each seat took, as a score-keeping program would:
print(rules.score({0: "QS 6H 8H TH JH TC"}, shown={3: "AH"}).raw[0])  # -400
