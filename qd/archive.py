"""The MAP-Elites archive: a pyribs GridArchive over the chosen features, with the paper's rule.

Solution = the genome (one weight per evolved script). Measures = the means of the chosen
features. Quality is the paper's rule: a higher win rate is better, and at equal win rate a
higher mean score. "Wins" count each game's share of first place (`PlayerGame.credit`): 1 for
a win, 1/k when k players share first place (a two-player draw is half a win), 0 otherwise.
It is encoded in one number so that pyribs' ordinary comparison applies:

    objective = (wins + band(mean score) * 2 / L) / games,   band(s) in (0, 1/2), increasing

where L is the least common multiple of 1..n for n players (2 for two players, 6 for three).
Every share is a multiple of 1/L, so with the same number of games per genome two different
win totals differ by at least 1/L, which the scaled band (less than 1/L) can never bridge; at
equal wins the band orders by score. pyribs replaces an elite only when the newcomer's
objective is strictly greater, so a full tie keeps the incumbent (as the reference's file
mode does).

Each elite also carries: win rate, wins, games, mean score, the mean and spread of every
registered feature (not only those on the grid), and when it was found (batch, evaluation);
elites.csv adds the Wilson 95% interval of the win rate and the standard error of every
feature mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from ribs.archives import GridArchive

from base.stats import wilson_interval
from qd.features import Feature, PlayerGame, mean_spread, measure, per_game
from qd.genome_games import whole
from qd.rundir import (
    CELL_COLUMNS,
    FOUND_COLUMNS,
    QUALITY_COLUMNS,
    WIN_RATE_CI,
    grid_index_text,
    mean_column,
    measure_column,
    se_column,
    std_column,
)

SCORE_SCALE = 1000.0  # the band reaches 3/8 at a mean score of 1000


def band(mean_score: float) -> float:
    """A strictly increasing map of any score into the open interval (0, 1/2)."""
    s = float(mean_score)
    return 0.25 + 0.25 * s / (abs(s) + SCORE_SCALE)


def objective(wins: float, games: int, mean_score: float, players: int = 2) -> float:
    """Win rate with the mean score as tie-breaker, as one number (see the module text).

    Args:
        wins: the games' shares of first place, summed.
        games: games played.
        mean_score: the mean final score (the tie-breaker).
        players: players of the game (how finely first place can be shared).
    """
    if games <= 0:
        raise ValueError("objective: a genome must play at least one game")
    return (wins + band(mean_score) * 2 / share_unit(players)) / games


def share_unit(players: int) -> int:
    """The least common multiple of 1..players: every share of first place is a multiple of
    its inverse (2 for two players, 6 for three)."""
    return math.lcm(*range(1, max(2, int(players)) + 1))


@dataclass
class Evaluation:
    """What the games of one genome gave: quality, features and the measures on the grid."""

    genome: np.ndarray
    wins: float  # shares of first place, summed (whole wins in a game without shared places)
    games: int
    mean_score: float
    feature_mean: dict[str, float]
    feature_std: dict[str, float]
    measures: np.ndarray = field(default_factory=lambda: np.zeros(0))
    players: int = 2

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def objective(self) -> float:
        return objective(self.wins, self.games, self.mean_score, self.players)


def evaluate_games(genome: np.ndarray, games: Sequence[PlayerGame],
                   features: Sequence[Feature], stats: Sequence[Feature] = ()) -> Evaluation:
    """Quality and features of a genome from its games (each seen from the genome's side):
    the grid's `features` and every feature in `stats` (the game's others, for the tables)."""
    every = list({f.name: f for f in (*stats, *features)}.values())
    players = max((g.players for g in games), default=2)
    return evaluate_rows(genome, game_table(games, every), features, [f.name for f in every],
                         players)


def game_table(games: Sequence[PlayerGame], every: Sequence[Feature]) -> np.ndarray:
    """One row per game: won (the share of first place), final score, then each feature of
    `every` (NaN where undefined). Rows of several evaluations of a genome stack into its
    pooled games."""
    values = per_game(games, every)
    cols = [np.array([g.credit for g in games], dtype=float),
            np.array([g.final("score") for g in games], dtype=float),
            *(values[f.name] for f in every)]
    return np.column_stack(cols) if games else np.zeros((0, 2 + len(every)))


def evaluate_rows(genome: np.ndarray, rows: np.ndarray, features: Sequence[Feature],
                  names: Sequence[str], players: int = 2) -> Evaluation:
    """The evaluation of a genome from its game rows (`game_table`, columns `names` after
    won and score): wins, mean score, each feature's mean and spread, the grid measures.
    `players`: the game's players (for the objective)."""
    mean, std = {}, {}
    for j, n in enumerate(names):
        mean[n], std[n] = mean_spread(rows[:, 2 + j])
    unit = share_unit(players)  # shares are multiples of 1/unit: sum them exactly
    wins = float(round(rows[:, 0].sum() * unit) / unit)
    ev = Evaluation(genome=np.asarray(genome, dtype=float),
                    wins=whole(wins),
                    games=len(rows), mean_score=float(np.mean(rows[:, 1])) if len(rows) else 0.0,
                    feature_mean=mean, feature_std=std, players=players)
    ev.measures = np.array([measure(f, mean[f.name]) for f in features], dtype=float)
    return ev


