"""Validating elites on held-out levels: the paper's Table II for a run directory.

An elite's evolved win rate and features come from a few games on the training levels, and
the archive keeps the luckiest of many noisy evaluations, so both are optimistic. Validation
replays each chosen elite against the run's opponent on levels it never saw (by default the
run's held-out set) and reports, per elite, evolved against validated win rate and features
(Table II), and over all validated elites, per feature, the rank correlation (Spearman)
between evolved and validated values and the share of elites whose validated features still
fall in their own cell or a neighbouring one.

Games: game g of an elite plays level g mod L; over successive passes through the levels the
elite's seat moves on by one, and within a pass it moves on from level to level, so each level
is played from every seat (both, in a two-player game) once it is played that many times; the
run's opponent takes the other seats. Every genome (each elite, the control and, with `null`,
the fixed genomes of the null baseline) plays the same games: game g has the same level, seat
and seeds for all of them (common random numbers), so every comparison is paired by game. Seeds
come from the run seed and a spawn key that evolution never uses: a digest of the run's name,
its config and the validation's levels (`validation_key`: two runs, or two level sets of one
run, never share a game), and g. The result does not depend on the number of workers, on which
other cells are validated, or on the order games finish.

Files written into the run directory (the last validation replaces the previous one; names
in `qd.rundir`):

    validation.csv           one row per validated elite (Table II and the cell it lands in)
    validation_summary.json  settings, Spearman per feature, shares in own / neighbouring cell
    validation_games.csv     one row per game
    validation.md            Table II as Markdown
    validation.png           evolved vs validated positions (arrows on the grid)
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from base.files import atomic_write
from base.limits import check_planned
from base.progress import Progress
from base.stats import mean_interval, wilson_interval
from games.registry import get_game
from play.journal import GameJournal
from play.ladder import alternating_games
from play.ray_session import check_playable, ray_session
from play.runner import GameRecord, GameSpec
from qd.archive import EliteArchive, evaluate_games
from qd.config import RunConfig, load_config
from qd.features import PlayerGame, features_of, per_game
from qd.genome_games import credit, fixed_genomes, genome_side, play
from qd.rundir import (
    CONFIG,
    ELITES,
    METRICS,
    NOT_APART,
    VALIDATION,
    VALIDATION_GAMES,
    VALIDATION_JOURNAL,
    VALIDATION_SUMMARY,
    VALIDATION_TABLE,
    WIN_RATE_CI,
    RunFiles,
    evolved_column,
    grid_index_text,
    headline,
    mean_column,
    measure_column,
    number_text,
    parse_grid_index,
    styles_text,
    validated_ci_columns,
    validated_column,
    validated_std_column,
    weight_columns,
)
from qd.styles import DELTA, MARGIN, Sample, delta_key, distinct_styles, pooled_sd

__all__ = ["ValidationResult", "validate", "headline", "styles_text", "spearman", "plan_games",
           "play_journal", "reestimated", "corrected_metrics", "table_two_markdown"]
# `headline` and `styles_text` (validation_summary.json in words) live in `qd.rundir`, so
# that the report says them without this module's agents and games

SUMMARY_VERSION = 3  # 3: common games, a minimum effect, non-inferiority, identification
STYLE = "style"
"""validation.csv: the elite's rank among the distinct styles (1 the strongest), 0 if none."""
VALIDATION_KEY = 0x56414C  # first spawn-key entry of validation games ("VAL")
CONTROL = "control"
"""The control genome's name in validation_games.csv's `cell` column."""
NULL_PREFIX = "null:"
"""The null baseline's genomes in validation_games.csv's `cell` column: `null:zero`,
`null:<gene>=1`."""
TRACE = "trace"
"""validation_games.csv: a digest of the game as played (its events, rounds and results);
genomes with equal traces in every game played identical games."""


@dataclass
class ValidationResult:
    """What `validate` wrote.

    Args:
        run_dir: the run directory.
        table: validation.csv (one row per validated elite).
        summary: validation_summary.json.
        files: the files written.
    """

    run_dir: Path
    table: pd.DataFrame
    summary: dict[str, Any]
    files: list[Path] = field(default_factory=list)


