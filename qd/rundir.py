"""The run directory's schema: its file names, the column groups of its tables, and a reader.

Everything an evolution run and the tools after it (validation, export, report) write into a
run directory is named here, and nowhere else: the writers (`qd.run`, `qd.archive`,
`qd.validation`, `qd.export`, `plots.report`) and every reader (`plots`, `qd.validation`,
`qd.export`) take file names and column names from this module. A new column group or file is
added here first.

Files of a run (written by `playstyles evolve`):

    config.yaml      the resolved config: every default, the seed, the level seeds, and
                     `genome_scripts` (the evolved scripts, in genome order)
    checkpoint.pkl   the run state after the last completed batch
    elites.csv       one row per elite, by cell
    individuals.csv  one row per evaluated genome
    metrics.csv      one row per batch
    games.csv        one row per game
    run.log          start, one line per batch, stop / resume
    partial.pkl      the finished games of the batches in flight (gone when none is)

and of the tools after it: `validation*.{csv,json,md,png}` (`playstyles validate`), the report's
`heatmap_<field>.png`, `progress.png`, `elites_table.csv`, `report.html` (`playstyles report`)
and `presets_<kind>.json` (`playstyles export`).

Columns: a genome's weights are one column per evolved script (named by the script, in the
order of `genome_scripts`); the grid position of a genome is `measure_<feature>` for each
feature of the grid; the mean and spread over its games of every feature the game registers
are `<feature>_mean` and `<feature>_std`. games.csv holds, per game, the columns of each side
under the prefixes `genome_` and `opponent_`. validation.csv puts `_evolved` and `_validated`
after the names it compares.

This module is game-neutral and light (numpy, pandas and yaml only: no game, agent, Ray,
pyribs or matplotlib), so that a run directory can be read without the code that produced it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

# ------------------------------------------------------------------------------ files

CONFIG = "config.yaml"
CHECKPOINT = "checkpoint.pkl"
ELITES = "elites.csv"
INDIVIDUALS = "individuals.csv"
METRICS = "metrics.csv"
GAMES = "games.csv"
LOG = "run.log"
PARTIAL = "partial.pkl"

RUN_FILES = (CONFIG, CHECKPOINT, ELITES, INDIVIDUALS, METRICS, GAMES, LOG)
"""The files of a run directory after its first batch (`partial.pkl` only while batches are in
flight)."""
BATCH_TABLES = (GAMES, INDIVIDUALS, METRICS)
"""Tables appended batch by batch (a `batch` column); rows of a batch whose checkpoint was
never written are dropped on resume."""
OCCUPIED = (CHECKPOINT, CONFIG)
"""Either file marks a directory as holding a run."""

VALIDATION = "validation.csv"
VALIDATION_GAMES = "validation_games.csv"
VALIDATION_SUMMARY = "validation_summary.json"
VALIDATION_TABLE = "validation.md"
VALIDATION_CHART = "validation.png"
VALIDATION_JOURNAL = "validation.journal"
"""The validation games finished so far while a validation plays (`agents.journal`); gone
once its results are written."""
VALIDATION_FILES = (VALIDATION, VALIDATION_GAMES, VALIDATION_SUMMARY, VALIDATION_TABLE,
                    VALIDATION_CHART)

REPORT = "report.html"
ELITES_TABLE = "elites_table.csv"
PROGRESS_CHART = "progress.png"


def heatmap_file(field: str) -> str:
    """The report's heatmap of one elites field.

    Args:
        field: a column of elites.csv or validation.csv (`win_rate`, `mean_score`, ...).
    """
    return f"heatmap_{field}.png"


def presets_file(kind: str) -> str:
    """The default preset file of `playstyles export`.

    Args:
        kind: the kind of selection (`difficulty`, `style`).
    """
    return f"presets_{kind}.json"


# ------------------------------------------------------------------------------ config.yaml

GENOME_SCRIPTS = "genome_scripts"
"""config.yaml key: the evolved scripts in genome order (the weight columns of the tables)."""


def genome_scripts(config: Mapping[str, Any]) -> list[str] | None:
    """The evolved scripts recorded in a resolved config, or None for a run directory written
    before config.yaml recorded them.

    Args:
        config: the mapping read from config.yaml.
    """
    names = config.get(GENOME_SCRIPTS)
    if names is None:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{CONFIG}: {GENOME_SCRIPTS}: a list of script names expected, "
                         f"got {names!r}")
    return list(names)


# ------------------------------------------------------------------------------ columns

CELL_COLUMNS = ("cell", "grid_index", "index")
"""Where an elite sits: the cell's label (lower bin edges, `14:4`), its grid coordinates
(`7,9`) and pyribs' flat index."""
QUALITY_COLUMNS = ("win_rate", "wins", "games", "mean_score", "objective")
"""An elite's quality (individuals.csv has all but `objective`)."""
FOUND_COLUMNS = ("batch", "evaluation")
"""When a genome was evaluated."""
STATUS = ("rejected", "improved", "new", "waiting")
"""individuals.csv `status`, by pyribs' add status (0, 1, 2), and `waiting` (3): in a run
with `noise: {method: adaptive}`, a genome played again before its cell is decided."""
METRIC_COLUMNS = ("batch", "evaluations", "games", "cells", "coverage", "qd_score",
                  "best_win_rate", "mean_win_rate", "new_cells", "improved", "batch_size",
                  "workers", "game_seconds", "play_seconds", "driver_seconds", "wall_seconds",
                  "cpu_utilisation", "reused_games", "elapsed_seconds", "workers_alive",
                  "nodes_alive", "retries", "replays")
