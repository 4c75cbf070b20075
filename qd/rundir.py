"""The run directory's schema: its file names, the column groups of its tables, and a reader.

Everything an evolution run and the tools after it (validation, export, report) write into a
run directory is named here, and nowhere else: the writers (`qd.run`, `qd.archive`,
`qd.validation`, `qd.export`, `plots.report`) and every reader (`plots`, `qd.validation`,
`qd.export`) take file names and column names from this module. A new column group or file is
added here first.

Files of a run (written by `playstyles evolve`):

    config.yaml      the resolved config: every default, the seed, the level seeds, and
                     `genome_scripts` (the evolved scripts, in genome order)
    checkpoint.jsonl the told batches as data, from which the run state is rebuilt
                     (`qd.checkpoint`)
    elites.csv       one row per elite, by cell
    individuals.csv  one row per evaluated genome
    metrics.csv      one row per batch
    games.csv        one row per game
    run.log          start, one line per batch, stop / resume
    partial.jsonl    the finished games of the batches in flight (gone when none is)

and of the tools after it: `validation*.{csv,json,md,png}` (`playstyles validate`), the report's
`heatmap_<field>.png`, `progress.png`, `elites_table.csv`, `report.html`, `explorer.html`
(`playstyles report`)
and `presets_<kind>.json` (`playstyles export`).

Columns: a genome's weights are one column per evolved script (named by the script, in the
order of `genome_scripts`); the grid position of a genome is `measure_<feature>` for each
feature of the grid; the mean and spread over its games of every feature the game registers
are `<feature>_mean` and `<feature>_std`. games.csv holds, per game, the columns of each side
under the prefixes `genome_` and `opponent_`. validation.csv puts `_evolved` and `_validated`
after the names it compares.

Reading checks what it reads: one reader for every table (`read_table`: a size cap, and an
error naming the file and the line for a file that is not UTF-8 or not a valid CSV table), and
one check per table, once per load (`check_schema`, `check_summary`: the columns the readers
need, values in range, elites.csv's cells on config.yaml's grid), each problem one ValueError
naming the file, the line and the column.

This module is game-neutral and light (numpy, pandas and yaml only: no game, agent, Ray,
pyribs or matplotlib), so that a run directory can be read without the code that produced it.
"""

from __future__ import annotations

import hashlib
import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from playstyles.datalog import last_entry, log_header
from playstyles.files import decoding_problem, read_json, read_yaml
from playstyles.limits import short

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
    `playstyles.files.check_output_file`.

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


# ------------------------------------------------------------------------------ checks

