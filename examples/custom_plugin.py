"""Use a third-party plug-in: the worthless-sheep example, registered from its module.

Installed (``pip install examples/worthless_sheep``), it would be found by name:
``gongzhu.load_rules("worthless-sheep", sheep_bonus=20)``.  Here it is
registered directly, as tests and unpublished plug-ins do.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "worthless_sheep" / "src"))

import worthless_sheep

import gongzhu
from gongzhu.bots import RandomBot, play_hand

rules = gongzhu.Rules.from_plugins(worthless_sheep, sheep_bonus=20)
print(rules.describe())
print(rules.score({0: "JD QS"}).explain(0))  # the sheep counts +20, not +100
hand = play_hand(rules.new_hand(seed=3), [RandomBot(seat) for seat in range(4)])
print("final:", hand.score().final)
print("shows:", [str(r.card) for r in hand.score().shows], "sheep:", gongzhu.SHEEP.symbol)
