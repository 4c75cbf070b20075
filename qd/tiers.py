"""Each style at chosen strengths (`playstyles tiers RUN --budgets 10,30,100`): the distinct
styles a validation found, each played at every budget (forward-model calls per decision) on
the held-out levels beside the control at the same budget, and exported as presets named by
style and tier.

An archive's styles are the best of their cells at the run's budget; a designer who wants
"the defensive builder, easy, medium and hard" needs each style weaker and stronger while it
stays itself. The budget is the lever: the style's genome (its script weights) is kept, only
the calls per decision change.

Games: at every budget, those of the run's validation (`qd.validation.plan_games` with the
same `validation_key`): game g has the same level, seat and seeds at every budget and for every
style, so the tiers are paired and the tier at the run's own budget replays the validation's
games. The opponent keeps the run's budget.

At each tier the styles are counted as a validation counts them (`qd.validation.
validation_tables`: per-game standard deviations pooled over the tier's genomes, paired by
game, blocked by level, `delta`): a style *holds* at a tier when it is among the tier's distinct
styles, i.e. still told apart from every other style played at that strength; it is
*non-inferior* there when it plays within `margin` of the control at the same budget.

Each style's tiers are a difficulty ladder when each tier beats the yardstick they all play,
the run's opponent at the run's budget, more often than the tier below: a step is tested on
the paired games (game g at both tiers: same level, seat and seeds), with the exact one-sided
sign test on the games whose results differ (McNemar's test), Holm over the style's steps (one
style's tiers are the ladder a designer ships).

Files in the output folder (default `RUN/tiers/`; new or empty, or an earlier tiers' with
`force`):

    tiers.csv           one row per style and tier: budget, games, win rate and interval,
                        every feature's held-out mean and interval, holds, non-inferior
    tiers_games.csv     one row per game (genome, tier, game): seeds, result, every feature
    tiers_steps.csv     per style (and the control), each adjacent pair of tiers: paired
                        games where the higher tier did better / worse, the one-sided
                        p-value, whether the step is shown (Holm over the style's steps),
                        and about how many games would show it when it is not
    tiers_summary.json  per tier: distinct styles, which styles hold, the control; per
                        style: its steps shown
    tiers.md            the table a designer reads
    presets.json        one preset per style and tier ("<style> / tier k (b calls)"), each
                        with its held-out numbers at that tier
    tiers.journal       (while playing) the finished games, for --resume
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from base.files import atomic_write, check_folder, claim_folder
from base.limits import MAX_BUDGET
from base.progress import Progress
from base.stats import ALPHA, ahead_p, games_to_show, holm
from base.version import provenance
from play.journal import GameJournal
from play.presets import PresetFile, dump_presets
from play.ray_session import check_playable, ray_session
from qd.config import RunConfig
from qd.export import elite_presets, spec_text, style_labels
from qd.features import features_of
from qd.rundir import (
    ELITES,
    WIN_RATE_CI,
    RunFiles,
    csv_true,
    number_text,
    styles_counted,
    validated_column,
    validation_source,
)
from qd.styles import DELTA, MARGIN, Sample, identification
from qd.validation import (
    CONTROL,
    plan_games,
    play_journal,
    run_elites,
    validation_key,
    validation_levels,
    validation_tables,
)

TIERS = "tiers"
"""The command, as its output folder's marker names it."""
TABLE = "tiers.csv"
GAMES = "tiers_games.csv"
STEPS = "tiers_steps.csv"
SUMMARY = "tiers_summary.json"
REPORT = "tiers.md"
PRESETS = "presets.json"
JOURNAL = "tiers.journal"
FILES = (TABLE, GAMES, STEPS, SUMMARY, REPORT, PRESETS, JOURNAL)
"""What tiers writes in its folder: a folder holding anything else is not one."""
MAX_TIERS = 8
"""The most budgets one call plays."""


@dataclass
class TiersResult:
    """What `style_tiers` wrote.

    Args:
        out: the output folder.
        table: tiers.csv's rows.
        summary: tiers_summary.json.
        presets: the preset file.
    """

    out: Path
    table: pd.DataFrame
    summary: dict[str, Any]
    presets: Path


