"""Exporting elites as presets a game can ship (`playstyles export`).

Two kinds of selection:

* `difficulty`: K elites spread over win rate, as levels "level 1 (easiest)" .. "level K
  (hardest)". The win rate is the validated one when validation covered at least K elites
  (the evolved rate is optimistic: the archive keeps lucky evaluations), else the evolved one;
  each preset's evidence says which. Targets are K evenly spaced win rates from the lowest to
  the highest; each takes the nearest elite not taken yet. With calibration, more candidates
  can be given (N elites, each also at several budgets); all play the calibration round
  robin, and K whose order is shown are kept, weakest first: in order of Bradley-Terry
  rating, every adjacent pair's harder one ahead of the easier (one-sided binomial test,
  Holm over the steps; `play.ladder.shown_chain`), each step's test in the file.
* `style`: from a run whose validation counted distinct styles (`playstyles validate`), the
  first K distinct styles that held up on held-out levels, strongest first (validation.csv
  `style`), fewer with a warning when fewer held up. Otherwise (`all_elites`, a run not
  validated, with a warning, or a validation that counted no styles), K elites from distinct
  regions of the feature space: first the corners of the inhabited region (each corner
  followed by the opposite one), then the elite farthest from those already taken; positions
  use the validated features under the same rule as the win rate. Each is named by the
  feature means printed beside the name: where each sits in the feature's grid range, by
  thirds ("many attacks, ranged support"); the held-out means when the win rate is the
  validated one, else elites.csv's. The numbers, with 95% intervals, are in the description
  and the evidence.

Or the elites are named: `cells` exports exactly those elites (by their cells in elites.csv),
each named by its style as above (the archive explorer, `plots.explorer`, gives the command).

Every number exported names the games it comes from: `evolution`, `re-estimation (N fresh
games on training levels)` (a `noise: reestimate` run) or `held out (N games on M held-out
levels)` (`qd.rundir.RunFiles.elites_source`, `qd.rundir.validation_source`).

A preset holds the agent's every parameter (the agent is built once and asked for its
`params()`, checked to rebuild the same agent), so it does not depend on defaults that may
change; the file format belongs to `play.presets`. Its provenance: each preset's run and
cell with every number it was chosen on (`evidence`), and the file's run, levels, selection
and the code that exported it (`source`, `source.exported_by`: version, commit and whether
the code had uncommitted changes).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from base.files import check_folder, check_output_file
from base.progress import Progress
from base.version import provenance
from play.ladder import FILES as LADDER_FILES
from play.ladder import LADDER, is_ladder_dir, ladder_dir
from play.ladder import calibrate as play_calibration
from play.presets import Preset, PresetFile, dump_presets, full_params, is_preset_file
from play.ray_session import check_playable
from qd.config import RunConfig, load_config
from qd.features import Feature
from qd.rundir import (
    CONFIG,
    ELITES,
    PRESET_KINDS,
    STYLE_COLUMNS,
    WIN_RATE_CI,
    RunFiles,
    cell_keys,
    command_path,
    csv_true,
    mean_column,
    measure_column,
    parse_grid_index,
    presets_file,
    run_files,
    se_column,
    styles_counted,
    validated_ci_columns,
    validated_column,
    validated_columns,
    validation_source,
    weight_columns,
)
from qd.validation import validate

KINDS = PRESET_KINDS
WIN_RATE_VALIDATED = validated_column("win_rate")  # of validation.csv, joined to the elites

# ------------------------------------------------------------------------------ selection

def pick_difficulty(strength: Sequence[float], count: int) -> list[int]:
    """Positions of `count` entries spread over `strength`, weakest first: evenly spaced
    targets from the lowest to the highest value, each taking the nearest unused entry
    (ties: the earlier entry)."""
    s = np.asarray(strength, dtype=float)
    if count > len(s):
        raise ValueError(f"count: {count} presets asked, only {len(s)} elites to choose from")
    if count < 1:
        raise ValueError(f"count: at least 1, got {count}")
    lo, hi = float(s.min()), float(s.max())
    targets = [hi] if count == 1 else list(np.linspace(lo, hi, count))  # one: the strongest
    used: list[int] = []
    for t in targets:
        free = [i for i in range(len(s)) if i not in used]
        used.append(min(free, key=lambda i: (abs(s[i] - t), i)))
    return sorted(used, key=lambda i: (s[i], i))


def corner_order(dims: int) -> list[np.ndarray]:
    """Corners of the unit cube, each followed by its opposite: (0,0), (1,1), (0,1), (1,0)."""
    out, seen = [], set()
    for c in range(2 ** dims):
        for k in (c, (2 ** dims - 1) ^ c):
            if k not in seen:
                seen.add(k)
                out.append(np.array([(k >> (dims - 1 - d)) & 1 for d in range(dims)], float))
    return out


def pick_styles(points: np.ndarray, quality: Sequence[float], count: int) -> list[int]:
    """Positions of `count` points from distinct regions: nearest to each corner of the
    points' bounding box in turn, then farthest-point; ties go to the higher quality."""
    pts = np.asarray(points, dtype=float)
    q = np.asarray(quality, dtype=float)
    n = len(pts)
    if count > n:
        raise ValueError(f"count: {count} presets asked, only {n} elites to choose from")
    if count < 1:
        raise ValueError(f"count: at least 1, got {count}")
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    unit = (pts - lo) / span
    chosen: list[int] = []
    for corner in corner_order(pts.shape[1]):
        if len(chosen) == count:
            break
        free = [i for i in range(n) if i not in chosen]
        d = np.linalg.norm(unit[free] - corner, axis=1)
        k = min(range(len(free)), key=lambda k: (round(float(d[k]), 9), -q[free[k]], free[k]))
        chosen.append(free[k])
    while len(chosen) < count:
        free = [i for i in range(n) if i not in chosen]
        gap = [min(np.linalg.norm(unit[i] - unit[j]) for j in chosen) for i in free]
        k = min(range(len(free)), key=lambda k: (-round(gap[k], 9), -q[free[k]], free[k]))
        chosen.append(free[k])
    return chosen


