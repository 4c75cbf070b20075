"""The run directory's reader: `read_table`, the one reader of every table (bounded, an error
naming the file and the line), and `RunFiles`, the files of one run directory, read lazily and
checked once each (`qd.rundir.check`, `qd.rundir.summary`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from base.files import decoding_problem, read_json, read_yaml
from qd.rundir.check import check_schema, check_table, config_problem
from qd.rundir.grid import Axis, config_axes, parse_grid_index
from qd.rundir.names import (
    CELL_COLUMNS,
    CHECKED_TABLES,
    CONFIG,
    ELITES,
    GAMES,
    INDIVIDUALS,
    METRICS,
    QUALITY_COLUMNS,
    VALIDATION,
    VALIDATION_GAMES,
    VALIDATION_SUMMARY,
    genome_scripts,
    stat_features,
    weight_columns,
)
from qd.rundir.summary import check_summary

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
        """A file of the run directory (a name of `qd.rundir.names`)."""
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
            names: file names of `qd.rundir.names` (tables and validation_summary.json).

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
