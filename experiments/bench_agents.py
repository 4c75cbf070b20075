"""Time per decision of the search agents, printed as JSON, against the reference's Java figure.

MCTS and RHEA (2000 forward-model calls per decision, paper settings) play each other on the
first `--levels` paper levels, once in each seat order, for at most `--rounds` rounds. Like the
reference's measurement, every decision is timed, including the trivial ones where End Turn is
the only legal action (the agents return it at once); the non-trivial ones are also reported
alone. The reference's MCTS (2000 FM calls, no rollouts) took a median of 42 ms per decision
over its game sides (pooled mean 47 ms) in whole MCTS-vs-MCTS games; the ratios printed here are
to those figures, so they compare the agent's speed, not the same games.

    python experiments/bench_agents.py [--levels 2] [--rounds 10] [--budget 2000]
        [--mcts mcts:charge_selection=true] [--rhea rhea:population=20]

`--mcts`/`--rhea` take agent specs (`name:key=value,...`) to time other settings; with
`charge_selection=true` MCTS also spends one call per selection step, as the reference counts,
and so does about as much work per decision as the reference's MCTS.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from agents.registry import parse_agent_spec
from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS

REFERENCE_MEDIAN_MS = 42.0
REFERENCE_POOLED_MS = 47.0


def play_timed(state, agents, budget: int) -> list[list[tuple[float, float, bool]]]:
    """Play one game; per player, (CPU seconds, wall seconds, trivial) of every decision.
    CPU time of this process is the headline figure: it does not count time the machine
    spent on other work, which wall-clock time on a shared machine does."""
    times: list[list[tuple[float, float, bool]]] = [[] for _ in agents]
    cpu, wall = time.process_time, time.perf_counter
    while not state.is_terminal():
        p = state.current_player
        trivial = len(state.legal_actions()) == 1
        c0, w0 = cpu(), wall()
        a = agents[p].act(state, budget)
        times[p].append((cpu() - c0, wall() - w0, trivial))
        state.apply(a)
    return times


def summary(samples: list[tuple[float, float, bool]], sides: list[list]) -> dict:
    ms = [c * 1000 for c, _, _ in samples]
    wall = [w * 1000 for _, w, _ in samples]
    real = [c * 1000 for c, _, trivial in samples if not trivial]
    side_means = [1000 * sum(c for c, _, _ in s) / len(s) for s in sides if s]
    return {
        "decisions": len(ms),
        "nontrivial_decisions": len(real),
        "median_ms": round(statistics.median(ms), 1) if ms else None,
        "pooled_mean_ms": round(statistics.fmean(ms), 1) if ms else None,
        "median_of_side_means_ms": round(statistics.median(side_means), 1) if side_means else None,
        "side_means_ms": [round(v, 1) for v in side_means],
        "nontrivial_median_ms": round(statistics.median(real), 1) if real else None,
        "nontrivial_pooled_mean_ms": round(statistics.fmean(real), 1) if real else None,
        "wall_median_ms": round(statistics.median(wall), 1) if wall else None,
        "wall_pooled_mean_ms": round(statistics.fmean(wall), 1) if wall else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=2, help="first N paper levels")
    ap.add_argument("--rounds", type=int, default=10, help="round limit of each game")
    ap.add_argument("--budget", type=int, default=2000, help="FM calls per decision")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mcts", default="mcts", help="agent spec of the MCTS side")
    ap.add_argument("--rhea", default="rhea", help="agent spec of the RHEA side")
    args = ap.parse_args()
    game = get_game("tribes")
    per_agent: dict[str, list] = {"mcts": [], "rhea": []}
    sides: dict[str, list] = {"mcts": [], "rhea": []}
    games = []
    t_all = time.perf_counter()
    for k, level in enumerate(PAPER_SEEDS[:args.levels]):
        for order in (("mcts", "rhea"), ("rhea", "mcts")):
            seed = args.seed + 2 * k + (order[0] == "rhea")
            state = game.new_state(level, seed, max_rounds=args.rounds)
            specs = {"mcts": args.mcts, "rhea": args.rhea}
            agents = [parse_agent_spec(specs[name], seed=seed + 100 * i)
                      for i, name in enumerate(order)]
            t0 = time.perf_counter()
            times = play_timed(state, agents, args.budget)
            for name, t in zip(order, times):
                per_agent[name].extend(t)
                sides[name].append(t)
            games.append({"level": level, "seats": list(order), "final_tick": state.tick,
                          "winner": order[state.winner()] if state.winner() is not None else None,
                          "seconds": round(time.perf_counter() - t0, 1)})
    out = {
        "python": platform.python_version(),
        "timing": "CPU time of this process per decision (wall-clock figures: wall_*)",
        "budget_fm_calls": args.budget,
        "agents": {"mcts": args.mcts, "rhea": args.rhea},
        "levels": args.levels,
        "max_rounds": args.rounds,
        "games": games,
        "mcts": summary(per_agent["mcts"], sides["mcts"]),
        "rhea": summary(per_agent["rhea"], sides["rhea"]),
        "reference_mcts_median_ms": REFERENCE_MEDIAN_MS,
        "reference_mcts_pooled_ms": REFERENCE_POOLED_MS,
        "total_seconds": round(time.perf_counter() - t_all, 1),
    }
    m = out["mcts"]
    if m["median_ms"] is not None:
        out["mcts_median_ratio_to_reference"] = round(m["median_ms"] / REFERENCE_MEDIAN_MS, 2)
        out["mcts_side_median_ratio_to_reference"] = round(
            m["median_of_side_means_ms"] / REFERENCE_MEDIAN_MS, 2)
        out["mcts_pooled_ratio_to_reference"] = round(m["pooled_mean_ms"] / REFERENCE_POOLED_MS, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
