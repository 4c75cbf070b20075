"""Per-player against paranoid MCTS rewards in Tribolo, read from the tournament's games.

    playstyles tournament experiments/tribolo_rewards.yaml --workers 2 \\
        --out experiments/results/tribolo_rewards
    python experiments/tribolo_rewards.py experiments/results/tribolo_rewards

Reads DIR/games.csv (the tournament's rows; each game appears once per agent) and writes
DIR/paired.csv (one row per game: each MCTS's cells and its thinking time per decision) and
DIR/paired.md: each agent's share of first place with its Wilson 95% interval, the per-player
agent's cells minus the paranoid agent's, paired by game, with a Student's t 95% interval, the
games where per-player ended with more cells, and each agent's thinking time per decision.
Prints paired.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # per_agent.py, beside this file

from per_agent import per_agent  # noqa: E402

from base.stats import mean_interval, wilson_interval  # noqa: E402

PER_PLAYER, PARANOID = "MCTS per-player", "MCTS paranoid"
KEYS = {PER_PLAYER: "per_player", PARANOID: "paranoid"}
"""The two MCTS agents' labels and their column prefixes (the third agent is `other`)."""
SEATS = 3


def per_game(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game: for each agent (per-player MCTS, paranoid MCTS, the other), its
    seat, cells, result and ms per decision (read by `per_agent.per_agent`)."""
    games = games.drop_duplicates("game").sort_values("game")
    rows = per_agent(games, ["score", "result", "ms_per_decision"]).rename(
        columns={"score": "cells"})
    rows["key"] = rows["agent"].map(KEYS).fillna("other")
    out = games[["game", "level", "rep"]].reset_index(drop=True)
    for key in ("per_player", "paranoid", "other"):
        part = rows[rows["key"] == key].set_index("game")
        part = part[["seat", "cells", "result", "ms_per_decision"]].add_prefix(f"{key}_")
        out = out.join(part, on="game")
    return out


def summary(paired: pd.DataFrame, labels: dict[str, str]) -> str:
    n = len(paired)
    lines = [f"{n} games (every seating of the three on each level), from games.csv.", "",
             "| agent | games | first place (share, ties split) | 95% Wilson | mean cells "
             "| ms per decision |", "|---|---|---|---|---|---|"]
    for key, label in labels.items():
        first = paired[f"{key}_result"].sum()
        lo, hi = wilson_interval(first, n)
        lines.append(f"| {label} | {n} | {100 * first / n:.1f}% | {100 * lo:.1f}-{100 * hi:.1f}% "
                     f"| {paired[f'{key}_cells'].mean():.1f} "
                     f"| {paired[f'{key}_ms_per_decision'].mean():.0f} |")
    diff = paired["per_player_cells"] - paired["paranoid_cells"]
    mean, lo, hi, k = mean_interval(diff)
    more = int((diff > 0).sum())
    lines += ["", f"Per-player minus paranoid cells, paired by game: {mean:+.1f} "
              f"(95% t interval {lo:+.1f} to {hi:+.1f}, {k} games); per-player ended with more "
              f"cells in {more} of {n} games, fewer in {int((diff < 0).sum())}.", "",
              "ms per decision: thinking time over decisions per game, averaged over games "
              "(wall time; the tournament plays two games at once)."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", type=Path, help="the tournament's output folder (holds games.csv)")
    args = ap.parse_args()
    games = pd.read_csv(args.dir / "games.csv")
    paired = per_game(games)
    text = summary(paired, {"per_player": PER_PLAYER, "paranoid": PARANOID,
                            "other": "original AI"})
    paired.to_csv(args.dir / "paired.csv", index=False)
    (args.dir / "paired.md").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
