"""experiments/bench_noise.py: the results rows rebuilt from the committed per-elite tables."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))  # bench_noise imports gap_floor as a sibling
spec = importlib.util.spec_from_file_location("bench_noise", EXPERIMENTS / "bench_noise.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def write_run(folder: Path, method: str = "reestimate", seed: int = 1, split: int = 3,
              closing_wins: tuple[int, int] = (6, 6)) -> None:
    """A tiny run's committed tables: 3 elites, a closing batch of 2 elites on one (level,
    seat), a summary with the control."""
    folder.mkdir(parents=True)
    pd.DataFrame({"cell": ["0:0", "0:1", "1:1"], "games_evolved": [288, 288, 288],
                  "win_rate_evolved": [0.50, 0.60, 0.40], "games_validated": [312, 312, 312],
                  "win_rate_validated": [0.55, 0.50, 0.40]}).to_csv(folder / "validation.csv",
                                                                    index=False)
    pd.DataFrame({"evaluation": [1, 2], "level": [4, 4], "genome_seat": [0, 0],
                  "wins": list(closing_wins), "games": [12, 12]}).to_csv(
        folder / "closing.csv", index=False)
    summary = {"split": split, "method": method, "seed": seed, "games": 4000,
               "evaluations": 90, "elites": 3, "qd_score_evolved": 1.5, "cells_corrected": 2,
               "qd_score_corrected": 1.0, "same_cell_share": 1 / 3,
               "validation_games_per_elite": 312,
               "control": {"games": 312, "win_rate": 0.5, "win_rate_ci": [0.44, 0.56]}}
    (folder / "summary.json").write_text(json.dumps(summary))


def test_recompute_rebuilds_the_row_and_catches_a_changed_number(tmp_path):
    run = tmp_path / "split3" / "reestimate-seed1"
    write_run(run)
    row = bench.recompute_row(run, {"method": "reestimate", "seed": 1})
    # gaps 0.05, 0.10, 0.00 (absolute), -0.05, 0.10, 0.00 (signed)
    assert row["mean_abs_gap"] == pytest.approx(0.05)
    assert row["gap_of_means"] == pytest.approx(0.05 / 3)
    assert row["win_rate_evolved"] == pytest.approx(0.5)
    assert row["gap_ci"][0] <= 0.05 <= row["gap_ci"][1]
    assert 0 < row["noise_floor"] < 0.1 and row["control_win_rate"] == 0.5
    assert row["fresh_homogeneity"]["chi2"] == pytest.approx(0.0)  # same wins: alike
    (tmp_path / "split3" / "results.json").write_text(json.dumps([row]))
    rows, problems = bench.recompute(tmp_path)
    assert problems == [] and rows[0]["split"] == 3
    assert "| 3 | reestimate | 1 | 3 (288.0) |" in bench.split_table(rows)

    # a headline number that the tables do not give is reported
    (tmp_path / "split3" / "results.json").write_text(
        json.dumps([{**row, "mean_abs_gap": row["mean_abs_gap"] + 0.01}]))
    assert bench.recompute(tmp_path)[1] == ["split3/reestimate-seed1: mean_abs_gap"]
    # ... and so is a per-elite table changed after the row was written
    (tmp_path / "split3" / "results.json").write_text(json.dumps([row]))
    v = pd.read_csv(run / "validation.csv")
    v.loc[0, "win_rate_validated"] = 0.30
    v.to_csv(run / "validation.csv", index=False)
    assert "split3/reestimate-seed1: mean_abs_gap" in bench.recompute(tmp_path)[1]


def test_closing_batch_and_homogeneity_tell_different_elites_apart():
    games = pd.DataFrame({"batch": [5] * 48, "replay": [1] * 48,
                          "evaluation": [1] * 24 + [2] * 24, "level": [4] * 48,
                          "genome_seat": [0, 1] * 24,
                          "genome_won": [True] * 24 + [False] * 24})
    closing = bench.closing_batch(games)
    assert closing["games"].tolist() == [12, 12, 12, 12]
    assert closing.groupby("evaluation")["wins"].sum().tolist() == [24, 0]
    h = bench.homogeneity(closing)
    assert h["df"] == 2 and h["p"] < 1e-6  # one elite won every game, the other none
    # a last batch that is not all replays is no closing batch
    assert bench.closing_batch(games.assign(replay=[0] + [1] * 47)).empty
    assert bench.homogeneity(bench.closing_batch(games.assign(replay=0))) is None


def test_differences_compare_numbers_lists_and_missing_keys():
    assert bench.differences({"a": float("nan"), "b": [1.0, 2.0]},
                             {"a": float("nan"), "b": [1.0, 2.0 + 1e-12]}) == []
    assert bench.differences({"b": [1.0, 2.0]}, {"b": [1.0]}) == ["b"]
    assert bench.differences({"a": 1, "c": None}, {"a": 1}) == []
    assert bench.differences({"a": 1, "c": 2}, {"a": 1}) == ["c"]
    assert bench.run_name("none", 2, 1) == "split1-none-seed2"
    assert bench.run_name("none", 2, None) == "none-seed2"


def test_write_results_keeps_other_runs_and_replaces_its_own(tmp_path):
    run = tmp_path / "tables" / "reestimate-seed1"
    write_run(run)
    row = bench.recompute_row(run, {"method": "reestimate", "seed": 1})
    other = {**row, "method": "none"}
    bench.write_results(tmp_path / "split3", [row, other], "first")
    bench.write_results(tmp_path / "split3", [{**row, "mean_abs_gap": 0.5}], "second")
    rows = json.loads((tmp_path / "split3" / "results.json").read_text())
    assert [(r["method"], r["mean_abs_gap"]) for r in rows] == [("none", pytest.approx(0.05)),
                                                                ("reestimate", 0.5)]
    md = (tmp_path / "split3" / "results.md").read_text()
    assert md.startswith("`first`\n\n`second`\n\n|") and md.count("| 3 | ") == 2


def test_styles_table_counts_each_runs_styles_and_the_totals(tmp_path):
    for split, run in ((0, "none-seed1"), (1, "reestimate-seed1")):
        folder = tmp_path / f"split{split}" / run
        write_run(folder, split=split)
        v = pd.read_csv(folder / "validation.csv")
        v["distinct"] = [True, False, split == 1]
        v["differs_from_control"] = [False, False, split == 1]
        v["weaker_than_control"] = [False] * 3
        v.to_csv(folder / "validation.csv", index=False)
    table = bench.styles_table(tmp_path)
    assert "| 0 | none-seed1 | 3 | 1 | 0 | 0 | 40.0-55.0% |" in table
    assert "| 1 | reestimate-seed1 | 3 | 2 | 1 | 0 | 40.0-55.0% |" in table
    assert ("2 runs, 6 elites, 3 distinct styles, 1 differ from the control, 0 weaker than it"
            in table)
