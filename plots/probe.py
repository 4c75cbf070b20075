"""The probe's chart: how far apart the probed genomes' feature means lie.

One panel per feature for the (up to) 8 top-ranked features of probe.csv: each genome's mean
with its 95% t interval as a horizontal error bar (the control on top), the control's interval
shaded, and the panel's title naming the feature, its ratio (spread of the genome means in
standard errors of one evolved genome's estimate) and whether the genome moves it. Data from
probe.csv and probe_genomes.csv only (`qd.probe`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from base.files import save_figure
from qd.rundir import PROBE_CHART as CHART
from qd.rundir import PROBE_CONTROL as CONTROL
from qd.rundir import PROBE_GENOMES as GENOMES
from qd.rundir import PROBE_TABLE as TABLE
from qd.rundir import PROBE_WIN_RATE as WIN_RATE
from qd.rundir import read_table

PANELS = 8
"""Top-ranked features drawn."""
COLUMNS = 4
"""Panels per row."""
CONTROL_COLOUR = "tab:blue"
GENOME_COLOUR = "#444444"


def draw_probe(out_dir: str | Path) -> Path:
    """Draw probe.png into a probe's output directory.

    Args:
        out_dir: the probe's output directory (with probe.csv and probe_genomes.csv).

    Raises:
        ValueError: a CSV file is missing.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    for name in (TABLE, GENOMES):
        if not (out / name).exists():
            raise ValueError(f"{out / name}: not found (run `playstyles probe` first)")
    table = read_table(out / TABLE).sort_values("rank").head(PANELS)
    genomes = read_table(out / GENOMES)
    labels = list(dict.fromkeys(genomes["genome"].astype(str)))
    wins = genomes[genomes["feature"] == WIN_RATE]
    games = int(wins["n"].max()) if len(wins) else 0

    n = len(table)
    cols = max(1, min(COLUMNS, n))
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, (0.32 * len(labels) + 1.3) * rows),
                             layout="constrained", squeeze=False, sharey=True)
    y = np.arange(len(labels))
    for ax, r in zip(axes.flat, table.to_dict("records")):
        g = genomes[genomes["feature"] == r["feature"]].set_index("genome").reindex(labels)
        mean = g["mean"].to_numpy(float)
        lo = g["ci_low"].to_numpy(float)
        hi = g["ci_high"].to_numpy(float)
        err = np.vstack([np.nan_to_num(mean - lo), np.nan_to_num(hi - mean)])
        colours = [CONTROL_COLOUR if lab == CONTROL else GENOME_COLOUR for lab in labels]
        if CONTROL in labels:
            c = labels.index(CONTROL)
            if math.isfinite(lo[c]) and math.isfinite(hi[c]):
                ax.axvspan(lo[c], hi[c], color=CONTROL_COLOUR, alpha=0.15, linewidth=0)
        for yi, m, e0, e1, colour in zip(y, mean, err[0], err[1], colours):
            if math.isfinite(m):
                ax.errorbar([m], [yi], xerr=[[e0], [e1]], fmt="o", color=colour, markersize=4,
                            capsize=2, linewidth=1.2)
        verdict = "moves" if bool(r["moves"]) else "does not move"
        ax.set_title(f"{r['feature']}{' (mapped)' if bool(r['mapped']) else ''}\n"
                     f"ratio {float(r['ratio']):.3g}, {verdict}", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_yticks(y, labels)
    axes[0, 0].invert_yaxis()  # the control (genome 0) on top; the axes share y
    fig.suptitle(f"Probe: each genome's feature mean with its 95% interval ({games} games per "
                 f"genome, training levels); shaded: the control's interval", fontsize=10)
    path = out / CHART
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