# ------------------------------------------------------------------------------ statistics

def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation over the pairs where both values are defined (average
    ranks for ties); None when fewer than two pairs remain or either side is constant."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 2:
        return None
    rx = pd.Series(x).rank(method="average").to_numpy()
    ry = pd.Series(y).rank(method="average").to_numpy()
    dx, dy = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float(dx @ dx) * float(dy @ dy))
    if den == 0.0:
        return None
    return float(dx @ dy) / den


# ------------------------------------------------------------------------------ the run

def _chosen(elites: pd.DataFrame, cells: Sequence[str] | None) -> pd.DataFrame:
    if not cells:
        return elites
    known = elites["cell"].astype(str).tolist()
    missing = [c for c in cells if str(c) not in known]
    if missing:
        raise ValueError(f"cells: {', '.join(map(str, missing))} hold no elite; elites are in "
                         f"{', '.join(known)}")
    wanted = list(dict.fromkeys(str(c) for c in cells))
    return elites.set_index(elites["cell"].astype(str)).loc[wanted].reset_index(drop=True)


RUN_LEVEL_SETS = ("held_out", "train", "all")
"""Level set names validation resolves from the run's own config: its held-out levels (the
default), its training levels, or both (training first)."""


def validation_levels(game: str, levels: str | Sequence[int] | None, held_out: list[int],
                      train: Sequence[int] = ()) -> list[int]:
    """The levels a validation plays: a run level set (`RUN_LEVEL_SETS`; default held_out),
    a level set of the game, or explicit seeds."""
    if levels is None:
        levels = "held_out"
    if levels in RUN_LEVEL_SETS:
        out = {"held_out": list(held_out), "train": list(train),
               "all": list(dict.fromkeys([*train, *held_out]))}[levels]
        if not out:
            raise ValueError(f"levels: the run config holds no {levels.replace('_', '-')} "
                             f"levels; give a level set (--levels NAME, seeds:1,2,3 or "
                             f"range:a-b)")
        return out
    if isinstance(levels, str):
        return get_game(game).level_set(levels)
    out = [int(x) for x in levels]
    if not out:
        raise ValueError("levels: no level given")
    return out


def run_elites(run: RunFiles, doing: str) -> tuple[RunConfig, pd.DataFrame, list[str]]:
    """A run directory's config, its elites and their weight columns (in genome order), each
    checked: an absent or empty archive, or a weight column missing, is one error naming the
    file.

    Args:
        run: the run directory's files.
        doing: what the caller does with the elites, for the error ("validate", ...).
    """
    config = load_config(run.path(CONFIG))
    if not run.has(ELITES):
        raise ValueError(f"{run.dir}: no {ELITES} yet (no batch finished)")
    elites = run.elites
    if elites.empty:
        raise ValueError(f"{run.dir}: the archive has no elite to {doing}")
    names = weight_columns(config.genome_names)
    absent = [n for n in names if n not in elites.columns]
    if absent:
        raise ValueError(f"{run.path(ELITES)}: no weight column for {', '.join(absent)}")
    return config, elites, names


def validation_key(config: RunConfig, levels: Sequence[Any]) -> tuple[int, int]:
    """The spawn-key words that make a validation's games its own: a digest of the run's name,
    its config as resolved (without its `validate` section, which plays no game) and the
    validation's levels. Two runs, or two level sets of one run, never share a game."""
    data = {**config.to_dict(), "validate": None, "validation_levels": [str(x) for x in levels]}
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).digest()
    return int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big")


def validation_genomes(elites: pd.DataFrame, genome_names: Sequence[str], plan,
                       control: bool = False, null: bool = False) -> list[tuple[str, np.ndarray]]:
    """(cell, genome) of every genome a validation plays, in plan order: the elites, the
    control, then the null baseline's fixed genomes (`null:zero`, `null:<gene>=1`)."""
    out = [(str(row["cell"]), np.array([float(row[n]) for n in genome_names]))
           for row in elites.to_dict("records")]
    if control:
        out.append((CONTROL, plan.control()))
    if null:
        out += [(NULL_PREFIX + label, g) for label, g in fixed_genomes(plan.genome_names)]
    return out


