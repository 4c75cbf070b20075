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

Every run validates the control genome (the default weights) beside its elites on the same
held-out levels and seats (`validate`'s default); its win rate is in the row.

`--split-seed N` replaces the config's `levels.split_seed` (which levels train and which are
held out); the run names (`split<N>-<method>-seed<S>`) and the rows carry the split.

Runs and validations already in `--out` are reused (an interrupted benchmark continues where
it stopped). Prints a Markdown table. With `--results DIR`, writes the split's rows to
`DIR/split<N>/results.md` and `results.json` (rows of earlier invocations on the same split
are kept, a rerun replaces its own) and each run's per-elite tables beside them, in
`DIR/split<N>/<method>-seed<S>/`: `elites.csv` (the archive as evolved), `validation.csv` (each
elite's evolved and held-out win rates and features), `closing.csv` (a re-estimated run's
closing batch, wins and games per elite, level and seat) and `summary.json` (the run's totals,
the corrected archive and the control's validation).

`--recompute DIR` rebuilds every row of `DIR/split*/results.json` from those committed tables
alone (the gaps with their bootstrap intervals, the noise floor, the win rates, the
chi-square test), checks that it equals the committed row and prints the rows of all splits
side by side, then each run's styles (distinct, differing from the control, weaker than it;
from `validation.csv`); it fails (exit 1) on any difference.

    python experiments/bench_noise.py [--config experiments/noise.yaml] [--games 1500]
        [--seeds 1 2] [--validation-games 12] [--workers 2] [--out runs/noise]
        [--split-seed N] [--results experiments/results/noise]
    python experiments/bench_noise.py --recompute experiments/results/noise_wide
"""

from __future__ import annotations

import argparse
import json
import shutil
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


def closing_batch(games: pd.DataFrame) -> pd.DataFrame:
    """A run's closing batch (its last batch, when all of it is replays) as wins and games per
    elite (`evaluation`), level and seat; empty for a run without one.

    Args:
        games: the run's games.csv.
    """
    cols = ["evaluation", "level", "genome_seat"]
    closing = games[games["batch"] == games["batch"].max()]
    if closing.empty or not (closing["replay"] > 0).all():
        return pd.DataFrame(columns=[*cols, "wins", "games"])
    agg = closing.groupby(cols)["genome_won"].agg(["sum", "count"]).reset_index()
    return agg.rename(columns={"sum": "wins", "count": "games"})


def homogeneity(closing: pd.DataFrame) -> dict | None:
    """Chi-square test of homogeneity of the elites' wins within each (level, seat) of a
    closing batch (`closing_batch`), summed over the pairs: {"chi2", "df", "p"}, or None when
    there is no closing batch."""
    if closing.empty:
        return None
    stat, df = 0.0, 0
    for _, pair in closing.groupby(["level", "genome_seat"]):
        pair = pair.sort_values("evaluation")
        w, n = pair["wins"].to_numpy(float), pair["games"].to_numpy(float)
        if len(pair) > 1 and 0 < w.sum() < n.sum():
            s, _, d, _ = chi2_contingency(np.column_stack([w, n - w]), correction=False)
            stat, df = stat + float(s), df + int(d)
    return {"chi2": stat, "df": df, "p": float(chi2.sf(stat, df)) if df else float("nan")}


def fresh_homogeneity(games: pd.DataFrame) -> dict | None:
    """`homogeneity` of a run's games.csv."""
    return homogeneity(closing_batch(games))


def elite_metrics(v: pd.DataFrame, method: str, seed: int) -> dict:
    """The row's numbers that come from the per-elite table alone (validation.csv): the mean
    absolute gap and the gap of the means with bootstrap intervals over elites, the noise
    floor, the mean win rates and the evolved games per elite."""
    diff = (v["win_rate_evolved"] - v["win_rate_validated"]).to_numpy()
    gap = np.abs(diff)
    low, high = bootstrap_mean(gap, seed=seed)
    noise = analyse(method, v[v["games_validated"] > 0], 2000, seed)
    return {"mean_abs_gap": float(gap.mean()), "gap_ci": [low, high],
            "noise_floor": noise["floor"], "noise_floor_range": list(noise["floor_range"]),
            "gap_of_means": float(diff.mean()), "gap_of_means_ci": list(bootstrap_mean(diff, seed)),
            "win_rate_evolved": float(v["win_rate_evolved"].mean()),
            "win_rate_held_out": float(v["win_rate_validated"].mean()),
            "games_per_elite_evolved": float(v["games_evolved"].mean())}


