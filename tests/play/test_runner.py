"""`play.runner`: what it does for a process that plays games, beside playing them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_startup_objects_are_frozen_once_before_the_first_game():
    """The first game moves the objects alive at that moment out of the collector's way
    (`gc.freeze`); later games freeze nothing more, so what games leave behind is still
    collected."""
    code = """
import gc
import tests.conftest  # registers the test game Nim
from play.runner import run_game
from tests.play.test_runner import tiny_spec
assert gc.get_freeze_count() == 0
run_game(tiny_spec(0))
first = gc.get_freeze_count()
assert first > 1000, first
garbage = [[] for _ in range(1000)]
for a, b in zip(garbage, garbage[1:]):
    a.append(b); b.append(a)   # cycles: only the collector frees them
del garbage, a, b
run_game(tiny_spec(1))
assert gc.get_freeze_count() == first, (gc.get_freeze_count(), first)
assert gc.collect() >= 1000
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def tiny_spec(seed: int):
    """A game of Nim between two random players."""
    from play.runner import AgentSpec, GameSpec
    a = AgentSpec.of("random")
    return GameSpec(game="nim", level=0, seed=seed, agents=(a, a), agent_seeds=(seed, seed + 1))
