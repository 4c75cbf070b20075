"""Navy Defense: the source's comparison of hindsight optimisation with the baselines
(docs/navy.md, "Measured"), on shared worlds, with HOP planning on the true sub model too.

Every agent plays the same worlds (level seeds 0..worlds-1) with the same game seeds (one per
world and trial: the subs' luck), alone, for `--steps` steps; agent seeds differ per trial.
Games are played on Ray like a tournament's (`--workers N`; 0 plays in this process).
Printed and written (summary.md, games.csv, occupancy.csv and occupancy.png under --out): per
agent, the mean cost with its 95% interval (normal approximation, 1.96 standard errors), the
mean cargo ships lost, and the Navy behaviour features (`games.navy.features`: share of
moving steps, cells visited, distance to the nearest cargo ship, reaction to the first
evidence of a sub, share of waiting steps before it) with seconds per episode; then the
paired difference of each agent's cost minus hindsight's over the same (world, trial) games,
and of each `model=` variant minus its base setting, with 95% intervals; and a heatmap of the
cells the Navy ship ended its steps on, over all episodes, for `--heatmap` agents.

    PYTHONPATH=. python experiments/navy.py [--worlds 24] [--trials 1] [--size 7] [--cargo 4]
        [--out experiments/results/navy] [--workers 0]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from play.game_pool import run_games
from play.runner import GameSpec
from play.tournament import parse_agent
from qd.features import PlayerGame, features_of

AGENTS = ("static", "random", "patrol", "patrol:direction=ccw", "reactive",
          "reactive:direction=ccw", "paranoid", "hindsight", "omniscient",
          "hindsight:model=true", "omniscient:model=believed")
"""The source's nine agents (HOP settings at the source's defaults: N = 30, K = 30, H = 5),
then HOP with the true sub model (hindsight) and with the believed one (omniscient)."""
HEATMAP = ("hindsight", "hindsight:model=true", "omniscient", "patrol")
FEATURES = ("moving", "cells_visited", "cargo_distance", "reaction", "idle_before_evidence")


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
    ap.add_argument("--out", default=None, help="write summary.md, games.csv and the heatmap")
    ap.add_argument("--heatmap", nargs="*", default=list(HEATMAP),
                    help="agents whose Navy ship positions are drawn")
    args = ap.parse_args()
    feats = features_of("navy")
    agents = [parse_agent(a, "agents", game="navy") for a in args.agents]
    options = {"size": args.size, "cargo": args.cargo, "steps": args.steps}
    t0 = time.perf_counter()
    rows, cells = [], []
    for _, rec in run_games(specs(agents, args.worlds, args.trials, options, args.seed),
                            workers=args.workers):
        tag = rec.spec.tag
        name = agents[tag["agent"]].display()
        pg = PlayerGame.from_record(rec, 0)
        rows.append({"agent": name, "world": tag["world"],
                     "trial": tag["trial"], "game_seed": rec.spec.seed,
                     "seconds": round(rec.seconds, 3), "cpu_seconds": round(rec.cpu_seconds, 3),
                     **rec.summaries[0], **{f: feats[f].fn(pg) for f in FEATURES}})
        cells += [(name, int(v)) for _, v in pg.series.get("navy_cell", ())]
    games = pd.DataFrame(rows).sort_values(["agent", "world", "trial"])
    wall = time.perf_counter() - t0
    command = "PYTHONPATH=. python experiments/navy.py " + " ".join(sys.argv[1:])
    lines = [f"`{command}`", "",
             f"Navy Defense, {args.size}x{args.size}, {args.cargo} cargo ships, 1-3 subs, "
             f"{args.steps} steps; worlds 0-{args.worlds - 1}, {args.trials} trial(s) each "
             f"(same game seeds for every agent); CPU {games['cpu_seconds'].sum():.0f} s, "
             f"wall {wall:.0f} s.", "",
             "| agent | games | mean cost | 95% CI | cargo lost | "
             + " | ".join(FEATURES) + " | s / episode |",
             "|---|---|---|---|---|" + "---|" * len(FEATURES) + "---|"]
    order = [a.display() for a in agents]
    for name in order:
        g = games[games["agent"] == name]
        m, lo, hi = interval(g["cost"])
        lines.append(f"| {name} | {len(g)} | {m:.1f} | {lo:.1f} to {hi:.1f} | "
                     f"{g['cargo_destroyed'].mean():.2f} | "
                     + " | ".join(f"{g[f].mean():.2f}" for f in FEATURES)
                     + f" | {g['cpu_seconds'].mean():.2f} |")
    lines += ["", "Features: means over the games where defined (`reaction` and the waiting "
              "share need evidence of a sub; docs/navy.md, \"Play-styles\")."]
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
    pairs = [(name, name.split(":")[0]) for name in order if ":model=" in name
             and name.split(":")[0] in order]
    if pairs:
        lines += ["", "Paired difference of cost, `model=` variant minus its base setting:", "",
                  "| variant | base | mean difference | 95% CI |", "|---|---|---|---|"]
        for name, base in pairs:
            a = games[games["agent"] == name].set_index(["world", "trial"])["cost"]
            b = games[games["agent"] == base].set_index(["world", "trial"])["cost"]
            m, lo, hi = interval((a - b).dropna())
            lines.append(f"| {name} | {base} | {m:+.1f} | {lo:+.1f} to {hi:+.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        games.to_csv(out / "games.csv", index=False)
        (out / "summary.md").write_text(text)
        occ = occupancy(cells, [n for n in args.heatmap if n in order], args.size)
        occ.to_csv(out / "occupancy.csv", index=False)
        if len(occ):
            draw_occupancy(occ, out / "occupancy.png", args.size)


def occupancy(cells: list[tuple[str, int]], names, size: int) -> pd.DataFrame:
    """Per agent and cell: the share of the Navy ship's step ends spent there.

    Args:
        cells: (agent, cell index) per step of every episode.
        names: the agents to keep.
        size: the board's side.
    """
    rows = []
    for name in names:
        mine = [c for a, c in cells if a == name]
        counts = np.bincount(mine, minlength=size * size) if mine else np.zeros(size * size)
        total = max(1, len(mine))
        rows += [{"agent": name, "x": i % size, "y": i // size, "share": counts[i] / total}
                 for i in range(size * size)]
    return pd.DataFrame(rows)


def draw_occupancy(occ: pd.DataFrame, path: Path, size: int) -> None:
    """One heatmap per agent of `occupancy`'s shares (row 0 at the top, as the board)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(dict.fromkeys(occ["agent"]))
    top = float(occ["share"].max()) or 1.0
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.4), squeeze=False)
    for ax, name in zip(axes[0], names):
        g = occ[occ["agent"] == name]
        grid = np.zeros((size, size))
        grid[g["y"].to_numpy(), g["x"].to_numpy()] = g["share"].to_numpy()
        im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=top)
        ax.set_title(name, fontsize=9)
        ax.set_xticks(range(size))
        ax.set_yticks(range(size))
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="share of step ends")
    fig.suptitle("Where the Navy ship ends its steps (all episodes)", fontsize=10)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
