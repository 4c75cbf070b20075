"""The run report: every picture and table of a run directory, and one HTML page with all of it.

`write_report(run_dir)` writes into the run directory:

    heatmap_win_rate.png        the archive (Figure 1 of the paper): the elites' win rates
    heatmap_win_rate_validated.png  the validated elites at the cells their held-out games put
                                them in, coloured by held-out win rate (once validated)
    heatmap_<field>.png         the same grid coloured by another stored field (`fields`)
    progress.png                cells filled, QD score, best win rate against evaluations
    validation.png              evolved vs validated positions (when validation.csv exists)
    elites_table.csv            one row per elite: quality, grid features, weights by script
    report.html                 all of the above in one self-contained page (images inlined)
    explorer.html               the archive explorer: an interactive page (`plots.explorer`)

The page leads with what held up: for a validated run, the validation's verdict (how many
distinct styles held up on held-out levels) and the evolved and held-out heatmaps side by side,
the elites not told apart from the styles that held up marked on both; for a run not
validated, that no style has been checked and the command that checks them. Every number
names the games it comes from (evolution, re-estimation on fresh games, or held-out games).

It reads files only (config.yaml, elites.csv, metrics.csv, validation.csv and
validation_summary.json, through `qd.rundir`, the run directory's schema), so any run directory
can be re-reported, also one copied from a cluster to a laptop without the code's Python
objects. Only the axis labels ask for more: each feature's doc and words come from the game's
code (`qd.features`) when it can be loaded, else the axes carry the bare feature names.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from base.files import atomic_write
from plots.curves import draw_progress, progress_data
from plots.explorer import write_explorer
from plots.heatmap import Heatmap, axis_label, draw_heatmap, format_value, heatmap_data
from plots.numbers import num_text, pct_text
from plots.validation import draw_validation
from plots.versus import png_data_uri, versus_images
from qd.rundir import (
    ELITES_TABLE,
    NOT_APART,
    PROGRESS_CHART,
    REPORT,
    STYLE_COLUMNS,
    VALIDATION_CHART,
    WIDE_INTERVAL,
    WIN_RATE_CI,
    RunFiles,
    command_path,
    csv_true,
    dominant_scripts,
    evolved_column,
    headline,
    heatmap_file,
    mean_column,
    std_column,
    style_verdict,
    styles_counted,
    styles_text,
    validated_ci_columns,
    validated_column,
    validated_columns,
    validation_source,
)

VALIDATED_FIELDS = tuple(validated_column(c) for c in ("win_rate", "games", "mean_score"))
WIN_RATE_VALIDATED = VALIDATED_FIELDS[0]
NOT_HELD = "not_held_up"
"""A column the report adds: a validated elite that is not one of the distinct styles (the
heatmaps mark it); NaN for an elite not validated or a validation that counted no styles."""
MARK_MEANING = "was not told apart from the styles that held up on held-out levels"
DOMINANT = "dominant_scripts"
"""elites_table.csv: the elite's two highest-weighted scripts with their weights."""
TABLE_ROWS = 300
"""report.html lists at most this many rows of each per-elite table (the distinct styles,
Table II, the elites and their features): the first in the table's order (strongest style,
best held-out win rate, best elite first). The rest of a larger archive is one click away in
explorer.html (its table of every elite sorts and filters) and in the run directory's CSV
files; the page says how many rows it shows of how many."""


@dataclass
class Report:
    """What `write_report` wrote.

    Args:
        run_dir: the run directory.
        html: report.html.
        explorer: explorer.html (`plots.explorer`).
        files: every file written.
        heatmaps: the data of each heatmap drawn, by field (`win_rate`: at the evolved
            cells; `win_rate_validated`: at the validated cells).
        table: the elites table (elites_table.csv).
        headline: the page's first line: the validation's verdict, or that the run is not
            validated.
    """

    run_dir: Path
    html: Path
    explorer: Path | None = None
    files: list[Path] = field(default_factory=list)
    heatmaps: dict[str, Heatmap] = field(default_factory=dict)
    table: pd.DataFrame | None = None
    headline: str = ""