def check_budgets(budgets: Sequence[Any]) -> list[int]:
    """The budgets, ascending: 1 to `MAX_TIERS` distinct whole numbers of calls from 1 to
    `base.limits.MAX_BUDGET` (one error naming the bad one)."""
    out = []
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, str)) or not str(b).strip().isdigit():
            raise ValueError(f"budgets: {b!r} is no whole number of calls")
        n = int(b)
        if not 1 <= n <= MAX_BUDGET:
            raise ValueError(f"budgets: {n} is outside 1 to {MAX_BUDGET} calls")
        if n in out:
            raise ValueError(f"budgets: {n} is named twice")
        out.append(n)
    if not 1 <= len(out) <= MAX_TIERS:
        raise ValueError(f"budgets: 1 to {MAX_TIERS} budgets, got {len(out)}")
    return sorted(out)


def at_budget(config: RunConfig, budget: int) -> RunConfig:
    """The run's config with the evolved agent at `budget` calls (the opponent keeps its)."""
    if config.agent.get("budget") is None:
        raise ValueError(f"budgets: the run's agent {config.agent['name']!r} has no budget "
                         f"to vary")
    return replace(config, agent={**config.agent, "budget": int(budget)})


def _styles(run: RunFiles, elites: pd.DataFrame) -> pd.DataFrame:
    """The distinct styles of the run's validation (rows of elites.csv), by style number."""
    summary = run.validation_summary if run.validation is not None else None
    if run.validation is None or not styles_counted(summary) or "distinct" not in run.validation:
        raise ValueError(f"{run.dir}: tiers plays the distinct styles of a validation; "
                         f"validate the run first (playstyles validate {run.dir})")
    v = run.validation
    held = v[v["distinct"].map(csv_true)].sort_values("style", kind="stable")
    if held.empty:
        raise ValueError(f"{run.dir}: no elite held up as a distinct style "
                         f"({validation_source(summary)}); nothing to play at other budgets")
    keep = elites.set_index("index")
    return keep.loc[held["index"].to_list()].reset_index()


def tier_name(k: int, budget: int) -> str:
    """`tier k (b calls)`, k from 1 (the smallest budget)."""
    return f"tier {k} ({budget} calls)"


def style_tiers(run_dir: str | Path, budgets: Sequence[Any], out: str | Path | None = None,
                games: int | None = None, levels: str | Sequence[int] | None = None,
                workers: int | None = None, address: str | None = None,
                progress: Progress | None = None, resume: bool = False, force: bool = False,
                delta: float = DELTA, margin: float = MARGIN) -> TiersResult:
    """Play the run's distinct styles and its control at each of `budgets` on the held-out
    levels, count the styles at each tier, and write the tables and one preset per style and
    tier into `out` (the module's docstring lists the files).

    Args:
        run_dir: the run directory (validated: its distinct styles are played).
        budgets: forward-model calls per decision, one tier each (sorted ascending).
        out: the output folder (default `RUN/tiers`): new or empty, or an earlier tiers'
            (then `force` overwrites it, `resume` continues it).
        games: games per style and tier (default: the validation's games per elite).
        levels: the levels (default: the validation's, so that the tier at the run's own
            budget replays the validation's games).
        workers: CPUs of a local Ray (default: all); 0 plays in this process.
        address: a Ray cluster to join.
        progress: told how many games are done (`base.progress`).
        resume: continue an interrupted call (same arguments): only its missing games.
        force: overwrite an earlier call's results in `out`.
        delta: the minimum effect two styles differ by (per-game standard deviations).
        margin: the non-inferiority margin against the control at the same budget.

    Raises:
        ValueError: a bad argument, a run without counted styles, or a refused folder.
        play.journal.Interrupted: on Ctrl-C, once the finished games are kept.
    """
    tiers = check_budgets(budgets)
    run = RunFiles(run_dir).check(ELITES)
    config, elites, names = run_elites(run, "play at other budgets")
    at_budget(config, tiers[0])  # (an agent without a budget is refused before anything)
    chosen = _styles(run, elites)
    vsummary = run.validation_summary or {}
    if levels is None:
        levels = vsummary.get("levels") or None
    level_list = validation_levels(config.game, levels, config.held_out_levels,
                                   config.train_levels)
    n_games = int(games) if games is not None else \
        int(vsummary.get("games_per_elite") or config.plan().players * len(level_list))
    if n_games < 1:
        raise ValueError(f"games: at least one game per style and tier, got {n_games}")
    out = Path(out) if out is not None else run.dir / TIERS
    check_folder(out, command=TIERS, force=force or resume, writes=FILES)
    check_playable([config.game], address, workers)

    key = validation_key(config, level_list)  # every tier plays the validation's games
    per_tier = []
    for b in tiers:
        per_tier += plan_games(chosen, names, at_budget(config, b).plan(), level_list,
                               n_games, config.seed, control=True, key=key)
    claim_folder(out, command=TIERS, force=force or resume, writes=FILES)
    journal = GameJournal(out / JOURNAL, per_tier, TIERS, resume=resume)
    with journal.interruptible():
        with ray_session():
            records = play_journal(journal, address, workers, progress, TIERS)
    table, game_rows, counts = tier_tables(config, run, chosen, names, tiers, level_list,
                                           n_games, records, delta, margin)
    steps = tier_steps(game_rows, dict(zip(table["index"], table["run_style"])), tiers)
    pf = _tier_presets(config, run, chosen, table, tiers, vsummary, level_list)
    summary = {"run": config.name, "budgets": tiers, "run_budget": config.agent["budget"],
               "levels": list(level_list), "games_per_style": n_games,
               "styles": [int(s) for s in chosen.merge(run.validation, on="index")["style"]],
               "delta": delta, "margin": margin, "tiers": counts,
               "holds": {str(int(s)): [bool(h) for h in g.sort_values("tier")["holds"]]
                         for s, g in table.groupby("run_style")},
               "ladders": ladders(steps),
               "made_by": provenance()}
    dump_presets(pf, out / PRESETS)  # (checked as it is read back: written first)
    atomic_write(out / TABLE, table.to_csv(index=False))
    atomic_write(out / GAMES, pd.DataFrame(game_rows).to_csv(index=False))
    atomic_write(out / STEPS, steps.to_csv(index=False))
    atomic_write(out / SUMMARY, json.dumps(summary, indent=2) + "\n")
    atomic_write(out / REPORT, tiers_markdown(config, table, summary, steps))
    journal.finish()
    return TiersResult(out, table, summary, out / PRESETS)