def style_name(values: dict[str, float], ranges: dict[str, tuple[float, float]],
               features: dict[str, Feature]) -> str:
    """Words for where an elite sits on each feature: the lower, middle or upper third of
    `ranges` (each feature's own words, registered with it by the game). Give it the values
    printed beside the name, so that the name says what the numbers say.

    Args:
        values: feature -> the value named (None or NaN: `no <feature>`).
        ranges: feature -> (low, high) the thirds are cut from (the export: the grid range).
        features: feature -> the feature (its words).
    """
    words = []
    for f, v in values.items():
        lo, hi = ranges[f]
        if v is None or not math.isfinite(v):
            words.append(f"no {f}")
            continue
        t = 0.5 if hi <= lo else (v - lo) / (hi - lo)
        words.append(features[f].describe(0 if t < 1 / 3 else 2 if t > 2 / 3 else 1))
    return ", ".join(words)


# ------------------------------------------------------------------------------ export

def spec_text(a: dict[str, Any]) -> str:
    params = dict(a.get("params") or {})
    if a.get("budget") is not None:
        params["budget"] = a["budget"]
    return a["name"] + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
                        if params else "")


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


MIN_GAMES = 20
"""Games an exported preset's win rate should rest on (20 games at 50% give a Wilson 95%
interval 40 points wide); fewer are reported in the preset file's `warnings`."""


def style_labels(config: RunConfig, rows: pd.DataFrame, validated: bool) -> list[str]:
    """Each elite named by its feature means (held-out ones when `validated`, else
    elites.csv's), by thirds of each feature's grid range; a name shared by several gets its
    cell."""
    feats = [f.name for f in config.features]
    by_name = {f.name: f for f in config.features}
    ranges = {f.name: (f.lo, f.hi) for f in config.features}
    named = validated_column if validated else mean_column
    labels = [style_name({f: _num(r.get(named(f))) for f in feats}, ranges, by_name)
              for r in rows.to_dict("records")]
    counts: dict[str, int] = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return [f"{lab} ({r['cell']})" if counts[lab] > 1 else lab
            for lab, r in zip(labels, rows.to_dict("records"))]


