"""Hierarchical Portfolio Search (`agents/hps.py`): whole-turn moves from phases of partial
players, alpha-beta with iterative deepening under a forward-model budget, and a planned turn
handed out action by action."""

from __future__ import annotations

import pytest

from agents.conformance import CountingState, check_agents
from agents.hps import PartialPlayer, Phase, phases_of, register_phases
from agents.registry import make_agent, validate_agent
from games.api import is_pass
from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS
from tests.games.nim import NimState


def tribes_start(max_rounds: int = 10):
    return get_game("tribes").new_state(PAPER_SEEDS[0], 3, max_rounds=max_rounds)


@pytest.mark.parametrize("params", [{}, {"leaf": "playout", "playout_turns": 1},
                                    {"alpha_beta": False, "max_moves": 5}])
def test_conformance_on_tribes_and_nim(params):
    for game, options in (("tribes", {"max_rounds": 8}), ("nim", {})):
        report = check_agents(game, options=options, budget=40, names=["hps"])
        assert report.decisions == {"hps": 3} and not report.refused
    state = tribes_start()
    agent = make_agent("hps", game="tribes", seed=2, budget=300, **params)
    c = CountingState(state.copy())
    assert agent.act(c) in state.legal_actions()
    assert c.counter.n == agent.last_budget.used
    assert 0 < c.counter.n <= 300


def test_the_planned_turn_is_handed_out_without_searching_again():
    state = tribes_start()
    agent = make_agent("hps", game="tribes", seed=1, budget=600)
    first = agent.act(state)
    plan = list(agent.plan)
    assert plan and is_pass(state, plan[-1]) and agent.last_depth >= 1
    played = [first]
    state.apply(first)
    for expected in plan:
        c = CountingState(state.copy())
        a = agent.act(c)
        assert a == expected and c.counter.n == 0 and not agent.last_replanned
        played.append(a)
        state.apply(a)
    assert state.current_player != 0  # the turn ended with the plan's pass action


def test_a_planned_action_that_became_illegal_makes_the_agent_search_again():
    state = tribes_start()
    agent = make_agent("hps", game="tribes", seed=1, budget=600)
    state.apply(agent.act(state))
    stale = agent.plan[0]
    assert not is_pass(state, stale)
    state.apply(stale)  # the world played the planned action: it is no longer legal
    assert stale not in state.legal_actions()
    c = CountingState(state.copy())
    a = agent.act(c)
    assert agent.last_replanned and a in state.legal_actions()
    assert 0 < c.counter.n == agent.last_budget.used


def test_a_new_turn_is_searched_even_when_a_plan_is_left():
    state = tribes_start()
    agent = make_agent("hps", game="tribes", seed=1, budget=300)
    agent.act(state)
    assert agent.plan
    other = tribes_start()
    other.apply(next(a for a in other.legal_actions() if is_pass(other, a)))  # player 1's turn
    c = CountingState(other.copy())
    assert agent.act(c) in other.legal_actions() and c.counter.n > 0


def _play(seed: int, decisions: int = 40) -> list:
    state = tribes_start(max_rounds=6)
    agents = [make_agent("hps", game="tribes", seed=seed + p, budget=200) for p in range(2)]
    out = []
    while not state.is_terminal() and len(out) < decisions:
        a = agents[state.current_player].act(state)
        out.append(a)
        state.apply(a)
    return out


def test_same_seed_same_games():
    assert _play(5) == _play(5)
    a = make_agent("hps", game="tribes", seed=5)
    b = make_agent("hps", game="tribes", seed=5)
    c = make_agent("hps", game="tribes", seed=6)
    assert a.combos == b.combos != c.combos


def test_moves_are_the_capped_cross_product_of_the_phases_partial_players():
    spec = phases_of("tribes")
    sizes = [len(ph.players) for ph in spec.phases]
    assert [ph.name for ph in spec.phases] == ["research", "economy", "units", "spawn"]
    total = 1
    for n in sizes:
        total *= n
    agent = make_agent("hps", game="tribes", seed=0, max_moves=10)
    assert len(agent.combos) == 10 == len(set(agent.combos))
    assert all(all(0 <= i < n for i, n in zip(c, sizes)) for c in agent.combos)
    assert len(make_agent("hps", game="tribes", max_moves=10_000).combos) == total
    state = tribes_start()
    agent.act(state)
    assert 1 <= agent.last_moves <= 10


@pytest.mark.parametrize("heaps", [[3, 4, 5], [2, 7, 9]])
def test_alpha_beta_finds_the_negamax_value_with_fewer_calls(heaps):
    found = {}
    for ab in (True, False):
        agent = make_agent("hps", game="nim", seed=0, budget=100_000, max_depth=4,
                           alpha_beta=ab, evaluator="nim_sum")
        action = agent.act(NimState(list(heaps)))
        assert agent.last_depth == 4
        found[ab] = (action, agent.last_value, agent.last_budget.used)
    assert found[True][:2] == found[False][:2]
    assert found[True][2] < found[False][2]


def test_games_without_scripts_and_bad_values_are_refused_by_name():
    with pytest.raises(ValueError, match="hps: game 'navy' registers no portfolio scripts"):
        make_agent("hps", game="navy")
    for bad, field in (({"leaf": "rollout"}, "leaf"), ({"max_moves": 0}, "max_moves"),
                       ({"max_depth": 0}, "max_depth"), ({"alpha_beta": "yes"}, "alpha_beta"),
                       ({"playout_turns": 0}, "playout_turns")):
        with pytest.raises(ValueError, match=field):
            validate_agent("hps", bad, game="tribes")
    with pytest.raises(ValueError, match="unknown script 'Nope'"):
        register_phases("nim", [Phase("take", (PartialPlayer("p", ("Nope",)),))])
    assert [p.name for p in phases_of("nim").phases[0].players] == ["TakeOne", "TakeAll",
                                                                      "NimSum"]