def table_problem(run_dir: Path, name: str, recorded: Mapping[str, Any]) -> str | None:
    """What is wrong with a table, measured against what the last checkpoint recorded (None:
    the file begins with exactly the bytes it recorded; rows after them belong to a batch
    that was never checkpointed).

    Args:
        run_dir: the run directory.
        name: the table's file name.
        recorded: the checkpoint's `files` entry of the table.
    """
    path = run_dir / name
    if not path.exists():
        return f"{path}: missing (the checkpoint counts {recorded.get('rows')} rows)"
    size = path.stat().st_size
    want = recorded.get("bytes")
    if not isinstance(want, int) or size < want:
        return (f"{path}: {size} bytes, fewer than the {want} the checkpoint recorded "
                f"(it counts {recorded.get('rows')} rows): truncated")
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        left = want
        while left:
            chunk = fh.read(min(1 << 20, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    if h.hexdigest() != recorded.get("sha256"):
        return (f"{path}: its rows differ from those the checkpoint recorded (SHA-256 "
                f"mismatch over its first {want} bytes): changed or damaged")
    return None


def check_table(run_dir: str | Path, name: str) -> None:
    """Refuse a table that does not hold what the run's last checkpoint recorded of it
    (nothing to check in a run without a checkpoint of this format, e.g. an older run).

    Args:
        run_dir: the run directory.
        name: the table (one of `CHECKED_TABLES`).

    Raises:
        ValueError: naming the table, what is wrong, and how to rebuild it.
    """
    run_dir = Path(run_dir)
    last = last_entry(run_dir / CHECKPOINT, CHECKPOINT_FORMAT, (CHECKPOINT_VERSION,))
    files = last.get("files") if isinstance(last, dict) else None
    if isinstance(files, dict) and isinstance(files.get(name), dict):
        problem = table_problem(run_dir, name, files[name])
        if problem:
            raise ValueError(f"{problem}; `playstyles evolve {run_dir / CONFIG} --resume` "
                             f"rebuilds the run's tables from its checkpoint")


def config_diff(a: Any, b: Any, prefix: str = "") -> list[str]:
    """Key paths where two resolved configs differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            out += config_diff(a.get(k), b.get(k), f"{prefix}.{k}" if prefix else str(k))
        return out
    return [] if a == b else [prefix or "(config)"]


RESUMED_KEYS = ("validate",)
"""Keys of a run config a resumed run may change (how the run is validated does not change
the run)."""


def config_problem(run_dir: str | Path, started: Mapping[str, Any] | None = None
                   ) -> str | None:
    """What is wrong with a run directory's config.yaml, measured against the resolved config
    its checkpoint recorded when the run started (None: it holds that config, or the run
    recorded none, e.g. an older run).

    Args:
        run_dir: the run directory.
        started: the checkpoint's config (default: read from the checkpoint's header).
    """
    run_dir = Path(run_dir)
    if started is None:
        header = log_header(run_dir / CHECKPOINT, CHECKPOINT_FORMAT)
        started = header.get("config") if header else None
        if not isinstance(started, dict):
            return None
    path = run_dir / CONFIG
    if not path.is_file():
        return None
    data = read_yaml(path)
    if not isinstance(data, dict):
        return f"{path}: not a run config"
    # (a key config.yaml does not hold is one an older version did not write)
    diff = [d for k in started if k not in RESUMED_KEYS and k in data
            for d in config_diff(started[k], data[k], str(k))]
    if not diff:
        return None
    keys = ", ".join(d if len(d) <= 80 and d.isprintable() else short(d) for d in diff[:8])
    return (f"{path}: not the config the run was started with (differs in: {keys}"
            f"{', ...' if len(diff) > 8 else ''}; {CHECKPOINT} records the one it started "
            f"with); put it back, or start a new run in another directory (--out)")


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
            path = self.dir / CONFIG
            data = read_yaml(path)
            if not isinstance(data, dict):
                raise ValueError(f"{path}: not a run config")
            self._cache["config"] = data
        return self._cache["config"]

    def table(self, name: str) -> pd.DataFrame | None:
        """A CSV of the run directory, or None when it is absent or empty; read once
        (`read_table`) and checked once (`check_schema`; and the tables the last checkpoint
        recorded against it, `check_table`): an unreadable or inconsistent table is one
        ValueError naming the file (and the line and column)."""
        if name not in self._cache:
            frame = read_table(self.dir / name, empty_ok=True) if self.has(name) else None
            if frame is not None:  # its rows first: an error names the line and column
                check_schema(self, name, frame)
            if "checked" not in self._cache:  # every table, once: a damaged one is refused
                for checked in CHECKED_TABLES:
                    check_table(self.dir, checked)
                self._cache["checked"] = True
            self._cache[name] = frame
        return self._cache[name]

    def json(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the run directory, or None when it is absent; read once and checked
        once (validation_summary.json: `check_summary`)."""
        if name not in self._cache:
            p = self.dir / name
            data = read_json(p) if p.exists() else None
            if p.exists() and name == VALIDATION_SUMMARY:
                check_summary(self, data)
            self._cache[name] = data
        return self._cache[name]

    def check(self, *names: str) -> "RunFiles":
        """Read and check files of the run directory now, before a command writes anything:
        config.yaml's grid and each named file that exists (default `TOOL_INPUTS`, what
        `report`, `validate` and `export` read). Each file is checked once per `RunFiles`.

        Args:
            names: file names of this module (tables and validation_summary.json).

        Raises:
            ValueError: naming the file (and the line and column) of the first problem; a
                config.yaml that is not the config the run's checkpoint recorded.
        """
        problem = config_problem(self.dir)
        if problem is not None:
            raise ValueError(problem)
        self.axes
        for name in names or TOOL_INPUTS:
            if name.endswith(".json"):
                self.json(name)
            else:
                self.table(name)
        return self

    # ------------------------------------------------------------------ derived views
    @property
    def name(self) -> str:
        return str(self.config.get("name") or self.dir.name)

    @property
    def axes(self) -> list[Axis]:
        """The grid's axes, in config order (config.yaml's `features`, checked: a name, a
        range [lo, hi] with lo < hi, a positive width)."""
        if "axes" not in self._cache:
            self._cache["axes"] = config_axes(self.config, self.dir / CONFIG)
        return self._cache["axes"]

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


def _pct(x: Any) -> str:
    return number_text(x, True)


def current_styles(summary: Mapping[str, Any] | None) -> bool:
    """Whether a validation counted its styles as docs/styles.md says (summary version 3: a
    minimum effect on common games); earlier ones counted them otherwise."""
    return styles_counted(summary) and (summary or {}).get("version", 0) >= 3


def headline(summary: Mapping[str, Any]) -> str:
    """The validation's one-line verdict: how many styles held up at which minimum effect,
    how well one game names them, how many play within the margin of the control, and the
    null baseline's count."""
    k = summary.get("distinct_styles")
    if k is None:  # a validation written before styles were counted
        return (f"{summary.get('elites', 0)} elites validated (distinct styles not counted: "
                f"validate again)")
    played = set(summary.get("levels") or [])
    train = set(summary.get("levels_overlap_training") or [])
    levels = ("held-out levels" if not train else
              "the run's training levels on fresh seeds" if played <= train else
              f"held-out and training levels ({len(train)} of {len(played)} training)")
    of = (f"of {summary['elites']} elite{'s' if summary['elites'] != 1 else ''}, "
          f"{summary['games_per_elite']} games each")
    if not current_styles(summary):
        return (f"{k} distinct style{'s' if k != 1 else ''} on {levels} ({of}), counted by "
                f"the earlier statistics (no minimum effect): validate again to count them "
                f"as docs/styles.md says")
    st = summary["styles"]
    text = (f"{k} style{'s' if k != 1 else ''} at least {st['delta']:g} sd apart on {levels} "
            f"({of}, the same games for all)")
    ident = st.get("identification")
    if ident:
        text += f"; one game names the style {_pct(ident['accuracy'])} (chance {_pct(ident['chance'])})"
    if summary.get("distinct_styles_non_inferior") is not None:
        m = st["margin"]
        text += (f"; {summary['distinct_styles_non_inferior']} of {k} within "
                 + (f"{100 * m:g} points of the control's win rate" if st["quality"] != "score"
                    else f"{100 * m:g}% of the control's mean score") + " (non-inferior)")
    if summary.get("null_distinct_styles") is not None:
        text += f"; null baseline {summary['null_distinct_styles']}"
    return text


def styles_text(summary: Mapping[str, Any]) -> list[str]:
    """What the style count means, its tests, the counts at each minimum effect, ties,
    duplicates, identification, the control and the null baseline, in lines."""
    st = summary.get("styles")
    if not st or not current_styles(summary):
        return []
    feats = summary.get("features") or []
    sd = st.get("sd") or {}
    lines = [f"A style counts when every pair of counted styles differs by more than "
             f"{st['delta']:g} per-game standard deviation{'s' if st['delta'] != 1 else ''} in at "
             f"least one of " + ", ".join(f"{f} (sd {number_text(sd.get(f))})" for f in feats)
             + f", on the same {st['games']} games (paired by game, blocked by level; Holm over the "
             f"{st['pairs_tested']} pair-and-feature tests, family-wise error "
             f"{100 * st['alpha']:.0f}%; docs/styles.md). {st['pairs_differing']} of the "
             f"{st['pairs_tested']} tests found such a difference.",
             "Styles by minimum effect: " + ", ".join(
                 f"{n} at {d} sd" for d, n in st["counts"].items()) + "."]
    ties = st.get("ties") or {}
    if ties.get("count") is not None and ties["count"] > 1:
        share = ", ".join(f"[{c}] {_pct(v)}" for c, v in sorted(
            ties["share"].items(), key=lambda kv: -kv[1]))
        lines.append(f"{ties['count']} sets of {summary['distinct_styles']} tie; the one of "
                     f"highest summed win rate is counted. Share of the tied sets: {share}.")
    for group in st.get("duplicates") or []:
        lines.append(f"[{'], ['.join(group)}] played identical games: one style.")
    ident = st.get("identification")
    if ident:
        per = ", ".join(f"[{c}] {_pct(v)}" for c, v in ident["per_style"].items())
        lines.append(f"One game names the style {_pct(ident['accuracy'])} of the time (chance "
                     f"{_pct(ident['chance'])}; {ident['games']} games, "
                     f"{len(ident['features'])} features, leaving one level out): {per}.")
    c = summary.get("control")
    if c:
        score = st.get("quality") == "score"
        key, name, pct = ("mean_score", "mean score", False) if score else \
            ("win_rate", "win rate", True)
        lo, hi = c[f"{key}_ci"]
        lines.append(f"Control (default weights), on the same games: {name} "
                     f"{number_text(c[key], pct)} ({number_text(lo, pct)} to "
                     f"{number_text(hi, pct)}, {c['games']} games).")
        ni = st.get("non_inferiority") or {}
        m = st["margin"]
        rule = (f"{100 * m:g} points of win rate" if not score
                else f"{100 * m:g}% of the control's mean score")
        parts = []
        for k, v in ni.items():
            verdict = "non-inferior" if v["non_inferior"] else "not shown non-inferior"
            need = (f" ({v['games_needed']} games per genome give 80% power if it plays as "
                    f"well as the control)" if not v["non_inferior"] and v.get("games_needed")
                    else "")
            parts.append(f"[{k}] {number_text(v['difference'], pct)} (bound "
                         f"{number_text(v['lower'], pct)}) {verdict}{need}")
        lines.append(f"Against the control (paired, one-sided 95% bound, margin {rule}): "
                     + "; ".join(parts) + ".")
        diff = [k for k, v in st["differs_from_control"].items() if v]
        lines.append(f"Styles that differ from the control by more than {st['delta']:g} sd in "
                     f"a feature: {len(diff)} of {len(st['styles'])}"
                     + (f" ([{'], ['.join(diff)}])" if diff else "") + ".")
    null = st.get("null")
    if null:
        lines.append(f"Null baseline ({len(null['genomes'])} fixed genomes, no evolution, the "
                     f"same games): " + ", ".join(f"{n} at {d} sd"
                                                  for d, n in null["counts"].items()) + ".")
    return lines


# ------------------------------------------------------------------------------ reading and checking
# Every table of a run directory is read by `read_table` and checked once by `check_schema` when
# `RunFiles` first loads it: a damaged or foreign file is one ValueError naming the file, and
# the line (the header is line 1) and the column of the first bad value, never a traceback nor
# a number out of range that turns into a nonsense figure further on.

MAX_TABLE_BYTES = 2 * 1024 ** 3
"""The largest table `read_table` loads (2 GiB). A run writes far less: games.csv, its largest
table, grows by well under a kilobyte per game (2 GiB is millions of games); the cap keeps a
damaged or foreign file from filling the memory before it is even parsed."""

TOOL_INPUTS = (ELITES, METRICS, VALIDATION, VALIDATION_SUMMARY)
"""What `report`, `validate` and `export` read, checked before they write anything
(`RunFiles.check`). individuals.csv, games.csv and validation_games.csv are checked whenever
they are loaded."""

_WEIGHT_RANGE = (0.0, 1.0)
"""Where a genome's weights lie (the emitters' bounds; config.yaml's `emitter.values`, the
weight grid, lie within it)."""


def read_table(path: str | Path, *, max_bytes: int = MAX_TABLE_BYTES,
               empty_ok: bool = False) -> pd.DataFrame | None:
    """A CSV table, or one ValueError naming the file: too large, unreadable, not UTF-8 (with
    the line), not a valid CSV table (with the line pandas reports), or empty.

    Args:
        path: the CSV file.
        max_bytes: the largest file read (checked before loading).
        empty_ok: return None for a file with no header (how a run writes an archive without
            elites) instead of an error.
    """
    import warnings
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror or e}") from None
    if size > max_bytes:
        raise ValueError(f"{path}: {size} bytes, more than the {max_bytes} bytes a table of a "
                         f"run directory is read up to")
    try:
        with warnings.catch_warnings():
            # rows with more fields than the header would silently lose data: an error
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, index_col=False, encoding="utf-8")
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_first_undecodable(path)}") from None
    except pd.errors.EmptyDataError:
        if empty_ok:
            return None
        raise ValueError(f"{path}: empty (no header line)") from None
    except pd.errors.ParserError as e:
        why = str(e).strip().removeprefix("Error tokenizing data. C error: ")
        raise ValueError(f"{path}: not a valid CSV table: {why}") from None
    except pd.errors.ParserWarning:
        raise ValueError(f"{path}: not a valid CSV table: {_first_long_row(path)}") from None


