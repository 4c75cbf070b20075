"""Seats in games of more than two players: evolution, validation and ladders."""

from __future__ import annotations

import numpy as np
import pandas as pd

from play.ladder import ahead, pair_table, plan_ladder, seatings
from play.runner import AgentSpec
from qd.genome_games import Plan, seat_table

ME, OPP, FIELD = AgentSpec.of("random", "me"), AgentSpec.of("random", "opp"), \
    AgentSpec.of("random", "field")


def plan(players: int) -> Plan:
    return Plan(game="tribolo", levels=(1, 2), repetitions=3, agent=ME, opponent=OPP,
                genome_names=(), mapping="none", options=(), seed=7, players=players)


def test_two_player_seats_and_seeds_are_those_of_before():
    specs = plan(2).games(np.zeros(0), individual=4)
    for g, s in enumerate(specs):
        words = [int(x) for x in np.random.SeedSequence(7, spawn_key=(4, g))
                 .generate_state(3, np.uint32)]
        seat = g % 2
        assert s.tag == (4, g, seat) and s.seed == words[0]
        assert s.agents[seat] == ME and s.agents[1 - seat] == OPP
        assert s.agent_seeds[seat] == words[1] and s.agent_seeds[1 - seat] == words[2]


def test_the_genome_takes_every_seat_of_three_in_turn():
    specs = plan(3).games(np.zeros(0), individual=0)
    assert [s.tag[2] for s in specs] == [0, 1, 2, 0, 1, 2]
    for s in specs:
        seat = s.tag[2]
        assert [a.label for a in s.agents] == ["me" if p == seat else "opp" for p in range(3)]
        assert len(set(s.agent_seeds)) == 3  # each opponent seat has a seed of its own
    # every level is played from every seat once repetitions reach the players
    per_level = {}
    for s in specs:
        per_level.setdefault(s.level, set()).add(s.tag[2])
    assert per_level == {1: {0, 1, 2}, 2: {0, 1, 2}}


def test_seat_table_seeds_do_not_depend_on_the_seat():
    a = seat_table(3, (1, 2), ME, OPP, 0, 3)
    b = seat_table(3, (1, 2), ME, OPP, 2, 3)
    assert a[0] == b[0] and a[2][0] == b[2][2]  # the game's and me's seeds
    assert a[2][1:] == b[2][:2]  # the opponents' seeds, in seat order


def test_a_pair_plays_every_ordered_pair_of_seats_with_the_field_in_the_others():
    assert seatings(2) == [(0, 1), (1, 0)]
    agents = [AgentSpec.of("random", "A"), AgentSpec.of("random", "B")]
    specs = plan_ladder(agents, "tribolo", [5], 6, {}, seed=1, players=3, field=FIELD)
    seen = set()
    for s in specs:
        i, j = s.tag["agent_seat"], s.tag["opponent_seat"]
        seen.add((i, j))
        assert s.agents[i].label == "A" and s.agents[j].label == "B"
        assert [a.label for p, a in enumerate(s.agents) if p not in (i, j)] == ["field"]
    assert seen == set(seatings(3))
    two = plan_ladder(agents, "tribes", [5], 2, {}, seed=1)
    assert [s.tag["agent_seat"] for s in two] == [0, 1] and len(two[0].agents) == 2


def test_finishing_ahead_in_a_three_player_game():
    # seat 0 wins; seats 1 and 2 share first place; nobody of 0 and 1 first: places decide
    games = pd.DataFrame({
        "agent": ["A"] * 3, "opponent": ["B"] * 3, "winner": [0, None, 2],
        "agent_seat": [0, 1, 0], "opponent_seat": [1, 2, 1],
        "p0_result": [1.0, 0.0, 0.0], "p1_result": [0.0, 0.5, 0.0], "p2_result": [0.0, 0.5, 1.0],
        "p0_place": [0, 2, 2], "p1_place": [1, 0, 1], "p2_place": [2, 1, 0]})
    score = ahead(games, games["agent_seat"].to_numpy(), games["opponent_seat"].to_numpy())
    assert score.tolist() == [1.0, 0.5, 0.0]
    t = pair_table(games, ["A", "B"])
    a = t[t["agent"] == "A"].iloc[0]
    assert (a["wins"], a["losses"], a["draws"]) == (1, 1, 1)
