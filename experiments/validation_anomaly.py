"""Why is one training-level validation low? The replays of `validation_seeds.py`, game by game.

Reads the games of `experiments/validation_seeds.py` (its games.csv: every replay of every
elite on the training levels) and the run directory they replayed, and asks of one replay
(`--target SEED:OFFSET`, default the validation itself: the run seed, offset 0):

* how far it lies from the others (binomial standard deviations of the others' pooled rate),
  and how far each other replay lies from the rest, the same way;
* where its wins are missing: each of its games is compared with the others' games of the same
  elite, level and seat (the expected win rate of that game), and the shortfall is summed by
  elite, level, seat, level and seat, and game index; per grouping, a chi-square splits the
  shortfall into a common part (one shift for every group, 1 degree of freedom) and the
  differences between groups (the rest), so a shortfall concentrated in a few groups shows as
  a large second part;
* whether its seeds meet seeds used elsewhere: the evolution's games (games.csv of the run:
  first games and closing replays), the other replays, the held-out validation's games (when
  the run has validation_games.csv), and the elite's and the opponent's seed of the same game;
* how often replays like these give a lowest replay as far from the others: every (elite,
  level, seat) plays its games as a binomial at the rate all replays give it, and the
  statistic above is taken of the lowest of as many replays as there are (`--sims` draws).

Writes anomaly.md and anomaly.json (and the grouped tables, by_<grouping>.csv) to `--out`.

    python experiments/validation_anomaly.py RUN experiments/results/validation_seeds/games.csv \\
        --out experiments/results/validation_seeds
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2 as chi2_dist
from scipy.stats import norm

CELL = ["cell"]
GROUPINGS = {"elite": ["cell"], "level": ["level"], "seat": ["elite_seat"],
             "level_seat": ["level", "elite_seat"], "game": ["game"]}
KEY = ["cell", "level", "elite_seat"]


def replay_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per replay (run seed, offset): games, wins, win rate, and its distance from the pooled
    rate of all the other replays in binomial standard deviations (negative: below)."""
    per = games.groupby(["run_seed", "offset"], sort=False)["elite_won"].agg(["count", "sum"])
    per = per.rename(columns={"count": "games", "sum": "wins"}).reset_index()
    total_w, total_n = per["wins"].sum(), per["games"].sum()
    out = []
    for r in per.to_dict("records"):
        p = (total_w - r["wins"]) / (total_n - r["games"])
        sd = math.sqrt(p * (1 - p) / r["games"])
        out.append({**r, "win_rate": r["wins"] / r["games"], "others_rate": p,
                    "z_vs_others": (r["wins"] / r["games"] - p) / sd})
    return pd.DataFrame(out)


def shortfall(games: pd.DataFrame, target: tuple[int, int]) -> pd.DataFrame:
    """The target replay's games, each with its expected win rate from the other replays'
    games of the same elite, level and seat (`expected`) and that rate's binomial variance."""
    mine = (games["run_seed"] == target[0]) & (games["offset"] == target[1])
    rate = games[~mine].groupby(KEY)["elite_won"].mean().rename("expected")
    t = games[mine].merge(rate.reset_index(), on=KEY, how="left")
    t["variance"] = t["expected"] * (1 - t["expected"])
    return t


def grouped(t: pd.DataFrame, by: list[str]) -> tuple[pd.DataFrame, dict]:
    """The shortfall of the target replay summed by `by`, with per group z; and the split of
    the chi-square into a common shift (1 df) and the differences between groups."""
    g = t.groupby(by).agg(games=("elite_won", "size"), wins=("elite_won", "sum"),
                          expected=("expected", "sum"), variance=("variance", "sum"))
    g["shortfall"] = g["expected"] - g["wins"]
    g["z"] = (g["wins"] - g["expected"]) / np.sqrt(g["variance"].where(g["variance"] > 0))
    v = g["variance"].to_numpy(float)
    d = (g["wins"] - g["expected"]).to_numpy(float)
    ok = v > 0
    total = float(np.sum(d[ok] ** 2 / v[ok]))
    common = float(d[ok].sum() ** 2 / v[ok].sum())
    k = int(ok.sum())
    test = {"groups": k, "chi2": total, "common_chi2": common,
            "common_p": float(chi2_dist.sf(common, 1)),
            "between_chi2": total - common, "between_df": k - 1,
            "between_p": float(chi2_dist.sf(total - common, k - 1)) if k > 1 else None,
            "groups_below_expected": int((d < 0).sum()),
            "groups_above_expected": int((d > 0).sum())}
    return g.reset_index(), test


