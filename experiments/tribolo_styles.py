"""Tribolo play-styles, measured: the behaviour features of random, scripted and searching
players (to choose the features' ranges), and of Portfolio MCTS (`pmcts_pu`) with all
weight on one script against two original AIs (do different weights play differently?).
Printed as JSON.

* ``ranges``: per feature, the 5th, 50th and 95th percentiles and the extremes of the
  per-game values of (a) three random players (every seat counted), (b) each script played
  alone (the script's proposal, a random move when it proposes none) against two random
  players, (c) three original AIs (`tribolo_ai:search=paranoid`, the original's moves).
* ``weights``: `pmcts_pu` with weight 1 on one script and 0 on the others (and with the
  default weights, 0.5 each) against two `tribolo_ai:search=paranoid`, one game per set-up
  seed 0..N-1, its seat cycling blue, red, green; per style the mean of every feature over
  the games with a 95% interval (normal approximation, 1.96 standard errors), and its mean
  share of first place. Then, in `--positions` positions of random games, the share of its
  decisions that play each script's proposal (does the weight steer the choice?).
* ``speed`` (only when asked for): microseconds per position for the six scripts, median of
  5 passes over the 640 positions of `bench_tribolo.py`.
* with ``ranges``, ``overlap``: how often each script proposes a move and how often two
  scripts propose the same move (the move then keeps the first script's weight).

    PYTHONPATH=. python experiments/tribolo_styles.py [--part ranges|weights|speed|all]
        [--games 30] [--budget 60] [--horizon 6] [--positions 80]
        [--styles MostCells,EdgesCorners,...,default] [--seed 0] [--markdown]
        [--rows-out PREFIX]

Every figure is computed from per-game (or per-position) rows: `--rows-out PREFIX` writes them
to `PREFIX_ranges.csv` (player, game, seat, every feature), `PREFIX_overlap.csv` (position,
each script's proposed move, empty when none), `PREFIX_weights.csv` (style, game, seat, every
feature, first-place share, CPU seconds) and `PREFIX_follow.csv` (style, position, for each
script 1 when the decision played its move), for the parts run; `summaries(rows)` turns them
back into the printed figures.

The pmcts_pu player gets a horizon (default 6 moves, two rounds): Tribolo has no search
horizon of its own, so rollouts would run to the end of the game and a budget of 60 calls
would not finish one iteration.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from agents.portfolio.script import make_context, scripts_of
from agents.registry import make_agent
from games.registry import get_game
from play.runner import play_game
from play.specs import parse_agent_spec
from qd.features import PlayerGame, features_of

GAME = "tribolo"
CONSTANT = ("rounds", "win_round")
"""Features of every game left out of the Markdown tables: a Tribolo game lasts 41-42
rounds whoever plays."""


class ScriptPlayer:
    """Plays one script's proposal (a random legal move when it proposes none).

    Args:
        script: the script's name.
        seed: seed of the tie-breaking and fallback generator.
    """

    def __init__(self, script: str, seed: int = 0) -> None:
        self.fn = scripts_of(GAME)[script].fn
        self.rng = np.random.default_rng(seed)

    def act(self, state):
        actions = list(state.legal_actions())
        got = self.fn(make_context(GAME, state, self.rng), state.current_player, actions)
        return got[0] if got is not None else actions[int(self.rng.integers(len(actions)))]


class RandomPlayer(ScriptPlayer):
    """A uniformly random legal move.

    Args:
        seed: seed of its generator.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, state):
        actions = state.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]


def feature_values(state, player: int) -> dict[str, float]:
    """Every Tribolo feature of one player in a finished game."""
    g = PlayerGame.from_events(state.events(), player, state.winner(), state.tick,
                               state.summary(player))
    return {name: f.fn(g) for name, f in features_of(GAME).items()}


def play(level: int, agents: list) -> object:
    state = get_game(GAME).new_state(level, 0)
    play_game(state, agents)
    return state


def spread(values: list[float]) -> dict:
    v = np.array([x for x in values if not math.isnan(x)])
    if not v.size:
        return {}
    p5, p50, p95 = np.percentile(v, [5, 50, 95])
    return {"min": round(float(v.min()), 3), "p5": round(float(p5), 3),
            "median": round(float(p50), 3), "p95": round(float(p95), 3),
            "max": round(float(v.max()), 3), "n": int(v.size)}


