"""Turn-level baselines (`turn_rollout`, `hillclimb`): the greedy rollout agent finds the turn
of the test game Relay that arms before firing, hillclimb ends its turn where one-step
look-ahead plays on, budgets are spent exactly and never exceeded (also when shared out over
rollouts), decisions are reproducible and parameters are checked.

Relay (`tests/games/relay.py`): the best turn plays "arm" (-1) before "fire" (+10 instead of
+1), 12 points with "jab", "poke" and "feint"."""

from __future__ import annotations

import pytest

from agents.conformance import check_agents
from agents.registry import make_agent, validate_agent
from agents.search import Budget, BudgetExhausted, Share
from tests.agents.counting import counted_tribes_decisions
from tests.agents.test_action_tree import play_turn, relay

NAMES = ("turn_rollout", "hillclimb")


def test_greedy_rollouts_find_the_turn_that_arms_before_firing():
    """Each first action followed by a greedy rollout: only "arm" leads to the 12-point turn
    (after "fire" the rollout never arms: it costs a point), so arm is played first."""
    state = relay()
    agent = make_agent("turn_rollout", game="relay", seed=3, budget=200, policy="greedy")
    first = agent.act(state)
    values = dict(agent.last_values)
    assert first == "arm"
    assert values["arm"] == 12
    assert max(v for a, v in values.items() if a != "arm") == 4
    played = [first] + play_turn(agent, _after(state, first))
    assert played.index("arm") < played.index("fire")


def _after(state, action):
    state.apply(action)
    return state


def test_the_turn_played_scores_twelve():
    state = relay()
    played = play_turn(make_agent("turn_rollout", game="relay", seed=5, budget=200), state)
    assert played.index("arm") < played.index("fire")
    assert state.points[0] == 12, played


def test_hillclimb_passes_when_nothing_scores_better_and_osla_plays_on():
    """Hillclimb takes the pass as a candidate: after the four +1 actions, passing (0) beats
    arming (-1), so it makes 4; one-step look-ahead never passes while something else is
    legal and arms last, making 3."""
    state = relay()
    played = play_turn(make_agent("hillclimb", game="relay", seed=3, budget=200), state)
    assert "arm" not in played and state.points[0] == 4, played
    state = relay()
    played = play_turn(make_agent("osla", game="relay", seed=3, budget=200), state)
    assert played[-2:] == ["arm", "pass"] and state.points[0] == 3, played


@pytest.mark.parametrize("name,params", [("turn_rollout", {}),
                                         ("turn_rollout", {"policy": "random", "rollouts": 3}),
                                         ("turn_rollout", {"greedy_k": 4}),
                                         ("hillclimb", {})])
def test_tribes_budget_is_never_exceeded_and_decisions_are_reproducible(name, params):
    def run(seed):
        return counted_tribes_decisions(name, params, seed)

    first = run(7)
    assert first == run(7)
    assert first != run(8)


def test_a_budget_below_the_candidates_tries_a_subset_without_rollouts():
    state = relay()  # six legal actions
    agent = make_agent("turn_rollout", game="relay", seed=1, budget=4)
    a = agent.act(state)
    assert a in state.legal_actions()
    assert len(agent.last_values) == 4 and agent.last_budget.used == 4


def test_every_game_agent_check_includes_them():
    report = check_agents("relay", budget=25, names=NAMES)
    assert report.decisions == {"turn_rollout": 3, "hillclimb": 3}
    for game in ("nim", "tribolo"):
        report = check_agents(game, budget=7, names=NAMES)
        assert report.decisions == {"turn_rollout": 3, "hillclimb": 3}, game


def test_a_share_spends_its_parent_and_stops_at_its_own_limit():
    parent = Budget(10)
    share = Share(parent, 4)
    inner = Share(share, 9)  # cut to what the share has left
    assert inner.total == 4
    s = relay()
    for a in ("jab", "poke", "feint"):
        inner.apply(s, a)
    share.charge()
    assert (parent.used, share.used, inner.used) == (4, 4, 3)
    with pytest.raises(BudgetExhausted):
        share.apply(s, "fire")
    assert Share(parent, 100).total == 6


@pytest.mark.parametrize("bad,field", [({"policy": "smart"}, "policy"),
                                       ({"rollouts": -1}, "rollouts"),
                                       ({"rollouts": 1.5}, "rollouts"),
                                       ({"rollouts": "2"}, "rollouts"),
                                       ({"greedy_k": 0}, "greedy_k"),
                                       ({"greedy_k": 2.5}, "greedy_k"),
                                       ({"budget": 0}, "budget")])
def test_bad_parameters_name_the_field(bad, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        validate_agent("turn_rollout", bad, game="relay")
    with pytest.raises(ValueError, match=f"^{field}:"):
        make_agent("turn_rollout", game="relay", **bad)


def test_hillclimb_takes_no_rollout_parameters():
    with pytest.raises(ValueError, match="unknown parameter 'policy'"):
        make_agent("hillclimb", game="relay", policy="random")
    with pytest.raises(ValueError, match="^budget:"):
        validate_agent("hillclimb", {"budget": 0}, game="relay")


@pytest.mark.parametrize("name", NAMES)
def test_params_rebuild_the_agent(name):
    extra = {"policy": "random", "rollouts": 2, "greedy_k": 3} if name == "turn_rollout" else {}
    agent = make_agent(name, game="relay", seed=4, budget=33, **extra)
    again = make_agent(name, **agent.params())
    assert again.params() == agent.params()
