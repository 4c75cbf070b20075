"""Benchmark of the evolution loop: throughput, CPU use and the driver's own time; and a
simulation of the loop on large clusters.

Measured (default): two short runs of the same small config (quickstart-like: P-MCTS PU,
short games):

* on a local Ray with `--workers` CPUs: games per hour and CPU utilisation (time spent in
  games / (wall time x workers));
* on a local Ray with one worker, where games run one after another, so that the driver's
  work is easy to see. The driver's time is the time it spends outside waiting for games:
  asking the emitter, submitting tasks, receiving results, the partial-batch file, features,
  archive insertion, CSV tables and the checkpoint (metrics.csv `driver_seconds`). Its share
  of game time is the framework's overhead per game. Time a CPU waits for a game to be
  handed to it is idle time, reported separately (it is what the pipeline lag removes).

The first batch of each run also pays for starting Ray's workers and compiling pyribs' insertion
kernel; steady-state figures leave it out. Prints one JSON object.

    python experiments/bench_qd.py [--workers 2] [--evaluations 24] [--budget 100] [--lag 1]

Simulated (`--simulate-cores`): a discrete-event simulation of the run loop on N cores.
Batches of B genomes x G games (one task each, handed out in submission order to free cores);
game durations drawn at random from a measured distribution (the `seconds` column of a
games.csv: a run directory's, or by default the Table I tournament's, paper-scale games);
batches told strictly in order, each costing the driver `--driver-seconds`, after which the
batch `lag` places later is asked and its games submitted. Prints, per N and lag, the
utilisation (game seconds / (N x wall time)) over a whole run of `--evaluations` genomes and in
a steady state (`--steady-batches` batches), and the smallest lag that keeps N cores 90 % busy.

    python experiments/bench_qd.py --simulate-cores 16 32 64 128 256 512 1024 [--lags 1 2 3 4]
        [--games-csv runs/NAME/games.csv] [--genomes 8] [--games 20] [--markdown]
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qd.run import evolve  # noqa: E402

TABLE1_GAMES = Path(__file__).resolve().parent / "results" / "bench_qd" / "game_durations.csv"
"""The durations of the first Table I run's 350 games (P-MCTS variants, MCTS and RHEA at 1000
calls, 26 rounds), kept as this benchmark's input."""


# ------------------------------------------------------------------ measured runs

def config(evaluations: int, budget: int, rounds: int, batch: int, lag: int) -> dict:
    return {"name": "bench", "game": "tribes", "options": {"max_rounds": rounds},
            "levels": {"set": "paper", "train": 3, "split_seed": 0},
            "agent": {"name": "pmcts_pu", "budget": budget}, "repetitions": 2,
            "opponent": {"name": "mcts", "params": {"rollouts": False}},  # the paper's MCTS
            "features": ["research_slope", "tile_slope"],
            "emitter": {"batch_size": batch, "initial_random": 13},
            "evaluations": evaluations, "pipeline": {"lag": lag}, "seed": 3}


def run(cfg: dict, workers: int, root: Path, tag: str) -> tuple[pd.DataFrame, float]:
    path = root / f"{tag}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    t0 = time.perf_counter()
    evolve(path, out=root / tag, workers=workers)
    m = pd.read_csv(root / tag / "metrics.csv")
    m["batch_games"] = m["games"].diff().fillna(m["games"].iloc[0])
    return m, time.perf_counter() - t0


def summary(m: pd.DataFrame, workers: int) -> dict:
    games, game, wall = m["batch_games"].sum(), m["game_seconds"].sum(), m["wall_seconds"].sum()
    driver = m["driver_seconds"].sum()  # outside waiting for games
    idle = wall * workers - game - driver  # CPUs waiting for work (or the driver, on 1 CPU)
    return {"batches": len(m), "games": int(games), "game_seconds": round(game, 2),
            "wall_seconds": round(wall, 2), "games_per_hour": round(3600 * games / wall, 1),
            "cpu_utilisation": round(game / (wall * workers), 4),
            "driver_seconds": round(driver, 3),
            "driver_seconds_per_batch": round(driver / len(m), 4),
            "overhead_fraction": round(driver / game, 5),
            "overhead_per_game_s": round(driver / games, 5),
            "idle_fraction": round(max(0.0, idle) / (wall * workers), 5)}