def _named_cells(elites: pd.DataFrame, cells: Sequence[str]) -> pd.DataFrame:
    """The rows of the elites at `cells` (labels as in elites.csv), in the order given."""
    known = cell_keys(elites["cell"])
    at = {key: k for k, key in enumerate(known)}
    picked: list[int] = []
    for cell, key in zip(cells, cell_keys(cells)):
        if key not in at:
            some = ", ".join(str(c) for c in elites["cell"].head(5))
            raise ValueError(f"cells: {cell} is not an elite's cell in {ELITES} (its cells: "
                             f"{some}{', ...' if len(elites) > 5 else ''})")
        if at[key] in picked:
            raise ValueError(f"cells: {cell} is named twice")
        picked.append(at[key])
    return elites.iloc[picked]


def _choose(config: RunConfig, run_dir: Path, elites: pd.DataFrame, validation,
            vsummary: dict[str, Any], kind: str, count: int, n_cand: int, by_rating: bool,
            all_elites: bool, validated_from: str | None, cells: Sequence[str] | None = None
            ) -> tuple[pd.DataFrame, list[str], list[str], bool, bool]:
    """The elites chosen as presets (no file read or written): difficulty, spread over the
    win rate; style, the distinct styles of the validation (or, without one, distinct corners
    of the feature space), each named from its features; or the elites at `cells`, named
    from their features.

    Returns:
        (rows, labels, warnings, validated, distinct): the chosen rows of elites.csv (with
        their validation columns), their names, what the user should know, whether the
        choice rests on validated estimates, and whether on the validation's distinct styles.
    """
    feats = [f.name for f in config.features]
    if cells:
        rows = _named_cells(elites, cells)
        validated = WIN_RATE_VALIDATED in rows and bool(rows[WIN_RATE_VALIDATED].notna().all())
        return rows, style_labels(config, rows, validated), [], validated, False
    validated = WIN_RATE_VALIDATED in elites and \
        int(elites[WIN_RATE_VALIDATED].notna().sum()) >= count
    warnings: list[str] = []
    distinct = False  # style: the distinct styles of the validation, in their order
    if kind == "difficulty":
        pool = elites[elites[WIN_RATE_VALIDATED].notna()] if validated else elites
        pool = pool.reset_index(drop=True)
        col = WIN_RATE_VALIDATED if validated else "win_rate"
        picked = pick_difficulty(pool[col].to_numpy(float), n_cand)
        rows = pool.iloc[picked]
        labels = difficulty_labels(n_cand) if not by_rating else \
            [f"cell {r['cell']}" for r in rows.to_dict("records")]
    else:
        counted = validation is not None and "distinct" in elites and styles_counted(vsummary)
        tried = int(elites[WIN_RATE_VALIDATED].notna().sum()) if validation is not None else 0
        if validation is None:
            warnings.append(f"the styles have not been validated on held-out levels: "
                            f"playstyles validate {command_path(run_dir)} keeps only those that hold up")
        elif not counted and not all_elites:
            warnings.append(f"the run's validation did not count distinct styles (it predates "
                            f"them): validate again (playstyles validate {command_path(run_dir)}) to export "
                            f"only the styles that hold up")
        if counted and not all_elites:
            distinct = validated = True
            held = elites[elites["distinct"].map(csv_true)]
            held = held.sort_values("style", kind="stable").reset_index(drop=True)
            if held.empty:
                raise ValueError(f"{run_dir}: none of the {tried} validated elites held up as a "
                                 f"distinct style ({validated_from}); export from every elite "
                                 f"with --all-elites, or validate with more games")
            if len(held) < count:
                warnings.append(f"only {len(held)} of the {tried} validated elites held up as "
                                f"distinct styles ({validated_from}): {len(held)} exported of "
                                f"the {count} asked (--all-elites chooses among every elite)")
            rows = held.head(count)
        else:
            # validated positions when validation covered enough elites (more games, unseen
            # levels: the better estimate of how the preset will play), else the evolved ones
            pool = (elites[elites[WIN_RATE_VALIDATED].notna()] if validated else elites) \
                .reset_index(drop=True)
            pos_col = (lambda f: validated_column(measure_column(f))) if validated \
                else measure_column
            pts = pool[[pos_col(f) for f in feats]].to_numpy(float)
            quality = pool[WIN_RATE_VALIDATED if validated else "win_rate"].to_numpy(float)
            picked = pick_styles(pts, quality, count)
            rows = pool.iloc[picked]
        # named by the feature means printed beside the name (held-out when the win rate is,
        # else elites.csv's), by thirds of each feature's grid range
        labels = style_labels(config, rows, validated)
    return rows, labels, warnings, validated, distinct