def _first_undecodable(path: Path) -> str:
    """Where a file stops being UTF-8 text, in words (the error path only; the file's size
    was checked)."""
    return decoding_problem(path.read_bytes())


def _first_long_row(path: Path) -> str:
    """The first row with more fields than the header, in words (the error path only)."""
    import csv
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh)
        header = next(rows, [])
        for row in rows:
            if len(row) > len(header):
                return (f"line {rows.line_num}: {len(row)} fields, the header has "
                        f"{len(header)}")
    return "rows with more fields than the header"


def config_axes(config: Mapping[str, Any], source: str | Path = CONFIG) -> list[Axis]:
    """The grid's axes of a resolved config (`features`: name, range [lo, hi], width),
    checked; errors name `source` and the feature.

    Args:
        config: the mapping read from config.yaml.
        source: the file it was read from (named in errors).
    """
    feats = config.get("features")
    if not feats:
        raise ValueError(f"{source}: no features")
    if not isinstance(feats, list):
        raise ValueError(f"{source}: features: a list expected, got {feats!r}")
    out = []
    for k, f in enumerate(feats):
        where = f"{source}: features[{k}]"
        if not isinstance(f, Mapping) or not isinstance(f.get("name"), str) or not f["name"]:
            raise ValueError(f"{where}: a feature with a name, range and width expected, "
                             f"got {f!r}")
        where = f"{source}: feature {f['name']}"
        rng, width = f.get("range"), f.get("width")
        try:
            lo, hi = (float(v) for v in rng)
            width = float(width)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: range [lo, hi] and width expected, got range {rng!r}, "
                             f"width {width!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"{where}: range [lo, hi] with lo < hi expected, got {rng!r}")
        if not (math.isfinite(width) and width > 0):
            raise ValueError(f"{where}: a positive width expected, got {width!r}")
        out.append(Axis(f["name"], lo, hi, width))
    return out


