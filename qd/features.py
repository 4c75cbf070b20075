"""Behaviour features: what a play-style *does*, measured over the games a genome played.

A feature is a name, a range (lo, hi), a bin width and a per-game function. The function sees
one game from one player's side (`PlayerGame`: event totals, per-turn snapshot series, the final
summary, whether that player won) and returns a number, or NaN when the feature is undefined for
that game (e.g. the turn of victory in a lost game). A genome's feature value is the mean over
the games where it is defined, its spread the standard deviation over the same games. Per-game
functions keep every feature a few lines long and give mean and spread for free.

When a feature is undefined in every game of a genome, its archive coordinate is the feature's
`missing` value ("lo", "hi" or a number); the stored mean stays NaN so the tables say so.

Features belong to a game: a game's plug-in registers its own (Tribes: attacks, research
slope, ...) with the words that describe a low, middle and high value (they name exported
styles); the game `"*"` registers a feature every game has (game length, round of
victory). Adding a feature is one function and one `register_feature` call. `playstyles check` runs a game's
features on random games (`check_features`, added to `agents.check.run_checks`).
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from agents.check import Check, register_check
from base.limits import short
from games.registry import Registry, get_game
from play.runner import AgentSpec, GameRecord, GameSpec, run_game


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
    result: float | None = None  # share of first place (None: 1 if won, else 0)
    players: int = 2  # players of the game

    @property
    def credit(self) -> float:
        """The game's credit towards the win rate: the player's share of first place (1 for
        a win, 1/k for first place shared by k players, 0 otherwise)."""
        return float(self.won) if self.result is None else float(self.result)

    @staticmethod
    def from_events(events: Iterable[tuple[int, int, str, float]], player: int,
                    winner: int | None, rounds: int | None = None,
                    summary: dict[str, float] | None = None,
                    snapshots: Iterable[str] = (), result: float | None = None,
                    players: int = 2) -> "PlayerGame":
        """`snapshots`: the game's snapshot events (figures at a turn's end, kept as
        per-round series); every other event is a count, summed into `totals`. `result`: the
        player's share of first place, `players` the game's players."""
        snapshots = frozenset(snapshots)
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
            if name in snapshots:
                series.setdefault(name, []).append((rnd, value))
            else:
                totals[name] = totals.get(name, 0) + value
        return PlayerGame(player=player, won=winner == player,
                          rounds=max_round if rounds is None else rounds, totals=totals,
                          series=series, last_round=last, summary=dict(summary or {}),
                          result=result, players=players)

    @staticmethod
    def from_record(record: Any, player: int) -> "PlayerGame":
        """From an `play.runner.GameRecord`."""
        snapshots = get_game(record.spec.game).snapshot_events
        return PlayerGame.from_events(record.events, player, record.winner, record.rounds,
                                      record.summaries[player], snapshots,
                                      result=record.result(player),
                                      players=len(record.spec.agents))

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
    words: tuple[str, str, str] = ()  # a low, middle and high value in words

    def describe(self, level: int) -> str:
        """Words for a low (0), middle (1) or high (2) value."""
        if len(self.words) == 3:
            return self.words[level]
        return f"{('low', 'medium', 'high')[level]} {self.name}"

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
        return replace(self, lo=lo, hi=hi, width=width)


FEATURES = Registry("feature")
"""The behaviour features, per game (or "*"), in registration order."""


def register_feature(game: str, name: str, lo: float, hi: float, width: float, doc: str,
                     missing: str | float = "lo", words: Sequence[str] = ()
                     ) -> Callable[[FeatureFn], FeatureFn]:
    """Decorator: register a per-game feature function.

    Args:
        game: the game (or family) it belongs to; "*" for every game.
        name: the feature's name in configs and tables.
        lo, hi, width: the default range and bin width of its grid axis.
        doc: one line saying what it measures.
        missing: archive coordinate when undefined in every game ("lo", "hi" or a number).
        words: three words or phrases for a low, middle and high value ("few attacks", ...).
    """
    if words and len(words) != 3:
        raise ValueError(f"feature {name}: words: a low, a middle and a high word, got {words!r}")

    def deco(fn: FeatureFn) -> FeatureFn:
        FEATURES.add(name, Feature(name, float(lo), float(hi), float(width), fn, doc, missing,
                                   tuple(words)), game=game)
        return fn
    return deco


class FeatureTable:
    """A game's features as its plug-in declares them: `@table.feature(...)` (the arguments
    of `register_feature` after the game) keeps a feature function and registers nothing; the
    plug-in's `register()` gives the table to `register_features`.

    Args:
        game: the game (or family) the features belong to.
    """

    def __init__(self, game: str) -> None:
        self.game = game
        self.entries: list[tuple[tuple, dict, FeatureFn]] = []

    def feature(self, *args: Any, **kwargs: Any) -> Callable[[FeatureFn], FeatureFn]:
        """Decorator: keep a feature function with the arguments of `register_feature` after
        the game."""
        def deco(fn: FeatureFn) -> FeatureFn:
            self.entries.append((args, kwargs, fn))
            return fn
        return deco


def register_features(table: FeatureTable) -> None:
    """Register every feature of a table (each for the game its arguments name).

    Args:
        table: the features.
    """
    for args, kwargs, fn in table.entries:
        register_feature(table.game, *args, **kwargs)(fn)


def features_of(game: str) -> dict[str, Feature]:
    """Every feature of a game (its own first, then those of every game), by name."""
    return FEATURES.of(game)


def feature_texts(game: str) -> dict[str, Feature]:
    """The game's features by name (each with its `doc` and `words`, for a report's axes), or
    {} when the game's code cannot be loaded (a run directory read elsewhere): the axes then
    carry bare names.

    Args:
        game: the run's game.
    """
    try:
        return features_of(game)
    except Exception:  # noqa: BLE001 - any failure to load the game's code: bare names
        return {}


def get_feature(name: str, game: str) -> Feature:
    """The feature `name` of `game`; an unknown name is one error listing the known ones."""
    known = features_of(game)
    if name not in known:
        raise ValueError(FEATURES.unknown(name, f" for game {game!r}", list(known)))
    return known[name]


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


# ------------------------------------------------------------------------ features of every game

@register_feature("*", "rounds", 0, 100, 10, "length of the game in rounds",
                  words=("short games", "medium games", "long games"))
def _rounds(g: PlayerGame) -> float:
    return float(g.rounds)


@register_feature("*", "win_round", 0, 100, 10,
                  "round of victory (the last round the player acted, 0-based) over won games; "
                  "a genome that never won sits at the top of the range (slower than any win)",
                  missing="hi", words=("wins fast", "wins mid-game", "wins late"))
def _win_round(g: PlayerGame) -> float:
    return float(g.last_round) if g.won else math.nan


# ------------------------------------------------------------------------------ aggregation

def per_game(games: Sequence[PlayerGame], features: Iterable[Feature]) -> dict[str, np.ndarray]:
    """Each feature's value in each game (NaN where undefined)."""
    return {f.name: np.array([f.fn(g) for g in games], dtype=float) for f in features}


