"""Where a P-MCTS PU decision spends its time, with the default and the lazy rollout sampler.

Profiles (cProfile) one P-MCTS PU decision at `--budget` calls on each of `--positions`
rule-based positions (taken as in `bench_agents.py --positions`), once with the default
sampler and once with `lazy_sampler=true`, and prints per setting, as JSON: the profiled
seconds, the share of listing actions (the per-actor listers `unit_actions`, `city_actions`,
`tribe_actions`, which include reachability), the number of actors listed, the share of the
rollout sampler and of the scripts' assignment generation, and applying actions.

    python experiments/profile_sampler.py [--positions 12] [--levels 12] [--budget 2000]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats

from bench_engine import snapshots

from games.tribes.level_sets import PAPER_SEEDS
from games.tribes.levelgen import generate_level
from play.specs import parse_agent_spec

LISTERS = ("unit_actions", "city_actions", "tribe_actions")
PARTS = {"sampler": ("sample_assignment", "sample_assignment_lazy"),
         "assignment_generation": ("produce_assignments",),
         "apply": ("apply",)}
"""Cumulative times reported as shares (apply: the Tribes state's, with its legality check)."""


def profile(states: list, spec: str, budget: int, seed: int) -> dict:
    """Profile one decision per state with the agent `spec`.

    Args:
        states: decision states (not modified).
        spec: an agent spec.
        budget: forward-model calls per decision.
        seed: the agent's seed.
    """
    agent = parse_agent_spec(spec, seed=seed, budget=budget)
    agent.act(states[0].copy())  # warm-up
    prof = cProfile.Profile()
    prof.enable()
    for st in states:
        agent.act(st)
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = max(ct for (_, _, _, ct, _) in stats.values())
    by_name: dict[str, list[float]] = {}
    for (path, _, name), (_, calls, _, ct, _) in stats.items():
        if (name in LISTERS and not path.endswith("actions.py")
                or name == "apply" and not path.endswith("state.py")):
            continue
        e = by_name.setdefault(name, [0, 0.0])
        e[0] += calls
        e[1] += ct
    listing = sum(by_name.get(n, [0, 0.0])[1] for n in LISTERS)
    out = {"agent": spec, "profiled_seconds": round(total, 2),
           "listing_share": round(listing / total, 3),
           "actors_listed": sum(by_name.get(n, [0, 0.0])[0] for n in LISTERS)}
    for part, names in PARTS.items():
        out[part + "_share"] = round(sum(by_name.get(n, [0, 0.0])[1] for n in names) / total, 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--levels", type=int, default=12, help="first N paper levels")
    ap.add_argument("--budget", type=int, default=2000, help="FM calls per decision")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    states = snapshots([generate_level(s) for s in PAPER_SEEDS[:args.levels]], args.seed,
                       "rule_based")
    states = states[::max(1, len(states) // args.positions)][:args.positions]
    print(json.dumps([profile(states, spec, args.budget, args.seed)
                      for spec in ("pmcts_pu", "pmcts_pu:lazy_sampler=true")], indent=1))


if __name__ == "__main__":
    main()
