"""The shipped learned evaluator's held-out accuracy, per position, and the summary recomputed
from that table.

`play` regenerates the held-out positions of the shipped model's training config
(experiments/learned_evaluator.yaml: the games of its held-out levels, split exactly as
`playstyles train-evaluator` splits them, with the seeds of the config's plan) under the
current rules, evaluates the shipped model games/tribes/models/default.npz on them and
writes to OUT:

* positions.csv: one row per held-out position (a turn start seen by one tribe): the game
  (its index in the config's plan), level, self-play agent, round, viewer, to_move, label
  (+1 the viewer won, -1 lost, 0 a draw), the model's value 2p - 1, score_lead (the viewer's
  score minus the other's), correct (the sign of the value is the label) and
  baseline_correct (the score leader won; a tie predicts a loss); draws leave both empty;
* summary.json and summary.md: the accuracy overall, by phase and by view, beside the score
  leader's and the difference, with positions, games and a percentile bootstrap 95%
  interval over games (`play.train_evaluator.accuracy_tables`), the command, the commit and
  the run time, and the numbers the model file stored when it was trained.

`recompute` reads positions.csv alone (no game is played, no model is loaded), recomputes the
tables from its values and results and prints them; `--check` compares them with
summary.json and fails on any difference.

    python experiments/learned_accuracy.py play --workers 1
    python experiments/learned_accuracy.py recompute --check
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from play.train_evaluator import INTERVAL, accuracy_table, accuracy_tables  # noqa: E402
from playstyles.cli import Bars  # noqa: E402

CONFIG = "experiments/learned_evaluator.yaml"
MODEL = "games/tribes/models/default.npz"
OUT = "experiments/results/learned/accuracy"
POSITIONS = "positions.csv"
COLUMNS = ("game", "level", "agent", "round", "viewer", "to_move", "label", "value",
           "score_lead", "correct", "baseline_correct")


def held_out_specs(config) -> tuple[list[Any], list[int]]:
    """The held-out levels of a train-evaluator config and the indices, in its plan, of
    their games (the games `train_evaluator` holds out, with the same seeds)."""
    from games.levels import split
    from play.tournament import level_seeds, plan
    games = config.games
    _, held = split(level_seeds(games.game, games.levels), config.held_out, config.seed)
    held_set = set(held)
    return held, [i for i, s in enumerate(plan(games)) if s.level in held_set]


def positions_frame(samples, plan_index: np.ndarray, agents: list[str],
                    value: np.ndarray) -> pd.DataFrame:
    """The per-position table of `samples` (games numbered by `plan_index`, played by
    `agents`, one per game of the samples) and the model's values."""
    label = samples.label.astype(int)
    decided = label != 0
    correct = np.sign(value) == label
    baseline = np.where(samples.score_lead > 0, 1, -1) == label
    frame = pd.DataFrame({
        "game": plan_index[samples.game],
        "level": [samples.games[g]["level"] for g in samples.game],
        "agent": [agents[g] for g in samples.game],
        "round": samples.round.astype(int),
        "viewer": samples.viewer.astype(int),
        "to_move": samples.to_move.astype(int),
        "label": label,
        "value": value.astype(np.float32).astype(float),
        "score_lead": samples.score_lead,
        "correct": pd.array(np.where(decided, correct, 0), dtype="Int8"),
        "baseline_correct": pd.array(np.where(decided, baseline, 0), dtype="Int8"),
    })
    frame.loc[~decided, ["correct", "baseline_correct"]] = pd.NA
    return frame[list(COLUMNS)]