class _Rows:
    """A table under check: errors name its file, the line (the header is line 1) and the
    column of the first bad row, and how many more rows share the problem.

    Args:
        path: the table's file.
        frame: its rows, as read.
    """

    def __init__(self, path: Path, frame: pd.DataFrame) -> None:
        self.path = path
        self.frame = frame

    def has(self, column: str) -> bool:
        return column in self.frame.columns

    def require(self, columns: Iterable[str], why: str = "") -> None:
        """Every column present, else an error naming the first missing one."""
        missing = [c for c in columns if c not in self.frame.columns]
        if missing:
            more = f" (nor {', '.join(map(repr, missing[1:]))})" if len(missing) > 1 else ""
            raise ValueError(f"{self.path}: no column {missing[0]!r}{more}{why}")

    def fail(self, bad: np.ndarray, column: str, problem: str, note: str = "") -> None:
        """An error at the first row where `bad` holds (nothing when none does).

        Args:
            bad: one flag per row.
            column: the column at fault.
            problem: what is wrong with its value (after the value, `is outside [0, 1]`).
            note: said after the rows counted (the likely cause).
        """
        rows = np.flatnonzero(np.asarray(bad, dtype=bool))
        if not len(rows):
            return
        i = int(rows[0])
        value = self.frame[column].iloc[i]
        shown = "no value" if _missing(value) else f"{value} {problem}"
        more = (f" (and {len(rows) - 1} more row{'s' if len(rows) > 2 else ''})"
                if len(rows) > 1 else "")
        raise ValueError(f"{self.path}: line {i + 2}, column {column!r}: {shown}{more}{note}")

    def numbers(self, column: str, *, lo: float | None = None, hi: float | None = None,
                whole: bool = False, missing_ok: bool = False) -> np.ndarray:
        """A column as floats, checked: numbers, finite, present (unless `missing_ok`),
        whole numbers (`whole`) within [lo, hi]. An absent column reads as NaN (`require`
        decides which must be there).

        Args:
            column: the column.
            lo: the least value allowed.
            hi: the largest value allowed.
            whole: integers only.
            missing_ok: empty cells allowed (they read as NaN).
        """
        if column not in self.frame.columns:
            return np.full(len(self.frame), np.nan)
        raw = self.frame[column]
        if raw.dtype == bool:
            raw = raw.astype(float)
        x = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        nan = np.isnan(x)
        self.fail(nan & raw.notna().to_numpy(), column, "is not a number")
        if not missing_ok:
            self.fail(nan, column, "")
        self.fail(np.isinf(x), column, "is not finite")
        if whole:
            self.fail(~nan & (np.mod(x, 1) != 0), column, "is not a whole number")
        span = f"[{_num(lo)}, {_num(hi)}]" if lo is not None and hi is not None else \
            f">= {_num(lo)}" if lo is not None else f"<= {_num(hi)}"
        if lo is not None:
            self.fail(~nan & (x < lo), column, f"is outside {span}" if hi is not None
                      else "is negative" if lo == 0 else f"is below {_num(lo)}")
        if hi is not None:
            self.fail(~nan & (x > hi), column, f"is outside {span}")
        return x

    def within(self, column: str, bound: np.ndarray, *, above: bool, words: str) -> None:
        """Each value at most (or at least, `above`) its row's bound (`wins` within `games`)."""
        x = self.numbers(column, missing_ok=True)
        bad = ~np.isnan(x) & ~np.isnan(bound) & ((x < bound) if above else (x > bound))
        self.fail(bad, column, words)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _num(x: float | None) -> str:
    return f"{x:g}" if x is not None else ""


def _grid_text(axes: Sequence[Axis]) -> str:
    """The grid of config.yaml in words: `research_slope: 4 bins of 0.25 from 0`."""
    return "; ".join(f"{a.name}: {a.bins} bin{'s' if a.bins != 1 else ''} of {a.width:g} "
                     f"from {a.lo:g}" for a in axes)


def _mismatch(bad: np.ndarray, what: str = ELITES) -> str:
    """The cause of a row off the config's grid: config.yaml when every row is, else either."""
    if np.asarray(bad, dtype=bool).all():
        return f": {CONFIG} does not match {what}"
    return f": {CONFIG} does not match {what}, or the row is damaged"


