"""How much of the gap between evolved and held-out win rates can any archive remove?

The gap target (mean absolute difference between an elite's evolved and its held-out
validated win rate) mixes three things:

* sampling noise: even an elite whose true win rate is the same on both sides shows a
  difference, because each side is a handful of games. Its expected size is the *noise
  floor*, computed here by simulation: each elite's evolved and validated games are redrawn
  as binomials with one true rate (its pooled rate over both sides) and the same numbers of
  games, and the mean absolute difference over the elites is taken; 95% range over
  `--draws` simulated archives.
* selection bias: an elite is the best of many noisy estimates, so its evolved rate is
  optimistic (the signed mean gap, evolved minus held-out, measures it together with the
  next item).
* level shift: held-out levels are not the training levels.

Only the last two are bias a noise-aware archive can address; the floor shrinks only with
more games per elite on both sides. The script reads validation tables already committed
(`validation.csv` of runs validated with `playstyles validate`) and prints, per table: the
elites, their games, the mean absolute gap and the signed mean gap with bootstrap 95%
intervals over elites, the noise floor, and the games per side at which the floor falls to
`--target` points (at a true rate of 45%).

    python experiments/gap_floor.py experiments/results/usecases_reduced/use_case_*/validation.csv \\
        --out experiments/results/gap_floor
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from base.files import atomic_write
from qd.validation import reestimated  # noqa: E402


def floor(n_evolved: np.ndarray, n_validated: np.ndarray, rate: np.ndarray, draws: int,
          rng: np.random.Generator) -> np.ndarray:
    """Mean absolute evolved-minus-validated difference of `draws` simulated archives in
    which every elite has one true `rate` on both sides."""
    x = rng.binomial(n_evolved, rate, size=(draws, len(rate))) / n_evolved
    y = rng.binomial(n_validated, rate, size=(draws, len(rate))) / n_validated
    return np.abs(x - y).mean(axis=1)


def games_for(target: float, rate: float, draws: int, rng: np.random.Generator) -> int:
    """Games per side (the same on both) at which one elite's expected absolute difference
    falls to `target`."""
    for n in range(2, 5000):
        x = rng.binomial(n, rate, size=draws) / n
        y = rng.binomial(n, rate, size=draws) / n
        if np.abs(x - y).mean() <= target:
            return n
    raise ValueError(f"target: {target} not reached with 5000 games per side")


def bootstrap(values: np.ndarray, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    idx = rng.integers(0, len(values), size=(draws, len(values)))
    means = values[idx].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def read_table(path: Path) -> pd.DataFrame:
    v = pd.read_csv(path)
    missing = {"cell", "games_evolved", "win_rate_evolved", "games_validated",
               "win_rate_validated"} - set(v.columns)
    if missing:
        raise ValueError(f"{path}: not a validation table (missing {sorted(missing)})")
    return v[v["games_validated"] > 0]


def table(path: Path, replayed: Path | None = None) -> pd.DataFrame:
    """One validation table's elites: evolved against validated, or (with `replayed`, a
    second validation of the same elites) `replayed`'s validated rates in place of the
    evolved ones, i.e. an archive whose win rates were re-estimated on fresh games."""
    v = read_table(path)
    return v if replayed is None else reestimated(v, read_table(replayed))


def analyse(name: str, v: pd.DataFrame, draws: int, seed: int) -> dict:
    """The gaps of a table of elites (`table`), their intervals and the noise floor."""
    ne, nv = v["games_evolved"].to_numpy(int), v["games_validated"].to_numpy(int)
    we, wv = v["win_rate_evolved"].to_numpy(float), v["win_rate_validated"].to_numpy(float)
    rng = np.random.default_rng(seed)
    pooled = (we * ne + wv * nv) / (ne + nv)
    sims = floor(ne, nv, pooled, draws, rng)
    gap, signed = np.abs(we - wv), we - wv
    return {"table": name, "elites": len(v), "games_evolved": float(ne.mean()),
            "games_validated": float(nv.mean()),
            "mean_abs_gap": float(gap.mean()), "mean_abs_gap_ci": bootstrap(gap, draws, rng),
            "signed_gap": float(signed.mean()), "signed_gap_ci": bootstrap(signed, draws, rng),
            "floor": float(sims.mean()),
            "floor_range": (float(np.quantile(sims, 0.025)), float(np.quantile(sims, 0.975)))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tables", nargs="+", help="validation.csv files")
    ap.add_argument("--draws", type=int, default=10_000, help="simulated archives (10000)")
    ap.add_argument("--target", type=float, default=5.0, help="points (5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reestimated", nargs=2, action="append", default=[],
                    metavar=("HELD_OUT", "REPLAYED"),
                    help="a held-out validation table and a second validation of the same "
                         "elites (e.g. on their training levels, fresh seeds) standing in "
                         "for the evolved estimates")
    ap.add_argument("--out", help="folder for gap_floor.md and gap_floor.csv")
    args = ap.parse_args(argv)
    rows = [analyse(t, table(Path(t)), args.draws, args.seed) for t in args.tables]
    again = [table(Path(h), Path(r)) for h, r in args.reestimated]
    rows += [analyse(f"{h}, re-estimated by {r}", v, args.draws, args.seed)
             for (h, r), v in zip(args.reestimated, again)]
    if len(again) > 1:
        rows.append(analyse("all re-estimated elites above", pd.concat(again), args.draws,
                            args.seed))
    need = games_for(args.target / 100, 0.45, args.draws, np.random.default_rng(args.seed))

    def pts(x: float) -> str:
        return f"{100 * x:.1f}"

    extra = "".join(f" --reestimated {h} {r}" for h, r in args.reestimated)
    lines = [f"`python experiments/gap_floor.py {' '.join(args.tables)}{extra} --draws "
             f"{args.draws} --target {args.target:g} --seed {args.seed}`", "",
             "| validation table | elites | games per elite: evolved / validated | mean abs gap "
             "(95% CI) | gap of the means, evolved - replayed (95% CI) | noise floor (95% range) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['table']} | {r['elites']} | {r['games_evolved']:.1f} / "
            f"{r['games_validated']:.1f} | {pts(r['mean_abs_gap'])} "
            f"({pts(r['mean_abs_gap_ci'][0])}-{pts(r['mean_abs_gap_ci'][1])}) | "
            f"{pts(r['signed_gap'])} ({pts(r['signed_gap_ci'][0])}-{pts(r['signed_gap_ci'][1])})"
            f" | {pts(r['floor'])} ({pts(r['floor_range'][0])}-{pts(r['floor_range'][1])}) |")
    lines += ["", f"Games per side for a noise floor of {args.target:g} points at a true win "
                  f"rate of 45%: {need} evolved and {need} validated games per elite."]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        out = Path(args.out)
        atomic_write(out / "gap_floor.md", text)
        flat = pd.DataFrame([{**{k: v for k, v in r.items() if not k.endswith(("_ci", "range"))},
                              "mean_abs_gap_low": r["mean_abs_gap_ci"][0],
                              "mean_abs_gap_high": r["mean_abs_gap_ci"][1],
                              "signed_gap_low": r["signed_gap_ci"][0],
                              "signed_gap_high": r["signed_gap_ci"][1],
                              "floor_low": r["floor_range"][0], "floor_high": r["floor_range"][1]}
                             for r in rows])
        atomic_write(out / "gap_floor.csv", flat.to_csv(index=False, float_format="%.4f"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