def _short(source: str) -> str:
    """A source's first word(s): `evolution`, `re-estimation`, `held out`, `replayed`."""
    return source.split(" (")[0]


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
    keep += [c for c in ("validated_cell", "validated_grid_index", *STYLE_COLUMNS, NOT_APART)
             if c in v]
    ci = {c: validated_column(c) for c in WIN_RATE_CI if c in v}  # the validated interval
    out = elites.merge(v[keep + list(ci)].rename(columns=ci), on="index", how="left")
    if "distinct" in out:  # one new column joined at once (a frame read from CSV keeps one
        # block per column, and inserting into it one by one is slow)
        held = out["distinct"].map(
            lambda d: (not csv_true(d)) if d is not None and d == d else np.nan)
        out = pd.concat([out, held.rename(NOT_HELD)], axis=1)
    return out



def held_out_frame(run: RunFiles) -> pd.DataFrame:
    """validation.csv placed at the validated cells: `grid_index` and `cell` are where each
    elite's held-out games put it (`validated_grid_index`, `validated_cell`; the evolved ones
    for a validation that lacks them), `elite` is its own cell in elites.csv, the win-rate
    interval is under its validated name, and `not_held_up` marks the elites that are not
    distinct styles. Where two elites land in one cell the map shows one (`objective`): a
    distinct style before the others, then the higher held-out win rate.

    Args:
        run: a run directory holding validation.csv.
    """
    v = run.validation.copy()
    v["elite"] = v["cell"].astype(str)
    if "validated_grid_index" in v:
        v["grid_index"] = v["validated_grid_index"]
        v["cell"] = v["validated_cell"].astype(str)
    v = v.rename(columns={c: validated_column(c) for c in WIN_RATE_CI if c in v})
    v["objective"] = v[WIN_RATE_VALIDATED].astype(float)
    if "distinct" in v:
        v[NOT_HELD] = ~v["distinct"].map(csv_true)
        v["objective"] += 2.0 * (~v[NOT_HELD])
    return v


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
    cols += [c for c in (*STYLE_COLUMNS[:2], NOT_APART) if c in frame]
    weights = run.weight_columns()
    dominant = pd.Series([dominant_scripts(dict(zip(weights, r)))
                          for r in frame[weights].itertuples(index=False)],
                         index=frame.index, name=DOMINANT, dtype=object)
    cols += [DOMINANT, *weights]
    cols += [c for c in ("evaluation", "batch") if c in frame]
    cols = [c for c in cols if c in frame or c == DOMINANT]
    out = pd.concat([frame[[c for c in cols if c != DOMINANT]], dominant], axis=1)[cols]
    return out.sort_values(["win_rate", "mean_score"], ascending=False, kind="stable") \
        .reset_index(drop=True)