class EliteArchive:
    """A GridArchive plus what the run needs to read it: features, genome names, stats."""

    def __init__(self, features: Sequence[Feature], genome_names: Sequence[str],
                 seed: int | None = None, stats: Sequence[Feature] = (),
                 players: int = 2) -> None:
        """Args:
            features: the grid's axes.
            genome_names: the evolved scripts, one per genome coordinate.
            seed: seed of the archive's own generator (pyribs).
            stats: every feature whose mean and spread each elite keeps (the game's
                features; the grid's are always kept).
            players: players of the game (how finely first place can be shared).
        """
        self.players = int(players)
        self.features = list(features)
        self.genome_names = list(genome_names)
        self.stats_features = list({f.name: f for f in (*stats, *features)}.values())
        self.stat_names = [f.name for f in self.stats_features]
        extra = {"win_rate": ((), np.float64), "wins": ((), np.float64),
                 "games": ((), np.int64), "mean_score": ((), np.float64),
                 "batch": ((), np.int64), "evaluation": ((), np.int64)}
        for n in self.stat_names:  # pyribs fields named as elites.csv's columns
            extra[mean_column(n)] = ((), np.float64)
            extra[std_column(n)] = ((), np.float64)
        self.grid = GridArchive(
            solution_dim=len(self.genome_names),
            dims=[f.bins for f in self.features],
            ranges=[(f.lo, f.grid_hi) for f in self.features],
            seed=seed, extra_fields=extra)

    @property
    def cells(self) -> int:
        return int(self.grid.cells)

    def fields(self, evals: Sequence[Evaluation], batch: int,
               first_evaluation: int) -> dict[str, np.ndarray]:
        """The extra fields of a batch of evaluations, for `Scheduler.tell` / `GridArchive.add`."""
        out: dict[str, np.ndarray] = {
            "win_rate": np.array([e.win_rate for e in evals], float),
            "wins": np.array([e.wins for e in evals], np.float64),
            "games": np.array([e.games for e in evals], np.int64),
            "mean_score": np.array([e.mean_score for e in evals], float),
            "batch": np.full(len(evals), batch, np.int64),
            "evaluation": np.arange(first_evaluation, first_evaluation + len(evals),
                                    dtype=np.int64)}
        for n in self.stat_names:
            out[mean_column(n)] = np.array([e.feature_mean[n] for e in evals], float)
            out[std_column(n)] = np.array([e.feature_std[n] for e in evals], float)
        return out

    def add(self, evals: Sequence[Evaluation], batch: int = 0, first_evaluation: int = 0):
        """Insert evaluations directly (the run goes through the scheduler instead)."""
        return self.grid.add(np.stack([e.genome for e in evals]),
                             np.array([e.objective for e in evals]),
                             np.stack([e.measures for e in evals]),
                             **self.fields(evals, batch, first_evaluation))

    def ids(self) -> list[int]:
        """The elites' `evaluation` (the evaluation that first played each), by cell index."""
        if len(self.grid) == 0:
            return []
        d = self.grid.data(["index", "evaluation"])
        order = np.argsort(d["index"], kind="stable")
        return [int(x) for x in d["evaluation"][order]]

    def occupant(self, measures: np.ndarray) -> tuple[int, float] | None:
        """(`evaluation`, objective) of the elite in the cell of `measures`; None if empty."""
        found, data = self.grid.retrieve_single(np.asarray(measures, dtype=float))
        if not found:
            return None
        return int(data["evaluation"]), float(data["objective"])

    def rebuild(self, entries: Sequence[tuple[Evaluation, float, int, int]]) -> None:
        """Empty the grid and insert (evaluation, objective, batch, evaluation index) in
        order: a cell keeps the first of the highest objective among those that fall in it."""
        self.grid.clear()
        for ev, obj, batch, index in entries:
            fields = self.fields([ev], batch, index)
            self.grid.add_single(ev.genome, obj, ev.measures,
                                 **{k: v[0] for k, v in fields.items()})

    def stats(self) -> dict[str, float]:
        """Cells filled, coverage, QD score (sum of the elites' win rates), best win rate."""
        n = len(self.grid)
        if n == 0:
            return {"cells": 0, "coverage": 0.0, "qd_score": 0.0, "best_win_rate": 0.0,
                    "mean_win_rate": 0.0}
        wr = self.grid.data("win_rate")
        return {"cells": n, "coverage": n / self.cells, "qd_score": float(wr.sum()),
                "best_win_rate": float(wr.max()), "mean_win_rate": float(wr.mean())}

    def cell_label(self, grid_index: Sequence[int]) -> str:
        """A cell named by the lower edges of its bins, as the paper does ("14:4")."""
        parts = []
        for f, i in zip(self.features, grid_index):
            lo = f.lo + int(i) * f.width
            parts.append(f"{lo:g}")
        return ":".join(parts)

    def frame(self) -> pd.DataFrame:
        """One row per elite, ordered by cell: elites.csv (`qd.rundir.elite_columns`)."""
        if len(self.grid) == 0:
            return pd.DataFrame()
        d = self.grid.data()
        order = np.argsort(d["index"], kind="stable")
        grid_idx = self.grid.int_to_grid_index(d["index"][order])
        cell, grid_index, index = CELL_COLUMNS
        rows: dict[str, list] = {
            cell: [self.cell_label(g) for g in grid_idx],
            grid_index: [grid_index_text(g) for g in grid_idx],
            index: d["index"][order].tolist(),
        }
        for j, name in enumerate(self.genome_names):
            rows[name] = d["solution"][order, j].tolist()
        for c in QUALITY_COLUMNS:  # pyribs fields of the same names
            rows[c] = (_whole(d[c][order]) if c == "wins" else d[c][order]).tolist()
        games = d["games"][order].astype(float)
        intervals = [wilson_interval(float(w), int(g)) for w, g in zip(d["wins"][order], games)]
        for j, c in enumerate(WIN_RATE_CI):
            rows[c] = [iv[j] for iv in intervals]
        for j, f in enumerate(self.features):
            rows[measure_column(f.name)] = d["measures"][order, j].tolist()
        for n in self.stat_names:
            rows[mean_column(n)] = d[mean_column(n)][order].tolist()
            rows[std_column(n)] = d[std_column(n)][order].tolist()
        with np.errstate(divide="ignore", invalid="ignore"):  # one game: no standard error
            root = np.where(games > 1, np.sqrt(games - 1), np.nan)
            for n in self.stat_names:  # population spread -> standard error of the mean
                rows[se_column(n)] = (d[std_column(n)][order] / root).tolist()
        for c in FOUND_COLUMNS:
            rows[c] = d[c][order].tolist()
        return pd.DataFrame(rows)


def is_better(a: Evaluation, b: Evaluation) -> bool:
    """The paper's rule stated directly (used by the tests to check the encoding)."""
    if a.win_rate != b.win_rate:
        return a.win_rate > b.win_rate
    return a.mean_score > b.mean_score


def _whole(values: np.ndarray) -> np.ndarray:
    """`qd.genome_games.whole` for a column: float values that are all whole numbers as integers."""
    if values.dtype.kind == "f" and len(values) and np.all(np.mod(values, 1) == 0):
        return values.astype(np.int64)
    return values
