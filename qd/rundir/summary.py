"""The check of validation_summary.json (`check_summary`): every key its readers use of the
type they use it as, its values in range, and validation.csv holding the elites it counts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pandas as pd

from base.limits import short
from qd.rundir.check import _num
from qd.rundir.grid import _cell_keys, cell_keys
from qd.rundir.names import ELITES, VALIDATION, VALIDATION_SUMMARY, command_path

if TYPE_CHECKING:
    from qd.rundir.read import RunFiles

def _keys(node: Any) -> list[Any]:
    """The keys of a JSON object, or the items of a JSON list; nothing for anything else."""
    return list(node) if isinstance(node, (dict, list)) else []


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words (for an error that says what was found instead)."""
    return ("null" if value is None else "an object" if isinstance(value, dict) else
            "an array" if isinstance(value, list) else "a string" if isinstance(value, str)
            else "a number or true/false")


_SUMMARY_OBJECTS = (
    "styles", "styles.sd", "styles.counts", "styles.styles_by_delta", "styles.ties",
    "styles.ties.share", "styles.differs_from_control", "styles.weaker_than_control",
    "styles.non_inferiority", "styles.non_inferiority.*", "styles.identification",
    "styles.identification.per_style", "styles.null", "styles.null.counts", "control",
    "control.genome", "control.features", "control.features.*", "spearman", "corrected",
    "mean_abs_gap", "by_level_group", "by_level_group.*", "settings")
"""validation_summary.json: the keys that hold an object (or null), `*` any key there."""
_SUMMARY_LISTS = (
    "levels", "levels_overlap_training", "cells", "features", "styles.styles",
    "styles.styles_by_delta.*", "styles.duplicates", "styles.duplicates.*",
    "styles.identification.features", "styles.null.genomes", "styles.null.styles")
"""... an array (or null)."""
_SUMMARY_PAIRS = ("control.win_rate_ci", "control.mean_score_ci", "control.features.*.ci")
"""... an array of two numbers, a 95% interval (or null)."""
_SUMMARY_NAMES = ("cells.*", "features.*", "styles.styles.*", "styles.styles_by_delta.*.*",
                  "styles.duplicates.*.*", "styles.null.styles.*")
"""... a name: a cell or a feature."""
_SUMMARY_LEVELS = ("levels.*", "levels_overlap_training.*")
"""... a level: its seed or its name."""
_SUMMARY_WHOLE = (
    "version", "elites", "games_per_elite", "distinct_styles", "distinct_styles_not_weaker",
    "distinct_styles_non_inferior", "null_distinct_styles", "styles.pairs_tested",
    "styles.pairs_differing", "styles.games", "styles.tested", "styles.counts.*",
    "styles.ties.count", "styles.non_inferiority.*.games_needed", "styles.identification.games",
    "styles.null.counts.*", "control.games", "control.features.*.games", "corrected.cells",
    "corrected.cells_evolved", "by_level_group.*.games", "by_level_group.*.elites")
"""... a whole number >= 0."""
_SUMMARY_SHARES = (
    "same_cell_share", "neighbour_share", "mean_win_rate_evolved", "mean_win_rate_validated",
    "mean_abs_gap.win_rate", "styles.alpha", "styles.margin", "styles.ties.share.*",
    "styles.non_inferiority.*.power", "styles.identification.accuracy", "styles.identification.chance",
    "styles.identification.per_style.*", "control.win_rate", "control.win_rate_ci.*",
    "corrected.coverage", "corrected.coverage_evolved", "by_level_group.*.mean_win_rate",
    "by_level_group.*.mean_abs_gap_win_rate")
"""... a number in [0, 1]."""
_SUMMARY_POSITIVE = ("styles.delta", "styles.sd.*", "mean_abs_gap.*",
                     "styles.non_inferiority.*.margin")
"""... a number >= 0 (a style's margin is in the units of its quality: a share of first
place, or in a one-player game a score)."""
_SUMMARY_SIGNED = (
    "styles.non_inferiority.*.difference", "styles.non_inferiority.*.lower",
    "control.mean_score", "control.mean_score_ci.*", "control.features.*.mean",
    "control.features.*.ci.*", "control.genome.*", "corrected.qd_score",
    "corrected.qd_score_evolved")
"""... a number."""
_SUMMARY_CORRELATIONS = ("spearman.*",)
"""... a number in [-1, 1]."""
_SUMMARY_NOT_FINITE = (
    "styles.sd.*", "styles.non_inferiority.*.difference", "styles.non_inferiority.*.lower",
    "styles.non_inferiority.*.power", "styles.identification.per_style.*",
    "control.win_rate_ci.*", "control.mean_score", "control.mean_score_ci.*",
    "control.features.*.mean", "control.features.*.ci.*", "mean_abs_gap.*")
"""... of the numbers above, those that may also be NaN (a feature no game defined)."""


