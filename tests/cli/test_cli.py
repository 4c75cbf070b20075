"""The `playstyles` command line as a user meets it: flags checked before anything runs,
playing by hand and leaving a game, pacing, round limits, the version, and the messages of
common mistakes (issue 12's rough edges)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import play.watch
from agents.human import GameAbandoned, HumanAgent
from agents.registry import make_agent
from games.api import is_pass
from games.registry import get_game
from play.tournament import config_from_dict
from playstyles import __version__
from playstyles.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "experiments" / "quickstart.yaml"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """main(argv) -> (exit status, stdout, stderr); argparse's exits count as statuses."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ 1. --workers

@pytest.mark.parametrize("argv", [
    ["evolve", QUICKSTART, "--out", "{tmp}/run"],
    ["validate", "{tmp}/run"],
    ["tournament", "--agents", "random", "random:label=b", "--out", "{tmp}/tour"],
    ["ladder", "{tmp}/presets.json", "--out", "{tmp}/ladder"],
])
def test_negative_workers_is_one_error_before_anything_is_written(capsys, tmp_path, argv):
    argv = [str(a).format(tmp=tmp_path) for a in argv]
    code, out, err = run(capsys, *argv, "--workers", "-1")
    assert code == 2
    assert "--workers: must be >= 0 (0 plays in this process), got -1" in err
    assert list(tmp_path.iterdir()) == []  # no stub run or output directory


def test_counts_are_checked_by_the_parser(capsys):
    for argv, message in ((["play", "--rounds", "0"], "--rounds: must be >= 1, got 0"),
                          (["tournament", "--reps", "0"], "--reps: must be >= 1, got 0"),
                          (["tournament", "--budget", "0"], "--budget: must be >= 1, got 0"),
                          (["play", "--delay", "-1"], "--delay: must be from 0 to 3600 seconds, got -1"),
                          (["evolve", "x.yaml", "--workers", "two"],
                           "--workers: a whole number expected, got 'two'")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and message in err, (argv, err)


# ------------------------------------------------------------------------------ 2. playing by hand

def test_human_help_lists_the_commands_and_quit_abandons():
    state = get_game("tribes").new_state(5, 1)
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO("help\nquit\n"), stdout=out)
    with pytest.raises(GameAbandoned, match="quit"):
        human.act(state)
    text = out.getvalue()
    n = len(state.legal_actions())
    for command in (f"0-{n - 1}", "TEXT", "list", "help", "quit"):
        assert command in text


