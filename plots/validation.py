"""Validation charts: where each elite sat in evolution and where held-out games put it.

Left: the grid (first two features, in feature units, lines at the bin edges) with one arrow
per validated elite from its evolved position to its validated one, coloured by how far it
moved (same cell, a neighbouring cell, farther). With one feature the vertical axis is the
win rate. Right: evolved against validated win rate, with the diagonal; points below it are
elites whose evolved win rate was optimistic. Data from validation.csv (`qd.rundir`). The
labels name the games each side comes from: evolution, or the re-estimation on fresh games of a
`noise: reestimate` run, against the held-out (or replayed) games of the validation.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from base.files import save_figure
from qd.rundir import (
    VALIDATION,
    RunFiles,
    evolved_column,
    measure_column,
    validated_column,
    validation_source,
)

MOVE_COLOURS = {"same cell": "tab:green", "neighbour": "tab:orange", "farther": "tab:red"}


@dataclass
class Arrows:
    x_name: str
    y_name: str
    start: np.ndarray  # (n, 2) evolved positions
    end: np.ndarray  # (n, 2) validated positions
    moves: list[str]  # per elite: "same cell", "neighbour" or "farther"
    cells: list[str]
    win_evolved: np.ndarray
    win_validated: np.ndarray


def arrow_data(run: RunFiles, frame: pd.DataFrame | None = None) -> Arrows:
    """Each validated elite's evolved and validated position (and win rates).

    Args:
        run: the run directory.
        frame: the validation table (default: validation.csv).
    """
    v = run.validation if frame is None else frame
    if v is None or v.empty:
        raise ValueError(f"{run.dir}: no {VALIDATION} (run `playstyles validate` first)")
    axes = run.axes
    names = [measure_column(a.name) for a in axes[:2]] + ["win_rate"]
    need = [c for n in names for c in (evolved_column(n), validated_column(n))]
    need += ["same_cell", "neighbour", "cell"]
    missing = [c for c in need if c not in v]
    if missing:
        raise ValueError(f"{run.path(VALIDATION)}: no column {missing[0]}"
                         + (f" (nor {len(missing) - 1} more)" if len(missing) > 1 else "")
                         + f": validate again (playstyles validate {run.dir})")

    def both(name: str) -> tuple[np.ndarray, np.ndarray]:
        return (v[evolved_column(name)].to_numpy(float),
                v[validated_column(name)].to_numpy(float))

    fx = axes[0].name
    xs = both(measure_column(fx))
    if len(axes) > 1:
        fy = axes[1].name
        ys = both(measure_column(fy))
    else:
        fy = "win rate"
        ys = both("win_rate")
    moves = ["same cell" if s else "neighbour" if n else "farther"
             for s, n in zip(v["same_cell"].astype(bool), v["neighbour"].astype(bool))]
    return Arrows(fx, fy, np.column_stack([xs[0], ys[0]]), np.column_stack([xs[1], ys[1]]),
                  moves, v["cell"].astype(str).tolist(), *both("win_rate"))


ARROWS_ONE_BY_ONE = 200
"""Up to this many elites each arrow is drawn on its own, with its cell's label beside its
dot; more are drawn as one field of arrows, unlabelled (a label per elite of a large archive
covers the chart and is read in the explorer instead)."""


def _grid_axes(ax: Any, axes: list, pts: np.ndarray) -> list[str]:
    """Limits and grid lines at the bin edges of the first two features (every k-th edge of
    a fine grid, `plots.heatmap.TICKS`); how each axis's grid lines are spaced, in words."""
    from plots.heatmap import _edge_ticks
    spacing = []
    for i, axis in enumerate(axes[:2]):
        lo, hi = pts[:, i].min(), pts[:, i].max()
        edges = axis.edges
        first = max(0, int(np.searchsorted(edges, lo, side="right")) - 1)
        last = min(len(edges) - 1, int(np.searchsorted(edges, hi, side="left")))
        shown = edges[first:max(last, first + 1) + 1]
        ticks = _edge_ticks(shown)
        (ax.set_xticks if i == 0 else ax.set_yticks)(ticks)
        step = 1 if len(ticks) == len(shown) else \
            int(round((ticks[1] - ticks[0]) / axis.width))
        spacing.append("grid lines at bin edges" if step == 1 else
                       f"grid lines every {step} bins")
        # values outside the grid (clipped into the end cells by the archive) stay visible
        lo_lim, hi_lim = min(shown[0], lo), max(shown[-1], hi)
        pad = 0.03 * (hi_lim - lo_lim)
        (ax.set_xlim if i == 0 else ax.set_ylim)(lo_lim - pad, hi_lim + pad)
    return spacing