def measure(args: argparse.Namespace) -> dict:
    cfg = config(args.evaluations, args.budget, args.rounds, args.batch, args.lag)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        par, par_total = run(cfg, args.workers, root, "parallel")
        one, one_total = run(cfg, 1, root, "serial")
    steady = lambda m: m.iloc[1:] if len(m) > 1 else m  # noqa: E731
    p, s = summary(steady(par), args.workers), summary(steady(one), 1)
    return {
        "config": {"options": cfg["options"], "agent": cfg["agent"],
                   "games_per_genome": 3 * cfg["repetitions"], "evaluations": args.evaluations,
                   "batch_size": args.batch, "workers": args.workers, "lag": args.lag},
        "games_per_hour": p["games_per_hour"],
        "cpu_utilisation": p["cpu_utilisation"],
        "overhead_fraction": s["overhead_fraction"],
        "overhead_per_game_s": s["overhead_per_game_s"],
        "driver_seconds_per_batch": s["driver_seconds_per_batch"],
        "parallel_steady": p,
        "serial_steady": s,
        "parallel_all_batches": summary(par, args.workers) | {"run_seconds": round(par_total, 1)},
        "serial_all_batches": summary(one, 1) | {"run_seconds": round(one_total, 1)},
    }


# ------------------------------------------------------------------ simulation

def simulate(cores: int, genomes: int, games: int, lag: int, driver: float,
             durations: np.ndarray, batches: int, rng: np.random.Generator,
             window: tuple[int, int] | None = None) -> dict:
    """One simulated run: `batches` batches of genomes x games on `cores` cores, `lag`
    batches in flight, `driver` seconds of driver time per told batch. Returns the
    utilisation (game seconds / (cores x wall)) and the wall time; with `window` (a, b), the
    utilisation between the tells of batches a and b (the steady state, without the run's
    start and end)."""
    per_batch = genomes * games
    events: list[tuple[float, int, int]] = []  # (time, order, batch; -1 = the driver's tell)
    order = 0
    free = cores
    queue: list[float] = []  # game durations in submission order
    owner: list[int] = []
    head = 0
    left: dict[int, int] = {}
    asked = told = 0
    work = 0.0
    driving = False

    def ask() -> None:
        nonlocal asked, work
        d = rng.choice(durations, size=per_batch)
        left[asked] = per_batch
        queue.extend(d.tolist())
        owner.extend([asked] * per_batch)
        work += float(d.sum())
        asked += 1

    def dispatch(now: float) -> None:
        nonlocal free, head, order
        while free and head < len(queue):
            heapq.heappush(events, (now + queue[head], order, owner[head]))
            order += 1
            head += 1
            free -= 1

    def drive(now: float) -> None:
        nonlocal driving, order
        if not driving and told < asked and left[told] == 0:
            driving = True
            heapq.heappush(events, (now + driver, order, -1))
            order += 1

    area = 0.0  # busy core-seconds inside the window
    start = end = None
    last = 0.0
    for _ in range(min(lag, batches)):
        ask()
    dispatch(0.0)
    now = 0.0
    while events:
        now, _, batch = heapq.heappop(events)
        if start is not None and end is None:
            area += (cores - free) * (now - last)
        last = now
        if batch >= 0:
            free += 1
            left[batch] -= 1
        else:  # batch `told` is told: ask the one `lag` places later, submit its games
            driving = False
            told += 1
            if window is not None and told == window[0]:
                start = now
            if window is not None and told == window[1]:
                end = now
            while asked < batches and asked < told + lag:
                ask()
        dispatch(now)
        drive(now)
    if window is not None:
        return {"utilisation": area / (cores * (end - start)), "wall": end - start}
    return {"utilisation": work / (cores * now), "wall": now}