def tier_tables(config: RunConfig, run: RunFiles, chosen: pd.DataFrame, names: Sequence[str],
                tiers: Sequence[int], level_list: Sequence[int], n_games: int,
                records: Sequence[Any], delta: float, margin: float
                ) -> tuple[pd.DataFrame, list[dict[str, Any]], list[dict[str, Any]]]:
    """tiers.csv, tiers_games.csv's rows and each tier's count from the games played (no
    file): every tier's games counted as a validation counts them.

    Args:
        config: the run's config.
        run: the run directory's files (its validation numbers the styles).
        chosen: the styles played (rows of elites.csv), in plan order.
        names: the weight columns.
        tiers: the budgets, ascending.
        level_list: the levels.
        n_games: games per style and tier.
        records: every game, tier-major, each tier's as `plan_games` plans them.
        delta, margin: as for `style_tiers`.
    """
    span = (len(chosen) + 1) * n_games
    tables, game_rows, counts = [], [], []
    for k, b in enumerate(tiers):
        table, rows, summary = validation_tables(
            at_budget(config, b), chosen, names, level_list, n_games,
            records[k * span:(k + 1) * span], control=True, delta=delta, margin=margin)
        table.insert(0, "tier", k + 1)
        table.insert(1, "budget", b)
        tables.append(table)
        game_rows += [{"tier": k + 1, "budget": b, **r} for r in rows]
        counts.append({"tier": k + 1, "budget": b, "distinct_styles": summary["distinct_styles"],
                       "non_inferior": summary["distinct_styles_non_inferior"],
                       "styles": summary["styles"]["styles"], "control": summary["control"],
                       "identification": tier_identification(config.game, rows)})
    table = pd.concat(tables, ignore_index=True)
    run_style = dict(zip(chosen["index"], run.validation.set_index("index")
                         .loc[chosen["index"], "style"]))
    table.insert(2, "run_style", table["index"].map(run_style).astype(int))
    return table.rename(columns={"style": "tier_style", "distinct": "holds"}), game_rows, counts


