"""Archive heatmaps in the style of the play-styles paper's Figure 1.

Only the inhabited part of the grid is drawn (from the lowest to the highest occupied bin of
each axis, empty cells inside it left blank), so a run that filled a corner of a large grid is
still readable. Axes are named by their features and ticked at the bin edges; every filled
cell is coloured by a field of its elite and annotated with the value, so the picture needs no
legend to be read. With more than two features the first two are drawn and each cell shows
the best elite (highest objective) over the other features.

Axes can carry each feature's doc and words (`axis_label`): the caller passes the labels,
since this module reads files only. A cell can be marked (a grey cross, `mark`): the report
marks the elites not told apart from the styles that held up on held-out levels.

`heatmap_data` computes what is drawn, `draw_heatmap` draws it: tests check the data.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from base.files import save_figure
from qd.rundir import (
    VALIDATED_SUFFIX,
    WIDE_INTERVAL,
    WIN_RATE_CI,
    Axis,
    RunFiles,
    evolved_column,
    validated_column,
)

PERCENT_FIELDS = ("win_rate", "coverage", validated_column("win_rate"), evolved_column("win_rate"))

FIELD_TITLES = {
    "win_rate": "win rate of the cell's elite",
    "mean_score": "mean final score of the cell's elite",
    "objective": "objective (win rate + score tie-break)",
    "evaluation": "evaluation at which the elite was found",
    "batch": "batch in which the elite was found",
    "games": "games played by the elite",
    validated_column("win_rate"): "win rate on held-out levels",
}


@dataclass
class Heatmap:
    """What one heatmap shows: values[row, col] (NaN = empty) over the inhabited bins."""

    field: str
    x: Axis
    y: Axis | None  # None for a one-feature archive (a single row)
    x_bins: list[int]  # grid indices shown along x
    y_bins: list[int]  # grid indices shown along y ([0] without a y axis)
    values: np.ndarray  # (len(y_bins), len(x_bins))
    text: list[list[str]]  # annotation of each cell ("" when empty)
    cells: list[list[str]]  # elites.csv `cell` label of each shown cell ("" when empty)
    elites: int = 0
    grid_cells: int = 0
    note: str = ""
    projected: list[str] = field(default_factory=list)  # features folded away (>2 features)
    games: np.ndarray | None = None  # games behind each shown value (NaN = empty), if known
    wide: np.ndarray | None = None  # whose win rate's 95% interval is wider than WIDE_INTERVAL
    marked: np.ndarray | None = None  # cells whose shown elite carries the mark (`mark`)
    x_label: str = ""  # the x axis's label (default: the feature's name)
    y_label: str = ""
    mark_label: str = ""  # what the mark means, for the title

    @property
    def marked_cells(self) -> list[str]:
        """The `cell` labels of the marked cells, row by row."""
        if self.marked is None:
            return []
        return [self.cells[r][c] for r, c in zip(*np.nonzero(self.marked))]

    def value_at(self, cell: str) -> float:
        """The shown value of a cell given by its elites.csv label."""
        for r, row in enumerate(self.cells):
            for c, label in enumerate(row):
                if label == cell:
                    return float(self.values[r, c])
        raise KeyError(cell)

    @property
    def x_edges(self) -> np.ndarray:
        return self.x.lo + self.x.width * np.arange(self.x_bins[0], self.x_bins[-1] + 2)

    @property
    def y_edges(self) -> np.ndarray:
        if self.y is None:
            return np.array([0.0, 1.0])
        return self.y.lo + self.y.width * np.arange(self.y_bins[0], self.y_bins[-1] + 2)


def format_value(fieldname: str, value: float) -> str:
    """The annotation of one cell: percentages for rates, 3 significant digits otherwise."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if fieldname in PERCENT_FIELDS:
        return f"{100 * value:.0f}%"
    if float(value).is_integer() and abs(value) < 1e6:
        return f"{int(value)}"
    return f"{value:.3g}"