class _Keys:
    """The keys of a JSON document checked by dotted patterns (`*`: every key of an object or
    item of an array there); a value of the wrong kind is one error naming the file and the
    key.

    Args:
        path: the file, for errors.
        doc: its content.
    """

    def __init__(self, path: Any, doc: Any) -> None:
        self.path = path
        self.doc = doc

    def at(self, keys: tuple[Any, ...]) -> Any:
        node: Any = self.doc
        for part in keys:
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return None
        return node

    def find(self, pattern: str) -> list[tuple[Any, ...]]:
        """The keys a dotted pattern names."""
        found: list[tuple[Any, ...]] = [()]
        for part in pattern.split("."):
            deeper: list[tuple[Any, ...]] = []
            for keys in found:
                node = self.at(keys)
                if part != "*":
                    deeper.append((*keys, part))
                elif isinstance(node, dict):
                    deeper += [(*keys, k) for k in node]
                elif isinstance(node, list):
                    deeper += [(*keys, i) for i in range(len(node))]
            found = deeper
        return found

    def get(self, key: str) -> Any:
        return self.at(tuple(key.split(".")))

    def fail(self, keys: tuple[Any, ...], value: Any, want: str) -> None:
        shown = _json_kind(value) if value is None or isinstance(value, (dict, list)) \
            else short(value)
        raise ValueError(f"{self.path}: {'.'.join(map(str, keys))}: {shown} is not {want}")

    def each(self, patterns: Sequence[str], ok: Any, want: str) -> None:
        """Every value the patterns name is None or passes `ok`."""
        for pattern in patterns:
            for keys in self.find(pattern):
                v = self.at(keys)
                if v is not None and not ok(v):
                    self.fail(keys, v, want)

    def number(self, key: str, lo: float | None = 0, hi: float | None = None,
               whole: bool = False) -> None:
        """Every value `key` names is None or a number in [lo, hi] (whole, if asked); NaN
        only where the games may leave it undefined (`_SUMMARY_NOT_FINITE`)."""
        for keys in self.find(key):
            v = self.at(keys)
            if v is None:
                continue
            finite = not isinstance(v, float) or math.isfinite(v)
            if not finite and key in _SUMMARY_NOT_FINITE:
                continue  # NaN: a value the games left undefined
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and finite \
                and (lo is None or v >= lo) and (hi is None or v <= hi) \
                and (not whole or isinstance(v, int) or v.is_integer())
            if not ok:
                want = "a whole number >= 0" if whole else \
                    f"a number in [{_num(lo)}, {_num(hi)}]" if hi is not None else \
                    "a number >= 0" if lo is not None else "a finite number"
                self.fail(keys, v, want)


def check_summary(run: "RunFiles", summary: Any) -> None:
    """Check validation_summary.json: a mapping; every key the readers use of the type they
    use it as (an object, an array, a name, a number), its shares in [0, 1], its counts whole
    and not negative, the cells it names elites of elites.csv, and validation.csv holding the
    elites it counts (`_check_validated`).

    Args:
        run: the run directory.
        summary: the file's content.

    Raises:
        ValueError: naming the file and the key.
    """
    path = run.path(VALIDATION_SUMMARY)
    if not isinstance(summary, dict):
        raise ValueError(f"{path}: a JSON object expected, got {_json_kind(summary)}")
    doc = _Keys(path, summary)
    doc.each(_SUMMARY_OBJECTS, lambda v: isinstance(v, dict), "an object")
    doc.each(_SUMMARY_LISTS, lambda v: isinstance(v, list), "an array")
    doc.each(_SUMMARY_PAIRS, lambda v: isinstance(v, list) and len(v) == 2,
             "an array of two numbers (a 95% interval)")
    doc.each(_SUMMARY_NAMES, lambda v: isinstance(v, str), "a name (a string)")
    doc.each(_SUMMARY_LEVELS, lambda v: isinstance(v, (str, int, float)),
             "a level (its seed or name)")
    for key in _SUMMARY_WHOLE:
        doc.number(key, whole=True)
    for key in _SUMMARY_SHARES:
        doc.number(key, hi=1)
    for key in _SUMMARY_POSITIVE:
        doc.number(key)
    for key in _SUMMARY_SIGNED:
        doc.number(key, lo=None)
    for key in _SUMMARY_CORRELATIONS:
        doc.number(key, lo=-1, hi=1)
    get = doc.get
    named = [*_keys(get("cells")), *_keys(get("styles.styles")),
             *_keys(get("styles.differs_from_control")), *_keys(get("styles.weaker_than_control")),
             *_keys(get("styles.non_inferiority")), *_keys(get("styles.identification.per_style"))]
    if named:
        known = set(_cell_keys(run.elites["cell"])) if "cell" in run.elites else set()
        gone = [str(c) for c, key in zip(named, _cell_keys(pd.Series(named, dtype=object)))
                if key not in known]
        if gone:
            raise ValueError(f"{path}: cell {gone[0]} is not an elite's cell in {ELITES}"
                             + (f" (nor {len(gone) - 1} more)" if len(gone) > 1 else "")
                             + ": validate again")
    _check_validated(run, summary)


def _check_validated(run: "RunFiles", summary: Mapping[str, Any]) -> None:
    """validation.csv against validation_summary.json (checked): one row for each elite the
    summary counts (`elites`), and the cells it names (`cells`). A validation writes both
    files together, so a validation.csv that is missing, has no rows or other elites is
    damaged, not a run that was never validated.

    Raises:
        ValueError: naming validation.csv and how to write it again.
    """
    count, cells = summary.get("elites"), summary.get("cells")
    if count is None and cells is None:  # an early summary: nothing to compare
        return
    count = len(cells) if count is None else count
    table = run.path(VALIDATION)
    rows = run.validation
    n = 0 if rows is None else len(rows)
    again = f"validate again (playstyles validate {command_path(run.dir)})"
    if n != count:
        got = "is missing" if not table.exists() else "is empty" if n == 0 else \
            f"holds {n} row{'s' if n != 1 else ''}"
        raise ValueError(f"{table}: {got}, while {VALIDATION_SUMMARY} counts {count} validated "
                         f"elite{'s' if count != 1 else ''}: {again}")
    if cells is not None:
        mine = set(_cell_keys(rows["cell"])) if n else set()
        other = [str(c) for c, key in zip(cells, cell_keys(cells)) if key not in mine]
        if other:
            raise ValueError(f"{table}: no row for cell {other[0]}, which {VALIDATION_SUMMARY} "
                             f"counts as validated: {again}")
