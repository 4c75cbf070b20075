"""cProfile of one setting's benchmark games (`experiments/bench_games.py`): the top functions
by own time and by cumulative time, as text.

    python experiments/profile_games.py SETTING [--games GENOMESxGAMES] [--top 40] [--out FILE]

It profiles the Python source (`PLAYSTYLES_PURE_PYTHON=1`, set here before anything of the
project is imported): cProfile does not see inside the compiled modules (`base/compiled.py`),
which run the same source.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
from pathlib import Path

os.environ["PLAYSTYLES_PURE_PYTHON"] = "1"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_games  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("setting", choices=sorted(bench_games.SETTINGS))
    ap.add_argument("--games", default=None, help="GENOMESxGAMES (default: the benchmark's)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    sizes = bench_games.parse_games(f"{args.setting}={args.games}" if args.games else None)
    genomes, games = sizes[args.setting]
    prof = cProfile.Profile()
    result = bench_games.worker(args.setting, genomes, games, profile=prof)
    cpu = sum(g["cpu_s"] for g in result["games"])
    buf = io.StringIO()
    buf.write(f"# cProfile: {args.setting}, {genomes} genomes x {games} games\n\n")
    buf.write(f"    python experiments/profile_games.py {args.setting} --games {genomes}x{games}\n\n")
    buf.write(f"{len(result['games'])} games, {cpu:.1f} CPU s under the profiler "
              f"(rounds {[g['rounds'] for g in result['games']]}).\n\n")
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative time")):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).strip_dirs().sort_stats(key).print_stats(args.top)
        text = s.getvalue()
        text = text[text.index("   ncalls"):] if "   ncalls" in text else text
        buf.write(f"## Top {args.top} by {title}\n\n```\n{text.rstrip()}\n```\n\n")
    out = buf.getvalue()
    if args.out:
        Path(args.out).write_text(out)
    print(out)


if __name__ == "__main__":
    main()
