"""How long the quickstarts take, as a user runs them: `playstyles evolve CONFIG` (evolution,
re-estimation or validation as the config says, and the count of styles) from a fresh output
folder, timed whole, one after the other.

    python experiments/time_quickstarts.py [--configs A.yaml B.yaml ...] [--out DIR]

Prints, per config, the wall time of the whole command, the games played (from the run's
metrics.csv and validation_summary.json), the CPU seconds its evolution's games took on the
workers (metrics.csv's `game_seconds`) and the machine (platform, CPU model, cores, Python,
the load average before the run). With --out it writes `times.json` there, and the runs' small files
(config.yaml, metrics.csv, validation_summary.json) under `runs/<name>/` so that the numbers
can be checked against what was played.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUICKSTARTS = ("experiments/quickstart.yaml", "experiments/tribolo_quickstart.yaml",
               "experiments/navy_quickstart.yaml")
KEPT = ("config.yaml", "metrics.csv", "validation_summary.json")


def machine() -> dict:
    """The machine the times were taken on."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": model, "cores": os.cpu_count(),
            "python": platform.python_version()}


def games_played(run: Path) -> dict:
    """Games of evolution (metrics.csv's last `games`) and of validation (elites and control
    times games per elite), from the run's own files."""
    out = {"evolution": None, "validation": None}
    metrics = run / "metrics.csv"
    if metrics.exists():
        lines = metrics.read_text().splitlines()
        head = lines[0].split(",")
        if len(lines) > 1 and "games" in head:
            out["evolution"] = int(float(lines[-1].split(",")[head.index("games")]))
        if "game_seconds" in head:
            out["evolution_game_cpu_seconds"] = round(sum(
                float(r.split(",")[head.index("game_seconds")]) for r in lines[1:]), 1)
    summary = run / "validation_summary.json"
    if summary.exists():
        s = json.loads(summary.read_text())
        genomes = int(s.get("elites", 0)) + (1 if s.get("control") else 0)
        out["validation"] = genomes * int(s.get("games_per_elite", 0))
        out["distinct_styles"] = s.get("distinct_styles")
    return out


def time_one(config: str, folder: Path) -> dict:
    """Run `playstyles evolve CONFIG --out FOLDER` and time it."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "playstyles", "evolve", config, "--out",
                           str(folder)], cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    tail = done.stdout.strip().splitlines()[-1:] if done.stdout else []
    return {"config": config, "exit": done.returncode, "wall_seconds": round(wall, 1),
            "load_before": round(load, 2),
            "games": games_played(folder), "last_line": tail[0] if tail else ""}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", nargs="+", default=list(QUICKSTARTS))
    ap.add_argument("--out", help="write times.json and the runs' small files here")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for config in args.configs:
            folder = Path(tmp) / Path(config).stem
            row = time_one(config, folder)
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                keep = Path(args.out) / "runs" / Path(config).stem
                keep.mkdir(parents=True, exist_ok=True)
                for name in KEPT:
                    if (folder / name).exists():
                        shutil.copy2(folder / name, keep / name)
    result = {"machine": machine(), "runs": rows}
    print(json.dumps(result["machine"]))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "times.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
