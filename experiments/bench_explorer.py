"""How fast the archive explorer is on a large archive: a synthetic, validated run of
side x side cells (default 100 x 100 = 10,000 elites), its explorer.html loaded in headless
Chromium again and again.

    python experiments/bench_explorer.py [--side 100] [--runs 10] [--clicks 5]
                                         [--reports 3] [--out DIR]

Prints, with the number of runs, loads and clicks behind each median:

* report: the wall time of the whole command `playstyles report RUN` (a new Python process
  each time, imports included; its CPU time beside it), and the size of the two pages it
  writes, report.html and explorer.html (`--reports 0` skips it);
* load: from navigation start to the mark the page sets once the archive is drawn
  (`explorer-ready`, `performance.getEntriesByName`), in a new browser context each time;
  and until every column is read (the page parsed to its end, `domContentLoadedEventEnd`:
  the columns only a card reads come after the script);
* click to card: `performance.now()` from the start of the canvas click handler until the
  card of the clicked elite is in the page and laid out; and, stricter, until the first
  task after the next frame (the card painted).

With --out it also writes there `raw.csv` (one row per load and per click), `report_raw.csv`
(one row per report: seconds, CPU seconds, the pages' bytes, the load average before it) and
`summary.json` (the medians and their counts, the machine and the commit). With --pages it
writes, instead, the explorer.html of the committed quickstart, Tribolo and Navy runs
(`COMMITTED_RUNS`; a test checks that they are what the code writes). It needs the
`playwright` Python package and Debian's Chromium (`/usr/bin/chromium`); no browser is
downloaded.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
COMMITTED_RUNS = {"experiments/results/quickstart": "tribes",
                  "experiments/results/quickstart_counts": "tribes",
                  "experiments/results/tribolo/quickstart": "tribolo",
                  "experiments/results/navy/quickstart": "navy"}
"""The committed run directories whose explorer.html is committed too (relative to the
repository, as the page's commands name them), and their games."""
COMMITTED_VALIDATIONS = {"experiments/results/tribolo/quickstart": "recount",
                         "experiments/results/navy/quickstart": "styles"}
"""The committed runs whose styles were counted by a later validation kept in a folder beside
their files (the run directory's own validation_summary.json predates the count): their pages
show that validation."""
SCRIPTS = ("Attack", "Defend", "Expand", "Research", "Build", "Trade")
STATS = ("aggression", "expansion", "tempo", "economy", "defence")


def browser_path() -> str | None:
    """Debian's Chromium, or None when it is not installed."""
    found = shutil.which("chromium")
    if found:
        return found
    return CHROMIUM if Path(CHROMIUM).exists() else None


def _wilson(wins: np.ndarray, n: np.ndarray, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return np.clip(mid - half, 0, 1), np.clip(mid + half, 0, 1)


def synthetic_run(folder: str | Path, side: int = 100, seed: int = 0,
                  validated: bool = True) -> Path:
    """A run directory of side x side elites, one in every cell of a grid over two features
    (`aggression`, `expansion`, bins of width 1 from 0), with weights, quality, intervals and
    five features per elite; with `validated`, a validation of every elite (held-out values,
    a held-out cell next to the evolved one, and every fourth elite not a distinct style).

    Args:
        folder: the run directory to write (made if missing).
        side: cells along each feature.
        seed: the random numbers' seed.
        validated: also write validation.csv and validation_summary.json.
    """
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n = side * side
    cfg = {"name": f"synthetic{side}x{side}", "game": "synthetic", "options": {},
           "levels": {"train": [1, 2], "held_out": [3, 4]},
           "agent": {"name": "pmcts_pu", "label": "pmcts_pu", "budget": 20, "params": {},
                     "genome_mapping": "weights"},
           "genome_scripts": list(SCRIPTS),
           "opponent": {"name": "mcts", "label": "mcts", "budget": 20, "params": {}},
           "repetitions": 10, "seed": seed, "evaluations": n,
           "emitter": {"kind": "paper"},
           "features": [{"name": f, "range": [0.0, float(side)], "width": 1.0}
                        for f in STATS[:2]]}
    (d / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    gx, gy = np.divmod(np.arange(n), side)
    games = np.full(n, 20)
    wins = rng.binomial(games, 0.2 + 0.6 * (gx + gy) / (2 * side))
    lo, hi = _wilson(wins, games)
    cols: dict[str, object] = {
        "cell": [f"{x}:{y}" for x, y in zip(gx, gy)],
        "grid_index": [f"{x},{y}" for x, y in zip(gx, gy)],
        "index": np.arange(n)}
    for s in SCRIPTS:
        cols[s] = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n)
    cols.update({"win_rate": wins / games, "wins": wins, "games": games,
                 "mean_score": rng.normal(500, 100, n).round(3)})
    cols["objective"] = cols["win_rate"] + 1e-4 * cols["mean_score"]
    cols["win_rate_ci_low"], cols["win_rate_ci_high"] = lo, hi
    measures = {STATS[0]: gx + rng.uniform(0, 1, n), STATS[1]: gy + rng.uniform(0, 1, n)}
    for f in STATS[:2]:
        cols[f"measure_{f}"] = np.minimum(measures[f], side - 1e-6)
    means = {**measures, **{f: rng.uniform(0, 10, n) for f in STATS[2:]}}
    stds = {f: rng.uniform(0.1, 1, n) for f in STATS}
    for f in STATS:
        cols[f"{f}_mean"], cols[f"{f}_std"] = means[f], stds[f]
    for f in STATS:
        cols[f"{f}_se"] = stds[f] / math.sqrt(19)
    cols["batch"], cols["evaluation"] = np.arange(n) // 100, np.arange(n)
    pd.DataFrame(cols).to_csv(d / "elites.csv", index=False)
    pd.DataFrame({"batch": [0], "evaluations": [n], "games": [20 * n], "cells": [n],
                  "coverage": [1.0], "qd_score": [float(np.sum(wins / games))],
                  "best_win_rate": [float(np.max(wins / games))]}).to_csv(d / "metrics.csv",
                                                                          index=False)
    if validated:
        vg = 40
        vwins = rng.binomial(vg, np.clip(wins / games - 0.1, 0, 1))
        vlo, vhi = _wilson(vwins, np.full(n, vg))
        vx = np.clip(gx + rng.integers(-1, 2, n), 0, side - 1)
        vy = np.clip(gy + rng.integers(-1, 2, n), 0, side - 1)
        distinct = np.arange(n) % 4 != 3
        v: dict[str, object] = {"cell": cols["cell"], "grid_index": cols["grid_index"],
                                "index": cols["index"], "games_evolved": games,
                                "win_rate_evolved": wins / games, "games_validated": vg,
                                "wins_validated": vwins, "win_rate_validated": vwins / vg,
                                "win_rate_ci_low": vlo, "win_rate_ci_high": vhi}
        for f, vc in zip(STATS[:2], (vx, vy)):
            val = vc + rng.uniform(0, 1, n)
            v[f"{f}_evolved"], v[f"{f}_validated"] = means[f], val
            v[f"{f}_ci_low_validated"], v[f"{f}_ci_high_validated"] = val - 0.3, val + 0.3
            v[f"measure_{f}_evolved"], v[f"measure_{f}_validated"] = cols[f"measure_{f}"], val
        far = np.maximum(np.abs(vx - gx), np.abs(vy - gy))
        v["same_cell"], v["neighbour"] = far == 0, far <= 1
        v["validated_cell"] = [f"{x}:{y}" for x, y in zip(vx, vy)]
        v["validated_grid_index"] = [f"{x},{y}" for x, y in zip(vx, vy)]
        v["style"] = np.where(distinct, np.cumsum(distinct), 0)
        v["distinct"] = distinct
        pd.DataFrame(v).to_csv(d / "validation.csv", index=False)
        summary = {"elites": n, "games_per_elite": vg, "levels": [3, 4],
                   "levels_overlap_training": [], "opponent": "mcts",
                   "features": list(STATS[:2]), "distinct_styles": int(distinct.sum())}
        (d / "validation_summary.json").write_text(json.dumps(summary))
    return d


def write_page(run_dir: Path) -> Path:
    from plots.explorer import write_explorer
    return write_explorer(run_dir)


def committed_page(folder: str, game: str) -> str:
    """The explorer.html of a committed run directory (`COMMITTED_RUNS`) as the code writes
    it now (run from the repository's root, so that its commands name the folder)."""
    from plots.explorer import explorer_data, explorer_html, validation_beside
    from qd.features import feature_texts
    from qd.rundir import RunFiles
    run = RunFiles(folder).check()
    later = COMMITTED_VALIDATIONS.get(folder)
    return explorer_html(explorer_data(run, feature_texts(game), validation=validation_beside(
        run, Path(folder) / later) if later else None))


def write_committed_pages() -> None:
    import os

    from base.files import atomic_write
    os.chdir(REPO)
    for folder, game in COMMITTED_RUNS.items():
        path = atomic_write(Path(folder) / "explorer.html", committed_page(folder, game))
        print(f"{path} ({path.stat().st_size / 1e3:.0f} kB)")


def measure(page: Path, runs: int = 10, clicks: int = 5, seed: int = 0) -> list[dict]:
    """Load `page` `runs` times (a new browser context each time) and click `clicks` random
    shown cells after each load; one record per load and per click (milliseconds)."""
    from playwright.sync_api import sync_playwright
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path(), args=CHROMIUM_ARGS)
        try:
            for r in range(runs):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                tab = context.new_page()
                errors: list[str] = []
                tab.on("pageerror", lambda e: errors.append(str(e)))
                tab.goto(page.resolve().as_uri())
                tab.wait_for_function("document.documentElement.dataset.ready === '1'")
                load = tab.evaluate(
                    "performance.getEntriesByName('explorer-ready')[0].startTime")
                read = tab.evaluate("performance.getEntriesByType('navigation')[0]"
                                    ".domContentLoadedEventEnd")
                rows.append({"run": r, "kind": "load", "ms": load, "frame_ms": "",
                             "read_ms": read})
                shown = tab.evaluate("explorer.shownElites()")
                for c in range(clicks):
                    i = int(shown[int(rng.integers(len(shown)))])
                    at = tab.evaluate(f"explorer.cellCenter({i})")
                    tab.mouse.click(at["x"], at["y"])
                    tab.wait_for_function(f"(explorer.lastClick() || {{}}).elite === {i} && "
                                          f"explorer.lastClick().frame_ms !== null")
                    last = tab.evaluate("explorer.lastClick()")
                    rows.append({"run": r, "kind": "click", "ms": last["handler_ms"],
                                 "frame_ms": last["frame_ms"], "read_ms": ""})
                if errors:
                    raise RuntimeError(f"{page}: errors in the page: {errors}")
                context.close()
        finally:
            browser.close()
    return rows


def time_reports(run: Path, runs: int = 3) -> list[dict]:
    """Run `playstyles report RUN` `runs` times, each in a new Python process (as a designer
    runs it: imports included); one record per run: wall and CPU seconds, the bytes of
    report.html and explorer.html, and the one-minute load average just before it."""
    import os
    import resource
    rows = []
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for r in range(runs):
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "playstyles", "report", str(run)], cwd=REPO,
                       env=env, check=True, capture_output=True)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append({"run": r, "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
                     "report_bytes": (run / "report.html").stat().st_size,
                     "explorer_bytes": (run / "explorer.html").stat().st_size,
                     "load_before": round(load, 2)})
    return rows