def _cells(rows: _Rows, column: str, axes: Sequence[Axis], *, config: bool) -> np.ndarray:
    """A `grid_index` column as (rows x features) integer coordinates, each within its axis.

    Args:
        rows: the table.
        column: `grid_index` or `validated_grid_index`.
        axes: the grid of config.yaml.
        config: whether a coordinate off the grid may mean that config.yaml changed (the
            elites' own cells), or only a damaged row.
    """
    text = rows.frame[column].astype(str).str.strip()
    parts = text.str.count(",").to_numpy() + 1
    note = _mismatch(parts != len(axes)) if config else ""
    rows.fail(parts != len(axes), column,
              f"is not one coordinate per feature of the grid of {CONFIG} "
              f"({', '.join(a.name for a in axes)})", note)
    if len(rows.frame) == 0:
        return np.zeros((0, len(axes)), dtype=int)
    split = text.str.split(",", expand=True)
    values = np.column_stack([pd.to_numeric(split[j], errors="coerce").to_numpy(dtype=float)
                              for j in range(len(axes))])
    rows.fail(np.isnan(values).any(axis=1) | (np.mod(values, 1) != 0).any(axis=1), column,
              "is not a cell's coordinates (whole numbers separated by commas)")
    bins = np.array([a.bins for a in axes])
    off = ((values < 0) | (values >= bins)).any(axis=1)
    note = _mismatch(off) if config else ""
    rows.fail(off, column, f"is off the grid of {CONFIG} ({_grid_text(axes)})", note)
    return values.astype(int)


def cell_keys(labels: Iterable[Any]) -> list[tuple[float, ...] | str]:
    """Cell labels as comparable keys (`1.7:0.55` and `1.70:0.550` are one cell): their bin
    edges as numbers; a label that is not numbers stays text.

    Args:
        labels: cell labels (elites.csv `cell`, or as a user typed them).
    """
    return _cell_keys(pd.Series(list(labels), dtype=object))


def _cell_keys(labels: pd.Series) -> list[tuple[float, ...] | str]:
    """Cell labels (`0.25:0`) as comparable keys, their bin edges as numbers: a label reads
    back from a CSV table as text, or as a number in a one-feature grid (`1` or `1.0`). A
    label that is not numbers stays text."""
    text = labels.astype(str).str.strip()
    parts = text.str.split(":", expand=True) if len(text) else pd.DataFrame(index=text.index)
    edges = np.column_stack([pd.to_numeric(parts[j], errors="coerce").to_numpy(dtype=float)
                             for j in parts.columns]) if parts.shape[1] else \
        np.zeros((len(text), 0))
    edges = np.round(edges, 9)
    return [t if np.isnan(e).any() else tuple(e.tolist()) for t, e in zip(text, edges)]


def _check_grid(rows: _Rows, axes: Sequence[Axis]) -> None:
    """elites.csv against config.yaml's grid: every elite's `grid_index` on the grid, its
    `index` the flat index of that cell (as pyribs numbers them), its `cell` label the lower
    bin edges, and its measures inside the cell (clipped at the grid's ends, as the archive
    clips) - config.yaml reproduces the cells of elites.csv; and no cell twice."""
    coords = _cells(rows, "grid_index", axes, config=True)
    n = len(coords)
    dims = [a.bins for a in axes]
    flat = np.ravel_multi_index(coords.T, dims) if n else np.zeros(0, dtype=int)
    index = rows.numbers("index", lo=0, whole=True)
    bad = index != flat
    rows.fail(bad, "index", f"is not the index of its grid_index on the grid of {CONFIG} "
                            f"({' x '.join(map(str, dims))} cells)", _mismatch(bad))
    text = rows.frame["cell"].astype(str).str.strip()
    parts = text.str.count(":").to_numpy() + 1
    rows.fail(parts != len(axes), "cell", f"is not a label of {len(axes)} bin edges "
                                          f"(lower edges separated by colons)",
              _mismatch(parts != len(axes)))
    label = text.str.split(":", expand=True) if n else pd.DataFrame(columns=range(len(axes)))
    for j, a in enumerate(axes):
        m = rows.numbers(measure_column(a.name))
        c = coords[:, j]
        lower = a.lo + c * a.width
        tol = 1e-6 * a.width
        off = ((c > 0) & (m < lower - tol)) | ((c < a.bins - 1) & (m > lower + a.width + tol))
        rows.fail(off, measure_column(a.name),
                  f"is not in the bin of {a.name} grid_index gives it (bins of {a.width:g} "
                  f"from {a.lo:g})", _mismatch(off))
        edge = pd.to_numeric(label[j], errors="coerce").to_numpy(dtype=float)
        wrong = ~np.isclose(edge, lower, rtol=1e-5, atol=1e-9 * a.width)
        rows.fail(wrong, "cell", f"does not name the lower edges of its grid_index's bins on "
                                 f"the grid of {CONFIG}", _mismatch(wrong))
    again = pd.Series(flat).duplicated().to_numpy()
    rows.fail(again, "grid_index", "is a cell already taken by an earlier row (one elite per "
                                   "cell)")


def _weights(run: "RunFiles", rows: _Rows, names: Sequence[str]) -> None:
    """The genome's weights within the emitters' bounds (widened to config.yaml's
    `emitter.values`, the weight grid, should it reach further)."""
    lo, hi = _WEIGHT_RANGE
    values = (run.config.get("emitter") or {}).get("values")
    if isinstance(values, list) and values and all(isinstance(v, (int, float)) for v in values):
        lo, hi = min(lo, *values), max(hi, *values)
    for name in names:
        rows.numbers(name, lo=lo, hi=hi)


def _quality(rows: _Rows) -> None:
    """win_rate a proportion, games a count, wins within games, the win-rate interval a pair
    of proportions (elites.csv, individuals.csv)."""
    rows.numbers("win_rate", lo=0, hi=1)
    games = rows.numbers("games", lo=0, whole=True)
    rows.numbers("wins", lo=0)
    rows.within("wins", games, above=False, words="is more than the row's games")
    for c in WIN_RATE_CI:
        rows.numbers(c, lo=0, hi=1, missing_ok=True)
    if rows.has(WIN_RATE_CI[0]) and rows.has(WIN_RATE_CI[1]):
        rows.within(WIN_RATE_CI[1], rows.numbers(WIN_RATE_CI[0], missing_ok=True), above=True,
                    words=f"is below {WIN_RATE_CI[0]}")


