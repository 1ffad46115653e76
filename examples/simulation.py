"""Two thousand random hands: how often does a random player make full hearts or a slam?"""

import gongzhu

summary = gongzhu.simulate(gongzhu.load_rules(), 2_000, seed=1)
print(f"{summary.hands} hands")
for seat in range(4):
    print(f"seat {seat}: mean {summary.mean_final[seat]:+.1f} ± {summary.stderr_final[seat]:.1f}")
print(f"full hearts in {summary.full_hearts} hands, slams in {summary.slams}")
