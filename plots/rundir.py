"""Reading a run directory for plotting: the grid, the elites and the progress log.

Plots read files only (config.yaml, elites.csv, metrics.csv, validation.csv, ...), never the
run's Python objects, so a run can be re-plotted years later, on another machine, without the
code that produced it. The grid geometry is recomputed here from the resolved config the same
way the run cut it: cells `width` wide from `lo`, a last partial step counting as a cell.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: elites.csv columns that are not script weights and not features
QUALITY_COLUMNS = ("win_rate", "wins", "games", "mean_score", "objective")


@dataclass(frozen=True)
class Axis:
    """One feature axis of the archive grid."""

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
    """The files of one run directory, read lazily; missing optional files read as None."""

    def __init__(self, run_dir: str | Path) -> None:
        self.dir = Path(run_dir)
        if not (self.dir / "config.yaml").exists():
            raise ValueError(f"{self.dir}: not a run directory (no config.yaml)")
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ raw files
    @property
    def config(self) -> dict[str, Any]:
        if "config" not in self._cache:
            import yaml
            data = yaml.safe_load((self.dir / "config.yaml").read_text())
            if not isinstance(data, dict):
                raise ValueError(f"{self.dir / 'config.yaml'}: not a run config")
            self._cache["config"] = data
        return self._cache["config"]

    def table(self, name: str) -> pd.DataFrame | None:
        """A CSV of the run directory, or None when it is absent or empty."""
        if name not in self._cache:
            p = self.dir / name
            frame = None
            if p.exists() and p.stat().st_size > 0:
                try:
                    frame = pd.read_csv(p)
                except pd.errors.EmptyDataError:
                    frame = None
            self._cache[name] = frame
        return self._cache[name]

    def json(self, name: str) -> dict[str, Any] | None:
        p = self.dir / name
        return json.loads(p.read_text()) if p.exists() else None

    # ------------------------------------------------------------------ derived views
    @property
    def name(self) -> str:
        return str(self.config.get("name") or self.dir.name)

    @property
    def axes(self) -> list[Axis]:
        out = []
        for f in self.config.get("features") or []:
            lo, hi = f["range"]
            out.append(Axis(str(f["name"]), float(lo), float(hi), float(f["width"])))
        if not out:
            raise ValueError(f"{self.dir / 'config.yaml'}: no features")
        return out

    @property
    def elites(self) -> pd.DataFrame:
        """elites.csv (an empty frame when the run has no elite yet)."""
        frame = self.table("elites.csv")
        return frame if frame is not None else pd.DataFrame()

    @property
    def metrics(self) -> pd.DataFrame | None:
        return self.table("metrics.csv")

    @property
    def validation(self) -> pd.DataFrame | None:
        return self.table("validation.csv")

    @property
    def validation_summary(self) -> dict[str, Any] | None:
        return self.json("validation_summary.json")

    def weight_columns(self, frame: pd.DataFrame | None = None) -> list[str]:
        """The script-weight columns of elites.csv: those between `index` and `win_rate`."""
        frame = self.elites if frame is None else frame
        cols = list(frame.columns)
        if "index" not in cols or "win_rate" not in cols:
            return []
        return cols[cols.index("index") + 1:cols.index("win_rate")]

    def grid_indices(self, frame: pd.DataFrame | None = None) -> np.ndarray:
        """(elites x features) integer cell coordinates, from the `grid_index` column."""
        frame = self.elites if frame is None else frame
        if frame.empty:
            return np.zeros((0, len(self.axes)), dtype=int)
        return np.array([[int(v) for v in str(g).split(",")] for g in frame["grid_index"]],
                        dtype=int)

    def feature_columns(self) -> list[str]:
        """Every registered feature that elites.csv reports (`<name>_mean` columns)."""
        return [c[:-5] for c in self.elites.columns if c.endswith("_mean") and c != "mean"]
