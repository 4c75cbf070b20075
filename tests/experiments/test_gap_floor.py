"""experiments/gap_floor.py: the noise floor of the evolved-vs-replayed gap."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "gap_floor.py"
spec = importlib.util.spec_from_file_location("gap_floor", SCRIPT)
gap_floor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gap_floor)


def test_noise_floor_matches_the_binomial_spread():
    rng = np.random.default_rng(0)
    # 6 and 22 games at 45%: sd of the difference 0.229, mean absolute about 0.8 sd
    sims = gap_floor.floor(np.array([6]), np.array([22]), np.array([0.45]), 20_000, rng)
    assert sims.mean() == pytest.approx(0.8 * np.sqrt(0.2475 / 6 + 0.2475 / 22), rel=0.1)
    many = gap_floor.floor(np.array([5000]), np.array([5000]), np.array([0.45]), 2000, rng)
    assert many.mean() < 0.01
    n = gap_floor.games_for(0.05, 0.45, 20_000, rng)
    assert 100 <= n <= 150  # 0.8 * sqrt(2 * 0.2475 / n) = 0.05 at n = 127


def test_reestimated_table_replaces_the_evolved_side(tmp_path):
    held = pd.DataFrame({"cell": ["0:0", "1:1"], "games_evolved": [6, 6],
                         "win_rate_evolved": [1.0, 0.5], "games_validated": [20, 20],
                         "win_rate_validated": [0.4, 0.6]})
    again = held.assign(games_validated=[20, 20], win_rate_validated=[0.4, 0.6])
    held.to_csv(tmp_path / "h.csv", index=False)
    again.to_csv(tmp_path / "r.csv", index=False)
    plain = gap_floor.analyse("h", gap_floor.table(tmp_path / "h.csv"), 1000, 0)
    assert plain["signed_gap"] == pytest.approx(0.25) and plain["mean_abs_gap"] == pytest.approx(0.35)
    same = gap_floor.analyse("r", gap_floor.table(tmp_path / "h.csv", tmp_path / "r.csv"), 1000, 0)
    assert same["signed_gap"] == 0.0 and same["mean_abs_gap"] == 0.0
    assert same["games_evolved"] == 20.0 and same["floor"] > 0.05
    held.drop(columns=["win_rate_validated"]).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="missing \\['win_rate_validated'\\]"):
        gap_floor.table(tmp_path / "bad.csv")


def _bench_noise(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # bench_noise imports gap_floor
    spec = importlib.util.spec_from_file_location("bench_noise", SCRIPT.parent / "bench_noise.py")
    bench_noise = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_noise)
    return bench_noise


def test_bench_noise_rows_carry_the_noise_floor(monkeypatch):
    bench_noise = _bench_noise(monkeypatch)
    row = {"method": "reestimate", "seed": 1, "games": 4000, "evaluations": 58, "elites": 9,
           "games_per_elite_evolved": 288.0, "qd_score_evolved": 5.0, "qd_score_corrected": 1.0,
           "cells_corrected": 2, "win_rate_evolved": 0.557, "win_rate_held_out": 0.502,
           "mean_abs_gap": 0.055, "gap_ci": [0.039, 0.071], "noise_floor": 0.032,
           "noise_floor_range": [0.018, 0.05], "gap_of_means": 0.055,
           "gap_of_means_ci": [0.039, 0.071], "same_cell_share": 0.22,
           "fresh_homogeneity": {"chi2": 137.29, "df": 144, "p": 0.641}}
    old = {k: v for k, v in row.items() if not k.startswith(("noise_floor", "fresh"))}
    lines = bench_noise.markdown([row, old]).splitlines()
    assert "noise floor (95% range)" in lines[0]
    assert "| 5.5 (3.9-7.1) | 3.2 (1.8-5.0) | 5.5 (3.9 to 7.1) |" in lines[2]
    assert lines[2].startswith("| n/a | reestimate | 1 |")  # a row without split or control
    assert lines[2].endswith("| 22% | 137.3 / 144, p 0.64 | n/a |")
    assert "| 5.5 (3.9-7.1) | n/a | 5.5 (3.9 to 7.1) |" in lines[3]
    assert lines[3].endswith("| 22% | n/a | n/a |")
    with_control = bench_noise.markdown([{**row, "split": 1, "control_win_rate": 0.512}])
    assert with_control.splitlines()[2].startswith("| 1 | reestimate |")
    assert with_control.splitlines()[2].endswith("| 51.2% |")


def test_fresh_homogeneity_tells_alike_elites_from_different_ones(monkeypatch):
    bench_noise = _bench_noise(monkeypatch)

    def games(wins_b: int) -> pd.DataFrame:
        rows = []
        for seat in (0, 1):  # two elites, 40 closing games each per seat, on one level
            for ev, wins in ((7, 20), (9, wins_b)):
                rows += [{"batch": 3, "evaluation": ev, "replay": 1 + k % 4, "level": 11,
                          "genome_seat": seat, "genome_won": int(k < wins)} for k in range(40)]
        rows.append({"batch": 2, "evaluation": 7, "replay": 0, "level": 11, "genome_seat": 0,
                     "genome_won": 1})
        return pd.DataFrame(rows)

    alike = bench_noise.fresh_homogeneity(games(20))
    assert alike["df"] == 2 and alike["chi2"] == 0.0 and alike["p"] == pytest.approx(1.0)
    apart = bench_noise.fresh_homogeneity(games(38))
    assert apart["df"] == 2 and apart["p"] < 1e-6
    evolving = games(20)
    evolving.loc[0, "replay"] = 0  # a last batch with new genomes is no closing batch
    assert bench_noise.fresh_homogeneity(evolving) is None
