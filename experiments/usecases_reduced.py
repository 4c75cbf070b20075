"""The paper's Figure 1 and Table II at a scale that fits 2 cores, next to the paper's numbers.

Each of the three use cases (`experiments/usecase_*.yaml`, paper scale) is evolved with the
reduction below, then every elite is replayed on the run's held-out levels on fresh seeds
(`playstyles validate`), and the report's heatmaps are drawn (the Figure 1 panels). The
script writes, per use case, the run's heatmap, Table II and validation summary, and one
`summary.md` that sets elites found and the Table II rows beside the paper's.

Reduction (the paper in brackets): P-MCTS PU and the paper's MCTS at 100 forward-model
calls per decision [2000]; games of at most 25 rounds [50]; 3 training levels x 2 games per
genome [5 x 4]; 11 one-hot + 20 random genomes + 90 mutations = 121 evaluations [11 + 40 +
500 = 551]; one validation game per held-out level and elite, 22 levels [25 levels x 20
games, two elites per use case]. The grids are the paper's, except the win turn, whose range
follows the round limit (0-25, width 2.5).

Which two elites per use case stand in Table II: the paper does not say how it chose; here
the elite with the highest evolved win rate, and among the others with at least half wins
evolved the one farthest from it in the grid (ties: more wins evolved).

Runs and validations already in `--out` are reused (an interrupted run continues).

    python experiments/usecases_reduced.py [--workers 2] [--out runs/usecases_reduced]
        [--results experiments/results/usecases_reduced]
    python experiments/usecases_reduced.py --recompute experiments/results/usecases_reduced

`--recompute` rebuilds summary.md's tables from the committed per-elite tables alone
(validation.csv, validation_summary.json, config.yaml, and metrics.csv for the games played).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

USE_CASES = {
    "I": "usecase_attacks_support",
    "II": "usecase_defenders_winturn",
    "III": "usecase_research_tiles",
}

# The paper's Figure 1 counts and Table II rows: cell, win rate evolved / validated (%),
# phi1 evolved / validated, phi2 evolved / validated (500 validation games per row).
PAPER_ELITES = {"I": 30, "II": 23, "III": 14}
PAPER_TABLE_TWO = {
    "I": [("[14:4]", 60, 55.2, 12.6, 13.83, 3.65, 3.792),
          ("[6:-1]", 75, 70.2, 5.4, 9.7, -0.75, -0.726)],
    "II": [("[0:25]", 75, 75.2, 0.4, 0.8, 23.1, 22.9),
           ("[7:40]", 60, 62, 6.5, 4.6, 39.5, 21.6)],
    "III": [("[0.6:0.6]", 50, 58.1, 0.63, 0.43, 0.664, 0.44),
            ("[1.2:1.0]", 85, 74.37, 1.05, 0.7, 0.87, 0.65)],
}

MAX_ROUNDS = 25
BUDGET = 100
VALIDATION_GAMES = 22


def reduced(config: dict) -> dict:
    """The paper-scale config with the reduction of the module docstring."""
    cfg = json.loads(json.dumps(config))
    cfg["name"] = cfg["name"] + "_reduced"
    cfg["options"] = {**cfg.get("options", {}), "max_rounds": MAX_ROUNDS}
    cfg["agent"] = {**cfg["agent"], "budget": BUDGET}
    cfg["levels"] = {**cfg["levels"], "train": 3}
    cfg["repetitions"] = 2
    cfg["emitter"] = {**cfg["emitter"], "initial_random": 20}
    cfg["evaluations"] = 121
    for f in cfg["features"]:
        if f["name"] == "win_turn":
            f["range"], f["width"] = [0, MAX_ROUNDS], 2.5
    return cfg


def run_use_case(key: str, out: Path, workers: int | None) -> Path:
    from plots.report import write_report
    from qd.features import feature_texts
    from qd.run import evolve
    from qd.validation import validate
    base = yaml.safe_load((ROOT / "experiments" / f"{USE_CASES[key]}.yaml").read_text())
    cfg = reduced(base)
    run_dir = out / cfg["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    path = out / f"{cfg['name']}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    from playstyles.cli import Bars
    bars = Bars()
    result = evolve(path, out=run_dir, resume=(run_dir / "checkpoint.jsonl").exists(),
                    workers=workers, progress=bars, on_batch=bars.evolution)
    summary_file = run_dir / "validation_summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    if summary.get("games_per_elite") != VALIDATION_GAMES or \
            summary.get("elites") != result.stats.get("cells"):
        validate(run_dir, games=VALIDATION_GAMES, workers=workers, progress=bars)
    bars.close()
    write_report(run_dir, title=f"Use case {key} (reduced scale)",
                 features=feature_texts(cfg.get("game", "tribes")))
    return run_dir


def pick_two(v: pd.DataFrame) -> pd.DataFrame:
    """The elite with the highest evolved win rate, and the farthest other one with at least
    half wins evolved (module docstring)."""
    v = v.copy()
    ij = v["grid_index"].str.split(",", expand=True).astype(int)
    v["_i"], v["_j"] = ij[0], ij[1]
    v["_wins"] = v["win_rate_evolved"] * v["games_evolved"]
    best = v.sort_values(["win_rate_evolved", "_wins"], ascending=False).iloc[0]
    rest = v[(v.index != best.name) & (v["win_rate_evolved"] >= 0.5)].copy()
    if rest.empty:
        rest = v[v.index != best.name].copy()
    if rest.empty:
        return v.loc[[best.name]]
    rest["_d"] = abs(rest["_i"] - best["_i"]) + abs(rest["_j"] - best["_j"])
    other = rest.sort_values(["_d", "_wins"], ascending=False).iloc[0]
    return v.loc[[best.name, other.name]]


def summarise(key: str, run_dir: Path, results: Path | None) -> tuple[list[str], list[str],
                                                                     dict]:
    """One use case's Figure 1 row, Table II rows and summary data, from its run directory
    (or from its committed copy: the evolution's games are then counted from metrics.csv);
    with `results`, the run's tables and panels are copied there."""
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    f1, f2 = (f["name"] for f in cfg["features"])
    v = pd.read_csv(run_dir / "validation.csv")
    s = json.loads((run_dir / "validation_summary.json").read_text())
    gap = (v["win_rate_evolved"] - v["win_rate_validated"]).abs()
    games = len(pd.read_csv(run_dir / "games.csv")) if (run_dir / "games.csv").exists() else \
        int(pd.read_csv(run_dir / "metrics.csv")["games"].iloc[-1])
    fig_row = [key, f"{f1} x {f2}", str(PAPER_ELITES[key]), str(len(v)),
               str(games), f"{100 * v['win_rate_evolved'].mean():.1f}%",
               f"{100 * v['win_rate_validated'].mean():.1f}%",
               f"{100 * gap.mean():.1f}", f"{100 * s['same_cell_share']:.0f}%",
               f"{s['corrected']['qd_score_evolved']:.2f} / {s['corrected']['qd_score']:.2f}"]
    rows = []
    for p in PAPER_TABLE_TWO[key]:
        rows.append(f"| {key} | paper {p[0]} | {p[1]}% / {p[2]}% (500) | "
                    f"{p[3]} / {p[4]} | {p[5]} / {p[6]} |")
    for _, r in pick_two(v).iterrows():
        rows.append(
            f"| {key} | ours [{r['cell']}] | {100 * r['win_rate_evolved']:.0f}% "
            f"({int(r['games_evolved'])}) / {100 * r['win_rate_validated']:.1f}% "
            f"({int(r['games_validated'])}; {100 * r['win_rate_ci_low']:.1f}-"
            f"{100 * r['win_rate_ci_high']:.1f}%) | "
            f"{r[f'{f1}_evolved']:.3g} / {r[f'{f1}_validated']:.3g} | "
            f"{r[f'{f2}_evolved']:.3g} / {r[f'{f2}_validated']:.3g} |")
    if results is not None:
        dest = results / f"use_case_{key}"
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("config.yaml", "elites.csv", "validation.csv", "validation.md",
                     "validation_summary.json", "heatmap_win_rate.png",
                     "heatmap_win_rate_validated.png", "validation.png", "metrics.csv"):
            if (run_dir / name).exists():
                shutil.copy(run_dir / name, dest / name)
    return fig_row, rows, {"use_case": key, "elites": len(v), "games": games,
                           "mean_abs_gap": float(gap.mean()), **s}


def summary_text(parts: list[tuple[list[str], list[str], dict]]) -> str:
    """summary.md's tables (Figure 1, Table II) from the use cases' `summarise` parts."""
    fig = ["| " + " | ".join(a) + " |" for a, _, _ in parts]
    table = [row for _, b, _ in parts for row in b]
    head = ["use case", "features", "elites (paper)", "elites (here)", "games",
            "win rate evolved (mean over elites)", "held-out", "mean abs gap (points)",
            "same cell held-out", "QD score evolved / corrected"]
    return ("## Figure 1: elites found\n\n| " + " | ".join(head) + " |\n|"
            + "---|" * len(head) + "\n" + "\n".join(fig) + "\n\n"
            "## Table II: two elites per use case, evolved / validated on held-out levels\n\n"
            "Win rate: evolved (games) / validated (games; Wilson 95% interval). "
            "Features: evolved / validated means.\n\n"
            "| use case | cell | win rate | phi1 | phi2 |\n|---|---|---|---|---|\n"
            + "\n".join(table) + "\n")


def recompute(results: Path) -> tuple[str, list[str]]:
    """summary.md's tables rebuilt from the committed use-case folders under `results`
    alone: (the text, the lines of the committed summary.md that it does not reproduce)."""
    parts = [summarise(k, results / f"use_case_{k}", None) for k in USE_CASES
             if (results / f"use_case_{k}").is_dir()]
    text = summary_text(parts)
    committed = (results / "summary.md").read_text().split("\n", 2)[-1]
    return text, [line for line in text.splitlines() if line not in committed.splitlines()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--use-cases", nargs="+", default=list(USE_CASES), choices=list(USE_CASES))
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", default="runs/usecases_reduced")
    p.add_argument("--results", default=None, help="write summary.md and the panels here")
    p.add_argument("--recompute", metavar="DIR", default=None,
                   help="rebuild DIR/summary.md's tables from the committed use-case folders "
                        "alone and check them (exit 1 on a difference)")
    args = p.parse_args(argv)
    if args.recompute:
        text, missing = recompute(Path(args.recompute))
        print(text, end="")
        for line in missing:
            print(f"not in the committed summary.md: {line}", file=sys.stderr)
        return 1 if missing else 0
    out = Path(args.out)
    runs = {k: run_use_case(k, out, args.workers) for k in args.use_cases}
    results = Path(args.results) if args.results else out / "results"
    parts = [summarise(k, d, results) for k, d in runs.items()]
    data = [c for _, _, c in parts]
    text = summary_text(parts)
    print(text, end="")
    results.mkdir(parents=True, exist_ok=True)
    cmd = "python experiments/usecases_reduced.py " + " ".join(argv or sys.argv[1:])
    (results / "summary.md").write_text(f"`{cmd}`\n\n{text}")
    (results / "summary.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
