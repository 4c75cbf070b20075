"""Navy Defense: rules on hand-built positions, seeded worlds, the hidden-information
protocol, the particle belief, hindsight optimisation and the scripted baselines."""

from __future__ import annotations

import numpy as np
import pytest

from agents.conformance import check_agents
from agents.hop import HOPAgent
from agents.registry import make_agent
from games.api import IllegalAction, determinise, new_belief, observation, results
from games.conformance import check_game
from games.navy.level import NavyLevel, generate_level
from games.navy.state import SNAPSHOT_EVENTS, NavyState
from games.navy.subs import BELIEVED
from games.registry import get_game
from play.runner import play_game


def world(navy, cargo=((0, 0, "cw"),), subs=(), size=7, steps=30, seed=0) -> NavyState:
    return NavyState.start(NavyLevel(size, navy, tuple(cargo), tuple(subs)), steps, seed)


def xy(state, cell):
    return state.board.xy[cell]


# -- rules -------------------------------------------------------------------------------------

def test_moves_cost_one_and_stay_is_free():
    s = world((0, 0), size=5)
    assert s.legal_actions() == ["STAY", "E", "S"]
    s.apply("STAY")
    assert s.cost == 0
    s.apply("E")
    assert xy(s, s.navy) == (1, 0) and s.cost == 1
    before = (s.navy, s.cost, s.t)
    with pytest.raises(IllegalAction):
        s.apply("N")  # off the board
    assert (s.navy, s.cost, s.t) == before


def test_cargo_ships_circle_their_ring():
    s = world((6, 6), cargo=((1, 1, "cw"), (1, 1, "ccw"), (3, 3, "cw")))
    s.apply("STAY")
    assert [xy(s, s.cargo_cell(c)) for c in range(3)] == [(2, 1), (1, 2), (3, 3)]
    for _ in range(7):
        s.apply("STAY")
    assert xy(s, s.cargo_cell(0)) == (5, 5)  # ring 1 of 7x7: the 16 cells of [1,5] x [1,5]
    for _ in range(8):
        s.apply("STAY")
    assert xy(s, s.cargo_cell(0)) == (1, 1) and xy(s, s.cargo_cell(1)) == (1, 1)


def test_sonar_damages_subs_in_the_block_and_they_flee():
    s = world((3, 3), subs=((4, 3), (6, 6)))
    s.apply("STAY")
    assert s.s_hp == [1, 2] and s.sonar == (1, 0) and s.cost == 0
    assert xy(s, s.s_pos[0]) == (5, 3)  # the only move out of the block
    assert [e[2] for e in s.events() if e[2] not in SNAPSHOT_EVENTS] == ["sub_hit"]


def test_a_cornered_sub_attacks_the_navy_ship_and_the_sonar_sinks_it():
    s = world((3, 3), cargo=((0, 0, "cw"),), subs=((3, 3),))
    s.apply("STAY")  # sonar: sub to 1; the sub cannot leave: it attacks the ship's cell
    assert s.s_hp == [1] and s.navy_hp == 1 and s.cost == 10
    s.apply("STAY")  # sonar sinks it before it acts
    assert s.s_hp == [0] and s.sonar == (0, 1) and s.cost == 10
    assert s.summary(0)["sub_destroyed"] == 1 and s.summary(0)["navy_hit"] == 1


def test_two_hits_in_one_step_cost_hit_then_destroyed():
    s = world((3, 3), subs=((3, 3), (3, 3)))
    s.apply("STAY")
    assert s.navy_hp == 0 and s.cost == 10 + 40
    assert s.legal_actions() == ["STAY"]  # a sunk ship only stays, its sonar is off
    s.apply("STAY")
    assert s.s_hp == [1, 1]
    c = world((0, 6), cargo=((3, 3, "cw"),), subs=((3, 4), (2, 3)))  # the centre cell: no route
    c.apply("STAY")
    assert c.c_hp == [0] and c.cost == 20 + 80
    assert c.summary(0)["cargo_destroyed"] == 1 and c.summary(0)["cargo_left"] == 0


def test_subs_attack_a_cargo_ship_within_reach_until_it_sinks():
    s = world((0, 6), cargo=((3, 3, "cw"),), subs=((3, 4),))
    s.apply("STAY")
    assert s.c_hp == [1] and s.cost == 20
    s.apply("STAY")
    assert s.c_hp == [0] and s.cost == 100
    s.apply("STAY")
    assert s.cost == 100  # nothing left to attack: the sub stays


def test_true_subs_intercept_the_nearest_ship_believed_ones_hunt_their_target():
    level = ((6, 6), ((3, 3, "cw"), (0, 6, "cw")), ((3, 1),))
    true = world(level[0], cargo=level[1], subs=level[2])
    true.apply("STAY")
    assert xy(true, true.s_pos[0]) == (3, 2)  # next to the centre ship
    believed = world(level[0], cargo=level[1], subs=level[2])
    believed.policy = BELIEVED
    believed.s_target = [1]
    believed.apply("STAY")
    assert xy(believed, believed.s_pos[0]) != (3, 2) and believed.s_target == [1]
    x, _ = xy(believed, believed.s_pos[0])
    assert x < 3  # towards the ship on the left edge


