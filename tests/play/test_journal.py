"""Commands that resume after Ctrl-C: the game journal, and tournament, ladder and validate
interrupted, then continued with --resume, give the games of an uninterrupted run."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

from base.datalog import DataLog, LogError, encode_line, read_log
from play.journal import GameJournal, Interrupted
from play.presets import Preset, PresetFile, dump_presets, full_params
from play.runner import AgentSpec, GameSpec, run_game
from playstyles.cli import main


def specs(n: int, seed: int = 0) -> list[GameSpec]:
    a, b = AgentSpec.of("random"), AgentSpec.of("random", label="b")
    return [GameSpec(game="nim", level=i % 3, seed=seed + i, agents=(a, b), agent_seeds=(i, i + 1))
            for i in range(n)]


def test_the_journal_keeps_games_and_reuses_only_those_planned_again(tmp_path):
    path = tmp_path / "games.journal"
    plan = specs(4)
    j = GameJournal(path, plan, "tournament")
    assert j.missing == [0, 1, 2, 3]
    for i in (0, 2):
        j.add(i, run_game(plan[i]))
    j.log.close()
    with pytest.raises(ValueError, match=r"interrupted tournament \(2 games played\).*--resume"):
        GameJournal(path, plan, "tournament")
    again = GameJournal(path, plan, "tournament", resume=True)
    assert sorted(again.done) == [0, 2] and again.missing == [1, 3]
    assert again.done[2].winner == j.done[2].winner
    again.log.close()
    # a game planned differently now (another seed) is played again
    changed = specs(4)
    changed[2] = specs(4, seed=100)[2]
    third = GameJournal(path, changed, "tournament", resume=True)
    assert sorted(third.done) == [0] and third.missing == [1, 2, 3]
    third.finish()
    assert not path.exists()
    with pytest.raises(ValueError, match="--resume:.*no interrupted tournament"):
        GameJournal(path, plan, "tournament", resume=True)


def read(path):
    return read_log(path, "f", (1,), "a test log", "delete it")


def test_a_torn_or_damaged_entry_ends_the_log(tmp_path):
    path = tmp_path / "log"
    log = DataLog(path)
    log.rewrite({"format": "f", "version": 1}, [[0, "a"]])
    log.add([1, "b"])
    log.close()
    whole = path.read_bytes()
    path.write_bytes(whole + encode_line([2, "c"])[:-3])  # killed in the middle of a write
    assert read(path) == ({"format": "f", "version": 1}, [[0, "a"], [1, "b"]], 4)
    damaged = whole.replace(b'"a"', b'"z"')  # a changed line fails its checksum
    path.write_bytes(damaged)
    assert read(path)[1:] == ([], 2)
    path.write_bytes(b"not a log\n")
    with pytest.raises(LogError, match="not a test log"):
        read(path)
    path.write_bytes(encode_line({"format": "f", "version": 9}))
    with pytest.raises(LogError, match="version 9.*reads 1"):
        read(path)


class Payload:
    """Unpickling this runs code: it creates the file named."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_planted_pickle_journal_runs_no_code(tmp_path, capsys):
    """A journal that is a pickle (an older version's, or a planted one) is refused and never
    unpickled: the payload's file is not created, in the library and from the command line."""
    planted = tmp_path / "ran"
    path = tmp_path / "t" / "games.journal"
    path.parent.mkdir()
    path.write_bytes(pickle.dumps({"format": 1}) + pickle.dumps(Payload(planted)))
    with pytest.raises(LogError, match="pickle.*not read"):
        GameJournal(path, specs(2), "tournament", resume=True)
    with pytest.raises(LogError, match="pickle.*not read"):
        GameJournal(path, specs(2), "tournament")
    args = ["tournament", "--game", "nim", "--agents", "random", "osla", "--levels", "seeds:1",
            "--reps", "1", "--workers", "0", "--quiet", "--out", str(path.parent)]
    assert main(args + ["--resume"]) == 2
    err = capsys.readouterr().err
    assert "pickle" in err and "Traceback" not in err
    # a ladder's journal (also export --calibrate's): the same
    presets = dump_presets(PresetFile("nim", [Preset("a", "random", {}, "nim"),
                                              Preset("b", "osla", {}, "nim")], "difficulty",
                                      {}, {"held_out_levels": [1]}), tmp_path / "p.json")
    ladder = tmp_path / "l"
    assert main(["ladder", str(presets), "--games", "2", "--workers", "0", "--quiet", "--out",
                 str(ladder)]) == 0
    (ladder / "games.journal").write_bytes(path.read_bytes())
    assert main(["ladder", str(presets), "--games", "2", "--workers", "0", "--quiet", "--out",
                 str(ladder), "--resume"]) == 2
    assert "pickle" in capsys.readouterr().err
    assert not planted.exists()