def axis_label(name: str, feature: Any = None) -> str:
    """A feature axis in words: `buildings: buildings built per game (few buildings ...
    many buildings)`; the bare name without the feature (a game whose code is not at hand).

    Args:
        name: the feature's name.
        feature: the feature (`qd.features.Feature`: its `doc` and `words`), or None.
    """
    doc = getattr(feature, "doc", "") if feature is not None else ""
    words = tuple(getattr(feature, "words", ()) or ()) if feature is not None else ()
    text = f"{name}: {doc}" if doc else name
    if len(words) == 3:
        text += f" ({words[0]} \u2026 {words[2]})"
    return text


def heatmap_data(run: RunFiles, fieldname: str = "win_rate",
                 frame: pd.DataFrame | None = None, mark: str | None = None,
                 include: np.ndarray | None = None,
                 labels: Mapping[str, str] | None = None) -> Heatmap:
    """The grid of `fieldname` over the inhabited cells of the run's archive.

    Args:
        run: the run directory.
        fieldname: the numeric column to show.
        frame: the elites (default elites.csv); any frame with `grid_index`, `cell` and the
            field works (the report uses it for validated values).
        mark: a column of `frame`: a cell whose shown elite has it true is marked (NaN: not).
        include: grid coordinates (n x features) the shown range must also cover (to draw
            two heatmaps over the same bins).
        labels: feature -> axis label (`axis_label`; default: the feature's name).

    Each shown cell also gets the games behind its value (`games`: the validated games for a
    validated field, else the elite's) and whether the win rate's Wilson 95% interval on
    them is wider than `qd.rundir.WIDE_INTERVAL` (`wide`), when the frame has the counts.
    """
    frame = run.elites if frame is None else frame
    axes = run.axes
    if frame.empty:
        raise ValueError(f"{run.dir}: the archive has no elite yet")
    if fieldname not in frame.columns:
        known = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
        raise ValueError(f"field {fieldname!r} is not stored for the elites; known: "
                         f"{', '.join(known)}")
    idx = run.grid_indices(frame)
    x, y = axes[0], (axes[1] if len(axes) > 1 else None)
    xs = idx[:, 0]
    ys = idx[:, 1] if y is not None else np.zeros(len(frame), dtype=int)
    span = idx if include is None or not len(include) else \
        np.vstack([idx, np.asarray(include, dtype=int).reshape(-1, idx.shape[1])])
    sx = span[:, 0]
    sy = span[:, 1] if y is not None else np.zeros(len(span), dtype=int)
    x_bins = list(range(int(sx.min()), int(sx.max()) + 1))
    y_bins = list(range(int(sy.min()), int(sy.max()) + 1))
    values = np.full((len(y_bins), len(x_bins)), np.nan)
    text = [["" for _ in x_bins] for _ in y_bins]
    cells = [["" for _ in x_bins] for _ in y_bins]
    rank = frame["objective"].to_numpy(float) if "objective" in frame else \
        frame[fieldname].to_numpy(float)
    best: dict[tuple[int, int], int] = {}
    for k in range(len(frame)):
        key = (int(ys[k]) - y_bins[0], int(xs[k]) - x_bins[0])
        if key not in best or rank[k] > rank[best[key]]:
            best[key] = k
    col = frame[fieldname].to_numpy(float)
    names = frame["cell"].astype(str).tolist()
    shown = 0
    n_games, wide = _evidence(frame, fieldname)
    games_grid = np.full(values.shape, np.nan) if n_games is not None else None
    wide_grid = np.zeros(values.shape, bool) if n_games is not None else None
    flags = None
    if mark is not None:
        flags = frame[mark].map(lambda v: bool(v) if v == v and v is not None else False) \
            .to_numpy(bool)
    marked = np.zeros(values.shape, bool) if flags is not None else None
    for (r, c), k in best.items():
        cells[r][c] = names[k]
        if flags is not None:
            marked[r, c] = flags[k]
        if np.isfinite(col[k]):  # an undefined value (never won, not validated) stays blank
            values[r, c] = col[k]
            text[r][c] = format_value(fieldname, col[k])
            shown += 1
            if n_games is not None:
                games_grid[r, c], wide_grid[r, c] = n_games[k], wide[k]
    grid_cells = int(np.prod([a.bins for a in axes]))
    projected = [a.name for a in axes[2:]]
    notes = [f"best elite over {', '.join(projected)} in each cell"] if projected else []
    if shown < len(best):
        notes.append(f"{len(best) - shown} elites without a value left blank")
    labels = labels or {}
    return Heatmap(fieldname, x, y, x_bins, y_bins, values, text, cells, shown,
                   grid_cells, "; ".join(notes), projected, games_grid, wide_grid, marked,
                   labels.get(x.name, x.name), labels.get(y.name, y.name) if y else "")


