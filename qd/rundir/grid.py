"""The archive's grid as a run directory records it: its axes (config.yaml's `features`), a
cell's coordinates (elites.csv `grid_index`) and its label as a comparable key (`cell`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from qd.rundir.names import CONFIG

# ------------------------------------------------------------------------------ axes

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
