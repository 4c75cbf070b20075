"""The original AI's "ally against the leader" strategy, measured: blue's final score when red
and green play the original AI with the allied strategy (against blue, as the original) and
without it (`against=none`), on the same set-ups. Printed as JSON.

Blue is played by `--blue` (default: the original AI without the alliance, i.e. a player
using the same own-score and anti-trap strategies). Red and green search with
`search=paranoid`, which plays exactly the moves of the original's minimax, faster.
Per condition: mean final cells of blue and of red + green with 95% intervals (normal
approximation, 1.96 standard errors), blue's share of first place (1 for a win, 1/k for
a first place shared by k players), and how often red and green chose each strategy; then
the paired difference of blue's cells (with the alliance minus without) over the set-ups.

    python experiments/tribolo_alliance.py [--levels 30] [--blue tribolo_ai:against=none]
        [--games-out FILE.csv]

`--games-out` writes one row per set-up and condition (blue's cells, red's and green's, blue's
share of first place, red's and green's decisions under the allied strategy), the table the
summary is computed from.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections import Counter
from pathlib import Path

import pandas as pd

from games.registry import get_game
from play.runner import play_game
from play.specs import parse_agent_spec


def interval(values: list[float]) -> dict:
    m = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return {"mean": round(m, 2), "ci95": [round(m - half, 2), round(m + half, 2)]}


def run(levels: int, blue: str, against: str, seed: int) -> dict:
    game = get_game("tribolo")
    blue_cells, ai_cells, blue_first, rows = [], [], [], []
    strategies: Counter = Counter()
    for level in range(levels):
        s = game.new_state(level, seed)
        agents = [parse_agent_spec(blue, seed=seed + 3 * level, game="tribolo")]
        agents += [parse_agent_spec(f"tribolo_ai:against={against},search=paranoid",
                                    seed=seed + 3 * level + k, game="tribolo") for k in (1, 2)]
        mine: Counter = Counter()
        play_game(s, agents, on_action=lambda a, s=s: _count(s, agents, mine))
        strategies.update(mine)
        blue_cells.append(s.score[0])
        ai_cells.append(s.score[1] + s.score[2])
        blue_first.append(s.results()[0])
        rows.append({"level": level, "red_green_against": against, "blue": blue,
                     "blue_cells": s.score[0], "red_plus_green_cells": ai_cells[-1],
                     "blue_first_place_share": blue_first[-1],
                     "red_green_decisions": sum(mine.values()),
                     "red_green_allied_decisions": sum(v for k, v in mine.items()
                                                       if str(k).startswith("ally"))})
    return {"red_green_against": against, "games": levels, "blue_cells": interval(blue_cells),
            "red_plus_green_cells": interval(ai_cells),
            "blue_first_place_share": interval(blue_first),
            "red_green_strategies": dict(strategies.most_common()), "_blue": blue_cells,
            "_rows": rows}


def _count(state, agents, strategies: Counter) -> None:
    """Before each move: the strategy of the red or green agent that just chose it."""
    p = state.current_player
    if p in (1, 2) and len(state.legal_actions()) > 1:
        strategies[agents[p].last_strategy] += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=30, help="set-up seeds 0..N-1")
    ap.add_argument("--blue", default="tribolo_ai:against=none", help="blue's agent spec")
    ap.add_argument("--seed", type=int, default=11, help="seed of the agents")
    ap.add_argument("--games-out", type=Path, default=None,
                    help="write the per-set-up table here (CSV; a new file)")
    args = ap.parse_args()
    if args.games_out is not None and args.games_out.exists():
        ap.error(f"--games-out: {args.games_out} exists; give a new file")
    conditions = [run(args.levels, args.blue, a, args.seed) for a in ("blue", "none")]
    rows = [r for c in conditions for r in c.pop("_rows")]
    if args.games_out is not None:
        pd.DataFrame(rows).to_csv(args.games_out, index=False)
    diff = [x - y for x, y in zip(conditions[0].pop("_blue"), conditions[1].pop("_blue"))]
    out = {"blue": args.blue, "conditions": conditions,
           "blue_cells_with_minus_without_alliance": interval(diff)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
