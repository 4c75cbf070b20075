"""Choose the shipped model's network settings on validation games, never on held-out ones.

Reads the self-play positions of a train-evaluator config (a samples file written by
`playstyles train-evaluator CONFIG --samples FILE`), keeps only its training levels, splits
those again by level (`--validation` of them, seeded) and fits each candidate setting on the
rest; prints the validation accuracy and Brier score of each, as a Markdown table. The
held-out levels of the config are not read at all, so its reported held-out accuracy stays an
unbiased estimate for the setting chosen here.

    python experiments/learned_sweep.py experiments/learned_evaluator.yaml \
        --samples runs/learned/samples.npz [--validation 0.2] \
        [--candidates "64,64:0.001:60" "64,64:0.01:20" ...]

A candidate is HIDDEN:L2:EPOCHS (hidden sizes separated by commas).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from games.levels import split
from play.tournament import level_seeds
from play.train_evaluator import evaluate_model, fit, load_train_config, self_play

DEFAULT = ("64,64:0.001:20", "64,64:0.01:20", "64,64:0.1:20", "32:0.01:20")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--samples", required=True)
    ap.add_argument("--validation", type=float, default=0.2)
    ap.add_argument("--candidates", nargs="+", default=list(DEFAULT))
    args = ap.parse_args()

    config = load_train_config(args.config)
    samples = self_play(config, samples=args.samples)
    levels = level_seeds(config.games.game, config.games.levels)
    train_levels, _held = split(levels, config.held_out, config.seed)
    fit_levels, val_levels = split(train_levels, args.validation, config.seed + 1)
    level_of_game = np.array([str(g["level"]) for g in samples.games])
    rows_level = level_of_game[samples.game]
    fit_rows = samples.rows(np.isin(rows_level, [str(x) for x in fit_levels]))
    val_rows = samples.rows(np.isin(rows_level, [str(x) for x in val_levels]))
    print(f"{len(fit_levels)} fitting levels ({len(fit_rows)} positions), {len(val_levels)} "
          f"validation levels ({len(val_rows)} positions); held-out levels not read.")
    print()
    print("| hidden | l2 | epochs run | validation accuracy | 95% (bootstrap over games) | Brier "
          "| score leader | fit s |")
    print("|---|---|---|---|---|---|---|---|")
    for cand in args.candidates:
        hidden, l2, epochs = cand.split(":")
        cfg = dataclasses.replace(config, hidden=tuple(int(h) for h in hidden.split(",")),
                                  l2=float(l2), epochs=int(epochs))
        t0 = time.perf_counter()
        model = fit(cfg, fit_rows)
        seconds = time.perf_counter() - t0
        ev = evaluate_model(model, val_rows)
        lo, hi = ev["overall"]["ci95"]
        print(f"| {hidden} | {l2} | {model.metadata['fit']['iterations']} | "
              f"{ev['overall']['accuracy']:.3f} | {lo:.3f}-{hi:.3f} | {ev['brier']:.4f} | "
              f"{ev['score_leader']['accuracy']:.3f} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
