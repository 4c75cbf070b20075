"""Behaviour features: what a play-style *does*, measured over the games a genome played.

A feature is a name, a range (lo, hi), a bin width and a per-game function. The function sees
one game from one player's side (`PlayerGame`: event totals, per-turn snapshot series, the final
summary, whether that player won) and returns a number, or NaN when the feature is undefined for
that game (e.g. the turn of victory in a lost game). A genome's feature value is the mean over
the games where it is defined, its spread the standard deviation over the same games. Per-game
functions keep every feature a few lines long and give mean and spread for free.

When a feature is undefined in every game of a genome, its archive coordinate is the feature's
`missing` value ("lo", "hi" or a number); the stored mean stays NaN so the tables say so.

Adding a feature is one function and one `register` call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

SNAPSHOTS = ("techs", "tiles", "cities", "production", "score", "stars")
"""Events the Tribes engine logs at the end of each of a player's turns (a state, not a count)."""


@dataclass
class PlayerGame:
    """One finished game seen from one player: the inputs of every feature function."""

    player: int
    won: bool
    rounds: int  # the game's round counter at its end
    totals: dict[str, float]  # sum of each event's values for this player
    series: dict[str, list[tuple[int, float]]]  # snapshot name -> [(round, value)] in order
    last_round: int  # the last round in which this player logged anything (acted), -1 if never
    summary: dict[str, float] = field(default_factory=dict)  # final figures (state.summary)

    @staticmethod
    def from_events(events: Iterable[tuple[int, int, str, float]], player: int,
                    winner: int | None, rounds: int | None = None,
                    summary: dict[str, float] | None = None) -> "PlayerGame":
        totals: dict[str, float] = {}
        series: dict[str, list[tuple[int, float]]] = {}
        last = -1
        max_round = 0
        for rnd, p, name, value in events:
            if rnd > max_round:
                max_round = rnd
            if p != player:
                continue
            last = rnd
            if name in SNAPSHOTS:
                series.setdefault(name, []).append((rnd, value))
            else:
                totals[name] = totals.get(name, 0) + value
        return PlayerGame(player=player, won=winner == player,
                          rounds=max_round if rounds is None else rounds, totals=totals,
                          series=series, last_round=last, summary=dict(summary or {}))

    @staticmethod
    def from_record(record: Any, player: int) -> "PlayerGame":
        """From an `agents.runner.GameRecord`."""
        return PlayerGame.from_events(record.events, player, record.winner, record.rounds,
                                      record.summaries[player])

    def count(self, *names: str) -> float:
        return float(sum(self.totals.get(n, 0) for n in names))

    def final(self, name: str) -> float:
        """The end-of-game figure: the final summary, else the last snapshot, else NaN."""
        if name in self.summary:
            return float(self.summary[name])
        s = self.series.get(name)
        return float(s[-1][1]) if s else math.nan


FeatureFn = Callable[[PlayerGame], float]


@dataclass(frozen=True)
class Feature:
    name: str
    lo: float
    hi: float
    width: float
    fn: FeatureFn
    doc: str = ""
    missing: str | float = "lo"  # archive coordinate when undefined in every game

    @property
    def bins(self) -> int:
        """Number of grid cells: the range cut into steps of `width` (a last partial step
        counts as a cell)."""
        return max(1, math.ceil((self.hi - self.lo) / self.width - 1e-9))

    @property
    def edges(self) -> np.ndarray:
        return np.linspace(self.lo, self.lo + self.bins * self.width, self.bins + 1)

    @property
    def grid_hi(self) -> float:
        """The upper end of the grid (hi, or past it when the width does not divide the range)."""
        return self.lo + self.bins * self.width

    def missing_value(self) -> float:
        if self.missing == "lo":
            return float(self.lo)
        if self.missing == "hi":
            return float(self.hi)
        return float(self.missing)

    def with_range(self, lo: float | None = None, hi: float | None = None,
                   width: float | None = None, bins: int | None = None) -> "Feature":
        """A copy with another range and a width, or a number of bins over the range."""
        lo = self.lo if lo is None else float(lo)
        hi = self.hi if hi is None else float(hi)
        if not hi > lo:
            raise ValueError(f"range must have hi > lo, got [{lo}, {hi}]")
        if bins is not None:
            if bins < 1:
                raise ValueError(f"bins must be >= 1, got {bins}")
            width = (hi - lo) / bins
        width = self.width if width is None else float(width)
        if not width > 0:
            raise ValueError(f"width must be > 0, got {width}")
        return Feature(self.name, lo, hi, width, self.fn, self.doc, self.missing)


