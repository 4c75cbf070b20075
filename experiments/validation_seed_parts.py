"""Which of a game's three seeds carries a replay's result? One replay's games with parts of
their seeds taken from another replay.

Every game of `experiments/validation_seeds.py` is played with three seeds: the game's own
(the game's random outcomes), the elite's agent's and the opponent's agent's. This script takes
the games of one replay (`--target SEED:OFFSET`, default the validation itself: the run seed,
offset 0) and plays them again with some of those seeds taken from the same game (same elite,
game index, level and seat) of another replay (`--donor SEED:OFFSET`): every mix of the two
(`--mixes`, default all six in which both give at least one seed). A result carried by one
seed (say the game seeds of the low replay) stays with it whatever the agents' seeds are.

`--check-order` first plays the target's own games again in reverse order in this process (no
Ray), to check that a game's result depends on its spec alone (not on the games played before
it in the same process).

Writes games.csv (one row per game: the mix, which replay gave each seed, the seeds, the
result) and a summary per mix to `--out` (seed_parts.csv, seed_parts.md).

    python experiments/validation_seed_parts.py RUN --games 12 --donor 1:1000 --check-order \\
        --workers 2 --out experiments/results/validation_seeds/seed_parts
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from base.stats import wilson_interval  # noqa: E402
from play.ray_session import ray_session  # noqa: E402
from qd.config import load_config  # noqa: E402
from qd.genome_games import credit, play  # noqa: E402
from qd.rundir import CONFIG, RunFiles, weight_columns  # noqa: E402
from qd.validation import plan_games  # noqa: E402

PARTS = ("game", "elite", "opponent")
ALL_MIXES = ("TDD", "DTD", "DDT", "DTT", "TDT", "TTD")
"""A mix names, for the game seed, the elite's and the opponent's, the replay that gives it:
T the target, D the donor (TTT is the target itself, DDD the donor)."""


def replay_specs(run: RunFiles, games: int, seed: int, offset: int) -> list:
    """The games of one replay of `validation_seeds.py`, in plan order."""
    config = load_config(run.path(CONFIG))
    elites = run.elites.copy()
    elites["index"] = elites["index"] + offset
    return plan_games(elites, weight_columns(config.genome_names), config.plan(),
                      config.train_levels, games, seed, key=(offset,))


def seeds_of(spec) -> tuple[int, int, int]:
    """(game seed, elite's seed, opponent's seed) of a two-player validation game."""
    seat = int(spec.tag[2])
    return spec.seed, spec.agent_seeds[seat], spec.agent_seeds[1 - seat]


def mixed(target, donor, mix: str):
    """`target` with the seeds `mix` gives to the donor taken from `donor` (the same game of
    another replay)."""
    if target.tag != donor.tag or target.level != donor.level or target.agents != donor.agents:
        raise ValueError(f"games {target.tag} and {donor.tag} are not the same game")
    t, d = seeds_of(target), seeds_of(donor)
    game, me, opp = (d[i] if m == "D" else t[i] for i, m in enumerate(mix))
    seat = int(target.tag[2])
    agent_seeds = (me, opp) if seat == 0 else (opp, me)
    return replace(target, seed=game, agent_seeds=agent_seeds)


def rows_of(mix: str, records, cells: list[str], games: int) -> list[dict]:
    out = []
    for k, rec in enumerate(records):
        s = rec.spec
        seat = int(s.tag[2])
        g, me, opp = seeds_of(s)
        out.append({"mix": mix, "cell": cells[k // games], "game": k % games, "level": s.level,
                    "elite_seat": seat, "game_seed": g, "elite_seed": me,
                    "opponent_seed": opp, "rounds": rec.rounds,
                    "elite_won": credit(rec, seat)})
    return out


def summary(games: pd.DataFrame) -> pd.DataFrame:
    """Per mix: its wins with a Wilson 95% interval, and (when the target's own games are
    there, `--check-order`) the share of its games whose result is the target's."""
    rows = []
    own = games[games["mix"].str.startswith("TTT")].set_index(["cell", "game"])["elite_won"]
    for mix, g in games.groupby("mix", sort=False):
        w, n = float(g["elite_won"].sum()), len(g)
        low, high = wilson_interval(w, n)
        rows.append({"mix": mix, "game_seed": "target" if mix[0] == "T" else "donor",
                     "elite_seed": "target" if mix[1] == "T" else "donor",
                     "opponent_seed": "target" if mix[2] == "T" else "donor",
                     "games": n, "wins": w, "win_rate": w / n, "ci_low": low, "ci_high": high,
                     "same_result_as_target": float(
                         (g.set_index(["cell", "game"])["elite_won"] == own.reindex(
                             g.set_index(["cell", "game"]).index)).mean())
                     if len(own) else None})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    lines = ["| mix | game seed | elite's seed | opponent's seed | games | wins | win rate "
             "(95% CI) | same result as the target's game |", "|---|---|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        lines.append(f"| {r['mix']} | {r['game_seed']} | {r['elite_seed']} | "
                     f"{r['opponent_seed']} | {r['games']} | {r['wins']:.0f} | "
                     f"{100 * r['win_rate']:.1f}% ({100 * r['ci_low']:.1f}-"
                     f"{100 * r['ci_high']:.1f}) | "
                     + ("n/a" if r["same_result_as_target"] is None or
                        pd.isna(r["same_result_as_target"])
                        else f"{100 * r['same_result_as_target']:.1f}%") + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a run directory with elites.csv")
    ap.add_argument("--games", type=int, default=12, help="games per elite")
    ap.add_argument("--target", default=None, metavar="SEED:OFFSET",
                    help="the replay whose games are mixed (default: the run seed, offset 0)")
    ap.add_argument("--donor", default="1:1000", metavar="SEED:OFFSET",
                    help="the replay that gives the other seeds")
    ap.add_argument("--mixes", nargs="*", default=list(ALL_MIXES),
                    help="which seed comes from which replay: T target / D donor for the "
                         "game's, the elite's and the opponent's seed (TTT, DDD: the replays)")
    ap.add_argument("--check-order", action="store_true",
                    help="first play the target's games in reverse order in this process")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--recompute", action="store_true",
                    help="play nothing: rebuild the summary from --out's games.csv")
    args = ap.parse_args(argv)
    if args.recompute:
        if args.out is None:
            raise SystemExit("--recompute: give --out, the folder with games.csv")
        games = pd.read_csv(args.out / "games.csv")
        games["cell"] = games["cell"].astype(str)
        head = (args.out / "seed_parts.md").read_text().split("\n\n")[0]
        text = head + "\n\n" + markdown(summary(games))
        print(text, end="")
        summary(games).to_csv(args.out / "seed_parts.csv", index=False)
        (args.out / "seed_parts.md").write_text(text)
        return 0
    run = RunFiles(args.run)
    seed = load_config(run.path(CONFIG)).seed
    target = tuple(int(x) for x in args.target.split(":")) if args.target else (seed, 0)
    donor = tuple(int(x) for x in args.donor.split(":"))
    t_specs = replay_specs(run, args.games, *target)
    d_specs = replay_specs(run, args.games, *donor)
    cells = run.elites["cell"].astype(str).tolist()
    rows = []
    if args.check_order:
        back, _ = play(t_specs[::-1], workers=0)
        rows += rows_of("TTT reversed in-process", back[::-1], cells, args.games)
    plans = {}
    for mix in args.mixes:
        if len(mix) != 3 or set(mix) - {"T", "D"}:
            raise SystemExit(f"--mixes: {mix!r} is not three letters of T and D")
        plans[mix] = [mixed(t, d, mix) for t, d in zip(t_specs, d_specs)]
    with ray_session():
        for mix, specs in plans.items():
            records, _ = play(specs, workers=args.workers)
            rows += rows_of(mix, records, cells, args.games)
            w = np.mean([r["elite_won"] for r in rows[-len(specs):]])
            print(f"{mix}: {100 * w:.1f}% of {len(specs)}", flush=True)
    games = pd.DataFrame(rows)
    table = summary(games)
    text = (f"Target: run seed {target[0]}, offset {target[1]}; donor: run seed {donor[0]}, "
            f"offset {donor[1]}.\n\n" + markdown(table))
    print(text, end="")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        games.to_csv(args.out / "games.csv", index=False)
        table.to_csv(args.out / "seed_parts.csv", index=False)
        (args.out / "seed_parts.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
