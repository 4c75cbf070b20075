"""Does a preset's time per move hold? A preset played with `load_preset(..., ms=T)` and a call
budget too large to be reached, so that only the clock stops its search, timed move by move.

The preset plays a game against `--opponent` from its file's game options, the way a game's
own loop calls it (`agent.act(state)`, docs/presets.md), for `--moves` decisions at each time
limit. A move the time limit stopped (`timed_out`) is measured from the call to `act` to its
return, so it includes everything the agent does around its search (setting up the root,
choosing the action, freeing the tree). Printed per time limit: the moves, how many the clock
stopped, their time as a share of the limit (median, 95th percentile, largest) and how many
ended within 20% of it, and the calls the search made (median). Moves with nothing to search
(one legal action, one script assignment) return at once and are counted apart.

    python experiments/bench_preset_time.py [--preset FILE#NAME] [--ms 10 20 50 100 200 500]
        [--moves 30] [--opponent random] [--level 1] [--seed 3] [--json]

The figures are wall-clock times on the machine that runs it, with whatever else runs there:
a move may wait for the processor (the load average is printed), which the CPU columns leave
out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from agents.search import MAX_BUDGET
from games.registry import get_game
from play.presets import load_preset
from play.specs import parse_agent_spec

DEFAULT_PRESET = Path(__file__).resolve().parent / "results" / "quickstart_counts" / "ladder" \
    / "presets_difficulty.json"
TOLERANCE = 0.20


def timed_moves(preset: str, ms: float, moves: int, opponent: str, level: int,
                seed: int) -> list[tuple]:
    """The preset's decisions in one game at `ms` per move, at most `moves` of them: each
    one's `PresetAgent.moves` entry and the CPU milliseconds of the process during it (the
    wall-clock time less the time other programs had the processor).

    Args:
        preset: FILE#NAME (NAME: a name, slug or position; none: the first preset).
        ms: milliseconds per move.
        moves: decisions to time.
        opponent: the other players' agent spec.
        level: the level seed.
        seed: the game's seed (the agents' seeds follow from it).
    """
    path, _, name = preset.partition("#")
    agent = load_preset(path, name or None, seed=seed, ms=ms, budget=MAX_BUDGET)
    game = get_game(agent.game)
    state = game.new_state(level, seed, **agent.options)
    others = [parse_agent_spec(opponent, seed=seed + 1 + p, game=agent.game)
              for p in range(state.num_players)]
    cpu = []
    while not state.is_terminal() and len(agent.moves) < moves:
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
        elif state.current_player == 0:
            c0 = time.process_time()
            state.apply(agent.act(state))
            cpu.append((time.process_time() - c0) * 1000.0)
        else:
            state.apply(others[state.current_player].act(state))
    return list(zip(agent.moves, cpu))


def _share(values: list[float]) -> dict:
    v = sorted(values)
    return {"median": round(statistics.median(v), 3),
            "p95": round(v[min(len(v) - 1, int(0.95 * len(v)))], 3), "max": round(v[-1], 3)}


def summary(ms: float, moves: list[tuple]) -> dict:
    """The figures of one time limit (module text).

    Args:
        ms: the time limit.
        moves: (move, CPU milliseconds) of each decision (`timed_moves`).
    """
    stopped = [(m, c) for m, c in moves if m.timed_out]
    out = {"ms": ms, "moves": len(moves), "stopped_by_time": len(stopped),
           "returned_early": len(moves) - len(stopped)}
    if stopped:
        out["wall"] = _share([m.ms / ms for m, _ in stopped])
        out["wall"]["within_20pct"] = sum(abs(m.ms / ms - 1) <= TOLERANCE for m, _ in stopped)
        out["cpu"] = _share([c / ms for _, c in stopped])
        out["calls_median"] = statistics.median(m.calls for m, _ in stopped)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default=f"{DEFAULT_PRESET}#level 4 (hardest)")
    ap.add_argument("--ms", type=float, nargs="+", default=[10, 20, 50, 100, 200, 500])
    ap.add_argument("--moves", type=int, default=30)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args()
    rows = [summary(ms, timed_moves(a.preset, ms, a.moves, a.opponent, a.level, a.seed))
            for ms in a.ms]
    if a.json:
        print(json.dumps({"machine": platform.processor() or platform.machine(),
                          "cores": os.cpu_count(), "load_average": os.getloadavg()[0],
                          "preset": Path(a.preset).name, "rows": rows}, indent=2))
        return
    print(f"preset {Path(a.preset).name}, opponent {a.opponent}, level {a.level}, "
          f"seed {a.seed}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("the moves the clock stopped: their time as a share of the limit, wall clock and "
          "this process's CPU")
    print(f"{'ms':>6} {'moves':>6} {'stopped':>8} | {'wall: median':>12} {'p95':>6} {'max':>6} "
          f"{'within 20%':>10} | {'cpu: median':>11} {'p95':>6} {'max':>6} | {'calls':>6}")
    for r in rows:
        line = f"{r['ms']:>6g} {r['moves']:>6} {r['stopped_by_time']:>8}"
        if "wall" in r:
            w, c = r["wall"], r["cpu"]
            within = f"{w['within_20pct']}/{r['stopped_by_time']}"
            line += (f" | {w['median']:>12.3f} {w['p95']:>6.3f} {w['max']:>6.3f} {within:>10}"
                     f" | {c['median']:>11.3f} {c['p95']:>6.3f} {c['max']:>6.3f}"
                     f" | {r['calls_median']:>6g}")
        print(line)


if __name__ == "__main__":
    main()