def _check_elites(run: "RunFiles", rows: _Rows) -> None:
    """elites.csv: its columns, quality, weights, and its cells against config.yaml's grid."""
    axes = run.axes
    scripts = run.genome_scripts
    measures = [measure_column(a.name) for a in axes]
    rows.require([*CELL_COLUMNS, *QUALITY_COLUMNS])
    rows.require(measures, f" (a measure of each feature of {CONFIG}'s grid: "
                           f"{', '.join(a.name for a in axes)})")
    if scripts is not None:
        rows.require(weight_columns(scripts), f" (a weight of each of {CONFIG}'s "
                                              f"{GENOME_SCRIPTS})")
    _quality(rows)
    rows.numbers("mean_score")
    rows.numbers("objective")
    for c in FOUND_COLUMNS:
        rows.numbers(c, lo=0, whole=True)
    _weights(run, rows, run.weight_columns(rows.frame))
    _check_grid(rows, axes)


def _check_individuals(run: "RunFiles", rows: _Rows) -> None:
    """individuals.csv: when each genome was evaluated, its status, weights, quality and
    measures."""
    axes = run.axes
    scripts = run.genome_scripts
    rows.require([*FOUND_COLUMNS, *QUALITY_COLUMNS[:3]])
    rows.require([measure_column(a.name) for a in axes],
                 f" (a measure of each feature of {CONFIG}'s grid)")
    if scripts is not None:
        rows.require(weight_columns(scripts), f" (a weight of each of {CONFIG}'s "
                                              f"{GENOME_SCRIPTS})")
        _weights(run, rows, scripts)
    for c in FOUND_COLUMNS:
        rows.numbers(c, lo=0, whole=True)
    if rows.has("status"):
        status = rows.frame["status"].astype(str)
        rows.fail(~status.isin(STATUS).to_numpy(), "status",
                  f"is not one of {', '.join(STATUS)}")
    _quality(rows)
    for a in axes:
        rows.numbers(measure_column(a.name))


_METRIC_COUNTS = ("batch", "evaluations", "games", "cells", "new_cells", "improved",
                  "batch_size", "workers", "reused_games", "workers_alive", "nodes_alive",
                  "retries", "replays")
_METRIC_SHARES = ("coverage", "best_win_rate", "mean_win_rate")
_METRIC_REQUIRED = ("batch", "evaluations", "cells", "qd_score", "best_win_rate")


