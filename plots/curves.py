"""Progress of a run against evaluations: cells filled, QD score, best (and mean) win rate.

One panel per quantity, sharing the evaluation axis, each titled with what it measures and its
final value, so the figure reads without a legend. Data from metrics.csv (one row per batch).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from base.files import save_figure
from qd.rundir import METRICS, RunFiles


@dataclass
class Progress:
    evaluations: np.ndarray
    cells: np.ndarray
    qd_score: np.ndarray
    best_win_rate: np.ndarray
    mean_win_rate: np.ndarray | None
    grid_cells: int


def progress_data(run: RunFiles) -> Progress:
    """The curves' data from metrics.csv, starting at (0 evaluations, empty archive).

    Args:
        run: the run directory.
    """
    m = run.metrics
    if m is None or m.empty:
        raise ValueError(f"{run.dir}: no {METRICS} yet (no batch finished)")
    for col in ("evaluations", "cells", "qd_score", "best_win_rate"):
        if col not in m:
            raise ValueError(f"{run.path(METRICS)}: no column {col!r}")
    m = m.sort_values("evaluations", kind="stable")
    zero = np.zeros(1)

    def col(name):
        return np.concatenate([zero, m[name].to_numpy(float)])

    grid = int(np.prod([a.bins for a in run.axes]))
    return Progress(col("evaluations"), col("cells"), col("qd_score"), col("best_win_rate"),
                    col("mean_win_rate") if "mean_win_rate" in m else None, grid)


def draw_progress(p: Progress, path: str | Path, title: str = "") -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    fig, axs = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True, layout="constrained")
    x = p.evaluations
    axs[0].step(x, p.cells, where="post", color="tab:blue")
    axs[0].set_ylabel("cells filled")
    axs[0].set_title(f"cells filled: {int(p.cells[-1])} of {p.grid_cells} "
                     f"({100 * p.cells[-1] / max(1, p.grid_cells):.0f}% coverage)", fontsize=10)
    axs[1].step(x, p.qd_score, where="post", color="tab:green")
    axs[1].set_ylabel("QD score")
    axs[1].set_title(f"QD score (sum of the elites' win rates): {p.qd_score[-1]:.2f}",
                     fontsize=10)
    axs[2].step(x, p.best_win_rate, where="post", color="tab:red", label="best elite")
    if p.mean_win_rate is not None:
        axs[2].step(x, p.mean_win_rate, where="post", color="tab:red", alpha=0.45,
                    linestyle="--", label="mean over elites")
        axs[2].legend(loc="lower right", fontsize=8, frameon=False)
    axs[2].set_ylim(0, 1.02)
    axs[2].yaxis.set_major_formatter(PercentFormatter(1.0))
    axs[2].set_ylabel("win rate")
    axs[2].set_title(f"best win rate: {100 * p.best_win_rate[-1]:.0f}% (solid)"
                     + (f", mean over elites {100 * p.mean_win_rate[-1]:.0f}% (dashed)"
                        if p.mean_win_rate is not None else ""), fontsize=10)
    axs[2].set_xlabel("genomes evaluated")
    for ax in axs:
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    path = Path(path)
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
