"""Batches in flight (`pipeline.lag`), and the faults of a run: Ctrl-C, a full disk, a killed
driver's local Ray."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

import qd.recorder as recorder_mod
from play.game_pool import Finished, GamePool
from play.runner import run_game
from qd.checkpoint import CheckpointLog, read_checkpoint, read_partial, told_batches
from qd.config import ConfigError, config_from_dict, load_config
from qd.emitters import EMITTERS, PaperEmitter, register_emitter
from qd.evolution import replay
from qd.run import RunError, RunInterrupted, evolve
from tests.qd.test_run import TINY, assert_same_run, write

REPO = Path(__file__).resolve().parents[2]


def checkpointed_state(d: Path):
    """The run state a checkpoint holds (`qd.run.replay` of its batches)."""
    config = load_config(d / "config.yaml")
    header, entries, stopped = read_checkpoint(d)
    return replay(config, told_batches(entries, len(config.genome_names), stopped)[0])[0]


def run(cfg: Path, out: Path, **kw):
    return evolve(cfg, out=out, workers=kw.pop("workers", 0), **kw)


def newest_first(self):
    """An in-process pool that plays the newest game first: games of later batches finish
    before those of the batch the run waits for."""
    key, i, spec = self._queue.pop()
    return Finished(key, i, run_game(spec), 0)


# ------------------------------------------------------------------ config

def test_pipeline_config():
    assert config_from_dict(TINY).pipeline == {"lag": 1}
    assert config_from_dict(TINY).to_dict()["pipeline"] == {"lag": 1}
    c = config_from_dict({**TINY, "pipeline": {"lag": 3}})
    assert c.pipeline == {"lag": 3} and config_from_dict(c.to_dict()).pipeline == {"lag": 3}
    with pytest.raises(ConfigError, match="pipeline.lag: must be >= 1"):
        config_from_dict({**TINY, "pipeline": {"lag": 0}})
    with pytest.raises(ConfigError, match="pipeline.lags: unknown key"):
        config_from_dict({**TINY, "pipeline": {"lags": 2}})
    with pytest.raises(ConfigError, match="pipeline.lag: emitter cma_me .* needs lag 1"):
        config_from_dict({**TINY, "emitter": {"kind": "cma_me"}, "pipeline": {"lag": 2}})
    config_from_dict({**TINY, "emitter": {"kind": "iso_line"}, "pipeline": {"lag": 2}})


# ------------------------------------------------------------------ determinism

def test_lag_1_is_the_default(tmp_path):
    a = run(write(tmp_path), tmp_path / "default").run_dir
    b = run(write(tmp_path, "lag1.yaml", pipeline={"lag": 1}), tmp_path / "lag1").run_dir
    for name in ("elites.csv", "individuals.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert_same_run(a, b)


class Recording(PaperEmitter):
    """The paper emitter, recording the order of its asks and tells."""

    kind = "test_recording"

    def __init__(self, archive, **kw):
        super().__init__(archive, **kw)
        self.events: list[str] = []

    def ask(self):
        out = super().ask()
        self.events.append(f"ask {len(out)}")
        return out

    def tell(self, solution, objective, measures, add_info, **fields):
        self.events.append(f"tell {len(solution)}")
        super().tell(solution, objective, measures, add_info, **fields)


def test_asks_and_tells_follow_the_lag(tmp_path):
    register_emitter(Recording)
    try:
        emitter = {**TINY["emitter"], "kind": "test_recording"}
        d = run(write(tmp_path, emitter=emitter, pipeline={"lag": 3}), tmp_path / "r").run_dir
        state = checkpointed_state(d)  # (the emitter rebuilt by telling it every batch again)
    finally:
        EMITTERS.pop("test_recording")
    # batches of 3 + 2 initial genomes, then 3 search batches of 3: the search waits for the
    # initial batches' elites, then batch k + 3 is asked right after batch k is told
    assert state.emitter.events == ["ask 3", "ask 2", "tell 3", "tell 2", "ask 3", "ask 3",
                                    "ask 3", "tell 3", "tell 3", "tell 3"]
    assert pd.read_csv(d / "metrics.csv")["batch_size"].tolist() == [3, 2, 3, 3, 3]


def test_lag_2_results_do_not_depend_on_the_order_games_finish(tmp_path, monkeypatch):
    cfg = write(tmp_path, pipeline={"lag": 2})
    fifo = run(cfg, tmp_path / "fifo").run_dir
    monkeypatch.setattr(GamePool, "next", newest_first)
    lifo = run(cfg, tmp_path / "lifo").run_dir
    assert_same_run(fifo, lifo)
    assert (fifo / "elites.csv").read_bytes() == (lifo / "elites.csv").read_bytes()


def test_a_run_killed_with_batches_in_flight_resumes_to_the_same_archive(tmp_path, monkeypatch):
    cfg = write(tmp_path, pipeline={"lag": 2})
    whole = run(cfg, tmp_path / "whole").run_dir

    # newest games first: batch 1 (8 games) before batch 0 (12); after they are told,
    # batches 2 and 3 are in flight and batch 3's 12 games come before batch 2's
    monkeypatch.setattr(GamePool, "next", newest_first)
    seen = []
    held = {}

    def kill(i, rec):
        seen.append(i)
        if len(seen) == 20 + 12 + 5:
            held.update(read_partial(d / "partial.jsonl", 0))
            raise KeyboardInterrupt
    d = tmp_path / "killed"
    with pytest.raises(RunInterrupted, match="interrupted after 2 completed batches, 5 of 14 "
                                             "evaluations; continue with --resume"):
        run(cfg, d, on_game=kill)
    assert {b: len(g) for b, g in held.items()} == {2: 5, 3: 12}, "the games of both batches"
    assert {b: len(g) for b, g in read_partial(d / "partial.jsonl", 0).items()} == {2: 5, 3: 12}
    assert "interrupted in batch 2 (after batch 1)" in (d / "run.log").read_text()
    monkeypatch.undo()
    run(cfg, d, resume=True)
    assert_same_run(whole, d)
    assert pd.read_csv(d / "metrics.csv")["reused_games"].tolist() == [0, 0, 5, 12, 0]
    assert not (d / "partial.jsonl").exists()


@pytest.mark.slow
def test_pipelined_runs_resume_at_any_point(tmp_path, monkeypatch):
    cfg = write(tmp_path, pipeline={"lag": 3}, evaluations=20)
    whole = run(cfg, tmp_path / "whole").run_dir
    # stopped between batches, resumed several times
    d = tmp_path / "stopped"
    assert not run(cfg, d, max_batches=1).complete
    run(cfg, d, resume=True, max_batches=2)
    assert run(cfg, d, resume=True).complete
    assert_same_run(whole, d)
    # killed after every few games (newest games first), resumed each time
    monkeypatch.setattr(GamePool, "next", newest_first)
    d = tmp_path / "killed"
    count = {"n": 0}

    def kill(i, rec):
        count["n"] += 1
        if count["n"] % 11 == 0:
            raise KeyboardInterrupt
    resume = False
    for _ in range(40):
        try:
            if run(cfg, d, resume=resume, on_game=kill).complete:
                break
        except RunInterrupted:
            pass
        resume = True
    assert_same_run(whole, d)
    # killed between the tables and the checkpoint
    d = tmp_path / "torn"
    real = CheckpointLog.told
    calls = {"n": 0}

    def torn(self, batch):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        real(self, batch)
    monkeypatch.setattr(CheckpointLog, "told", torn)
    with pytest.raises(RunInterrupted, match="after 2 completed batches"):
        run(cfg, d)
    monkeypatch.setattr(CheckpointLog, "told", real)
    run(cfg, d, resume=True)
    assert_same_run(whole, d)


@pytest.mark.slow
def test_same_archive_with_lag_2_and_any_number_of_workers(tmp_path, no_ray):
    import ray
    cfg = write(tmp_path, pipeline={"lag": 2}, evaluations=11)
    dirs = []
    for workers in (0, 1, 2):
        d = tmp_path / f"w{workers}"
        evolve(cfg, out=d, workers=workers)
        assert not ray.is_initialized()
        dirs.append(d)
    assert_same_run(dirs[0], dirs[1])
    assert_same_run(dirs[0], dirs[2])
    m = pd.read_csv(dirs[2] / "metrics.csv")
    assert (m["workers_alive"] == 2).all() and (m["nodes_alive"] == 1).all()
    assert (m["retries"] == 0).all()


# ------------------------------------------------------------------ faults

@pytest.mark.slow
def test_ctrl_c_on_ray_flushes_the_games_and_shuts_ray_down(tmp_path, monkeypatch, no_ray):
    import ray
    cfg = write(tmp_path, pipeline={"lag": 2})
    whole = run(cfg, tmp_path / "whole").run_dir
    count = {"n": 0}

    def ctrl_c(i, rec):
        count["n"] += 1
        if count["n"] == 30:
            raise KeyboardInterrupt
    d = tmp_path / "ray"
    with pytest.raises(RunInterrupted, match="continue with --resume") as info:
        run(cfg, d, workers=2, on_game=ctrl_c)
    assert not ray.is_initialized(), "Ray is shut down before the error reaches the caller"
    kept = sum(len(g) for g in read_partial(d / "partial.jsonl", info.value.batches).values())
    assert kept >= 1  # at least the game that was being stored
    run(cfg, d, resume=True)
    assert_same_run(whole, d)
    assert pd.read_csv(d / "metrics.csv")["reused_games"].sum() == kept


def test_a_full_disk_names_the_file_and_the_batch(tmp_path, monkeypatch):
    cfg = write(tmp_path, pipeline={"lag": 2})
    whole = run(cfg, tmp_path / "whole").run_dir
    real = recorder_mod.atomic_write
    calls = {"n": 0}

    def full(path, data):
        if Path(path).name == "elites.csv":
            calls["n"] += 1
            if calls["n"] == 3:  # batch 2's
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)
    monkeypatch.setattr(recorder_mod, "atomic_write", full)
    d = tmp_path / "full"
    with pytest.raises(RunError, match=r"cannot write .*elites.csv: No space left on device; the "
                                       r"run stopped in batch 2 and can be resumed from its last "
                                       r"checkpoint \(after batch 1\).*--resume"):
        run(cfg, d)
    monkeypatch.setattr(recorder_mod, "atomic_write", real)
    assert "stopped in batch 2 (after batch 1): cannot write" in (d / "run.log").read_text()
    assert not (d / "elites.csv.tmp").exists()
    run(cfg, d, resume=True)
    assert_same_run(whole, d)
    # batch 2's games (all 12) were kept; batch 3's had not started in-process
    assert pd.read_csv(d / "metrics.csv")["reused_games"].tolist() == [0, 0, 12, 0, 0]


def test_a_failed_table_append_leaves_no_torn_row(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    recorder_mod.append_csv(path, pd.DataFrame({"batch": [0], "x": [1.5]}))
    before = path.read_bytes()

    real_open = recorder_mod.open_own

    class Torn:  # a disk that fills up after part of the row is written
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[:4])
            self.fh.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def torn_open(path, mode="ab", *args, **kw):
        fh = real_open(path, mode, *args, **kw)
        return Torn(fh) if "a" in mode else fh
    monkeypatch.setattr(recorder_mod, "open_own", torn_open)
    with pytest.raises(recorder_mod.WriteFailed, match="t.csv: No space left on device"):
        recorder_mod.append_csv(path, pd.DataFrame({"batch": [1], "x": [2.5]}))
    assert path.read_bytes() == before


# ------------------------------------------------------------------ the local Ray's watchdog

def _descendants(pid: int) -> dict[int, bytes]:
    procs = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                data = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            rest = data[data.rindex(b")") + 2:].split()
            procs[int(name)] = (int(rest[1]), rest[19])
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        for child, (parent, start) in procs.items():
            if parent == p and child not in out:
                out[child] = start
                todo.append(child)
    return out


def _alive(pids: dict[int, bytes]) -> list[int]:
    left = []
    for pid, start in pids.items():
        try:
            data = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            continue
        rest = data[data.rindex(b")") + 2:].split()
        if rest[19] == start and rest[0] != b"Z":
            left.append(pid)
    return left


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watchdog reads /proc")
def test_a_killed_driver_leaves_no_ray_process(tmp_path):
    conf = {**TINY, "agent": {"name": "mcts", "budget": 400, "genome_mapping": "none"},
            "options": {"max_rounds": 30}, "evaluations": 6}
    cfg = tmp_path / "slow.yaml"
    cfg.write_text(yaml.safe_dump(conf))
    d = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    driver = subprocess.Popen([sys.executable, "-m", "playstyles", "evolve", str(cfg), "--out",
                               str(d), "--workers", "2", "--quiet"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (d / "partial.jsonl").exists() or len(read_partial(d / "partial.jsonl", 0)) == 0:
            assert driver.poll() is None and time.monotonic() < deadline, "no game finished"
            time.sleep(0.2)
        ray_procs = _descendants(driver.pid)
        assert len(ray_procs) >= 4  # GCS, raylet, agents, workers, the watchdog
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + 10
        while _alive(ray_procs) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _alive(ray_procs) == []
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for pid in _alive(locals().get("ray_procs", {})):  # only if the test failed
            os.kill(pid, signal.SIGKILL)