def _evidence(frame: pd.DataFrame, fieldname: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Games behind each row's value of `fieldname` (the validated games for a validated
    field) and whether the win rate's 95% interval stored beside them is wider than
    WIDE_INTERVAL (all False when the frame stores no interval); (None, None) without games."""
    suffix = VALIDATED_SUFFIX if fieldname.endswith(VALIDATED_SUFFIX) else ""
    games_col = f"games{suffix}"
    if games_col not in frame:
        return None, None
    games = frame[games_col].to_numpy(float)
    low_col, high_col = (f"{c}{suffix}" for c in WIN_RATE_CI)
    if low_col not in frame or high_col not in frame:
        return games, np.zeros(len(frame), bool)
    width = frame[high_col].to_numpy(float) - frame[low_col].to_numpy(float)
    return games, np.isfinite(width) & (width > WIDE_INTERVAL)


def _text_colour(rgba) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


TEXT_BINS = 25
"""Cells carry their value and games as text when the shown grid is at most this many bins
along each axis; a larger one is too fine to read numbers in (its title says where they
are), and its cells are drawn without white borders."""
TICKS = 21
"""At most this many bin edges are labelled along an axis (every k-th edge beyond)."""


def _edge_ticks(edges: np.ndarray) -> np.ndarray:
    """The bin edges an axis labels: all of them, or every k-th (first and last kept)."""
    step = max(1, math.ceil((len(edges) - 1) / (TICKS - 1)))
    return edges[::step] if (len(edges) - 1) % step == 0 else \
        np.append(edges[::step], edges[-1])


def _annotate(ax: Any, hm: Heatmap, colours: np.ndarray, fontsize: int) -> None:
    """Each filled cell's value (and the games behind it) written in the cell."""
    xe, ye = hm.x_edges, hm.y_edges
    for r, c in zip(*np.nonzero(np.array([[bool(t) for t in row] for row in hm.text]))):
        label = hm.text[r][c]
        if hm.games is not None and np.isfinite(hm.games[r, c]):
            label += f"\nn={int(hm.games[r, c])}"
        ax.text((xe[c] + xe[c + 1]) / 2, (ye[r] + ye[r + 1]) / 2, label, ha="center",
                va="center", fontsize=fontsize, color=_text_colour(colours[r, c]))


def _hatch_and_cross(ax: Any, hm: Heatmap) -> int:
    """Hatch the cells whose win rate's interval is wide and cross the marked ones, each as
    one collection (a 10,000-cell grid draws as fast as a small one); the hatched count."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as Outline
    xe, ye = hm.x_edges, hm.y_edges
    hatched = 0
    if hm.wide is not None and hm.wide.any():  # one path of every hatched cell: one fill
        rows, cols = np.nonzero(hm.wide)
        hatched = len(rows)
        corners = np.stack([np.column_stack([xe[a], ye[b]]) for a, b in
                            ((cols, rows), (cols + 1, rows), (cols + 1, rows + 1),
                             (cols, rows + 1), (cols, rows))], axis=1)
        codes = np.tile([Outline.MOVETO] + [Outline.LINETO] * 3 + [Outline.CLOSEPOLY], hatched)
        ax.add_artist(PathPatch(Outline(corners.reshape(-1, 2), codes), fill=False,
                                hatch="///", edgecolor=(0.0, 0.0, 0.0, 0.4), linewidth=0))
    if hm.marked is not None and hm.marked.any():  # a grey cross: see `mark_label`
        segments = []
        for r, c in zip(*np.nonzero(hm.marked)):
            segments += [[(xe[c], ye[r]), (xe[c + 1], ye[r + 1])],
                         [(xe[c], ye[r + 1]), (xe[c + 1], ye[r])]]
        fine = max(len(hm.x_bins), len(hm.y_bins)) > TEXT_BINS
        ax.add_collection(LineCollection(segments, colors=[(0.45, 0.45, 0.45, 0.8)],
                                         linewidths=0.8 if fine else 2.0, capstyle="butt"),
                          autolim=False)
    return hatched


def _subtitle(hm: Heatmap, hatched: int, numbered: bool) -> str:
    """The lines under a heatmap's title: what is shown, the games (n) and the marks."""
    sub = f"{hm.elites} elites shown, grid of {hm.grid_cells} cells; grey = no elite"
    if hm.games is not None and np.isfinite(hm.games).any():
        g = hm.games[np.isfinite(hm.games)]
        sub += (f"\nn = games per value ({int(g.min())}-{int(g.max())}); hatched: win rate's"
                f"\n95% interval wider than {100 * WIDE_INTERVAL:.0f} points ({hatched} of "
                f"{hm.elites})")
    if not numbered:
        sub += ("\ncells too small to print their values: each cell's value and games are in "
                "explorer.html and elites_table.csv")
    if hm.note:
        sub += f"; {hm.note}"
    if hm.marked is not None and hm.marked.any():
        sub += (f"\ngrey cross: {hm.mark_label or 'marked'} "
                f"({int(hm.marked.sum())} of {hm.elites})")
    return sub