def elite_presets(config: RunConfig, rows: pd.DataFrame, labels: Sequence[str],
             budgets: Sequence[int], kind: str, validated: bool, vsummary: dict[str, Any],
             evolved_from: str, validated_from: str | None) -> list[Preset]:
    """The chosen elites as presets (no file read or written): each one's agent and every
    parameter, and its evidence (features and win rate with their intervals, from every
    source, and where they come from)."""
    plan = config.plan()
    opponent = spec_text(config.opponent)
    feats = [f.name for f in config.features]
    presets = []
    for label, r, budget in _crossed(labels, rows.to_dict("records"), budgets):
        genome = np.array([float(r[n]) for n in weight_columns(config.genome_names)])
        spec = plan.agent_for(genome)
        params = full_params(spec.name, dict(spec.params), config.game)
        if budget is not None:
            if "budget" not in params:
                raise ValueError(f"budgets: agent {spec.name!r} takes no budget")
            run_budget, params["budget"] = params["budget"], budget
            label = f"{label} at {budget} calls"
        has_val = _num(r.get(WIN_RATE_VALIDATED)) is not None
        ev: dict[str, Any] = {
            "run": config.name, "cell": str(r["cell"]),
            "grid_index": parse_grid_index(r["grid_index"]),
            "features": {f: _num(r[mean_column(f)]) for f in feats},
            "features_ci95": {f: _interval(r.get(mean_column(f)), r.get(se_column(f)))
                              for f in feats},
            "win_rate_evolved": float(r["win_rate"]), "games_evolved": int(r["games"]),
            "win_rate_validated": _num(r.get(WIN_RATE_VALIDATED)) if has_val else None,
            "games_validated": int(r[validated_column("games")]) if has_val else None,
            "win_rate_source": "validated" if has_val and validated else "evolved",
            "evolved_from": evolved_from, "opponent": opponent}
        if has_val:
            ev["features_validated"] = {f: _num(r.get(validated_column(f))) for f in feats}
            ev["features_validated_ci95"] = {f: _pair(*(r.get(c) for c in validated_ci_columns(f)))
                                             for f in feats}
            ev["win_rate_validated_ci"] = [float(r[validated_column(c)]) for c in WIN_RATE_CI]
            ev["validation_levels"] = [int(x) for x in vsummary.get("levels", [])]
            ev["validated_from"] = validated_from
            if kind == "style" and _num(r.get("style")) is not None:
                ev["style"] = int(r["style"])
        replayed = ev["win_rate_source"] == "validated"
        rate = ev["win_rate_validated"] if replayed else ev["win_rate_evolved"]
        games = ev["games_validated"] if replayed else ev["games_evolved"]
        where = _validation_words(vsummary) if replayed else "training levels"
        shown = ev.get("features_validated") if replayed else ev["features"]
        spread = ev.get("features_validated_ci95") if replayed else ev["features_ci95"]
        rate_ci = ev["win_rate_validated_ci"] if replayed else \
            _pair(*(r.get(c) for c in WIN_RATE_CI))
        if budget is not None:
            ev["budget"] = budget
            ev["budget_evolved"] = run_budget
        at = "" if budget is None else \
            f" at the run's {run_budget} calls; plays at {budget} calls"
        if kind == "style":  # the numbers the name was made from, with their intervals
            won = f"won {100 * rate:.0f}%" + (
                f" ({100 * rate_ci[0]:.0f}-{100 * rate_ci[1]:.0f}%)" if rate_ci else "")
            values = ", ".join(f"{f} {_fmt(shown[f])}" + (
                f" ({_fmt(spread[f][0])} to {_fmt(spread[f][1])})" if spread and spread[f]
                else "") for f in feats)
        else:
            won = f"won {100 * rate:.0f}%"
            values = ", ".join(f"{f} {_fmt(shown[f])}" for f in feats)
        source = validated_from if replayed else evolved_from
        desc = (f"{source}: {won} of {games} games against {opponent} on {where}{at}; "
                f"{values} (cell {r['cell']} of run {config.name})")
        presets.append(Preset(label, spec.name, params, config.game, dict(config.options),
                              desc, ev))
    return presets