def write_report(run_dir: str | Path, fields: Sequence[str] = (),
                 title: str | None = None,
                 features: Mapping[str, Any] | None = None) -> Report:
    """Write every figure, the elites table and report.html into the run directory.

    Args:
        run_dir: the run directory.
        fields: more heatmaps: numeric columns of elites.csv (or validated ones).
        title: the page's title (default: names the run).
        features: feature name -> the feature (its `doc` and `words` label the axes; the
            caller loads them from the game's code, `qd.features.feature_texts`; default:
            bare names).
    """
    run = RunFiles(run_dir).check()  # every file it reads, before anything is written
    d = run.dir
    report = Report(d, run.path(REPORT))
    features = features or {}
    labels = {a.name: axis_label(a.name, features.get(a.name)) for a in run.axes}
    merged = elites_with_validation(run)
    has_validation = run.validation is not None and not run.validation.empty
    summary = (run.validation_summary or {}) if has_validation else {}
    counted = has_validation and styles_counted(summary) and "distinct" in run.validation
    source = run.elites_source
    held = validation_source(summary) if has_validation else ""
    pair: list[Path] = []  # the evolved and the held-out heatmap, side by side
    images: list[tuple[str, Path, str]] = []  # (heading, file, caption)
    if not merged.empty:
        placed = held_out_frame(run) if has_validation else None
        both = [run.grid_indices(merged)] + ([run.grid_indices(placed)] if has_validation else [])
        span = np.vstack(both)
        mark = NOT_HELD if counted else None
        hm = heatmap_data(run, "win_rate", merged, mark=mark, include=span, labels=labels)
        hm.mark_label = MARK_MEANING
        pair.append(draw_heatmap(hm, run.path(heatmap_file("win_rate")),
                                 title=f"win rate of each cell's elite, from {source}"))
        report.heatmaps["win_rate"] = hm
        if has_validation:
            at = "its held-out cell" if "validated_grid_index" in run.validation \
                else "its evolved cell (this validation stores no held-out cell)"
            hv = heatmap_data(run, WIN_RATE_VALIDATED, placed, mark=mark, include=span,
                              labels=labels)
            hv.mark_label = MARK_MEANING
            if len(placed) > hv.elites:
                hv.note = "; ".join(filter(None, [hv.note, f"{len(placed)} validated elites "
                                                           f"landed in {hv.elites} cells"]))
            pair.append(draw_heatmap(hv, run.path(heatmap_file(WIN_RATE_VALIDATED)),
                                     title=f"win rate of each validated elite at {at}, "
                                           f"from {held}"))
            report.heatmaps[WIN_RATE_VALIDATED] = hv
        report.files += pair
        for f in [f for f in fields if f not in report.heatmaps]:
            hf = heatmap_data(run, f, merged, labels=labels)
            from_ = held if f.endswith("_validated") else source
            path = draw_heatmap(hf, run.path(heatmap_file(f)),
                                title=f"{f.replace('_', ' ')} of each cell's elite, from "
                                      f"{from_}")
            report.heatmaps[f] = hf
            report.files.append(path)
            images.append((f"Archive: {f.replace('_', ' ')}", path,
                           f"Each cell's elite; numbers are the coloured values, from {from_}."))
    if run.metrics is not None and not run.metrics.empty:
        path = draw_progress(progress_data(run), run.path(PROGRESS_CHART), title=run.name)
        report.files.append(path)
        images.append(("Progress", path, "Per batch, against genomes evaluated (evolution)."
                       + (" The last step is the closing batch, where every elite was "
                          "re-estimated on fresh games." if run.reestimated else "")))
    images += versus_images(run)
    if has_validation:
        path = draw_validation(run, run.path(VALIDATION_CHART))
        report.files.append(path)
    table = elites_table(run)
    report.table = table
    if not table.empty:
        p = run.path(ELITES_TABLE)
        atomic_write(p, table.to_csv(index=False))
        report.files.append(p)
    report.headline = (headline(summary) if has_validation else
                       "No style has been checked on held-out levels: validate the run "
                       f"(playstyles validate {command_path(run.dir)}).")
    page = _html(run, pair, images, table, has_validation, title, report.headline)
    atomic_write(report.html, page)
    report.files.append(report.html)
    report.explorer = write_explorer(run, features, title)
    report.files.append(report.explorer)
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
.verdict{font-size:1.15em;margin:0.8em 0}
.pair{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.pair img{max-width:49%;flex:1 1 30em}
"""


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _num(x: Any, digits: int = 3) -> str:
    """A number as both pages print it (`plots.numbers.num_text`: 3 significant digits);
    other `digits` for the run's totals; n/a when missing; text that is no number as is."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "n/a" if x is None else _esc(x)
    if not math.isfinite(v):
        return "n/a"
    return num_text(v) if digits == 3 else f"{v:.{digits}g}"


def _pct(x: Any) -> str:
    return pct_text(x)


def _img(path: Path, alt: str = "") -> str:
    """An image inlined as data; its text alternative says what it shows (its file's name
    when no words are given)."""
    said = f"{alt} ({path.name})" if alt else path.name
    return f'<img alt="{_esc(said)}" src="{png_data_uri(path)}">'


def _table(headers: list[str], rows: list[list[str]], left: int = 1,
           label: str = "table") -> str:
    """An HTML table from formatted (escaped) cells; the first `left` columns left-aligned.
    Its box scrolls sideways when the table is wider than the page, so it is a named region
    that the keyboard reaches (Tab, then the arrow keys scroll it)."""
    h = "".join(f'<th class="{"l" if i < left else ""}">{c}</th>' for i, c in enumerate(headers))
    h = f"<tr>{h}</tr>" if any(headers) else ""
    body = []
    for r in rows:
        body.append("<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>'
                                     for i, c in enumerate(r)) + "</tr>")
    return (f'<div class="wrap" tabindex="0" role="region" aria-label="{_esc(label)}">'
            f'<table>{h}{"".join(body)}</table></div>')