def _check_metrics(run: "RunFiles", rows: _Rows) -> None:
    """metrics.csv: counts, shares, and `coverage` against the size of config.yaml's grid."""
    rows.require(_METRIC_REQUIRED)
    for c in _METRIC_COUNTS:
        rows.numbers(c, lo=0, whole=True, missing_ok=c not in _METRIC_REQUIRED)
    for c in _METRIC_SHARES:
        rows.numbers(c, lo=0, hi=1, missing_ok=c not in _METRIC_REQUIRED)
    rows.numbers("qd_score", lo=0)
    if rows.has("coverage") and len(rows.frame):  # cells / coverage: the grid's size
        cells, cover = rows.numbers("cells"), rows.numbers("coverage", missing_ok=True)
        grid = math.prod(a.bins for a in run.axes)
        counted = ~np.isnan(cover) & (cover > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            off = counted & ~np.isclose(cells / cover, grid, rtol=1e-6)
        rows.fail(off, "coverage", f"is not cells over the {grid} cells of the grid of "
                                   f"{CONFIG} ({_grid_text(run.axes)})",
                  _mismatch(off[counted], METRICS))


def _check_games(run: "RunFiles", rows: _Rows) -> None:
    """games.csv: which genome and game each row is, and the genome's share of first place."""
    rows.require(("batch", "evaluation", "game"))
    for c in ("batch", "evaluation", "game"):
        rows.numbers(c, lo=0, whole=True)
    for c in ("replay", "rounds"):
        rows.numbers(c, lo=0, whole=True, missing_ok=True)
    rows.numbers("genome_won", lo=0, hi=1, missing_ok=True)


def _check_validation(run: "RunFiles", rows: _Rows) -> None:
    """validation.csv: rows (a header alone is a damaged file), win rates, games, wins, cells
    on the grid, and each elite validated an elite of elites.csv, once."""
    axes = run.axes
    wr, games, wins = (validated_column(c) for c in ("win_rate", "games", "wins"))
    rows.require([*CELL_COLUMNS, wr, games, *WIN_RATE_CI])
    if rows.frame.empty:  # a validation writes a row for each elite it played
        raise ValueError(f"{rows.path}: holds a header but no rows (a validation writes one "
                         f"for each elite it played): validate again (playstyles validate "
                         f"{command_path(run.dir)})")
    rows.numbers(wr, lo=0, hi=1)
    n = rows.numbers(games, lo=0, whole=True)
    rows.numbers(wins, lo=0, missing_ok=True)
    rows.within(wins, n, above=False, words=f"is more than the row's {games}")
    rows.numbers(evolved_column("win_rate"), lo=0, hi=1, missing_ok=True)
    rows.numbers(evolved_column("games"), lo=0, whole=True, missing_ok=True)
    for c in WIN_RATE_CI:
        rows.numbers(c, lo=0, hi=1, missing_ok=True)
    for c in ("cell_distance", "style"):
        rows.numbers(c, lo=0, whole=True, missing_ok=True)
    for c in rows.frame.columns:
        if c.startswith(MEASURE_PREFIX):
            rows.numbers(c, missing_ok=True)
    _cells(rows, "grid_index", axes, config=False)
    if rows.has("validated_grid_index"):
        _cells(rows, "validated_grid_index", axes, config=False)
    index = rows.numbers("index", lo=0, whole=True)
    again = pd.Series(index).duplicated().to_numpy()
    rows.fail(again, "index", "is an elite validated twice")
    elites = run.elites  # checked first: the elites validated must be in it
    if elites.empty:
        rows.fail(np.ones(len(index), dtype=bool), "index", f"is not an elite of {ELITES} "
                  f"(it has none): validate again")
        return
    known = pd.Series(_cell_keys(elites["cell"]), index=elites["index"].astype(int).to_numpy())
    present = np.isin(index, known.index.to_numpy())
    rows.fail(~present, "index", f"is not an elite of {ELITES}: validate again")
    cell = pd.Series(_cell_keys(rows.frame["cell"]))
    rows.fail((cell != known.reindex(index.astype(int)).reset_index(drop=True)).to_numpy(),
              "cell", f"is not the cell of the row's index in {ELITES}")


def _check_validation_games(run: "RunFiles", rows: _Rows) -> None:
    """validation_games.csv: the game numbers and the elite's share of first place."""
    rows.require(("cell", "game"))
    rows.numbers("game", lo=0, whole=True)
    rows.numbers("index", lo=-1, whole=True, missing_ok=True)  # -1: the control
    rows.numbers("rounds", lo=0, whole=True, missing_ok=True)
    rows.numbers("elite_won", lo=0, hi=1, missing_ok=True)


_TABLE_CHECKS = {ELITES: _check_elites, INDIVIDUALS: _check_individuals, METRICS: _check_metrics,
                 GAMES: _check_games, VALIDATION: _check_validation,
                 VALIDATION_GAMES: _check_validation_games}


def check_schema(run: "RunFiles", name: str, frame: pd.DataFrame) -> None:
    """Check a table of a run directory against the schema and config.yaml: the columns the
    readers need, then the values (vectorised): proportions in [0, 1], counts whole and not
    negative, wins within games, measures and weights finite and in range; elites.csv's cells
    on config.yaml's grid (config.yaml reproduces them) and each once; validation.csv's
    elites in elites.csv. A table of another name is not checked.

    Args:
        run: the run directory (its config.yaml, and elites.csv for validation.csv).
        name: the table's file name (`ELITES`, ...).
        frame: the table as read.

    Raises:
        ValueError: naming the file, and the line and column of the first bad value.
    """
    check = _TABLE_CHECKS.get(name)
    if check is not None:
        check(run, _Rows(run.path(name), frame.reset_index(drop=True)))


def _keys(node: Any) -> list[Any]:
    """The keys of a JSON object, or the items of a JSON list; nothing for anything else."""
    return list(node) if isinstance(node, (dict, list)) else []


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words (for an error that says what was found instead)."""
    return ("null" if value is None else "an object" if isinstance(value, dict) else
            "an array" if isinstance(value, list) else "a string" if isinstance(value, str)
            else "a number or true/false")


_SUMMARY_OBJECTS = (
    "styles", "styles.sd", "styles.counts", "styles.styles_by_delta", "styles.ties",
    "styles.ties.share", "styles.differs_from_control", "styles.weaker_than_control",
    "styles.non_inferiority", "styles.non_inferiority.*", "styles.identification",
    "styles.identification.per_style", "styles.null", "styles.null.counts", "control",
    "control.genome", "control.features", "control.features.*", "spearman", "corrected",
    "mean_abs_gap", "by_level_group", "by_level_group.*", "settings")
"""validation_summary.json: the keys that hold an object (or null), `*` any key there."""
_SUMMARY_LISTS = (
    "levels", "levels_overlap_training", "cells", "features", "styles.styles",
    "styles.styles_by_delta.*", "styles.duplicates", "styles.duplicates.*",
    "styles.identification.features", "styles.null.genomes", "styles.null.styles")
"""... an array (or null)."""
_SUMMARY_PAIRS = ("control.win_rate_ci", "control.mean_score_ci", "control.features.*.ci")
"""... an array of two numbers, a 95% interval (or null)."""
_SUMMARY_NAMES = ("cells.*", "features.*", "styles.styles.*", "styles.styles_by_delta.*.*",
                  "styles.duplicates.*.*", "styles.null.styles.*")
"""... a name: a cell or a feature."""
_SUMMARY_LEVELS = ("levels.*", "levels_overlap_training.*")
"""... a level: its seed or its name."""
_SUMMARY_WHOLE = (
    "version", "elites", "games_per_elite", "distinct_styles", "distinct_styles_not_weaker",
    "distinct_styles_non_inferior", "null_distinct_styles", "styles.pairs_tested",
    "styles.pairs_differing", "styles.games", "styles.tested", "styles.counts.*",
    "styles.ties.count", "styles.non_inferiority.*.games_needed", "styles.identification.games",
    "styles.null.counts.*", "control.games", "control.features.*.games", "corrected.cells",
    "corrected.cells_evolved", "by_level_group.*.games", "by_level_group.*.elites")
"""... a whole number >= 0."""
_SUMMARY_SHARES = (
    "same_cell_share", "neighbour_share", "mean_win_rate_evolved", "mean_win_rate_validated",
    "mean_abs_gap.win_rate", "styles.alpha", "styles.margin", "styles.ties.share.*",
    "styles.non_inferiority.*.power", "styles.identification.accuracy", "styles.identification.chance",
    "styles.identification.per_style.*", "control.win_rate", "control.win_rate_ci.*",
    "corrected.coverage", "corrected.coverage_evolved", "by_level_group.*.mean_win_rate",
    "by_level_group.*.mean_abs_gap_win_rate")
"""... a number in [0, 1]."""
_SUMMARY_POSITIVE = ("styles.delta", "styles.sd.*", "mean_abs_gap.*",
                     "styles.non_inferiority.*.margin")
"""... a number >= 0 (a style's margin is in the units of its quality: a share of first
place, or in a one-player game a score)."""
_SUMMARY_SIGNED = (
    "styles.non_inferiority.*.difference", "styles.non_inferiority.*.lower",
    "control.mean_score", "control.mean_score_ci.*", "control.features.*.mean",
    "control.features.*.ci.*", "control.genome.*", "corrected.qd_score",
    "corrected.qd_score_evolved")
"""... a number."""
_SUMMARY_CORRELATIONS = ("spearman.*",)
"""... a number in [-1, 1]."""
_SUMMARY_NOT_FINITE = (
    "styles.sd.*", "styles.non_inferiority.*.difference", "styles.non_inferiority.*.lower",
    "styles.non_inferiority.*.power", "styles.identification.per_style.*",
    "control.win_rate_ci.*", "control.mean_score", "control.mean_score_ci.*",
    "control.features.*.mean", "control.features.*.ci.*", "mean_abs_gap.*")
"""... of the numbers above, those that may also be NaN (a feature no game defined)."""


def check_summary(run: "RunFiles", summary: Any) -> None:
    """Check validation_summary.json: a mapping; every key the readers use of the type they
    use it as (an object, an array, a name, a number), its shares in [0, 1], its counts whole
    and not negative, the cells it names elites of elites.csv, and validation.csv holding the
    elites it counts (`_check_validated`).

    Args:
        run: the run directory.
        summary: the file's content.

    Raises:
        ValueError: naming the file and the key.
    """
    path = run.path(VALIDATION_SUMMARY)
    if not isinstance(summary, dict):
        raise ValueError(f"{path}: a JSON object expected, got {_json_kind(summary)}")

    def at(keys: tuple[Any, ...]) -> Any:
        node: Any = summary
        for part in keys:
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return None
        return node

    def find(pattern: str) -> list[tuple[Any, ...]]:
        """The keys a dotted pattern names (`*`: every key of an object or item of an
        array there)."""
        found: list[tuple[Any, ...]] = [()]
        for part in pattern.split("."):
            deeper: list[tuple[Any, ...]] = []
            for keys in found:
                node = at(keys)
                if part != "*":
                    deeper.append((*keys, part))
                elif isinstance(node, dict):
                    deeper += [(*keys, k) for k in node]
                elif isinstance(node, list):
                    deeper += [(*keys, i) for i in range(len(node))]
            found = deeper
        return found

    def get(key: str) -> Any:
        return at(tuple(key.split(".")))

    def fail(keys: tuple[Any, ...], value: Any, want: str) -> None:
        shown = _json_kind(value) if value is None or isinstance(value, (dict, list)) \
            else short(value)
        raise ValueError(f"{path}: {'.'.join(map(str, keys))}: {shown} is not {want}")

    def each(patterns: Sequence[str], ok: Any, want: str) -> None:
        for pattern in patterns:
            for keys in find(pattern):
                v = at(keys)
                if v is not None and not ok(v):
                    fail(keys, v, want)

    def number(key: str, lo: float | None = 0, hi: float | None = None,
               whole: bool = False) -> None:
        for keys in find(key):
            v = at(keys)
            if v is None:
                continue
            finite = not isinstance(v, float) or math.isfinite(v)
            if not finite and key in _SUMMARY_NOT_FINITE:
                continue  # NaN: a value the games left undefined
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and finite \
                and (lo is None or v >= lo) and (hi is None or v <= hi) \
                and (not whole or isinstance(v, int) or v.is_integer())
            if not ok:
                want = "a whole number >= 0" if whole else \
                    f"a number in [{_num(lo)}, {_num(hi)}]" if hi is not None else \
                    "a number >= 0" if lo is not None else "a finite number"
                fail(keys, v, want)

    each(_SUMMARY_OBJECTS, lambda v: isinstance(v, dict), "an object")
    each(_SUMMARY_LISTS, lambda v: isinstance(v, list), "an array")
    each(_SUMMARY_PAIRS, lambda v: isinstance(v, list) and len(v) == 2,
         "an array of two numbers (a 95% interval)")
    each(_SUMMARY_NAMES, lambda v: isinstance(v, str), "a name (a string)")
    each(_SUMMARY_LEVELS, lambda v: isinstance(v, (str, int, float)), "a level (its seed or name)")
    for key in _SUMMARY_WHOLE:
        number(key, whole=True)
    for key in _SUMMARY_SHARES:
        number(key, hi=1)
    for key in _SUMMARY_POSITIVE:
        number(key)
    for key in _SUMMARY_SIGNED:
        number(key, lo=None)
    for key in _SUMMARY_CORRELATIONS:
        number(key, lo=-1, hi=1)
    named = [*_keys(get("cells")), *_keys(get("styles.styles")),
             *_keys(get("styles.differs_from_control")), *_keys(get("styles.weaker_than_control")),
             *_keys(get("styles.non_inferiority")), *_keys(get("styles.identification.per_style"))]
    if named:
        known = set(_cell_keys(run.elites["cell"])) if "cell" in run.elites else set()
        gone = [str(c) for c, key in zip(named, _cell_keys(pd.Series(named, dtype=object)))
                if key not in known]
        if gone:
            raise ValueError(f"{path}: cell {gone[0]} is not an elite's cell in {ELITES}"
                             + (f" (nor {len(gone) - 1} more)" if len(gone) > 1 else "")
                             + ": validate again")
    _check_validated(run, summary)


def _check_validated(run: "RunFiles", summary: Mapping[str, Any]) -> None:
    """validation.csv against validation_summary.json (checked): one row for each elite the
    summary counts (`elites`), and the cells it names (`cells`). A validation writes both
    files together, so a validation.csv that is missing, has no rows or other elites is
    damaged, not a run that was never validated.

    Raises:
        ValueError: naming validation.csv and how to write it again.
    """
    count, cells = summary.get("elites"), summary.get("cells")
    if count is None and cells is None:  # an early summary: nothing to compare
        return
    count = len(cells) if count is None else count
    table = run.path(VALIDATION)
    rows = run.validation
    n = 0 if rows is None else len(rows)
    again = f"validate again (playstyles validate {command_path(run.dir)})"
    if n != count:
        got = "is missing" if not table.exists() else "is empty" if n == 0 else \
            f"holds {n} row{'s' if n != 1 else ''}"
        raise ValueError(f"{table}: {got}, while {VALIDATION_SUMMARY} counts {count} validated "
                         f"elite{'s' if count != 1 else ''}: {again}")
    if cells is not None:
        mine = set(_cell_keys(rows["cell"])) if n else set()
        other = [str(c) for c, key in zip(cells, cell_keys(cells)) if key not in mine]
        if other:
            raise ValueError(f"{table}: no row for cell {other[0]}, which {VALIDATION_SUMMARY} "
                             f"counts as validated: {again}")