def _choice_arguments(kind: str, count: int, cells: Sequence[str] | None,
                      candidates: int | None, budgets: Sequence[int] | None,
                      calibrate: Sequence[str] | None
                      ) -> tuple[list[str] | None, int, list[int], int, bool]:
    """`export_presets`' choice arguments checked (one error naming the argument):
    (cells, count, budgets, candidate elites, whether the calibration chooses by rating)."""
    if kind not in KINDS:
        raise ValueError(f"kind: {kind!r} unknown (known: {', '.join(KINDS)})")
    if cells is not None:
        cells = [str(c).strip() for c in cells]
        if not cells:
            raise ValueError("cells: name at least one elite's cell")
        if candidates is not None or budgets:
            raise ValueError("cells: the elites are named, so there are no candidates or "
                             "budgets to choose among")
        count = len(cells)
    budgets = [int(b) for b in budgets] if budgets else []
    n_cand = int(candidates) if candidates is not None else 1 if budgets else count
    if kind != "difficulty" and (candidates is not None or budgets):
        raise ValueError("candidates, budgets: only for --kind difficulty")
    if n_cand * max(1, len(budgets)) < count:
        raise ValueError(f"candidates: {n_cand} elites" + (
            f" x {len(budgets)} budgets" if budgets else "") + f" give fewer than count "
            f"({count}) presets")
    if any(b < 1 for b in budgets) or len(set(budgets)) != len(budgets):
        raise ValueError(f"budgets: distinct positive numbers of calls, got {budgets}")
    # the presets are chosen by the calibration among more (or re-budgeted) candidates
    by_rating = n_cand * max(1, len(budgets)) > count or bool(budgets)
    if by_rating and not calibrate:
        raise ValueError(f"calibrate: choosing {count} presets among {n_cand} candidate elites"
                         + (f" x {len(budgets)} budgets" if budgets else "")
                         + " needs their ratings; name the shared baselines (--calibrate)")
    return cells, count, budgets, n_cand, by_rating


def _with_validation(run: RunFiles) -> tuple[pd.DataFrame, pd.DataFrame | None, dict[str, Any]]:
    """(elites.csv joined with validation.csv's replayed columns, validation.csv, its
    summary); without a validation, elites.csv alone."""
    elites = run.elites
    if elites.empty:
        raise ValueError(f"{run.dir}: the archive has no elite to export")
    validation = run.validation
    if validation is None:
        return elites, None, {}
    keep = validated_columns(validation.columns) + list(WIN_RATE_CI)
    keep += [c for c in STYLE_COLUMNS if c in validation]
    ci = {c: validated_column(c) for c in WIN_RATE_CI}  # elites.csv has its own interval
    elites = elites.merge(validation[["index"] + keep].rename(columns=ci), on="index",
                          how="left")
    return elites, validation, run.validation_summary or {}


