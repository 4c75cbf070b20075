"""The checks of a run directory's tables: against what its last checkpoint recorded
(`check_table`, `config_problem`), and against the schema and config.yaml's grid, once per load
(`check_schema`): each problem one ValueError naming the file, the line and the column.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from base.datalog import last_entry, log_header
from base.files import read_yaml
from base.limits import short
from qd.rundir.grid import Axis, _cell_keys
from qd.rundir.names import (
    CELL_COLUMNS,
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    CONFIG,
    ELITES,
    FOUND_COLUMNS,
    GAMES,
    GENOME_SCRIPTS,
    INDIVIDUALS,
    MEASURE_PREFIX,
    METRICS,
    QUALITY_COLUMNS,
    STATUS,
    VALIDATION,
    VALIDATION_GAMES,
    WIN_RATE_CI,
    command_path,
    evolved_column,
    measure_column,
    validated_column,
    weight_columns,
)

if TYPE_CHECKING:
    from qd.rundir.read import RunFiles

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


# ------------------------------------------------------------------------------ the tables' schema

_WEIGHT_RANGE = (0.0, 1.0)
"""Where a genome's weights lie (the emitters' bounds; config.yaml's `emitter.values`, the
weight grid, lie within it)."""


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
