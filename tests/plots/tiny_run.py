"""A tiny real evolution run shared by the tests of everything after a run (report,
validation, export, ladder): a few seconds in-process, built once per test process."""

from __future__ import annotations

from pathlib import Path

import yaml

TINY_RUN = {
    "name": "tiny",
    "game": "tribes",
    "options": {"max_rounds": 4},
    "levels": {"train": "seeds:11,12", "held_out": "seeds:13,14,15"},
    "agent": {"name": "pmcts_pu", "budget": 8},
    "opponent": {"name": "mcts", "params": {"rollouts": False}},  # the paper's MCTS
    "repetitions": 1,
    "features": [{"name": "research_slope", "range": [0.0, 1.0], "width": 0.25},
                 {"name": "tile_slope", "range": [0.0, 2.0], "width": 0.5}],
    "emitter": {"batch_size": 6, "initial_random": 1},
    "evaluations": 12,
    "seed": 7,
    "noise": {"method": "none"},  # plain: the tests read its evolved estimates
}

_built: dict[str, Path] = {}


def tiny_run(tmp_path_factory) -> Path:
    """The run directory of TINY_RUN (evolved once per process, then reused read-only:
    tests that write into a run copy it first)."""
    if "run" not in _built:
        from qd.run import evolve
        base = tmp_path_factory.mktemp("tiny_run")
        cfg = base / "tiny.yaml"
        cfg.write_text(yaml.safe_dump(TINY_RUN))
        evolve(cfg, out=base / "run", workers=0)
        _built["run"] = base / "run"
    return _built["run"]


def copy_run(src: Path, dst: Path) -> Path:
    import shutil
    shutil.copytree(src, dst)
    return dst