def report_summary(rows: list[dict], cells: int) -> str:
    """The report's times and page sizes in words, with the number of runs."""
    secs = [r["seconds"] for r in rows]
    cpu = [r["cpu_seconds"] for r in rows]
    return (f"report (playstyles report, the whole command) of {cells} cells: median "
            f"{statistics.median(secs):.1f} s, min {min(secs):.1f} s, max {max(secs):.1f} s "
            f"(n = {len(secs)} runs); CPU median {statistics.median(cpu):.1f} s\n"
            f"report.html {rows[-1]['report_bytes'] / 1e6:.2f} MB, explorer.html "
            f"{rows[-1]['explorer_bytes'] / 1e6:.2f} MB")


def summary(rows: list[dict], cells: int, size: int) -> str:
    loads = [r["ms"] for r in rows if r["kind"] == "load"]
    reads = [r["read_ms"] for r in rows if r["kind"] == "load"]
    clicks = [r["ms"] for r in rows if r["kind"] == "click"]
    frames = [r["frame_ms"] for r in rows if r["kind"] == "click"]
    return (f"archive: {cells} cells, explorer.html {size / 1e6:.2f} MB\n"
            f"load (navigation start to drawn): median {statistics.median(loads):.0f} ms, "
            f"max {max(loads):.0f} ms (n = {len(loads)} loads)\n"
            f"every column read (navigation start to the page parsed): median "
            f"{statistics.median(reads):.0f} ms, max {max(reads):.0f} ms (n = {len(reads)} loads)\n"
            f"click to card (handler start to card laid out): median "
            f"{statistics.median(clicks):.1f} ms, max {max(clicks):.1f} ms "
            f"(n = {len(clicks)} clicks)\n"
            f"click to next frame (card painted): median {statistics.median(frames):.1f} ms, "
            f"max {max(frames):.1f} ms (n = {len(frames)} clicks)")