"""metrics.csv, one row per batch (`replays`: genomes played again in it, `noise`)."""

MEASURE_PREFIX = "measure_"
MEAN_SUFFIX = "_mean"
STD_SUFFIX = "_std"
SE_SUFFIX = "_se"


def measure_column(feature: str) -> str:
    """A grid feature's coordinate (the value the archive placed the genome by).

    Args:
        feature: the feature's name.
    """
    return f"{MEASURE_PREFIX}{feature}"


def mean_column(feature: str) -> str:
    """A feature's mean over a genome's games (NaN where undefined in every game).

    Args:
        feature: the feature's name.
    """
    return f"{feature}{MEAN_SUFFIX}"


def std_column(feature: str) -> str:
    """A feature's spread (standard deviation) over a genome's games.

    Args:
        feature: the feature's name.
    """
    return f"{feature}{STD_SUFFIX}"


def se_column(feature: str) -> str:
    """The standard error of a feature's mean over a genome's games (elites.csv): the sample
    standard deviation over the square root of the games, from `_std` and `games`.

    Args:
        feature: the feature's name.
    """
    return f"{feature}{SE_SUFFIX}"


def weight_columns(scripts: Sequence[str]) -> list[str]:
    """The genome's columns: one weight per evolved script, in genome order.

    Args:
        scripts: the evolved scripts (`genome_scripts` of config.yaml).
    """
    return list(scripts)


def stat_columns(features: Iterable[str]) -> list[str]:
    """`<feature>_mean`, `<feature>_std` for each feature, in pairs.

    Args:
        features: feature names, in table order.
    """
    return [c for f in features for c in (mean_column(f), std_column(f))]


def elite_columns(scripts: Sequence[str], features: Sequence[str],
                  stats: Sequence[str]) -> list[str]:
    """The columns of elites.csv, in order.

    Args:
        scripts: the evolved scripts.
        features: the grid's features.
        stats: every feature whose mean and spread the elites keep.
    """
    return [*CELL_COLUMNS, *weight_columns(scripts), *QUALITY_COLUMNS, *WIN_RATE_CI,
            *(measure_column(f) for f in features), *stat_columns(stats),
            *(se_column(f) for f in stats), *FOUND_COLUMNS]


def individual_columns(scripts: Sequence[str], features: Sequence[str],
                       stats: Sequence[str]) -> list[str]:
    """The columns of individuals.csv, in order.

    Args:
        scripts: the evolved scripts.
        features: the grid's features.
        stats: every feature whose mean and spread is kept.
    """
    return [*FOUND_COLUMNS, "status", *weight_columns(scripts), *QUALITY_COLUMNS[:4],
            *(measure_column(f) for f in features), *stat_columns(stats)]


def stat_features(columns: Iterable[str]) -> list[str]:
    """The features a table reports a mean and spread of (`<f>_mean` and `<f>_std`), in order.

    Args:
        columns: the table's columns.
    """
    cols = list(columns)
    have = set(cols)
    return [c[:-len(MEAN_SUFFIX)] for c in cols
            if c.endswith(MEAN_SUFFIX) and len(c) > len(MEAN_SUFFIX)
            and std_column(c[:-len(MEAN_SUFFIX)]) in have]


