"""The archive explorer: one interactive, self-contained page per run (`explorer.html`).

`write_explorer(run)` writes `explorer.html` into the run directory: the archive heatmap for
any pair of the grid's features, coloured by the win rate, any feature or any script weight,
in the evolved view (each elite at the cell evolution found for it) and, once the run is
validated, the held-out view (each validated elite at the cell its held-out games put it
in); every style that held up is marked wherever it sits, and a table beside the map lists
every elite (sortable, filterable, linked both ways with the map; the map is also used from
the keyboard). A click on a cell or a row opens the elite's card:
its weights (a bar per script), dominant scripts, features and win rate with their 95%
intervals and games from every source (evolution or re-estimation, held out, the control),
its style name and the line that plays it. Shift- or Ctrl-click (or the card's button) adds
elites to a side-by-side comparison.

The page is one file that works offline (opened from the run directory by double-click): the
data is one JSON blob built here from the run directory's files only (`qd.rundir`: damaged
tables are refused as everywhere else), and the hand-written `explorer.js` and `explorer.css`
shipped beside this module are inlined at write time; nothing is fetched. The heatmap is
drawn on a canvas, so a 10,000-cell archive loads and answers clicks at once
(`experiments/bench_explorer.py` measures it).

Feature words (each feature's `doc` and `words`, for the axes and the style names) come from
the caller, as for the report (`qd.features.feature_texts`); without them the page shows the
bare feature names.
"""

from __future__ import annotations

import json
import math
import re
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from base.files import atomic_write, read_json
from plots.heatmap import axis_label
from plots.versus import png_data_uri, versus_images
from qd.rundir import (
    ELITES,
    EXPLORER,
    NOT_APART,
    PRESET_KINDS,
    STYLE_COLUMNS,
    VALIDATION,
    VALIDATION_SUMMARY,
    WIDE_INTERVAL,
    WIN_RATE_CI,
    RunFiles,
    csv_true,
    dominant_scripts,
    headline,
    mean_column,
    presets_file,
    se_column,
    std_column,
    style_verdict,
    styles_counted,
    validated_ci_columns,
    validated_column,
    validation_source,
)

DATA_VERSION = 1
"""The version of the page's JSON blob (`explorer_data`)."""
ASSETS = ("explorer.css", "explorer.js")
"""The hand-written style sheet and script inlined into every page (package data)."""
MARK_MEANING = "a style that held up on held-out levels (its number: style #k)"
"""What the map's style marks mean (every counted style is marked where it sits)."""
MIN_GAMES = 8
"""Below this many games an interval is not shown ("too few games"): with fewer, a 95%
interval of a mean is mostly its spread's own noise (4-6 games of a rare event give 0 to 0)."""


