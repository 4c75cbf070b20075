"""Per agent, over its games: the means of per-game columns of tournaments' games.csv, each
with a Student's t 95% interval and its number of games.

    python experiments/per_agent.py experiments/results/learned/vs_diff/games.csv \\
        --columns result score production n_buildings n_destroys [--out FILE.md]

A column NAME is read from `p<seat>_NAME` in the seat the agent sat in (every seat of every
game counts once; `result` is the agent's share of first place; an event count `n_X` that
no game of the file recorded is 0). `ms_per_decision` is the
agent's thinking time over its decisions in the game, in milliseconds. Agents are named by
their tournament labels. Prints a Markdown table (and writes it to `--out`, a new file).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from base.stats import mean_interval  # noqa: E402

DERIVED = {"ms_per_decision": lambda g, p: 1000 * g[f"p{p}_think_s"]
           / g[f"p{p}_decisions"].clip(lower=1)}
"""Columns computed from others (game rows, seat)."""


def seats(games: pd.DataFrame) -> list[int]:
    return sorted(int(m.group(1)) for c in games.columns
                  if (m := re.fullmatch(r"p(\d+)_agent", c)))


def per_agent(games: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per (agent, game, seat): the agent's label and its value of each column."""
    games = games.drop_duplicates("game") if "game" in games else games
    parts = []
    for p in seats(games):
        part = pd.DataFrame({"agent": games[f"p{p}_agent"], "game": games.get("game"),
                             "seat": p})
        for c in columns:
            if c in DERIVED:
                part[c] = DERIVED[c](games, p)
            elif f"p{p}_{c}" in games:
                part[c] = games[f"p{p}_{c}"]
            elif c.startswith("n_"):  # an event count no game recorded: it never happened
                part[c] = 0
            else:
                raise ValueError(f"no column p{p}_{c} (from {c!r}) in games.csv")
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def number(x: float) -> str:
    """Three significant digits, without an exponent for values up to a million."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def table(rows: pd.DataFrame, columns: list[str]) -> str:
    head = ["agent", "games", *[f"{c} (95% t)" for c in columns]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for agent, part in rows.groupby("agent", sort=True):
        cells = []
        for c in columns:
            mean, lo, hi, _ = mean_interval(part[c].astype(float))
            cells.append(f"{number(mean)} ({number(lo)} to {number(hi)})")
        lines.append(f"| {agent} | {len(part)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", type=Path, help="games.csv files of tournaments")
    ap.add_argument("--columns", nargs="+", required=True,
                    help=f"per-game columns without the seat prefix, or {', '.join(DERIVED)}")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = ap.parse_args()
    if args.out is not None and args.out.exists():
        ap.error(f"--out: {args.out} exists; give a new file")
    rows = pd.concat(per_agent(pd.read_csv(f), args.columns) for f in args.games)
    text = table(rows, args.columns)
    print(text, end="")
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
