"""Table I's rows read with a correction for comparing several: each row's win rate with its
Wilson 95% interval, an exact binomial test of its wins against its losses (draws left out),
and Holm's correction over the rows, on all its games and separately on the paper's levels
and on the levels off them.

    python experiments/table1_verdicts.py experiments/results/table1_decide/games.csv \\
        experiments/results/table1_rhea/games.csv --out experiments/results/table1_rhea

Any tournament's games.csv reads the same way (experiments/results/mcts_budget/ is read
with it too). Writes verdicts.csv (one row per Table I row and level group),
end_of_game.csv (per row, on all its games: the row agent's mean score, share of
technologies, cities and production at the end of the game with Student's t 95% intervals,
and the share of games that ended before the round limit, with its Wilson interval) and
verdicts.md (both tables). The games are the tournament's games.csv (one row per game, from
the row's first agent's side).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from scipy.stats import binomtest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from base.files import atomic_write  # noqa: E402
from base.stats import holm, mean_interval, wilson_interval  # noqa: E402
from games.tribes.level_sets import PAPER_SEEDS  # noqa: E402

GROUPS = ("all levels", "paper levels", "other levels")
#: end-of-game statistics of the row agent: games.csv column suffix -> label
END_STATS = {"score": "Score", "techs_pct": "Techs (%)", "cities": "Cities",
             "production": "Production"}


def credits(games: pd.DataFrame) -> pd.Series:
    """The row agent's credit in each game: 1 for a win, 1/2 for a draw, 0 for a loss."""
    won = games["winner"] == games["agent_seat"]
    draw = games["winner"].isna()
    return won.astype(float) + 0.5 * draw.astype(float)


def verdicts(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (Table I row, level group): games, wins, draws, losses, win rate (a draw
    counts half) with its Wilson 95% interval, the binomial p of wins against losses, and
    whether the row differs from 50% after Holm's correction over the rows of its group."""
    games = games[["agent", "opponent", "level", "winner", "agent_seat"]].copy()
    games = games.assign(credit=credits(games),
                         paper=games["level"].astype("int64").isin(PAPER_SEEDS))
    rows = []
    for group in GROUPS:
        part = games if group == GROUPS[0] else games[games["paper"] == (group == GROUPS[1])]
        if part.empty:
            continue
        block = []
        for (agent, opponent), g in part.groupby(["agent", "opponent"], sort=False):
            wins, losses = int((g["credit"] == 1).sum()), int((g["credit"] == 0).sum())
            low, high = wilson_interval(g["credit"].sum(), len(g))
            p = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
            block.append({"levels": group, "agent": agent, "opponent": opponent,
                          "games": len(g), "level_count": g["level"].nunique(), "wins": wins,
                          "draws": len(g) - wins - losses, "losses": losses,
                          "win_rate": g["credit"].mean(), "ci_low": low, "ci_high": high,
                          "p": p})
        differs = holm([r["p"] for r in block])
        for r, d in zip(block, differs):
            r["holm_differs"] = bool(d)
            r["verdict"] = ("not shown to differ from 50%" if not d else
                            "stronger" if r["win_rate"] > 0.5 else "weaker")
        rows += block
    return pd.DataFrame(rows)


def end_of_game(games: pd.DataFrame) -> pd.DataFrame:
    """One row per Table I row: the row agent's end-of-game means (with 95% intervals) of
    `END_STATS`, and the share of its games that ended before the round limit (the most
    rounds any game of the file lasted)."""
    limit = games["rounds"].max()
    rows = []
    for (agent, opponent), g in games.groupby(["agent", "opponent"], sort=False):
        seat = g["agent_seat"].astype(int).to_numpy()
        early = int((g["rounds"] < limit).sum())
        low, high = wilson_interval(early, len(g))
        row = {"agent": agent, "opponent": opponent, "games": len(g),
               "ended_early": early / len(g), "ended_early_low": low, "ended_early_high": high}
        for stat in END_STATS:
            values = g[f"p0_{stat}"].where(seat == 0, g[f"p1_{stat}"]).astype(float)
            mean, low, high, _ = mean_interval(values.to_numpy())
            row.update({stat: mean, f"{stat}_low": low, f"{stat}_high": high})
        rows.append(row)
    return pd.DataFrame(rows)


def end_markdown(table: pd.DataFrame) -> str:
    lines = ["**end of game** (the row agent's means over all its games, Student's t 95% "
             "intervals)", "",
             "| Agent | Opponent | Games | " + " | ".join(END_STATS.values()) +
             " | ended before the limit |", "|---|---|---|" + "---|" * (len(END_STATS) + 1)]
    for r in table.to_dict("records"):
        digits = {s: 0 if s == "score" else 2 for s in END_STATS}
        cells = [f"{r[s]:.{d}f} ({r[s + '_low']:.{d}f}-{r[s + '_high']:.{d}f})"
                 for s, d in digits.items()]
        lines.append(f"| {r['agent']} | {r['opponent']} | {r['games']} | " + " | ".join(cells)
                     + f" | {100 * r['ended_early']:.1f}% ({100 * r['ended_early_low']:.1f}"
                     f"-{100 * r['ended_early_high']:.1f}%) |")
    return "\n".join(lines + [""])


def markdown(table: pd.DataFrame) -> str:
    lines = []
    for group, part in table.groupby("levels", sort=False):
        lines += [f"**{group}** (Holm over the {len(part)} rows)", "",
                  "| Agent | Opponent | Games (levels) | W-D-L | Win rate | 95% interval | p | "
                  "Verdict |", "|---|---|---|---|---|---|---|---|"]
        for r in part.itertuples():
            lines.append(f"| {r.agent} | {r.opponent} | {r.games} ({r.level_count}) | "
                         f"{r.wins}-{r.draws}-{r.losses} | {100 * r.win_rate:.1f}% | "
                         f"{100 * r.ci_low:.1f}-{100 * r.ci_high:.1f}% | {r.p:.3g} | "
                         f"{r.verdict} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", type=Path, help="tournament games.csv file(s)")
    ap.add_argument("--out", type=Path, help="write verdicts.csv and verdicts.md here")
    args = ap.parse_args()
    games = pd.concat([pd.read_csv(p) for p in args.games], ignore_index=True)
    table, ends = verdicts(games), end_of_game(games)
    text = markdown(table) + "\n" + end_markdown(ends)
    print(text)
    if args.out:
        atomic_write(args.out / "verdicts.csv", table.to_csv(index=False))
        atomic_write(args.out / "end_of_game.csv", ends.to_csv(index=False))
        atomic_write(args.out / "verdicts.md", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