def elite_games(path: Path) -> pd.DataFrame:
    """A validation_games.csv's games of elites (the control's left out), cells as text."""
    g = pd.read_csv(path)
    g["cell"] = g["cell"].astype(str)
    return g[g["cell"] != "control"]


def seed_meetings(games: pd.DataFrame, target: tuple[int, int], run: Path) -> dict:
    """How many of the target replay's seeds (game, elite's, opponent's) are also seeds
    elsewhere: in the run's own games, in the other replays, in the held-out validation, among
    the target's other games, and between the two agents of one game."""
    mine = games[(games["run_seed"] == target[0]) & (games["offset"] == target[1])]
    others = games[~games.index.isin(mine.index)]
    seeds = {"game": set(mine["game_seed"]), "elite": set(mine["elite_seed"]),
             "opponent": set(mine["opponent_seed"])}
    every = seeds["game"] | seeds["elite"] | seeds["opponent"]
    out: dict = {"target_games": len(mine), "distinct_seeds": len(every),
                 "seed_values": 3 * len(mine),
                 "elite_equals_opponent": int((mine["elite_seed"] == mine["opponent_seed"]).sum())}
    sets = {"other_replays": set(others[["game_seed", "elite_seed", "opponent_seed"]]
                                 .to_numpy().ravel().tolist())}
    evo = run / "games.csv"
    if evo.exists():
        e = pd.read_csv(evo, usecols=["game_seed", "genome_seed", "opponent_seed", "replay"])
        sets["evolution_first_games"] = set(
            e[e["replay"] == 0][["game_seed", "genome_seed", "opponent_seed"]]
            .to_numpy().ravel().tolist())
        sets["evolution_closing_replays"] = set(
            e[e["replay"] > 0][["game_seed", "genome_seed", "opponent_seed"]]
            .to_numpy().ravel().tolist())
    held = run / "validation_games.csv"
    if held.exists():
        h = elite_games(held)
        hs = set(h[["game_seed", "elite_seed", "opponent_seed"]].to_numpy().ravel().tolist())
        sets["held_out_validation"] = hs
        both = mine.merge(h, on=["cell", "game"], suffixes=("", "_held"))
        out["held_out_same_seeds_same_game"] = int(
            ((both["game_seed"] == both["game_seed_held"])
             & (both["elite_seed"] == both["elite_seed_held"])
             & (both["opponent_seed"] == both["opponent_seed_held"])).sum())
        out["held_out_games_matched"] = len(both)
    out["shared_with"] = {k: len(every & v) for k, v in sets.items()}
    out["shared_with_sizes"] = {k: len(v) for k, v in sets.items()}
    return out


def held_out_sharing(games: pd.DataFrame, target: tuple[int, int], run: Path) -> dict | None:
    """Does the target's luck carry into the held-out validation, whose games use the same
    seeds (`playstyles validate` keys its games by elite and game alone, whatever the levels)?
    Per replay, the correlation of its games' results with the held-out games of the same
    elite and game index (same seat, other level); the target's against the others'. None
    without the run's validation_games.csv."""
    held = run / "validation_games.csv"
    if not held.exists():
        return None
    h = elite_games(held)[["cell", "game", "elite_seat", "elite_won"]]
    rows = []
    for (seed, offset), g in games.groupby(["run_seed", "offset"], sort=False):
        m = g.merge(h, on=["cell", "game"], suffixes=("", "_held"))
        if len(m) < 2 or m["elite_won"].std() == 0 or m["elite_won_held"].std() == 0:
            continue
        rows.append({"run_seed": int(seed), "offset": int(offset), "games": len(m),
                     "same_seat": float((m["elite_seat"] == m["elite_seat_held"]).mean()),
                     "agreement": float((m["elite_won"] == m["elite_won_held"]).mean()),
                     "correlation": float(np.corrcoef(m["elite_won"], m["elite_won_held"])[0, 1])})
    per = pd.DataFrame(rows)
    mine = (per["run_seed"] == target[0]) & (per["offset"] == target[1])
    if not mine.any():
        return None
    others = per.loc[~mine, "correlation"]
    t = float(per.loc[mine, "correlation"].iloc[0])
    return {"held_out_games": int(len(h)), "target_correlation": t,
            "others_correlation_mean": float(others.mean()),
            "others_correlation_sd": float(others.std(ddof=1)),
            "others_at_least_target": int((others >= t).sum()), "others": int(len(others)),
            "target_agreement": float(per.loc[mine, "agreement"].iloc[0]),
            "others_agreement_mean": float(per.loc[~mine, "agreement"].mean())}


