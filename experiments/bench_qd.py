"""Benchmark of the evolution loop: throughput, CPU use and the framework's own overhead.

Two short runs of the same small config (quickstart-like: P-MCTS PU, short games):

* on a local Ray with `--workers` CPUs: games per hour and CPU utilisation (time spent in
  games / (wall time x workers));
* on a local Ray with one worker, where games run one after another, so everything that is not
  playing a game sits on the critical path: task submission, result transfer, the partial-batch
  file, feature computation, archive insertion, CSV tables and the checkpoint. Its share of game
  time is the framework's overhead per game.

The first batch of each run also pays for starting Ray's workers and compiling pyribs' insertion
kernel; steady-state figures leave it out. Prints one JSON object.

    python experiments/bench_qd.py [--workers 2] [--evaluations 24] [--budget 100]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qd.run import evolve  # noqa: E402


def config(evaluations: int, budget: int, rounds: int, batch: int) -> dict:
    return {"name": "bench", "game": "tribes", "options": {"max_rounds": rounds},
            "levels": {"set": "paper", "train": 3, "split_seed": 0},
            "agent": {"name": "pmcts_pu", "budget": budget}, "repetitions": 2,
            "opponent": {"name": "mcts", "params": {"rollouts": False}},  # the paper's MCTS
            "features": ["research_slope", "tile_slope"],
            "emitter": {"batch_size": batch, "initial_random": 13},
            "evaluations": evaluations, "seed": 3}


def run(cfg: dict, workers: int, root: Path, tag: str) -> tuple[pd.DataFrame, float]:
    path = root / f"{tag}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    t0 = time.perf_counter()
    evolve(path, out=root / tag, workers=workers, show_progress=False)
    m = pd.read_csv(root / tag / "metrics.csv")
    m["batch_games"] = m["games"].diff().fillna(m["games"].iloc[0])
    return m, time.perf_counter() - t0


def summary(m: pd.DataFrame, workers: int) -> dict:
    games, game, wall = m["batch_games"].sum(), m["game_seconds"].sum(), m["wall_seconds"].sum()
    overhead = wall * workers - game  # idle or busy with anything but games
    return {"batches": len(m), "games": int(games), "game_seconds": round(game, 2),
            "wall_seconds": round(wall, 2), "games_per_hour": round(3600 * games / wall, 1),
            "cpu_utilisation": round(game / (wall * workers), 4),
            "driver_seconds": round(m["driver_seconds"].sum(), 3),
            "overhead_fraction": round(overhead / game, 5),
            "overhead_per_game_s": round(overhead / games, 5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--evaluations", type=int, default=24)
    ap.add_argument("--batch", type=int, default=8, help="genomes per batch")
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    cfg = config(args.evaluations, args.budget, args.rounds, args.batch)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        par, par_total = run(cfg, args.workers, root, "parallel")
        one, one_total = run(cfg, 1, root, "serial")
    steady = lambda m: m.iloc[1:] if len(m) > 1 else m  # noqa: E731
    p, s = summary(steady(par), args.workers), summary(steady(one), 1)
    out = {
        "config": {"options": cfg["options"], "agent": cfg["agent"],
                   "games_per_genome": 3 * cfg["repetitions"], "evaluations": args.evaluations,
                   "batch_size": args.batch, "workers": args.workers},
        "games_per_hour": p["games_per_hour"],
        "cpu_utilisation": p["cpu_utilisation"],
        "overhead_fraction": s["overhead_fraction"],
        "overhead_per_game_s": s["overhead_per_game_s"],
        "driver_fraction": round(s["driver_seconds"] / s["game_seconds"], 5),
        "parallel_steady": p,
        "serial_steady": s,
        "parallel_all_batches": summary(par, args.workers) | {"run_seconds": round(par_total, 1)},
        "serial_all_batches": summary(one, 1) | {"run_seconds": round(one_total, 1)},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