def draw_heatmap(hm: Heatmap, path: str | Path, title: str | None = None,
                 cmap: str = "viridis", vmin: float | None = None,
                 vmax: float | None = None, colour_label: str | None = None) -> Path:
    """Draw a heatmap to a PNG: feature units on both axes, ticks at the bin edges (every
    k-th of a fine grid), each cell's value and games written in it when the grid is at most
    `TEXT_BINS` bins along each axis."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if hm.field in PERCENT_FIELDS and vmin is None and vmax is None:
        vmin, vmax = 0.0, 1.0
    nx, ny = len(hm.x_bins), len(hm.y_bins)
    numbered = max(nx, ny) <= TEXT_BINS
    worded = len(hm.x_label) > len(hm.x.name) or (hm.y is not None and
                                                  len(hm.y_label) > len(hm.y.name))
    fig_w = max(7.0 if worded else 5.0, min(16.0, 2.5 + 0.75 * nx))
    fig_h = max(5.0 if worded else 2.8,
                min(12.0, 2.0 + 0.6 * ny) if hm.y is not None else 2.8)
    fig, ax = plt.subplots(figsize=(fig_w, fig_h), layout="constrained")
    chars = int(fig_w * 11)  # characters of a line across the figure at font size 9-10
    xe, ye = hm.x_edges, hm.y_edges
    mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(hm.values), cmap=cmap, vmin=vmin,
                         vmax=vmax, edgecolors="white", linewidth=1.0 if numbered else 0.0)
    if numbered:
        _annotate(ax, hm, mesh.cmap(mesh.norm(hm.values)), 9 if nx <= 12 else 7)
    hatched = _hatch_and_cross(ax, hm)
    ax.set_facecolor("#f2f2f2")
    xt = _edge_ticks(xe)
    ax.set_xticks(xt)
    ax.set_xticklabels([f"{v:.6g}" for v in xt], rotation=45 if len(xt) > 9 else 0)
    ax.set_xlabel(textwrap.fill(f"{hm.x_label or hm.x.name} (bin edges)", chars - 10),
                  fontsize=9)
    if hm.y is not None:
        yt = _edge_ticks(ye)
        ax.set_yticks(yt)
        ax.set_yticklabels([f"{v:.6g}" for v in yt])
        ax.set_ylabel(textwrap.fill(f"{hm.y_label or hm.y.name} (bin edges)",
                                    int(fig_h * 9)), fontsize=9)
    else:
        ax.set_yticks([])
    default = FIELD_TITLES.get(hm.field, hm.field.replace("_", " "))
    sub = "\n".join(textwrap.fill(line, chars)
                    for line in _subtitle(hm, hatched, numbered).split("\n"))
    ax.set_title(f"{textwrap.fill(title or default, chars)}\n{sub}", fontsize=10)
    bar = fig.colorbar(mesh, ax=ax, shrink=0.9)
    bar.set_label(colour_label or default)
    if hm.field in PERCENT_FIELDS:
        bar.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    path = Path(path)
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
