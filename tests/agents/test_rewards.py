"""MCTS with one reward per player (max^n-style) against the searcher's rewards (paranoid in
games of more than two players): the choice where the opponents' interests differ, the
default per game, equivalence in a two-player zero-sum game, seeds, exact budgets and bad
parameters."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.conformance import CountingState, check_agents
from agents.registry import make_agent, validate_agent
from agents.tree import TreeNode, backup_each, each_player, select_uct
from games.registry import get_game


def test_per_player_rewards_follow_each_opponents_own_interest():
    """Trio's tree 0 (tests/games/trio.py): with each player maximising its own payoff, move
    A is worth 6 to player 0 and B 3; with both opponents minimising player 0's payoff, A is
    worth 0 and B 3."""
    state = get_game("trio").new_state(0, 0)
    for seed in range(4):
        per_player = make_agent("mcts", game="trio", seed=seed, budget=300)  # the default
        paranoid = make_agent("mcts", game="trio", seed=seed, budget=300, rewards="searcher")
        assert per_player.players_rewarded(state) == 3 and paranoid.players_rewarded(state) == 0
        assert per_player.act(state) == "A"
        assert paranoid.act(state) == "B"
        explicit = make_agent("mcts", game="trio", seed=seed, budget=300, rewards="per_player")
        assert explicit.act(state) == "A"


def test_each_node_keeps_its_choosers_sum_and_its_movers_range():
    """Below move A of Trio's tree 0: node A (player 1 to move) sums player 0's values (whose
    move leads to it) and spans player 1's; x and y sum player 1's. Selection at A without
    exploration follows player 1's own payoff."""
    root_state = get_game("trio").new_state(0, 0)
    rng = np.random.default_rng(0)
    root = each_player(TreeNode(root_state, None, 0, 0), 0)
    a_state = root_state.copy()
    a_state.apply("A")
    a = each_player(TreeNode(a_state, root, 1, 0), 0)
    leaves = {}
    for move in ("x", "y"):
        st = a_state.copy()
        st.apply(move)
        leaves[move] = each_player(TreeNode(st, a, 2, 0), 1)
        backup_each(leaves[move], st.node)
    backup_each(leaves["x"], (6, 3, 1))
    assert (root.mover, a.chooser, a.mover, leaves["x"].mover) == (0, 0, 1, 1)
    assert not a.opponent and a.n == 3 and root.n == 3
    assert (a.total, a.lo, a.hi) == (12, 1, 3)  # player 0: 6 + 0 + 6; player 1's range
    assert (root.total, root.lo, root.hi) == (12, 0, 6)  # the root's mover is player 0
    assert (leaves["x"].total, leaves["y"].total) == (6, 1)  # player 1: 3 + 3, 1
    assert select_uct(a, [leaves["x"], leaves["y"]], 0.0, rng) is leaves["x"]


def test_in_a_two_player_zero_sum_game_both_rewards_search_alike():
    """Nim's evaluators give the opponent the negated value, so maximising the opponent's own
    value is minimising the searcher's: the same moves, iteration for iteration."""
    g = get_game("nim")
    assert make_agent("mcts", game="nim").players_rewarded(g.new_state(0, 0)) == 0
    positions = 0
    for heaps in itertools.product(range(1, 4), repeat=3):
        s = g.new_state(0, 0)
        s.heaps = list(heaps)
        moves = {}
        for rewards in ("searcher", "per_player"):
            a = make_agent("mcts", game="nim", seed=positions, budget=200, rewards=rewards)
            moves[rewards] = (a.act(s), a.last_iterations, a.last_budget.used)
        assert moves["searcher"] == moves["per_player"], heaps
        positions += 1
    assert positions == 27


def _tribolo_positions(count: int, seed: int = 0):
    """Up to `count` unfinished positions: set-ups 0.. after a few random moves."""
    g = get_game("tribolo")
    rng = np.random.default_rng(seed)
    out = []
    for level in range(count):
        s = g.new_state(level, 0)
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
        if not s.is_terminal():
            out.append(s)
    return out


def test_tribolo_defaults_to_per_player_rewards_and_spends_its_budget_exactly():
    states = _tribolo_positions(4)
    assert make_agent("mcts", game="tribolo").players_rewarded(states[0]) == 3
    report = check_agents("tribolo", budget=60, positions=3, names=["mcts"])
    assert report.decisions == {"mcts": 3}
    for rewards in ("per_player", "searcher"):
        agent = make_agent("mcts", game="tribolo", seed=2, budget=150, rewards=rewards)
        for s in states:
            c = CountingState(s.copy())
            assert agent.act(c) in s.legal_actions()
            assert c.counter.n == agent.last_budget.used == 150


def test_same_seed_same_decisions_with_per_player_rewards():
    states = _tribolo_positions(4, seed=1)
    runs = []
    for _ in range(2):
        agent = make_agent("mcts", game="tribolo", seed=7, budget=200)
        runs.append([(agent.act(s), agent.last_iterations) for s in states])
    assert runs[0] == runs[1]


def test_bad_rewards_and_the_solver_with_per_player_rewards_are_refused():
    with pytest.raises(ValueError, match="rewards: one of auto, searcher, per_player"):
        validate_agent("mcts", {"rewards": "maxn"}, "tribolo")
    with pytest.raises(ValueError, match="solver: .* needs rewards=searcher"):
        make_agent("mcts", game="tribolo", solver=True, rewards="per_player")
    # auto with the solver: the searcher's rewards, which the solver needs
    s = get_game("tribolo").new_state(0, 0)
    assert make_agent("mcts", game="tribolo", solver=True).players_rewarded(s) == 0
    assert make_agent("mcts", rewards="per_player").params()["rewards"] == "per_player"
