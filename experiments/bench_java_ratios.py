"""The forward-model figures of two source trees side by side, and their ratios to Java's time.

The reference (Java) and this port were measured side by side, in one run on this machine
kind, on the code before the speed work of `docs/performance.md` section 10 and the rounds
before it in the same run (commit 80e9559); ours / Java's time:

- state copies 0.51-0.55;
- apply one action + list the next legal actions 0.80-0.88;
- portfolio assignment generation 1.30-1.33;
- an MCTS decision at 2000 calls (no rollouts) 2.2-2.6, ours running 2000 iterations and the
  reference 757, so 0.83-0.98 per iteration;
- a P-MCTS PU decision at 2000 calls 0.40-0.43.

The reference is not run here. This script runs the project's own benchmarks on two trees,
OLD (the code those figures describe) and NEW, alternating (OLD, NEW, OLD, NEW, ...) so that
both see the same machine, and prints each tree's medians, the time ratio NEW / OLD of every
measure, and the ratio to Java's time that it projects: the side-by-side ratio measured on OLD
times NEW / OLD. A projection, not a measurement of the reference: it assumes that the
reference's speed relative to OLD is what the side-by-side run found.

The benchmarks (each a subprocess with PYTHONPATH set to the tree, this tree's scripts):

    python experiments/bench_engine.py --player rule_based --levels 12 --reps 3
    python experiments/bench_portfolio.py --levels 12 --reps 3
    python experiments/bench_agents.py --positions 24 --levels 12 --budget 2000

Usage:

    python experiments/bench_java_ratios.py --src OLD --src NEW [--reps 3]
        [--benchmarks engine,portfolio,positions] [--out FILE.json]

A tree runs its compiled modules where `pip install -e .` built them in it, as in
`bench_games.py`. `--out` writes the report to a new file (an existing one is left alone).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_games import command_line, commit_of, dirty, emit, machine

HERE = Path(__file__).resolve().parent

# benchmark -> (script, its arguments)
BENCHMARKS = {
    "engine": ("bench_engine.py", ["--player", "rule_based", "--levels", "12", "--reps", "3"]),
    "portfolio": ("bench_portfolio.py", ["--levels", "12", "--reps", "3"]),
    "positions": ("bench_agents.py", ["--positions", "24", "--levels", "12", "--budget", "2000"]),
}
# measure -> (benchmark, where its report has the figure, True if the figure is a rate)
MEASURES = {
    "state copies per s": ("engine", ("copies_per_s",), True),
    "apply + list per s": ("engine", ("apply_and_list_per_s",), True),
    "portfolio generations per s": ("portfolio", ("generations_per_s",), True),
    "MCTS ms per iteration": ("positions", ("mcts", "ms_per_iteration"), False),
    "P-MCTS PU ms per decision": ("positions", ("pmcts", "mean_ms"), False),
}
# ours / Java's time on OLD, measured side by side (low, high)
SIDE_BY_SIDE = {
    "state copies per s": (0.51, 0.55),
    "apply + list per s": (0.80, 0.88),
    "portfolio generations per s": (1.30, 1.33),
    "MCTS ms per iteration": (round(2.2 * 757 / 2000, 2), round(2.6 * 757 / 2000, 2)),
    "P-MCTS PU ms per decision": (0.40, 0.43),
}
TARGETS = {"apply + list per s": 0.5, "portfolio generations per s": 0.5,
           "MCTS ms per iteration": 0.5}


def run(src: Path, bench: str) -> dict:
    script, args = BENCHMARKS[bench]
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    p = subprocess.run([sys.executable, str(HERE / script), *args], env=env, cwd=str(src),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{src}: {script} failed\n{p.stderr}")
    return json.loads(p.stdout)


def read(report: dict, path: tuple) -> float:
    for k in path:
        report = report[k]
    return float(report)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", action="append", required=True, help="OLD, then NEW")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS),
                    help="which of them to run (engine, portfolio, positions)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if len(args.src) != 2:
        raise SystemExit("--src: give two trees, OLD then NEW")
    if args.out and Path(args.out).exists():
        raise SystemExit(f"--out: {args.out} exists; give a new file")
    benches = [b for b in args.benchmarks.split(",") if b]
    unknown = [b for b in benches if b not in BENCHMARKS]
    if unknown or not benches:
        raise SystemExit(f"--benchmarks: unknown {unknown}; known: {', '.join(BENCHMARKS)}")
    measures = {m: v for m, v in MEASURES.items() if v[0] in benches}
    srcs = [Path(s).resolve() for s in args.src]
    started = time.time()
    values: list[dict[str, list[float]]] = [{m: [] for m in measures} for _ in srcs]
    for rep in range(args.reps):
        for i, src in enumerate(srcs):
            reports = {b: run(src, b) for b in benches}
            for m, (bench, path, _) in measures.items():
                values[i][m].append(read(reports[bench], path))
            print(f"rep {rep + 1} TREE{i + 1}: " + ", ".join(
                f"{m} {values[i][m][-1]:g}" for m in measures), file=sys.stderr, flush=True)
    trees = []
    for i, src in enumerate(srcs):
        trees.append({"tree": f"TREE{i + 1}", "commit": commit_of(src), "dirty": dirty(src),
                      "each_rep": values[i],
                      "median": {m: statistics.median(v) for m, v in values[i].items()}})
    ratios = {}
    for m, (_, _, rate) in measures.items():
        old, new = trees[0]["median"][m], trees[1]["median"][m]
        t = old / new if rate else new / old  # NEW's time / OLD's time
        lo, hi = SIDE_BY_SIDE[m]
        ratios[m] = {"time_new_over_old": round(t, 3),
                     "time_new_over_old_each_rep": [
                         round(a / b if rate else b / a, 3)
                         for a, b in zip(values[0][m], values[1][m])],
                     "old_over_java_side_by_side": [lo, hi],
                     "new_over_java_projected": [round(lo * t, 2), round(hi * t, 2)]}
        if m in TARGETS:
            ratios[m]["target"] = TARGETS[m]
            ratios[m]["target_met_by_projection"] = hi * t <= TARGETS[m]
    command = command_line("experiments/bench_java_ratios.py", srcs)
    report = {"machine": machine(), "command": command,
              "benchmarks": {b: " ".join(["experiments/" + BENCHMARKS[b][0], *BENCHMARKS[b][1]])
                             for b in benches},
              "wall_minutes": round((time.time() - started) / 60, 1),
              "trees": trees, "ratios": ratios}
    emit(report, args.out)


if __name__ == "__main__":
    main()