def test_a_damaged_journal_entry_is_played_again(tmp_path):
    path = tmp_path / "games.journal"
    plan = specs(3)
    j = GameJournal(path, plan, "tournament")
    for i in range(3):
        j.add(i, run_game(plan[i]))
    j.log.close()
    lines = path.read_bytes().splitlines(keepends=True)
    check, text = lines[2].split(b"\t", 1)  # the second game: a record that is not one
    import hashlib
    import json
    entry = json.loads(text)
    entry["record"]["summaries"] = "x"
    text = json.dumps(entry).encode()
    lines[2] = hashlib.sha256(text).hexdigest()[:16].encode() + b"\t" + text + b"\n"
    path.write_bytes(b"".join(lines))
    again = GameJournal(path, plan, "tournament", resume=True)
    assert sorted(again.done) == [0, 2]
    assert again.done[2].events == j.done[2].events and again.done[2].spec == plan[2]
    again.log.close()


def test_ctrl_c_in_a_journal_block_says_what_is_kept(tmp_path):
    j = GameJournal(tmp_path / "games.journal", specs(3), "ladder")
    j.add(0, run_game(j.specs[0]))
    with pytest.raises(Interrupted, match=r"ladder interrupted after 1 of 3 games; continue "
                                          r"with --resume"):
        with j.interruptible():
            raise KeyboardInterrupt
    assert j.log.fh is None  # closed


def interrupt_after(monkeypatch, games: int) -> None:
    """Ctrl-C once the journal has kept `games` new games."""
    add = GameJournal.add
    calls = []

    def stop(self, index, record):
        add(self, index, record)
        calls.append(index)
        if len(calls) == games:
            raise KeyboardInterrupt
    monkeypatch.setattr(GameJournal, "add", stop)


def same_games(a, b) -> None:
    a, b = pd.read_csv(a), pd.read_csv(b)
    cols = [c for c in a.columns if not c.endswith(("seconds", "think_s"))]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def interrupted_then_resumed(monkeypatch, capsys, argv: list[str], out, games: int) -> str:
    """Run argv, interrupted after `games` games; check the message and that a rerun without
    --resume refuses; resume; return the first run's stderr."""
    with monkeypatch.context() as m:
        interrupt_after(m, games)
        assert main(argv) == 130
    err = capsys.readouterr().err
    assert f"interrupted after {games} of" in err and "continue with --resume" in err
    assert "Traceback" not in err
    assert main(argv) == 2  # the kept games are not thrown away by a rerun without --resume
    assert "--resume" in capsys.readouterr().err
    assert main(argv + ["--resume"]) == 0
    assert not list(out.glob("*.journal"))
    capsys.readouterr()
    return err