def read_positions(path: str | Path) -> pd.DataFrame:
    """positions.csv, checked: its columns, and its `correct` and `baseline_correct` agree
    with its values, labels and score leads."""
    frame = pd.read_csv(path)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: columns {missing} missing")
    decided = frame["label"] != 0
    d = frame[decided]
    correct = np.sign(d["value"].to_numpy()) == d["label"].to_numpy()
    baseline = np.where(d["score_lead"].to_numpy() > 0, 1, -1) == d["label"].to_numpy()
    if not (np.array_equal(d["correct"].to_numpy(dtype=int), correct.astype(int))
            and np.array_equal(d["baseline_correct"].to_numpy(dtype=int),
                               baseline.astype(int))):
        raise ValueError(f"{path}: correct / baseline_correct disagree with value, label and "
                         f"score_lead")
    if frame.loc[~decided, ["correct", "baseline_correct"]].notna().any().any():
        raise ValueError(f"{path}: a draw (label 0) has a correct / baseline_correct value")
    return frame


def tables(frame: pd.DataFrame) -> dict[str, Any]:
    """The accuracy tables of a positions table (`accuracy_tables`), as JSON gives them back."""
    out = accuracy_tables(frame["value"].to_numpy(), frame["label"].to_numpy(),
                          frame["round"].to_numpy(), frame["to_move"].to_numpy().astype(bool),
                          frame["score_lead"].to_numpy(), frame["game"].to_numpy())
    return json.loads(json.dumps(out))


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _shown(path: Path) -> str:
    """A path as printed: from the repository's root when it is inside it."""
    path = Path(path).resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def markdown(summary: dict[str, Any]) -> str:
    """summary.md: what was measured, how, and the table."""
    t, old = summary["tables"], summary["stored_in_model"]
    o = t["overall"]
    lines = [
        "# Learned evaluator default.npz: held-out accuracy, per position",
        "",
        f"Made by `{summary['command']}` at commit {summary['commit']}"
        f"{' (with uncommitted changes)' if summary['dirty'] else ''}; "
        f"self-play {summary['seconds']['self_play']:.0f} s, {summary['workers']} worker(s). "
        f"Recomputed from {POSITIONS} alone by "
        f"`python experiments/learned_accuracy.py recompute --check`.",
        "",
        f"Positions: the turn starts, from both tribes' views, of the {summary['games']} games "
        f"on the {len(summary['held_out_levels'])} levels {CONFIG} holds out (levels "
        f"{', '.join(str(x) for x in summary['held_out_levels'])}; each level's games of "
        f"{' and '.join(summary['agents'])} against itself, both seatings), played again with "
        f"the config's seeds under the current rules: {summary['positions']} positions, "
        f"{summary['draw_positions']} of them in drawn games (left out). Model: {MODEL} "
        f"(sha256 {summary['model_sha256'][:16]}), evaluated with the numpy forward pass the "
        f"evaluator uses.",
        "",
        f"Intervals: 95%, {INTERVAL} ({summary['resamples']} resamples of the "
        f"{o['games']} games with replacement, each drawn game with all its positions, fixed "
        f"seed): positions of one game are not independent. \"score leader\": the baseline "
        f"that predicts the tribe ahead on score wins (a tie: a loss); \"model - leader\": "
        f"the model's accuracy minus the baseline's on the same positions, its interval from "
        f"the same resampling of games (paired). Brier score {t['brier']}.",
        "",
        *accuracy_table(t),
        "",
        "The numbers the model file stored when it was trained (the same games played by the "
        "code of that time; Wilson intervals over positions):",
        "",
        "| held-out positions | positions then | accuracy then | positions now | accuracy now "
        "| change |",
        "|---|---|---|---|---|---|",
    ]
    pairs = [("all", old["overall"], t["overall"])]
    pairs += [(f"rounds {k}", old["by_phase"].get(k), a) for k, a in t["by_phase"].items()]
    pairs += [(f"viewer {k.replace('_', ' ')}", old.get("by_view", {}).get(k), a)
              for k, a in t["by_view"].items()]
    for name, then, now in pairs:
        if then is None:
            lines.append(f"| {name} | - | - | {now['n']} | {now['accuracy']:.3f} | |")
            continue
        lines.append(f"| {name} | {then['n']} | {then['accuracy']:.3f} | {now['n']} | "
                     f"{now['accuracy']:.3f} | {now['accuracy'] - then['accuracy']:+.3f} |")
    return "\n".join(lines) + "\n"


