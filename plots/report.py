"""The run report: every picture and table of a run directory, and one HTML page with all of it.

`write_report(run_dir)` writes into the run directory:

    heatmap_win_rate.png        the archive (Figure 1 of the paper): the elites' win rates
    heatmap_<field>.png         the same grid coloured by another stored field (`fields`)
    progress.png                cells filled, QD score, best win rate against evaluations
    validation.png              evolved vs validated positions (when validation.csv exists)
    elites_table.csv            one row per elite: quality, grid features, weights by script
    report.html                 all of the above in one self-contained page (images inlined)

It reads files only (config.yaml, elites.csv, metrics.csv, validation.csv and
validation_summary.json, through `qd.rundir`, the run directory's schema), so any run directory
can be re-reported, also one copied from a cluster to a laptop without the code's Python
objects.
"""

from __future__ import annotations

import base64
import html
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from plots.curves import draw_progress, progress_data
from plots.heatmap import Heatmap, draw_heatmap, format_value, heatmap_data
from qd.rundir import (
    ELITES_TABLE,
    PROGRESS_CHART,
    REPORT,
    VALIDATION_CHART,
    WIDE_INTERVAL,
    WIN_RATE_CI,
    RunFiles,
    evolved_column,
    heatmap_file,
    mean_column,
    std_column,
    validated_column,
    validated_columns,
)

VALIDATED_FIELDS = tuple(validated_column(c) for c in ("win_rate", "games", "mean_score"))
WIN_RATE_VALIDATED = VALIDATED_FIELDS[0]


@dataclass
class Report:
    """What `write_report` wrote.

    Args:
        run_dir: the run directory.
        html: report.html.
        files: every file written.
        heatmaps: the data of each heatmap drawn, by field.
        table: the elites table (elites_table.csv).
    """

    run_dir: Path
    html: Path
    files: list[Path] = field(default_factory=list)
    heatmaps: dict[str, Heatmap] = field(default_factory=dict)
    table: pd.DataFrame | None = None


def elites_with_validation(run: RunFiles) -> pd.DataFrame:
    """elites.csv with the validated columns of validation.csv joined on the elite's index
    (not the validated grid coordinates).

    Args:
        run: the run directory.
    """
    elites = run.elites
    v = run.validation
    if elites.empty or v is None or v.empty:
        return elites
    keep = ["index"] + validated_columns(v.columns, measures=False)
    ci = {c: validated_column(c) for c in WIN_RATE_CI if c in v}  # the validated interval
    return elites.merge(v[keep + list(ci)].rename(columns=ci), on="index", how="left")


def elites_table(run: RunFiles) -> pd.DataFrame:
    """The elites for people: best first, quality, grid features (mean and spread over the
    elite's games), validated win rate if any, then the weights by script name.

    Args:
        run: the run directory.
    """
    frame = elites_with_validation(run)
    if frame.empty:
        return pd.DataFrame()
    cols = ["cell", "win_rate", "wins", "games", "mean_score"]
    for a in run.axes:
        cols += [mean_column(a.name), std_column(a.name)]
    cols += [c for c in VALIDATED_FIELDS if c in frame]
    cols += run.weight_columns()
    cols += [c for c in ("evaluation", "batch") if c in frame]
    out = frame[[c for c in cols if c in frame]].copy()
    return out.sort_values(["win_rate", "mean_score"], ascending=False, kind="stable") \
        .reset_index(drop=True)


def write_report(run_dir: str | Path, fields: Sequence[str] = (),
                 title: str | None = None) -> Report:
    """Write every figure, the elites table and report.html into the run directory.

    Args:
        run_dir: the run directory.
        fields: more heatmaps: numeric columns of elites.csv (or validated ones).
        title: the page's title (default: names the run).
    """
    run = RunFiles(run_dir)
    d = run.dir
    report = Report(d, run.path(REPORT))
    merged = elites_with_validation(run)
    images: list[tuple[str, Path, str]] = []  # (heading, file, caption)
    if not merged.empty:
        wanted = ["win_rate"]
        if WIN_RATE_VALIDATED in merged and merged[WIN_RATE_VALIDATED].notna().any():
            wanted.append(WIN_RATE_VALIDATED)
        wanted += [f for f in fields if f not in wanted]
        for f in wanted:
            hm = heatmap_data(run, f, merged)
            evolved = ("re-estimated on fresh games after evolution" if run.reestimated
                       else "in evolution")
            titled = {"win_rate": f"win rate of each cell's elite {evolved} (training levels)",
                      WIN_RATE_VALIDATED: "win rate of each elite on held-out levels "
                                          "(at its evolved cell; blank = not validated)"}
            path = draw_heatmap(hm, run.path(heatmap_file(f)), title=titled.get(f))
            report.heatmaps[f] = hm
            report.files.append(path)
            images.append((f"Archive: {f.replace('_', ' ')}", path,
                           "Each cell's elite; numbers are the coloured values."))
    if run.metrics is not None and not run.metrics.empty:
        path = draw_progress(progress_data(run), run.path(PROGRESS_CHART), title=run.name)
        report.files.append(path)
        images.append(("Progress", path, "Per batch, against genomes evaluated."
                       + (" The last step is the closing batch, where every elite was "
                          "re-estimated on fresh games." if run.reestimated else "")))
    has_validation = run.validation is not None and not run.validation.empty
    if has_validation:
        from plots.validation import draw_validation
        path = draw_validation(run, run.path(VALIDATION_CHART))
        report.files.append(path)
    table = elites_table(run)
    report.table = table
    if not table.empty:
        p = run.path(ELITES_TABLE)
        _atomic_write(p, table.to_csv(index=False))
        report.files.append(p)
    page = _html(run, images, table, has_validation, title)
    _atomic_write(report.html, page)
    report.files.append(report.html)
    return report


