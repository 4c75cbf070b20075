"""Time per decision of the search agents, printed as JSON, against the reference's Java figures.

Two pairings, each played on the first `--levels` paper levels, once in each seat order, for at
most `--rounds` rounds, every agent at `--budget` forward-model calls per decision (paper
settings otherwise): MCTS vs RHEA, and P-MCTS PU vs MCTS (the reference's own P-MCTS
measurement was P-MCTS PU vs MCTS). Like the reference's measurement, every decision is timed,
including the trivial ones where End Turn is the only legal action (the agents return it at
once); the non-trivial ones are also reported alone. Reference medians over game sides (pooled
means in brackets), tribes-agents.md 13.2: MCTS without rollouts 42 ms (47) per decision in
MCTS-vs-MCTS games; P-MCTS PU 241 ms (284) against MCTS. The ratios printed here are to those
figures, so they compare the agents' speed, not the same games (the reference's games ran up to
51 rounds; later rounds have more units and actions, so short games flatter the port). With
`--rounds 50`, games that reach round 50 are also compared with the reference's CPU time of a
50-round P-MCTS PU vs MCTS game (about 145 s; `cpu_seconds_deciding` per game).

    python experiments/bench_agents.py [--levels 2] [--rounds 10] [--budget 2000]
        [--pairings mcts-rhea,pmcts-mcts] [--mcts mcts]
        [--rhea rhea:population=20] [--pmcts pmcts_pu:rollouts=random]

`--positions N` times single decisions instead, on the reference's kind of positions: N
decision states taken evenly from rule-based games on the first `--levels` paper levels (the
reference used 12), one MCTS and one P-MCTS PU decision on each at `--budget` calls. It prints
ms per decision, iterations and ms per iteration, the ratios to the reference's figures on its
2,782 positions (MCTS without rollouts 26-27 ms, 757 iterations, so 0.035 ms per iteration;
P-MCTS PU 300-308 ms, 101 iterations) and the peak memory of the process.

`--mcts`/`--rhea`/`--pmcts` take agent specs (`name:key=value,...`) to time other settings. The
MCTS side defaults to the reference's measured configuration, `mcts:rollouts=false`; `--mcts mcts`
times the project's default (random rollouts to the horizon). With `charge_selection=true` MCTS
(or P-MCTS) also spends one call per selection step, as the reference counts, and so does about
as much work per decision as the reference.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from bench_engine import peak_memory_mb, snapshots

from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS
from games.tribes.levelgen import generate_level
from play.specs import parse_agent_spec

REFERENCE_MEDIAN_MS = 42.0
REFERENCE_POOLED_MS = 47.0
REFERENCE_PMCTS_MEDIAN_MS = 241.0
REFERENCE_PMCTS_POOLED_MS = 284.0
PAIRINGS = ("mcts-rhea", "pmcts-mcts")
REFERENCE_GAME_CPU_S = 145.0  # a 50-round P-MCTS PU vs MCTS game, Java
# single decisions on the reference's 2,782 rule-based positions (Java, one thread)
REFERENCE_POSITION_MCTS_MS = 26.5
REFERENCE_POSITION_MCTS_ITERATIONS = 757
REFERENCE_POSITION_PMCTS_MS = 304.0
REFERENCE_POSITION_PMCTS_ITERATIONS = 101


def play_timed(state, agents) -> list[list[tuple[float, float, bool]]]:
    """Play one game; per player, (CPU seconds, wall seconds, trivial) of every decision.
    CPU time of this process is the headline figure: it does not count time the machine
    spent on other work, which wall-clock time on a shared machine does."""
    times: list[list[tuple[float, float, bool]]] = [[] for _ in agents]
    cpu, wall = time.process_time, time.perf_counter
    while not state.is_terminal():
        p = state.current_player
        trivial = len(state.legal_actions()) == 1
        c0, w0 = cpu(), wall()
        a = agents[p].act(state)
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


def play_pairing(first: str, second: str, specs: dict[str, str], game, levels, rounds: int,
                 budget: int, seed0: int) -> tuple[dict, dict, list]:
    """Both seat orders on every level; per agent its decision times and its game sides."""
    per_agent: dict[str, list] = {first: [], second: []}
    sides: dict[str, list] = {first: [], second: []}
    games = []
    for k, level in enumerate(levels):
        for order in ((first, second), (second, first)):
            seed = seed0 + 2 * k + (order[0] == second)
            state = game.new_state(level, seed, max_rounds=rounds)
            agents = [parse_agent_spec(specs[name], seed=seed + 100 * i, budget=budget)
                      for i, name in enumerate(order)]
            t0 = time.perf_counter()
            times = play_timed(state, agents)
            for name, t in zip(order, times):
                per_agent[name].extend(t)
                sides[name].append(t)
            games.append({"level": level, "seats": list(order), "final_tick": state.tick,
                          "winner": order[state.winner()] if state.winner() is not None else None,
                          "seconds": round(time.perf_counter() - t0, 1),
                          "cpu_seconds_deciding": round(sum(c for t in times for c, _, _ in t), 1)})
    return per_agent, sides, games


def ratios(out: dict, key: str, median_ms: float, pooled_ms: float) -> None:
    m = out[key]
    if m["median_ms"] is not None:
        out[f"{key}_median_ratio_to_reference"] = round(m["median_ms"] / median_ms, 2)
        out[f"{key}_side_median_ratio_to_reference"] = round(
            m["median_of_side_means_ms"] / median_ms, 2)
        out[f"{key}_pooled_ratio_to_reference"] = round(m["pooled_mean_ms"] / pooled_ms, 2)


def time_positions(states: list, specs: dict[str, str], budget: int, seed: int) -> dict:
    """One decision per agent on every state: CPU ms per decision and per iteration, against
    the reference's figures.

    Args:
        states: decision states (not modified).
        specs: agent specs by role ("mcts", "pmcts").
        budget: forward-model calls per decision.
        seed: the agents' seed.
    """
    reference = {"mcts": (REFERENCE_POSITION_MCTS_MS, REFERENCE_POSITION_MCTS_ITERATIONS),
                 "pmcts": (REFERENCE_POSITION_PMCTS_MS, REFERENCE_POSITION_PMCTS_ITERATIONS)}
    out: dict = {}
    cpu = time.process_time
    for role, spec in specs.items():
        agent = parse_agent_spec(spec, seed=seed, budget=budget)
        agent.act(states[0].copy())  # warm-up: imports, caches
        ms, its = [], []
        for st in states:
            c0 = cpu()
            agent.act(st)
            ms.append(1000 * (cpu() - c0))
            its.append(agent.last_iterations)
        ref_ms, ref_its = reference[role]
        per_it = sum(ms) / max(1, sum(its))
        out[role] = {
            "agent": spec,
            "decisions": len(ms),
            "median_ms": round(statistics.median(ms), 1),
            "mean_ms": round(statistics.fmean(ms), 1),
            "mean_iterations": round(statistics.fmean(its), 1),
            "ms_per_iteration": round(per_it, 4),
            "reference_ms": ref_ms,
            "reference_iterations": ref_its,
            "time_vs_reference": round(statistics.fmean(ms) / ref_ms, 2),
            "time_per_iteration_vs_reference": round(per_it / (ref_ms / ref_its), 2),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=2, help="first N paper levels")
    ap.add_argument("--rounds", type=int, default=10, help="round limit of each game")
    ap.add_argument("--budget", type=int, default=2000, help="FM calls per decision")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairings", default=",".join(PAIRINGS),
                    help=f"comma-separated subset of {', '.join(PAIRINGS)}")
    ap.add_argument("--mcts", default="mcts:rollouts=false",
                    help="agent spec of the MCTS side (default: the reference's configuration)")
    ap.add_argument("--rhea", default="rhea", help="agent spec of the RHEA side")
    ap.add_argument("--pmcts", default="pmcts_pu", help="agent spec of the P-MCTS side")
    ap.add_argument("--positions", type=int, default=0,
                    help="time single decisions on this many rule-based positions instead")
    args = ap.parse_args()
    if args.positions:
        t0 = time.perf_counter()
        levels = [generate_level(s) for s in PAPER_SEEDS[:args.levels]]
        states = snapshots(levels, args.seed, "rule_based")
        step = max(1, len(states) // args.positions)
        states = states[::step][:args.positions]
        result = {"python": platform.python_version(),
                  "timing": "CPU time of this process per decision",
                  "budget_fm_calls": args.budget, "levels": args.levels,
                  "positions": len(states),
                  "legal_actions_per_position": round(statistics.fmean(
                      len(st.legal_actions()) for st in states), 1),
                  **time_positions(states, {"mcts": args.mcts, "pmcts": args.pmcts},
                                   args.budget, args.seed),
                  "peak_memory_mb": peak_memory_mb(),
                  "total_seconds": round(time.perf_counter() - t0, 1)}
        print(json.dumps(result, indent=2))
        return
    pairings = [p.strip() for p in args.pairings.split(",") if p.strip()]
    bad = [p for p in pairings if p not in PAIRINGS]
    if bad or not pairings:
        ap.error(f"--pairings: unknown {bad}; choose from {', '.join(PAIRINGS)}")
    game = get_game("tribes")
    levels = PAPER_SEEDS[:args.levels]
    specs = {"mcts": args.mcts, "rhea": args.rhea, "pmcts": args.pmcts}
    t_all = time.perf_counter()
    out: dict = {
        "python": platform.python_version(),
        "timing": "CPU time of this process per decision (wall-clock figures: wall_*)",
        "budget_fm_calls": args.budget,
        "agents": {name: specs[name] for p in pairings for name in p.split("-")},
        "levels": args.levels,
        "max_rounds": args.rounds,
    }
    if "mcts-rhea" in pairings:
        per_agent, sides, games = play_pairing("mcts", "rhea", specs, game, levels, args.rounds,
                                               args.budget, args.seed)
        out["games"] = games
        out["mcts"] = summary(per_agent["mcts"], sides["mcts"])
        out["rhea"] = summary(per_agent["rhea"], sides["rhea"])
        out["reference_mcts_median_ms"] = REFERENCE_MEDIAN_MS
        out["reference_mcts_pooled_ms"] = REFERENCE_POOLED_MS
        ratios(out, "mcts", REFERENCE_MEDIAN_MS, REFERENCE_POOLED_MS)
    if "pmcts-mcts" in pairings:
        per_agent, sides, games = play_pairing("pmcts", "mcts", specs, game, levels, args.rounds,
                                               args.budget, args.seed)
        out["pmcts_games"] = games
        out["pmcts"] = summary(per_agent["pmcts"], sides["pmcts"])
        out["mcts_vs_pmcts"] = summary(per_agent["mcts"], sides["mcts"])
        out["reference_pmcts_median_ms"] = REFERENCE_PMCTS_MEDIAN_MS
        out["reference_pmcts_pooled_ms"] = REFERENCE_PMCTS_POOLED_MS
        ratios(out, "pmcts", REFERENCE_PMCTS_MEDIAN_MS, REFERENCE_PMCTS_POOLED_MS)
        full = [g["cpu_seconds_deciding"] for g in games if g["final_tick"] >= 50]
        if full:  # whole 50-round games, as the reference's measurement
            out["reference_50_round_game_cpu_s"] = REFERENCE_GAME_CPU_S
            out["50_round_game_cpu_s_vs_reference"] = round(
                statistics.fmean(full) / REFERENCE_GAME_CPU_S, 2)
    out["peak_memory_mb"] = peak_memory_mb()
    out["total_seconds"] = round(time.perf_counter() - t_all, 1)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