def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def medians(reports: list[dict], rows: list[dict], side: int, load: list[float]) -> dict:
    """summary.json: the medians of every measure, how many runs, loads and clicks each
    comes from, the pages' sizes, the machine (with its one-minute load average at the start
    and the end: other jobs share it) and the commit."""
    import os
    import platform

    def stat(values: list[float]) -> dict:
        return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
                "max": round(max(values), 3), "n": len(values)} if values else {"n": 0}
    out = {"cells": side * side, "commit": commit_id(), "browser": browser_version(),
           "python": platform.python_version(), "cores": os.cpu_count(),
           "cpu": _cpu_model(), "load_average": [round(x, 2) for x in load]}
    if reports:
        out["report_seconds"] = stat([r["seconds"] for r in reports])
        out["report_cpu_seconds"] = stat([r["cpu_seconds"] for r in reports])
        out["report_html_bytes"] = reports[-1]["report_bytes"]
        out["explorer_html_bytes"] = reports[-1]["explorer_bytes"]
    for name, kind, key in (("load_ms", "load", "ms"), ("read_ms", "load", "read_ms"),
                            ("click_ms", "click", "ms"),
                            ("click_frame_ms", "click", "frame_ms")):
        out[name] = stat([r[key] for r in rows if r["kind"] == kind])
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", type=int, default=100, help="cells along each feature")
    ap.add_argument("--runs", type=int, default=10, help="page loads")
    ap.add_argument("--clicks", type=int, default=5, help="clicks after each load")
    ap.add_argument("--reports", type=int, default=3,
                    help="times `playstyles report` is run and timed (0: not timed)")
    ap.add_argument("--out", help="write raw.csv, report_raw.csv and summary.json there")
    ap.add_argument("--pages", action="store_true",
                    help="write the committed runs' explorer.html instead of measuring")
    args = ap.parse_args(argv)
    if args.pages:
        write_committed_pages()
        return 0
    if browser_path() is None:
        print("no Chromium found (Debian's package chromium): nothing measured")
        return 1
    import os
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        run = synthetic_run(Path(tmp) / "run", side=args.side)
        reports = time_reports(run, args.reports) if args.reports > 0 else []
        if reports:
            print(report_summary(reports, args.side * args.side))
        start = time.perf_counter()
        page = write_page(run)
        built = time.perf_counter() - start
        rows = measure(page, runs=args.runs, clicks=args.clicks)
        print(summary(rows, args.side * args.side, page.stat().st_size))
        print(f"written by write_explorer in {built:.2f} s")
    load.append(os.getloadavg()[0])
    print(f"commit {commit_id() or '?'}; {browser_version()}; load average "
          f"{load[0]:.2f} at the start, {load[1]:.2f} at the end")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        _write_csv(out / "raw.csv", rows)
        if reports:
            _write_csv(out / "report_raw.csv", reports)
        (out / "summary.json").write_text(
            json.dumps(medians(reports, rows, args.side, load), indent=2) + "\n")
        print(f"raw times and their summary written to {out}/")
    return 0


def commit_id() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def browser_version() -> str:
    try:
        return subprocess.run([browser_path() or CHROMIUM, "--version"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "Chromium ?"


if __name__ == "__main__":
    sys.exit(main())