def tier_identification(game: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """How often one game of a tier names which of the run's styles played it (every style
    played there, the control left out; `qd.styles.identification`: every feature the game
    registers, cross-validated leaving one level out); None with fewer than two styles.

    Args:
        game: the run's game.
        rows: the tier's games (tiers_games.csv's rows of one tier).
    """
    names = [f for f in features_of(game) if rows and f in rows[0]]
    samples = []
    for index, g in pd.DataFrame(rows).groupby("index", sort=False):
        if index < 0:  # the control: the default weights, no style of the run
            continue
        g = g.sort_values("game")
        samples.append(Sample(str(g["cell"].iloc[0]), g["elite_won"].to_list(),
                              {}, blocks=g["level"].to_list(),
                              described={f: g[f].to_list() for f in names}))
    found = identification(samples) if len(samples) >= 2 else None
    return None if found is None else {k: found[k] for k in ("accuracy", "chance", "games",
                                                             "per_style")}


def tier_steps(game_rows: Sequence[dict[str, Any]], run_style: dict[int, int],
               tiers: Sequence[int], alpha: float = ALPHA) -> pd.DataFrame:
    """tiers_steps.csv: for every style (and the control), each adjacent pair of tiers tested
    on the paired games (the module's docstring says how); ascending style, then tier.

    Args:
        game_rows: tiers_games.csv's rows (`tier`, `index`, `game`, `elite_won`).
        run_style: the style number of each elite index (the control is not in it).
        tiers: the budgets, ascending.
        alpha: the family-wise error of one style's steps.
    """
    games = pd.DataFrame(game_rows)
    wide = games.pivot_table(index=["index", "game"], columns="tier", values="elite_won")
    rows = []
    for index, g in wide.groupby(level="index", sort=False):
        style = run_style.get(int(index), CONTROL)
        steps = []
        for k in range(1, len(tiers)):
            both = g[[k, k + 1]].dropna()
            diff = both[k + 1] - both[k]
            better, worse = int((diff > 0).sum()), int((diff < 0).sum())
            steps.append({"style": style, "index": int(index), "from_tier": k,
                          "to_tier": k + 1, "from_budget": tiers[k - 1], "to_budget": tiers[k],
                          "games": len(both), "better": better, "worse": worse,
                          "p": ahead_p(better, better + worse)})
        for st, ok in zip(steps, holm([st["p"] for st in steps], alpha)):
            st["shown"] = bool(ok)
            st["games_needed"] = None if ok else _games_needed(st, alpha / len(steps))
        rows += steps
    cols = ["style", "index", "from_tier", "to_tier", "from_budget", "to_budget", "games",
            "better", "worse", "p", "shown", "games_needed"]
    table = pd.DataFrame(rows, columns=cols)
    order = table["style"].map(lambda s: -1 if s == CONTROL else int(s))
    return table.assign(_o=order).sort_values(["_o", "from_tier"], kind="stable") \
        .drop(columns="_o").reset_index(drop=True)


def _games_needed(step: dict[str, Any], alpha: float) -> int | None:
    """About how many paired games would show a step that was not shown, at its observed
    share of games whose results differ and its observed split of them (normal
    approximation, power 0.8); None when the higher tier did not do better."""
    differ = step["better"] + step["worse"]
    if not differ or step["better"] <= step["worse"]:
        return None
    pairs = games_to_show(step["better"] / differ, alpha)
    return int(math.ceil(pairs * step["games"] / differ))


def ladders(steps: pd.DataFrame) -> dict[str, Any]:
    """Per style (and the control): its steps shown, and whether all are (its tiers are a
    ladder that holds)."""
    out = {}
    for style, g in steps.groupby("style", sort=False):
        out[str(style)] = {"steps_shown": [bool(x) for x in g["shown"]],
                           "ladder_holds": bool(g["shown"].all()) if len(g) else False}
    return out


def _tier_presets(config: RunConfig, run: RunFiles, chosen: pd.DataFrame, table: pd.DataFrame,
                  tiers: Sequence[int], vsummary: dict[str, Any], level_list: Sequence[int]
                  ) -> PresetFile:
    """One preset per style and tier, named `<style> / tier k (b calls)`, with its held-out
    numbers at that tier (`qd.export`'s evidence, read from the tier's table)."""
    labels = style_labels(config, chosen.merge(run.validation, on="index",
                                                suffixes=("", "_run")), True)
    evolved_from, validated_from = run.elites_source, validation_source(vsummary)
    presets = []
    for k, b in enumerate(tiers):
        rows = table[table["tier"] == k + 1].set_index("index").loc[chosen["index"]]
        merged = chosen.drop(columns=[c for c in chosen.columns if c in rows.columns
                                      and c not in ("index", "cell")]) \
            .merge(rows.reset_index().drop(columns=["cell"])
                   .rename(columns={c: validated_column(c) for c in WIN_RATE_CI}), on="index")
        merged["style"] = merged["run_style"]
        tier_summary = {**vsummary, "levels": list(level_list)}
        made = elite_presets(at_budget(config, b), merged, labels, [], "style", True, tier_summary,
                        evolved_from, f"{validated_from}, replayed at {b} calls")
        for p, r in zip(made, merged.to_dict("records")):
            p.name = f"{p.name} / {tier_name(k + 1, b)}"
            p.evidence.update({"tier": k + 1, "budget": b, "tiers": list(tiers),
                               "holds": bool(r["holds"]),
                               "non_inferior": None if pd.isna(r["non_inferior"])
                               else bool(r["non_inferior"])})
            presets.append(p)
    source = {"run": config.name, "run_seed": config.seed, "opponent": spec_text(config.opponent),
              "budgets": list(tiers), "validation_levels": list(level_list),
              "selection": f"the {len(chosen)} distinct styles of the run's validation, each at "
                           f"{len(tiers)} budgets ({', '.join(map(str, tiers))} calls)",
              "exported_by": provenance()}
    return PresetFile(config.game, presets, "style", dict(config.options), source)


def tiers_markdown(config: RunConfig, table: pd.DataFrame, summary: dict[str, Any],
                   steps: pd.DataFrame | None = None) -> str:
    """tiers.md: per style, each tier's win rate (interval, games), features, and whether it
    holds and is non-inferior there; then each style's steps (`tier_steps`), when given."""
    feats = [f.name for f in config.features]
    head = ["style", "tier", "calls", "games", "win rate (95% CI)",
            *feats, "holds", "non-inferior"]
    lines = [f"# Styles at other strengths: run `{config.name}`", "",
             f"Each distinct style of the run's validation and the control played "
             f"{summary['games_per_style']} games per budget on levels "
             f"{', '.join(str(x) for x in summary['levels'])} (held out; game g the same at "
             f"every budget), the opponent at the run's budget. A style *holds* at a tier when "
             f"it differs from every other style played at that budget by at least "
             f"{summary['delta']:g} per-game standard deviation in some feature; "
             f"*non-inferior*: within {100 * summary['margin']:.0f} points of the control at "
             f"the same budget.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    won = validated_column("win_rate")
    for r in table.sort_values(["run_style", "tier"]).to_dict("records"):
        lo, hi = r["win_rate_ci_low"], r["win_rate_ci_high"]
        cells = [f"#{r['run_style']} ({r['cell']})", str(r["tier"]), str(r["budget"]),
                 str(r[validated_column("games")]),
                 f"{100 * r[won]:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})",
                 *(number_text(r[validated_column(f)]) for f in feats),
                 "yes" if r["holds"] else "no",
                 "-" if pd.isna(r["non_inferior"]) else "yes" if r["non_inferior"] else "no"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Distinct styles per tier: " + ", ".join(
        f"{t['budget']} calls {t['distinct_styles']}" for t in summary["tiers"]) + "."]
    named = [t for t in summary["tiers"] if t.get("identification")]
    if named:
        first = named[0]["identification"]
        lines += ["", f"One game names which of the {round(1 / first['chance'])} styles played "
                      f"it (every feature of the game, leaving one level out; chance "
                      f"{100 * first['chance']:.0f}%): " + ", ".join(
                          f"{t['budget']} calls {100 * t['identification']['accuracy']:.0f}% "
                          f"of {t['identification']['games']} games" for t in named) + "."]
    if steps is not None and len(steps):
        lines += ["", *_steps_markdown(steps)]
    return "\n".join(lines) + "\n"


def _steps_markdown(steps: pd.DataFrame) -> list[str]:
    """tiers.md's ladder: one line per style and step."""
    lines = ["## Each style's tiers as a difficulty ladder", "",
             "A step is shown when the higher tier did better than the lower one against the "
             "same opponent on the same games more often than worse (exact one-sided sign "
             "test on the games whose results differ, Holm over the style's steps, 5%).", "",
             "| style | step (calls) | games | higher tier better / worse | p | shown |",
             "|---|---|---|---|---|---|"]
    for r in steps.to_dict("records"):
        style = "control" if r["style"] == CONTROL else f"#{r['style']}"
        shown = "yes" if r["shown"] else "no" if pd.isna(r["games_needed"]) \
            else f"no (about {int(r['games_needed'])} games would)"
        lines.append(f"| {style} | {r['from_budget']} -> {r['to_budget']} | {r['games']} | "
                     f"{r['better']} / {r['worse']} | {r['p']:.2g} | {shown} |")
    return lines
