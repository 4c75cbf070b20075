"""What Table I at paper scale costs: a sample of its games, timed, and the core-hours of the
whole tournament projected from them.

Plays the first `--per-row` games of every row of experiments/table1.yaml (500 games per row,
2000 forward-model calls per decision, 50 rounds) in this process, one at a time, and prints
each game's CPU seconds, the mean per row and the projection for the whole tournament (each
row's mean times its games, summed), with a t interval over the sampled games. Writes
games.csv (one row per sampled game) and cost.md.

    python experiments/table1_cost.py --per-row 1 --out experiments/results/table1_cost
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from base.files import atomic_write, read_yaml  # noqa: E402
from base.stats import mean_interval  # noqa: E402
from play.runner import run_game  # noqa: E402
from play.tournament import load_config, plan  # noqa: E402


def commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", type=Path, default=ROOT / "experiments" / "table1.yaml")
    ap.add_argument("--per-row", type=int, default=1, help="games timed per row")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    config = load_config(args.config)
    budget = read_yaml(args.config).get("budget")  # (each agent's parameter once read)
    specs = plan(config)
    per_row: dict[int, list] = {}
    for index, spec in enumerate(specs):
        row = spec.tag["pairing"]
        if len(per_row.setdefault(row, [])) < args.per_row:
            per_row[row].append((index, spec))
    rows = []
    for row, chosen in per_row.items():
        for index, spec in chosen:
            rec = run_game(spec)
            rows.append({"row": row, "game": index, "agents": " vs ".join(
                a.display() for a in spec.agents), "level": spec.level, "rounds": rec.rounds,
                "cpu_seconds": round(rec.cpu_seconds, 2), "seconds": round(rec.seconds, 2)})
            print(rows[-1], flush=True)
    games = pd.DataFrame(rows)
    total_games = pd.Series([s.tag["pairing"] for s in specs]).value_counts()
    per_row_mean = games.groupby("row")["cpu_seconds"].mean()
    projected = float(sum(per_row_mean[r] * total_games[r] for r in per_row_mean.index)) / 3600
    mean, low, high, n = mean_interval(games["cpu_seconds"].to_numpy())
    scale = len(specs) / 3600
    text = "\n".join([
        "# Table I at paper scale: what it costs", "",
        f"Command: `python experiments/table1_cost.py {' '.join(sys.argv[1:])}`; code: commit "
        f"{commit()}.", "",
        f"Config: {args.config.relative_to(ROOT) if args.config.is_relative_to(ROOT) else args.config}"
        f" ({len(specs)} games: {len(total_games)} rows of {int(total_games.max())}; budget "
        f"{budget}, options {config.options}).", "",
        f"Timed: {n} games, {args.per_row} per row (the first of each row's plan), one at a time "
        "in one process; CPU seconds per game (games.csv).", "",
        f"- mean CPU per game: {mean:.0f} s (95% t interval {low:.0f}-{high:.0f} s, n = {n});",
        f"- projected: {projected:.0f} core-hours (each row's mean times its games), "
        f"{mean * scale:.0f} core-hours from the overall mean ({low * scale:.0f}-"
        f"{high * scale:.0f} from its interval);",
        f"- on 32 cores, about {projected / 32:.1f} hours; on 2 cores, {projected / 2:.0f} "
        "hours.", "",
        "A sample of one game per row says little about the spread between levels and seats "
        "(games end early by capture or run the full 50 rounds); read the projection as its "
        "order of magnitude.", ""])
    print(text)
    if args.out:
        atomic_write(args.out / "games.csv", games.to_csv(index=False))
        atomic_write(args.out / "cost.md", text)
    return 0 if np.isfinite(mean) else 1


if __name__ == "__main__":
    sys.exit(main())
