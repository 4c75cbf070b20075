"""Each style at several strengths, as a designer ships it: `playstyles tiers` on committed
Tribes runs, and whether their tiers make a difficulty ladder that holds with the styles
still themselves.

    python experiments/style_tiers.py [--runs quickstart usecase] [--out DIR] [--workers N]
    python experiments/style_tiers.py --check-only [--out DIR]

For each run of `RUNS` it plays (or, with --resume semantics, finishes) `playstyles tiers RUN
--budgets ...` into `OUT/<name>/` (the run's distinct styles and the control at every budget,
on the run validation's held-out levels and games), then reads what was written there and
prints, per run:

* per style: how many of its tiers are a ladder that holds (every adjacent pair separated:
  the higher budget better against the same opponent on the same games, exact one-sided sign
  test, Holm over the style's steps) and at which tiers it is still a distinct style
  (`holds`: told apart from every other style at that strength by at least one per-game
  standard deviation in some feature);
* per tier: the distinct styles;
* the targets: at least `TARGETS[name]["tiers"]` separated tiers for every style, and (where
  asked) at least 2 distinct styles on each of at least 3 tiers.

`--check-only` only reads the folders. `OUT/summary.json` keeps the figures, `OUT/summary.md`
the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BUDGETS = (1, 8, 50, 300)
RUNS = {"quickstart": "experiments/results/quickstart",
        "usecase": "experiments/results/visible"}
"""The committed runs (relative to the repository) whose styles are tiered."""
GAME = "tribes"
"""The game of every run of `RUNS`."""
TARGETS = {"quickstart": {"tiers": 3, "styles": None, "styles_tiers": None},
           "usecase": {"tiers": 4, "styles": 2, "styles_tiers": 3}}
"""Per run: separated tiers every style reaches; distinct styles on each of
`styles_tiers` tiers (None: not asked)."""


def play(name: str, out: Path, workers: int | None) -> None:
    """`playstyles tiers` of run `name` into `out/name` (continued when interrupted before)."""
    from qd.tiers import JOURNAL, style_tiers
    folder = out / name
    resume = (folder / JOURNAL).exists()
    style_tiers(REPO / RUNS[name], BUDGETS, out=folder, workers=workers, resume=resume,
                force=resume)


def longest_ladder(shown: list[bool], holds: list[bool] | None = None) -> list[int]:
    """The tiers (1-based) of the longest run of consecutive tiers whose steps are all shown
    and, when `holds` is given, at each of which the style holds (the earliest when tied; no
    tier when it holds at none).

    Args:
        shown: per step (tier k to k+1), shown or not.
        holds: per tier, the style holds there or not (None: not asked).
    """
    n = len(shown) + 1
    ok = holds if holds is not None else [True] * n
    best: list[int] = []
    k = 0
    while k < n:
        if not ok[k]:
            k += 1
            continue
        run = [k + 1]
        while k < n - 1 and shown[k] and ok[k + 1]:
            k += 1
            run.append(k + 1)
        if len(run) > len(best):
            best = run
        k += 1
    return best


def assess(name: str, folder: Path) -> dict:
    """The figures of one run's tiers folder, and its targets met or not."""
    summary = json.loads((folder / "tiers_summary.json").read_text())
    steps = pd.read_csv(folder / "tiers_steps.csv")
    table = pd.read_csv(folder / "tiers.csv", dtype={"cell": str})
    budgets = summary["budgets"]
    ladders = {}
    for s, v in summary["ladders"].items():
        holds = summary["holds"].get(s)  # (the control has none: it is no style)
        separated = longest_ladder(v["steps_shown"])
        kept = longest_ladder(v["steps_shown"], holds) if holds else []
        ladders[s] = {"steps_shown": v["steps_shown"], "ladder_holds": v["ladder_holds"],
                      "separated_budgets": [budgets[k - 1] for k in separated],
                      "separated_tiers": len(separated),
                      "holds_at_budgets": [b for b, h in zip(budgets, holds or []) if h],
                      "separated_and_holding_budgets": [budgets[k - 1] for k in kept],
                      "separated_and_holding_tiers": len(kept)}
    games = pd.read_csv(folder / "tiers_games.csv", dtype={"cell": str})
    per_tier = [{"budget": t["budget"], "distinct_styles": t["distinct_styles"],
                 "control_win_rate": t["control"].get("win_rate") if t.get("control") else None,
                 "identification": _identified(t, games[games["tier"] == t["tier"]])}
                for t in summary["tiers"]]
    target = TARGETS[name]
    styles = [s for s in ladders if s != "control"]
    best = max(ladders[s]["separated_tiers"] for s in styles)
    out = {"run": RUNS[name], "budgets": budgets,
           "games_per_style": summary["games_per_style"], "levels": len(summary["levels"]),
           "delta": summary["delta"], "styles": ladders, "tiers": per_tier,
           "win_rate": _win_rates(table), "steps": len(steps),
           "most_separated_tiers": best,
           "styles_with_target_tiers": [s for s in styles
                                        if ladders[s]["separated_tiers"] >= target["tiers"]],
           "styles_with_target_tiers_holding": [
               s for s in styles if ladders[s]["separated_and_holding_tiers"] >= target["tiers"]],
           "target_tiers": target["tiers"], "tiers_met": best >= target["tiers"]}
    if target["styles"]:
        many = [t for t in per_tier if t["distinct_styles"] >= target["styles"]]
        holding = [s for s in styles
                   if ladders[s]["separated_and_holding_tiers"] >= target["styles_tiers"]]
        out.update({"tiers_with_styles": len(many), "target_styles": target["styles"],
                    "target_styles_tiers": target["styles_tiers"],
                    "styles_holding_on_separated_tiers": holding,
                    "styles_met": len(many) >= target["styles_tiers"]
                    and len(holding) >= target["styles"]})
    return out


