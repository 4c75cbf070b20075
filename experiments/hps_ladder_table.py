"""The round-robin table of a difficulty tournament (experiments/hps_ladder.yaml), in the
layout of Prismata's Table 30.2: each cell the row's win rate against the column with its
Wilson 95% interval, each row's average over its opponents (AVG), Bradley-Terry ratings, and
whether a difficulty order holds (play/ladder.py's verdict).

    PYTHONPATH=. python experiments/hps_ladder_table.py experiments/results/hps_ladder \
        --order Random Easy Medium Expert "Master (MCTS)"

Reads games.csv and tournament.json of the tournament's output directory; writes there
round_robin.md, ladder_pairs.csv, ladder_matrix.csv, ladder_ratings.csv, ladder.json and
ladder.png (the win matrix).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from base.files import atomic_write
from base.stats import bradley_terry
from play.ladder import matrices, order_verdict, pair_table


def round_robin(out: Path, order: list[str], leave_out: list[str]) -> str:
    """Write the round robin's tables into `out` and return its Markdown.

    Args:
        out: a tournament's output directory (games.csv, tournament.json).
        order: the difficulty order to check, easiest first.
        leave_out: agents left out of the second average (Table 30.2 leaves Pacifist out).
    """
    games = pd.read_csv(out / "games.csv")
    labels = [a["label"] for a in json.loads((out / "tournament.json").read_text())["agents"]]
    for name in order + leave_out:
        if name not in labels:
            raise ValueError(f"order: unknown agent {name!r} (agents: {labels})")
    pairs = pair_table(games, labels)
    score, n, matrix = matrices(pairs, labels)
    ratings = bradley_terry(labels, score, n)
    idx = [labels.index(x) for x in order]
    verdict = order_verdict(order, score[np.ix_(idx, idx)], n[np.ix_(idx, idx)])
    rate = {(r.agent, r.opponent): r for r in pairs.itertuples(index=False)}  # played pairs
    kept = [x for x in labels if x not in leave_out]

    def avg(row: str, among: list[str]) -> str:
        rates = [rate[row, c].win_rate for c in among if (row, c) in rate]
        return "-" if len(rates) < len(among) - 1 else f"{100 * float(np.mean(rates)):.1f}"

    def cell(a: str, b: str) -> str:
        if a == b:
            return "-"
        r = rate.get((a, b))
        return "n/a" if r is None else \
            f"{100 * r.win_rate:.0f} ({100 * r.ci_low:.0f}-{100 * r.ci_high:.0f})"

    head = ["row vs column", *labels, "AVG", f"AVG without {', '.join(leave_out)}"] \
        if leave_out else ["row vs column", *labels, "AVG"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a in labels:
        cells = [cell(a, b) for b in labels] + [avg(a, labels)]
        if leave_out:
            cells.append("-" if a in leave_out else avg(a, kept))
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    per_pair = sorted(set(int(x) for x in n[n > 0]))
    lines += ["", f"Cells: win % of the row against the column (Wilson 95% interval), "
              f"{'/'.join(map(str, per_pair))} games per pairing.", "",
              "| agent | rating (Bradley-Terry, Elo scale) | 95% CI | games |",
              "|---|---|---|---|"]
    lines += [f"| {r['agent']} | {r['rating']:+.0f} | {r['ci_low']:+.0f} to "
              f"{r['ci_high']:+.0f} | {r['games']} |" for r in ratings.to_records()]
    lines += ["", "The rating intervals of " + " < ".join(order) + " are "
              + ("separated." if ratings.separated(order) else "not all separated."),
              "", verdict.text()]
    text = "\n".join(lines) + "\n"
    info = {"order": order, "verdict": verdict.to_dict(), "ratings": ratings.to_records(),
            "ratings_separated": ratings.separated(order)}
    for name, body in (("ladder_pairs.csv", pairs.to_csv(index=False)),
                       ("ladder_matrix.csv", matrix.to_csv(index=False)),
                       ("ladder_ratings.csv", pd.DataFrame(ratings.to_records()).to_csv(
                           index=False, float_format="%.1f")),
                       ("ladder.json", json.dumps(info, indent=2, default=float) + "\n"),
                       ("round_robin.md", text)):
        atomic_write(out / name, body)
    from plots.matrix import draw_ladder
    draw_ladder(out, title="HPS difficulty settings on Tribes: round robin")
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the tournament's output directory")
    ap.add_argument("--order", nargs="+", required=True,
                    help="the difficulty order to check, easiest first (agent labels)")
    ap.add_argument("--leave-out", nargs="*", default=["Pacifist"],
                    help="agents left out of the second average (default: Pacifist)")
    args = ap.parse_args()
    print(round_robin(args.out, args.order, args.leave_out), end="")


if __name__ == "__main__":
    main()