def mean_spread(values: np.ndarray) -> tuple[float, float]:
    """Mean and (population) standard deviation over the games where a feature is defined."""
    v = values[~np.isnan(values)]
    if v.size == 0:
        return math.nan, math.nan
    return float(v.mean()), float(v.std())


def measure(feature: Feature, mean: float) -> float:
    """The archive coordinate of a feature mean (its `missing` value when undefined)."""
    return feature.missing_value() if math.isnan(mean) else float(mean)


# ------------------------------------------------------------------------------ the check

MIN_VARIED = 5
"""`check_features`: the games over which a feature that gives the same number in every one
fails (over fewer, it is a note)."""


def _random_games(game: str, games: int, options: dict[str, Any]) -> list[GameRecord]:
    """Game k: random players on the game's default level k (in turn), seeded k, as the game
    check plays them (`games.conformance.check_game`)."""
    g = get_game(game)
    levels = g.level_set(g.default_levels)
    records = []
    for k in range(games):
        level = levels[k % len(levels)]
        n = g.new_state(level, k, **options).num_players
        records.append(run_game(GameSpec(game, level, k, (AgentSpec.of("random"),) * n,
                                         tuple(range(k * n, k * n + n)),
                                         tuple(sorted(options.items())))))
    return records


def _where(rec: GameRecord, player: int) -> str:
    return f"seed {rec.spec.seed} (level {short(rec.spec.level)}, seat {player})"