# games.csv: one row per game; per side, the record's player columns under a prefix

GAME_SIDES = ("genome", "opponent")
EVENT_COUNT = "n_"
"""Infix of a side's event counts (`genome_n_attack`); absent counts are 0, not missing."""


def game_sides(players: int = 2) -> tuple[str, ...]:
    """The sides of a game's row: `genome`, then the opponents' seats in turn order after the
    genome's: `opponent` (the next seat), `opponent2`, ... in a game of more players.

    Args:
        players: players of the game.
    """
    return GAME_SIDES + tuple(f"opponent{k}" for k in range(2, players))


def side_prefix(side: str) -> str:
    """The prefix of one side's columns in games.csv.

    Args:
        side: `genome` (the evaluated genome's player), `opponent` (the seat after it), or
            `opponent<k>` (the k-th seat after it, k >= 2).
    """
    extra = side.removeprefix("opponent")
    if side not in GAME_SIDES and not (extra.isdigit() and int(extra) >= 2):
        raise ValueError(f"side: {side!r} is not one of {', '.join(GAME_SIDES)}, opponent<k>")
    return f"{side}_"


def event_count_prefixes(players: int = 2) -> tuple[str, ...]:
    """Prefixes of the event-count columns of games.csv (every side).

    Args:
        players: players of the game.
    """
    return tuple(side_prefix(s) + EVENT_COUNT for s in game_sides(players))


# validation.csv: one row per validated elite

EVOLVED_SUFFIX = "_evolved"
VALIDATED_SUFFIX = "_validated"


def evolved_column(name: str) -> str:
    """A value as evolution measured it (`win_rate`, a feature, `measure_<feature>`, ...).

    Args:
        name: the compared quantity.
    """
    return f"{name}{EVOLVED_SUFFIX}"


def validated_column(name: str) -> str:
    """The same quantity measured on the held-out levels.

    Args:
        name: the compared quantity.
    """
    return f"{name}{VALIDATED_SUFFIX}"


def validated_std_column(feature: str) -> str:
    """A feature's spread over the validation games.

    Args:
        feature: the feature's name.
    """
    return validated_column(f"{feature}_std")


def validated_ci_columns(feature: str) -> tuple[str, str]:
    """A feature's 95% interval over the validation games (Student's t): low and high.

    Args:
        feature: the feature's name.
    """
    return validated_column(f"{feature}_ci_low"), validated_column(f"{feature}_ci_high")


def validated_columns(columns: Iterable[str], measures: bool = True) -> list[str]:
    """The `_validated` columns of a table.

    Args:
        columns: the table's columns.
        measures: include the grid coordinates (`measure_<feature>_validated`).
    """
    return [c for c in columns if c.endswith(VALIDATED_SUFFIX)
            and (measures or not c.startswith(MEASURE_PREFIX))]


STYLE_COLUMNS = ("style", "distinct", "differs_from_control", "weaker_than_control")
"""validation.csv, per elite: its rank among the distinct styles (1 the strongest, 0 if it is
not one), whether it is one, and (for a style, with the control played) whether a feature
differs from the control's and whether its win rate is below it. A validation written before
styles were counted has none of them."""

WIN_RATE_CI = ("win_rate_ci_low", "win_rate_ci_high")
"""The Wilson 95% interval of a win rate: of the evolved win rate in elites.csv, of the
validated one in validation.csv."""
WIDE_INTERVAL = 0.30
"""A win rate whose 95% interval is wider than this (30 points) is too uncertain to rank
elites by: heatmaps mark it and the report does not count the elite as robust. 20 games at a
50% win rate give an interval 40 points wide; 40 games, 29 points."""


# ------------------------------------------------------------------------------ reading

@dataclass(frozen=True)
class Axis:
    """One feature axis of the archive grid, as config.yaml gives it.

    Args:
        name: the feature's name.
        lo: the lower end of the range.
        hi: the upper end of the range.
        width: the bin width (a last partial step counts as a bin).
    """

    name: str
    lo: float
    hi: float
    width: float

    @property
    def bins(self) -> int:
        return max(1, math.ceil((self.hi - self.lo) / self.width - 1e-9))

    @property
    def edges(self) -> np.ndarray:
        return self.lo + self.width * np.arange(self.bins + 1)

    def index(self, value: float) -> int:
        """The bin of a value; outside values fall into the end bins (as the archive clips)."""
        if value is None or not math.isfinite(value):
            raise ValueError(f"{self.name}: no bin for {value!r}")
        return int(min(self.bins - 1, max(0, math.floor((value - self.lo) / self.width + 1e-9))))

    def edge_label(self, i: int) -> str:
        return f"{self.lo + i * self.width:.6g}"


