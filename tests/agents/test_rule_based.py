"""The rule-based Tribes agent: legal, reproducible, better than random, and sensible on
hand-built positions (default board of tests.games.tribes.builders: 8x8 plain, Xin-Xi = tribe 0 at
(1, 1), Imperius = tribe 1 at (6, 6))."""

from __future__ import annotations

import pytest

from agents.registry import make_agent
from games.registry import get_game
from games.tribes import actions as A
from games.tribes import constants as K
from games.tribes.level_sets import PAPER_SEEDS
from games.tribes.rule_based import END_TURN_VALUE, RuleBasedAgent
from play.runner import play_game
from tests.games.tribes.builders import (
    board,
    capital,
    clear,
    game,
    give_tech,
    idx,
    place,
    set_city,
    set_resource,
    set_stars,
)

GAME = get_game("tribes")


def _play(level: int, game_seed: int, agents, rounds: int, check_legal: bool = False):
    """Play a game; returns (final state, list of (player, action) decided by the agents)."""
    s = GAME.new_state(level, game_seed, max_rounds=rounds)
    log = []
    while not s.is_terminal():
        legal = s.legal_actions()
        p = s.current_player
        a = legal[0] if len(legal) == 1 else agents[p].act(s)
        if check_legal:
            assert a in legal, f"round {s.tick}: {a} is not legal"
        log.append((p, a))
        s.apply(a)
    return s, log


# ------------------------------------------------------------------ legality and seeds
def test_legal_action_in_every_state():
    for i, level in enumerate(PAPER_SEEDS[:3]):
        agents = [RuleBasedAgent(seed=i), RuleBasedAgent(seed=i + 10)] if i == 0 else \
            [RuleBasedAgent(seed=i), make_agent("random", seed=i)]
        s, log = _play(level, i, agents, rounds=15, check_legal=True)
        assert s.is_terminal()
        mine = [a for p, a in log if p == 0]
        assert any(a[0] != A.END_TURN for a in mine)  # it does play, not only end turns


def test_same_seed_same_game_other_seed_differs():
    level = PAPER_SEEDS[4]

    def run(seed):
        return _play(level, 7, [RuleBasedAgent(seed), RuleBasedAgent(seed + 1)], rounds=12)[1]

    first = run(3)
    assert run(3) == first
    assert run(4) != first


def test_registry_builds_it():
    a = make_agent("rule_based", game="tribes", seed=5)
    assert isinstance(a, RuleBasedAgent) and a.params() == {"seed": 5}


# ------------------------------------------------------------------ strength
@pytest.mark.slow
def test_beats_random_in_short_games():
    """Measured with exactly this setup on all 25 paper levels: 24/25 wins at 15 rounds,
    25/25 at 20 and at 30 (10/10 on these first 10 levels); with other game / random seeds
    74/75. 8/10 leaves room for engine fixes that shift single games."""
    wins = 0
    for i, level in enumerate(PAPER_SEEDS[:10]):
        seat = i % 2
        agents = [None, None]
        agents[seat] = RuleBasedAgent(seed=i)
        agents[1 - seat] = make_agent("random", seed=100 + i)
        s = GAME.new_state(level, 100 + i, max_rounds=20)
        play_game(s, agents)
        wins += s.winner() == seat
    assert wins >= 8, f"rule-based won only {wins}/10 against random"


# ------------------------------------------------------------------ hand-built positions
def _agent():
    return RuleBasedAgent(seed=0)


def test_captures_village_when_standing_on_it_fresh():
    s = game(board(cells={(3, 3): "v:"}))
    u = place(s, "WARRIOR", 0, (3, 3))
    a = _agent().act(s)
    assert a == (A.CAPTURE, u.id, idx(s, (3, 3)), -1)


def test_holds_a_village_it_cannot_capture_yet():
    s = game(board(cells={(3, 3): "v:"}))
    set_stars(s, 0, 0)
    # a rider that attacked may still move, but it stays to capture next turn
    u = place(s, "RIDER", 0, (3, 3), state="ATTACKED")
    clear(s, (1, 1))
    acts = s.legal_actions()
    vals = dict(zip(acts, _agent().evaluate(s, acts)))
    moves = [a for a in acts if a[0] == A.MOVE and a[1] == u.id]
    assert moves and all(vals[a] < END_TURN_VALUE for a in moves)
    assert _agent().act(s)[0] == A.END_TURN


