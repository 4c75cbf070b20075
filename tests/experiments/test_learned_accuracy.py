"""experiments/learned_accuracy.py: the shipped learned evaluator's accuracy, per position."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "learned_accuracy.py"
spec = importlib.util.spec_from_file_location("learned_accuracy", SCRIPT)
la = importlib.util.module_from_spec(spec)
spec.loader.exec_module(la)

RESULTS = la.ROOT / la.OUT


def _recompute(monkeypatch, out: Path) -> int:
    monkeypatch.setattr(sys, "argv", ["learned_accuracy.py", "recompute", "--check",
                                      "--out", str(out)])
    return la.main()


def test_the_committed_summary_is_what_the_committed_positions_give(monkeypatch, capsys):
    assert _recompute(monkeypatch, RESULTS) == 0
    assert "matches" in capsys.readouterr().out
    summary = json.loads((RESULTS / "summary.json").read_text())
    frame = la.read_positions(RESULTS / la.POSITIONS)
    overall = summary["tables"]["overall"]
    assert overall["n"] == len(frame) == summary["positions"]
    assert overall["games"] == frame["game"].nunique() == summary["games"] == 120
    assert overall["interval"] == "bootstrap over games"
    assert overall["ci95"][0] < overall["accuracy"] < overall["ci95"][1]
    # the held-out games are exactly the config's: its held-out levels, every game of them
    from play.train_evaluator import load_train_config
    held, index = la.held_out_specs(load_train_config(la.ROOT / la.CONFIG))
    assert sorted(frame["game"].unique().tolist()) == index
    assert sorted(frame["level"].unique().tolist()) == sorted(held)
    assert summary["held_out_levels"] == [str(x) for x in held]


def test_a_changed_position_is_found(monkeypatch, tmp_path, capsys):
    out = tmp_path / "accuracy"
    shutil.copytree(RESULTS, out)
    frame = pd.read_csv(out / la.POSITIONS)
    frame.loc[0, "correct"] = 1 - frame.loc[0, "correct"]
    frame.to_csv(out / la.POSITIONS, index=False)
    with pytest.raises(ValueError, match="disagree"):
        la.read_positions(out / la.POSITIONS)
    # a value of the other sign, with its `correct` consistent: the tables move
    frame.loc[0, "value"] = -frame.loc[0, "value"]
    frame.to_csv(out / la.POSITIONS, index=False)
    assert _recompute(monkeypatch, out) == 1
    assert "differ" in capsys.readouterr().err


def test_the_positions_table_of_played_games():
    from agents.learned import Model
    from play.runner import AgentSpec, GameSpec
    from play.selfplay import generate_samples
    specs = [GameSpec(game="tribes", level=lv, seed=lv, agents=(AgentSpec("rule_based"),) * 2,
                      agent_seeds=(1, 2), options=(("max_rounds", 2),)) for lv in (1, 2)]
    samples = generate_samples(specs, workers=0)
    model = Model([np.zeros((samples.length, 1), np.float32)], [np.full(1, 0.5, np.float32)],
                  {"activation": "relu"})
    value = model.values(samples.matrix())  # always "the viewer wins"
    frame = la.positions_frame(samples, np.array([10, 20]), ["rule_based"] * 2, value)
    assert list(frame.columns) == list(la.COLUMNS) and len(frame) == len(samples)
    assert set(frame["game"]) == {10, 20} and set(frame["level"]) == {1, 2}
    decided = frame[frame["label"] != 0]
    assert len(decided) > 0
    assert (decided["correct"] == (decided["label"] == 1)).all()
    assert frame.loc[frame["label"] == 0, "correct"].isna().all()