def _identified(tier: dict, games: pd.DataFrame) -> dict | None:
    """One tier's one-game identification among the run's styles, rounded for the summary:
    tiers_summary.json's, or for a folder written before tiers reported it, recomputed from
    tiers_games.csv (`qd.tiers.tier_identification`)."""
    found = tier.get("identification", False)
    if found is False:
        from qd.tiers import tier_identification
        found = tier_identification(GAME, games.to_dict("records"))
    return None if found is None else {"accuracy": round(found["accuracy"], 4),
                                       "chance": round(found["chance"], 4),
                                       "games": found["games"]}


def _win_rates(table: pd.DataFrame) -> dict:
    """Per style, its win rate at each tier (held out) with the interval and games."""
    out = {}
    for style, g in table.sort_values("tier").groupby("run_style"):
        out[str(style)] = [{"budget": int(r["budget"]), "win_rate": r["win_rate_validated"],
                            "ci": [r["win_rate_ci_low"], r["win_rate_ci_high"]],
                            "games": int(r["games_validated"])} for r in g.to_dict("records")]
    return out


def markdown(results: dict) -> str:
    """summary.md: per run, each style's ladder and the targets."""
    lines = ["# Styles at several strengths: the targets", ""]
    for name, r in results.items():
        lines += [f"## {name} (`{r['run']}`)", "",
                  f"Budgets {', '.join(map(str, r['budgets']))} calls; {r['games_per_style']} "
                  f"held-out games per style and tier on {r['levels']} levels.", "",
                  "| style | win rate by tier | separated tiers (calls) | holds at (calls) | "
                  "separated and holding (calls) |", "|---|---|---|---|---|"]
        for s, v in r["styles"].items():
            won = [t["control_win_rate"] for t in r["tiers"]] if s == "control" else \
                [w["win_rate"] for w in r["win_rate"].get(s, [])]
            rates = " / ".join(f"{100 * w:.0f}%" for w in won if w is not None)
            lines.append(f"| {s} | {rates or '-'} | {_calls(v['separated_budgets'])} | "
                         f"{_calls(v['holds_at_budgets'])} | "
                         f"{_calls(v['separated_and_holding_budgets'])} |")
        named = [t for t in r["tiers"] if t.get("identification")]
        if named:
            lines += ["", "One game names which style played it (chance "
                          f"{100 * named[0]['identification']['chance']:.0f}%): " + ", ".join(
                              f"{t['budget']} calls {100 * t['identification']['accuracy']:.0f}% "
                              f"(n = {t['identification']['games']} games)" for t in named) + "."]
        lines += ["", f"- most separated tiers of one style: {r['most_separated_tiers']} "
                      f"(target {r['target_tiers']}: {'met' if r['tiers_met'] else 'not met'}; "
                      f"styles reaching it: {', '.join(r['styles_with_target_tiers']) or 'none'};"
                      f" while holding: "
                      f"{', '.join(r['styles_with_target_tiers_holding']) or 'none'})"]
        if "styles_met" in r:
            lines.append(f"- tiers with at least {r['target_styles']} distinct styles: "
                         f"{r['tiers_with_styles']}; styles holding on at least "
                         f"{r['target_styles_tiers']} separated tiers: "
                         f"{', '.join(r['styles_holding_on_separated_tiers']) or 'none'} "
                         f"(target: {r['target_styles']} styles on {r['target_styles_tiers']} "
                         f"tiers: {'met' if r['styles_met'] else 'not met'})")
        lines.append("")
    return "\n".join(lines)


def _calls(budgets: list[int]) -> str:
    """`1, 8, 50` or `-`."""
    return ", ".join(map(str, budgets)) or "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", nargs="+", choices=sorted(RUNS), default=sorted(RUNS))
    ap.add_argument("--out", type=Path, default=REPO / "experiments/results/tiers")
    ap.add_argument("--workers", type=int, help="CPUs of a local Ray (default: all)")
    ap.add_argument("--check-only", action="store_true", help="only read the folders")
    args = ap.parse_args(argv)
    results = {}
    for name in args.runs:
        if not args.check_only:
            play(name, args.out, args.workers)
        results[name] = assess(name, args.out / name)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(results, indent=2) + "\n")
    text = markdown(results)
    (args.out / "summary.md").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