def interval(values: list[float]) -> dict:
    v = [x for x in values if not math.isnan(x)]
    m = statistics.mean(v)
    half = 1.96 * statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else math.nan
    return {"mean": round(m, 3), "ci95": [round(m - half, 3), round(m + half, 3)]}


def ranges_rows(games: int, seed: int) -> list[dict]:
    """Per-game feature values of random, scripted and original-AI players: one row per
    player and game."""
    rows = []
    for k in range(games):
        s = play(k, [RandomPlayer(seed + 3 * k + p) for p in range(3)])
        rows += [{"player": "random", "game": k, "seat": p, **feature_values(s, p)}
                 for p in range(3)]
    for name in scripts_of(GAME):
        for k in range(games):
            seat = k % 3
            agents = [RandomPlayer(seed + 3 * k + p) for p in range(3)]
            agents[seat] = ScriptPlayer(name, seed + 3 * k + seat)
            rows.append({"player": name, "game": k, "seat": seat,
                         **feature_values(play(k, agents), seat)})
    for k in range(max(1, games // 3)):
        agents = [parse_agent_spec("tribolo_ai:search=paranoid", seed=seed + 3 * k + p, game=GAME)
                  for p in range(3)]
        s = play(k, agents)
        rows += [{"player": "tribolo_ai", "game": k, "seat": p, **feature_values(s, p)}
                 for p in range(3)]
    return rows


KEYS = ("player", "style", "game", "seat", "position", "first_place", "cpu_seconds")
"""Row columns that are not features (or scripts)."""


def ranges(rows: list[dict]) -> dict:
    """Per player type and feature, the spread of the per-game values (random players and
    the original AI first, then the scripts)."""
    order = ["random", "tribolo_ai"] + list(dict.fromkeys(
        r["player"] for r in rows if r["player"] not in ("random", "tribolo_ai")))
    names = [c for c in rows[0] if c not in KEYS]
    return {who: {f: spread([r[f] for r in rows if r["player"] == who]) for f in names}
            for who in order if any(r["player"] == who for r in rows)}


def decision_positions(games: int, seed: int, every: int = 4) -> list:
    """Every `every`-th position with more than one legal move of random games on the set-up
    seeds 0..games-1."""
    rng = np.random.default_rng(seed)
    out = []
    for level in range(games):
        s = get_game(GAME).new_state(level, 0)
        k = 0
        while not s.is_terminal():
            acts = s.legal_actions()
            if len(acts) > 1:
                if k % every == 0:
                    out.append(s.copy())
                k += 1
            s.apply(acts[int(rng.integers(len(acts)))])
    return out


def proposals(state, seed: int) -> dict:
    """Each script's proposed move in a position (None when it proposes none)."""
    ctx = make_context(GAME, state, np.random.default_rng(seed))
    acts = list(state.legal_actions())
    out = {}
    for name, info in scripts_of(GAME).items():
        got = info.fn(ctx, state.current_player, acts)
        out[name] = got[0] if got is not None else None
    return out


def overlap_rows(games: int, seed: int) -> list[dict]:
    """Per position of random games: each script's proposed move (its repr; "" when it
    proposes none)."""
    return [{"position": i, **{n: "" if m is None else repr(m)
                               for n, m in proposals(s, seed + i).items()}}
            for i, s in enumerate(decision_positions(games, seed))]


def overlap(rows: list[dict]) -> dict:
    """How often each script proposes a move, and how often two scripts propose the same
    one (a move proposed twice keeps the first script's weight)."""
    names = [c for c in rows[0] if c not in KEYS]
    n = len(rows)
    same = {f"{a}+{b}": round(sum(p[a] != "" and p[a] == p[b] for p in rows) / n, 3)
            for i, a in enumerate(names) for b in names[i + 1:]}
    return {"positions": n,
            "proposes": {a: round(sum(p[a] != "" for p in rows) / n, 3) for a in names},
            "distinct_moves": round(statistics.mean(
                len({p[a] for a in names if p[a] != ""}) for p in rows), 2),
            "same_move": dict(sorted(same.items(), key=lambda kv: -kv[1]))}


def follow_rows(positions: int, budget: int, horizon: int, styles: list[str],
                seed: int) -> list[dict]:
    """Per weight vector and position of random games: for each script, 1 when pmcts_pu's
    decision plays the script's move."""
    states = decision_positions(12, seed + 7, every=6)[:positions]
    props = [proposals(s, seed) for s in states]
    scripts = list(scripts_of(GAME))
    rows = []
    for style in styles:
        w = None if style == "default" else {n: float(n == style) for n in scripts}
        agent = make_agent("pmcts_pu", game=GAME, seed=seed, budget=budget, horizon=horizon,
                           weights=w)
        for i, (s, p) in enumerate(zip(states, props)):
            m = agent.act(s.copy())
            rows.append({"style": style, "position": i, **{n: int(m == p[n]) for n in scripts}})
    return rows


def follow(rows: list[dict]) -> dict:
    """Share of pmcts_pu's decisions that play the move of each script, per weight vector."""
    names = [c for c in rows[0] if c not in KEYS]
    styles = list(dict.fromkeys(r["style"] for r in rows))
    return {st: {n: round(statistics.mean(r[n] for r in rows if r["style"] == st), 3)
                 for n in names} for st in styles}


def speed(reps: int = 6) -> dict:
    """Microseconds per position for all six scripts (`produce_assignments` with the default
    portfolio, shared facts included), for the shared facts alone, and for each script once
    the facts are there: medians over `reps` - 1 timed passes (the first warms up) over the
    640 positions of the Tribolo engine benchmark."""
    from bench_tribolo import snapshots  # beside this script

    from agents.portfolio import portfolio, produce_assignments
    states = [s for s in snapshots(20, 42) if not s.is_terminal()]
    pf = portfolio(GAME)
    rng = np.random.default_rng(0)
    rows: dict[str, list[float]] = {"all": [], "facts": [], **{n: [] for n in scripts_of(GAME)}}
    assignments = 0
    for rep in range(reps):
        t0 = time.perf_counter()
        for s in states:
            assignments += len(produce_assignments(s, pf, rng))
        t = {"all": time.perf_counter() - t0, "facts": 0.0, **{n: 0.0 for n in scripts_of(GAME)}}
        for s in states:
            ctx = make_context(GAME, s, rng)
            acts = list(s.legal_actions())
            t0 = time.perf_counter()
            ctx.facts(acts)
            _ = ctx.leaders, ctx.anchors
            t["facts"] += time.perf_counter() - t0
            for name, info in scripts_of(GAME).items():
                t0 = time.perf_counter()
                info.fn(ctx, s.current_player, acts)
                t[name] += time.perf_counter() - t0
        if rep:
            for k, v in t.items():
                rows[k].append(v / len(states) * 1e6)
    return {"positions": len(states), "us_per_position": {
                k: round(statistics.median(v), 1) for k, v in rows.items()},
            "assignments_per_position": round(assignments / reps / len(states), 2),
            "legal_moves_per_position": round(statistics.mean(
                len(s.legal_actions()) for s in states), 1)}


def weights_rows(games: int, budget: int, horizon: int, styles: list[str],
                 seed: int) -> list[dict]:
    """pmcts_pu with all weight on one script, against two original AIs: one row per style
    and game (its features, share of first place and CPU seconds)."""
    scripts = list(scripts_of(GAME))
    out = []
    for style in styles:
        w = None if style == "default" else {n: float(n == style) for n in scripts}
        for k in range(games):
            seat = k % 3
            agents = [parse_agent_spec("tribolo_ai:search=paranoid", seed=seed + 3 * k + p,
                                       game=GAME) for p in range(3)]
            agents[seat] = make_agent("pmcts_pu", game=GAME, seed=seed + 3 * k + seat,
                                      budget=budget, horizon=horizon, weights=w)
            t0 = time.process_time()
            s = play(k, agents)
            seconds = time.process_time() - t0
            out.append({"style": style, "game": k, "seat": seat, **feature_values(s, seat),
                        "first_place": s.results()[seat], "cpu_seconds": seconds})
    return out


def weights(rows: list[dict]) -> dict:
    """Per style, the mean of every feature over its games with a 95% interval, its share of
    first place and its games' CPU seconds."""
    names = [c for c in rows[0] if c not in KEYS]
    out = {}
    for style in dict.fromkeys(r["style"] for r in rows):
        mine = [r for r in rows if r["style"] == style]
        res = {f: interval([r[f] for r in mine]) for f in names}
        res["first_place_share"] = interval([r["first_place"] for r in mine])
        res["cpu_seconds"] = round(sum(r["cpu_seconds"] for r in mine), 1)
        out[style] = res
    return out


PARTS = {"ranges": ranges, "overlap": overlap, "weights": weights, "follow": follow}
"""Each part's summary of its rows."""


def write_rows(prefix: str, part: str, rows: list[dict]) -> None:
    """`PREFIX_part.csv`, a new file."""
    path = Path(f"{prefix}_{part}.csv")
    if path.exists():
        raise SystemExit(f"--rows-out: {path} exists; give a new prefix")
    pd.DataFrame(rows).to_csv(path, index=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("ranges", "weights", "speed", "all"), default="all")
    ap.add_argument("--games", type=int, default=30, help="games per player type or style")
    ap.add_argument("--budget", type=int, default=60, help="pmcts_pu forward-model calls")
    ap.add_argument("--horizon", type=int, default=6, help="pmcts_pu tree and rollout depth")
    ap.add_argument("--styles", default="MostCells,EdgesCorners,BlockLeader,FollowAlly,"
                                        "MultiLine,Mobility,default",
                    help="scripts given all the weight, comma-separated ('default': 0.5 each)")
    ap.add_argument("--positions", type=int, default=80,
                    help="positions of the follow measurement")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="also print Markdown tables")
    ap.add_argument("--rows-out", metavar="PREFIX", default=None,
                    help="write each part's rows to PREFIX_<part>.csv (new files)")
    args = ap.parse_args()
    out: dict = {"games": args.games}
    styles = args.styles.split(",")
    rows: dict[str, list[dict]] = {}
    if args.part in ("ranges", "all"):
        rows["ranges"] = ranges_rows(args.games, args.seed)
        rows["overlap"] = overlap_rows(args.games, args.seed)
    if args.part == "speed":
        out["speed"] = speed()
    if args.part in ("weights", "all"):
        rows["weights"] = weights_rows(args.games, args.budget, args.horizon, styles, args.seed)
        rows["follow"] = follow_rows(args.positions, args.budget, args.horizon, styles,
                                     args.seed)
    for part, summary in summaries(rows).items():
        out[part] = summary
    if "weights" in out:
        out["weights"] = {"budget": args.budget, "horizon": args.horizon,
                          "opponents": "tribolo_ai:search=paranoid", "styles": out["weights"]}
        out["follow"] = {"budget": args.budget, "horizon": args.horizon,
                         "positions": args.positions, "styles": out["follow"]}
    if args.rows_out:
        for part, r in rows.items():
            write_rows(args.rows_out, part, r)
    print(json.dumps(out, indent=2))
    if args.markdown:
        print(markdown(out))


def summaries(rows: dict[str, list[dict]]) -> dict:
    """Each part's printed figures from its rows (`ranges`, `overlap`, `weights`: per style,
    `follow`: per style)."""
    return {part: PARTS[part](r) for part, r in rows.items()}


def markdown(out: dict) -> str:
    """The measured figures as Markdown tables."""
    lines = []
    if "ranges" in out:
        feats = [f for f in next(iter(out["ranges"].values())) if f not in CONSTANT]
        lines += ["| player | " + " | ".join(feats) + " |", "|---" * (len(feats) + 1) + "|"]
        for who, fs in out["ranges"].items():
            lines.append(f"| {who} | " + " | ".join(
                f"{fs[f]['p5']:g}-{fs[f]['p95']:g} ({fs[f]['min']:g}-{fs[f]['max']:g})"
                for f in feats) + " |")
        lines.append("")
    if "weights" in out:
        styles = out["weights"]["styles"]
        feats = [f for f in next(iter(styles.values()))
                 if f not in CONSTANT and f != "cpu_seconds"]
        lines += ["| all weight on | " + " | ".join(feats) + " |", "|---" * (len(feats) + 1) + "|"]
        for style, fs in styles.items():
            lines.append(f"| {style} | " + " | ".join(
                f"{fs[f]['mean']:g} [{fs[f]['ci95'][0]:g}, {fs[f]['ci95'][1]:g}]"
                for f in feats) + " |")
    if "follow" in out:
        styles = out["follow"]["styles"]
        names = list(next(iter(styles.values())))
        lines += ["", "| all weight on | plays the move of " + " | ".join(names) + " |",
                  "|---" * (len(names) + 1) + "|"]
        for style, shares in styles.items():
            lines.append(f"| {style} | " + " | ".join(f"{shares[n]:g}" for n in names) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
