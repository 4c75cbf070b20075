"""How much does a training-level validation of one archive move with its seeds?

The committed results (experiments/results/validation_seeds/) were played when validation
keyed each elite's games by its cell index; validation now plays every elite on the same
games (common random numbers, docs/styles.md), and an offset here is the replay's own spawn
key: each replay is a fresh set of common games.

`playstyles validate RUN --levels train` replays every elite on the run's training levels with
seeds from (run seed, cell index, game). This script plays the same games (same elites, same
level and seat schedule, same agents) under other spawn keys: the cell indices shifted by
each `--offsets` value (offset 0 is the validation itself), other run seeds (`--run-seeds`,
offset 0), or any pairs of both (`--pairs SEED:OFFSET`), and prints, per replay, the elites'
pooled win rate with its Wilson 95% interval and by seat (`--levels held_out`: the same on
the run's held-out levels, the games of `playstyles validate RUN`); with `--out` it writes the replays
(results.json) and every game (games.csv). Comparing the replays with each other and with the
run's closing re-estimation (`noise: reestimate`) says whether a difference between them is
more than the spread of such replays.

    python experiments/validation_seeds.py RUN --games 12 --offsets 0 1000 2000 \\
        --run-seeds 11 21 --workers 2 --out experiments/results/validation_seeds
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from base.files import atomic_write
from base.stats import wilson_interval  # noqa: E402
from play.ray_session import ray_session  # noqa: E402
from qd.config import load_config  # noqa: E402
from qd.genome_games import credit, genome_side, play  # noqa: E402
from qd.rundir import CONFIG, RunFiles, weight_columns  # noqa: E402
from qd.validation import plan_games  # noqa: E402


def replay(run: RunFiles, games: int, seed: int, offset: int, workers: int,
           levels: str = "train") -> tuple[dict, list[dict]]:
    """One replay of every elite on the run's training levels (or `levels` "held_out": its
    held-out levels, as `playstyles validate RUN` plays them): `games` games each, with the
    run seed `seed` and the cell indices shifted by `offset` in the games' spawn keys; its
    summary and one row per game (`GAME_COLUMNS`)."""
    config = load_config(run.path(CONFIG))
    elites = run.elites.copy()
    elites["index"] = elites["index"] + offset
    specs = plan_games(elites, weight_columns(config.genome_names), config.plan(),
                       config.train_levels if levels == "train" else config.held_out_levels,
                       games, seed, key=(offset,))
    with ray_session():
        records, _ = play(specs, workers=workers)
    sides = list(genome_side(records))
    rows = [game_row(seed, offset, elite, g, rec, seat)
            for (rec, seat), (elite, g) in zip(sides, ((e, g) for e in
                                                         elites.to_dict("records")
                                                         for g in range(games)))]
    won = np.array([credit(rec, seat) for rec, seat in sides], dtype=float)
    seats = np.array([seat for _, seat in sides])
    low, high = wilson_interval(won.sum(), len(won))
    out = {"run_seed": seed, "offset": offset, "games": len(won), "wins": float(won.sum()),
           "win_rate": won.mean(), "ci_low": low, "ci_high": high}
    for s in sorted(set(seats.tolist())):
        out[f"seat{s}_win_rate"] = won[seats == s].mean()
        out[f"seat{s}_games"] = int((seats == s).sum())
    return out, rows


GAME_COLUMNS = ("run_seed", "offset", "cell", "index", "key_index", "game", "level",
                "elite_seat", "game_seed", "elite_seed", "opponent_seed", "rounds", "winner",
                "elite_won", "elite_score", "opponent_score")
"""games.csv: one row per game of a replay: the replay (run seed, offset), the elite (cell,
its index in elites.csv and the index its spawn key used: index + offset), the game within
the elite's games, its level and the elite's seat, the three seeds it was played with, and
its result."""


def game_row(seed: int, offset: int, elite: dict, g: int, rec, seat: int) -> dict:
    """One replayed game as a row of games.csv (`GAME_COLUMNS`)."""
    s = rec.spec
    if tuple(s.tag[1:]) != (g, seat):
        raise RuntimeError(f"game {s.tag} out of plan order (expected game {g}, seat {seat})")
    other = (seat + 1) % len(s.agents)
    return {"run_seed": seed, "offset": offset, "cell": elite["cell"],
            "index": int(elite["index"]) - offset, "key_index": int(elite["index"]), "game": g,
            "level": s.level, "elite_seat": seat, "game_seed": s.seed,
            "elite_seed": s.agent_seeds[seat], "opponent_seed": s.agent_seeds[other],
            "rounds": rec.rounds, "winner": rec.winner, "elite_won": credit(rec, seat),
            "elite_score": rec.summaries[seat].get("score"),
            "opponent_score": rec.summaries[other].get("score")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a run directory with elites.csv")
    ap.add_argument("--games", type=int, default=12, help="games per elite and replay")
    ap.add_argument("--offsets", type=int, nargs="*", default=[0],
                    help="shifts of the cell index in the spawn keys (0: the validation's own)")
    ap.add_argument("--run-seeds", type=int, nargs="*", default=[],
                    help="other run seeds, each played with offset 0")
    ap.add_argument("--pairs", nargs="*", default=[], metavar="SEED:OFFSET",
                    help="more replays, each a run seed and an offset")
    ap.add_argument("--levels", choices=("train", "held_out"), default="train",
                    help="the run's training levels (default) or its held-out levels")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None,
                    help="directory for results.json and games.csv (one row per game)")
    args = ap.parse_args()
    run = RunFiles(args.run)
    seed = load_config(run.path(CONFIG)).seed
    plan = [(seed, o) for o in args.offsets] + [(s, 0) for s in args.run_seeds] + \
        [tuple(int(x) for x in p.split(":")) for p in args.pairs]
    rows, games = [], []
    for s, o in plan:
        r, played = replay(run, args.games, s, o, args.workers, args.levels)
        rows.append(r)
        games += played
        print(f"run seed {s:>4} offset {o:>5}: {r['wins']:.0f} of {r['games']} = "
              f"{100 * r['win_rate']:.1f}% ({100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f})"
              + "".join(f", seat {k[4]} {100 * v:.1f}%" for k, v in r.items()
                        if k.endswith("_win_rate") and k.startswith("seat")), flush=True)
    wins = np.array([r["wins"] for r in rows])
    n = np.array([r["games"] for r in rows])
    p = wins.sum() / n.sum()
    # spread of the replays against what independent games allow (binomial, pooled rate)
    chi2 = float(chi2_contingency(np.column_stack([wins, n - wins]), correction=False)[0])
    summary = {"replays": len(rows), "pooled_win_rate": p,
               "replay_win_rate_sd_points": float(100 * np.std(wins / n, ddof=1))
               if len(rows) > 1 else None,
               "binomial_sd_points": float(100 * math.sqrt(p * (1 - p) / n.mean())),
               "chi2": chi2, "chi2_df": len(rows) - 1}
    print(json.dumps(summary, indent=2))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "results.json",
                     json.dumps({"run": run.dir.name, "levels": args.levels,
                                 "games_per_elite": args.games,
                                 "replays": rows, "summary": summary}, indent=2) + "\n")
        atomic_write(args.out / "games.csv",
                     pd.DataFrame(games, columns=list(GAME_COLUMNS)).to_csv(index=False))


if __name__ == "__main__":
    main()