def _first_rows(shown: int, total: int, what: str, files: str) -> str:
    """The line above a table cut to its first rows, saying where all of them are ("" when
    the table is whole)."""
    if total <= shown:
        return ""
    return (f'<p class="small">The first {shown} of {total} {what}. All {total} are in '
            f'<a href="explorer.html">explorer.html</a> beside this page (its table of every '
            f'elite sorts by any column and filters by text) and in {files}.</p>')


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
                 (f"QD score ({_short(run.elites_source)})", _num(last["qd_score"], 4)),
                 (f"best win rate ({_short(run.elites_source)})",
                  _pct(last["best_win_rate"]))]
        if "elapsed_seconds" in last:
            rows.append(("run time", f"{float(last['elapsed_seconds']) / 60:.1f} min"))
    return _table(["", ""], [[_esc(k), _esc(v)] for k, v in rows], left=2, label="the run")


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
    where = _esc(command_path(run.dir, page=True))
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


def _verdict_html(run: RunFiles, has_validation: bool, line: str) -> str:
    """The top of the page: what held up on held-out levels, or that nothing was checked."""
    where = _esc(command_path(run.dir, page=True))
    source = _esc(run.elites_source)
    if not has_validation:
        return (f'<p class="verdict"><b>No style in this report has been checked on held-out '
                f'levels.</b></p><p>Every number below comes from {source} on the training '
                f'levels the elites were chosen on. <code>playstyles validate {where}</code> '
                f'replays the elites on held-out levels, beside the control (the default '
                f'weights), and counts the distinct styles that hold up.</p>')
    s = run.validation_summary or {}
    parts = [f'<p class="verdict"><b>{_esc(line)}</b></p>']
    if not styles_counted(s) or "distinct" not in run.validation:
        parts.append(f"<p>This validation was written before distinct styles were counted, so "
                     f"no style has been tested against the others: validate again "
                     f"(<code>playstyles validate {where}</code>).</p>")
    else:
        parts += [f'<p class="small">{_esc(t)}</p>' for t in styles_text(s)]
    parts.append(f'<p class="small">Held-out numbers come from {_esc(validation_source(s))}; '
                 f'the other numbers of the elites from {source}.</p>')
    return "\n".join(parts)


PAIR_ALT = ("heatmap of the evolved archive: each cell's elite coloured by its win rate",
            "heatmap of the held-out archive: each validated elite at its held-out cell, "
            "coloured by its held-out win rate")
"""The text alternatives of the two heatmaps at the top of report.html (their titles and
the caption beside them give the numbers)."""


def _pair_html(run: RunFiles, pair: list[Path], has_validation: bool) -> str:
    """The evolved heatmap and the held-out one, side by side, with what they show."""
    if not pair:
        return ""
    s = run.validation_summary or {}
    source = _esc(run.elites_source)
    text = (f"Left: each cell's elite at the cell evolution found for it, coloured by its win "
            f"rate from {source}.")
    if has_validation:
        counted = styles_counted(s) and "distinct" in run.validation
        text += (f" Right: each validated elite at the cell its held-out games put it in, "
                 f"coloured by its held-out win rate, from {_esc(validation_source(s))}; where "
                 f"two land in one cell, a distinct style is shown before the others, then "
                 f"the higher win rate.")
        text += (f" A grey cross marks an elite that {MARK_MEANING}, on both maps (elites not "
                 f"validated carry none)." if counted else
                 " Distinct styles were not counted by this validation, so no cell is marked.")
    text += (f" Hatching: a win rate whose 95% interval is wider than "
             f"{100 * WIDE_INTERVAL:.0f} points; n = games behind each value.")
    heading = "Archive: evolved and held out" if has_validation else "Archive: win rate"
    return (f"<h2>{heading}</h2><p class=small>{text}</p>"
            f'<div class="pair">{"".join(_img(p, alt) for p, alt in zip(pair, PAIR_ALT))}'
            f'</div>')


