"""One-ply MCTS over action trees (`atree`) in Tribes, against the project's agents at equal
forward-model budgets, with the seat effect.

The main table plays `--agent` (default: `atree`, greedy rollouts, choice by value, the
type/source action tree) against `mcts:rollouts=false` (the paper's MCTS), `pmcts_pu`,
`rule_based` and `rhea`. The variants table plays other agents against the rule-based agent,
the source's reference opponent (claims 9 and 11 of the action-tree notes): one-step
look-ahead, random, and `atree` with random rollouts, with choice by visits, and without the
action tree. The baselines table plays the source's turn-level baselines against the same
agent (claims 9 and 10): Hillclimb (`hillclimb`), Rollout(Random) and Rollout(Greedy)
(`turn_rollout`, one rollout to the end of the turn per action), Rollout(Greedy) with
greedy steps over 8 random candidates, and with them random, one-step look-ahead and `atree`
itself, so that the table stands on its own at any `--repetitions`. Every pairing plays each
level twice per repetition pair with the seats alternating, through the tournament machinery
(on Ray unless `--workers 0`). Printed: win rates with Wilson 95% intervals, and each agent's
win rate as first and as second player.

    python experiments/action_trees.py --levels 25 --rounds 10 --budget 400 \
        --out experiments/results/action_trees
    python experiments/action_trees.py --levels 25 --rounds 10 --budget 400 \
        --repetitions 10 --tables baselines --workers 2 \
        --out experiments/results/action_trees/baselines
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from base.stats import wilson_interval
from games.registry import get_game
from play.tournament import TournamentConfig, parse_agent, run_tournament, to_markdown

OPPONENTS = ["mcts:rollouts=false", "pmcts_pu", "rule_based", "rhea"]
VARIANTS = ["osla", "random", "atree:rollout=random", "atree:final=visits",
            "atree:final=visits,tree=flat", "atree:tree=flat"]
BASELINES = ["random", "osla", "hillclimb", "turn_rollout:policy=random",
             "turn_rollout:policy=greedy", "turn_rollout:policy=greedy,greedy_k=8", "atree"]
TABLES = ("main", "variants", "baselines")
REFERENCE = "rule_based"


def seat_table(games: pd.DataFrame) -> str:
    """Each agent's wins as first player (seat 0) and as second (seat 1), Wilson 95%
    intervals, over all its games (as the pairing's first agent and as the opponent).

    Args:
        games: one row per game (`play.tournament.games_frame`).
    """
    rows = []
    for side, other in (("agent", "opponent"), ("opponent", "agent")):
        for _, g in games.iterrows():
            seat = int(g["agent_seat"]) if side == "agent" else 1 - int(g["agent_seat"])
            rows.append({"who": g[side], "seat": seat, "won": g["winner"] == seat})
    frame = pd.DataFrame(rows)
    lines = ["| agent | seat | games | win rate | 95% CI |", "|---|---|---|---|---|"]
    for who, g in frame.groupby("who", sort=False):
        for seat in (0, 1):
            s = g[g["seat"] == seat]
            wins, n = float(s["won"].sum()), len(s)
            lo, hi = wilson_interval(wins, n)
            lines.append(f"| {who} | {('first', 'second')[seat]} | {n} | "
                         f"{100 * wins / max(n, 1):.1f}% | {100 * lo:.1f}-{100 * hi:.1f}% |")
    seat0 = pd.Series([g["winner"] == 0 for _, g in games.iterrows()])
    lo, hi = wilson_interval(float(seat0.sum()), len(seat0))
    lines += ["", f"First player won {int(seat0.sum())} of {len(seat0)} games "
              f"({100 * seat0.mean():.1f}%, 95% CI {100 * lo:.1f}-{100 * hi:.1f}%); "
              f"draws {int(games['winner'].isna().sum())}."]
    return "\n".join(lines) + "\n"


def run(label: str, agent: str, opponents: list[str], args, out: Path | None) -> str:
    specs = [parse_agent(a, "agents", game="tribes").at_budget(args.budget, "tribes")
             for a in [agent] + opponents]
    levels = get_game("tribes").level_set("paper")[:args.levels]
    config = TournamentConfig(agents=specs, game="tribes", levels=levels,
                              pairings=[(0, i) for i in range(1, len(specs))],
                              repetitions=args.repetitions,
                              options={"max_rounds": args.rounds}, seed=args.seed)
    games, summary = run_tournament(config, out=out, workers=args.workers)
    cpu = games["seconds"].sum()
    return (f"### {label}\n\n{len(games)} games, {cpu:.0f} s of play\n\n"
            + to_markdown(summary) + "\nSeat effect:\n\n" + seat_table(games))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="atree", help="the agent measured (a spec)")
    ap.add_argument("--levels", type=int, default=10, help="the first N paper levels")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--budget", type=int, default=400, help="FM calls per decision, every agent")
    ap.add_argument("--repetitions", type=int, default=2, help="games per level (seats alternate)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--tables", default=",".join(TABLES),
                    help=f"comma-separated tables to play, of {', '.join(TABLES)}")
    ap.add_argument("--workers", type=int, default=None, help="0: play in this process")
    ap.add_argument("--out", default=None, help="write the tournaments and summary.md there")
    args = ap.parse_args()
    tables = [t for t in args.tables.split(",") if t]
    for t in tables:
        if t not in TABLES:
            ap.error(f"--tables: unknown table {t!r}; known: {', '.join(TABLES)}")
    out = Path(args.out) if args.out else None
    t0 = time.perf_counter()
    parts = [f"Tribes, first {args.levels} paper levels, {args.repetitions} games per level and "
             f"pairing (seats alternating), {args.rounds} rounds, {args.budget} forward-model "
             f"calls per decision for every agent with a budget; seed {args.seed}.\n"]
    if "main" in tables:
        parts.append(run(f"{args.agent} against the project's agents", args.agent, OPPONENTS,
                         args, out / "main" if out else None))
    against = (VARIANTS if "variants" in tables else []) + \
        (BASELINES if "baselines" in tables else [])
    for v in against:
        parts.append(run(f"{v} against {REFERENCE}", v, [REFERENCE], args,
                         out / v.replace(":", "_").replace(",", "_").replace("=", "-")
                         if out else None))
    parts.append(f"Wall time {time.perf_counter() - t0:.0f} s.\n")
    text = "\n".join(parts)
    print(text)
    if out:
        (out / "summary.md").write_text(text)


if __name__ == "__main__":
    main()
