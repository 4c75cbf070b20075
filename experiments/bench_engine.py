"""Forward-model speed of the Tribes engine, printed as JSON, with ratios to the reference.

Snapshots: random-agent games (or `--player rule_based`, closer to the reference's snapshots)
on the 25 `paper` levels, keeping every third decision state that offers more than one
action. Then, per repetition (the first is a warm-up, the figures are medians over the others):
* copies/s: `copy()` of every snapshot, repeated;
* apply+list/s: random rollouts of up to 20 actions from a copy of every snapshot, timing
  `apply(action)` together with listing the next state's legal actions (the copy and the
  random choice are not timed);
* legal actions per state: the mean over the snapshots;
* full games/s: whole random-vs-random games, one per level;
* the peak resident memory of the process.

The reference figures (Java engine, one thread, quiet machine, 2,782 decision states from 12
rule-based games on paper levels 1-12, 56.5 legal actions per state) are 190-195 k copies/s
and 32.3-32.6 k apply+list/s; `--player rule_based --levels 12` takes comparable snapshots.
Ratios above 1 mean faster than the reference.

    python experiments/bench_engine.py [--reps 6] [--levels 25] [--copies 200] [--player random]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import time

import numpy as np

from agents.registry import make_agent
from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS
from games.tribes.levelgen import generate_level

REFERENCE_COPIES_PER_S = 192_500  # Java: 190-195 k/s
REFERENCE_APPLY_LIST_PER_S = 32_450  # Java: 32.3-32.6 k/s


def peak_memory_mb() -> float:
    """The peak resident memory of this process so far, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1 << 20) if sys.platform == "darwin" else peak / 1024, 1)


def snapshots(levels, seed: int, player: str = "random") -> list:
    """Every third decision state with more than one action, from games between two copies
    of `player` (a registered agent name)."""
    game = get_game("tribes")
    out = []
    for k, level in enumerate(levels):
        s = game.new_state(level, seed + k)
        agents = [make_agent(player, seed=seed + 2 * k), make_agent(player, seed=seed + 2 * k + 1)]
        decision = 0
        while not s.is_terminal():
            acts = s.legal_actions()
            if len(acts) > 1:
                decision += 1
                if decision % 3 == 0:
                    out.append(s.copy())
                s.apply(agents[s.current_player].act(s))
            else:
                s.apply(acts[0])
    return out


def time_copies(snaps, copies: int) -> float:
    t0 = time.perf_counter()
    for s in snaps:
        for _ in range(copies):
            s.copy()
    return len(snaps) * copies / (time.perf_counter() - t0)


def time_apply_list(snaps, rollouts: int, depth: int, rng) -> float:
    elapsed = 0.0
    n = 0
    perf = time.perf_counter
    for s in snaps:
        for _ in range(rollouts):
            c = s.copy()
            acts = c.legal_actions()
            for _ in range(depth):
                if c.is_terminal():
                    break
                a = acts[int(rng.integers(len(acts)))]
                t0 = perf()
                c.apply(a)
                acts = c.legal_actions()
                elapsed += perf() - t0
                n += 1
    return n / elapsed


def time_games(levels, seed: int) -> float:
    game = get_game("tribes")
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for k, level in enumerate(levels):
        s = game.new_state(level, seed + k)
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
    return len(levels) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--levels", type=int, default=25)
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--rollouts", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--player", default="random",
                    help="agent whose games give the snapshots (e.g. random, rule_based)")
    args = ap.parse_args()
    levels = [generate_level(s) for s in PAPER_SEEDS[:args.levels]]
    snaps = snapshots(levels, args.seed, args.player)
    rng = np.random.default_rng(args.seed)
    copies, applies, games = [], [], []
    for rep in range(args.reps):
        c = time_copies(snaps, args.copies)
        a = time_apply_list(snaps, args.rollouts, 20, rng)
        g = time_games(levels, args.seed + 1000 * rep)
        if rep > 0 or args.reps == 1:
            copies.append(c)
            applies.append(a)
            games.append(g)
    print(json.dumps({
        "python": platform.python_version(),
        "levels": len(levels),
        "snapshot_player": args.player,
        "snapshots": len(snaps),
        "repetitions_timed": len(copies),
        "copies_per_s": round(statistics.median(copies)),
        "copies_per_s_range": [round(min(copies)), round(max(copies))],
        "apply_and_list_per_s": round(statistics.median(applies)),
        "apply_and_list_per_s_range": [round(min(applies)), round(max(applies))],
        "legal_actions_per_state": round(statistics.mean(len(s.legal_actions()) for s in snaps), 1),
        "random_games_per_s": round(statistics.median(games), 2),
        "reference_copies_per_s": REFERENCE_COPIES_PER_S,
        "reference_apply_and_list_per_s": REFERENCE_APPLY_LIST_PER_S,
        "copies_speed_vs_reference": round(statistics.median(copies) / REFERENCE_COPIES_PER_S, 2),
        "apply_and_list_speed_vs_reference": round(
            statistics.median(applies) / REFERENCE_APPLY_LIST_PER_S, 2),
        "peak_memory_mb": peak_memory_mb(),
    }, indent=2))


if __name__ == "__main__":
    main()
