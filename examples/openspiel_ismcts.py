"""OpenSpiel's IS-MCTS plays seat 0 of a gongzhu hand against three random players.

Needs the extra: ``python -m pip install -e '.[openspiel]'``.  Importing
``gongzhu.envs.openspiel`` registers the game ``python_gongzhu``; IS-MCTS
samples the hidden cards with the state's ``resample_from_infostate``.
"""

from __future__ import annotations

import importlib.util
import random


def main(rules: str = "huapai+anmai", hands: int = 3, simulations: int = 20) -> None:
    """Play ``hands`` hands: IS-MCTS at seat 0, random seats 1-3; print the raw points."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import gongzhu.envs.openspiel  # noqa: F401 (registers python_gongzhu)

    # reward_scale 1: returns in raw points (the default scale is 0.01)
    game = pyspiel.load_game("python_gongzhu", {"rules": rules, "reward_scale": 1.0})
    for number in range(hands):
        rng = random.Random(number)
        searcher = ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(number)),
            uct_c=2.0,
            max_simulations=simulations,
            random_state=np.random.RandomState(number),
        )
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # the deal, one card at a time
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            elif state.current_player() == 0:
                state.apply_action(searcher.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        print(f"hand {number}: raw points {[int(points) for points in state.returns()]}")


if __name__ == "__main__":
    if importlib.util.find_spec("pyspiel") is None:
        print("OpenSpiel is not installed: python -m pip install -e '.[openspiel]'")
    else:
        main()