def run_source(config: RunConfig, vsummary: dict[str, Any], evolved_from: str,
               validated_from: str | None) -> dict[str, Any]:
    """A preset file's `source`: the run, its features, scripts, opponent and levels, and
    where the numbers come from."""
    return {"run": config.name, "run_seed": config.seed,
            "features": [{"name": f.name, "range": [f.lo, f.hi], "width": f.width}
                         for f in config.features],
            "genome_scripts": list(config.genome_names), "opponent": spec_text(config.opponent),
            "train_levels": list(config.train_levels),
            "held_out_levels": list(config.held_out_levels),
            "validation_levels": [int(x) for x in vsummary.get("levels", [])] or None,
            "evolved_from": evolved_from, "validated_from": validated_from}


def _target(run: RunFiles, out: str | Path | None, kind: str, calibrate: bool, force: bool,
            resume: bool) -> Path:
    """The preset file to write, checked before anything is (and its calibration's ladder
    folder): a file export did not write, or one of the run's own files, is refused."""
    target = Path(out) if out is not None else run.path(presets_file(kind))
    check_output_file(target, command="export", ours=is_preset_file, force=force or resume,
                      protected=run_files(target.parent))
    if calibrate:
        check_folder(ladder_dir(target), command=LADDER, force=force, resume=resume,
                     ours=is_ladder_dir, writes=LADDER_FILES)
    return target


def _few_games(presets: Sequence[Preset], min_games: int) -> list[tuple[str, int]]:
    """(name, games) of the presets whose win rate rests on fewer than `min_games` games."""
    few = [(p.name, int(p.evidence["games_validated"] if p.evidence["win_rate_source"] ==
                        "validated" else p.evidence["games_evolved"])) for p in presets]
    return [(n, g) for n, g in few if g < min_games]