def same_as_validate(games: pd.DataFrame, target: tuple[int, int], path: Path) -> dict:
    """The target replay against the games `playstyles validate RUN --levels train` wrote
    (its validation_games.csv): how many games have the same level, seat, seeds and result."""
    v = elite_games(path)
    mine = games[(games["run_seed"] == target[0]) & (games["offset"] == target[1])]
    cols = ["level", "elite_seat", "game_seed", "elite_seed", "opponent_seed", "elite_won"]
    m = mine.merge(v, on=["cell", "game"], suffixes=("", "_validate"))
    same = np.logical_and.reduce([m[c].to_numpy() == m[f"{c}_validate"].to_numpy()
                                  for c in cols])
    return {"target_games": len(mine), "validate_games": len(v), "matched": len(m),
            "identical": int(same.sum()), "validate_wins": float(v["elite_won"].sum())}


def simulate_lowest(games: pd.DataFrame, observed_z: float, observed_wins: float, sims: int,
                    seed: int = 0) -> dict:
    """Replays drawn from the same elites, levels and seats, each (elite, level, seat) at the
    rate all replays give it: the distribution of the lowest replay's distance from the
    others (as `replay_table` measures it) and of its wins."""
    rep = games.groupby(["run_seed", "offset"], sort=False).ngroups
    cells = games.groupby(KEY)["elite_won"].agg(["mean", "size"])
    n = (cells["size"] // rep).to_numpy()  # games of each (elite, level, seat) per replay
    if (n * rep != cells["size"].to_numpy()).any():
        raise ValueError("replays of unequal schedules")
    p = cells["mean"].to_numpy(float)
    per_replay = int(n.sum())
    rng = np.random.default_rng(seed)
    low_z, low_w = [], []
    left = sims
    while left:
        k = min(left, 5000)
        wins = rng.binomial(n[None, None, :], p[None, None, :], size=(k, rep, len(p))).sum(-1)
        others = (wins.sum(1, keepdims=True) - wins) / (per_replay * (rep - 1))
        z = (wins / per_replay - others) / np.sqrt(others * (1 - others) / per_replay)
        low_z.append(z.min(1))
        low_w.append(wins.min(1))
        left -= k
    z = np.concatenate(low_z)
    w = np.concatenate(low_w)
    return {"sims": sims, "replays": rep, "games_per_replay": per_replay,
            "model_sd_points": float(100 * math.sqrt(float(np.sum(n * p * (1 - p))))
                                     / per_replay),
            "binomial_sd_points": float(100 * math.sqrt(
                float(np.sum(n * p)) / per_replay * (1 - float(np.sum(n * p)) / per_replay)
                / per_replay)),
            "p_lowest_z_at_most_observed": float(np.mean(z <= observed_z)),
            "p_lowest_wins_at_most_observed": float(np.mean(w <= observed_wins)),
            "lowest_z_quantiles": {q: float(np.quantile(z, q)) for q in (0.001, 0.01, 0.05, 0.5)},
            "lowest_wins_quantiles": {q: float(np.quantile(w, q))
                                      for q in (0.001, 0.01, 0.05, 0.5)},
            # one-sided normal tail of the observed z, for one replay and for the lowest of all
            "normal_tail_one": float(norm.cdf(observed_z)),
            "normal_tail_lowest": float(1 - (1 - norm.cdf(observed_z)) ** rep)}


def markdown(rep: pd.DataFrame, target: tuple[int, int], tests: dict, tables: dict,
             seeds: dict, sim: dict | None, held: dict | None = None) -> str:
    lines = ["# The low replay, game by game", "",
             f"Target replay: run seed {target[0]}, offset {target[1]}.", "",
             "## Replays", "",
             "| run seed | offset | games | wins | win rate | others' rate | z vs others |",
             "|---|---|---|---|---|---|---|"]
    for r in rep.to_dict("records"):
        lines.append(f"| {r['run_seed']} | {r['offset']} | {r['games']} | {r['wins']:.0f} | "
                     f"{100 * r['win_rate']:.1f}% | {100 * r['others_rate']:.1f}% | "
                     f"{r['z_vs_others']:.2f} |")
    lines += ["", "## Where the target's wins are missing", "",
              "Expected: the other replays' win rate for the same elite, level and seat. "
              "Common: one shift for every group (1 df); between: the differences between "
              "groups.", "",
              "| grouping | groups | below / above expected | common chi-square (p) | "
              "between chi-square / df (p) |", "|---|---|---|---|---|"]
    for name, t in tests.items():
        bp = "n/a" if t["between_p"] is None else f"{t['between_p']:.3f}"
        lines.append(f"| {name} | {t['groups']} | {t['groups_below_expected']} / "
                     f"{t['groups_above_expected']} | {t['common_chi2']:.1f} "
                     f"({t['common_p']:.2g}) | {t['between_chi2']:.1f} / {t['between_df']} "
                     f"({bp}) |")
    for name in ("level", "seat", "level_seat", "game"):
        g = tables[name]
        lines += ["", f"By {name.replace('_', ' and ')}:", "",
                  "| " + " | ".join(GROUPINGS[name]) + " | games | wins | expected | z |",
                  "|" + "---|" * (len(GROUPINGS[name]) + 4)]
        for r in g.to_dict("records"):
            lines.append("| " + " | ".join(str(r[c]) for c in GROUPINGS[name]) +
                         f" | {r['games']} | {r['wins']:.0f} | {r['expected']:.1f} | "
                         f"{r['z']:.2f} |")
    e = tables["elite"].sort_values("shortfall", ascending=False)
    top = e.head(5)
    lines += ["", f"Elites: the five largest shortfalls make {top['shortfall'].sum():.1f} of "
                  f"{e['shortfall'].sum():.1f} missing wins "
                  f"({', '.join(f'[{c}] {s:.1f}' for c, s in zip(top['cell'], top['shortfall']))});"
                  f" by_elite.csv has every elite.",
              "", "## Seeds", "", "```", json.dumps(seeds, indent=2), "```"]
    if held:
        lines += ["", "## The held-out validation, which uses the same seeds", "",
                  f"Correlation of each replay's games with the held-out games of the same "
                  f"elite and game index: the target {held['target_correlation']:.3f}, the "
                  f"other {held['others']} replays {held['others_correlation_mean']:.3f} on "
                  f"average (sd {held['others_correlation_sd']:.3f}; "
                  f"{held['others_at_least_target']} of them at least the target's)."]
    if sim:
        lines += ["", "## The lowest of as many replays, by simulation", "", "```",
                  json.dumps(sim, indent=2), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="the run directory the replays replayed")
    ap.add_argument("games", type=Path, nargs="+",
                    help="games.csv of experiments/validation_seeds.py (several: their replays "
                         "together)")
    ap.add_argument("--target", default=None, metavar="SEED:OFFSET",
                    help="the replay to explain (default: the run seed, offset 0)")
    ap.add_argument("--validate-games", type=Path, default=None,
                    help="validation_games.csv of `playstyles validate RUN --levels train`, "
                         "to check that the target replay is that validation game for game")
    ap.add_argument("--sims", type=int, default=20000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    games = pd.concat([pd.read_csv(f) for f in args.games], ignore_index=True)
    dup = games.duplicated(["run_seed", "offset", "cell", "game"])
    if dup.any():
        raise SystemExit(f"games: {int(dup.sum())} games appear twice (the same replay in two "
                         f"files)")
    games["cell"] = games["cell"].astype(str)
    if args.target:
        target = tuple(int(x) for x in args.target.split(":"))
    else:
        import yaml
        target = (int(yaml.safe_load((args.run / "config.yaml").read_text())["seed"]), 0)
    rep = replay_table(games)
    t = shortfall(games, target)
    tests, tables = {}, {}
    for name, by in GROUPINGS.items():
        tables[name], tests[name] = grouped(t, by)
    seeds = seed_meetings(games, target, args.run)
    row = rep[(rep["run_seed"] == target[0]) & (rep["offset"] == target[1])].iloc[0]
    sim = simulate_lowest(games, float(row["z_vs_others"]), float(row["wins"]), args.sims) \
        if args.sims else None
    held = held_out_sharing(games, target, args.run)
    if args.validate_games:
        seeds["same_as_validate"] = same_as_validate(games, target, args.validate_games)
    text = markdown(rep, target, tests, tables, seeds, sim, held)
    print(text, end="")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "anomaly.md").write_text(text)
        (args.out / "anomaly.json").write_text(json.dumps(
            {"target": list(target), "replays": rep.to_dict("records"), "groupings": tests,
             "seeds": seeds, "held_out_sharing": held, "simulation": sim}, indent=2, default=float) + "\n")
        for name, g in tables.items():
            g.to_csv(args.out / f"by_{name}.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
