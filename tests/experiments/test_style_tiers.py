"""The committed tiers evidence (experiments/results/tiers/) is what `experiments/style_tiers.py`
reads from its folders, and its ladder figures follow from the steps."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

from experiments.style_tiers import RUNS, longest_ladder, main

ROOT = Path(__file__).resolve().parents[2]
TIERS = ROOT / "experiments" / "results" / "tiers"


def test_the_committed_summary_is_what_the_script_reads_from_the_folders(tmp_path, capsys):
    for name in RUNS:
        shutil.copytree(TIERS / name, tmp_path / name)
    assert main(["--check-only", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "summary.json").read_text()) == \
        json.loads((TIERS / "summary.json").read_text())
    assert (tmp_path / "summary.md").read_text() == (TIERS / "summary.md").read_text()
    assert "## usecase" in capsys.readouterr().out


def test_each_styles_separated_tiers_follow_from_its_steps():
    summary = json.loads((TIERS / "summary.json").read_text())
    for name in RUNS:
        steps = pd.read_csv(TIERS / name / "tiers_steps.csv")
        for style, v in summary[name]["styles"].items():
            shown = steps[steps["style"].astype(str) == style]["shown"].to_list()
            assert shown == v["steps_shown"]
            budgets = v["separated_budgets"]
            assert len(budgets) == v["separated_tiers"] == len(longest_ladder(shown))
            assert set(v["separated_and_holding_budgets"]) <= set(v["holds_at_budgets"])


def test_the_longest_ladder_needs_shown_steps_and_holding_tiers():
    assert longest_ladder([True, False, True]) == [1, 2]
    assert longest_ladder([False, True, True]) == [2, 3, 4]
    assert longest_ladder([True, True, True], [True, True, True, False]) == [1, 2, 3]
    assert longest_ladder([True, True], [False, False, False]) == []
    assert longest_ladder([False, False]) == [1]
