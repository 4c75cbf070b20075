"""Do the games and archives stay the same when the code is reorganised?

Plays a fixed tournament, a fixed evolution run (CMA-ME emitter) and its validation through
the command line with the code of one source tree, and prints the SHA-256 of every table they
write, each read with pandas and written again without the columns that time the games
(`seconds`, `think_s`, ...): equal digests mean equal games and equal archives. Run it on two
trees (before and after a move) and compare:

    python experiments/house_digests.py --src /path/to/old/tree --out old.json
    python experiments/house_digests.py --src . --out new.json
    python experiments/house_digests.py --compare old.json new.json

About 2 minutes per tree on 2 cores (everything in-process, `--workers 0`).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

TIMING = ("seconds", "think_s", "cpu_seconds", "marker")
"""Column endings that time the games (they differ from run to run)."""

RUN = {"name": "house", "game": "tribes", "options": {"max_rounds": 4},
       "levels": {"train": "seeds:11,12", "held_out": "seeds:13,14,15"},
       "agent": {"name": "pmcts_pu", "budget": 8},
       "opponent": {"name": "mcts", "params": {"rollouts": False}}, "repetitions": 1,
       "features": [{"name": "research_slope", "range": [0.0, 1.0], "width": 0.25},
                    {"name": "tile_slope", "range": [0.0, 2.0], "width": 0.5}],
       "emitter": {"kind": "cma_me", "batch_size": 6, "initial_random": 1},
       "evaluations": 24, "seed": 7}
TABLES = ("tournament/games.csv", "tournament/summary.csv", "run/elites.csv",
          "run/individuals.csv", "run/games.csv", "run/validation.csv",
          "run/validation_games.csv")


def digest(path: Path, ignore: tuple[str, ...] = ()) -> str:
    """The SHA-256 of a table without its timing columns (nor the columns of `ignore`)."""
    frame = pd.read_csv(path)
    frame = frame[[c for c in frame.columns if not c.endswith(TIMING) and c not in ignore]]
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return hashlib.sha256(buf.getvalue().encode()).hexdigest()


def play(src: Path, work: Path, ignore: tuple[str, ...] = ()) -> dict[str, str]:
    """Play everything with the code in `src`; the digest of every table."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve()), "RAY_USAGE_STATS_ENABLED": "0"}

    def cli(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "playstyles", *args, "--workers", "0",
                        "--quiet"], check=True, env=env, cwd=work, stdout=subprocess.DEVNULL)

    cli("tournament", "--game", "tribes", "--agents", "mcts:budget=20", "rhea:budget=20",
        "random", "--levels", "seeds:11,12", "--reps", "2", "--rounds", "6", "--seed", "3",
        "--out", str(work / "tournament"))
    (work / "house.yaml").write_text(yaml.safe_dump(RUN))
    cli("evolve", str(work / "house.yaml"), "--out", str(work / "run"))
    cli("validate", str(work / "run"), "--games", "4")
    return {name: digest(work / name, ignore) for name in TABLES}


def git_commit(src: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--src", default=".", help="the source tree to run")
    p.add_argument("--out", help="write the digests (JSON) here")
    p.add_argument("--compare", nargs=2, metavar="JSON", help="compare two digest files")
    p.add_argument("--ignore", nargs="+", default=[], metavar="COLUMN",
                   help="leave these columns out of every digest (a column a change added on "
                        "purpose, named in the digest file)")
    args = p.parse_args()
    if args.compare:
        a, b = (json.loads(Path(f).read_text()) for f in args.compare)
        same = True
        for name in TABLES:
            equal = a["tables"][name] == b["tables"][name]
            same &= equal
            print(f"{'same' if equal else 'DIFFERENT'}  {name}")
        print(f"{a['commit']} -> {b['commit']}: "
              f"{'every table is the same' if same else 'tables differ'}")
        return 0 if same else 1
    src = Path(args.src)
    with tempfile.TemporaryDirectory() as tmp:
        tables = play(src, Path(tmp), tuple(args.ignore))
    result = {"commit": git_commit(src), "tables": tables, "ignored": list(args.ignore)}
    text = json.dumps(result, indent=2) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