def plan_games(elites: pd.DataFrame, genome_names: Sequence[str], plan, levels: Sequence[int],
               games: int, seed: int, control: bool = False, key: Sequence[int] = (),
               null: bool = False) -> list[GameSpec]:
    """Every validation game, genome-major (the elites, with `control` the control genome,
    with `null` the null baseline's genomes): game g of every genome has the same level, seat
    and seeds, from (run seed, `VALIDATION_KEY`, `key`, g).

    Args:
        elites: the elites to validate (rows of elites.csv).
        genome_names: the weight columns, in genome order.
        plan: the run's `qd.genome_games.Plan`.
        levels: the validation levels.
        games: games per genome.
        seed: the run seed.
        control: also the control genome.
        key: the validation's own spawn-key words (`validation_key`).
        null: also the null baseline's fixed genomes.
    """
    players = validation_genomes(elites, genome_names, plan, control, null)
    check_planned(len(players) * games, f"{len(players)} genomes x {games} games")
    order = alternating_games(games, levels, plan.players)
    plan = replace(plan, seed=seed)
    specs = []
    for k, (_, genome) in enumerate(players):
        me = plan.agent_for(genome)
        specs += [plan.spec(me, (VALIDATION_KEY, *key, g), level, seat, (k, g, seat))
                  for g, (level, seat) in enumerate(order)]
    return specs


def play_journal(journal, address: str | None, workers: int | None,
                 progress: Progress | None, step: str) -> list[GameRecord]:
    """Play a journal's missing games (`qd.genome_games.play`), keeping each in the journal as it
    arrives and telling `progress` (starting at the games reused); every record in spec order.
    Call it inside `journal.interruptible()` (and `play.ray_session.ray_session()`).

    Args:
        journal: the command's `play.journal.GameJournal`.
        address: a Ray cluster to join.
        workers: CPUs of the local Ray (default: all); 0 plays in-process.
        progress: told how many games are done (`base.progress`; None: nothing told).
        step: the games' name, for `progress`.
    """
    total = len(journal.specs)
    if progress is not None:
        progress(step, len(journal.done), total)

    def keep(i: int, rec: GameRecord) -> None:
        journal.add(i, rec)
        if progress is not None:
            progress(step, len(journal.done), total)

    records, _ = play(journal.specs, done=dict(journal.done), address=address,
                      workers=workers, on_result=keep)
    return records


def game_trace(rec: GameRecord) -> str:
    """A digest of a game as played: its events, rounds, ranking and results (equal for two
    genomes that played the same game move for move, as far as the game's events show)."""
    data = [[list(e) for e in rec.events], rec.rounds, list(rec.ranking), list(rec.results),
            rec.winner]
    return hashlib.sha256(json.dumps(data, default=str).encode()).hexdigest()[:16]


def _sample(key: str, games: Sequence[tuple[GameRecord, int]], pg: Sequence[PlayerGame],
            mapped: Sequence[Any], described: Sequence[Any], solo: bool) -> Sample:
    """One genome's per-game values, blocked by level, with each game's trace."""
    every = per_game(pg, described)
    return Sample(key, _quality(pg, solo), {f.name: every[f.name] for f in mapped},
                  blocks=[rec.spec.level for rec, _ in games],
                  traces=[game_trace(rec) for rec, _ in games], described=every)


