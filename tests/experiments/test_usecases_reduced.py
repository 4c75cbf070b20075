"""experiments/usecases_reduced.py: Figure 1 and Table II rebuilt from the committed tables."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "usecases_reduced.py"
spec = importlib.util.spec_from_file_location("usecases_reduced", SCRIPT)
usecases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(usecases)

RESULTS = SCRIPT.parent / "results" / "usecases_reduced"


def test_the_committed_summary_recomputes_from_the_committed_tables():
    text, missing = usecases.recompute(RESULTS)
    assert missing == []
    assert "| I | attacks x ranged_minus_melee | 30 | 11 | 726 |" in text


def test_a_changed_per_elite_table_is_caught(tmp_path):
    copy = tmp_path / "usecases_reduced"
    shutil.copytree(RESULTS, copy)
    v = pd.read_csv(copy / "use_case_II" / "validation.csv")
    v.loc[0, "win_rate_validated"] = 1.0
    v.to_csv(copy / "use_case_II" / "validation.csv", index=False)
    _, missing = usecases.recompute(copy)
    assert any(line.startswith("| II | defender_spawns x win_turn") for line in missing)