def _asset(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def _floats(values: Any) -> list[float | None]:
    """Numbers for JSON: NaN, infinities and missing values become null."""
    out: list[float | None] = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            out.append(None)
            continue
        out.append(x if math.isfinite(x) else None)
    return out


def _column(frame: pd.DataFrame, name: str) -> list[float | None]:
    """A numeric column as JSON numbers, or all null when the table lacks it (an old run)."""
    if name not in frame:
        return [None] * len(frame)
    return _floats(pd.to_numeric(frame[name], errors="coerce"))


def _flags(frame: pd.DataFrame, name: str) -> list[bool | None]:
    """A true/false column read back from CSV (null where empty or absent)."""
    if name not in frame:
        return [None] * len(frame)
    return [None if v is None or v != v or str(v).strip() == "" else csv_true(v)
            for v in frame[name]]


def _describe(feature: Any, name: str, level: int) -> str:
    """A low (0), middle (1) or high (2) value of a feature in words (its registered words,
    else `low <name>`), as exported presets name styles (`qd.export.style_name`)."""
    words = tuple(getattr(feature, "words", ()) or ())
    if len(words) == 3:
        return str(words[level])
    return f"{('low', 'medium', 'high')[level]} {name}"


def style_name(values: Mapping[str, float | None], axes: list, features: Mapping[str, Any]) -> str:
    """An elite's style in words: the third of each grid feature's range its value is in.

    Args:
        values: grid feature -> the value named (None or NaN: `no <feature>`).
        axes: the grid's axes (`qd.rundir.Axis`).
        features: feature name -> the feature (its words), possibly empty.
    """
    words = []
    for a in axes:
        v = values.get(a.name)
        if v is None or not math.isfinite(v):
            words.append(f"no {a.name}")
            continue
        t = 0.5 if a.hi <= a.lo else (v - a.lo) / (a.hi - a.lo)
        words.append(_describe(features.get(a.name), a.name, 0 if t < 1 / 3 else
                               2 if t > 2 / 3 else 1))
    return ", ".join(words)


def _presets(run: RunFiles) -> dict[str, list[dict[str, str]]]:
    """cell -> the presets of the run directory's preset files (`playstyles export`'s default
    files) made from that elite: file name and preset name. A file that cannot be read is
    left out (it is no table of the run)."""
    out: dict[str, list[dict[str, str]]] = {}
    for kind in PRESET_KINDS:
        path = run.path(presets_file(kind))
        if not path.is_file():
            continue
        try:
            data = read_json(path)
        except ValueError:
            continue
        presets = data.get("presets") if isinstance(data, dict) else None
        for p in presets if isinstance(presets, list) else []:
            ev = p.get("evidence") if isinstance(p, dict) else None
            if isinstance(ev, dict) and isinstance(p.get("name"), str) and "cell" in ev:
                out.setdefault(str(ev["cell"]), []).append({"file": path.name,
                                                            "name": p["name"]})
    return out


def _control(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """The control genome's numbers (validation_summary.json `control`), or None."""
    c = summary.get("control")
    if not isinstance(c, dict):
        return None
    feats = {}
    for f, v in (c.get("features") or {}).items():
        if isinstance(v, dict):
            ci = v.get("ci") if isinstance(v.get("ci"), list) and len(v["ci"]) == 2 else [None, None]
            feats[str(f)] = {"mean": _floats([v.get("mean")])[0], "ci": _floats(ci),
                             "games": v.get("games")}
    out = {"games": c.get("games"), "win_rate": _floats([c.get("win_rate")])[0],
           "win_rate_ci": _floats(c.get("win_rate_ci") or [None, None]), "features": feats}
    if "mean_score" in c:
        out["mean_score"] = _floats([c.get("mean_score")])[0]
        out["mean_score_ci"] = _floats(c.get("mean_score_ci") or [None, None])
    return out


def _status(cols: Mapping[str, list[Any]], k: int, counted: bool,
            summary: Mapping[str, Any], number: Mapping[str, Any]) -> tuple[str, str]:
    """An elite's verdict in words, and its kind (`style`, `same`, `untested`): `held up
    (style #k)`, `not told apart from style #k` (it played the same games as that style:
    validation_summary.json's duplicates), `not told apart from the other styles` (no pair
    of it with a counted style is recorded), or why it has no verdict."""
    if cols.get("v:win_rate", [None] * (k + 1))[k] is None:
        return "not validated", "untested"
    if not counted or cols["distinct"][k] is None:
        return "styles not counted", "untested"
    if cols["distinct"][k]:
        n = cols["style"][k]
        return (f"held up (style #{int(n)})" if n is not None else "held up"), "style"
    named = cols.get("not_apart", [None] * (k + 1))[k]
    if named:  # validation.csv names the styles it differs from in no feature
        return style_verdict(0, named), "same"
    styles = summary.get("styles") if isinstance(summary.get("styles"), dict) else {}
    for group in styles.get("duplicates") or []:
        if isinstance(group, list) and cols["cell"][k] in group:
            same = [int(number[c]) for c in group if c in number]
            if same:
                return f"not told apart from style #{same[0]} (the same games)", "same"
    return "not told apart from the other styles", "same"


def _feature_info(name: str, feature: Any, axis: Any = None) -> dict[str, Any]:
    """A feature's words and declared range (the plug-in's, else the grid's), for axes,
    legends, column heads, and for clipping intervals."""
    doc = str(getattr(feature, "doc", "") or "") if feature is not None else ""
    words = [str(w) for w in (getattr(feature, "words", ()) or ())] if feature is not None \
        else []
    lo = getattr(feature, "lo", None) if feature is not None else None
    hi = getattr(feature, "hi", None) if feature is not None else None
    if lo is None and axis is not None:
        lo, hi = axis.lo, axis.hi
    return {"doc": doc, "words": words if len(words) == 3 else [],
            "label": axis_label(name, feature), "lo": _floats([lo])[0], "hi": _floats([hi])[0]}


def _score_intervals(games: pd.DataFrame | None, index: list[Any]) -> tuple[list, list]:
    """The held-out mean score's 95% interval (Student's t over the elite's games in
    validation_games.csv), per elite; null without the games or with fewer than two."""
    lo: list[float | None] = [None] * len(index)
    hi: list[float | None] = [None] * len(index)
    if games is None or games.empty or "elite_score" not in games or "index" not in games:
        return lo, hi
    from scipy import stats
    score = pd.to_numeric(games["elite_score"], errors="coerce")
    key = pd.to_numeric(games["index"], errors="coerce")
    agg = score.groupby(key).agg(["mean", "std", "count"])
    for k, e in enumerate(index):
        try:
            r = agg.loc[float(e)]
        except (KeyError, TypeError, ValueError):
            continue
        n = int(r["count"])
        if n < 2 or not math.isfinite(r["std"]):
            continue
        half = float(stats.t.ppf(0.975, n - 1) * r["std"] / math.sqrt(n))
        lo[k], hi[k] = _floats([r["mean"] - half, r["mean"] + half])
    return lo, hi


def validation_beside(run: RunFiles, folder: str | Path) -> RunFiles:
    """A folder that holds a later validation of the run's elites (its config.yaml,
    validation.csv, validation_summary.json, validation_games.csv; no archive of its own), read
    as a run directory whose archive is the run's: its tables are checked against the run's
    elites.csv. For `explorer_data(..., validation=)`."""
    other = RunFiles(folder)
    other._cache[ELITES] = run.elites  # its validation is of these elites
    return other.check(VALIDATION, VALIDATION_SUMMARY)


def _evolved_columns(elites: pd.DataFrame, scripts: Sequence[str], stats: Sequence[str]
                     ) -> dict[str, list[Any]]:
    """The page's columns from elites.csv: cell, evolution numbers, feature means and their
    standard errors, weights and the dominant scripts."""
    n = len(elites)
    cols: dict[str, list[Any]] = {"cell": [str(c) for c in elites.get("cell", [])]}
    for c in ("win_rate", "wins", "games", "mean_score", "objective", "batch", "evaluation"):
        cols[c] = _column(elites, c)
    cols["ci_low"], cols["ci_high"] = (_column(elites, c) for c in WIN_RATE_CI)
    games = pd.to_numeric(elites["games"], errors="coerce").to_numpy(float) if n else np.zeros(0)
    for f in stats:
        cols[f"mean:{f}"] = _column(elites, mean_column(f))
        if se_column(f) in elites:
            cols[f"se:{f}"] = _column(elites, se_column(f))
        else:  # an older run: the standard error from the (population) spread, as written now
            with np.errstate(divide="ignore", invalid="ignore"):
                sd = pd.to_numeric(elites[std_column(f)], errors="coerce").to_numpy(float)
                cols[f"se:{f}"] = _floats(np.where(games > 1, sd / np.sqrt(games - 1), np.nan))
    for w in scripts:
        cols[f"w:{w}"] = _column(elites, w)
    cols["dominant"] = [dominant_scripts({w: r[w] for w in scripts}) if scripts else ""
                        for r in elites[scripts].to_dict("records")] if n else []
    return cols


def _validated_columns(cols: dict[str, list[Any]], vgrid: np.ndarray, elites: pd.DataFrame,
                       v: pd.DataFrame, axes: Sequence[Any], checked: RunFiles) -> None:
    """Add the held-out columns (validation.csv joined to the elites, in their order) to
    `cols`, and each elite's held-out cell to `vgrid`."""
    n = len(elites)
    joined = elites[["index"]].merge(v, on="index", how="left")
    at = joined["validated_grid_index"] if "validated_grid_index" in joined \
        else joined["grid_index"]
    for k, g in enumerate(at):
        if isinstance(g, str) or (g is not None and g == g):
            vgrid[k] = [int(x) for x in str(g).split(",")]
    for c in ("win_rate", "games", "wins", "mean_score"):
        cols[f"v:{c}"] = _column(joined, validated_column(c))
    cols["v:ci_low"], cols["v:ci_high"] = (_column(joined, c) for c in WIN_RATE_CI)
    for a in axes:
        cols[f"v:{a.name}"] = _column(joined, validated_column(a.name))
        lo, hi = validated_ci_columns(a.name)
        cols[f"v:ci_low:{a.name}"] = _column(joined, lo)
        cols[f"v:ci_high:{a.name}"] = _column(joined, hi)
    cols["v:cell"] = [str(c) if isinstance(c, str) else None
                      for c in joined.get("validated_cell", pd.Series([None] * n))]
    cols["style"] = _column(joined, STYLE_COLUMNS[0])
    cols["not_apart"] = [x if isinstance(x, str) else None
                         for x in joined.get(NOT_APART, pd.Series([None] * n))]
    for c, key in zip(STYLE_COLUMNS[1:], ("distinct", "differs", "noninferior")):
        cols[key] = _flags(joined, c)
    try:  # per-game scores are optional: a table the checks refuse gives no interval
        per_game = checked.validation_games
    except ValueError:
        per_game = None
    cols["v:score_low"], cols["v:score_high"] = _score_intervals(per_game,
                                                                 list(elites["index"]))


def explorer_data(run: RunFiles, features: Mapping[str, Any] | None = None,
                  title: str | None = None,
                  validation: RunFiles | None = None) -> dict[str, Any]:
    """Everything the page shows, as one JSON-ready mapping (columns of equal length, one
    entry per elite in elites.csv's order; null where a run lacks a value).

    Args:
        run: the run directory (checked: `RunFiles.check`).
        features: feature name -> the feature (its `doc` and `words`); default bare names.
        title: the page's title (default: names the run).
        validation: another folder holding a validation of the run's elites
            (validation.csv, validation_summary.json, validation_games.csv), as a committed
            run keeps a later one beside it; default the run directory's own.
    """
    features = features or {}
    checked = validation if validation is not None else run
    axes = run.axes
    elites = run.elites
    n = len(elites)
    scripts = run.weight_columns()
    stats = run.feature_columns() if not elites.empty else []
    v = checked.validation
    validated = v is not None and not v.empty
    summary = (checked.validation_summary or {}) if validated else {}
    counted = validated and styles_counted(summary) and "distinct" in v
    cols = _evolved_columns(elites, scripts, stats)
    grid = run.grid_indices() if n else np.zeros((0, len(axes)), dtype=int)
    vgrid = np.full((n, len(axes)), -1, dtype=int)
    if validated:
        _validated_columns(cols, vgrid, elites, v, axes, checked)
    number = {c: cols["style"][j] for j, c in enumerate(cols["cell"])
              if counted and cols["distinct"][j] and cols["style"][j] is not None}
    status = [_status(cols, k, bool(counted), summary, number) for k in range(n)]
    cols["status"] = [t for t, _ in status]
    cols["status_kind"] = [kind for _, kind in status]
    names = []
    for k in range(n):
        held = validated and cols["v:win_rate"][k] is not None
        vals = {a.name: (cols[f"v:{a.name}"][k] if held else
                         cols.get(f"mean:{a.name}", [None] * n)[k]) for a in axes}
        names.append(style_name(vals, axes, features))
    cols["style_name"] = names
    scored = summary.get("styles", {}).get("quality") == "score" if counted else False
    return {
        "version": DATA_VERSION,
        "title": title or f"playstyles archive explorer: {run.name}",
        "run": run.name,
        "where": str(run.dir) if not run.dir.is_absolute() else run.dir.name,
        "folder": run.dir.name,
        "game": str(run.config.get("game", "")),
        "opponent": (run.config.get("opponent") or {}).get("name"),
        "axes": [{"name": a.name, "lo": a.lo, "hi": a.hi, "width": a.width, "bins": a.bins,
                  "label": axis_label(a.name, features.get(a.name))} for a in axes],
        "scripts": scripts,
        "stats": stats,
        "features": {f: _feature_info(f, features.get(f), next(
            (a for a in axes if a.name == f), None)) for f in dict.fromkeys(
            [a.name for a in axes] + list(stats))},
        "min_games": MIN_GAMES,
        "n": n,
        "grid": grid.ravel().tolist(),
        "vgrid": vgrid.ravel().tolist(),
        "cols": cols,
        "sources": {"evolved": run.elites_source,
                    "held": validation_source(summary) if validated else None},
        "validated": validated,
        "counted": bool(counted),
        "score_quality": bool(scored),
        "headline": headline(summary) if validated else
        "No style has been checked on held-out levels: validate the run (the command is "
        "beside the held-out view).",
        "control": _control(summary) if validated else None,
        "wide": WIDE_INTERVAL,
        "mark": MARK_MEANING,
        "presets": _presets(run),
        "versus": [{"heading": h, "alt": path.name, "src": png_data_uri(path), "caption": c}
                   for h, path, c in versus_images(run)],
    }


PACKED = "packed"
"""The page data's key for its packed text columns: name -> the column's distinct values;
the column itself then holds each row's position in that list (a style name or a status
repeated over thousands of elites is written once). The page unpacks them as it loads."""


def pack_columns(data: Mapping[str, Any]) -> dict[str, Any]:
    """The data with every text column that repeats its values (fewer distinct values than a
    quarter of its rows) packed (`PACKED`); `unpack_columns` gives the data back."""
    cols, packed = dict(data.get("cols", {})), {}
    for name, values in cols.items():
        if not values or not all(isinstance(v, str) or v is None for v in values):
            continue
        distinct = list(dict.fromkeys(values))
        if 4 * len(distinct) < len(values):
            at = {v: k for k, v in enumerate(distinct)}
            cols[name] = [at[v] for v in values]
            packed[name] = distinct
    return {**data, "cols": cols, PACKED: packed} if packed else dict(data)


def unpack_columns(data: Mapping[str, Any]) -> dict[str, Any]:
    """The data as `explorer_data` made it, from the page's (packed) data."""
    packed = data.get(PACKED) or {}
    cols = {name: [packed[name][k] for k in values] if name in packed else values
            for name, values in data.get("cols", {}).items()}
    return {**{k: v for k, v in data.items() if k != PACKED}, "cols": cols}


LATE = ("se:", "v:ci_low:", "v:ci_high:", "w:", "dominant", "evaluation", "batch")
"""The columns only an elite's card, the comparison, the filter or a colour chosen later
read (name prefixes): written after the page's script, so that the map is drawn before the
browser has read them (`split_late`)."""


LATE_COLUMNS = ("objective", "wins", "v:wins", "not_apart", "v:cell")
"""Whole columns the page reads only later, or not at all (they are kept for readers of the
page's data, `page_data`)."""


def split_late(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the data the map and the table are drawn from, the columns read later: `LATE`,
    `LATE_COLUMNS`, every feature's held-out mean and the evolved mean of a feature that is
    no axis of the grid)."""
    cols, stats = data.get("cols", {}), set(data.get("stats", ()))
    axes = {f"mean:{a['name']}" for a in data.get("axes", ())}

    def later(k: str) -> bool:
        return k.startswith(LATE) or k in LATE_COLUMNS or (k.startswith("v:") and k[2:] in stats) \
            or (k.startswith("mean:") and k not in axes)
    late = {k: v for k, v in cols.items() if later(k)}
    return {**data, "cols": {k: v for k, v in cols.items() if k not in late}}, {"cols": late}


def page_data(page: str) -> dict[str, Any]:
    """The data of an explorer page (its text), as `explorer_data` made it.

    Args:
        page: explorer.html's text.
    """
    found = re.search(r'id="explorer-data">(.*?)</script>', page, re.S)
    if found is None:
        raise ValueError("not an explorer page: it holds no explorer-data")
    data = unpack_columns(json.loads(found.group(1)))
    more = re.search(r'id="explorer-more">(.*?)</script>', page, re.S)
    if more is not None:
        data["cols"].update(unpack_columns(json.loads(more.group(1)))["cols"])
    return data


def data_script(data: Mapping[str, Any]) -> str:
    """The data as JSON that is safe inside a `<script>` element: no `</script>`, comment
    or CDATA opener can end or change the element (`<`, `>`, `&` and the JavaScript line
    separators escaped as \\uXXXX, which JSON reads back unchanged); repeated text columns
    packed (`pack_columns`)."""
    text = json.dumps(pack_columns(data), allow_nan=False, ensure_ascii=False,
                      separators=(",", ":"))
    for ch in ("<", ">", "&", "\u2028", "\u2029"):
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def explorer_html(data: Mapping[str, Any]) -> str:
    """The page: the data, the style sheet and the script, in one file.

    Args:
        data: `explorer_data`.
    """
    css, js = (_asset(a) for a in ASSETS)
    title = _escape(str(data.get("title", "")))
    first, late = split_late(data)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title>\n<style>\n{css}</style></head>\n<body>\n"
            f"<noscript>This page needs JavaScript to draw the archive.</noscript>\n"
            f"<script type=\"application/json\" id=\"explorer-data\">{data_script(first)}"
            f"</script>\n<script>\n{js}</script>\n"
            f"<script type=\"application/json\" id=\"explorer-more\">{data_script(late)}"
            f"</script>\n</body></html>\n")


def write_explorer(run: RunFiles | str | Path, features: Mapping[str, Any] | None = None,
                   title: str | None = None) -> Path:
    """Write explorer.html into the run directory.

    Args:
        run: the run directory (or its `RunFiles`).
        features: feature name -> the feature (its `doc` and `words`; the caller loads them
            from the game's code, `qd.features.feature_texts`; default: bare names).
        title: the page's title (default: names the run).

    Returns:
        The page's path.
    """
    run = run if isinstance(run, RunFiles) else RunFiles(run).check()
    return atomic_write(run.path(EXPLORER), explorer_html(explorer_data(run, features, title)))


__all__ = ["explorer_data", "validation_beside", "explorer_html", "write_explorer", "data_script",
           "style_name", "page_data", "pack_columns", "unpack_columns", "split_late", "PACKED",
           "LATE"]