class RunFiles:
    """The files of one run directory, read lazily; missing optional files read as None.

    Reads files only (never the run's Python objects), so a run can be read years later, on
    another machine, without the code that produced it. The grid geometry is recomputed from
    the resolved config the way the run cut it: cells `width` wide from `lo`.

    Args:
        run_dir: the run directory (it must hold config.yaml).
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.dir = Path(run_dir)
        if not (self.dir / CONFIG).exists():
            raise ValueError(f"{self.dir}: not a run directory (no {CONFIG})")
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ raw files
    def path(self, name: str) -> Path:
        """A file of the run directory (a name from this module)."""
        return self.dir / name

    def has(self, name: str) -> bool:
        """Whether the file exists and is not empty."""
        p = self.dir / name
        return p.exists() and p.stat().st_size > 0

    @property
    def config(self) -> dict[str, Any]:
        """config.yaml as a mapping (the resolved config the run was started with)."""
        if "config" not in self._cache:
            from playstyles.inputs import read_yaml
            path = self.dir / CONFIG
            data = read_yaml(path)
            if not isinstance(data, dict):
                raise ValueError(f"{path}: not a run config")
            self._cache["config"] = data
        return self._cache["config"]

    def table(self, name: str) -> pd.DataFrame | None:
        """A CSV of the run directory, or None when it is absent or empty."""
        if name not in self._cache:
            frame = None
            if self.has(name):
                try:
                    frame = pd.read_csv(self.dir / name)
                except pd.errors.EmptyDataError:
                    frame = None
            self._cache[name] = frame
        return self._cache[name]

    def json(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the run directory, or None when it is absent."""
        from playstyles.inputs import read_json
        p = self.dir / name
        return read_json(p) if p.exists() else None

    # ------------------------------------------------------------------ derived views
    @property
    def name(self) -> str:
        return str(self.config.get("name") or self.dir.name)

    @property
    def axes(self) -> list[Axis]:
        """The grid's axes, in config order."""
        out = []
        for f in self.config.get("features") or []:
            lo, hi = f["range"]
            out.append(Axis(str(f["name"]), float(lo), float(hi), float(f["width"])))
        if not out:
            raise ValueError(f"{self.dir / CONFIG}: no features")
        return out

    @property
    def features(self) -> list[str]:
        """The grid's features, in config order."""
        return [a.name for a in self.axes]

    @property
    def genome_scripts(self) -> list[str] | None:
        """The evolved scripts in genome order (None for a run written before config.yaml
        recorded them)."""
        return genome_scripts(self.config)

    @property
    def elites(self) -> pd.DataFrame:
        """elites.csv (an empty frame when the run has no elite yet)."""
        frame = self.table(ELITES)
        return frame if frame is not None else pd.DataFrame()

    @property
    def individuals(self) -> pd.DataFrame | None:
        return self.table(INDIVIDUALS)

    @property
    def games(self) -> pd.DataFrame | None:
        return self.table(GAMES)

    @property
    def metrics(self) -> pd.DataFrame | None:
        return self.table(METRICS)

    @property
    def validation(self) -> pd.DataFrame | None:
        return self.table(VALIDATION)

    @property
    def reestimated(self) -> bool:
        """Whether the elites carry fresh estimates: a `noise: reestimate` run whose closing
        batch (replays only, `batch_size` 0 in metrics.csv) is written."""
        noise = self.config.get("noise") or {}
        m = self.metrics
        return (noise.get("method") == "reestimate" and m is not None and not m.empty
                and "batch_size" in m and int(m["batch_size"].iloc[-1]) == 0)

    @property
    def elites_source(self) -> str:
        """Which games elites.csv's win rates and feature means come from, in words:
        `evolution`, or `re-estimation (N fresh games on training levels)` (`reestimated`)."""
        if not self.reestimated:
            return "evolution"
        g = self.elites["games"] if "games" in self.elites else pd.Series(dtype=float)
        n = "?" if g.empty else (f"{int(g.min())}" if g.min() == g.max()
                                 else f"{int(g.min())}-{int(g.max())}")
        return f"re-estimation ({n} fresh games on training levels)"

    @property
    def validation_games(self) -> pd.DataFrame | None:
        return self.table(VALIDATION_GAMES)

    @property
    def validation_summary(self) -> dict[str, Any] | None:
        return self.json(VALIDATION_SUMMARY)

    def weight_columns(self, frame: pd.DataFrame | None = None) -> list[str]:
        """The script-weight columns: `genome_scripts` of config.yaml. For a run directory
        written before config.yaml recorded them: the columns of `frame` (default
        elites.csv) between `index` and `win_rate`, where the run wrote them."""
        scripts = self.genome_scripts
        if scripts is not None:
            return weight_columns(scripts)
        frame = self.elites if frame is None else frame
        cols = list(frame.columns)
        first, after = CELL_COLUMNS[-1], QUALITY_COLUMNS[0]
        if first not in cols or after not in cols:
            return []
        return cols[cols.index(first) + 1:cols.index(after)]

    def grid_indices(self, frame: pd.DataFrame | None = None) -> np.ndarray:
        """(elites x features) integer cell coordinates, from the `grid_index` column."""
        frame = self.elites if frame is None else frame
        if frame.empty:
            return np.zeros((0, len(self.axes)), dtype=int)
        return np.array([parse_grid_index(g) for g in frame["grid_index"]], dtype=int)

    def feature_columns(self) -> list[str]:
        """Every feature whose mean and spread elites.csv reports."""
        return stat_features(self.elites.columns)


