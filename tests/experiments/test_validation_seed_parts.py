"""experiments/validation_seed_parts.py: one replay's games with seeds of another replay."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from play.runner import AgentSpec
from qd.genome_games import Plan
from qd.validation import plan_games

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "validation_seed_parts.py"
spec = importlib.util.spec_from_file_location("validation_seed_parts", SCRIPT)
parts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(parts)

ME, OPP = AgentSpec.of("random", "me"), AgentSpec.of("random", "opp")
PLAN = Plan(game="tribolo", levels=(1, 2), repetitions=1, agent=ME, opponent=OPP,
            genome_names=(), mapping="none", options=(), seed=1)
ELITES = pd.DataFrame({"cell": ["0:0", "1:1"], "index": [4, 9]})


def _replay(offset: int, seed: int = 1) -> list:
    e = ELITES.copy()
    e["index"] += offset
    return plan_games(e, [], PLAN, [1, 2], 4, seed, key=(offset,))


def test_a_mix_takes_each_seed_from_the_replay_it_names():
    target, donor = _replay(0), _replay(1000)
    for t, d in zip(target, donor):
        assert parts.mixed(t, d, "TTT") == t and parts.mixed(t, d, "DDD") == d
        seat = t.tag[2]
        m = parts.mixed(t, d, "DTD")
        assert m.seed == d.seed and m.agents == t.agents and m.tag == t.tag
        assert m.agent_seeds[seat] == t.agent_seeds[seat]  # the elite's seed: the target's
        assert m.agent_seeds[1 - seat] == d.agent_seeds[1 - seat]
        assert parts.seeds_of(parts.mixed(t, d, "TDT")) == (
            t.seed, d.agent_seeds[seat], t.agent_seeds[1 - seat])
    # both seats occur, so the elite's seed was found in either
    assert {t.tag[2] for t in target} == {0, 1}


def test_only_the_same_game_of_two_replays_mixes():
    target, donor = _replay(0), _replay(1000)
    with pytest.raises(ValueError, match="not the same game"):
        parts.mixed(target[0], donor[1], "TDD")


def test_the_validation_seeds_rows_say_which_seeds_a_game_had():
    seeds = importlib.util.spec_from_file_location(
        "validation_seeds", SCRIPT.parent / "validation_seeds.py")
    vs = importlib.util.module_from_spec(seeds)
    seeds.loader.exec_module(vs)

    class Rec:  # the parts of a GameRecord a row reads
        def __init__(self, spec):
            self.spec, self.rounds, self.winner = spec, 9, 1
            self.results = [0.0, 1.0]
            self.summaries = [{"score": 10}, {"score": 20}]

        def result(self, p):
            return self.results[p]

    specs = _replay(1000)
    elite = {"cell": "1:1", "index": 1009}
    s = specs[4 + 1]  # elite 1:1, game 1
    row = vs.game_row(1, 1000, elite, 1, Rec(s), s.tag[2])
    assert row["index"] == 9 and row["key_index"] == 1009 and row["game"] == 1
    assert row["elite_seed"] == s.agent_seeds[s.tag[2]]
    assert row["opponent_seed"] == s.agent_seeds[1 - s.tag[2]]
    assert row["elite_won"] == (1 if s.tag[2] == 1 else 0)
    with pytest.raises(RuntimeError, match="out of plan order"):
        vs.game_row(1, 1000, elite, 2, Rec(s), s.tag[2])
    assert np.isfinite(row["elite_score"])
