"""Forward-model speed of the Tribolo engine (pure Python bitboards), printed as JSON.

Snapshots: every fourth state of random games on the set-up seeds 0..L-1. Then, per
repetition (the first is a warm-up; the figures are medians over the others, with their
range):

* apply+list/s: random rollouts of up to 20 moves from a copy of every snapshot, timing
  `apply(move)` together with `legal_actions()` of the next state (the copy and the random
  choice are not timed); `apply` also finds the next player to move, skips included;
* copies/s: `copy()` of every snapshot;
* random games/s: whole games between uniformly random players, one per level, from the
  set-up to the end (the random choices included).

    python experiments/bench_tribolo.py [--reps 6] [--levels 20] [--rollouts 5] [--seed 42]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np
from bench_engine import time_apply_list  # noqa: E402 - beside this script

from games.registry import get_game


def snapshots(levels: int, seed: int, every: int = 4, decisions: bool = False) -> list:
    """Every `every`-th state of random games on the set-up seeds 0..levels-1 (with
    `decisions`, every `every`-th state with more than one legal move)."""
    game = get_game("tribolo")
    rng = np.random.default_rng(seed)
    out = []
    for level in range(levels):
        s = game.new_state(level, seed)
        k = 0
        while not s.is_terminal():
            acts = s.legal_actions()
            if not decisions or len(acts) > 1:
                k += 1
                if (k - (0 if decisions else 1)) % every == 0:
                    out.append(s.copy())
            s.apply(acts[int(rng.integers(len(acts)))])
    return out


def copy_rate(snaps, copies: int) -> float:
    t0 = time.perf_counter()
    for s in snaps:
        for _ in range(copies):
            s.copy()
    return len(snaps) * copies / (time.perf_counter() - t0)


def games_rate(levels: int, seed: int) -> tuple[float, float]:
    """Random games per second, and moves per game."""
    game = get_game("tribolo")
    rng = np.random.default_rng(seed)
    moves = 0
    t0 = time.perf_counter()
    for level in range(levels):
        s = game.new_state(level, seed)
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
            moves += 1
    return levels / (time.perf_counter() - t0), moves / levels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=6, help="repetitions (the first is a warm-up)")
    ap.add_argument("--levels", type=int, default=20, help="set-up seeds 0..N-1")
    ap.add_argument("--rollouts", type=int, default=5, help="rollouts per snapshot")
    ap.add_argument("--copies", type=int, default=200, help="copies per snapshot")
    ap.add_argument("--seed", type=int, default=42, help="seed of the random moves")
    args = ap.parse_args()
    snaps = snapshots(args.levels, args.seed)
    rng = np.random.default_rng(args.seed)
    applies, copies, games = [], [], []
    moves_per_game = 0.0
    for rep in range(args.reps):
        a = time_apply_list(snaps, args.rollouts, 20, rng)
        c = copy_rate(snaps, args.copies)
        g, moves_per_game = games_rate(args.levels, args.seed + 1000 * rep)
        if rep > 0 or args.reps == 1:
            applies.append(a)
            copies.append(c)
            games.append(g)
    print(json.dumps({
        "python": platform.python_version(),
        "levels": args.levels,
        "snapshots": len(snaps),
        "repetitions_timed": len(applies),
        "apply_and_list_per_s": round(statistics.median(applies)),
        "apply_and_list_per_s_range": [round(min(applies)), round(max(applies))],
        "copies_per_s": round(statistics.median(copies)),
        "copies_per_s_range": [round(min(copies)), round(max(copies))],
        "legal_moves_per_state": round(statistics.mean(len(s.legal_actions()) for s in snaps), 1),
        "random_games_per_s": round(statistics.median(games), 1),
        "random_games_per_s_range": [round(min(games), 1), round(max(games), 1)],
        "moves_per_game": round(moves_per_game, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
