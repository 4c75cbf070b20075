"""The checkpoint is data: planted pickles run no code, damaged or deleted tables are rebuilt
on resume (or refused by the readers), and a checkpoint that does not match the code or the
run is refused."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import pandas as pd
import pytest

from playstyles.cli import main
from qd.checkpoint import CheckpointLog
from qd.run import RunError, RunInterrupted, evolve
from qd.rundir import CHECKPOINT, GAMES, INDIVIDUALS, METRICS
from tests.qd.test_run import assert_same_run, write

TABLES = ("games.csv", "individuals.csv", "metrics.csv", "elites.csv")


class Payload:
    """Unpickling this runs code: it creates the file it names."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def run(cfg: Path, out: Path, **kw):
    return evolve(cfg, out=out, workers=0, **kw)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A whole run, and the same run stopped after 3 of its 5 batches (its files kept)."""
    tmp = tmp_path_factory.mktemp("ckpt")
    cfg = write(tmp)
    whole = run(cfg, tmp / "whole").run_dir
    part = run(cfg, tmp / "part", max_batches=3).run_dir
    return cfg, whole, part


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_the_checkpoint_is_a_log_of_data(runs):
    _, whole, _ = runs
    lines = (whole / CHECKPOINT).read_bytes().splitlines()
    header = json.loads(lines[0].split(b"\t", 1)[1])
    assert header["format"] == "playstyles-checkpoint" and header["version"] == 3
    assert header["config"]["seed"] == 5
    assert len(lines) == 1 + 5  # one line per batch
    for line in lines:
        check, text = line.split(b"\t", 1)
        assert hashlib.sha256(text).hexdigest()[:16].encode() == check
    last = json.loads(lines[-1].split(b"\t", 1)[1])
    for name in TABLES:
        data = (whole / name).read_bytes()
        assert last["files"][name]["sha256"] == hashlib.sha256(data).hexdigest()
        assert last["files"][name]["bytes"] == len(data)
    assert last["files"][GAMES]["rows"] == len(pd.read_csv(whole / GAMES)) == 14 * 4


@pytest.mark.parametrize("damage", ["truncated", "deleted", "edited"])
@pytest.mark.parametrize("table", [GAMES, INDIVIDUALS, METRICS])
def test_a_damaged_table_is_rebuilt_on_resume(runs, tmp_path, table, damage, capsys):
    cfg, whole, part = runs
    d = copy(part, tmp_path / "d")
    before = (d / table).read_bytes()
    if damage == "truncated":
        (d / table).write_bytes(before[:len(before) * 2 // 3])
    elif damage == "deleted":
        (d / table).unlink()
    else:
        (d / table).write_bytes(before.replace(b"\n1,", b"\n7,", 1))
    # the readers refuse it, naming the file and how to rebuild it
    assert main(["report", str(d)]) == 2
    err = capsys.readouterr().err
    assert f"{d / table}" in err and "--resume" in err and "Traceback" not in err
    r = run(cfg, d, resume=True)
    assert r.complete
    # rebuilt byte for byte: the digest the checkpoint recorded matches again
    assert [n for n in r.notes if table in n and n.endswith("rebuilt from the checkpoint")]
    for name in ("elites.csv", "individuals.csv"):
        assert (d / name).read_bytes() == (whole / name).read_bytes(), name
    assert_same_run(whole, d)


def test_rows_written_after_the_last_checkpoint_are_cut_off(runs, tmp_path):
    cfg, whole, part = runs
    d = copy(part, tmp_path / "d")
    with open(d / GAMES, "ab") as fh:
        fh.write(b"3,99,0,0,11,1,0,8,0,1.0,0.1\n")  # a batch that never reached the checkpoint
    assert run(cfg, d, resume=True).notes == []
    for name in ("elites.csv", "individuals.csv"):
        assert (d / name).read_bytes() == (whole / name).read_bytes(), name
    assert len(pd.read_csv(d / GAMES)) == len(pd.read_csv(whole / GAMES))


def test_resume_without_a_checkpoint_refuses(runs, tmp_path):
    cfg, _, part = runs
    d = copy(part, tmp_path / "d")
    (d / CHECKPOINT).unlink()
    with pytest.raises(RunError, match="checkpoint.jsonl: not found; the run cannot continue"):
        run(cfg, d, resume=True)
    assert not (d / CHECKPOINT).exists()


def test_a_checkpoint_that_asks_other_genomes_is_refused(runs, tmp_path):
    cfg, _, part = runs
    d = copy(part, tmp_path / "d")
    lines = (d / CHECKPOINT).read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[2].split(b"\t", 1)[1])
    g = entry["genomes"][0]
    g[0] = 0.75 if g[0] != 0.75 else 0.25  # an edited batch (its checksum made to match)
    text = json.dumps(entry).encode()
    lines[2] = hashlib.sha256(text).hexdigest()[:16].encode() + b"\t" + text + b"\n"
    (d / CHECKPOINT).write_bytes(b"".join(lines))
    with pytest.raises(RunError, match="batch 1 was asked other genomes"):
        run(cfg, d, resume=True)


def test_a_damaged_checkpoint_line_replays_from_the_batch_before(runs, tmp_path):
    cfg, whole, part = runs
    d = copy(part, tmp_path / "d")
    lines = (d / CHECKPOINT).read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"0", b"1", 1)  # the third batch's line fails its checksum
    (d / CHECKPOINT).write_bytes(b"".join(lines))
    r = run(cfg, d, resume=True)
    assert any("line 4 is torn or damaged" in n for n in r.notes)
    for name in ("elites.csv", "individuals.csv"):
        assert (d / name).read_bytes() == (whole / name).read_bytes(), name


def test_an_interrupted_batch_keeps_its_games_as_data(tmp_path, monkeypatch):
    cfg = write(tmp_path)
    seen = []

    def kill(i, rec):
        seen.append(i)
        if len(seen) == 12 + 8 + 5:
            raise KeyboardInterrupt
    with pytest.raises(RunInterrupted):
        run(cfg, tmp_path / "r", on_game=kill)
    text = (tmp_path / "r" / "partial.jsonl").read_bytes()
    assert text.count(b"\n") == 1 + 5 and not text.startswith(b"\x80")


def plant(path: Path, flag: Path) -> None:
    path.write_bytes(pickle.dumps(Payload(flag)))


def test_planted_pickles_run_no_code_in_any_command(runs, tmp_path, capsys):
    """A pickle planted as every file a run directory may hold (the old checkpoint and
    partial names, the new ones, the validation journal) runs no code under evolve --resume,
    validate, report or export."""
    cfg, _, part = runs
    flag = tmp_path / "ran"
    # an older version's checkpoint: refused with a message
    d = copy(part, tmp_path / "old")
    (d / CHECKPOINT).unlink()
    plant(d / "checkpoint.pkl", flag)
    plant(d / "partial.pkl", flag)
    with pytest.raises(RunError, match="checkpoint.pkl: a checkpoint written as a pickle.*not "
                                       "read"):
        run(cfg, d, resume=True)
    # planted under the names this version reads
    d = copy(part, tmp_path / "new")
    plant(d / CHECKPOINT, flag)
    with pytest.raises(RunError, match="pickle.*not read"):
        run(cfg, d, resume=True)
    d = copy(part, tmp_path / "partial")
    plant(d / "partial.jsonl", flag)
    plant(d / "partial.pkl", flag)
    assert run(cfg, d, resume=True).complete  # its games are simply played again
    plant(d / "validation.journal", flag)
    validate = ["validate", str(d), "--workers", "0", "--quiet", "--games", "2", "--levels",
                "seeds:31"]
    assert main(validate) == 2
    assert main(validate + ["--resume"]) == 2
    assert "pickle" in capsys.readouterr().err
    plant(d / "checkpoint.pkl", flag)
    assert main(["report", str(d)]) == 0
    assert main(["export", str(d), "--count", "2"]) == 0
    assert not flag.exists()


def test_a_full_disk_while_checkpointing_names_the_file_and_resumes(tmp_path, monkeypatch,
                                                                     runs):
    """The third checkpoint line is cut short by a full disk: the run stops naming
    checkpoint.jsonl, no torn line is left, and --resume ends with the uninterrupted tables."""
    import errno
    import os

    cfg, whole, _ = runs
    real = CheckpointLog.add
    calls = {"n": 0}

    def full(self, item, sync=False):
        calls["n"] += 1
        if calls["n"] == 3:
            fh = self.fh
            self.fh.write(b"0123456789abcdef\t{\"batch\": 2, \"fi")  # part of the line
            self.fh = _Full(fh)
        real(self, item, sync)

    class _Full:
        def __init__(self, fh):
            self.fh = fh

        def tell(self):
            return self.fh.tell() - len(b"0123456789abcdef\t{\"batch\": 2, \"fi")

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def truncate(self, size):
            self.fh.flush()
            return self.fh.truncate(size)

        def close(self):
            self.fh.close()

    monkeypatch.setattr(CheckpointLog, "add", full)
    d = tmp_path / "full"
    with pytest.raises(RunError, match=r"cannot write .*checkpoint.jsonl: No space left on "
                                       r"device; the run stopped in batch 2"):
        run(cfg, d)
    monkeypatch.setattr(CheckpointLog, "add", real)
    text = (d / CHECKPOINT).read_bytes()
    assert text.endswith(b"\n") and text.count(b"\n") == 1 + 2  # header, batches 0 and 1
    run(cfg, d, resume=True)
    assert_same_run(whole, d)