def _styles_html(run: RunFiles, features: Sequence[str]) -> str:
    """The distinct styles, strongest first: held-out values with their intervals, the
    comparison with the control and the dominant scripts."""
    v = run.validation
    s = run.validation_summary or {}
    if v is None or "style" not in v or not styles_counted(s):
        return ""
    styles = v[v["style"].fillna(0).astype(int) > 0].sort_values("style", kind="stable")
    if styles.empty:
        return ("<h2>Distinct styles</h2><p>No elite held up as a distinct style on these "
                "games.</p>")
    total = len(styles)
    styles = styles.head(TABLE_ROWS)
    weights = run.weight_columns()
    shown = run.elites[run.elites["index"].isin(styles["index"])]
    dominant = {int(i): dominant_scripts(dict(zip(weights, w))) for i, w in
                zip(shown["index"], shown[weights].itertuples(index=False))} if weights else {}
    ci_low, ci_high = WIN_RATE_CI
    headers = ["style", "cell (evolved &rarr; held out)",
               "held-out win rate<br><span class=small>(95% interval)</span>",
               *[f"{_esc(f)}<br><span class=small>held-out mean (95% interval)</span>"
                 for f in features], "vs control", "dominant scripts"]
    rows = []
    for r in styles.to_dict("records"):
        row = [f"#{int(r['style'])}",
               f"{_esc(r['cell'])} &rarr; {_esc(r.get('validated_cell', r['cell']))}",
               f"{_pct(r.get(WIN_RATE_VALIDATED))} <span class=small>"
               f"({_pct(r.get(ci_low))}-{_pct(r.get(ci_high))})</span>"]
        for f in features:
            lo, hi = (r.get(c) for c in validated_ci_columns(f))
            row.append(f"{_num(r.get(validated_column(f)))} <span class=small>"
                       f"({_num(lo)} to {_num(hi)})</span>")
        control = []
        if csv_true(r.get("differs_from_control")):
            control.append("differs")
        elif r.get("differs_from_control") is not None and r.get("differs_from_control") == \
                r.get("differs_from_control"):
            control.append("no feature differs")
        if r.get("non_inferior") is not None and r.get("non_inferior") == r.get("non_inferior"):
            control.append("non-inferior" if csv_true(r.get("non_inferior"))
                           else "not shown non-inferior")
        row.append(_esc(", ".join(control)) if control else "n/a")
        row.append(_esc(dominant.get(int(r["index"]), "n/a")))
        rows.append(row)
    return ("<h2>Distinct styles</h2>"
            + _first_rows(len(styles), total, "distinct styles, strongest first",
                          "validation.csv (its column style)")
            + f"<p class=small>Strongest first; every value from "
            f"{_esc(validation_source(s))}. Dominant scripts: the two highest weights of the "
            f"elite's genome.</p>" + _table(headers, rows, left=2, label="distinct styles"))


