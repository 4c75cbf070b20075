"""The run directory's names: its file names, the config.yaml key of the evolved scripts, and
the column groups of its tables (what a writer writes and a reader looks for).

A new column group or file of a run directory is added here first (`qd.rundir`).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

# ------------------------------------------------------------------------------ files

CONFIG = "config.yaml"
CHECKPOINT = "checkpoint.jsonl"
ELITES = "elites.csv"
INDIVIDUALS = "individuals.csv"
METRICS = "metrics.csv"
GAMES = "games.csv"
LOG = "run.log"
PARTIAL = "partial.jsonl"
LEGACY_CHECKPOINT = "checkpoint.pkl"
"""The checkpoint of older versions: a pickle, never read (unpickling can run code)."""
LEGACY_PARTIAL = "partial.pkl"

RUN_FILES = (CONFIG, CHECKPOINT, ELITES, INDIVIDUALS, METRICS, GAMES, LOG)
"""The files of a run directory after its first batch."""
TRANSIENT_FILES = (PARTIAL, LEGACY_CHECKPOINT, LEGACY_PARTIAL)
"""Files a run directory may also hold: the partial batch while batches are in flight, and
the pickles of older versions (kept, never read)."""
OCCUPIED = (CHECKPOINT, CONFIG, LEGACY_CHECKPOINT)
"""Either file marks a directory as holding a run."""
CHECKPOINT_FORMAT = "playstyles-checkpoint"
CHECKPOINT_VERSION = 3
"""3: a data log of told batches (`qd.checkpoint`); versions 1 and 2 were pickles, never
read."""
CHECKED_TABLES = (GAMES, INDIVIDUALS, METRICS, ELITES)
"""The tables whose size, rows and SHA-256 every checkpoint line records (`check_table`)."""

VALIDATION = "validation.csv"
VALIDATION_GAMES = "validation_games.csv"
VALIDATION_SUMMARY = "validation_summary.json"
VALIDATION_TABLE = "validation.md"
VALIDATION_CHART = "validation.png"
VALIDATION_JOURNAL = "validation.journal"
"""The validation games finished so far while a validation plays (`play.journal`); gone
once its results are written."""
VALIDATION_FILES = (VALIDATION, VALIDATION_GAMES, VALIDATION_SUMMARY, VALIDATION_TABLE,
                    VALIDATION_CHART)

# the files of a probe's output folder (`playstyles probe`, `qd.probe`; drawn by `plots.probe`)
PROBE_GAMES = "probe_games.csv"
PROBE_GENOMES = "probe_genomes.csv"
PROBE_TABLE = "probe.csv"
PROBE_SETTINGS = "probe.json"
PROBE_REPORT = "probe.md"
PROBE_CHART = "probe.png"
PROBE_JOURNAL = "probe.journal"
PROBE_CONTROL = "control"
"""The probe's name for the control genome (default weights) in its tables."""
PROBE_WIN_RATE = "win_rate"
"""The probe's name for the win rate among the features of its tables."""

REPORT = "report.html"
EXPLORER = "explorer.html"
"""The archive explorer: one interactive page of the run (`plots.explorer`)."""
ELITES_TABLE = "elites_table.csv"
PROGRESS_CHART = "progress.png"

OWN_FILES = RUN_FILES + TRANSIENT_FILES + VALIDATION_FILES + (VALIDATION_JOURNAL, REPORT,
                                                         EXPLORER, ELITES_TABLE, PROGRESS_CHART)
"""The files of a run directory that only evolve, validate and report write (`run_files`)."""


def is_run_dir(folder: str | Path) -> bool:
    """Whether `folder` is a run directory: config.yaml together with checkpoint.pkl or
    elites.csv.

    Args:
        folder: the folder.
    """
    folder = Path(folder)
    return (folder / CONFIG).is_file() and any((folder / n).is_file()
                                                for n in (CHECKPOINT, ELITES))


def run_files(folder: str | Path) -> tuple[str, ...]:
    """The file names no other command may write into `folder` (`OWN_FILES` when it is a run
    directory, else none): what a command passes as `protected` to
    `base.files.check_output_file`.

    Args:
        folder: the folder of an output file.
    """
    return OWN_FILES if is_run_dir(folder) else ()


def command_path(run_dir: str | Path, *, page: bool = False) -> str:
    """A run directory as a command to type names it, quoted for a shell where it needs to
    be (`shlex.quote`: a space, a quote): the path as given. On a page (`page`) an absolute
    path is named by its last part only, as the page may be read on another machine.

    Args:
        run_dir: the run directory.
        page: for report.html and explorer.html rather than the terminal.
    """
    path = Path(run_dir)
    return shlex.quote(path.name if page and path.is_absolute() else str(path))


def heatmap_file(field: str) -> str:
    """The report's heatmap of one elites field.

    Args:
        field: a column of elites.csv or validation.csv (`win_rate`, `mean_score`, ...).
    """
    return f"heatmap_{field}.png"


PRESET_KINDS = ("difficulty", "style")
"""The kinds of selection of `playstyles export` (`qd.export`), each with its default preset
file in the run directory (`presets_file`)."""


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


STYLE_COLUMNS = ("style", "distinct", "differs_from_control", "non_inferior")
"""validation.csv, per elite: its rank among the distinct styles (1 the strongest, 0 if it is
not one), whether it is one, and (for a style, with the control played) whether a feature
differs from the control's by more than the minimum effect and whether it is shown
non-inferior to the control at the margin (docs/styles.md). A validation written before
styles were counted has none of them."""
NOT_APART = "not_told_apart_from"
"""validation.csv, per elite that is not a style: the styles it differs from in no feature at
the minimum effect, as `#k`, space-separated (why it is not a style of its own; empty for a
style). A validation written before it was recorded has no such column."""

WIN_RATE_CI = ("win_rate_ci_low", "win_rate_ci_high")
"""The Wilson 95% interval of a win rate: of the evolved win rate in elites.csv, of the
validated one in validation.csv."""
WIDE_INTERVAL = 0.30
"""A win rate whose 95% interval is wider than this (30 points) is too uncertain to rank
elites by: heatmaps mark it and the report does not count the elite as robust. 20 games at a
50% win rate give an interval 40 points wide; 40 games, 29 points."""