# ------------------------------------------------------------------------------ HTML

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em;
max-width:1400px;color:#222}
h1{margin-bottom:0.2em} h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:0.2em}
table{border-collapse:collapse;font-size:0.85em;margin:0.6em 0}
th,td{border:1px solid #ddd;padding:0.25em 0.5em;text-align:right}
th{background:#f4f4f4;position:sticky;top:0}
td.l,th.l{text-align:left}
.small{color:#666;font-size:0.9em}
img{max-width:100%;border:1px solid #eee}
.wrap{overflow-x:auto}
"""


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _num(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        v = float(x)
    except (TypeError, ValueError):
        return _esc(x)
    if not math.isfinite(v):
        return "n/a"
    return f"{v:.{digits}g}"


def _pct(x: Any) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "n/a"
    return f"{100 * v:.1f}%" if math.isfinite(v) else "n/a"


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{_esc(path.name)}" src="data:image/png;base64,{data}">'


def _table(headers: list[str], rows: list[list[str]], left: int = 1) -> str:
    """An HTML table from formatted (escaped) cells; the first `left` columns left-aligned."""
    h = "".join(f'<th class="{"l" if i < left else ""}">{c}</th>' for i, c in enumerate(headers))
    h = f"<tr>{h}</tr>" if any(headers) else ""
    body = []
    for r in rows:
        body.append("<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>'
                                     for i, c in enumerate(r)) + "</tr>")
    return f'<div class="wrap"><table>{h}{"".join(body)}</table></div>'


def _summary(run: RunFiles) -> str:
    c = run.config
    m = run.metrics
    last = m.iloc[-1] if m is not None and not m.empty else None
    axes = run.axes
    levels = c.get("levels") or {}
    agent = c.get("agent") or {}
    opp = c.get("opponent") or {}
    rows = [
        ("run", run.name), ("game", f"{c.get('game', '?')} {c.get('options') or {}}"),
        ("evolved agent", f"{agent.get('name')} (budget {agent.get('budget')})"),
        ("opponent", f"{opp.get('name')} (budget {opp.get('budget')})"),
        ("features", "; ".join(f"{a.name} in [{a.lo:g}, {a.hi:g}] step {a.width:g} "
                               f"({a.bins} bins)" for a in axes)),
        ("training levels", f"{len(levels.get('train') or [])} "
                            f"x {c.get('repetitions')} games per genome"),
        ("held-out levels", str(len(levels.get("held_out") or []))),
        ("emitter", str((c.get("emitter") or {}).get("kind"))),
        ("seed", str(c.get("seed"))),
    ]
    if last is not None:
        rows += [("evaluations", f"{int(last['evaluations'])} of {c.get('evaluations')}"),
                 ("games", str(int(last.get("games", 0)))),
                 ("elites", f"{int(last['cells'])} of {int(np.prod([a.bins for a in axes]))} "
                            f"cells"),
                 ("QD score", _num(last["qd_score"], 4)),
                 ("best win rate", _pct(last["best_win_rate"]))]
        if "elapsed_seconds" in last:
            rows.append(("run time", f"{float(last['elapsed_seconds']) / 60:.1f} min"))
    return _table(["", ""], [[_esc(k), _esc(v)] for k, v in rows], left=2)


def trust(elites: pd.DataFrame) -> dict[str, Any]:
    """How far the elites' win rates can be trusted: elites, games per elite (min, max), how
    many have a Wilson 95% interval (elites.csv) no wider than `WIDE_INTERVAL` (robust), and
    the median interval width (None for a run directory that stores no intervals)."""
    if elites.empty:
        return {"elites": 0, "robust": 0}
    out: dict[str, Any] = {"elites": len(elites), "games_min": int(elites["games"].min()),
                           "games_max": int(elites["games"].max()), "robust": None,
                           "median_width": None}
    low, high = WIN_RATE_CI
    if low in elites and high in elites:
        width = (elites[high] - elites[low]).to_numpy(float)
        out.update(robust=int((width <= WIDE_INTERVAL).sum()),
                   median_width=float(np.median(width)))
    return out


def _trust_html(run: RunFiles, has_validation: bool) -> str:
    t = trust(run.elites)
    if not t["elites"]:
        return ""
    where = _esc(run.dir.name)
    games = f"{t['games_min']}" + ("" if t["games_min"] == t["games_max"] else f"-{t['games_max']}")
    text = f"<p>Each elite's win rate comes from {games} games"
    if t["robust"] is not None:
        text += (f": the median width of its 95% interval (Wilson) is "
                 f"{100 * t['median_width']:.0f} points. {t['robust']} of {t['elites']} elites "
                 f"are robust (an interval no wider than {100 * WIDE_INTERVAL:.0f} points); the "
                 f"heatmaps hatch the others")
    if run.reestimated:
        text += (". They are fresh games, played on the training levels after evolution "
                 "ended (<code>noise: reestimate</code>): no elite was chosen on them, so "
                 "they are not optimistic as evolved win rates are.</p>")
    else:
        text += (". The archive keeps the best of many noisy estimates, so evolved win rates "
                 "are optimistic.</p>")
    steps = [] if has_validation else [
        f"<li><code>playstyles validate {where}</code> replays the elites on held-out levels "
        f"and shows how much of each win rate and style holds.</li>"]
    steps.append(f"<li><code>playstyles export {where} --kind difficulty</code> (or "
                 f"<code>--kind style</code>) turns elites into presets; "
                 f"<code>playstyles ladder</code> then checks their order.</li>")
    return text + "<p>Next:</p><ul>" + "".join(steps) + "</ul>"


def _validation_html(run: RunFiles) -> str:
    v = run.validation
    s = run.validation_summary or {}
    parts = ["<h2>Validation: the elites replayed on fresh seeds</h2>"]
    if s:
        parts.append(f'<p class="small">{s.get("elites", len(v))} elites, '
                     f'{s.get("games_per_elite", "?")} games each on '
                     f'{len(s.get("levels") or [])} levels '
                     + (f'against {_esc(s.get("opponent", "?"))}'
                        if s.get("opponent", "?") else "(the genome plays alone)") +
                     f'; seeds from the run seed {_esc(s.get("seed", "?"))}.</p>')
        rows = []
        for name, rho in (s.get("spearman") or {}).items():
            rows.append([_esc(name), _num(rho, 3)])
        share = [["validated features in the elite's own cell", _pct(s.get("same_cell_share"))],
                 ["... in its own cell or a neighbour", _pct(s.get("neighbour_share"))],
                 ["mean win rate, evolved", _pct(s.get("mean_win_rate_evolved"))],
                 ["mean win rate, validated", _pct(s.get("mean_win_rate_validated"))]]
        c = s.get("corrected")
        if c:  # the archive rebuilt from the replayed estimates
            share += [["QD score, evolved / corrected",
                       f"{_num(c['qd_score_evolved'], 4)} / {_num(c['qd_score'], 4)}"],
                      ["cells, evolved / corrected", f"{c['cells_evolved']} / {c['cells']}"]]
            share += [[f"mean absolute gap, {name}", _pct(g) if name == "win_rate" else _num(g)]
                      for name, g in (s.get("mean_abs_gap") or {}).items()]
            share += [[f"on {group.replace('_', '-')} levels: mean win rate (gap), games",
                       f"{_pct(g['mean_win_rate'])} ({_pct(g['mean_abs_gap_win_rate'])}), "
                       f"{g['games']}"] for group, g in (s.get("by_level_group") or {}).items()]
        parts.append("<p>Rank correlation (Spearman) between evolved and validated values over "
                     "all validated elites:</p>")
        parts.append(_table(["value", "Spearman rho"], rows))
        parts.append(_table(["", ""], [[_esc(a), b] for a, b in share], left=2))
    path = run.path(VALIDATION_CHART)
    if path.exists():
        parts.append(_img(path))
    parts.append("<p>Table II of the paper for these elites (evolved / validated):</p>")
    parts.append(table_two_html(run))
    return "\n".join(parts)


def table_two_html(run: RunFiles) -> str:
    """Table II of the paper (evolved / validated) as an HTML table, best validated first.

    Args:
        run: a run directory holding validation.csv.
    """
    v = run.validation
    axes = run.axes
    headers = ["cell", "win rate", *[_esc(a.name) for a in axes], "validated cell", "games"]
    rows = []
    ci_low, ci_high = WIN_RATE_CI
    for r in v.sort_values(WIN_RATE_VALIDATED, ascending=False, kind="stable").itertuples():
        d = r._asdict()
        row = [_esc(d["cell"]),
               f"{_pct(d[evolved_column('win_rate')])} / {_pct(d[WIN_RATE_VALIDATED])} "
               f"<span class=small>[{_pct(d.get(ci_low))}-{_pct(d.get(ci_high))}]</span>"]
        for a in axes:
            row.append(f"{_num(d.get(evolved_column(a.name)))} / "
                       f"{_num(d.get(validated_column(a.name)))}")
        row.append(_esc(d.get("validated_cell", "")))
        row.append(f"{_num(d.get(evolved_column('games')))} / "
                   f"{_num(d.get(validated_column('games')))}")
        rows.append(row)
    return _table(headers, rows)


def _elites_html(run: RunFiles, table: pd.DataFrame) -> str:
    if table.empty:
        return "<p>No elite yet.</p>"
    axes = run.axes
    weights = run.weight_columns()
    validated = WIN_RATE_VALIDATED in table
    headers = ["cell", "win rate<br><span class=small>(95% interval)</span>", "wins / games",
               "mean score"]
    headers += [f"{_esc(a.name)}<br><span class=small>mean &plusmn; sd</span>" for a in axes]
    if validated:
        headers.append("validated<br>win rate")
    headers += [f'<span title="{_esc(w)}">{_esc(w)}</span>' for w in weights]
    rows = []
    for r in table.to_dict("records"):
        low, high = (r.get(c) for c in WIN_RATE_CI)
        interval = f" <span class=small>({_pct(low)}-{_pct(high)})</span>" if low is not None \
            else ""
        row = [_esc(r["cell"]), _pct(r["win_rate"]) + interval,
               f"{int(r['wins'])} / {int(r['games'])}", _num(r["mean_score"], 4)]
        for a in axes:
            mean, sd = r.get(mean_column(a.name)), r.get(std_column(a.name))
            row.append(f"{_num(mean)} &plusmn; {_num(sd, 2)}")
        if validated:
            row.append(_pct(r.get(WIN_RATE_VALIDATED)))
        for w in weights:
            val = float(r[w])
            row.append(f'<span style="display:inline-block;min-width:2.5em;'
                       f'background:rgba(31,119,180,{0.08 + 0.6 * val:.2f})">{val:g}</span>')
        rows.append(row)
    out = [f"<p>{len(table)} elites, best first. Weights are the evolved scripts' weights "
           f"(the portfolio's other scripts keep 0.5); features are means over the elite's "
           f"evolution games.</p>", _table(headers, rows)]
    feats = run.feature_columns()
    merged = run.elites
    if feats and not merged.empty:
        order = {c: i for i, c in enumerate(table["cell"])}
        m = merged.assign(_o=merged["cell"].map(order)).sort_values("_o")
        rows = [[_esc(r["cell"])] + [_num(r.get(mean_column(f))) for f in feats]
                for r in m.to_dict("records")]
        out.append("<details><summary>every behaviour feature of every elite (means over its "
                   "games)</summary>" + _table(["cell", *[_esc(f) for f in feats]], rows)
                   + "</details>")
    return "\n".join(out)


def _html(run: RunFiles, images: list[tuple[str, Path, str]], table: pd.DataFrame,
          has_validation: bool, title: str | None) -> str:
    head = title or f"playstyles run report: {run.name}"
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_esc(head)}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>{_esc(head)}</h1>",
             f"<p class=small>written {time.strftime('%Y-%m-%d %H:%M')} from the files of the "
             f"run directory {_esc(run.dir.name)}</p>",
             "<h2>Run</h2>", _summary(run),
             "<h2>How far to trust the elites</h2>", _trust_html(run, has_validation)]
    for heading, path, caption in images:
        parts += [f"<h2>{_esc(heading)}</h2>", f"<p class=small>{_esc(caption)}</p>", _img(path)]
    if has_validation:
        parts.append(_validation_html(run))
    parts += ["<h2>Elites</h2>", _elites_html(run, table), "</body></html>"]
    return "\n".join(parts)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


__all__ = ["Report", "write_report", "elites_table", "elites_with_validation", "format_value"]