def _validation_html(run: RunFiles) -> str:
    v = run.validation
    s = run.validation_summary or {}
    mine = _short(run.elites_source)
    held = _short(validation_source(s)) if s else "validated"
    parts = ["<h2>Validation: the elites replayed on fresh seeds</h2>"]
    if s:
        parts.append(f'<p class="small">{_num(s.get("elites", len(v)))} elites, '
                     f'{_num(s.get("games_per_elite"))} games each on '
                     f'{len(s.get("levels") or [])} levels '
                     + (f'against {_esc(s.get("opponent", "?"))}'
                        if s.get("opponent", "?") else "(the genome plays alone)") +
                     f'; seeds from the run seed {_esc(s.get("seed", "?"))}.</p>')
        rows = []
        for name, rho in (s.get("spearman") or {}).items():
            rows.append([_esc(name), _num(rho, 3)])
        share = [["validated features in the elite's own cell", _pct(s.get("same_cell_share"))],
                 ["... in its own cell or a neighbour", _pct(s.get("neighbour_share"))],
                 [f"mean win rate, {mine}", _pct(s.get("mean_win_rate_evolved"))],
                 [f"mean win rate, {held}", _pct(s.get("mean_win_rate_validated"))]]
        c = s.get("corrected")
        if c:  # the archive rebuilt from the replayed estimates
            share += [[f"QD score, {mine} / corrected ({held})",
                       f"{_num(c.get('qd_score_evolved'), 4)} / {_num(c.get('qd_score'), 4)}"],
                      [f"cells, {mine} / corrected ({held})",
                       f"{_num(c.get('cells_evolved'))} / {_num(c.get('cells'))}"]]
            share += [[f"mean absolute gap {mine} vs {held}, {name}",
                       _pct(g) if name == "win_rate" else _num(g)]
                      for name, g in (s.get("mean_abs_gap") or {}).items()]
            share += [[f"on {group.replace('_', '-')} levels: mean win rate (gap), games",
                       f"{_pct(g.get('mean_win_rate'))} ({_pct(g.get('mean_abs_gap_win_rate'))}), "
                       f"{_num(g.get('games'))}"]
                      for group, g in (s.get("by_level_group") or {}).items()]
        parts.append(f"<p>Rank correlation (Spearman) between the {_esc(mine)} values and "
                     f"the {_esc(held)} values over all validated elites:</p>")
        parts.append(_table(["value", "Spearman rho"], rows, label="rank correlations"))
        parts.append(_table(["", ""], [[_esc(a), b] for a, b in share], left=2,
                            label="validation in numbers"))
    path = run.path(VALIDATION_CHART)
    if path.exists():
        parts.append(_img(path, "each validated elite's evolved and held-out position, "
                                "and its evolved against its held-out win rate"))
    parts.append(f"<p>Table II of the paper for these elites ({_esc(mine)} / "
                 f"{_esc(held)}):</p>")
    parts.append(table_two_html(run))
    return "\n".join(parts)


def table_two_html(run: RunFiles) -> str:
    """Table II of the paper (evolved / validated) as an HTML table, best validated first.

    Args:
        run: a run directory holding validation.csv.
    """
    v = run.validation
    axes = run.axes
    mine = _short(run.elites_source)
    s = run.validation_summary or {}
    held = _short(validation_source(s)) if s else "validated"
    both = f"<span class=small>{_esc(mine)} / {_esc(held)}</span>"
    headers = ["cell", f"win rate<br>{both}", *[_esc(a.name) for a in axes], "validated cell",
               f"games<br>{both}"]
    rows = []
    ci_low, ci_high = WIN_RATE_CI
    best = v.sort_values(WIN_RATE_VALIDATED, ascending=False, kind="stable").head(TABLE_ROWS)
    for r in best.itertuples():
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
    return _first_rows(len(best), len(v), "validated elites, best held-out win rate first",
                       "validation.csv") + _table(headers, rows, label="Table II")


