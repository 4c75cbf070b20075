"""Tribes' feature functions on hand-made event logs: exact counts, slopes, undefined values,
bins; and the per-game feature registry they live in."""

from __future__ import annotations

import math

import numpy as np
import pytest

from games.tribes import features as F
from games.tribes.game import SNAPSHOT_EVENTS
from play.runner import AgentSpec, GameSpec, run_game
from qd import features as registry
from qd.features import PlayerGame, features_of, mean_spread, measure, per_game, slope

FEATURES = features_of("tribes")


def get_feature(name):
    return registry.get_feature(name, "tribes")


def game(events, player=0, winner=0, summary=None):
    return PlayerGame.from_events(events, player, winner, summary=summary,
                                  snapshots=SNAPSHOT_EVENTS)


def test_counts_are_per_player():
    ev = [(0, 0, "attacks", 1), (0, 1, "attacks", 1), (1, 0, "attacks", 1),
          (1, 0, "spawn_archer", 1), (2, 0, "spawn_catapult", 1), (2, 0, "spawn_catapult", 1),
          (2, 0, "spawn_swordman", 1), (3, 1, "spawn_archer", 1), (3, 0, "spawn_defender", 1),
          (3, 0, "kills", 1), (3, 0, "captures", 1), (3, 0, "buildings", 1),
          (3, 0, "spawn_knight", 1)]
    g = game(ev)
    assert F._attacks(g) == 2
    assert F._ranged_minus_melee(g) == (1 + 2) - (1 + 1)
    assert F._defender_spawns(g) == 1
    assert F._kills(g) == F._captures(g) == F._buildings(g) == 1
    other = game(ev, player=1, winner=0)
    assert F._attacks(other) == 1 and F._ranged_minus_melee(other) == 1


def test_slopes_are_least_squares_per_round():
    techs = [(r, 1 + 2 * r) for r in range(6)]  # exactly 2 techs per round
    tiles = [(0, 9), (1, 9), (2, 12), (3, 13), (4, 20)]
    ev = [(r, 0, "techs", v) for r, v in techs] + [(r, 0, "tiles", v) for r, v in tiles]
    ev += [(r, 1, "techs", 100 * r) for r in range(6)]  # the other player's snapshots
    ev.sort(key=lambda e: e[0])
    g = game(ev)
    assert F._research_slope(g) == pytest.approx(2.0, abs=1e-12)
    x, y = zip(*tiles)
    assert F._tile_slope(g) == pytest.approx(np.polyfit(x, y, 1)[0], abs=1e-12)
    assert F._tile_slope(g) == pytest.approx(2.6, abs=1e-12)  # by hand: Sxy 26 / Sxx 10


def test_slope_needs_two_rounds():
    assert math.isnan(slope([]))
    assert math.isnan(slope([(3, 1.0)]))
    assert math.isnan(slope([(3, 1.0), (3, 5.0)]))
    assert slope([(0, 1.0), (2, 2.0)]) == 0.5


def test_win_turn_over_won_games_only():
    won = game([(0, 0, "moves", 1), (7, 0, "attacks", 1), (8, 1, "moves", 1)], winner=0)
    lost = game([(0, 0, "moves", 1), (30, 0, "moves", 1)], winner=1)
    assert F._win_turn(won) == 7  # the last round the winner acted
    assert math.isnan(F._win_turn(lost))
    values = per_game([won, lost, won], [get_feature("win_turn")])["win_turn"]
    assert mean_spread(values) == (7.0, 0.0)
    # never won: undefined mean, placed at the top of the range ("slower than any win")
    m, s = mean_spread(per_game([lost, lost], [get_feature("win_turn")])["win_turn"])
    assert math.isnan(m) and math.isnan(s)
    f = get_feature("win_turn")
    assert measure(f, m) == f.hi == 50
    assert measure(f.with_range(0, 30), m) == 30


def test_final_figures_prefer_the_summary():
    ev = [(0, 0, "score", 100), (1, 0, "score", 250), (1, 0, "cities", 2),
          (1, 0, "production", 7)]
    g = game(ev)
    assert F._score(g) == 250 and F._cities(g) == 2 and F._production(g) == 7
    g = game(ev, summary={"score": 300, "cities": 3, "production": 9})
    assert F._score(g) == 300 and F._cities(g) == 3 and F._production(g) == 9
    assert math.isnan(F._score(game([])))


def test_mean_and_spread_skip_undefined_games():
    assert mean_spread(np.array([1.0, np.nan, 3.0])) == (2.0, 1.0)


@pytest.mark.parametrize("name,bins", [("attacks", 10), ("ranged_minus_melee", 10),
                                       ("defender_spawns", 10), ("win_turn", 10),
                                       ("research_slope", 10), ("tile_slope", 10)])
def test_bins_come_from_range_and_width(name, bins):
    f = get_feature(name)
    assert f.bins == bins
    assert f.edges[0] == f.lo and f.edges[-1] == pytest.approx(f.hi)


def test_range_overrides():
    f = get_feature("attacks")
    assert f.with_range(0, 10, width=3).bins == 4  # a last partial step is a cell
    assert f.with_range(0, 10, width=3).grid_hi == 12
    assert f.with_range(bins=5).width == 4
    with pytest.raises(ValueError, match="hi > lo"):
        f.with_range(5, 5)
    with pytest.raises(ValueError, match="width"):
        f.with_range(width=0)


def test_registry_is_complete_and_extensible():
    for name in ("attacks", "ranged_minus_melee", "defender_spawns", "win_turn",
                 "research_slope", "tile_slope", "production", "cities", "kills", "captures",
                 "buildings", "score"):
        f = FEATURES[name]
        assert f.hi > f.lo and f.width > 0 and f.doc
    try:
        @registry.register_feature("tribes", "roads_built", 0, 10, 1, "roads per game")
        def _roads(g):
            return g.count("roads")
        assert _roads(game([(0, 0, "roads", 1), (1, 0, "roads", 1)])) == 2
        assert get_feature("roads_built").bins == 10
    finally:
        registry.FEATURES.pop("roads_built", "tribes")
    with pytest.raises(ValueError, match="unknown feature"):
        get_feature("nope")
    # every game has the generic features; a Tribes feature is not another game's
    assert {"rounds", "win_round"} <= set(FEATURES)
    assert registry.FEATURES.owners("attacks") == ["tribes"]


def test_from_record_matches_the_game_log():
    spec = GameSpec(game="tribes", level=3, seed=9,
                    agents=(AgentSpec.of("random"), AgentSpec.of("random", label="r2")),
                    agent_seeds=(1, 2), options=(("max_rounds", 6),))
    rec = run_game(spec)
    for p in (0, 1):
        g = PlayerGame.from_record(rec, p)
        totals = rec.event_totals(p)
        assert g.won == (rec.winner == p)
        assert F._attacks(g) == totals.get("attacks", 0)
        assert F._score(g) == rec.summaries[p]["score"]
        assert len(g.series["techs"]) >= 6  # one snapshot per own turn