def _arrows(ax: Any, a: Arrows) -> None:
    """A dot at each elite's evolved position and an arrow to its validated one, coloured by
    how far it moved; the cells labelled when they are few."""
    colours = [MOVE_COLOURS[m] for m in a.moves]
    if len(a.cells) <= ARROWS_ONE_BY_ONE:
        for (x0, y0), (x1, y1), colour in zip(a.start, a.end, colours):
            ax.plot([x0], [y0], "o", color=colour, markersize=5, alpha=0.8)
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.4})
        for (x0, y0), cell in zip(a.start, a.cells):
            ax.annotate(cell, (x0, y0), textcoords="offset points", xytext=(4, 4),
                        fontsize=7, color="#444444")
        return
    ax.scatter(a.start[:, 0], a.start[:, 1], c=colours, s=4, alpha=0.8, linewidths=0)
    step = a.end - a.start
    ax.quiver(a.start[:, 0], a.start[:, 1], step[:, 0], step[:, 1], color=colours,
              angles="xy", scale_units="xy", scale=1, width=0.0015, headwidth=4,
              alpha=0.8)


def draw_validation(run: RunFiles, path: str | Path, frame: pd.DataFrame | None = None) -> Path:
    """Draw the validation chart to a PNG.

    Args:
        run: the run directory.
        path: the image file.
        frame: the validation table (default: validation.csv).
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import PercentFormatter

    a = arrow_data(run, frame)
    axes = run.axes
    many = len(a.cells) > ARROWS_ONE_BY_ONE
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5.2), layout="constrained",
                                 gridspec_kw={"width_ratios": [1.5, 1]})
    spacing = _grid_axes(ax, axes, np.vstack([a.start, a.end]))
    if len(axes) < 2:
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.grid(True, color="#cccccc")
    _arrows(ax, a)
    counts = {m: a.moves.count(m) for m in MOVE_COLOURS}
    ax.set_xlabel(f"{a.x_name} ({spacing[0]})")
    ax.set_ylabel(a.y_name if len(axes) < 2 else f"{a.y_name} ({spacing[1]})")
    ax.set_title(f"dot = evolved position, arrow head = validated position ({len(a.cells)} "
                 f"elites)\n{counts['same cell']} stayed in their cell, {counts['neighbour']} "
                 f"moved to a neighbour, {counts['farther']} moved farther", fontsize=10)
    # with many arrows, "best" would weigh every one of them: a fixed corner instead
    ax.legend([Line2D([], [], color=c, marker="o") for c in MOVE_COLOURS.values()],
              list(MOVE_COLOURS), fontsize=8, loc="lower right" if many else "best",
              frameon=True)

    colours = [MOVE_COLOURS[m] for m in a.moves]
    bx.plot([0, 1], [0, 1], color="#888888", linestyle="--", linewidth=1)
    bx.scatter(a.win_evolved, a.win_validated, c=colours, s=4 if many else 28,
               alpha=0.5 if many else 0.85, linewidths=0 if many else None)
    bx.set_xlim(-0.02, 1.02)
    bx.set_ylim(-0.02, 1.02)
    bx.xaxis.set_major_formatter(PercentFormatter(1.0))
    bx.yaxis.set_major_formatter(PercentFormatter(1.0))
    mine = run.elites_source
    held = validation_source(run.validation_summary or {}) if run.validation_summary \
        else "validation"
    bx.set_xlabel(f"win rate from {mine}" + ("" if run.reestimated else " (training levels)"))
    bx.set_ylabel(f"win rate from {held}")
    below = int(np.sum(a.win_validated < a.win_evolved))
    first = mine.split(" (")[0]
    said = (f"{below} of {len(a.cells)} below the dashed diagonal ({first} rate "
            f"optimistic)")
    bx.set_title(f"win rate: {first} vs {held.split(' (')[0]}\n{textwrap.fill(said, 66)}",
                 fontsize=10)
    bx.grid(alpha=0.3)
    path = Path(path)
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
