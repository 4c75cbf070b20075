"""Hierarchical Portfolio Search beyond alpha-beta (`agents/hps.py`): UCT over whole-turn
moves (`search=mcts`), a random portfolio move (`search=random`), and portfolio subsets
(`drop`, `forbid`) for the difficulty settings."""

from __future__ import annotations

import pytest

from agents.conformance import CountingState, check_agents
from agents.hps import name_list, portfolio_phases
from agents.registry import make_agent, validate_agent
from games.api import is_pass
from games.registry import get_game
from games.tribes.actions import ACTION_OF_NAME
from games.tribes.level_sets import PAPER_SEEDS
from tests.agents.counting import counted_tribes_decisions
from tests.games.nim import NimState, nim_sum


def tribes_start(max_rounds: int = 10):
    return get_game("tribes").new_state(PAPER_SEEDS[0], 3, max_rounds=max_rounds)


@pytest.mark.parametrize("params", [{"search": "mcts"},
                                    {"search": "mcts", "leaf": "playout", "final": "mean"},
                                    {"search": "random"}])
def test_every_search_is_reproducible_and_within_its_budget(params):
    first = counted_tribes_decisions("hps", params, seed=3)
    assert first == counted_tribes_decisions("hps", params, seed=3)
    assert first != counted_tribes_decisions("hps", params, seed=4)
    report = check_agents("nim", budget=40, names=["hps"])
    assert report.decisions == {"hps": 3} and not report.refused


def test_mcts_iterates_until_the_budget_is_spent():
    agent = make_agent("hps", game="tribes", seed=1, budget=800, search="mcts")
    c = CountingState(tribes_start())
    agent.act(c)
    assert c.counter.n == agent.last_budget.used
    assert 800 - 40 < agent.last_budget.used <= 800  # at most one move's calls left unspent
    assert agent.last_iterations > agent.last_moves > 1 and agent.last_depth >= 2
    shallow = make_agent("hps", game="tribes", seed=1, budget=800, search="mcts", max_depth=1)
    shallow.act(tribes_start())
    assert shallow.last_depth == 1


@pytest.mark.parametrize("heaps", [[3, 4, 5], [1, 4, 4], [5, 5, 1]])
@pytest.mark.parametrize("seed", [0, 1])
def test_mcts_finds_the_winning_nim_move(heaps, seed):
    # the outcome evaluator: only finished games are worth anything, the search must reach them
    agent = make_agent("hps", game="nim", seed=seed, budget=2000, search="mcts",
                       evaluator="outcome")
    state = NimState(list(heaps))
    state.apply(agent.act(state))
    assert nim_sum(state.heaps) == 0  # the opponent is left a lost position


def test_mcts_plays_a_tribes_game_to_its_end():
    state = get_game("tribes").new_state(PAPER_SEEDS[2], 9, max_rounds=4)
    hps = make_agent("hps", game="tribes", seed=5, budget=300, search="mcts")
    agents = [hps, make_agent("random", seed=5)]
    searches = 0
    while not state.is_terminal():
        a = agents[state.current_player].act(state)
        searches += state.current_player == 0 and hps.last_iterations > 0
        state.apply(a)
    assert searches >= 4 and state.winner() in (0, 1)


def test_a_random_move_costs_only_its_own_actions_and_is_handed_out_as_a_plan():
    seen = set()
    for seed in range(6):
        agent = make_agent("hps", game="tribes", seed=seed, search="random")
        c = CountingState(tribes_start())
        first = agent.act(c)
        move = (first, *agent.plan)
        assert c.counter.n == agent.last_budget.used == len(move)
        assert is_pass(c, move[-1]) and agent.last_iterations == 0
        seen.add(move)
    assert len(seen) > 2  # different seeds, different moves


def test_drop_removes_partial_players_by_name_or_phase():
    easy = portfolio_phases("tribes", drop=("defensive",))
    names = {ph.name: [pp.name for pp in ph.players] for ph in easy.phases}
    assert "defensive" not in names["units"] + names["spawn"]
    one = portfolio_phases("tribes", drop=("spawn/defensive", "farms"))
    names = {ph.name: [pp.name for pp in ph.players] for ph in one.phases}
    assert "defensive" in names["units"] and "defensive" not in names["spawn"]
    assert names["research"] == ["range", "save"]
    agent = make_agent("hps", game="tribes", drop="defensive+score")
    assert all(len(c) == 4 for c in agent.combos)
    assert len(make_agent("hps", game="tribes", drop="defensive+score",
                          max_moves=1000).combos) == 3 * 2 * 3 * 3


def test_forbid_keeps_every_partial_player_off_those_action_types():
    pacifist = portfolio_phases("tribes", forbid=("ATTACK", "CAPTURE", "CONVERT"))
    scripts = {n for ph in pacifist.phases for pp in ph.players for n in pp.scripts}
    assert not scripts & {"Capture", "AttackMaxDamage", "AttackStrongest", "AttackClosest"}
    assert "MoveToCapture" in scripts
    # a pacifist in 12-round games: an attack and a capture were legal, it played neither
    forbidden = {ACTION_OF_NAME[t] for t in ("ATTACK", "CAPTURE", "CONVERT")}
    offered, played = set(), set()
    for level in (PAPER_SEEDS[0], PAPER_SEEDS[2]):
        state = get_game("tribes").new_state(level, 2, max_rounds=12)
        agents = [make_agent("hps", game="tribes", seed=1, search="random",
                             forbid="ATTACK+CAPTURE+CONVERT"),
                  make_agent("hps", game="tribes", seed=2, budget=200)]
        while not state.is_terminal():
            a = agents[state.current_player].act(state)
            if state.current_player == 0:
                offered |= {b[0] for b in state.legal_actions()}
                played.add(a[0])
            state.apply(a)
    assert offered & forbidden == {ACTION_OF_NAME["ATTACK"], ACTION_OF_NAME["CAPTURE"]}
    assert not played & forbidden


def test_bad_settings_are_refused_naming_the_field():
    for bad, message in (({"search": "uct"}, "search: one of alphabeta, mcts, random"),
                         ({"final": "best"}, "final: one of visits, mean"),
                         ({"c": -1}, "c: must be >= 0"),
                         ({"drop": 3}, "drop: names joined with"),
                         ({"drop": "defensiv"}, "drop: unknown partial player 'defensiv'.*"
                                                "units/defensive"),
                         ({"drop": "farms+range+save"}, "drop: every partial player of phase "
                                                        "'research'"),
                         ({"forbid": "SHOOT"}, "forbid: unknown action type 'SHOOT'.*ATTACK"),
                         ({"forbid": "LEVEL_UP"}, "forbid: LEVEL_UP is played by the interrupt")):
        with pytest.raises(ValueError, match=message):
            validate_agent("hps", bad, game="tribes")
    assert name_list(" a + b+", "drop") == ("a", "b") == name_list(["a", "b"], "drop")


def test_parameters_rebuild_the_same_agent():
    from play.presets import full_params
    params = full_params("hps", {"search": "mcts", "drop": "defensive",
                                 "forbid": ["ATTACK"], "c": 0.5, "final": "mean"}, "tribes")
    assert params["drop"] == ["defensive"] and params["forbid"] == ["ATTACK"]
    assert params["search"] == "mcts" and params["c"] == 0.5