def export_presets(run_dir: str | Path, kind: str = "difficulty", count: int = 3,
                   out: str | Path | None = None, names: Sequence[str] | None = None,
                   min_games: int = MIN_GAMES, play_missing: bool = False,
                   workers: int | None = None, address: str | None = None,
                   candidates: int | None = None, budgets: Sequence[int] | None = None,
                   calibrate: Sequence[str] | None = None, games: int | None = None,
                   progress: Progress | None = None, resume: bool = False,
                   all_elites: bool = False, force: bool = False,
                   cells: Sequence[str] | None = None) -> tuple[PresetFile, Path]:
    """Choose elites of the run as presets and write the preset file.

    Args:
        run_dir: the run directory.
        kind: `difficulty` (spread over win rate) or `style` (distinct corners of the
            feature space).
        count: presets to choose.
        out: the preset file (default: <run>/presets_<kind>.json).
        names: the presets' names (default: generated).
        min_games: a preset whose win rate rests on fewer games is named in the file's
            `source.warnings` (and by the command line).
        play_missing: when a chosen preset has fewer than `min_games` games and the run has
            no validation yet, first validate the chosen elites on the held-out levels with
            `min_games` games each, then choose again from the validated estimates.
        workers: local Ray workers for `play_missing` and `calibrate` (0: in this process).
        address: a Ray cluster for `play_missing` and `calibrate`.
        candidates: difficulty: elites to consider, spread over win rate as the presets are
            (default `count`; with `budgets`, 1: the strongest elite). More candidates than
            `count` need `calibrate`, which keeps `count` whose order is shown (every
            adjacent pair one-sided, Holm; `play.ladder.shown_chain`).
        budgets: difficulty: every candidate elite also plays at each of these budgets
            (forward-model calls per decision), each a candidate of its own. An archive's
            elites are the best of their cells against one opponent, so they differ in
            style far more than in strength; the budget is the lever that spreads strength.
            Needs `calibrate` and an agent that takes a budget.
        calibrate: shared baselines (agent specs): play the round robin of the candidates and
            the baselines (`play.ladder.calibrate`) and give every preset its
            Bradley-Terry rating, interval and win rates against the baselines.
        games: games per pair of the calibration round robin (default: two per level).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        resume: continue an interrupted calibration (same arguments): only its missing games
            are played.
        all_elites: style: choose among every elite (corners, then farthest-point), not only
            the distinct styles a validation found.
        force: overwrite a preset file (and its calibration's ladder directory) written by
            an earlier export; without it they are refused, as is always a file that is no
            preset file or one of the run directory's own files (nothing is written then).
        cells: export exactly the elites at these cells (labels as in elites.csv), each
            named by its style, instead of choosing; `count` is then their number.
    """

    cells, count, budgets, n_cand, by_rating = _choice_arguments(
        kind, count, cells, candidates, budgets, calibrate)
    run = RunFiles(run_dir).check()  # every file it reads, before anything is written
    run_dir = run.dir
    target = _target(run, out, kind, bool(calibrate), force, resume)
    config = load_config(run.path(CONFIG))
    if calibrate or play_missing:  # games to play: refuse a game the workers lack, unwritten
        check_playable([config.game], address, workers)
    elites, validation, vsummary = _with_validation(run)
    if names is not None and len(names) != count:
        raise ValueError(f"names: {len(names)} given for {count} presets")

    evolved_from = run.elites_source
    validated_from = validation_source(vsummary) if validation is not None else None
    rows, labels, warnings, validated, distinct = _choose(
        config, run_dir, elites, validation, vsummary, kind, count, n_cand, by_rating,
        all_elites, validated_from, cells)
    if names is not None and not by_rating:
        labels = [str(n) for n in names][:len(labels)]

    presets = elite_presets(config, rows, labels, budgets, kind, validated, vsummary,
                            evolved_from, validated_from)
    source = run_source(config, vsummary, evolved_from, validated_from)
    source["selection"] = _selection_text(kind, validated, by_rating, len(presets), n_cand,
                                          budgets, count, distinct,
                                          validated_from if validated else evolved_from,
                                          named=bool(cells))
    source["exported_by"] = provenance()
    few = _few_games(presets, min_games)
    if few and play_missing:
        if validation is not None:
            raise ValueError(
                f"{run_dir}: {len(few)} presets rest on fewer than {min_games} games, and the "
                f"run's validation would be replaced by playing them: validate with more games "
                f"first (playstyles validate {command_path(run_dir)} --games {min_games})")
        validate(run_dir, games=min_games, cells=[str(r["cell"]) for r in rows.to_dict("records")],
                 workers=workers, address=address, progress=None)
        return export_presets(run_dir, kind, count, out, names, min_games, False, workers,
                              address, candidates, budgets, calibrate, games, progress,
                              resume, all_elites, force, cells)
    warnings += [f"{n}: its win rate rests on {g} games (fewer than {min_games}); validate "
                 f"the run with more games, or export with --play-missing" for n, g in few]
    if warnings:
        source["warnings"] = warnings
    pf = PresetFile(config.game, presets, kind, dict(config.options), source)
    dump_presets(pf, target)
    if calibrate:
        pf = _calibrated(pf, target, calibrate, games, count, by_rating, names, workers,
                         address, progress, resume, force, [p.name for p in presets])
    pf.path = target
    return pf, target


def _calibrated(pf: PresetFile, target: Path, baselines: Sequence[str], games: int | None,
                count: int, by_rating: bool, names: Sequence[str] | None, workers: int | None,
                address: str | None, progress: Progress | None, resume: bool, force: bool,
                candidates: Sequence[str]) -> PresetFile:
    """The written preset file calibrated (`play.ladder.calibrate`); choosing `by_rating`,
    the kept candidates renamed as levels, weakest first (or by `names`)."""
    pf, _ = play_calibration(target, baselines=baselines, games=games,
                             keep=count if by_rating else None, workers=workers,
                             address=address, progress=progress, resume=resume,
                             force=force)
    if not by_rating:
        return pf
    kept = difficulty_labels(len(pf.presets)) if names is None else \
        [str(n) for n in names][:len(pf.presets)]
    renamed = {}
    for p, label in zip(pf.presets, kept):
        p.evidence["candidate"] = p.name
        renamed[p.name] = p.name = label
    warnings = _renamed_warnings(pf.source.get("warnings") or [], renamed, candidates)
    pf.source.pop("warnings", None)
    if warnings:
        pf.source["warnings"] = warnings
    dump_presets(pf, target)
    return pf