def test_the_episode_ends_after_steps():
    s = world((0, 0), steps=3)
    for _ in range(3):
        assert not s.is_terminal()
        s.apply("STAY")
    assert s.is_terminal() and s.legal_actions() == [] and s.tick == 3
    with pytest.raises(IllegalAction):
        s.apply("STAY")
    assert s.winner() is None and results(s) == [1.0] and s.scores() == [-0.0]
    assert next(iter(s.summary(0))) == "score"


def test_the_same_seed_gives_the_same_world_and_game():
    assert generate_level(5) == generate_level(5) != generate_level(6)
    small = generate_level(5, size=5, subs=2, cargo=2)
    assert small.size == 5 and len(small.subs) == 2 and len(small.cargo) == 2
    counts = {len(generate_level(k).subs) for k in range(40)}
    assert counts == {1, 2, 3}
    g = get_game("navy")
    a, b = g.new_state(3, 9), g.new_state(3, 9)
    rng = np.random.default_rng(0)
    for _ in range(30):
        act = a.legal_actions()[int(rng.integers(len(a.legal_actions())))]
        a.apply(act)
        b.apply(act)
    assert a.events() == b.events() and a.s_pos == b.s_pos
    assert g.level_from_text(g.level_text(small)) == small


def test_bad_options_name_the_field():
    g = get_game("navy")
    for options, field in (({"size": 2}, "size"), ({"subs": 4}, "subs"), ({"cargo": 0}, "cargo"),
                           ({"steps": 0}, "steps"), ({"speed": 1}, "speed")):
        with pytest.raises(ValueError, match=field):
            g.new_state(1, 0, **options)
    assert g.round_limit_options(12) == {"steps": 12}


# -- hidden information ---------------------------------------------------------------------------

def test_observation_hides_the_subs_outside_the_block():
    s = world((3, 3), subs=((2, 2), (6, 0)))
    obs = observation(s, 0)
    assert obs.subs_seen == ((s.s_pos[0], 2),)
    g = get_game("navy")
    assert "s" not in g.render_view(s, 0).split("x")[1].split("step")[0]
    assert g.render(s).count("s") > g.render_view(s, 0).count("s")


def test_determinisations_are_consistent_with_the_observation():
    g = get_game("navy")
    s = g.new_state(4, 1)
    rng = np.random.default_rng(3)
    for _ in range(5):
        s.apply("STAY")
    obs = observation(s, 0)
    counts = set()
    for _ in range(60):
        d = determinise(s, 0, rng)
        assert d.observation(0) == obs and d.policy == BELIEVED
        counts.add(sum(h > 0 for h in d.s_hp))
    assert counts == set(range(len(obs.subs_seen), 4))


def test_full_information_defaults():
    nim = get_game("nim").new_state(3, 0)
    assert observation(nim, 0) is nim and new_belief(nim, 0, 10, 0) is None
    d = determinise(nim, 0, np.random.default_rng(0))
    assert d is not nim and d.heaps == nim.heaps


def test_no_particle_contradicts_what_was_observed():
    g = get_game("navy")
    for level in range(4):
        s = g.new_state(level, level)
        belief = new_belief(s, 0, 30, level)
        rng = np.random.default_rng(level)
        restarts = 0
        while not s.is_terminal():
            obs = observation(s, 0)
            belief.update(obs)
            assert len(belief.particles) == 30
            assert all(p.observation(0) == obs for p in belief.particles)
            restarts = belief.restarts
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
        assert restarts < 30  # the filter mostly follows the world


# -- hindsight optimisation -----------------------------------------------------------------------

def exhaustive(state, action, horizon) -> float:
    """Minus the least cost of `action` then any `horizon` actions (no pruning)."""
    c = state.copy()
    c.apply(action)
    step = state.cost - c.cost
    if horizon == 0 or c.is_terminal():
        return step
    return step + max(exhaustive(c, a, horizon - 1) for a in c.legal_actions())


def test_hop_with_an_omniscient_belief_plans_on_the_true_state():
    g = get_game("navy")
    for level in range(3):
        s = g.new_state(level, 0, size=5, cargo=2)
        for _ in range(2):
            s.apply("STAY")
        agent = HOPAgent(seed=level, game="navy", belief="true", samples=1, horizon=3)
        a = agent.act(s)
        (w,) = agent.last_worlds
        assert w.s_pos == s.s_pos and w.s_hp == s.s_hp and w.policy == s.policy
        brute = {b: exhaustive(w, b, 3) for b in s.legal_actions()}
        assert agent.last_values == pytest.approx(brute)
        best = max(brute.values())
        assert a == next(b for b in s.legal_actions() if brute[b] == best)


