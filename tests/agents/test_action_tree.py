"""One-ply MCTS over action trees (`atree`): it finds a turn that needs two actions in a given
order, groups actions into the action tree, reuses its subtree within a turn (and only when
the position matches), spends its budget exactly, is reproducible and checks its parameters.

The multi-action positions come from the test game Relay (`tests/games/relay.py`): the best
turn plays "arm" before "fire" (12 points); one-step look-ahead fires unarmed."""

from __future__ import annotations

import pytest

from agents.action_tree import ActionTreeAgent, _Choice, _group, _Step
from agents.registry import make_agent, validate_agent
from games.registry import get_game
from play.runner import play_game
from tests.agents.counting import CountingState, counted_tribes_decisions

RELAY = get_game("relay")


def relay(rounds: int = 3):
    return RELAY.new_state(0, 0, rounds=rounds)


def play_turn(agent, state, counter=None) -> list[str]:
    """Let `agent` play the mover's whole turn; returns its actions (the pass included)."""
    played = []
    me = state.current_player
    while not state.is_terminal() and state.current_player == me:
        if counter is not None:
            counter.n = 0
        a = agent.act(state)
        if counter is not None:
            assert counter.n == agent.last_budget.used <= agent.budget
        played.append(a)
        state.apply(a)
    return played


@pytest.mark.parametrize("params", [{}, {"rollout": "random"}, {"final": "visits"},
                                    {"tree": "flat"}, {"tree": "actor"}])
def test_finds_the_turn_that_arms_before_firing(params):
    state = relay()
    agent = make_agent("atree", game="relay", seed=3, budget=60, **params)
    played = play_turn(agent, state)
    assert "arm" in played and "fire" in played
    assert played.index("arm") < played.index("fire")
    assert state.points[0] == 12, played


def test_one_step_look_ahead_does_not():
    """The position is a real test: greedy one-step play never arms first."""
    state = relay()
    played = play_turn(make_agent("osla", game="relay", seed=3, budget=60), state)
    assert played.index("fire") < played.index("arm")
    assert state.points[0] < 12


def test_action_tree_layers():
    """Type first: kinds, then actors within a kind; a single action is its own node."""
    state = relay()
    agent = ActionTreeAgent(game="relay", tree="type")
    top = agent._children_of_state(state)
    # kinds PREPARE (arm, feint: two actors), STRIKE (fire, jab, poke) and the pass alone
    assert [type(n) for n in top] == [_Choice, _Choice, _Step]
    assert top[2].action == "pass"
    strike = _group(top[1].actions, top[1].layers)
    # actors 0 (fire alone: a ground action) and 1 (jab, poke)
    assert isinstance(strike[0], _Step) and strike[0].action == "fire"
    assert isinstance(strike[1], _Choice)
    assert [n.action for n in _group(strike[1].actions, strike[1].layers)] == ["jab", "poke"]
    flat = ActionTreeAgent(game="relay", tree="flat")._children_of_state(state)
    assert [n.action for n in flat] == state.legal_actions()
    nim = get_game("nim").new_state(1, 0)
    assert all(isinstance(n, _Step) for n in ActionTreeAgent(game="nim")._children_of_state(nim))


def test_reuses_the_subtree_of_its_action_within_a_turn():
    state = relay()
    agent = make_agent("atree", game="relay", seed=1, budget=20)
    a = agent.act(state)
    assert agent.last_start_visits == 0
    kept = agent.kept_visits
    assert kept > 0
    state.apply(a)
    agent.act(state)
    assert agent.last_start_visits == kept


def test_a_different_position_starts_a_fresh_tree():
    state = relay()
    agent = make_agent("atree", game="relay", seed=1, budget=20)
    a = agent.act(state)
    assert agent.kept_visits > 0
    other = relay()
    other.apply("jab" if a != "jab" else "poke")  # the same turn, another position
    agent.act(other)
    assert agent.last_start_visits == 0
    without = make_agent("atree", game="relay", seed=1, budget=20, reuse=False)
    state = relay()
    state.apply(without.act(state))
    assert without.kept_visits == 0
    without.act(state)
    assert without.last_start_visits == 0


def test_a_reused_decision_spends_its_own_budget_exactly():
    """Decisions of one turn, with reuse, each counted by a proxy that sees every apply."""
    inner = relay(rounds=2)
    state = CountingState(inner)
    agent = make_agent("atree", game="relay", seed=2, budget=15)
    reused = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        state.counter.n = 0
        a = agent.act(state)
        assert state.counter.n == agent.last_budget.used <= 15
        reused += agent.last_start_visits > 0
        state.apply(a)
    assert reused > 0


@pytest.mark.parametrize("params", [{}, {"rollout": "random"}, {"greedy_k": 4}])
def test_tribes_budget_is_exact_and_decisions_reproducible(params):
    def run(seed):
        return counted_tribes_decisions("atree", params, seed)

    first = run(7)
    assert first == run(7)


def test_single_action_games_search_one_ply_and_stop_when_exact():
    """In Nim every action ends the turn: each is tried once and the search stops."""
    state = get_game("nim").new_state(3, 0)
    agent = make_agent("atree", game="nim", seed=0, budget=500)
    agent.act(state)
    assert agent.last_budget.used == len(state.legal_actions())
    assert agent.kept_visits == 0


def test_plays_whole_games():
    end = play_game(relay(), [make_agent("atree", seed=1, budget=40),
                              make_agent("osla", seed=1, budget=40)])
    assert end.winner() == 0


@pytest.mark.parametrize("bad,field", [({"rollout": "smart"}, "rollout"),
                                       ({"final": "mean"}, "final"),
                                       ({"tree": "deep"}, "tree"),
                                       ({"c": -1}, "c"),
                                       ({"greedy_k": 0}, "greedy_k"),
                                       ({"greedy_k": 2.5}, "greedy_k"),
                                       ({"reuse": "yes"}, "reuse"),
                                       ({"budget": 0}, "budget")])
def test_bad_parameters_name_the_field(bad, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        validate_agent("atree", bad, game="relay")
    with pytest.raises(ValueError, match=f"^{field}:"):
        make_agent("atree", game="relay", **bad)


def test_params_rebuild_the_agent():
    agent = make_agent("atree", game="relay", seed=4, budget=33, rollout="random",
                       final="visits", tree="actor", greedy_k=3, reuse=False)
    again = make_agent("atree", **agent.params())
    assert again.params() == agent.params()
