"""No command overwrites what it did not write: a run directory's files, a user's folder or
file, a device or a FIFO are refused (exit 2, one message naming the path) and left
byte-identical; a command's own earlier results are overwritten only with --force (and
continued with --resume); a write that fails on a full disk leaves neither a temporary file
nor an empty one."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

import pytest
import yaml

from base.files import (
    MARKER,
    atomic_write,
    check_folder,
    check_output_file,
    claim_folder,
    save_figure,
)
from playstyles.cli import main
from tests.agents.test_learned import TINY as TINY_TRAINING
from tests.play.test_ladder import presets
from tests.plots.tiny_run import copy_run, tiny_run

NIM_TOURNAMENT = ("--agents", "random", "random:label=other", "--game", "nim", "--reps", "1",
                  "--workers", "0", "--quiet")


def run(capsys, *argv) -> tuple[int, str, str]:
    """main(argv) -> (exit status, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(capsys, path: Path, *argv) -> str:
    """Run a command that must be refused: exit 2 and one error naming `path`."""
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert err.startswith("playstyles: error: ") and str(path) in err, err
    return err


@pytest.fixture
def run_dir(tmp_path_factory, tmp_path) -> Path:
    return copy_run(tiny_run(tmp_path_factory), tmp_path / "run")


@pytest.fixture
def preset_file(tmp_path) -> Path:
    """A two-preset file of quick agents (the ladder tests' own)."""
    (tmp_path / "p").mkdir()
    return presets(tmp_path / "p")


def full_disk(monkeypatch) -> None:
    """Every os.write fails as on a full disk."""
    def no_space(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "write", no_space)


def leftovers(folder: Path) -> list[str]:
    """Temporary files and empty files under `folder`."""
    return [str(p) for p in folder.rglob("*")
            if p.is_file() and (".tmp" in p.name or p.stat().st_size == 0)]


# ------------------------------------------------------------------------------ run directories

def test_export_into_a_run_file_is_refused_and_the_run_is_untouched(run_dir, capsys):
    before = snapshot(run_dir)
    for name in ("elites.csv", "validation.csv", "config.yaml"):  # validation.csv: not yet there
        err = refused(capsys, run_dir / name, "export", run_dir, "-o", run_dir / name)
        assert "a file of the run directory" in err
        err = refused(capsys, run_dir / name, "export", run_dir, "-o", run_dir / name,
                      "--force")
    assert snapshot(run_dir) == before


def test_ladder_and_tournament_into_a_run_directory_are_refused(run_dir, preset_file, capsys):
    before = snapshot(run_dir)
    for argv in (("ladder", preset_file, "--workers", "0", "--quiet", "--out", run_dir),
                 ("ladder", preset_file, "--workers", "0", "--quiet", "--out", run_dir,
                  "--force"),
                 ("tournament", *NIM_TOURNAMENT, "--out", run_dir, "--force")):
        err = refused(capsys, run_dir, *argv)
        assert "is not empty" in err
    assert snapshot(run_dir) == before


def test_export_to_its_default_file_again_needs_force(run_dir, capsys):
    default = run_dir / "presets_difficulty.json"
    assert run(capsys, "export", run_dir, "--count", "2")[0] == 0
    first = default.read_bytes()
    err = refused(capsys, default, "export", run_dir, "--count", "2")
    assert "--force" in err and default.read_bytes() == first
    code, out, _ = run(capsys, "export", run_dir, "--count", "1", "--force")
    assert code == 0 and len(json.loads(default.read_text())["presets"]) == 1
    # a file of the user's is not a preset file: never overwritten, whatever the flags
    mine = run_dir.parent / "notes.json"
    mine.write_text('{"mine": true}')
    err = refused(capsys, mine, "export", run_dir, "-o", mine, "--force")
    assert "not written by playstyles export" in err and mine.read_text() == '{"mine": true}'


def test_export_calibrate_again_needs_force_for_the_file_and_its_ladder(run_dir, tmp_path,
                                                                         capsys):
    out = tmp_path / "p.json"
    argv = ("export", run_dir, "--count", "2", "-o", out, "--calibrate", "random", "--games",
            "2", "--workers", "0", "--quiet")
    assert run(capsys, *argv)[0] == 0
    ladder = tmp_path / "p-ladder"
    first = snapshot(ladder)
    refused(capsys, out, *argv)
    out.unlink()  # the file gone, its ladder is still an earlier one's
    refused(capsys, ladder, *argv)
    assert not out.exists() and snapshot(ladder) == first  # refused before anything
    assert run(capsys, *argv, "--force")[0] == 0
    assert "rating" in json.loads(out.read_text())["presets"][0]["evidence"]


# ------------------------------------------------------------------------------ user folders

@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_an_unrelated_folder_is_refused_even_with_force(command, tmp_path, preset_file, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "games.csv").write_text("my,own\n1,2\n")
    (folder / "summary.csv").write_text("my summary\n")
    before = snapshot(folder)
    argv = ("tournament", *NIM_TOURNAMENT) if command == "tournament" else \
        ("ladder", preset_file, "--games", "2", "--workers", "0", "--quiet")
    for extra in ((), ("--force",), ("--resume",)):
        err = refused(capsys, folder, *argv, "--out", folder, *extra)
        assert "files that playstyles did not write" in err
    assert snapshot(folder) == before


def test_a_tournament_folder_again_needs_force_and_not_for_another_command(
        tmp_path, preset_file, capsys):
    out = tmp_path / "tour"
    assert run(capsys, "tournament", *NIM_TOURNAMENT, "--out", out)[0] == 0
    assert json.loads((out / MARKER).read_text()) == {"command": "tournament", "format": 1}
    first = snapshot(out)
    err = refused(capsys, out, "tournament", *NIM_TOURNAMENT, "--out", out)
    assert "--force" in err and snapshot(out) == first
    # another command's folder is refused whatever the flags
    err = refused(capsys, out, "ladder", preset_file, "--workers", "0", "--quiet", "--out", out,
                  "--force")
    assert "playstyles tournament" in err and snapshot(out) == first
    code, out_text, _ = run(capsys, "tournament", *NIM_TOURNAMENT, "--seed", "5", "--out", out,
                            "--force")
    assert code == 0 and (out / "games.csv").read_bytes() != first["games.csv"]


def test_a_ladder_folder_again_needs_force(preset_file, capsys):
    out = preset_file.with_name("ladder-ladder")  # the default, beside the file
    argv = ("ladder", preset_file, "--games", "2", "--levels", "seeds:11", "--rounds", "2",
            "--workers", "0", "--quiet")
    assert run(capsys, *argv)[0] == 0
    first = snapshot(out)
    refused(capsys, out, *argv)
    assert snapshot(out) == first
    assert run(capsys, *argv, "--seed", "3", "--force")[0] == 0
    assert (out / "games.csv").read_bytes() != first["games.csv"]


def test_evolve_refuses_a_folder_of_other_files_and_still_names_a_run(tmp_path, run_dir, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    config = run_dir / "config.yaml"
    err = refused(capsys, folder, "evolve", config, "--out", folder, "--workers", "0")
    assert "is not empty" in err and "--out" in err
    assert snapshot(folder) == {"notes.txt": b"mine"}
    before = snapshot(run_dir)
    err = refused(capsys, run_dir, "evolve", config, "--out", run_dir, "--workers", "0")
    assert "already holds a run" in err and snapshot(run_dir) == before


# ------------------------------------------------------------------------------ planted files

NIM_PROBE = {"name": "np", "game": "nim", "levels": {"set": "range:0-5", "train": 2},
             "agent": {"name": "pmcts_pu", "budget": 5}, "opponent": "random",
             "features": ["stones_per_move", "moves"], "evaluations": 6, "seed": 3}


@pytest.mark.parametrize("command", ["ladder", "tournament"])
def test_a_forged_marker_claims_no_run_directory(command, run_dir, preset_file, capsys):
    """A marker naming another command, planted in a run directory, claims nothing: the
    command is refused whatever the flags, the run is untouched and still resumes."""
    (run_dir / MARKER).write_text(json.dumps({"command": command, "format": 1}))
    before = snapshot(run_dir)
    argv = ("tournament", *NIM_TOURNAMENT) if command == "tournament" else \
        ("ladder", preset_file, "--games", "2", "--workers", "0", "--quiet")
    for extra in ((), ("--force",), ("--resume",)):
        err = refused(capsys, run_dir, *argv, "--out", run_dir, *extra)
        assert f"which playstyles {command} does not write" in err, err
    assert snapshot(run_dir) == before
    code, _, err = run(capsys, "evolve", run_dir / "config.yaml", "--resume", "--workers", "0",
                       "--quiet")
    assert code == 0, err
    assert (run_dir / "games.csv").read_bytes() == before["games.csv"]
    assert json.loads((run_dir / MARKER).read_text())["command"] == "evolve"


def test_a_forged_marker_in_another_commands_folder_claims_nothing(tmp_path, preset_file,
                                                                    capsys):
    out = tmp_path / "tour"
    assert run(capsys, "tournament", *NIM_TOURNAMENT, "--out", out)[0] == 0
    (out / MARKER).write_text(json.dumps({"command": "ladder", "format": 1}))
    first = snapshot(out)
    err = refused(capsys, out, "ladder", preset_file, "--games", "2", "--workers", "0",
                  "--quiet", "--out", out, "--force")
    assert "tournament.json" in err and "which playstyles ladder does not write" in err
    assert snapshot(out) == first
    # the tournament's own content is its claim, whatever the marker says
    assert run(capsys, "tournament", *NIM_TOURNAMENT, "--out", out, "--force")[0] == 0
    assert json.loads((out / MARKER).read_text())["command"] == "tournament"


@pytest.mark.parametrize("name", ["tournament.json", "ladder.json", "probe.json",
                                  "games.journal", "probe.journal"])
def test_a_name_alike_file_claims_no_folder(name, tmp_path, preset_file, capsys):
    """A folder without a marker is its command's only when the command's own file is
    there: a file of the same name that is not one changes nothing."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / name).write_text('{"mine": true}\n')
    for table in ("games.csv", "summary.csv", "probe.csv"):
        (folder / table).write_text("my,own\n1,2\n")
    before = snapshot(folder)
    cfg = tmp_path / "np.yaml"
    cfg.write_text(yaml.safe_dump(NIM_PROBE))
    for argv in (("tournament", *NIM_TOURNAMENT),
                 ("ladder", preset_file, "--games", "2", "--workers", "0", "--quiet"),
                 ("probe", cfg, "--games", "1", "--workers", "0", "--quiet")):
        for extra in (("--force",), ("--resume",)):
            err = refused(capsys, folder, *argv, "--out", folder, *extra)
            assert "files that playstyles did not write" in err, err
    assert snapshot(folder) == before


def test_a_folder_without_a_marker_is_recognized_by_its_content(tmp_path, preset_file, capsys):
    """A folder written before markers, recognized by its own (real) summary file."""
    from play.ladder import is_ladder_dir
    from play.tournament import is_tournament_dir
    from qd.probe import _is_probe

    tour = tmp_path / "tour"
    assert run(capsys, "tournament", *NIM_TOURNAMENT, "--out", tour)[0] == 0
    ladder = tmp_path / "ladder"
    assert run(capsys, "ladder", preset_file, "--games", "2", "--levels", "seeds:11", "--rounds",
               "2", "--workers", "0", "--quiet", "--out", ladder)[0] == 0
    for folder, recognized in ((tour, is_tournament_dir), (ladder, is_ladder_dir)):
        (folder / MARKER).unlink()
        assert recognized(folder)
        assert not _is_probe(folder)
    assert not is_ladder_dir(tour) and not is_tournament_dir(ladder)
    assert run(capsys, "tournament", *NIM_TOURNAMENT, "--out", tour, "--force")[0] == 0
    (ladder / "ladder.json").write_text('{"game": "nim"}')  # the name, not the file
    assert not is_ladder_dir(ladder)


@pytest.mark.parametrize("name", ["run.log", "games.csv", "checkpoint.jsonl"])
def test_a_symlinked_run_file_is_not_followed(name, run_dir, tmp_path, capsys):
    """evolve --resume refuses a run file that is a symbolic link, naming it, before
    anything is written: the file it points to and the run are untouched."""
    outside = tmp_path / "outside"
    outside.write_bytes((run_dir / name).read_bytes())
    (run_dir / name).unlink()
    (run_dir / name).symlink_to(outside)
    before, kept = snapshot(run_dir), outside.read_bytes()
    err = refused(capsys, run_dir / name, "evolve", run_dir / "config.yaml", "--resume",
                  "--workers", "0", "--quiet")
    assert "a symbolic link" in err and err.count("\n") == 1, err
    assert outside.read_bytes() == kept and snapshot(run_dir) == before
    assert (run_dir / name).is_symlink()


def test_files_kept_open_are_never_written_through_a_link(tmp_path):
    """open_own refuses a link (and does not follow one put there after the look); a game
    journal whose file is a link is replaced by a file of its own, the link's target
    untouched."""
    from base.files import open_own
    from play.journal import GameJournal
    from play.runner import AgentSpec, GameSpec, run_game

    outside = tmp_path / "outside"
    outside.write_text("mine\n")
    link = tmp_path / "run.log"
    link.symlink_to(outside)
    for mode in ("ab", "r+b", "a"):
        with pytest.raises(ValueError, match=re.escape(f"{link}: a symbolic link (to {outside})")):
            open_own(link, mode)
    if hasattr(os, "O_NOFOLLOW"):  # the open itself does not follow a link
        with pytest.raises(OSError):
            open(link, "ab", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW))
    a = AgentSpec.of("random")
    specs = [GameSpec("nim", i, i, (a, a), (i, i + 1)) for i in range(2)]
    journal = tmp_path / "games.journal"
    j = GameJournal(journal, specs, "tournament")
    j.add(0, run_game(specs[0]))
    j.log.close()
    target = tmp_path / "elsewhere.journal"
    journal.rename(target)
    journal.symlink_to(target)
    kept = target.read_bytes()
    j = GameJournal(journal, specs, "tournament", resume=True)
    j.add(1, run_game(specs[1]))
    j.log.close()
    assert target.read_bytes() == kept and not journal.is_symlink()
    assert sorted(GameJournal(journal, specs, "tournament", resume=True).done) == [0, 1]
    assert outside.read_text() == "mine\n"


# ------------------------------------------------------------------------------ special files

@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_special_files_are_refused_and_left_as_they_are(kind, tmp_path, run_dir, capsys):
    target = tmp_path / "target"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    what = "a FIFO (named pipe)" if kind == "fifo" else "a directory"
    for argv in (("export", run_dir, "-o", target, "--force"),
                 ("play", "--game", "nim", "--record", target, "--force")):
        err = refused(capsys, target, *argv)
        assert f"is {what}, not a regular file" in err
    assert stat.S_ISFIFO(target.stat().st_mode) if kind == "fifo" else target.is_dir()
    with pytest.raises(ValueError, match=re.escape(f"{target}: exists and is {what}")):
        atomic_write(target, "x")
    if kind == "fifo":  # as a folder: not a directory
        err = refused(capsys, target, "tournament", *NIM_TOURNAMENT, "--out", target)
        assert "not a directory" in err
    assert stat.S_ISFIFO(target.stat().st_mode) if kind == "fifo" else \
        list(target.iterdir()) == []


def test_play_record_and_replay_images(tmp_path, capsys):
    record = tmp_path / "game.json"
    play = ("play", "--game", "nim", "--record", record)
    assert run(capsys, *play)[0] == 0
    first = record.read_bytes()
    err = refused(capsys, record, *play)
    assert "--force" in err and record.read_bytes() == first
    assert run(capsys, *play, "--seed", "1", "--force")[0] == 0
    mine = tmp_path / "mine.json"
    mine.write_text("{}")
    assert "not written by playstyles play --record" in refused(capsys, mine, "play", "--game",
                                                                "nim", "--record", mine,
                                                                "--force")
    frames = tmp_path / "frames"
    assert run(capsys, "replay", record, "--images", frames)[0] == 0
    refused(capsys, frames, "replay", record, "--images", frames)
    assert run(capsys, "replay", record, "--images", frames, "--force")[0] == 0
    assert "files that playstyles did not write" in refused(
        capsys, tmp_path, "replay", record, "--images", tmp_path, "--force")


def test_train_evaluator_outputs_are_checked_before_training(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    model = tmp_path / "m.npz"
    cfg.write_text(yaml.safe_dump({**TINY_TRAINING, "output": str(model)}))
    mine = tmp_path / "mine.md"
    mine.write_text("my notes\n")
    for flag in ("--out", "--summary", "--samples"):
        err = refused(capsys, mine, "train-evaluator", cfg, "--workers", "0", "--quiet", flag,
                      mine, "--force")
        assert "not written by playstyles train-evaluator" in err
    assert mine.read_text() == "my notes\n" and not model.exists()


# ------------------------------------------------------------------------------ full disks

def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    old = tmp_path / "presets.json"
    old.write_text("old")
    full_disk(monkeypatch)
    for path in (old, tmp_path / "new.json"):
        with pytest.raises(OSError, match="No space"):
            atomic_write(path, "new content")
    monkeypatch.undo()
    assert old.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == \
        ["presets.json"]


def test_commands_on_a_full_disk_leave_no_temporary_or_empty_file(run_dir, tmp_path, capsys,
                                                                  monkeypatch):
    from plots.report import write_report
    before = snapshot(run_dir)
    full_disk(monkeypatch)
    with pytest.raises(OSError):
        write_report(run_dir)
    code, _, err = run(capsys, "export", run_dir, "-o", tmp_path / "p.json")
    assert code == 2 and "No space" in err
    code, _, err = run(capsys, "play", "--game", "nim", "--record", tmp_path / "g.json")
    assert code == 2 and "No space" in err
    monkeypatch.undo()
    assert snapshot(run_dir) == before and leftovers(tmp_path) == []
    assert not (tmp_path / "p.json").exists() and not (tmp_path / "g.json").exists()


def test_a_figure_is_saved_whole_or_not_at_all(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure()
    path = save_figure(fig, tmp_path / "chart.png", dpi=50)
    assert path.read_bytes().startswith(b"\x89PNG")
    full_disk(monkeypatch)
    with pytest.raises(OSError):
        save_figure(fig, tmp_path / "other.png")
    monkeypatch.undo()
    plt.close(fig)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.png"]


# ------------------------------------------------------------------------------ the helpers

def test_the_folder_rules(tmp_path):
    d = tmp_path / "out"
    assert claim_folder(d, command="ladder") == d  # absent: made, marked
    assert check_folder(d, command="tournament") is False  # only a marker: as good as empty
    (d / "games.csv").write_text("x")
    with pytest.raises(ValueError, match="earlier playstyles ladder.*--force"):
        check_folder(d, command="ladder")
    assert check_folder(d, command="ladder", force=True) is True
    assert check_folder(d, command="ladder", resume=True) is True
    with pytest.raises(ValueError, match="results of playstyles ladder"):
        check_folder(d, command="tournament", force=True)
    (d / MARKER).write_text("not json")
    with pytest.raises(ValueError, match="files that playstyles did not write"):
        check_folder(d, command="ladder", force=True)
    # a folder recognized by its own files (written before markers, or its marker replaced)
    assert check_folder(d, command="ladder", force=True, ours=lambda f: True) is True
    (d / MARKER).unlink()
    assert check_folder(d, command="ladder", force=True, ours=lambda f: True) is True
    # a marker claims only a folder of the command's own files
    claim_folder(d, command="ladder", force=True, ours=lambda f: True)  # marked again
    assert check_folder(d, command="ladder", force=True, writes=("games.*",)) is True
    (d / "games.csv.tmp").write_text("x")  # a killed write's leftover
    assert check_folder(d, command="ladder", force=True, writes=("games.csv",)) is True
    (d / "config.yaml").write_text("x")
    with pytest.raises(ValueError, match="holds 'config.yaml', which playstyles ladder does "
                                         "not write"):
        check_folder(d, command="ladder", force=True, writes=("games.csv",))


def test_the_file_rules(tmp_path):
    p = tmp_path / "model.npz"
    assert check_output_file(p, command="x", ours=lambda f: False) == p  # absent: fine
    with pytest.raises(ValueError, match="a file of the run directory"):
        check_output_file(tmp_path / "elites.csv", command="x", protected=("elites.csv",))
    p.write_text("x")
    with pytest.raises(ValueError, match="not written by playstyles x"):
        check_output_file(p, command="x", ours=lambda f: False, force=True)
    with pytest.raises(ValueError, match="give --force"):
        check_output_file(p, command="x", ours=lambda f: True)
    assert check_output_file(p, command="x", ours=lambda f: True, force=True) == p
    if stat.S_ISCHR(os.stat("/dev/null").st_mode):  # a device is looked at, never opened
        with pytest.raises(ValueError, match="/dev/null: exists and is a character device"):
            check_output_file("/dev/null", command="x", force=True)
