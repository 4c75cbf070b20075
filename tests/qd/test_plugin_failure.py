"""A plug-in that raises in a game: `evolve` stops in its trial game, before anything is
written, and a game on a worker comes back as the plug-in's own frames and error, ending with
the check to run."""

from __future__ import annotations

import pickle

import pytest
import yaml

from agents.portfolio.script import SCRIPTS, register_script
from play.game_pool import PluginFailed, play_counted
from playstyles.cli import main
from qd.config import config_from_dict

NIM = {"name": "nimq", "game": "nim", "levels": {"set": "range:0-3", "train": 2},
       "agent": {"name": "pmcts_pu", "budget": 5, "params": {"expansion": "prior"}},
       "opponent": "random", "features": ["stones_per_move", "moves"], "repetitions": 1,
       "layout": ["TakeOne", "Quiet"], "evaluations": 4,
       "emitter": {"batch_size": 2, "initial_random": 2}, "seed": 2}


@pytest.fixture
def quiet():
    def raises(ctx, actor, actions):
        return 1 / 0

    register_script("nim", "Quiet", "TAKE", raises)
    yield
    SCRIPTS.pop("Quiet", "nim")


def _says(text: str) -> None:
    assert "\x1b[" not in text and "ray" not in text.lower()
    assert "return 1 / 0" in text and "ZeroDivisionError: division by zero" in text
    last = text.strip().splitlines()[-1]
    assert "ScriptError: portfolio script 'Quiet'" in last and "raised ZeroDivisionError" in last
    assert last.endswith("run playstyles check --game nim")


def test_evolve_stops_in_its_trial_game_and_writes_nothing(quiet, tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(NIM))
    run = tmp_path / "run"
    capsys.readouterr()
    assert main(["evolve", str(cfg), "--out", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    _says(err)
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("playstyles: error:")
    assert not run.exists()


def test_a_game_on_a_worker_comes_back_as_the_plugins_error(quiet):
    plan = config_from_dict(NIM).plan()
    spec = plan.games(plan.control(), 0)[0]
    with pytest.raises(PluginFailed) as e:
        play_counted(spec)  # what a Ray task runs
    back = pickle.loads(pickle.dumps(e.value))  # as it crosses from the worker
    assert (back.game, back.error, back.frames) == (e.value.game, e.value.error, e.value.frames)
    _says(f"{back.frames}\n{back}")
