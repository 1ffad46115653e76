"""Scale out on Ray (extra ``gongzhu[ray]``): the same arena, locally and as Ray tasks.

The arena's deals run as Ray tasks on a Ray instance started here (pass an
``address`` to use a cluster); the same seed gives the same result as local
processes, whatever runs the deals.
"""

import importlib.util

import gongzhu
from gongzhu.arena import run_arena


def main() -> None:
    # local processes are spawned: they import this module, so the work runs in main()
    import ray

    rules = gongzhu.load_rules()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = run_arena(rules, "heuristic", "random", 8, seed=5, workers=2, backend="ray")
        local = run_arena(rules, "heuristic", "random", 8, seed=5, workers=2)
    finally:
        ray.shutdown()
    print(f"ray:   heuristic {on_ray.mean:+.1f} ± {on_ray.stderr:.1f} raw points per hand")
    print(f"local: heuristic {local.mean:+.1f} ± {local.stderr:.1f} raw points per hand")
    assert on_ray == local, "the same seed gives the same result on every backend"


if __name__ == "__main__":
    if importlib.util.find_spec("ray") is None:
        print("Ray is not installed: python -m pip install -e '.[ray]'")
    else:
        main()
