"""Whole runs: the run directory, determinism across worker counts, resume after a kill,
retry after a dead worker, and the errors that protect a run directory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import qd.run as run_mod
from playstyles.cli import main
from qd.checkpoint import CheckpointLog
from qd.run import RunError, RunInterrupted, evolve

REPO = Path(__file__).resolve().parents[2]
TIMING = ("seconds", "think_s", "marker")


# the genome mapping "test_mcts_style" is registered by tests/conftest.py
TINY = {
    "game": "tribes",
    "name": "tiny",
    "options": {"max_rounds": 8},
    "levels": {"train": "seeds:11,12"},
    "agent": {"name": "mcts", "budget": 12, "genome_mapping": "test_mcts_style"},
    "opponent": "random",
    "repetitions": 2,
    "layout": ["SpawnStrongest", "SpawnDefensive", "ResearchRoads"],
    "features": [{"name": "score", "range": [500, 1500], "bins": 10},
                 {"name": "research_slope", "range": [0, 0.5], "bins": 5}],
    "emitter": {"batch_size": 3, "initial_random": 2},
    "evaluations": 14,
    "seed": 5,
    "noise": {"method": "none"},  # the plain loop (the default adds a closing batch)
}


def write(tmp_path: Path, name: str = "c.yaml", **over) -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump({**TINY, **over}))
    return p


def tables(run_dir: Path) -> dict[str, pd.DataFrame]:
    out = {}
    for name in ("elites", "individuals", "games"):
        f = pd.read_csv(run_dir / f"{name}.csv")
        out[name] = f[[c for c in f.columns if not c.endswith(TIMING)]]
    m = pd.read_csv(run_dir / "metrics.csv")
    out["metrics"] = m[["batch", "evaluations", "games", "cells", "qd_score", "best_win_rate",
                        "new_cells", "improved"]]
    return out


def assert_same_run(a: Path, b: Path) -> None:
    ta, tb = tables(a), tables(b)
    for name in ta:
        pd.testing.assert_frame_equal(ta[name], tb[name], check_exact=True, obj=name)


def test_run_directory(tmp_path):
    cfg = write(tmp_path)
    told, played, recorded = [], [], []
    r = evolve(cfg, out=tmp_path / "run", workers=0,
               progress=lambda step, done, total: told.append((step, done, total)),
               on_game=lambda i, rec: played.append(i), on_batch=recorded.append)
    d = r.run_dir
    assert r.complete and r.evaluations == 14 and r.games == 14 * 4
    # progress reaches the caller through the callbacks: every game, then each batch's metrics
    assert told[0] == ("tiny", 0, 56) and told[-1] == ("tiny", 56, 56)
    assert [done for _, done, _ in told] == list(range(57))
    assert len(played) == 56
    assert pd.DataFrame(recorded)["batch"].tolist() == list(range(5))
    for name in ("config.yaml", "checkpoint.jsonl", "elites.csv", "individuals.csv",
                 "metrics.csv", "games.csv", "run.log"):
        assert (d / name).exists(), name
    assert not (d / "partial.jsonl").exists()
    resolved = yaml.safe_load((d / "config.yaml").read_text())
    assert resolved["seed"] == 5 and resolved["levels"]["train"] == [11, 12]
    elites = pd.read_csv(d / "elites.csv")
    assert len(elites) == r.stats["cells"] > 1
    assert {"cell", "SpawnStrongest", "win_rate", "mean_score", "score_mean",
            "tile_slope_std", "batch"} <= set(elites.columns)
    ind = pd.read_csv(d / "individuals.csv")
    assert len(ind) == 14 and ind["evaluation"].tolist() == list(range(14))
    # Algorithm 1: the one-hot genomes come first
    assert ind.loc[:2, ["SpawnStrongest", "SpawnDefensive", "ResearchRoads"]].values.tolist() \
        == np.eye(3).tolist()
    games = pd.read_csv(d / "games.csv")
    assert len(games) == 56 and not games.duplicated(["evaluation", "game"]).any()
    assert games.groupby("evaluation")["genome_seat"].apply(list).map(
        lambda s: s == [0, 1, 0, 1]).all(), "seats alternate"
    assert games.groupby("evaluation")["genome_won"].mean().round(6).tolist() == \
        ind["win_rate"].round(6).tolist()
    metrics = pd.read_csv(d / "metrics.csv")
    assert metrics["evaluations"].iloc[-1] == 14 and (metrics["cpu_utilisation"] > 0).all()
    assert metrics["batch_size"].tolist() == [3, 2, 3, 3, 3]  # init (3 + 2), then search
    assert metrics["qd_score"].round(9).tolist() == \
        pd.DataFrame(recorded)["qd_score"].round(9).tolist()


@pytest.mark.slow
def test_interrupted_runs_resume_to_the_same_archive(tmp_path, monkeypatch):
    cfg = write(tmp_path)
    whole = evolve(cfg, out=tmp_path / "whole", workers=0).run_dir

    # stopped between batches, resumed twice
    d = tmp_path / "stopped"
    assert not evolve(cfg, out=d, workers=0, max_batches=2).complete
    evolve(cfg, out=d, workers=0, resume=True, max_batches=1)
    assert evolve(cfg, out=d, workers=0, resume=True).complete
    assert_same_run(whole, d)

    # killed in the middle of batch 3: the finished games of that batch are kept
    d = tmp_path / "killed"
    seen = []

    def kill(i, rec):
        seen.append(i)
        if len(seen) == 12 + 8 + 9:  # batches 0 and 1 hold 3 and 2 genomes of 4 games
            raise KeyboardInterrupt("simulated kill")
    with pytest.raises(RunInterrupted, match="interrupted after 2 completed batches.*--resume"):
        evolve(cfg, out=d, workers=0, on_game=kill)
    assert (d / "partial.jsonl").exists()
    evolve(cfg, out=d, workers=0, resume=True)
    assert_same_run(whole, d)
    reused = pd.read_csv(d / "metrics.csv")["reused_games"]
    assert reused.tolist() == [0, 0, 9, 0, 0]  # the 9 games batch 2 had finished
    assert not (d / "partial.jsonl").exists()

    # killed after the tables were written but before the checkpoint
    d = tmp_path / "torn"
    real = CheckpointLog.told
    calls = {"n": 0}

    def torn(self, batch):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt("killed while checkpointing")
        real(self, batch)
    monkeypatch.setattr(CheckpointLog, "told", torn)
    with pytest.raises(RunInterrupted, match="after 2 completed batches"):
        evolve(cfg, out=d, workers=0)
    monkeypatch.setattr(CheckpointLog, "told", real)
    evolve(cfg, out=d, workers=0, resume=True)
    assert_same_run(whole, d)


@pytest.mark.parametrize("kind", ["iso_line", "cma_me"])
def test_pyribs_emitters_run_and_resume(tmp_path, kind):
    cfg = write(tmp_path, emitter={"kind": kind, "batch_size": 3, "initial_random": 2},
                evaluations=13)
    whole = evolve(cfg, out=tmp_path / "whole", workers=0)
    assert whole.evaluations == 14  # whole batches: 5 initial + 3 x 3
    d = tmp_path / "parts"
    evolve(cfg, out=d, workers=0, max_batches=3)
    evolve(cfg, out=d, workers=0, resume=True)
    assert_same_run(whole.run_dir, d)
    ind = pd.read_csv(d / "individuals.csv")
    genomes = ind[["SpawnStrongest", "SpawnDefensive", "ResearchRoads"]].to_numpy()
    assert np.isin(genomes, [0, 0.25, 0.5, 0.75, 1]).all()


def test_run_directory_protection(tmp_path, capsys):
    cfg = write(tmp_path, evaluations=4)
    d = tmp_path / "run"
    evolve(cfg, out=d, workers=0)
    with pytest.raises(RunError, match="already holds a run.*--resume"):
        evolve(cfg, out=d, workers=0)
    other = write(tmp_path, "other.yaml", evaluations=4, repetitions=4)
    with pytest.raises(RunError, match="different config.*repetitions"):
        evolve(other, out=d, workers=0, resume=True)
    with pytest.raises(RunError, match="nothing to resume"):
        evolve(cfg, out=tmp_path / "empty", workers=0, resume=True)
    (d / "checkpoint.jsonl").write_bytes(b"garbage\n")
    with pytest.raises(RunError, match="checkpoint.jsonl: not a checkpoint"):
        evolve(cfg, out=d, workers=0, resume=True)
    # the command line reports these as one line
    assert main(["evolve", str(cfg), "--out", str(d), "--workers", "0", "--quiet"]) == 2
    assert "already holds a run" in capsys.readouterr().err


@pytest.mark.parametrize("key, value, named", [
    ("seed", 99, "seed"), ("evaluations", 40, "evaluations"),
    ("options", {"max_rounds": 9}, "options.max_rounds"),
    ("genome_scripts", ["SpawnStrongest", "SpawnDefensive"], "genome_scripts")])
def test_an_edited_run_config_is_refused(tmp_path, capsys, key, value, named):
    cfg = write(tmp_path, evaluations=4)
    d = tmp_path / "run"
    evolve(cfg, out=d, workers=0, max_batches=1)  # interrupted
    own = yaml.safe_load((d / "config.yaml").read_text())
    (d / "config.yaml").write_text(yaml.safe_dump({**own, key: value}))
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    capsys.readouterr()
    # from the original config, from the run's own copy, and validate on the run
    for args in (["evolve", str(cfg), "--out", str(d), "--resume"],
                 ["evolve", str(d / "config.yaml"), "--resume"],
                 ["validate", str(d)]):
        assert main([*args, "--workers", "0", "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert f"config.yaml: not the config the run was started with (differs in: {named};" \
            in err and "start a new run" in err
        assert {p.name: p.read_bytes() for p in d.iterdir()} == before
    # the config it was started with resumes it
    (d / "config.yaml").write_text(yaml.safe_dump(own))
    assert evolve(cfg, out=d, workers=0, resume=True).complete


def test_resume_without_a_seed_keeps_the_run_seed(tmp_path):
    data = {k: v for k, v in TINY.items() if k != "seed"}
    data["evaluations"] = 8
    cfg = tmp_path / "noseed.yaml"
    cfg.write_text(yaml.safe_dump(data))
    d = tmp_path / "run"
    evolve(cfg, out=d, workers=0, max_batches=1)
    seed = yaml.safe_load((d / "config.yaml").read_text())["seed"]
    r = evolve(cfg, out=d, workers=0, resume=True)
    assert r.complete
    assert yaml.safe_load((d / "config.yaml").read_text())["seed"] == seed
    # resuming from the run directory's own config finds the directory by itself
    assert main(["evolve", str(d / "config.yaml"), "--resume", "--quiet"]) == 0


def test_default_agent_is_portfolio_mcts_with_the_paper_layout(tmp_path):
    data = {"game": "tribes", "options": {"max_rounds": 3}, "levels": {"train": "seeds:11"},
            "repetitions": 2,
            "agent": {"budget": 10}, "emitter": {"batch_size": 4, "initial_random": 0},
            "evaluations": 4, "seed": 1}
    cfg = tmp_path / "pmcts.yaml"
    cfg.write_text(yaml.safe_dump(data))
    r = evolve(cfg, out=tmp_path / "run", workers=0)
    games = pd.read_csv(r.run_dir / "games.csv")
    assert set(games["genome_agent"]) == {"pmcts_pu"} and set(games["opponent_agent"]) == {"mcts"}
    ind = pd.read_csv(r.run_dir / "individuals.csv")
    assert list(ind.columns[3:14]) == ["ResearchFarms", "ResearchNaval", "ResearchMountains",
                                       "ResearchRange", "ResearchRoads", "SpawnStrongest",
                                       "SpawnDefensive", "SpawnCheapest", "SpawnFastest",
                                       "SpawnMaxHP", "SpawnRange"]


def test_cli_evolve(tmp_path, capsys):
    cfg = write(tmp_path, evaluations=5)
    assert main(["evolve", str(cfg), "--out", str(tmp_path / "r"), "--workers", "0",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "finished: 5 evaluations, 20 games" in out


@pytest.mark.slow
def test_same_archive_with_any_number_of_workers(tmp_path, no_ray):
    cfg = write(tmp_path, evaluations=11)
    dirs = []
    for workers in (0, 1, 2):
        d = tmp_path / f"w{workers}"
        evolve(cfg, out=d, workers=workers)
        dirs.append(d)
    assert_same_run(dirs[0], dirs[1])
    assert_same_run(dirs[0], dirs[2])
    assert (dirs[0] / "elites.csv").read_bytes() == (dirs[2] / "elites.csv").read_bytes()


@pytest.mark.slow
def test_a_dead_worker_is_retried_without_losing_or_repeating_games(tmp_path, no_ray,
                                                                   monkeypatch):
    import ray

    # the agent ends the process that plays it first: no trial game in this one
    monkeypatch.setattr(run_mod, "_trial_game", lambda config: None)

    from tests.qd import crashy
    crashy.register()
    marker = tmp_path / "crashed"
    over = {"agent": {"name": "crash_once", "params": {"marker": str(marker)},
                      "genome_mapping": "none"}, "evaluations": 6}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"worker_process_setup_hook": "tests.qd.crashy.register",
                          "env_vars": {"PYTHONPATH": str(REPO)}})
    crashed = evolve(write(tmp_path, **over), out=tmp_path / "ray", workers=2)
    ray.shutdown()
    assert marker.exists(), "a worker died"
    games = pd.read_csv(crashed.run_dir / "games.csv")
    assert len(games) == 6 * 4 and not games.duplicated(["evaluation", "game"]).any()
    # the same run in-process, where nothing dies, gives the same games and archive
    local = evolve(write(tmp_path, "local.yaml", **over), out=tmp_path / "local", workers=0)
    assert_same_run(crashed.run_dir, local.run_dir)
