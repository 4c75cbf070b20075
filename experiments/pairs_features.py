"""Which mapped features let mixtures of genes show: from a probe played with `--pairs`,
count the fixed genomes pairwise at least 0, 0.5 and 1 per-game standard deviations apart
on several feature sets, with the two-gene genomes and with the genes alone (the null
baseline's genomes), on the probe's own games (`qd.probe.fixed_styles`).

    python experiments/pairs_features.py experiments/results/probe/pairs_low \
        --sets forestry,monuments defender_spawns,ranged_minus_melee,research_slope

A set is comma-separated feature names; `mapped` is the probe config's mapped features and
`every` every feature the game registers. Writes feature_sets.csv and feature_sets.md into
the probe's folder (with --write), and `--rewrite` puts the recomputed counts of the mapped
and every feature into probe.json and probe.md (for a probe written before they were
reported).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from base.files import atomic_write  # noqa: E402
from qd.probe import fixed_styles, probe_markdown  # noqa: E402
from qd.styles import Sample  # noqa: E402

NOT_FEATURES = ("genome", "genome_number", "game", "level", "seat", "game_seed", "won",
                "seconds")


def samples_of(games: pd.DataFrame) -> list[Sample]:
    """One sample per genome from probe_games.csv, games in order, blocked by level."""
    feats = [c for c in games.columns if c not in NOT_FEATURES]
    out = []
    for _, part in games.groupby("genome_number", sort=True):
        part = part.sort_values("game")
        out.append(Sample(str(part["genome"].iloc[0]), part["won"].tolist(),
                          {f: part[f].tolist() for f in feats},
                          blocks=part["level"].tolist()))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("probe", type=Path, help="a probe folder played with --pairs")
    p.add_argument("--sets", nargs="*", default=[], help="feature sets (comma-separated)")
    p.add_argument("--write", action="store_true", help="write feature_sets.csv and .md")
    p.add_argument("--rewrite", action="store_true",
                   help="recompute the mapped and every-feature counts in probe.json/.md")
    args = p.parse_args()
    data = json.loads((args.probe / "probe.json").read_text())
    settings, results = data["settings"], data["results"]
    games = pd.read_csv(args.probe / "probe_games.csv")
    samples = samples_of(games)
    every = [c for c in games.columns if c not in NOT_FEATURES]
    named = {"mapped": settings["mapped"], "every": every}
    rows = []
    for text in ["mapped", "every", *args.sets]:
        feats = named.get(text) or text.split(",")
        unknown = [f for f in feats if f not in every]
        if unknown:
            p.error(f"--sets {text}: unknown feature {unknown[0]} (known: {', '.join(every)})")
        found = fixed_styles(samples, feats, [])["mapped"]
        row = {"features": text if text in named else ", ".join(feats),
               "genomes": len(samples) - 1, "exact": found["exact"]}
        for d, k in found["counts"].items():
            row[f"with_pairs_{d}"] = k
        alone = (found.get("single") or {}).get("counts")
        for d, k in (alone or {}).items():
            row[f"genes_alone_{d}"] = k
        row["with_pairs_at_1"] = "; ".join(found["styles"].get("1", []))
        rows.append(row)
        print(f"{row['features']}: with pairs {found['counts']}, genes alone {alone}",
              flush=True)
        if args.rewrite and text in named:
            results["fixed_styles"][text] = found
    table = pd.DataFrame(rows)
    if args.write:
        atomic_write(args.probe / "feature_sets.csv", table.to_csv(index=False))
        lines = ["# Fixed genomes pairwise apart, by mapped feature set", "",
                 f"{len(samples) - 1} fixed genomes (all zero, each of "
                 f"{len(settings['genome_names'])} genes alone, each pair of genes) on the "
                 f"probe's {results['games_per_genome']} games each (training levels of "
                 f"{settings['config']}, paired by game, blocked by level, Holm). "
                 "'genes alone': the all-zero and one-gene genomes only (the null "
                 "baseline's), on the same per-game standard deviations. Counts with pairs "
                 "are the largest set found (not proven largest) where 'exact' is false.", "",
                 "| features | with pairs at 0 / 0.5 / 1 sd | genes alone at 0 / 0.5 / 1 sd "
                 "| exact | with pairs at 1 sd |", "|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['features']} | {r['with_pairs_0']} / {r['with_pairs_0.5']} / "
                         f"{r['with_pairs_1']} | {r.get('genes_alone_0')} / "
                         f"{r.get('genes_alone_0.5')} / {r.get('genes_alone_1')} | "
                         f"{'yes' if r['exact'] else 'no'} | {r['with_pairs_at_1']} |")
        atomic_write(args.probe / "feature_sets.md", "\n".join(lines) + "\n")
    if args.rewrite:
        table_ = pd.read_csv(args.probe / "probe.csv")
        genome_table = pd.read_csv(args.probe / "probe_genomes.csv")
        atomic_write(args.probe / "probe.json",
                     json.dumps({**data, "results": results}, indent=2, default=str) + "\n")
        atomic_write(args.probe / "probe.md",
                     probe_markdown(table_, genome_table, settings, results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