def test_attacks_a_weaker_adjacent_enemy():
    s = game()
    set_stars(s, 0, 0)
    u = place(s, "WARRIOR", 0, (3, 3))
    e = place(s, "WARRIOR", 1, (3, 4), hp=8)  # survives: 5 damage dealt, 4 taken back
    assert _agent().act(s) == (A.ATTACK, u.id, e.id, -1)


def test_finishes_off_an_enemy():
    s = game()
    u = place(s, "WARRIOR", 0, (3, 3))
    e = place(s, "SWORDMAN", 1, (4, 4), hp=3)
    assert _agent().act(s) == (A.ATTACK, u.id, e.id, -1)


def test_no_suicidal_attack_and_flees_a_stronger_enemy():
    s = game()
    set_stars(s, 0, 0)
    u = place(s, "WARRIOR", 0, (3, 3), hp=3)
    e = place(s, "SWORDMAN", 1, (3, 4))
    acts = s.legal_actions()
    vals = dict(zip(acts, _agent().evaluate(s, acts)))
    assert vals[(A.ATTACK, u.id, e.id, -1)] < END_TURN_VALUE
    a = _agent().act(s)
    assert a[0] == A.MOVE and a[1] == u.id
    d = lambda i, j: max(abs(i // 8 - j // 8), abs(i % 8 - j % 8))  # noqa: E731
    assert d(a[2], e.pos) > d(u.pos, e.pos)


def test_moves_towards_a_village():
    s = game(board(cells={(5, 1): "v:"}))
    set_stars(s, 0, 0)
    u = place(s, "WARRIOR", 0, (2, 1))
    for seed in range(5):
        a = RuleBasedAgent(seed).act(s)
        assert a[0] == A.MOVE and a[1] == u.id
        assert a[2] // 8 == 3  # one row closer to the village on row 5


def test_level_up_choices():
    s = game()
    c = capital(s, 0)
    set_city(s, c.id, pop=2)
    assert _agent().act(s) == (A.LEVEL_UP, c.id, K.WORKSHOP, -1)
    s = game()
    set_city(s, c.id, level=3, pop=4)  # 7 unclaimed tiles within radius 2
    assert _agent().act(s) == (A.LEVEL_UP, c.id, K.BORDER_GROWTH, -1)


def test_research_follows_resources_in_territory():
    s = game()
    set_stars(s, 0, 20)
    set_resource(s, (0, 1), "FRUIT")
    assert _agent().act(s) == (A.RESEARCH_TECH, 0, K.ORGANIZATION, -1)


def test_gathers_when_the_city_needs_population():
    s = game()
    set_stars(s, 0, 10)
    give_tech(s, 0, "ORGANIZATION")
    set_resource(s, (0, 1), "FRUIT")
    set_city(s, capital(s, 0).id, pop=1)  # one more population levels it up
    a = _agent().act(s)
    assert a == (A.RESOURCE_GATHERING, capital(s, 0).id, idx(s, (0, 1)), -1)


def test_spawns_a_defender_under_threat():
    s = game()
    set_stars(s, 0, 10)
    give_tech(s, 0, "SHIELDS")
    clear(s, (1, 1))
    place(s, "WARRIOR", 1, (2, 3))  # two tiles from the empty capital
    assert _agent().act(s) == (A.SPAWN, capital(s, 0).id, K.DEFENDER, -1)


def test_never_disbands_and_ends_turn_when_idle():
    s = game()
    set_stars(s, 0, 0)
    give_tech(s, 0, "FREE_SPIRIT")
    acts = s.legal_actions()
    vals = dict(zip(acts, _agent().evaluate(s, acts)))
    disbands = [a for a in acts if a[0] == A.DISBAND]
    assert disbands and all(vals[a] < 0 for a in disbands)
    # capitals on a sea: the warrior can only disband, so the turn ends
    s2 = game(board(size=4, capitals={(0, 0): 0, (3, 3): 1}, fill="d:"))
    set_stars(s2, 0, 0)
    give_tech(s2, 0, "FREE_SPIRIT")
    kinds = {a[0] for a in s2.legal_actions()}
    assert kinds == {A.DISBAND, A.END_TURN}
    for seed in range(5):
        assert RuleBasedAgent(seed).act(s2)[0] == A.END_TURN