FEATURES: dict[str, Feature] = {}


def register(name: str, lo: float, hi: float, width: float, doc: str,
             missing: str | float = "lo") -> Callable[[FeatureFn], FeatureFn]:
    """Decorator: register a per-game feature function under `name`."""
    def deco(fn: FeatureFn) -> FeatureFn:
        FEATURES[name] = Feature(name, float(lo), float(hi), float(width), fn, doc, missing)
        return fn
    return deco


def get_feature(name: str) -> Feature:
    if name not in FEATURES:
        raise ValueError(f"unknown feature {name!r}; known: {', '.join(FEATURES)}")
    return FEATURES[name]


def slope(points: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of value against round; NaN with fewer than two distinct rounds."""
    if len(points) < 2:
        return math.nan
    x = np.fromiter((p[0] for p in points), float, len(points))
    y = np.fromiter((p[1] for p in points), float, len(points))
    dx = x - x.mean()
    var = float(dx @ dx)
    if var == 0.0:
        return math.nan
    return float(dx @ (y - y.mean())) / var


# ------------------------------------------------------------------------------ the features

@register("attacks", 0, 20, 2, "attack actions per game")
def _attacks(g: PlayerGame) -> float:
    return g.count("attacks")


@register("ranged_minus_melee", -5, 5, 1,
          "archers + catapults minus swordsmen + knights spawned, per game")
def _ranged_minus_melee(g: PlayerGame) -> float:
    return (g.count("spawn_archer", "spawn_catapult")
            - g.count("spawn_swordman", "spawn_knight"))


@register("defender_spawns", 0, 10, 1, "defenders spawned per game")
def _defender_spawns(g: PlayerGame) -> float:
    return g.count("spawn_defender")


@register("win_turn", 0, 50, 5,
          "round of victory (the last round the player acted, 0-based) over won games; "
          "a genome that never won sits at the top of the range (slower than any win)",
          missing="hi")
def _win_turn(g: PlayerGame) -> float:
    return float(g.last_round) if g.won else math.nan


@register("research_slope", 0, 2, 0.2,
          "least-squares slope of technologies owned per round (end-of-turn snapshots)")
def _research_slope(g: PlayerGame) -> float:
    return slope(g.series.get("techs", ()))


@register("tile_slope", 0, 2, 0.2,
          "least-squares slope of tiles owned per round (end-of-turn snapshots)")
def _tile_slope(g: PlayerGame) -> float:
    return slope(g.series.get("tiles", ()))


@register("production", 0, 30, 3, "final production")
def _production(g: PlayerGame) -> float:
    return g.final("production")


@register("cities", 0, 10, 1, "cities owned at the end")
def _cities(g: PlayerGame) -> float:
    return g.final("cities")


@register("kills", 0, 20, 2, "enemy units killed per game")
def _kills(g: PlayerGame) -> float:
    return g.count("kills")


@register("captures", 0, 10, 1, "capture actions (villages and cities) per game")
def _captures(g: PlayerGame) -> float:
    return g.count("captures")


@register("buildings", 0, 40, 4, "buildings built per game")
def _buildings(g: PlayerGame) -> float:
    return g.count("buildings")


@register("score", 0, 12000, 1000, "final score")
def _score(g: PlayerGame) -> float:
    return g.final("score")


# ------------------------------------------------------------------------------ aggregation

def per_game(games: Sequence[PlayerGame], names: Iterable[str]) -> dict[str, np.ndarray]:
    """Each feature's value in each game (NaN where undefined)."""
    return {n: np.array([FEATURES[n].fn(g) for g in games], dtype=float) for n in names}


def mean_spread(values: np.ndarray) -> tuple[float, float]:
    """Mean and (population) standard deviation over the games where a feature is defined."""
    v = values[~np.isnan(values)]
    if v.size == 0:
        return math.nan, math.nan
    return float(v.mean()), float(v.std())


def measure(feature: Feature, mean: float) -> float:
    """The archive coordinate of a feature mean (its `missing` value when undefined)."""
    return feature.missing_value() if math.isnan(mean) else float(mean)
