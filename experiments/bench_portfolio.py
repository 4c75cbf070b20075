"""Speed of portfolio assignment generation, printed as JSON, against the reference's figures.

Snapshots: games between two copies of a player (default the rule-based agent, as the
reference's measurement) on the `paper` levels, keeping every third decision state that offers
more than one action; their legal actions are listed before timing, as the reference's states
had theirs. Then, per repetition (the first is a warm-up; figures are medians over the others):
one `produce_assignments` per snapshot with the default 57-script portfolio. Also reported:
assignments per state with the reference's 55 scripts (no Destroy / Disband wrappers),
the first pass with every content-keyed cache cleared ("cold"), assignments per state against
legal actions per state, the cost by state size (legal actions), and how the assignments split
over action types and scripts.

Reference (tribes-agents.md 13.3, Java, master rules, level 1590191438878, rule-based game):
24 k generations/s, 14.4 assignments vs 37.3 legal actions per state. Measured side by side with
this port on identical positions (12 rule-based games on paper levels 1-12): 15.2 k/s. The peak
memory of the process is printed too.

    python experiments/bench_portfolio.py [--levels 25] [--reps 6] [--player rule_based]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections import Counter

import numpy as np
from bench_engine import peak_memory_mb

from agents.portfolio import portfolio, produce_assignments
from agents.registry import make_agent
from games.registry import get_game
from games.tribes import scripts as tribes_scripts
from games.tribes.actions import ACTION_NAMES
from games.tribes.level_sets import PAPER_SEEDS

REFERENCE = {"generations_per_s": 24_000, "assignments_per_state": 14.4,
             "legal_actions_per_state": 37.3,
             "source": "tribes-agents.md 13.3: Java, master rules, level 1590191438878, "
                       "rule-based vs rule-based, every third decision state"}


REFERENCE_SIDE_BY_SIDE = {
    "generations_per_s": 15_200,
    "source": "Java and this port measured side by side on identical positions: 2,782 decision "
              "states of 12 rule-based games on paper levels 1-12 (--levels 12)"}


def snapshots(levels, player: str, seed: int, every: int) -> list:
    game = get_game("tribes")
    out = []
    for k, level in enumerate(levels):
        s = game.new_state(level, seed + k)
        agents = [make_agent(player, seed=seed + 1000 * k + p) for p in range(s.num_players)]
        decision = 0
        while not s.is_terminal():
            acts = s.legal_actions()
            if len(acts) > 1:
                decision += 1
                if decision % every == 0:
                    c = s.copy()
                    c.actions_by_actor()
                    out.append(c)
                a = agents[s.current_player].act(s.copy())
            else:
                a = acts[0]
            s.apply(a)
    return out


def time_pass(snaps, pf, rng) -> float:
    t0 = time.perf_counter()
    for s in snaps:
        produce_assignments(s, pf, rng)
    return len(snaps) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--levels", type=int, default=25, help="first N paper levels")
    ap.add_argument("--reps", type=int, default=6, help="timed passes (+1 warm-up)")
    ap.add_argument("--player", default="rule_based", help="agent playing both sides")
    ap.add_argument("--every", type=int, default=3, help="keep every n-th decision state")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.perf_counter()
    snaps = snapshots(PAPER_SEEDS[:args.levels], args.player, args.seed, args.every)
    collect_s = time.perf_counter() - t0
    pf = portfolio("tribes")
    rng = np.random.default_rng(args.seed)

    tribes_scripts.clear_caches()
    cold = time_pass(snaps, pf, rng)
    rates = [time_pass(snaps, pf, rng) for _ in range(args.reps)]
    warm = rates[1:] if len(rates) > 1 else rates

    n_assign, n_legal, by_type, by_script = [], [], Counter(), Counter()
    for s in snaps:
        out = produce_assignments(s, pf, rng)
        n_assign.append(len(out))
        n_legal.append(len(s.legal_actions()))
        by_type.update(ACTION_NAMES[x[2][0]] for x in out)
        by_script.update(x[1] for x in out)
    # per-state times, to compare states of the reference's size (37 legal actions) directly;
    # medians, since a garbage-collector pause lands on whichever state triggers it
    per_state = []
    clock = time.perf_counter
    for s in snaps:
        t = clock()
        produce_assignments(s, pf, rng)
        per_state.append(clock() - t)
    bins = {}
    for lo, hi in ((1, 20), (20, 40), (40, 80), (80, 10**9)):
        idx = [i for i in range(len(snaps)) if lo <= n_legal[i] < hi]
        if idx:
            name = f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
            bins[name] = {"states": len(idx),
                          "legal_actions": round(statistics.mean(n_legal[i] for i in idx), 1),
                          "assignments": round(statistics.mean(n_assign[i] for i in idx), 1),
                          "us_per_generation_median": round(1e6 * statistics.median(
                              per_state[i] for i in idx), 1)}

    ref_pf = portfolio("tribes", reference=True)
    n55 = [len(produce_assignments(s, ref_pf, rng)) for s in snaps]
    n = len(snaps)
    gps = statistics.median(warm)
    result = {
        "python": platform.python_version(),
        "levels": args.levels,
        "player": args.player,
        "snapshots": n,
        "collect_seconds": round(collect_s, 1),
        "repetitions_timed": len(warm),
        "generations_per_s": round(gps),
        "generations_per_s_range": [round(min(warm)), round(max(warm))],
        "us_per_generation": round(1e6 / gps, 1),
        "cold_generations_per_s": round(cold),
        "assignments_per_state": round(statistics.mean(n_assign), 2),
        "legal_actions_per_state": round(statistics.mean(n_legal), 2),
        "branching_reduction": round(sum(n_legal) / max(1, sum(n_assign)), 2),
        "assignments_per_state_55_scripts": round(statistics.mean(n55), 2),
        "by_legal_actions": bins,
        "assignments_per_state_by_type": {k: round(v / n, 2) for k, v in by_type.most_common()},
        "assignments_per_state_by_script": {k: round(v / n, 2)
                                            for k, v in by_script.most_common()},
        "reference": REFERENCE,
        "speed_vs_reference": round(gps / REFERENCE["generations_per_s"], 2),
        "reference_side_by_side": REFERENCE_SIDE_BY_SIDE,
        "speed_vs_reference_side_by_side": round(
            gps / REFERENCE_SIDE_BY_SIDE["generations_per_s"], 2),
        "peak_memory_mb": peak_memory_mb(),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