def _elites_html(run: RunFiles, table: pd.DataFrame) -> str:
    if table.empty:
        return "<p>No elite yet.</p>"
    axes = run.axes
    weights = run.weight_columns()
    validated = WIN_RATE_VALIDATED in table
    styled = "style" in table
    mine = _short(run.elites_source)
    headers = ["cell", f"win rate, {_esc(mine)}<br><span class=small>(95% interval)</span>",
               "wins / games", "mean score"]
    headers += [f"{_esc(a.name)}<br><span class=small>mean &plusmn; sd, {_esc(mine)}</span>"
                for a in axes]
    if validated:
        headers.append("held-out<br>win rate")
    if styled:
        headers.append("style")
    headers.append("dominant scripts")
    headers += [f'<span title="{_esc(w)}">{_esc(w)}</span>' for w in weights]
    rows = []
    for r in table.head(TABLE_ROWS).to_dict("records"):
        low, high = (r.get(c) for c in WIN_RATE_CI)
        interval = f" <span class=small>({_pct(low)}-{_pct(high)})</span>" if low is not None \
            else ""
        row = [_esc(r["cell"]), _pct(r["win_rate"]) + interval,
               f"{int(r['wins'])} / {int(r['games'])}", _num(r["mean_score"])]
        for a in axes:
            mean, sd = r.get(mean_column(a.name)), r.get(std_column(a.name))
            row.append(f"{_num(mean)} &plusmn; {_num(sd, 2)}")
        if validated:
            row.append(_pct(r.get(WIN_RATE_VALIDATED)))
        if styled:
            k = r.get("style")
            row.append(_esc(style_verdict(k, r.get(NOT_APART))) if k == k and k is not None
                       else "-")
        row.append(_esc(r.get(DOMINANT, "")))
        for w in weights:
            val = float(r[w])
            row.append(f'<span style="display:inline-block;min-width:2.5em;'
                       f'background:rgba(31,119,180,{0.08 + 0.6 * val:.2f})">{val:g}</span>')
        rows.append(row)
    held = (f" The held-out win rate comes from "
            f"{_esc(validation_source(run.validation_summary or {}))}." if validated else "")
    out = [f"<p>{len(table)} elites, best first. Weights are the evolved scripts' weights "
           f"(the portfolio's other scripts keep 0.5); the dominant scripts are the two highest "
           f"of them. Win rates and features are means over the elite's games from "
           f"{_esc(run.elites_source)}.{held}</p>",
           _first_rows(len(rows), len(table), "elites, best first", "elites_table.csv"),
           _table(headers, rows, label="elites"), _features_html(run, table)]
    return "\n".join(out)


def _features_html(run: RunFiles, table: pd.DataFrame) -> str:
    """Every registered feature of the elites shown in the elites table (its first
    TABLE_ROWS, in its order), in a fold-out table."""
    feats = run.feature_columns()
    merged = run.elites
    if not feats or merged.empty:
        return ""
    order = {c: i for i, c in enumerate(table["cell"].head(TABLE_ROWS))}
    m = merged.assign(_o=merged["cell"].map(order)).dropna(subset=["_o"]).sort_values("_o")
    rows = [[_esc(r["cell"])] + [_num(r.get(mean_column(f))) for f in feats]
            for r in m.to_dict("records")]
    return ("<details><summary>every behaviour feature of "
            + ("every elite" if len(m) == len(merged) else f"these {len(m)} elites")
            + f" (means over each elite's games, from {_esc(run.elites_source)})</summary>"
            + _first_rows(len(m), len(merged), "elites, best first", "elites.csv")
            + _table(["cell", *[_esc(f) for f in feats]], rows, label="behaviour features")
            + "</details>")


def _html(run: RunFiles, pair: list[Path], images: list[tuple[str, Path, str]],
          table: pd.DataFrame, has_validation: bool, title: str | None, line: str) -> str:
    head = title or f"playstyles run report: {run.name}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{_esc(head)}</title><style>{CSS}</style></head><body><main>",
             f"<h1>{_esc(head)}</h1>",
             f"<p class=small>written {time.strftime('%Y-%m-%d %H:%M')} from the files of the "
             f"run directory {_esc(run.dir.name)}</p>",
             _verdict_html(run, has_validation, line),
             _pair_html(run, pair, has_validation)]
    if has_validation:
        parts.append(_styles_html(run, [a.name for a in run.axes]))
    parts += ["<h2>Run</h2>", _summary(run),
              "<h2>How far to trust the elites</h2>", _trust_html(run, has_validation)]
    for heading, path, caption in images:
        parts += [f"<h2>{_esc(heading)}</h2>", f"<p class=small>{_esc(caption)}</p>",
                  _img(path, f"{heading}: {caption}")]
    if has_validation:
        parts.append(_validation_html(run))
    parts += ["<h2>Elites</h2>", _elites_html(run, table), "</main></body></html>"]
    return "\n".join(parts)


__all__ = ["Report", "write_report", "elites_table", "elites_with_validation", "format_value",
           "held_out_frame"]