def play(args: argparse.Namespace) -> int:
    from agents.encodings import get_encoding
    from agents.learned import load_model
    from base.files import atomic_write
    from base.stats import BOOTSTRAP_RESAMPLES
    from play.ray_session import ray_session
    from play.selfplay import generate_samples
    from play.tournament import plan
    from play.train_evaluator import load_train_config

    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    commit = _git("rev-parse", "HEAD")
    config = load_train_config(ROOT / CONFIG)
    model = load_model(ROOT / MODEL, game=config.games.game)
    held, index = held_out_specs(config)
    stored = [str(x) for x in model.metadata["data"]["held_out_levels"]]
    if stored != [str(x) for x in held]:
        raise SystemExit(f"{MODEL}: held-out levels {stored} are not the config's split "
                         f"{[str(x) for x in held]}")
    specs = plan(config.games)
    chosen = [specs[i] for i in index]
    enc = get_encoding(config.games.game, config.encoding)
    t0 = time.perf_counter()
    with ray_session():
        samples = generate_samples(chosen, encoding=enc.name, views=config.views,
                                   workers=args.workers,
                                   progress=None if args.quiet else Bars())
    seconds = time.perf_counter() - t0
    agents = [config.games.agents[s.tag["agent"]].display() for s in chosen]
    frame = positions_frame(samples, np.asarray(index), agents,
                            model.values(samples.matrix()))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / POSITIONS, index=False, float_format="%.7g")
    frame = read_positions(out / POSITIONS)  # the summary is what `recompute` finds
    command = " ".join(["python", Path(sys.argv[0]).resolve().relative_to(ROOT).as_posix(),
                        *map(shlex.quote, sys.argv[1:])])
    summary = {
        "command": command, "commit": commit, "dirty": dirty, "config": CONFIG,
        "model": MODEL, "model_sha256": _sha256(ROOT / MODEL),
        "held_out_levels": [str(x) for x in held], "games": len(chosen),
        "agents": sorted(set(agents), key=agents.index),
        "positions": len(frame), "draw_positions": int((frame["label"] == 0).sum()),
        "resamples": BOOTSTRAP_RESAMPLES, "workers": args.workers,
        "seconds": {"self_play": round(seconds, 1)},
        "tables": tables(frame),
        "stored_in_model": model.metadata["held_out"],
    }
    atomic_write(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    atomic_write(out / "summary.md", markdown(summary))
    print("\n".join(accuracy_table(summary["tables"])))
    print(f"{len(chosen)} games, {len(frame)} positions, self-play {seconds:.0f} s; "
          f"written to {_shown(out)}")
    return 0


def recompute(args: argparse.Namespace) -> int:
    out = Path(args.out)
    frame = read_positions(out / POSITIONS)
    got = tables(frame)
    print("\n".join(accuracy_table(got)))
    if args.check:
        want = json.loads((out / "summary.json").read_text())["tables"]
        if got != want:
            print(f"check: the tables recomputed from {_shown(out / POSITIONS)} differ from "
                  f"{_shown(out / 'summary.json')}", file=sys.stderr)
            return 1
        print(f"check: {_shown(out / 'summary.json')} matches {_shown(out / POSITIONS)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("play", help="regenerate the held-out positions and evaluate the model")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (0: here)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    r = sub.add_parser("recompute", help="recompute the tables from positions.csv alone")
    r.add_argument("--check", action="store_true",
                   help="fail when they differ from summary.json's")
    for q in (p, r):
        q.add_argument("--out", type=Path, default=ROOT / OUT,
                       help=f"the results folder (default: {OUT})")
    args = ap.parse_args()
    return play(args) if args.mode == "play" else recompute(args)


if __name__ == "__main__":
    sys.exit(main())