def _elite_row(row: dict[str, Any], names: Sequence[str], pg: Sequence[PlayerGame],
               feats: Sequence[Any], archive: EliteArchive, values: Mapping[str, Any]
               ) -> dict[str, Any]:
    """One elite's row of Table II: its evolved and replayed win rate, score and features
    (with intervals), and where the replayed features land on the grid."""
    genome = np.array([float(row[n]) for n in names])
    ev = evaluate_games(genome, pg, feats)
    v_int = archive.grid.index_of(ev.measures.reshape(1, -1))
    v_grid = [int(i) for i in archive.grid.int_to_grid_index(v_int)[0]]
    e_grid = parse_grid_index(row["grid_index"])
    dist = max(abs(a - b) for a, b in zip(e_grid, v_grid))
    low, high = wilson_interval(ev.wins, ev.games)
    ci_low, ci_high = WIN_RATE_CI
    out: dict[str, Any] = {
        "cell": row["cell"], "grid_index": row["grid_index"], "index": int(row["index"]),
        evolved_column("games"): int(row["games"]),
        evolved_column("win_rate"): float(row["win_rate"]),
        validated_column("games"): ev.games, validated_column("wins"): ev.wins,
        validated_column("win_rate"): ev.win_rate, ci_low: low, ci_high: high,
        evolved_column("mean_score"): float(row["mean_score"]),
        validated_column("mean_score"): ev.mean_score}
    for j, f in enumerate(feats):
        m = measure_column(f.name)
        out[evolved_column(f.name)] = float(row[mean_column(f.name)])
        out[validated_column(f.name)] = ev.feature_mean[f.name]
        out[validated_std_column(f.name)] = ev.feature_std[f.name]
        lo_col, hi_col = validated_ci_columns(f.name)
        out[lo_col], out[hi_col] = mean_interval(values[f.name])[1:3]
        out[evolved_column(m)] = float(row[m])
        out[validated_column(m)] = float(ev.measures[j])
    out.update({"validated_cell": archive.cell_label(v_grid),
                "validated_grid_index": grid_index_text(v_grid),
                "cell_distance": dist, "same_cell": dist == 0, "neighbour": dist <= 1})
    return out


def _styled(rows: list[dict[str, Any]], found: Any) -> pd.DataFrame:
    """Table II from the elites' rows, each with its style number (0: none), whether it is
    distinct, differs from the control and is non-inferior to it."""
    rank = {c: i + 1 for i, c in enumerate(found.styles)}
    for out in rows:
        c = str(out["cell"])
        out[STYLE] = rank.get(c, 0)
        out["distinct"] = c in rank
        out["differs_from_control"] = found.differs_from_control.get(c)
        out["non_inferior"] = (found.non_inferiority[c]["non_inferior"]
                               if c in found.non_inferiority else None)
        out[NOT_APART] = "" if c in rank else \
            " ".join(f"#{rank[k]}" for k in found.not_told_apart(c))
    return pd.DataFrame(rows)


def _null_styles(null_samples: Sequence[Sample], mapped: Sequence[str], delta: float,
                 margin: float, quality: str, sd: Mapping[str, float]) -> dict[str, Any] | None:
    """The null baseline's styles, counted as the elites' are (None without one)."""
    if not null_samples:
        return None
    base = distinct_styles(null_samples, mapped, delta=delta, margin=margin, quality=quality,
                           sd=sd)
    return {"counts": base.counts, "styles": base.styles,
            "genomes": [s.key for s in null_samples], "duplicates": base.duplicates}


