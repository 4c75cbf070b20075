"""Navy Defense: the source's tuning of hindsight optimisation and its comparison of particle
filters with the exact belief (docs/navy.md, "The source's claims" 4 and 5), on small worlds.

(a) Tuning: hindsight with K particles x N worlds x horizon H over `--particles`,
    `--samples`, `--horizons`; (b) beliefs: hindsight (N = 30, H = 5) with `--filters`
    particles and with the exact belief (`belief=exact`). Every setting plays the same worlds
    (level seeds 0..worlds-1) with the same game seeds, on Ray (`--workers`). Printed and
    written (summary.md, games.csv under --out): mean cost with its 95% interval (normal
    approximation) per setting; for the beliefs, each filter's paired difference from the
    exact belief, the two-sample Kolmogorov-Smirnov test of the two cost distributions
    (`scipy.stats.ks_2samp`) and CPU seconds per episode with their ratio to the exact
    belief's; and the exact belief's state space (`games.navy.exact.state_count`) on the
    board for 1 to 3 subs with 2 and 4 cargo ships.

    PYTHONPATH=. python experiments/navy_tuning.py [--worlds 36] [--size 5] [--cargo 2]
        [--subs 1] [--out experiments/results/navy/tuning] [--workers 0]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import pandas as pd
from scipy.stats import ks_2samp

from experiments.navy import interval, specs
from games.navy.exact import state_count
from play.game_pool import run_games
from play.tournament import parse_agent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worlds", type=int, default=36)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--cargo", type=int, default=2)
    ap.add_argument("--subs", type=int, default=1, help="0: 1 to 3, drawn by each world")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--particles", type=int, nargs="+", default=[10, 30])
    ap.add_argument("--samples", type=int, nargs="+", default=[10, 30])
    ap.add_argument("--horizons", type=int, nargs="+", default=[3, 5])
    ap.add_argument("--filters", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=0, help="0: play in this process")
    ap.add_argument("--out", default=None, help="write summary.md and games.csv")
    args = ap.parse_args()
    tuning = [f"hindsight:particles={k},samples={n},horizon={h}"
              for k, n, h in itertools.product(args.particles, args.samples, args.horizons)]
    beliefs = [f"hindsight:particles={k}" for k in args.filters] + ["hindsight:belief=exact"]
    names = list(dict.fromkeys(tuning + beliefs))
    agents = [parse_agent(a, "agents", game="navy") for a in names]
    options = {"size": args.size, "cargo": args.cargo, "steps": args.steps}
    if args.subs:
        options["subs"] = args.subs
    t0 = time.perf_counter()
    rows = []
    for _, rec in run_games(specs(agents, args.worlds, 1, options, args.seed),
                            workers=args.workers):
        tag = rec.spec.tag
        rows.append({"agent": names[tag["agent"]], "world": tag["world"],
                     "game_seed": rec.spec.seed, "cpu_seconds": round(rec.cpu_seconds, 3),
                     **rec.summaries[0]})
    games = pd.DataFrame(rows).sort_values(["agent", "world"])
    wall = time.perf_counter() - t0
    cost = {a: games[games["agent"] == a].set_index("world")["cost"] for a in names}
    cpu = {a: games[games["agent"] == a]["cpu_seconds"].mean() for a in names}
    command = "PYTHONPATH=. python experiments/navy_tuning.py " + " ".join(sys.argv[1:])
    subs = f"{args.subs} sub(s)" if args.subs else "1-3 subs"
    lines = [f"`{command}`", "",
             f"Navy Defense, {args.size}x{args.size}, {args.cargo} cargo ships, {subs}, "
             f"{args.steps} steps; worlds 0-{args.worlds - 1}, one game each (same game seeds "
             f"for every setting); CPU {games['cpu_seconds'].sum():.0f} s, wall {wall:.0f} s.",
             "", "(a) Tuning: hindsight, K particles, N worlds, horizon H", "",
             "| K | N | H | mean cost | 95% CI | CPU s / episode |", "|---|---|---|---|---|---|"]
    for (k, n, h), a in zip(itertools.product(args.particles, args.samples, args.horizons),
                            tuning):
        m, lo, hi = interval(cost[a])
        lines.append(f"| {k} | {n} | {h} | {m:.1f} | {lo:.1f} to {hi:.1f} | {cpu[a]:.2f} |")
    if len(args.particles) > 1:
        k0, k1 = args.particles[0], args.particles[-1]
        lines += ["", f"Paired difference K = {k1} minus K = {k0} at each (N, H):", "",
                  "| N | H | mean difference | 95% CI |", "|---|---|---|---|"]
        for n, h in itertools.product(args.samples, args.horizons):
            d = (cost[f"hindsight:particles={k1},samples={n},horizon={h}"]
                 - cost[f"hindsight:particles={k0},samples={n},horizon={h}"])
            m, lo, hi = interval(d)
            lines.append(f"| {n} | {h} | {m:+.1f} | {lo:+.1f} to {hi:+.1f} |")
    exact = "hindsight:belief=exact"
    lines += ["", "(b) Beliefs: hindsight (N = 30, H = 5), particle filters and the exact belief",
              "", "| belief | mean cost | 95% CI | minus exact (paired) | 95% CI | KS statistic "
              "| KS p-value | CPU s / episode | CPU ratio to exact |",
              "|---|---|---|---|---|---|---|---|---|"]
    for a in beliefs:
        m, lo, hi = interval(cost[a])
        label = "exact" if a == exact else f"{a.split('=')[1]} particles"
        if a == exact:
            lines.append(f"| {label} | {m:.1f} | {lo:.1f} to {hi:.1f} | | | | | "
                         f"{cpu[a]:.2f} | 1 |")
            continue
        dm, dlo, dhi = interval(cost[a] - cost[exact])
        ks = ks_2samp(cost[a].to_numpy(), cost[exact].to_numpy())
        lines.append(f"| {label} | {m:.1f} | {lo:.1f} to {hi:.1f} | {dm:+.1f} | "
                     f"{dlo:+.1f} to {dhi:+.1f} | {ks.statistic:.3f} | {ks.pvalue:.3f} | "
                     f"{cpu[a]:.2f} | {cpu[a] / cpu[exact]:.2f} |")
    lines += ["", f"The exact belief's state space on {args.size}x{args.size} (multisets of "
              "live subs, each a (cell, health, target) triple; its prior covers 0 to 3 subs):",
              "", "| cargo ships | up to 1 sub | up to 2 subs | up to 3 subs |", "|---|---|---|---|"]
    for c in sorted({args.cargo, 2, 4}):
        lines.append(f"| {c} | " + " | ".join(f"{state_count(args.size, c, s):,}"
                                              for s in (1, 2, 3)) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        games.to_csv(out / "games.csv", index=False)
        (out / "summary.md").write_text(text)


if __name__ == "__main__":
    main()