def utilisation(cores: int, lag: int, args: argparse.Namespace, durations: np.ndarray,
                batches: int, reps: int, steady: bool = False) -> float:
    """Mean utilisation of `reps` simulated runs; `steady`: of the middle half of a run at
    least ten lags long."""
    window = None
    if steady:
        batches = max(batches, 10 * lag)
        window = (batches // 4, 3 * batches // 4)
    return float(np.mean([simulate(cores, args.genomes, args.games, lag, args.driver_seconds,
                                   durations, batches, np.random.default_rng(seed),
                                   window)["utilisation"] for seed in range(reps)]))


def min_lag(cores: int, target: float, args: argparse.Namespace, durations: np.ndarray) -> int:
    """The smallest lag with a steady-state utilisation of at least `target`."""
    def ok(lag: int) -> bool:
        return utilisation(cores, lag, args, durations, args.steady_batches, 1,
                           steady=True) >= target
    hi = 1
    while not ok(hi):
        hi *= 2
        if hi > 4096:
            return -1
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def simulation(args: argparse.Namespace) -> dict:
    path = Path(args.games_csv)
    durations = pd.read_csv(path)["seconds"].dropna().to_numpy(dtype=float)
    batches = math.ceil(args.evaluations_simulated / args.genomes)
    rows = []
    for n in args.simulate_cores:
        row = {"cores": n}
        for lag in args.lags:
            row[f"run_lag{lag}"] = round(utilisation(n, lag, args, durations, batches,
                                                     args.reps), 3)
        for lag in args.lags:
            row[f"steady_lag{lag}"] = round(utilisation(n, lag, args, durations,
                                                        args.steady_batches, 1, True), 3)
        row["lag_for_90pct"] = min_lag(n, 0.9, args, durations)
        rows.append(row)
    try:
        shown = path.resolve().relative_to(Path(__file__).resolve().parents[1])
    except ValueError:
        shown = path
    return {"games_csv": str(shown), "game_seconds": {
                "games": int(durations.size), "mean": round(float(durations.mean()), 2),
                "median": round(float(np.median(durations)), 2),
                "p90": round(float(np.quantile(durations, 0.9)), 2),
                "max": round(float(durations.max()), 2)},
            "genomes_per_batch": args.genomes, "games_per_genome": args.games,
            "games_per_batch": args.genomes * args.games, "driver_seconds": args.driver_seconds,
            "run_batches": batches, "steady_batches": args.steady_batches, "reps": args.reps,
            "lags": args.lags, "rows": rows}


def markdown(sim: dict) -> str:
    lags = sim["lags"]
    g = sim["game_seconds"]
    out = [f"Game durations: {g['games']} games from `{sim['games_csv']}` (mean {g['mean']} s, "
           f"median {g['median']} s, 90th percentile {g['p90']} s, max {g['max']} s); batches "
           f"of {sim['genomes_per_batch']} genomes x {sim['games_per_genome']} games = "
           f"{sim['games_per_batch']} games; {sim['driver_seconds']} s of driver time per "
           f"batch. Whole run: {sim['run_batches']} batches (mean of {sim['reps']} runs); "
           f"steady state: the middle half of a run of {sim['steady_batches']} batches "
           f"(at least 10 x lag).", ""]
    head = (["cores"] + [f"run, lag {lag}" for lag in lags]
            + [f"steady, lag {lag}" for lag in lags] + ["lag for 90 %"])
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in sim["rows"]:
        cells = ([str(r["cores"])] + [f"{100 * r[f'run_lag{lag}']:.0f} %" for lag in lags]
                 + [f"{100 * r[f'steady_lag{lag}']:.0f} %" for lag in lags]
                 + [str(r["lag_for_90pct"])])
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--evaluations", type=int, default=24)
    ap.add_argument("--batch", type=int, default=8, help="genomes per batch")
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--lag", type=int, default=1, help="pipeline lag of the measured runs")
    sim = ap.add_argument_group("simulation")
    sim.add_argument("--simulate-cores", type=int, nargs="+", metavar="N",
                     help="simulate the loop on these core counts instead of measuring")
    sim.add_argument("--lags", type=int, nargs="+", default=[1, 2, 3, 4])
    sim.add_argument("--games-csv", default=str(TABLE1_GAMES),
                     help="a games.csv whose `seconds` column gives the game durations")
    sim.add_argument("--genomes", type=int, default=8, help="genomes per batch")
    sim.add_argument("--games", type=int, default=20, help="games per genome")
    sim.add_argument("--driver-seconds", type=float, default=1.0,
                     help="driver time per batch (tell, tables, checkpoint, ask)")
    sim.add_argument("--evaluations-simulated", type=int, default=551,
                     help="genomes of a whole simulated run (the paper's 11 + 40 + 500)")
    sim.add_argument("--steady-batches", type=int, default=200)
    sim.add_argument("--reps", type=int, default=5, help="simulated whole runs per cell")
    sim.add_argument("--markdown", action="store_true", help="print a markdown table too")
    args = ap.parse_args()
    if args.simulate_cores:
        out = simulation(args)
        if args.markdown:
            print(markdown(out))
        print(json.dumps(out, indent=2))
        return
    print(json.dumps(measure(args), indent=2))


if __name__ == "__main__":
    main()
