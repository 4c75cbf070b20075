"""Plain MAP-Elites against the noise-aware methods at equal total games.

For each method (`noise.method`: none, reevaluate, adaptive, reestimate) and run seed,
evolves the base config with `max_games` (so every run plays the same number of games,
replays included), then replays every elite on the run's held-out levels (`playstyles
validate`, fresh seeds) and reports what the archive is worth:

* elites and QD score as evolved, and corrected (each elite at its replayed cell and win rate);
* the mean absolute gap between evolved and held-out win rate over the elites, with a 95%
  bootstrap interval over elites (the target: at most 5 points);
* the gap of the means (mean evolved minus mean held-out win rate over the elites, the
  archive's optimism as a user sees it), with the same kind of interval;
* the mean held-out win rate and the share of elites whose held-out features stay in their cell;
* the noise floor: the mean absolute gap an archive without any bias would still show with the
  same games per elite on both sides (`gap_floor.analyse`: each elite's games redrawn as
  binomials at its pooled rate; 95% range over 2,000 simulated archives). A gap at the floor
  is sampling noise; only more games per elite lower it;
* for a re-estimated run, whether its elites' fresh games show them to differ at all: a
  chi-square test of homogeneity of the elites' wins within each (level, seat) of the closing
  batch, summed over the (level, seat) pairs (a high p: no difference between the elites
  is detected).

`reestimate` is plain MAP-Elites whose closing batch replays every elite on its training
levels on fresh seeds (`noise: {method: reestimate}`); `max_games` keeps those games inside
the run's total.

Runs and validations already in `--out` are reused (an interrupted benchmark continues where
it stopped). Prints a Markdown table and writes it, with the JSON, to `--results`.

    python experiments/bench_noise.py [--config experiments/noise.yaml] [--games 1500]
        [--seeds 1 2] [--validation-games 12] [--workers 2] [--out runs/noise]
        [--results experiments/results/noise]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from gap_floor import analyse
from scipy.stats import chi2, chi2_contingency

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METHODS = {"none": {"method": "none"},
           "reevaluate": {"method": "reevaluate", "per_batch": 4},
           "adaptive": {"method": "adaptive", "max_rounds": 4},
           "reestimate": {"method": "reestimate", "replays": 2}}


def bootstrap_mean(x: np.ndarray, seed: int = 0, reps: int = 2000) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = rng.choice(x, size=(reps, len(x)), replace=True).mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def fresh_homogeneity(games: pd.DataFrame) -> dict | None:
    """Chi-square test of homogeneity of the elites' wins within each (level, seat) of a
    run's closing batch (its last batch, when all of it is replays), summed over the pairs:
    {"chi2", "df", "p"}, or None for a run without a closing batch.

    Args:
        games: the run's games.csv.
    """
    closing = games[games["batch"] == games["batch"].max()]
    if closing.empty or not (closing["replay"] > 0).all():
        return None
    stat, df = 0.0, 0
    for _, pair in closing.groupby(["level", "genome_seat"]):
        per = pair.groupby("evaluation")["genome_won"].agg(["sum", "count"])
        w, n = per["sum"].to_numpy(float), per["count"].to_numpy(float)
        if len(per) > 1 and 0 < w.sum() < n.sum():
            s, _, d, _ = chi2_contingency(np.column_stack([w, n - w]), correction=False)
            stat, df = stat + float(s), df + int(d)
    return {"chi2": stat, "df": df, "p": float(chi2.sf(stat, df)) if df else float("nan")}


def run_one(base: dict, method: str, seed: int, games: int, out: Path, workers: int | None,
            validation_games: int, replays: int = 2) -> dict:
    from qd.run import evolve
    from qd.validation import validate
    noise = dict(METHODS[method])
    if method == "reestimate":
        noise["replays"] = replays
    cfg = {**base, "name": f"{method}-seed{seed}", "seed": seed, "max_games": games,
           "evaluations": 10 ** 6, "noise": noise}
    run_dir = out / cfg["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    path = out / f"{cfg['name']}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    resume = (run_dir / "config.yaml").exists()
    result = evolve(path, out=run_dir, resume=resume, workers=workers, show_progress=True)
    summary_file = run_dir / "validation_summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    if summary.get("games_per_elite") != validation_games or \
            summary.get("elites") != result.stats.get("cells"):
        summary = validate(run_dir, games=validation_games, workers=workers,
                           show_progress=True).summary
    v = pd.read_csv(run_dir / "validation.csv")
    diff = (v["win_rate_evolved"] - v["win_rate_validated"]).to_numpy()
    gap = np.abs(diff)
    low, high = bootstrap_mean(gap, seed=seed)
    noise = analyse(method, v[v["games_validated"] > 0], 2000, seed)
    c = summary["corrected"]
    return {"method": method, "seed": seed, "games": result.games,
            "evaluations": result.evaluations, "elites": int(c["cells_evolved"]),
            "qd_score_evolved": c["qd_score_evolved"], "cells_corrected": c["cells"],
            "qd_score_corrected": c["qd_score"],
            "mean_abs_gap": float(gap.mean()), "gap_ci": [low, high],
            "noise_floor": noise["floor"], "noise_floor_range": list(noise["floor_range"]),
            "gap_of_means": float(diff.mean()), "gap_of_means_ci": list(bootstrap_mean(diff, seed)),
            "win_rate_evolved": float(v["win_rate_evolved"].mean()),
            "win_rate_held_out": float(v["win_rate_validated"].mean()),
            "same_cell_share": summary["same_cell_share"],
            "fresh_homogeneity": fresh_homogeneity(pd.read_csv(run_dir / "games.csv")),
            "validation_games_per_elite": validation_games,
            "games_per_elite_evolved": float(v["games_evolved"].mean())}


def markdown(rows: list[dict]) -> str:
    head = ["method", "seed", "games", "genomes", "elites (games each, mean)",
            "QD score evolved / corrected", "cells corrected", "win rate evolved / held-out",
            "mean abs gap (95% CI)", "noise floor (95% range)", "gap of the means (95% CI)",
            "same cell", "elites alike? (chi-square / df, p)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lo, hi = r["gap_ci"]
        lines.append("| " + " | ".join([
            r["method"], str(r["seed"]), str(r["games"]), str(r["evaluations"]),
            f"{r['elites']} ({r['games_per_elite_evolved']:.1f})",
            f"{r['qd_score_evolved']:.2f} / {r['qd_score_corrected']:.2f}",
            str(r["cells_corrected"]),
            f"{100 * r['win_rate_evolved']:.1f}% / {100 * r['win_rate_held_out']:.1f}%",
            f"{100 * r['mean_abs_gap']:.1f} ({100 * lo:.1f}-{100 * hi:.1f})",
            _floor(r),
            _points(r.get("gap_of_means"), r.get("gap_of_means_ci")),
            f"{100 * r['same_cell_share']:.0f}%", _alike(r.get("fresh_homogeneity"))]) + " |")
    return "\n".join(lines) + "\n"


def _alike(h: dict | None) -> str:
    if not h:  # no closing batch (or a row written before the column existed)
        return "n/a"
    return f"{h['chi2']:.1f} / {h['df']}, p {h['p']:.2f}"


def _floor(r: dict) -> str:
    if r.get("noise_floor") is None:  # rows written before the column existed
        return "n/a"
    lo, hi = r["noise_floor_range"]
    return f"{100 * r['noise_floor']:.1f} ({100 * lo:.1f}-{100 * hi:.1f})"


def _points(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "n/a"
    lo, hi = ci
    return f"{100 * value:.1f} ({100 * lo:.1f} to {100 * hi:.1f})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=str(ROOT / "experiments" / "noise.yaml"))
    p.add_argument("--games", type=int, default=1500, help="games per run (replays included)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1])
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--validation-games", type=int, default=12, help="held-out games per elite")
    p.add_argument("--replays", type=int, default=2,
                   help="reestimate: closing replays per elite (each the genome's games again)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", default="runs/noise")
    p.add_argument("--results", default=None, help="also write results.md / results.json here")
    args = p.parse_args(argv)
    base = yaml.safe_load(Path(args.config).read_text())
    out = Path(args.out)
    rows = [run_one(base, m, s, args.games, out, args.workers, args.validation_games,
                    args.replays) for s in args.seeds for m in args.methods]
    text = markdown(rows)
    print(text, end="")
    if args.results:
        res = Path(args.results)
        res.mkdir(parents=True, exist_ok=True)
        cmd = "python experiments/bench_noise.py " + " ".join(argv or sys.argv[1:])
        (res / "results.md").write_text(f"`{cmd}`\n\n{text}")
        (res / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