def validation_tables(config: RunConfig, chosen: pd.DataFrame, names: Sequence[str],
                      level_list: Sequence[int], n_games: int, records: Sequence[GameRecord],
                      control: bool, null: bool = False, delta: float = DELTA,
                      margin: float = MARGIN
                      ) -> tuple[pd.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    """Table II, its games and its summary from the validation's games (no file, no game
    played): the replayed quality and features of every chosen elite, where they land on the
    grid, the distinct styles and, with `control`, the control's games and comparison.

    Args:
        config: the run's config.
        chosen: the elites validated (rows of elites.csv), in plan order.
        names: the weight columns, in genome order.
        level_list: the validation levels.
        n_games: games per elite (and for the control).
        records: the games as planned (`plan_games`): each elite's, then the control's,
            then the null baseline's.
        control: whether the control played.
        null: whether the null baseline's fixed genomes played.
        delta: the minimum effect two styles differ by (per-game standard deviations).
        margin: the non-inferiority margin (`qd.styles.distinct_styles`).

    Returns:
        (table, game_rows, summary): validation.csv, validation_games.csv's rows and
        validation_summary.json.
    """
    plan = config.plan()
    archive = EliteArchive(config.features, names)
    feats = config.features
    mapped = [f.name for f in feats]
    described = [*feats, *(f for n, f in features_of(config.game).items() if n not in mapped)]
    rows, game_rows, samples = [], [], []
    solo = plan.players == 1
    control_games: list[PlayerGame] = []
    for k, row in enumerate(chosen.to_dict("records")):
        sides = list(genome_side(records[k * n_games:(k + 1) * n_games]))
        pg = [PlayerGame.from_record(rec, seat) for rec, seat in sides]
        samples.append(_sample(str(row["cell"]), sides, pg, feats, described, solo))
        rows.append(_elite_row(row, names, pg, feats, archive, samples[-1].features))
        for (rec, seat), g, p in zip(sides, range(n_games), pg):
            game_rows.append(_game_row(row, g, rec, seat, p, described))
    control_sample = None
    extra = validation_genomes(chosen.iloc[:0], names, plan, control, null)
    null_samples = []
    for k, (cell, _) in enumerate(extra):
        start = (len(chosen) + k) * n_games
        sides = list(genome_side(records[start:start + n_games]))
        pg = [PlayerGame.from_record(rec, seat) for rec, seat in sides]
        sample = _sample(cell, sides, pg, feats, described, solo)
        if cell == CONTROL:
            control_sample, control_games = sample, pg
        else:
            null_samples.append(sample)
        me = {"cell": cell, "index": -1 - k}
        for (rec, seat), g, p in zip(sides, range(n_games), pg):
            game_rows.append(_game_row(me, g, rec, seat, p, described))
    every = [*samples, *([control_sample] if control_sample else []), *null_samples]
    sd = {f: pooled_sd(every, f) for f in mapped}
    quality = "score" if solo else "win_rate"
    found = distinct_styles(samples, mapped, control=control_sample, delta=delta,
                            margin=margin, quality=quality, sd=sd)
    table = _styled(rows, found)
    styles = found.summary()
    styles["null"] = _null_styles(null_samples, mapped, delta, margin, quality, sd)

    spear: dict[str, float | None] = {}
    for name in ("win_rate", *(f.name for f in feats)):
        spear[name] = spearman(table[evolved_column(name)], table[validated_column(name)])
    overlap = sorted(set(level_list[:n_games]) & set(config.train_levels))
    elite_games = pd.DataFrame([r for r in game_rows if r["index"] >= 0])
    corrected = corrected_metrics(table, archive.cells, mapped, elite_games,
                                  config.train_levels)
    summary = {
        "version": SUMMARY_VERSION, "run": config.name, "seed": config.seed,
        "levels": level_list[:n_games], "levels_overlap_training": overlap,
        "games_per_elite": n_games, "elites": len(table),
        "cells": table["cell"].astype(str).tolist(),
        "opponent": plan.opponent.display() if plan.players > 1 else None,
        "features": mapped,
        "distinct_styles": found.count,
        "distinct_styles_non_inferior": len(found.non_inferior) if control else None,
        "null_distinct_styles": styles["null"]["counts"][delta_key(delta)]
        if styles["null"] else None,
        "styles": styles,
        "control": _control_summary(control_sample, control_games, plan.control(), names,
                                    mapped),
        "spearman": spear,
        "same_cell_share": float(table["same_cell"].mean()),
        "neighbour_share": float(table["neighbour"].mean()),
        "mean_win_rate_evolved": float(table[evolved_column("win_rate")].mean()),
        "mean_win_rate_validated": float(table[validated_column("win_rate")].mean()),
        **corrected,
    }
    return table, game_rows, summary


def validate(run_dir: str | Path, levels: str | Sequence[int] | None = None,
             games: int | None = None, cells: Sequence[str] | None = None,
             workers: int | None = None, address: str | None = None,
             progress: Progress | None = None, resume: bool = False,
             control: bool = True, null: bool = False, delta: float = DELTA,
             margin: float = MARGIN,
             chart: Callable[[Path], Path] | None = None) -> ValidationResult:
    """Replay the run's elites on held-out levels and write Table II and its summary into the
    run directory (`plots.validation` draws its chart).

    The journal of the games played is removed only once every output is written, the chart
    included: a write that fails (a full disk) leaves it, and `resume` then plays no game
    again and writes every output anew.

    Args:
        run_dir: the run directory.
        levels: a level set name or level seeds (default: the run's held-out levels).
        games: games per elite (default: one per level and seat: two per level in a
            two-player game).
        cells: only the elites of these cells, named as in elites.csv (default: all).
        workers: CPUs of the local Ray (default: all); 0 plays in-process.
        address: a Ray cluster to join.
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        resume: continue an interrupted validation (the games finished before Ctrl-C are
            kept in validation.journal and only the missing ones are played).
        control: also play the control genome (the default weights) on the same games, and
            compare every style with it (non-inferiority at `margin`).
        null: also play the null baseline (the all-zero and every one-hot genome) on the
            same games and count its styles the same way.
        delta: the minimum effect two styles differ by, in per-game standard deviations.
        margin: the non-inferiority margin: points of win rate, or in a one-player game a
            fraction of the control's mean score.
        chart: draws the chart of the written tables into the run directory and returns its
            file (the command line passes `plots.validation.draw_validation`'s; None: no
            chart).

    Raises:
        play.journal.Interrupted: on Ctrl-C, once the finished games are kept.
        OSError: an output could not be written, naming it; the games stay in the journal.
    """

    run = RunFiles(run_dir).check(ELITES, METRICS)  # what it reads, before it writes
    run_dir = run.dir
    config, elites, names = run_elites(run, "validate")
    chosen = _chosen(elites, cells)
    level_list = validation_levels(config.game, levels, config.held_out_levels,
                                   config.train_levels)
    plan = config.plan()
    n_games = plan.players * len(level_list) if games is None else int(games)
    if n_games < 1:
        raise ValueError(f"games: at least one game per elite, got {n_games}")
    specs = plan_games(chosen, names, plan, level_list, n_games, config.seed, control=control,
                       key=validation_key(config, level_list), null=null)
    check_playable([config.game], address, workers)

    journal = GameJournal(run.path(VALIDATION_JOURNAL), specs, "validation", resume=resume)
    with journal.interruptible():
        with ray_session():
            records = play_journal(journal, address, workers, progress, "validate")

        table, game_rows, summary = validation_tables(config, chosen, names, level_list,
                                                      n_games, records, control, null, delta,
                                                      margin)
        files = [run.path(VALIDATION), run.path(VALIDATION_GAMES), run.path(VALIDATION_SUMMARY),
                 run.path(VALIDATION_TABLE)]
        try:
            atomic_write(files[0], table.to_csv(index=False))
            atomic_write(files[1], pd.DataFrame(game_rows).to_csv(index=False))
            atomic_write(files[2], json.dumps(summary, indent=2) + "\n")
            atomic_write(files[3], table_two_markdown(table, summary["features"], summary))
            if chart is not None:
                files.append(chart(run_dir))
        except OSError as e:
            raise OSError(e.errno, f"{e.filename or run_dir}: cannot write: "
                                   f"{e.strerror or e}; the {len(records)} games played are "
                                   f"kept in {VALIDATION_JOURNAL}: continue with playstyles "
                                   f"validate --resume") from None
    journal.finish()
    return ValidationResult(run_dir, table, summary, files)


def reestimated(table: pd.DataFrame, replays: pd.DataFrame) -> pd.DataFrame:
    """A validation table whose evolved win rates and games are replaced by those of a second
    validation of the same elites (e.g. `validate --levels train` on fresh seeds): the
    archive as it looks once its elites were re-estimated. Elites are matched by cell; one
    missing from `replays` is left out.

    Args:
        table: validation.csv of the validation to compare against (e.g. held-out levels).
        replays: validation.csv of the re-estimating validation.
    """
    again = replays[["cell", "games_validated", "win_rate_validated"]].rename(
        columns={"games_validated": "games_evolved", "win_rate_validated": "win_rate_evolved"})
    return table.drop(columns=["games_evolved", "win_rate_evolved"]).merge(again, on="cell")


def corrected_metrics(table: pd.DataFrame, grid_cells: int, features: Sequence[str],
                      games: pd.DataFrame, train_levels: Sequence[int]) -> dict[str, Any]:
    """What the archive is worth once every validated elite is replayed on fresh seeds:

    * `corrected`: the archive rebuilt from the replayed estimates (each elite in the cell
      its replayed features fall in, the better replayed win rate where two meet) against
      the evolved one, over the validated elites: cells, coverage and QD score (sum of win
      rates) of each;
    * `mean_abs_gap`: the mean absolute difference between evolved and replayed value over
      the validated elites, for the win rate and each feature (NaN pairs left out);
    * `by_level_group`: games, the replayed mean win rate and its mean absolute gap on the
      run's training levels and on the others (held out), when the games include them.

    Args:
        table: validation.csv's rows.
        grid_cells: the cells of the run's grid.
        features: the grid's features.
        games: validation_games.csv's rows.
        train_levels: the run's training levels.
    """
    cells = grid_cells
    best: dict[str, float] = {}
    for r in table.to_dict("records"):
        cell = r["validated_cell"]
        best[cell] = max(best.get(cell, -1.0), float(r[validated_column("win_rate")]))
    evolved = table[evolved_column("win_rate")].to_numpy(float)
    out: dict[str, Any] = {"corrected": {
        "cells_evolved": len(table), "coverage_evolved": len(table) / cells,
        "qd_score_evolved": float(evolved.sum()),
        "cells": len(best), "coverage": len(best) / cells, "qd_score": float(sum(best.values()))}}
    gaps = {}
    for name in ("win_rate", *features):
        d = (table[evolved_column(name)] - table[validated_column(name)]).abs()
        gaps[name] = float(d.mean()) if d.notna().any() else None
    out["mean_abs_gap"] = gaps
    groups: dict[str, Any] = {}
    train = set(train_levels)
    evolved_of = dict(zip(table["index"], evolved))
    for group, mask in (("train", games["level"].isin(train)),
                        ("held_out", ~games["level"].isin(train))):
        g = games[mask]
        if g.empty:
            continue
        per = g.groupby("index")["elite_won"].mean()
        groups[group] = {"games": len(g), "elites": len(per),
                         "mean_win_rate": float(per.mean()),
                         "mean_abs_gap_win_rate": float(
                             np.mean([abs(evolved_of[i] - v) for i, v in per.items()]))}
    out["by_level_group"] = groups
    return out


def _game_row(elite: dict, g: int, rec: GameRecord, seat: int, pg: PlayerGame | None = None,
              features: Sequence[Any] = ()) -> dict[str, Any]:
    """One validation game; the opponent is the seat after the elite's (in a game of more
    players, `elite_won` is the elite's share of first place), its trace (`game_trace`); then
    the value of each feature given (every feature the game registers) in this game (NaN where
    undefined)."""
    s = rec.spec
    nxt = (seat + 1) % len(s.agents)
    me, opp = rec.summaries[seat], rec.summaries[nxt]
    row = {"cell": elite["cell"], "index": int(elite["index"]), "game": g, "level": s.level,
           "game_seed": s.seed, "elite_seat": seat, "elite_seed": s.agent_seeds[seat],
           "opponent_seed": s.agent_seeds[nxt], "rounds": rec.rounds,
           "winner": rec.winner, "elite_won": credit(rec, seat),
           "elite_score": me.get("score"), "opponent_score": opp.get("score"),
           "seconds": round(rec.seconds, 4), TRACE: game_trace(rec)}
    for f in features:
        row[f.name] = float(f.fn(pg))
    return row


def _quality(games: Sequence[PlayerGame], solo: bool) -> list[float]:
    """Per game, what non-inferiority compares: the share of first place, or in a one-player game
    (where it is always 1) the score."""
    return [g.final("score") for g in games] if solo else [g.credit for g in games]


def _control_summary(sample: Sample | None, games: Sequence[PlayerGame], genome: np.ndarray,
                     names: Sequence[str], features: Sequence[str]) -> dict[str, Any] | None:
    """The control genome's held-out win rate, mean score and feature means with their
    intervals."""
    if sample is None:
        return None
    wins = [g.credit for g in games]
    low, high = wilson_interval(sum(wins), len(wins))
    m, lo, hi, _ = mean_interval([g.final("score") for g in games])
    out: dict[str, Any] = {"genome": {n: float(v) for n, v in zip(names, genome)},
                           "games": len(wins), "win_rate": float(np.mean(wins)),
                           "win_rate_ci": [low, high], "mean_score": m,
                           "mean_score_ci": [lo, hi], "features": {}}
    for f in features:
        m, lo, hi, n = mean_interval(sample.features[f])
        out["features"][f] = {"mean": m, "ci": [lo, hi], "games": n}
    return out


def _style_text(r: dict[str, Any]) -> str:
    k = r.get(STYLE)
    if not k or k != k:
        return "-"
    text = f"#{int(k)}"
    if r.get("non_inferior") is False:
        text += " (not shown non-inferior)"
    return text


def table_two_markdown(table: pd.DataFrame, features: Sequence[str],
                       summary: dict[str, Any]) -> str:
    """Table II of the paper (evolved / validated) plus the summary lines.

    Args:
        table: validation.csv.
        features: the grid's features.
        summary: validation_summary.json.
    """
    head = ["Cell", "Style", "Win rate evolved / validated (95% CI)",
            "Mean score evolved / validated",
            *[f"{f} evolved / validated" for f in features], "Validated cell"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ci_low, ci_high = WIN_RATE_CI
    for r in table.to_dict("records"):
        cells = [f"[{r['cell']}]", _style_text(r),
                 f"{number_text(r[evolved_column('win_rate')], True)} / "
                 f"{number_text(r[validated_column('win_rate')], True)} "
                 f"({number_text(r[ci_low], True)}-{number_text(r[ci_high], True)})",
                 f"{number_text(r[evolved_column('mean_score')])} / "
                 f"{number_text(r[validated_column('mean_score')])}"]
        cells += [f"{number_text(r[evolved_column(f)])} / {number_text(r[validated_column(f)])}"
                  for f in features]
        cells.append(f"[{r['validated_cell']}]")
        lines.append("| " + " | ".join(cells) + " |")
    sp = summary["spearman"]
    against = (f"against {summary['opponent']}" if summary.get("opponent")
               else "(a one-player game: the genome plays alone)")
    lines = [f"**{headline(summary)}**", "", *styles_text(summary), ""] + lines
    lines += ["", f"{summary['elites']} elites, {summary['games_per_elite']} games each on "
                  f"{len(summary['levels'])} levels {against}.",
              "Spearman (evolved vs validated): " + ", ".join(
                  f"{k} {number_text(v)}" for k, v in sp.items()) + ".",
              f"Validated features in the elite's own cell: "
              f"{number_text(summary['same_cell_share'], True)}; in its cell or a neighbour: "
              f"{number_text(summary['neighbour_share'], True)}."]
    c = summary.get("corrected")
    if c:
        gaps = summary.get("mean_abs_gap") or {}
        lines += [f"Corrected archive (each elite at its replayed cell and win rate): "
                  f"{c['cells']} cells (coverage {number_text(c['coverage'], True)}), QD score "
                  f"{c['qd_score']:.2f}; evolved: {c['cells_evolved']} cells (coverage "
                  f"{number_text(c['coverage_evolved'], True)}), QD score {c['qd_score_evolved']:.2f}.",
                  "Mean absolute gap, evolved vs replayed: " + ", ".join(
                      f"{k} {number_text(v, k == 'win_rate')}" for k, v in gaps.items()) + "."]
        for group, g in (summary.get("by_level_group") or {}).items():
            lines.append(f"On {group.replace('_', '-')} levels: {g['games']} games, mean "
                         f"replayed win rate {number_text(g['mean_win_rate'], True)}, mean absolute "
                         f"gap {number_text(g['mean_abs_gap_win_rate'], True)}.")
    return "\n".join(lines) + "\n"