def check_features(game: str, games: int = 10, options: dict[str, Any] | None = None
                   ) -> Check:
    """A game's behaviour features on `games` random games (random players on the game's
    default levels in turn, game k seeded k), from every seat, as `evolve` computes them.

    A feature fails, naming it and a game seed, when it raises or returns what is not a
    number (or an infinity); when it is undefined (NaN) in every game from every seat (each
    elite would sit at its `missing` value with an empty mean); when every value lies outside
    its range (its grid axis would separate nothing); or when it gives the same number in
    every game from every seat, over at least `MIN_VARIED` games (a misspelled event name
    counts 0 in every game). Notes: the same number over fewer games, and values outside
    the range in some games (the archive puts them in its edge cells). The features every
    game has (`rounds`, `win_round`) are checked alike, with notes only: the plug-in does not
    write them, and random games may all reach the round limit, or never be won.

    Args:
        game: the registered game.
        games: random games to measure.
        options: game options.
    """
    out = Check("features")
    features = features_of(game)
    records = _random_games(game, games, dict(options or {}))
    views = [(rec, p, PlayerGame.from_record(rec, p)) for rec in records
             for p in range(len(rec.spec.agents))]
    for name, f in features.items():
        shared = name in FEATURES and FEATURES[name] is f
        failures, notes = _feature_problems(f, views, len(records), shared)
        (out.notes if shared else out.failures).extend(f"feature {name}: {x}" for x in failures)
        out.notes.extend(f"feature {name}: {x}" for x in notes)
    out.done = f"{len(features)} features on {len(records)} random games"
    return out


def _feature_problems(f: Feature, views: list[tuple[GameRecord, int, PlayerGame]],
                      games: int, shared: bool) -> tuple[list[str], list[str]]:
    """A feature's failures and notes on the games' views (`shared`: a feature of every
    game, whose failures the caller makes notes)."""
    values = []
    for rec, p, view in views:
        try:
            v = f.fn(view)
        except Exception as e:  # noqa: BLE001 - the plug-in's error is the finding
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()
            return [f"raised {type(e).__name__}: {e} at {_where(rec, p)}\n{tb}"], []
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            return [f"returned {short(v)}, not a number, at {_where(rec, p)}"], []
        v = float(v)
        if math.isinf(v):
            return [f"returned {v} at {_where(rec, p)}"], []
        values.append(v)
    seeds = f"seeds {views[0][0].spec.seed} to {views[-1][0].spec.seed}" if views else "no game"
    defined = [(v, rec, p) for v, (rec, p, _) in zip(values, views) if not math.isnan(v)]
    if not defined:
        return [f"undefined (NaN) in every game from every seat ({seeds}): each elite would "
                f"sit at its missing value ({f.missing}) with an empty mean"
                + (" (a feature of every game: random games may go unwon)" if shared else "")
                ], []
    failures, notes = [], []
    outside = [(v, rec, p) for v, rec, p in defined if not f.lo <= v <= f.hi]
    if outside:
        v, rec, p = max(outside, key=lambda x: max(f.lo - x[0], x[0] - f.hi))
        text = (f"{len(outside)} of {len(defined)} values outside its range [{f.lo:g}, "
                f"{f.hi:g}], e.g. {v:g} at {_where(rec, p)}")
        if len(outside) == len(defined):
            failures.append(f"{text}: every value is, so its grid axis separates nothing")
        else:
            notes.append(f"{text} (the archive puts them in its edge cells)")
    if len(defined) == len(values) and len({v for v, _, _ in defined}) == 1:
        text = f"{defined[0][0]:g} in every game from every seat ({seeds})"
        if shared:
            notes.append(f"{text} (a feature of every game: random games may all reach the "
                         f"round limit)")
        elif games >= MIN_VARIED:
            failures.append(f"{text}: it separates no play-style (an event the game never "
                            f"logs counts 0 in every game)")
        else:
            notes.append(f"{text}, over {games} games only (with {MIN_VARIED} or more it "
                         f"fails)")
    return failures, notes


register_check("features", check_features)
