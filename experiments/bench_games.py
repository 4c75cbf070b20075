"""Games per core-hour at the project's three settings, optionally for two source trees side by side.

A setting is a run config (and a few overrides) whose games are played in-process exactly as
a run plays them: `qd.config.config_from_dict(...).plan()`, `plan.games(genome, i)` gives the
game specs and `play.runner.run_game(spec)` plays one. Each setting plays a fixed set of
genomes (the control, then seeded random ones) and a fixed number of games per genome:

- `quickstart`: `experiments/quickstart.yaml` as it is (P-MCTS PU, 50 calls, 15 rounds,
  `expansion: prior`, the `weights` mapping);
- `usecase`: the use case, `experiments/usecase_visible.yaml` (the same agent and length),
  with the persona mapping (`agent.genome_mapping: persona`: the script weights and one gene
  per evaluation term);
- `paper`: a paper use case at the paper's length, `experiments/usecase_attacks_support.yaml`
  (P-MCTS PU against MCTS, 50 rounds, capitals), at 1000 calls, with the persona mapping.

The CPU time of each game is `time.process_time()` around `run_game` in the process that
plays it; games per core-hour is 3600 / (CPU seconds per game). A repetition plays the
setting's games once in a fresh process; the report gives the median over repetitions of the
CPU seconds per game (and its games per core-hour), with every repetition's figure and every
game's CPU seconds in every repetition, and the
share of the games' CPU time the cyclic garbage collector took (`gc.callbacks`; per game
`gc_s` and `gc_collections`).

Each game is also reduced to a digest (SHA-256 of its actions, winner, ranking, results,
rounds, summaries, events and decisions per seat), so that two trees can be checked to play
the same games.

    python experiments/bench_games.py [--settings quickstart,usecase,paper] [--reps 3]
        [--src TREE] [--src TREE] [--out FILE.json]

With `--src A --src B` each repetition runs A's code, then B's (A, B, A, B, ...), each in a
subprocess with PYTHONPATH set to that tree, on this tree's configs; the report gives each
tree's medians, the ratio B / A of games per core-hour per setting, and whether every game's
digest is the same in both trees. Without `--src` the current tree is measured (still in
subprocesses). `--games quickstart=2x3,paper=2x1` sets a setting's genomes x games per genome.

A tree runs its compiled modules where `pip install -e .` built them in it (`base/compiled.py`);
the report names them per tree (`compiled_modules`; null for a tree older than them, which runs
as Python). `PLAYSTYLES_PURE_PYTHON=1` in the environment runs every tree as Python.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (config file, overrides as dotted keys, genomes, games per genome)
SETTINGS: dict[str, tuple[str, dict, int, int]] = {
    "quickstart": ("experiments/quickstart.yaml", {}, 3, 4),
    "usecase": ("experiments/usecase_visible.yaml", {"agent.genome_mapping": "persona"}, 3, 4),
    "paper": ("experiments/usecase_attacks_support.yaml",
              {"agent.budget": 1000, "agent.genome_mapping": "persona"}, 2, 1),
}
GENOME_SEED = 7


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = None
    try:
        load = os.getloadavg()[0]
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "load_average_1min": load}


# ------------------------------------------------------------------------------ worker

def _digest(record, actions: list[str]) -> str:
    h = hashlib.sha256()
    h.update("\n".join(actions).encode())
    h.update(json.dumps([record.winner, record.ranking, record.rounds, record.summaries,
                         record.events, record.decisions, record.results],
                        sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def _set(data: dict, dotted: str, value) -> None:
    keys = dotted.split(".")
    d = data
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    d[keys[-1]] = value


def worker(setting: str, genomes: int, games: int, profile=None) -> dict:
    """Play one setting's games in this process (the code on sys.path); CPU seconds and
    digests. The game and the agents of the first game are built once before any timing, so
    that the modules they import lazily are not charged to the first game. `profile` (a
    `cProfile.Profile`), if given, is enabled around each game only."""
    import numpy as np

    from play.runner import new_state, run_game
    from qd.config import config_from_dict, read_yaml

    path, overrides, _, _ = SETTINGS[setting]
    data = read_yaml(ROOT / path)
    for k, v in overrides.items():
        _set(data, k, v)
    plan = config_from_dict(data, source=path, name=setting).plan()
    rng = np.random.default_rng(GENOME_SEED)
    control = plan.control()
    pool = [control] + [rng.random(len(control)) for _ in range(genomes - 1)]
    first = plan.games(pool[0], 0)[0]
    new_state(first)
    for a, seed in zip(first.agents, first.agent_seeds):
        a.build(seed, first.game)
    collector = _CollectorClock()
    out = []
    for i, genome in enumerate(pool):
        for spec in plan.games(genome, i)[:games]:
            actions: list[str] = []
            collector.reset()
            c0 = time.process_time()
            w0 = time.perf_counter()
            if profile is not None:
                profile.enable()
            record = run_game(spec, on_action=lambda a: actions.append(repr(a)))
            if profile is not None:
                profile.disable()
            cpu = time.process_time() - c0
            wall = time.perf_counter() - w0
            out.append({"genome": i, "tag": list(spec.tag) if hasattr(spec, "tag") else None,
                        "cpu_s": round(cpu, 4), "wall_s": round(wall, 4),
                        "gc_s": round(collector.seconds, 4), "gc_collections": collector.n,
                        "rounds": record.rounds, "actions": len(actions),
                        "digest": _digest(record, actions)})
    return {"setting": setting, "games": out, "compiled_modules": _compiled_in_use()}


class _CollectorClock:
    """CPU seconds and number of the cyclic collector's collections (`gc.callbacks`)."""

    def __init__(self) -> None:
        self.seconds, self.n, self._start = 0.0, 0, 0.0
        gc.callbacks.append(self._on)

    def reset(self) -> None:
        self.seconds, self.n = 0.0, 0

    def _on(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start
            self.n += 1


def _compiled_in_use() -> list[str] | None:
    """The compiled modules that played (`base.compiled`); None for a tree older than them."""
    try:
        from base.compiled import compiled_in_use
    except ImportError:
        return None
    return compiled_in_use()


# ------------------------------------------------------------------------------ driver

def run_tree(src: Path, setting: str, genomes: int, games: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", setting,
           "--games", f"{setting}={genomes}x{games}"]
    p = subprocess.run(cmd, env=env, cwd=str(src), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{src} {setting}: worker failed\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def commit_of(src: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def dirty(src: Path) -> bool | None:
    try:
        out = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True, check=True).stdout
        return bool(out.strip())
    except (OSError, subprocess.CalledProcessError):
        return None


def summarize(reps: list[dict]) -> dict:
    per_game = [statistics.fmean(g["cpu_s"] for g in r["games"]) for r in reps]
    med = statistics.median(per_game)
    gc_share = [sum(g.get("gc_s", 0.0) for g in r["games"]) / sum(g["cpu_s"] for g in r["games"])
                for r in reps]
    return {"reps": len(reps), "games_per_rep": len(reps[0]["games"]),
            "cpu_s_per_game_each_rep": [round(x, 3) for x in per_game],
            "cpu_s_each_game_each_rep": [[g["cpu_s"] for g in r["games"]] for r in reps],
            "cpu_s_per_game_median": round(med, 3),
            "games_per_core_hour_median": round(3600 / med, 1),
            "collector_share_each_rep": [round(x, 4) for x in gc_share],
            "digests": [g["digest"] for g in reps[0]["games"]],
            "same_games_every_rep": all([g["digest"] for g in r["games"]]
                                        == [g["digest"] for g in reps[0]["games"]]
                                        for r in reps),
            "rounds": [g["rounds"] for g in reps[0]["games"]],
            "compiled_modules": reps[0].get("compiled_modules")}


def parse_games(text: str | None) -> dict[str, tuple[int, int]]:
    out = {k: (v[2], v[3]) for k, v in SETTINGS.items()}
    for item in (text or "").split(","):
        if item:
            name, gg = item.split("=")
            a, b = gg.split("x")
            out[name] = (int(a), int(b))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--settings", default="quickstart,usecase,paper")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--src", action="append", default=[])
    ap.add_argument("--games", default=None, help="setting=GENOMESxGAMES,...")
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = parse_games(args.games)
    if args.worker:
        print(json.dumps(worker(args.worker, *sizes[args.worker])))
        return
    srcs = [Path(s).resolve() for s in (args.src or [str(ROOT)])]
    settings = [s for s in args.settings.split(",") if s]
    runs: dict[str, dict[str, list]] = {str(s): {k: [] for k in settings} for s in srcs}
    started = time.time()
    for rep in range(args.reps):
        for setting in settings:
            for src in srcs:
                r = run_tree(src, setting, *sizes[setting])
                runs[str(src)][setting].append(r)
                pg = statistics.fmean(g["cpu_s"] for g in r["games"])
                print(f"rep {rep + 1} {setting} {src}: {pg:.2f} CPU s per game",
                      file=sys.stderr, flush=True)
    command = command_line("experiments/bench_games.py", srcs)
    report: dict = {"machine": machine(), "command": command,
                    "genome_seed": GENOME_SEED, "wall_minutes": round((time.time() - started) / 60, 1),
                    "settings": {k: {"config": SETTINGS[k][0], "overrides": SETTINGS[k][1],
                                     "genomes": sizes[k][0], "games_per_genome": sizes[k][1]}
                                 for k in settings},
                    "trees": []}
    for i, src in enumerate(srcs):
        report["trees"].append({"tree": f"TREE{i + 1}", "commit": commit_of(src), "dirty": dirty(src),
                                "results": {k: summarize(runs[str(src)][k]) for k in settings}})
    if len(srcs) == 2:
        a, b = report["trees"]
        report["comparison"] = {
            k: {"ratio_games_per_core_hour_b_over_a": round(
                    a["results"][k]["cpu_s_per_game_median"]
                    / b["results"][k]["cpu_s_per_game_median"], 3),
                "ratio_each_rep": [round(x / y, 3) for x, y in zip(
                    a["results"][k]["cpu_s_per_game_each_rep"],
                    b["results"][k]["cpu_s_per_game_each_rep"])],
                "same_games": a["results"][k]["digests"] == b["results"][k]["digests"]}
            for k in settings}
    emit(report, args.out)


def command_line(script: str, srcs: list[Path]) -> str:
    """This process's command for a report, without machine paths: trees are named by their
    order (TREE1, TREE2; the report gives their commits), the output file by its name."""
    return " ".join([script] + [
        f"TREE{srcs.index(Path(a).resolve()) + 1}" if sys.argv[i] == "--src"
        else Path(a).name if sys.argv[i] == "--out" else a
        for i, a in enumerate(sys.argv[1:])])


def emit(report: dict, out: str | None) -> None:
    """Print the report as JSON and write it to `out` if given."""
    text = json.dumps(report, indent=1)
    print(text)
    if out:
        Path(out).write_text(text + "\n")


if __name__ == "__main__":
    main()