def _renamed_warnings(warnings: Sequence[str], renamed: dict[str, str],
                      candidates: Sequence[str]) -> list[str]:
    """Warnings that begin with a kept candidate's name, under its new name; those about
    candidates not kept are dropped; the rest stay."""
    out = []
    for w in warnings:
        about = next((c for c in candidates if w.startswith(c + ": ")), None)
        if about is None:
            out.append(w)
        elif about in renamed:
            out.append(renamed[about] + w[len(about):])
    return out


def _validation_words(summary: dict[str, Any]) -> str:
    """Where the validation games were played: held-out levels, the training levels again
    (`validate --levels train`, fresh games), or a mix."""
    levels = set(summary.get("levels") or [])
    overlap = set(summary.get("levels_overlap_training") or [])
    if not overlap:
        return "held-out levels"
    if levels <= overlap:
        return "training levels (fresh games)"
    return f"validation levels ({len(overlap)} of the {len(levels)} are training levels)"


def _selection_text(kind: str, validated: bool, by_rating: bool, made: int, elites: int,
                    budgets: Sequence[int], count: int, distinct: bool = False,
                    values_from: str = "evolution", named: bool = False) -> str:
    """How the presets were chosen, for the file's source (`values_from`: the games of the
    values chosen by and named from; `named`: the elites were named by their cells)."""
    if named:
        return f"cells: the elites named by their cells; named by the feature means from " \
               f"{values_from}"
    source = "validated" if validated else \
        "re-estimated" if values_from.startswith("re-estimation") else "evolved"
    if kind != "difficulty" and distinct:
        return (f"style: the distinct styles that held up in validation, strongest first "
                f"(validation.csv style); named by their feature means from {values_from}")
    if kind != "difficulty":
        where = "validated" if validated else "evolved"
        return (f"style: corners of the feature space ({where} positions), then "
                f"farthest-point; named by the feature means from {values_from}")
    text = f"difficulty: spread over the {source} win rate"
    if by_rating:
        text += (f"; {made} candidates ({elites} elite{'s' if elites != 1 else ''}"
                 + (f" x budgets {list(budgets)}" if budgets else "")
                 + f"), {count} asked, the ones kept being those whose order the calibration "
                 "shows: every adjacent pair one-sided, Holm (source.calibration.steps)")
    return text


def difficulty_labels(count: int) -> list[str]:
    """"level 1 (easiest)" .. "level K (hardest)"."""
    labels = [f"level {i + 1}" for i in range(count)]
    if count > 1:
        labels[0] += " (easiest)"
        labels[-1] += " (hardest)"
    return labels


def _crossed(labels: Sequence[str], rows: list[dict[str, Any]], budgets: Sequence[int]):
    """(label, row, budget) for every row, at each budget (None: the run's own)."""
    for label, r in zip(labels, rows):
        for b in budgets or [None]:
            yield label, r, b



def _pair(low: Any, high: Any) -> list[float] | None:
    """[low, high] when both are numbers, else None."""
    lo, hi = _num(low), _num(high)
    return None if lo is None or hi is None else [lo, hi]


def _interval(mean: Any, se: Any) -> list[float] | None:
    """mean +- 1.96 standard errors (None when either is unknown)."""
    m, e = _num(mean), _num(se)
    return None if m is None or e is None else [m - 1.96 * e, m + 1.96 * e]


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3g}"