class _Interrupted(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


@pytest.mark.parametrize("stdin, reason", [(io.StringIO(""), "input closed"),
                                           (_Interrupted(), "Ctrl-C")])
def test_ctrl_d_and_ctrl_c_at_the_prompt_abandon(stdin, reason):
    state = get_game("tribes").new_state(5, 1)
    with pytest.raises(GameAbandoned, match=reason):
        HumanAgent(stdin=stdin, stdout=io.StringIO()).act(state)


def test_play_quit_ends_cleanly_and_keeps_the_record(capsys, monkeypatch, tmp_path):
    record = tmp_path / "game.json"
    # a few choices by number, then quit
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n0\nhelp\nquit\n"))
    code, out, err = run(capsys, "play", "--p1", "human", "--rounds", "3", "--record", record)
    assert code == 0 and err == ""
    assert "game abandoned in round 0 (quit)" in out
    assert "winner" not in out
    actions = json.loads(record.read_text())["actions"]
    assert len(actions) == 2 and "the game was abandoned" in out


def _python_m_playstyles(*argv: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("RAY_AUTH_MODE", None)  # as a user's shell: the command chooses
    # as from a terminal: Ctrl-C delivered (a test runner started in the background, or a CI
    # job, may have SIGINT ignored, and a child would inherit that)
    return subprocess.Popen([sys.executable, "-m", "playstyles", *argv], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)


def test_ctrl_c_at_the_prompt_ends_the_game_without_a_traceback():
    proc = _python_m_playstyles("play", "--p1", "human", "--rounds", "2")
    seen: list[str] = []
    prompt = threading.Event()

    def read() -> None:
        while True:
            ch = proc.stdout.read(1)
            if not ch:
                return
            seen.append(ch)
            if "".join(seen[-2:]) == "> ":
                prompt.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert prompt.wait(60), "no prompt: " + "".join(seen)[-500:]
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
        reader.join(10)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    out = "".join(seen)
    assert code == 0, err
    assert "game abandoned in round 0 (Ctrl-C)" in out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


# ------------------------------------------------------------------------------ 3. replay images

def test_replay_images_says_how_many_and_where(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    record = tmp_path / "game.json"
    assert run(capsys, "play", "--rounds", "1", "--record", record)[0] == 0
    frames = tmp_path / "frames"
    code, out, _ = run(capsys, "replay", record, "--images", frames)
    n = len(list(frames.glob("*.png")))
    assert code == 0 and n >= 2
    assert out.rstrip().endswith(f"{n} board images written to {frames}/")


# ------------------------------------------------------------------------------ 4. --rounds N

def test_rounds_plays_that_many_rounds(capsys, monkeypatch):
    shown = []
    real = play.watch.play_shown
    monkeypatch.setattr(play.watch, "play_shown",
                        lambda *a, **k: shown.append(real(*a, **k)) or shown[-1])
    for n in (1, 3):
        code, out, _ = run(capsys, "play", "--rounds", n, "--seed", 2)
        assert code == 0
        assert f"after {n} rounds" in out
        assert shown[-1].tick == n and shown[-1].is_terminal()


def test_rounds_maps_to_the_games_own_option():
    tribes = get_game("tribes")
    assert tribes.round_limit_options(5) == {"max_rounds": 4}  # the reference's meaning kept
    state = tribes.new_state(5, 0, **tribes.round_limit_options(2))
    while not state.is_terminal():
        state.apply(next(a for a in state.legal_actions() if is_pass(state, a)))
    assert state.tick == 2
    with pytest.raises(ValueError, match="nim has no round limit"):
        get_game("nim").round_limit_options(3)


def test_rounds_in_a_tournament_and_for_a_game_without_a_limit(capsys, tmp_path):
    out_dir = tmp_path / "tour"
    code, _, err = run(capsys, "tournament", "--agents", "random", "random:label=b",
                       "--levels", "seeds:1", "--reps", "1", "--rounds", "2", "--workers", "0",
                       "--quiet", "--out", out_dir)
    assert code == 0, err
    options = json.loads((out_dir / "tournament.json").read_text())["options"]
    assert options == {"max_rounds": 1}
    code, _, err = run(capsys, "play", "--game", "nim", "--rounds", "3")
    assert code == 2 and "--rounds: nim has no round limit" in err
    code, _, err = run(capsys, "play", "--rounds", "3", "--option", "max_rounds=9")
    assert code == 2 and "--option max_rounds: --rounds sets it already" in err


# ------------------------------------------------------------------------------ 5. --version

def test_version(capsys, monkeypatch):
    from base.compiled import PURE_PYTHON, compiled_available
    n = len(compiled_available())
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    code, out, _ = run(capsys, "--version")
    said = f"{n} compiled modules" if n else "no compiled modules: the engine and search run as Python"
    assert code == 0 and out == f"playstyles {__version__} ({said})\n"
    if n:
        monkeypatch.setenv(PURE_PYTHON, "1")
        code, out, _ = run(capsys, "--version")
        assert out == f"playstyles {__version__} ({n} compiled modules, not used ({PURE_PYTHON}=1))\n"


# ------------------------------------------------------------------------------ 6. Ray's notice

def test_a_local_ray_gets_an_explicit_auth_mode(monkeypatch):
    from playstyles.cli import _quiet_local_ray
    parse = build_parser().parse_args
    for env, argv, expected in (
            ({}, ["tournament"], "token"),
            ({"RAY_AUTH_MODE": "disabled"}, ["tournament"], "disabled"),  # the user's wins
            ({}, ["tournament", "--address", "head:6379"], None),  # the cluster's settings
            ({"RAY_ADDRESS": "head:6379"}, ["evolve", "x.yaml"], None),
            ({}, ["tournament", "--workers", "0"], None),  # no Ray at all
            ({}, ["play"], None)):
        for key in ("RAY_AUTH_MODE", "RAY_ADDRESS"):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        _quiet_local_ray(parse(argv))
        assert os.environ.get("RAY_AUTH_MODE") == expected, argv


@pytest.mark.slow
def test_a_local_ray_run_prints_no_token_notice(tmp_path):
    proc = _python_m_playstyles("tournament", "--agents", "random", "random:label=r2",
                                "--levels", "seeds:1", "--reps", "1", "--rounds", "2",
                                "--workers", "1", "--quiet", "--out", str(tmp_path / "t"))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "1 games; results in" in out
    assert "Token authentication" not in err + out


# ------------------------------------------------------------------------------ 7. messages

def test_a_yaml_syntax_error_names_the_file(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: tribes\nagent: [1,\n")
    for command in ("evolve", "tournament"):
        code, _, err = run(capsys, command, bad, "--workers", "0")
        assert code == 2
        assert f"{bad}: not valid YAML: line 3, column 1" in err and err.count("\n") == 1


def test_an_unknown_agent_is_named_once(capsys, tmp_path):
    config = tmp_path / "run.yaml"
    for key in ("agent", "opponent"):
        config.write_text(f"game: tribes\n{key}: nosuch\nevaluations: 2\n")
        code, _, err = run(capsys, "evolve", config, "--workers", "0", "--out", tmp_path / "r")
        assert code == 2 and f"{key}: unknown agent 'nosuch'" in err and "agent: agent" not in err
    code, _, err = run(capsys, "tournament", "--agents", "nosuch", "random", "--workers", "0")
    assert code == 2 and "agents[0]: unknown agent 'nosuch'" in err and "agent: agent" not in err
    code, _, err = run(capsys, "play", "--p1", "nosuch")
    assert code == 2 and "error: unknown agent 'nosuch' for game 'tribes'" in err
    assert not (tmp_path / "r").exists()


def test_the_smallest_budget_is_one_everywhere(capsys, tmp_path):
    with pytest.raises(ValueError, match=">= 1"):
        make_agent("mcts", budget=0)
    agent = make_agent("mcts", budget=1)
    state = get_game("tribes").new_state(5, 1)
    assert agent.act(state) in state.legal_actions()
    with pytest.raises(ValueError, match="budget: must be a whole number of forward-model calls >= 1"):
        config_from_dict({"game": "tribes", "agents": ["random", "mcts"], "budget": 0}, "t.yaml")
    config = tmp_path / "run.yaml"
    config.write_text("game: tribes\nagent: {name: pmcts_pu, budget: 0}\n")
    code, _, err = run(capsys, "evolve", config, "--workers", "0", "--out", tmp_path / "r")
    assert code == 2 and "agent.budget: must be >= 1, got 0" in err
    code, _, err = run(capsys, "play", "--p1", "mcts:budget=0")
    assert code == 2 and "budget: must be a whole number of forward-model calls >= 1" in err


def test_a_missing_level_file_is_named(capsys, tmp_path):
    code, _, err = run(capsys, "play", "--level", tmp_path / "nosuch.csv")
    assert code == 2
    assert err.strip() == f"playstyles: error: level: no such level file: {tmp_path / 'nosuch.csv'}"


# ------------------------------------------------------------------------------ 8. levels show

def test_levels_show_prints_the_board_and_the_csv_on_request(capsys):
    game = get_game("tribes")
    level = game.level(3)
    code, out, _ = run(capsys, "levels", "show", "--seed", "3")
    assert code == 0
    assert out == game.render(game.new_state(level, 0)) + "\n"
    assert out.startswith("round 0") and "terrain:" in out
    code, out, _ = run(capsys, "levels", "show", "--seed", "3", "--csv")
    assert code == 0 and out == game.level_text(level)
    assert game.level_from_text(out) == level


# ------------------------------------------------------------------------------ 9. --delay

def test_watch_is_paced_between_the_boards(capsys, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr(time, "sleep", sleeps.append)
    code, out, _ = run(capsys, "play", "--watch", "--rounds", "3", "--delay", "0.25")
    assert code == 0 and out.count("\nround ") + out.startswith("round ") == 4
    assert sleeps == [0.25] * 3  # between the 4 boards, none after the last
    sleeps.clear()
    run(capsys, "play", "--watch", "--rounds", "3")  # not a terminal: no pause by default
    assert sleeps == []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    run(capsys, "play", "--watch", "--rounds", "2")
    assert sleeps == [0.5] * 2
    sleeps.clear()
    run(capsys, "play", "--rounds", "2", "--delay", "3")  # not watching: nothing to pace
    assert sleeps == []


def test_ctrl_c_in_evolve_says_how_to_continue_and_exits_130(tmp_path, capsys, monkeypatch):
    """An interrupted run ends with the batch it reached and --resume, no traceback; the
    other commands say they were interrupted."""
    import qd.run as run_mod
    from playstyles.cli import main
    real = run_mod.evolve

    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: nim\nlevels: {set: 'range:0-3', train: 2}\n"
                   "agent: {name: pmcts_pu, budget: 5}\nopponent: random\n"
                   "features: [stones_per_move, moves]\nemitter: {batch_size: 2, initial_random: 2}\n"
                   "evaluations: 8\nseed: 1\n")
    calls = []

    def stop(i, rec):
        calls.append(i)
        if len(calls) == 7:
            raise KeyboardInterrupt
    monkeypatch.setattr(run_mod, "evolve", lambda *a, **kw: real(*a, on_game=stop, **kw))
    assert main(["evolve", str(cfg), "--out", str(tmp_path / "run"), "--workers", "0",
                 "--quiet"]) == 130
    err = capsys.readouterr().err
    assert "interrupted after" in err and "continue with --resume" in err
    assert "Traceback" not in err
    monkeypatch.setattr(run_mod, "evolve", real)
    assert main(["evolve", str(cfg), "--out", str(tmp_path / "run"), "--workers", "0",
                 "--quiet", "--resume"]) == 0


def test_p3_seats_a_third_agent(capsys, tmp_path):
    import json
    rec = tmp_path / "g.json"
    code, out, err = run(capsys, "play", "--game", "tribolo", "--p1", "random", "--p2", "random",
                         "--p3", "tribolo_ai:depth=1", "--record", rec)
    assert code == 0, err
    agents = json.loads(rec.read_text())["players"]
    assert len(agents) == 3 and agents[2].startswith("tribolo_ai")
    code, _, err = run(capsys, "play", "--p3", "random", "--rounds", "1")
    assert code == 2 and "3 agents for a 2-player" in err


def test_the_cli_draws_a_bar_per_step_from_the_progress_calls(capsys):
    from playstyles.cli import Bars
    bars = Bars()
    bars("validate", 2, 5)
    bars("validate", 3, 5)
    bars("validate", 5, 6)  # a total that grows (an evolution's closing batch)
    assert (bars.bar.n, bars.bar.total) == (5, 6)
    bars.evolution({"evaluations": 4, "cells": 2, "qd_score": 1.5, "best_win_rate": 0.75})
    bars("probe", 0, 2)
    assert bars.step == "probe" and bars.bar.n == 0
    bars("probe", 2, 2)
    first = bars.bar
    bars("probe", 0, 3)  # the same step again from the start: a new bar
    assert bars.bar is not first and (bars.bar.n, bars.bar.total) == (0, 3)
    bars.close()
    err = capsys.readouterr().err
    assert "validate" in err and "elites 2, QD 1.50" in err and "probe" in err
