"""Search decisions keep Python's cyclic garbage collector out: it is paused while an agent
decides and left as it was found, and a finished search leaves no reference cycle behind (its
tree is freed by reference counting)."""

from __future__ import annotations

import gc

import pytest

from agents.registry import make_agent
from agents.search import collector_paused
from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS

SEARCH_AGENTS = [("mcts", {}), ("mcts", {"rollouts": False, "solver": True}),
                 ("mcts", {"rewards": "per_player"}), ("pmcts_pu", {}), ("rhea", {}),
                 ("osla", {}), ("mc", {}), ("atree", {}), ("atree", {"rollout": "random"}),
                 ("hps", {}), ("hps", {"leaf": "playout"}), ("hps", {"search": "mcts"}),
                 ("turn_rollout", {}), ("turn_rollout", {"policy": "random"}), ("hillclimb", {})]


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_restores_the_previous_state_also_on_errors(enabled, collector_on):
    if not enabled:
        gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() == enabled
    with pytest.raises(KeyError):
        with collector_paused():
            raise KeyError("boom")
    assert gc.isenabled() == enabled


class _Spy:
    """An evaluator that records whether the collector was on while it was asked."""

    def __init__(self) -> None:
        self.seen: set[bool] = set()

    def evaluate(self, root, leaf, player: int) -> float:
        self.seen.add(gc.isenabled())
        return 0.0


@pytest.mark.parametrize("name,params", SEARCH_AGENTS, ids=[f"{n}{p}" for n, p in SEARCH_AGENTS])
def test_decision_runs_without_collector_and_leaves_no_cycles(name, params, collector_on):
    state = get_game("tribes").new_state(PAPER_SEEDS[0], 3)
    spy = _Spy()
    agent = make_agent(name, game="tribes", seed=1, budget=300, evaluator=spy, **params)
    gc.collect()
    action = agent.act(state)
    assert action in state.legal_actions()
    assert spy.seen == {False}
    assert gc.isenabled()
    if hasattr(agent, "last_root"):
        agent.last_root = None
    assert gc.collect() == 0
