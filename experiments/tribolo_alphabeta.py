"""Paranoid alpha-beta against the original's plain minimax, on the same trees: best root
value and chosen move, and forward-model calls (states built) per decision; and max^n with
and without shallow pruning (same choice and vector, calls). Printed as JSON.

Decision states: every `--every`-th state of random games on the set-up seeds 0..L-1 (with
more than one legal move). In each, the original AI (`tribolo_ai`) selects its strategy and
searches with `search=minimax` and `search=paranoid` at each depth. A disagreement is a
different best root value, or a paranoid choice whose plain-minimax value is not the best.

    python experiments/tribolo_alphabeta.py [--levels 10] [--every 6] [--depths 1 2] [--seed 7]
        [--decisions-out FILE.csv]

`--decisions-out` writes one row per decision state, depth and search (`minimax`, `paranoid`,
`maxn_pruned`, `maxn_unpruned`): the calls it spent, the strategy selected and whether the
pair disagreed; the totals, medians and counts printed are computed from these rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path

import pandas as pd
from bench_tribolo import snapshots

from base.limits import MAX_BUDGET
from games.tribolo.ai import TriboloAI
from games.tribolo.maxn import MaxnAgent


def compare(states, depth: int, seed: int) -> dict:
    calls = {"minimax": [], "paranoid": []}
    disagreements = 0
    strategies: Counter = Counter()
    rows = []
    for k, s in enumerate(states):
        plain = TriboloAI(seed=seed + k, depth=depth)
        strategy, exact = plain.analyse(s)
        strategies[strategy] += 1
        calls["minimax"].append(plain.last_budget.used)
        ab = TriboloAI(seed=seed + k, depth=depth, search="paranoid")
        choice = ab.act(s)
        calls["paranoid"].append(ab.last_budget.used)
        best = max(exact.values()) if plain._maximizing else min(exact.values())
        found = max(ab.last_values.values()) if ab._maximizing else min(ab.last_values.values())
        disagree = found != best or exact[choice] != best
        disagreements += disagree
        rows += [{"decision": k, "depth": depth, "search": key, "calls": calls[key][-1],
                  "strategy": strategy, "disagree": int(disagree)}
                 for key in ("minimax", "paranoid")]
    ratio = [p / m for p, m in zip(calls["paranoid"], calls["minimax"])]
    return {
        "depth": depth,
        "decisions": len(states),
        "strategies": dict(strategies),
        "disagreements": disagreements,
        "calls_total": {k: sum(v) for k, v in calls.items()},
        "calls_median": {k: statistics.median(v) for k, v in calls.items()},
        "calls_max": {k: max(v) for k, v in calls.items()},
        "paranoid_over_minimax_median": round(statistics.median(ratio), 3),
        "paranoid_over_minimax_total": round(sum(calls["paranoid"]) / sum(calls["minimax"]), 3),
        "_rows": rows,
    }


def compare_maxn(states, depth: int, seed: int) -> dict:
    calls = {"pruned": 0, "unpruned": 0}
    disagreements = 0
    rows = []
    for k, s in enumerate(states):
        out, used = {}, {}
        for prune, key in ((True, "pruned"), (False, "unpruned")):
            agent = MaxnAgent(seed=seed + k, budget=MAX_BUDGET, max_depth=depth, prune=prune)
            move = agent.act(s)
            calls[key] += agent.last_budget.used
            used[key] = agent.last_budget.used
            out[key] = (move, agent.last_values[move])
        disagree = out["pruned"] != out["unpruned"]
        disagreements += disagree
        rows += [{"decision": k, "depth": depth, "search": f"maxn_{key}", "calls": used[key],
                  "strategy": "", "disagree": int(disagree)} for key in ("pruned", "unpruned")]
    return {"maxn_depth": depth, "decisions": len(states), "disagreements": disagreements,
            "calls_total": calls, "_rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=10, help="set-up seeds 0..N-1")
    ap.add_argument("--every", type=int, default=6, help="keep every N-th decision state")
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2], help="search depths")
    ap.add_argument("--seed", type=int, default=7, help="seed of the random games and the agents")
    ap.add_argument("--decisions-out", type=Path, default=None,
                    help="write the per-decision table here (CSV; a new file)")
    args = ap.parse_args()
    if args.decisions_out is not None and args.decisions_out.exists():
        ap.error(f"--decisions-out: {args.decisions_out} exists; give a new file")
    states = snapshots(args.levels, args.seed, every=args.every, decisions=True)
    results = [compare(states, d, args.seed) for d in args.depths] \
        + [compare_maxn(states, d, args.seed) for d in args.depths]
    rows = [r for res in results for r in res.pop("_rows")]
    if args.decisions_out is not None:
        pd.DataFrame(rows).to_csv(args.decisions_out, index=False)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