def test_branch_and_bound_spends_fewer_calls_and_agrees():
    g = get_game("navy")
    s = g.new_state(2, 0)
    cut = HOPAgent(seed=0, game="navy", belief="true", samples=1, horizon=4)
    cut.act(s)
    full = HOPAgent(seed=0, game="navy", belief="true", samples=1, horizon=4)
    full.monotone = False
    full.act(s)
    assert cut.last_values == pytest.approx(full.last_values)
    assert cut.last_budget.used < full.last_budget.used


def test_hop_respects_a_budget_and_keeps_its_belief():
    g = get_game("navy")
    s = g.new_state(1, 0)
    agent = make_agent("hindsight", game="navy", seed=0, samples=4, budget=200)
    play_game(s, [agent])
    assert agent.last_budget.used <= 200
    assert agent._belief is not None and agent._belief.calls > 0
    assert agent.params()["belief"] == "particles"
    with pytest.raises(ValueError, match="belief"):
        make_agent("hop", game="navy", belief="exact")
    with pytest.raises(ValueError, match="samples"):
        make_agent("hop", game="navy", samples=0)


# -- baselines ------------------------------------------------------------------------------------

def cells_visited(agent, state, n):
    out = []
    for _ in range(n):
        state.apply(agent.act(state))
        out.append(xy(state, state.navy))
    return out


def test_static_never_moves_and_patrol_circles_both_ways():
    g = get_game("navy")
    s = g.new_state(0, 0)
    play_game(s, [make_agent("static", game="navy")])
    assert s.summary(0)["moves"] == 0
    cw = cells_visited(make_agent("patrol", game="navy"), world((0, 0)), 24)
    ccw = cells_visited(make_agent("patrol", game="navy", direction="ccw"), world((0, 0)), 24)
    assert cw[:3] == [(1, 0), (2, 0), (3, 0)] and ccw[:3] == [(0, 1), (0, 2), (0, 3)]
    assert cw[-1] == ccw[-1] == (0, 0)  # the 24-cell outer ring, once round
    assert set(cw) == set(ccw) and len(set(cw)) == 24


def test_reactive_goes_to_protect_a_damaged_cargo_ship():
    setup = dict(navy=(1, 1), cargo=((3, 3, "cw"),), subs=((3, 4),))
    patrol, reactive = make_agent("patrol", game="navy"), make_agent("reactive", game="navy")
    p, r = world(**setup), world(**setup)
    assert cells_visited(patrol, p, 2) == [(2, 1), (3, 1)]
    assert cells_visited(reactive, r, 2) == [(2, 1), (2, 2)]  # heads for the centre ship
    assert r.c_hp == [0] or r.s_hp[0] < 2  # its sonar reaches the sub


# -- conformance ----------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{}, {"size": 5, "cargo": 2}])
def test_conformance(options):
    report = check_game("navy", seeds=range(4), options=options)
    assert report.games == 4 and report.actions == 4 * 30


def test_every_agent_plays_navy_within_its_budget():
    report = check_agents("navy", budget=25)
    names = {"random", "osla", "mc", "mcts", "rhea", "atree", "turn_rollout", "hillclimb", "hop",
             "hindsight", "paranoid", "omniscient", "static", "patrol", "reactive"}
    assert names <= set(report.decisions)
    assert set(report.refused) == {"pmcts", "pmcts_b", "pmcts_pu", "hps"}


def test_agents_see_only_what_they_should():
    """The baselines and hindsight read observations: they act the same in two worlds that
    differ only in hidden subs."""
    a = world((3, 3), cargo=((0, 0, "cw"), (6, 6, "ccw")), subs=((0, 6),))
    b = world((3, 3), cargo=((0, 0, "cw"), (6, 6, "ccw")), subs=((6, 0), (5, 0)))
    assert observation(a, 0) == observation(b, 0)
    for name in ("static", "patrol", "reactive", "hindsight", "paranoid"):
        x = make_agent(name, game="navy", seed=4, samples=5) if name in (
            "hindsight", "paranoid") else make_agent(name, game="navy", seed=4)
        y = make_agent(name, game="navy", seed=4, samples=5) if name in (
            "hindsight", "paranoid") else make_agent(name, game="navy", seed=4)
        assert x.act(a) == y.act(b), name



def test_a_tournament_of_a_one_player_game_plays_every_agent_alone(tmp_path):
    from play.tournament import ALONE, config_from_dict, run_tournament
    config = config_from_dict({"game": "navy", "agents": ["static", "patrol"],
                               "levels": "range:0-2", "repetitions": 2, "seed": 1})
    games, summary = run_tournament(config, out=tmp_path, workers=0)
    assert len(games) == 2 * 3 * 2 and set(summary["Opponent"]) == {ALONE}
    static = summary[summary["Agent"] == "static"].iloc[0]
    assert static["Moves"] == 0 and static["Cost"] == games[games["agent"] == "static"][
        "p0_cost"].mean()