def test_tournament_resumes_after_ctrl_c(tmp_path, capsys, monkeypatch):
    args = ["tournament", "--game", "nim", "--agents", "random", "osla", "mcts:budget=5",
            "--levels", "range:0-2", "--reps", "2", "--workers", "0", "--quiet"]
    interrupted_then_resumed(monkeypatch, capsys, args + ["--out", str(tmp_path / "t")],
                             tmp_path / "t", games=5)
    assert main(args + ["--out", str(tmp_path / "whole")]) == 0
    same_games(tmp_path / "t" / "games.csv", tmp_path / "whole" / "games.csv")
    assert len(pd.read_csv(tmp_path / "t" / "games.csv")) == 3 * 3 * 2


def test_ladder_resumes_after_ctrl_c(tmp_path, capsys, monkeypatch):
    ps = [Preset("easy", "random", {}, "nim"),
          Preset("hard", "mcts", full_params("mcts", {"budget": 8}, "nim"), "nim")]
    path = dump_presets(PresetFile("nim", ps, "difficulty", {}, {"held_out_levels": [1, 2]}),
                        tmp_path / "p.json")
    args = ["ladder", str(path), "--baselines", "osla", "--games", "4", "--workers", "0",
            "--quiet"]
    interrupted_then_resumed(monkeypatch, capsys, args + ["--out", str(tmp_path / "l")],
                             tmp_path / "l", games=7)
    assert main(args + ["--out", str(tmp_path / "whole")]) == 0
    same_games(tmp_path / "l" / "games.csv", tmp_path / "whole" / "games.csv")
    assert (tmp_path / "l" / "ladder.md").read_text() == (tmp_path / "whole" / "ladder.md").read_text()
    assert (tmp_path / "l" / "ladder.png").stat().st_size > 0  # drawn by the command


def test_validate_resumes_after_ctrl_c(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: nim\nlevels: {set: 'range:0-5', train: 2}\n"
                   "agent: {name: pmcts_pu, budget: 5}\nopponent: random\n"
                   "features: [stones_per_move, moves]\nemitter: {batch_size: 2, initial_random: 2}\n"
                   "evaluations: 6\nseed: 3\n")
    run = tmp_path / "run"
    assert main(["evolve", str(cfg), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    capsys.readouterr()
    args = ["validate", str(run), "--workers", "0", "--quiet"]
    interrupted_then_resumed(monkeypatch, capsys, args, run, games=3)
    resumed = pd.read_csv(run / "validation_games.csv")
    assert (run / "validation.png").stat().st_size > 0  # drawn by the command
    assert main(args) == 0
    whole = pd.read_csv(run / "validation_games.csv")
    cols = [c for c in whole.columns if not c.endswith(("seconds", "think_s"))]
    pd.testing.assert_frame_equal(resumed[cols], whole[cols])
    assert len(whole) > 3


def test_tournament_json_records_every_resolved_parameter(tmp_path, capsys):
    import json
    assert main(["tournament", "--game", "nim", "--agents", "mcts", "random", "--budget", "7",
                 "--levels", "seeds:1", "--reps", "1", "--workers", "0", "--quiet",
                 "--out", str(tmp_path)]) == 0
    info = json.loads((tmp_path / "tournament.json").read_text())
    mcts, rnd = info["agents"]
    assert mcts["params"] == {"budget": 7} and mcts["resolved"]["budget"] == 7  # --budget
    assert mcts["resolved"] == full_params("mcts", {"budget": 7}, "nim")
    assert len(mcts["resolved"]) > 1  # the defaults, written out
    assert rnd["resolved"] == full_params("random", {}, "nim")
    assert info["levels_played"] == [1] and info["version"]


def test_a_journal_of_no_finished_game_does_not_block_a_new_start(tmp_path):
    path = tmp_path / "games.journal"
    plan = specs(2)
    GameJournal(path, plan, "tournament").log.close()  # stopped before its first game
    again = GameJournal(path, plan, "tournament")
    assert again.missing == [0, 1]
    again.add(0, run_game(plan[0]))
    again.log.close()
    with pytest.raises(ValueError, match=r"\(1 games played\)"):
        GameJournal(path, plan, "tournament")
