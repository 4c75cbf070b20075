"""experiments/tribolo_styles.py: the committed figures (styles.json) recomputed from the
committed per-game and per-position rows."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "tribolo_styles.py"
spec = importlib.util.spec_from_file_location("tribolo_styles", SCRIPT)
styles = importlib.util.module_from_spec(spec)
spec.loader.exec_module(styles)

TRIBOLO = SCRIPT.parent / "results" / "tribolo"
RUNS = {"output": "b60", "output_budget_300": "b300"}


def read_rows(prefix: str, part: str) -> list[dict]:
    path = TRIBOLO / "styles_rows" / f"{prefix}_{part}.csv"
    if part == "overlap":  # moves as text, "" where a script proposes none
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        frame["position"] = frame["position"].astype(int)
    else:
        frame = pd.read_csv(path)
    return frame.to_dict("records")


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k != "cpu_seconds"}
    return value


def same(a, b) -> bool:
    """Equal, NaN equal to NaN."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


@pytest.mark.parametrize("key", list(RUNS))
def test_committed_figures_recompute_from_the_committed_rows(key):
    committed = json.loads((TRIBOLO / "styles.json").read_text())[key]
    parts = [p for p in ("ranges", "overlap", "weights", "follow") if p in committed]
    rows = {p: read_rows(RUNS[key], p) for p in parts}
    again = styles.summaries(rows)
    for part in parts:
        want = committed[part]["styles"] if part in ("weights", "follow") else committed[part]
        assert same(without_timing(again[part]), without_timing(want)), part


def test_a_changed_row_changes_its_figure():
    rows = read_rows("b60", "weights")
    before = styles.weights(rows)
    rows[0]["first_place"] = 1.0 - rows[0]["first_place"]
    assert styles.weights(rows)[rows[0]["style"]]["first_place_share"] != \
        before[rows[0]["style"]]["first_place_share"]