def run_name(method: str, seed: int, split: int | None) -> str:
    return f"{method}-seed{seed}" if split is None else f"split{split}-{method}-seed{seed}"


def run_one(base: dict, method: str, seed: int, games: int, out: Path, workers: int | None,
            validation_games: int, replays: int = 2, split: int | None = None,
            tables: Path | None = None) -> dict:
    """Evolves and validates one run; with `tables`, copies its per-elite tables there."""
    from qd.run import evolve
    from qd.validation import validate
    noise = dict(METHODS[method])
    if method == "reestimate":
        noise["replays"] = replays
    base = {**base, "levels": {**base.get("levels", {})}}
    if split is not None:
        base["levels"]["split_seed"] = split
    cfg = {**base, "name": run_name(method, seed, split), "seed": seed, "max_games": games,
           "evaluations": 10 ** 6, "noise": noise}
    run_dir = out / cfg["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    path = out / f"{cfg['name']}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    resume = (run_dir / "config.yaml").exists()
    from playstyles.cli import Bars
    bars = Bars()
    result = evolve(path, out=run_dir, resume=resume, workers=workers, progress=bars,
                    on_batch=bars.evolution)
    summary_file = run_dir / "validation_summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    if summary.get("games_per_elite") != validation_games or \
            summary.get("elites") != result.stats.get("cells") or summary.get("control") is None:
        summary = validate(run_dir, games=validation_games, workers=workers,
                           progress=bars).summary
    bars.close()
    v = pd.read_csv(run_dir / "validation.csv")
    closing = closing_batch(pd.read_csv(run_dir / "games.csv"))
    c = summary["corrected"]
    control = summary.get("control") or {}
    row = {"split": base["levels"].get("split_seed"), "method": method, "seed": seed,
           "games": result.games, "evaluations": result.evaluations,
           "elites": int(c["cells_evolved"]),
           "qd_score_evolved": c["qd_score_evolved"], "cells_corrected": c["cells"],
           "qd_score_corrected": c["qd_score"], **elite_metrics(v, method, seed),
           "same_cell_share": summary["same_cell_share"],
           "fresh_homogeneity": homogeneity(closing),
           "validation_games_per_elite": validation_games,
           "control_win_rate": control.get("win_rate"),
           "control_win_rate_ci": control.get("win_rate_ci")}
    if tables is not None:
        dest = tables / f"{method}-seed{seed}"
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("elites.csv", "validation.csv"):
            shutil.copyfile(run_dir / name, dest / name)
        closing.to_csv(dest / "closing.csv", index=False)
        keep = {k: row[k] for k in ("split", "method", "seed", "games", "evaluations",
                                     "elites", "qd_score_evolved", "cells_corrected",
                                     "qd_score_corrected", "same_cell_share",
                                     "validation_games_per_elite")}
        (dest / "summary.json").write_text(json.dumps(
            {**keep, "levels": summary.get("levels"), "control": summary.get("control")},
            indent=2) + "\n")
    return row


def recompute_row(folder: Path, row: dict) -> dict:
    """A results row rebuilt from a run's committed tables (`folder`: its
    `<method>-seed<S>/`): the per-elite numbers from validation.csv and closing.csv, the
    rest from summary.json."""
    summary = json.loads((folder / "summary.json").read_text())
    v = pd.read_csv(folder / "validation.csv")
    closing = pd.read_csv(folder / "closing.csv")
    control = summary.get("control") or {}
    out = {k: summary[k] for k in ("split", "method", "seed", "games", "evaluations", "elites",
                                   "qd_score_evolved", "cells_corrected", "qd_score_corrected",
                                   "same_cell_share", "validation_games_per_elite")}
    if len(v) != out["elites"]:
        raise ValueError(f"{folder}: {len(v)} elites in validation.csv, {out['elites']} in "
                         "summary.json")
    out.update(elite_metrics(v, row["method"], row["seed"]))
    out["fresh_homogeneity"] = homogeneity(closing)
    out["control_win_rate"] = control.get("win_rate")
    out["control_win_rate_ci"] = control.get("win_rate_ci")
    return out


def differences(a, b, path: str = "", tol: float = 1e-9) -> list[str]:
    """Where two results rows (or their parts) differ: key paths, empty if they agree."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in differences(a.get(k), b.get(k), f"{path}.{k}".lstrip("."), tol)]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [path]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]",
                                                                              tol)]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        if np.isnan(a) and np.isnan(b):
            return []
        return [] if abs(a - b) <= tol * max(1.0, abs(a), abs(b)) else [path]
    return [] if a == b else [path]


def recompute(results: Path) -> tuple[list[dict], list[str]]:
    """Every row of `results/split*/results.json` rebuilt from the committed tables beside it:
    (rows rebuilt, differences from the committed rows as "split<N>/<run>: key")."""
    rows, problems = [], []
    for rfile in sorted(results.glob("split*/results.json")):
        for row in json.loads(rfile.read_text()):
            folder = rfile.parent / f"{row['method']}-seed{row['seed']}"
            again = recompute_row(folder, row)
            rows.append(again)
            problems += [f"{rfile.parent.name}/{folder.name}: {d}"
                         for d in differences(again, row)]
    return rows, problems


def split_table(rows: list[dict]) -> str:
    """The headline numbers of every split and run, one line each."""
    head = ["split", "method", "seed", "elites (games each)", "win rate evolved / held-out",
            "mean abs gap (95% CI)", "noise floor (95% range)", "gap of the means (95% CI)",
            "control held-out win rate (95% CI)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in sorted(rows, key=lambda r: (r["split"], r["method"] != "reestimate", r["seed"])):
        lo, hi = r["gap_ci"]
        ctl = "n/a" if r.get("control_win_rate") is None else (
            f"{100 * r['control_win_rate']:.1f}% ({100 * r['control_win_rate_ci'][0]:.1f}-"
            f"{100 * r['control_win_rate_ci'][1]:.1f})")
        lines.append("| " + " | ".join([
            str(r["split"]), r["method"], str(r["seed"]),
            f"{r['elites']} ({r['games_per_elite_evolved']:.1f})",
            f"{100 * r['win_rate_evolved']:.1f}% / {100 * r['win_rate_held_out']:.1f}%",
            f"{100 * r['mean_abs_gap']:.1f} ({100 * lo:.1f}-{100 * hi:.1f})", _floor(r),
            _points(r.get("gap_of_means"), r.get("gap_of_means_ci")), ctl]) + " |")
    return "\n".join(lines) + "\n"


def styles_table(results: Path) -> str:
    """Per run, from its committed validation.csv: the elites, the distinct styles among them,
    how many differ from the control (the default weights, validated beside them) and how many
    are weaker than it, and the range of the elites' held-out win rates; then the totals."""
    head = ["split", "run", "elites", "distinct styles", "differ from control",
            "weaker than control", "held-out win rates"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    runs = sorted(results.glob("split*/*-seed*/validation.csv"))
    frames = []
    for path in runs:
        v = pd.read_csv(path)
        frames.append(v)
        lines.append("| " + " | ".join([
            path.parent.parent.name.removeprefix("split"), path.parent.name, str(len(v)),
            str(int(v["distinct"].sum())), str(int(v["differs_from_control"].sum())),
            str(int(v["weaker_than_control"].sum())),
            f"{100 * v['win_rate_validated'].min():.1f}-"
            f"{100 * v['win_rate_validated'].max():.1f}%"]) + " |")
    if frames:
        every = pd.concat(frames)
        lines.append(f"\n{len(runs)} runs, {len(every)} elites, "
                     f"{int(every['distinct'].sum())} distinct styles, "
                     f"{int(every['differs_from_control'].sum())} differ from the control, "
                     f"{int(every['weaker_than_control'].sum())} weaker than it; held-out win "
                     f"rates {100 * every['win_rate_validated'].min():.1f}-"
                     f"{100 * every['win_rate_validated'].max():.1f}%.")
    return "\n".join(lines) + "\n"


def markdown(rows: list[dict]) -> str:
    head = ["split", "method", "seed", "games", "genomes", "elites (games each, mean)",
            "QD score evolved / corrected", "cells corrected", "win rate evolved / held-out",
            "mean abs gap (95% CI)", "noise floor (95% range)", "gap of the means (95% CI)",
            "same cell", "elites alike? (chi-square / df, p)", "control held-out win rate"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lo, hi = r["gap_ci"]
        ctl = r.get("control_win_rate")
        lines.append("| " + " | ".join([
            str(r.get("split", "n/a")), r["method"], str(r["seed"]), str(r["games"]),
            str(r["evaluations"]),
            f"{r['elites']} ({r['games_per_elite_evolved']:.1f})",
            f"{r['qd_score_evolved']:.2f} / {r['qd_score_corrected']:.2f}",
            str(r["cells_corrected"]),
            f"{100 * r['win_rate_evolved']:.1f}% / {100 * r['win_rate_held_out']:.1f}%",
            f"{100 * r['mean_abs_gap']:.1f} ({100 * lo:.1f}-{100 * hi:.1f})",
            _floor(r),
            _points(r.get("gap_of_means"), r.get("gap_of_means_ci")),
            f"{100 * r['same_cell_share']:.0f}%", _alike(r.get("fresh_homogeneity")),
            "n/a" if ctl is None else f"{100 * ctl:.1f}%"]) + " |")
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


def write_results(tables: Path, rows: list[dict], cmd: str) -> None:
    """Writes a split's results.md and results.json in `tables` (DIR/split<N>), keeping the
    rows of other runs already there (a rerun replaces its own) and `cmd` in commands.txt."""
    tables.mkdir(parents=True, exist_ok=True)
    jfile = tables / "results.json"
    new = {(r["method"], r["seed"]) for r in rows}
    old = [r for r in (json.loads(jfile.read_text()) if jfile.exists() else [])
           if (r["method"], r["seed"]) not in new]
    cmds = tables / "commands.txt"
    lines = cmds.read_text().splitlines() if cmds.exists() else []
    cmds.write_text("\n".join([*[c for c in lines if c != cmd], cmd]) + "\n")
    (tables / "results.md").write_text(
        "\n\n".join(f"`{c}`" for c in cmds.read_text().splitlines()) + "\n\n"
        + markdown(old + rows))
    jfile.write_text(json.dumps(old + rows, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=str(ROOT / "experiments" / "noise.yaml"))
    p.add_argument("--games", type=int, default=1500, help="games per run (replays included)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1])
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    p.add_argument("--validation-games", type=int, default=12, help="held-out games per elite")
    p.add_argument("--replays", type=int, default=2,
                   help="reestimate: closing replays per elite (each the genome's games again)")
    p.add_argument("--split-seed", type=int, default=None,
                   help="levels.split_seed for every run (default: the config's)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", default="runs/noise")
    p.add_argument("--results", default=None,
                   help="write results.md / results.json and the per-elite tables under "
                        "DIR/split<N>/")
    p.add_argument("--recompute", metavar="DIR", default=None,
                   help="rebuild DIR/split*/results.json from the committed tables, check")
    args = p.parse_args(argv)
    if args.recompute:
        rows, problems = recompute(Path(args.recompute))
        print(split_table(rows), end="")
        print("\n" + styles_table(Path(args.recompute)), end="")
        for d in problems:
            print(f"differs: {d}", file=sys.stderr)
        if not rows:
            print(f"no split*/results.json under {args.recompute}", file=sys.stderr)
        return 1 if problems or not rows else 0
    base = yaml.safe_load(Path(args.config).read_text())
    split = args.split_seed if args.split_seed is not None else \
        base.get("levels", {}).get("split_seed", 0)
    out = Path(args.out)
    tables = Path(args.results) / f"split{split}" if args.results else None
    cmd = "python experiments/bench_noise.py " + " ".join(argv or sys.argv[1:])
    rows = []
    for s in args.seeds:
        for m in args.methods:
            rows.append(run_one(base, m, s, args.games, out, args.workers,
                                args.validation_games, args.replays, args.split_seed, tables))
            if tables is not None:  # after every run: an interrupted benchmark keeps its rows
                write_results(tables, rows, cmd)
    print(markdown(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
