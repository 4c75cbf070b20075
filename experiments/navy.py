"""Navy Defense: the source's comparison of hindsight optimisation with the baselines
(docs/navy.md, "Measured"), on shared worlds.

Every agent plays the same worlds (level seeds 0..worlds-1) with the same game seeds (one per
world and trial: the subs' luck), alone, for `--steps` steps; agent seeds differ per trial.
Printed and written (summary.md, games.csv under --out): per agent, the mean cost with its
95% interval (normal approximation, 1.96 standard errors), the mean cargo ships lost, moves,
and seconds per episode; then the paired difference of each agent's cost minus hindsight's
over the same (world, trial) games, with its 95% interval.

    PYTHONPATH=. python experiments/navy.py [--worlds 24] [--trials 1] [--size 7] [--cargo 4]
        [--out experiments/results/navy] [--workers 0]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from agents.parallel import run_games
from agents.runner import GameSpec
from agents.tournament import parse_agent

AGENTS = ("static", "random", "patrol", "patrol:direction=ccw", "reactive",
          "reactive:direction=ccw", "paranoid", "hindsight", "omniscient")
"""The source's nine agents (HOP settings at the source's defaults: N = 30, K = 30, H = 5)."""


def interval(values) -> tuple[float, float, float]:
    """Mean and 95% interval (normal approximation)."""
    values = list(values)
    m = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return m, m - half, m + half


def specs(agents, worlds: int, trials: int, options: dict, seed: int) -> list[GameSpec]:
    """One game per (agent, world, trial); the game seed depends on (world, trial) only."""
    root = np.random.SeedSequence(seed)
    game_seeds = root.generate_state(worlds * trials, dtype=np.uint32)
    agent_seeds = np.random.SeedSequence(seed + 1).generate_state(
        len(agents) * worlds * trials, dtype=np.uint32)
    out = []
    k = 0
    for a, spec in enumerate(agents):
        for w in range(worlds):
            for t in range(trials):
                out.append(GameSpec(game="navy", level=w, seed=int(game_seeds[w * trials + t]),
                                    agents=(spec,), agent_seeds=(int(agent_seeds[k]),),
                                    options=tuple(sorted(options.items())),
                                    tag={"agent": a, "world": w, "trial": t}))
                k += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", nargs="+", default=list(AGENTS))
    ap.add_argument("--worlds", type=int, default=24)
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--size", type=int, default=7)
    ap.add_argument("--cargo", type=int, default=4)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=0, help="0: play in this process")
    ap.add_argument("--out", default=None, help="write summary.md and games.csv there")
    args = ap.parse_args()
    agents = [parse_agent(a, "agents", game="navy") for a in args.agents]
    options = {"size": args.size, "cargo": args.cargo, "steps": args.steps}
    t0 = time.perf_counter()
    rows = []
    for _, rec in run_games(specs(agents, args.worlds, args.trials, options, args.seed),
                            workers=args.workers):
        tag = rec.spec.tag
        rows.append({"agent": agents[tag["agent"]].display(), "world": tag["world"],
                     "trial": tag["trial"], "game_seed": rec.spec.seed,
                     "seconds": round(rec.seconds, 3), "cpu_seconds": round(rec.cpu_seconds, 3),
                     **rec.summaries[0]})
    games = pd.DataFrame(rows).sort_values(["agent", "world", "trial"])
    wall = time.perf_counter() - t0
    lines = [f"Navy Defense, {args.size}x{args.size}, {args.cargo} cargo ships, 1-3 subs, "
             f"{args.steps} steps; worlds 0-{args.worlds - 1}, {args.trials} trial(s) each "
             f"(same game seeds for every agent); CPU {games['cpu_seconds'].sum():.0f} s, "
             f"wall {wall:.0f} s.", "",
             "| agent | games | mean cost | 95% CI | cargo lost | moves | s / episode |",
             "|---|---|---|---|---|---|---|"]
    order = [a.display() for a in agents]
    for name in order:
        g = games[games["agent"] == name]
        m, lo, hi = interval(g["cost"])
        lines.append(f"| {name} | {len(g)} | {m:.1f} | {lo:.1f} to {hi:.1f} | "
                     f"{g['cargo_destroyed'].mean():.2f} | {g['moves'].mean():.1f} | "
                     f"{g['cpu_seconds'].mean():.2f} |")
    if "hindsight" in order:
        ref = games[games["agent"] == "hindsight"].set_index(["world", "trial"])["cost"]
        lines += ["", "Paired difference of cost, agent minus hindsight, over the same games:", "",
                  "| agent | mean difference | 95% CI |", "|---|---|---|"]
        for name in order:
            if name == "hindsight":
                continue
            g = games[games["agent"] == name].set_index(["world", "trial"])["cost"]
            m, lo, hi = interval((g - ref).dropna())
            lines.append(f"| {name} | {m:+.1f} | {lo:+.1f} to {hi:+.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        games.to_csv(out / "games.csv", index=False)
        (out / "summary.md").write_text(text)


if __name__ == "__main__":
    main()