def grid_index_text(index: Iterable[int]) -> str:
    """The `grid_index` column's form of a cell's coordinates (`7,9`).

    Args:
        index: the cell's integer coordinates, one per grid feature.
    """
    return ",".join(str(int(i)) for i in index)


def parse_grid_index(text: Any) -> list[int]:
    """A cell's integer coordinates from the `grid_index` column (`7,9` -> [7, 9]).

    Args:
        text: the column's value.
    """
    return [int(v) for v in str(text).split(",")]


def dominant_scripts(weights: Mapping[str, float], top: int = 2) -> str:
    """An elite's dominant scripts in words: the `top` scripts of highest weight with their
    weights, highest first (ties in genome order), and how many more share the last weight
    shown (`ResearchMountains 1, SpawnDefensive 0.75`; `ResearchFarms 1, ResearchNaval 1 (+3
    more at 1)`); a script of weight 0 is not named beside one above it (`ResearchMountains 1
    (the other 10 at 0)`).

    Args:
        weights: script -> weight, in genome order (NaN weights are left out).
        top: scripts to name.
    """
    items = [(str(k), float(v)) for k, v in weights.items()
             if v is not None and math.isfinite(float(v))]
    if not items or top < 1:
        return ""
    ranked = sorted(range(len(items)), key=lambda i: (-items[i][1], i))
    shown = [items[i] for i in ranked[:top]]
    if shown[0][1] > 0:  # a zero weight is no dominance: `A 1 (the other 10 at 0)`
        shown = [x for x in shown if x[1] > 0]
    text = ", ".join(f"{name} {w:.3g}" for name, w in shown)
    last = shown[-1][1]
    rest = [items[i][1] for i in ranked[len(shown):]]
    tied = sum(1 for w in rest if w == last)
    if rest and all(w == 0 for w in rest) and last > 0:
        text += f" (the other {len(rest)} at 0)"
    elif tied:
        text += f" (+{tied} more at {last:.3g})"
    return text


# ------------------------------------------------------------------------------ validation, in words
# (validation_summary.json read for people: `qd.validation` writes it, the report, export and
# the command line say it; here so that a run directory reads without the code)

def csv_true(value: Any) -> bool:
    """A boolean read back from a CSV table (True, "True", 1).

    Args:
        value: the cell.
    """
    return str(value).strip().lower() in ("true", "1", "1.0")


def validation_source(summary: Mapping[str, Any]) -> str:
    """Which games validation.csv's values come from, in words: `held out (N games on M
    held-out levels)`, `replayed (N fresh games on M training levels)` for a validation on
    the training levels, or a mix.

    Args:
        summary: validation_summary.json.
    """
    played = list(summary.get("levels") or [])
    train = set(summary.get("levels_overlap_training") or [])
    n = summary.get("games_per_elite", "?")
    m = len(set(played))
    if not train:
        return f"held out ({n} games on {m} held-out level{'s' if m != 1 else ''})"
    if set(played) <= train:
        return f"replayed ({n} fresh games on {m} training level{'s' if m != 1 else ''})"
    return (f"validation ({n} games on {m} levels, {len(train)} of them training levels)")


