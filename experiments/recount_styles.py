"""Recompute the distinct-styles counts of committed validations from their per-game tables.

For each results folder (a copy of a run directory's config.yaml, validation_games.csv and
validation_summary.json), the counts are computed again from validation_games.csv alone: the
per-game wins (scores in a one-player game) and mapped-feature values of every elite and of
the control (`qd.styles`), and compared with what validation_summary.json says.

    python experiments/recount_styles.py experiments/results/quickstart experiments/results/styles/*

Prints one line per folder and exits with status 1 if any count differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qd.styles import Sample, distinct_styles  # noqa: E402

CONTROL = "control"


def recount(folder: Path) -> dict:
    config = yaml.safe_load((folder / "config.yaml").read_text())
    features = [f["name"] if isinstance(f, dict) else f for f in config["features"]]
    games = pd.read_csv(folder / "validation_games.csv")
    summary = json.loads((folder / "validation_summary.json").read_text())
    if summary.get("distinct_styles") is None:  # validated before styles were counted
        return {"folder": str(folder), "summary_says": (None, None)}

    quality = (summary.get("styles") or {}).get("quality", "win_rate")
    column = "elite_score" if quality == "score" else "elite_won"  # a one-player game: scores

    def sample(cell: str) -> Sample:
        g = games[games["cell"].astype(str) == cell]
        return Sample(cell, g[column].tolist(), {f: g[f].tolist() for f in features})

    cells = [c for c in games["cell"].astype(str).drop_duplicates() if c != CONTROL]
    control = sample(CONTROL) if (games["cell"] == CONTROL).any() else None
    found = distinct_styles([sample(c) for c in cells], features, control=control,
                            quality=quality)
    return {"folder": str(folder), "elites": len(cells),
            "games_per_elite": int(games[games["cell"] != CONTROL].groupby("cell").size().min()),
            "held_out_levels": int(games["level"].nunique()),
            "distinct_styles": found.count,
            "distinct_styles_not_weaker": len(found.not_weaker) if control else None,
            "summary_says": (summary.get("distinct_styles"),
                             summary.get("distinct_styles_not_weaker"))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+", type=Path)
    args = p.parse_args(argv)
    bad = 0
    for folder in args.folders:
        r = recount(folder)
        if r["summary_says"][0] is None:
            print(f"{r['folder']}: validated before styles were counted")
            continue
        same = r["summary_says"] == (r["distinct_styles"], r["distinct_styles_not_weaker"])
        bad += not same
        print(f"{r['folder']}: {r['distinct_styles']} distinct styles, "
              f"{r['distinct_styles_not_weaker']} not weaker than the control, of {r['elites']} "
              f"elites, {r['games_per_elite']} games each on {r['held_out_levels']} levels "
              f"({'as' if same else 'NOT as'} validation_summary.json says)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
