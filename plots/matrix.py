"""The win matrix of a ladder (a round robin), drawn like Prismata's difficulty table.

Row agent against column opponent: the row's win rate, its Wilson 95% interval underneath,
coloured from red (the row loses) through white (even) to blue (the row wins). Each row label
carries the row's mean win rate over all opponents, the ladder's overall strength. Data from
ladder_matrix.csv and ladder_pairs.csv in the ladder's directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from base.files import read_json, save_figure
from qd.rundir import read_table


@dataclass
class WinMatrix:
    labels: list[str]
    rate: np.ndarray  # rate[i, j]: i's win rate against j (NaN on the diagonal)
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray

    def mean_rate(self) -> np.ndarray:
        """Each row's mean win rate over the opponents it played (NaN if none)."""
        played = np.isfinite(self.rate)
        total = np.where(played, self.rate, 0.0).sum(axis=1)
        count = played.sum(axis=1)
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def matrix_data(ladder_dir: str | Path) -> WinMatrix:
    d = Path(ladder_dir)
    m = read_table(d / "ladder_matrix.csv")
    labels = [str(x) for x in m["agent"]]
    pairs = read_table(d / "ladder_pairs.csv")
    n = len(labels)
    pos = {lab: i for i, lab in enumerate(labels)}
    rate = np.full((n, n), np.nan)
    low, high, games = rate.copy(), rate.copy(), np.zeros((n, n), dtype=int)
    for r in pairs.itertuples(index=False):
        i, j = pos[str(r.agent)], pos[str(r.opponent)]
        rate[i, j], low[i, j], high[i, j] = r.win_rate, r.ci_low, r.ci_high
        games[i, j] = int(r.games)
    return WinMatrix(labels, rate, low, high, games)


def draw_matrix(w: WinMatrix, path: str | Path, title: str = "", note: str = "") -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(w.labels)
    fig, ax = plt.subplots(figsize=(max(6.0, 2.5 + 1.3 * n), max(4.0, 1.6 + 0.8 * n)),
                           layout="constrained")
    masked = np.ma.masked_invalid(w.rate)
    im = ax.imshow(masked, cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_facecolor("#dddddd")
    means = w.mean_rate()
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{lab}\n(mean {100 * m:.0f}%)" if np.isfinite(m) else lab
                        for lab, m in zip(w.labels, means)], fontsize=8)
    ax.set_xticks(range(n))
    ax.set_xticklabels(w.labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("agent (row)")
    ax.set_xlabel("opponent (column)")
    for i in range(n):
        for j in range(n):
            if i == j or not np.isfinite(w.rate[i, j]):
                continue
            p = w.rate[i, j]
            colour = "white" if abs(p - 0.5) > 0.3 else "black"
            ax.text(j, i, f"{100 * p:.0f}%\n[{100 * w.low[i, j]:.0f}-{100 * w.high[i, j]:.0f}]",
                    ha="center", va="center", fontsize=8, color=colour)
    games = w.games[w.games > 0]
    lo, hi = (int(games.min()), int(games.max())) if games.size else (0, 0)
    sub = ("row's win rate against the column, Wilson 95% interval in brackets\n"
           f"{lo if lo == hi else f'{lo}-{hi}'} games per pair" + (f"; {note}" if note else ""))
    ax.set_title(f"{title}\n{sub}" if title else sub, fontsize=10)
    bar = fig.colorbar(im, ax=ax, shrink=0.85)
    bar.set_label("row's win rate against the column")
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    path = Path(path)
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def draw_ladder(ladder_dir: str | Path, title: str = "") -> Path:
    """Read a ladder directory's tables and write its win-matrix image (ladder.png)."""
    d = Path(ladder_dir)
    note = ""
    info = d / "ladder.json"
    if info.exists():
        data = read_json(info)
        verdict = (data.get("verdict") if isinstance(data, dict) else None) or {}
        if verdict.get("status"):
            note = f"difficulty order of the presets: {verdict['status']}"
    return draw_matrix(matrix_data(d), d / "ladder.png", title, note)