def styles_counted(summary: Mapping[str, Any] | None) -> bool:
    """Whether a validation counted the distinct styles (one written before it did has no
    `distinct_styles`)."""
    return bool(summary) and summary.get("distinct_styles") is not None


def number_text(x: Any, pct: bool = False) -> str:
    """A number as the tables print it (3 significant digits, or a percentage); n/a when
    missing or not finite."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3g}"


def headline(summary: Mapping[str, Any]) -> str:
    """The validation's one-line verdict: how many distinct styles held up."""
    k = summary.get("distinct_styles")
    if k is None:  # a validation written before styles were counted
        return (f"{summary.get('elites', 0)} elites validated (distinct styles not counted: "
                f"validate again)")
    played = set(summary.get("levels") or [])
    train = set(summary.get("levels_overlap_training") or [])
    levels = ("held-out levels" if not train else
              "the run's training levels on fresh seeds" if played <= train else
              f"held-out and training levels ({len(train)} of {len(played)} training)")
    text = (f"{k} distinct style{'s' if k != 1 else ''} held up on {levels} (of "
            f"{summary['elites']} elite{'s' if summary['elites'] != 1 else ''}, "
            f"{summary['games_per_elite']} games each)")
    if summary.get("distinct_styles_not_weaker") is not None:
        text += f"; {summary['distinct_styles_not_weaker']} not weaker than the control"
    return text


def styles_text(summary: Mapping[str, Any]) -> list[str]:
    """What the distinct-styles count means, its test, its power and the control, in lines."""
    st = summary.get("styles")
    if not st:
        return []
    feats = summary.get("features") or []
    power = st.get("power") or {}
    lines = [f"A style counts when every pair of counted styles differs in at least one of "
             f"{', '.join(feats)} on these games (Welch's t test, Holm's correction over the "
             f"{st['pairs_tested']} pair-and-feature tests, family-wise error "
             f"{100 * st['alpha']:.0f}%; the largest such set of elites, the strongest "
             f"of the largest). "
             f"{st['pairs_differing']} of the {st['pairs_tested']} tests found a difference."]
    det = [f"{f} {number_text(power[f]['detectable'])} (per-game sd {number_text(power[f]['sd'])})"
           for f in feats if f in power]
    if det:
        lines.append("Power: with " + f"{st['games']} games per elite the pairwise test finds, "
                     "80% of the time, a difference of at least " + "; ".join(det) + ".")
    c = summary.get("control")
    if c:
        fe = ", ".join(f"{f} {number_text(v['mean'])} ({number_text(v['ci'][0])} to "
                       f"{number_text(v['ci'][1])})" for f, v in c["features"].items())
        score = st.get("quality") == "score"  # a one-player game: every game is won
        key, name, pct = ("mean_score", "mean score", False) if score else \
            ("win_rate", "win rate", True)
        lo, hi = c[f"{key}_ci"]
        wr = power.get(f"{'score' if score else 'win_rate'}_vs_control", {})
        strength = (f"{name} {number_text(c[key], pct)} ({number_text(lo, pct)}{'-' if pct else ' to '}"
                    f"{number_text(hi, pct)}, {c['games']} games)")
        rule = (f"its {name} is below the control's ({'a one-player game; ' if score else ''}"
                f"one-sided Welch, 5%, uncorrected; it detects a gap of "
                f"{number_text(wr.get('detectable'), pct)}")
        lines.append(f"Control (default weights), on the same levels and seats: {strength}; "
                     f"{fe}. A style is weaker when {rule} with 80% power).")
        diff = [k for k, v in st["differs_from_control"].items() if v]
        weak = [k for k, v in st["weaker_than_control"].items() if v]
        lines.append(f"Styles that differ from the control in a feature: {len(diff)} of "
                     f"{len(st['styles'])}" + (f" ([{'], ['.join(diff)}])" if diff else "")
                     + f"; weaker than the control: {len(weak)}"
                     + (f" ([{'], ['.join(weak)}])" if weak else "") + ".")
    return lines
