"""Navy Defense play-styles: HOP with the true or the believed sub model, the cost-weighted
style objective, the behaviour features (on hand-made event logs), the genome mapping and a
tiny evolution run end to end."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from agents.registry import make_agent
from games.navy.evaluators import TERMS, TRUE_WEIGHTS, CostEvaluator, StyleEvaluator
from games.navy.hindsight import COST_SCALE, genome_costs
from games.navy.state import SNAPSHOT_EVENTS
from games.navy.subs import BELIEVED, TRUE
from games.registry import get_game
from playstyles.cli import main
from qd.archive import objective
from qd.config import ConfigError, config_from_dict
from qd.features import PlayerGame, features_of

GAME = get_game("navy")


def small(name, **params):
    return make_agent(name, game="navy", seed=2, samples=3, horizon=1, particles=5, **params)


# ------------------------------------------------------------------ the planner's sub model

@pytest.mark.parametrize("setting", ["hindsight", "paranoid"])
def test_the_true_model_planner_simulates_the_true_behaviour(setting):
    state = GAME.new_state(4, seed=1)
    for model, policy in (("true", TRUE), ("believed", BELIEVED)):
        agent = small(setting, model=model)
        s = state.copy()
        for _ in range(3):
            s.apply(agent.act(s))
        assert {w.policy for w in agent.last_worlds} == {policy}
        if setting == "hindsight":
            assert {p.policy for p in agent._belief.particles} == {policy}


def test_a_true_model_world_steps_as_the_real_world_with_its_luck():
    state = GAME.new_state(3, seed=5)
    agent = small("omniscient")  # belief true, model true
    agent.act(state)
    world = agent.last_worlds[0]
    assert world.policy == TRUE
    real = state.copy()
    real.reseed(world.seed)
    for a in ("N", "STAY", "E", "STAY"):
        if a not in world.legal_actions():
            a = "STAY"
        world.apply(a)
        real.apply(a)
    assert (world.s_pos, world.s_hp, world.c_hp, world.cost) == \
        (real.s_pos, real.s_hp, real.c_hp, real.cost)
    believed = small("omniscient", model="believed")
    believed.act(state)
    assert {w.policy for w in believed.last_worlds} == {BELIEVED}


def test_bad_navy_settings_name_the_field():
    with pytest.raises(ValueError, match="model"):
        small("hindsight", model="oracle")
    with pytest.raises(ValueError, match=r"costs\.speed"):
        small("hindsight", costs={"speed": 1})
    with pytest.raises(ValueError, match=r"costs\.move"):
        small("hindsight", costs={"move": -1})


# ------------------------------------------------------------------ the style objective

def test_the_style_objective_at_the_true_weights_is_the_cost():
    s = GAME.new_state(2, seed=3)
    root = s.copy()
    rng = np.random.default_rng(0)
    plain, style = CostEvaluator(), StyleEvaluator(**TRUE_WEIGHTS)
    while not s.is_terminal():
        acts = s.legal_actions()
        s.apply(acts[int(rng.integers(len(acts)))])
        assert style.evaluate(root, s, 0) == plain.evaluate(root, s, 0)
    assert s.cost > 0


def test_style_charges_accrue_with_the_distances():
    s = GAME.new_state(2, seed=3)
    root = s.copy()
    last = 0.0
    guard = StyleEvaluator(move=0, navy=0, cargo=0, guard=1)
    for _ in range(5):
        s.apply("STAY")
        v = guard.evaluate(root, s, 0)
        assert v <= last  # monotone
        last = v
    dist = [v for _, _, n, v in s.events() if n == "cargo_distance"]
    assert last == -sum(dist) and len(dist) == 5


# ------------------------------------------------------------------ features

def game_of(events, steps=10):
    """A PlayerGame from (step, event, value) triples plus one cell per step."""
    ev = [(t, 0, "navy_cell", 24) for t in range(steps)]
    ev += [(t, 0, n, v) for t, n, v in events]
    return PlayerGame.from_events(sorted(ev, key=lambda e: e[0]), 0, None, steps,
                                  snapshots=SNAPSHOT_EVENTS, result=1.0, players=1)


def test_features_from_hand_made_logs():
    f = features_of("navy")
    cells = [(t, "navy_cell", c) for t, c in enumerate([24, 25, 25, 26, 19, 19])]
    g = PlayerGame.from_events(
        [(t, 0, n, v) for t, n, v in cells]
        + [(1, 0, "navy_moved", 1), (3, 0, "navy_moved", 1), (4, 0, "navy_moved", 1),
           (2, 0, "sub_seen", 1), (0, 0, "cargo_distance", 2), (1, 0, "cargo_distance", 4),
           (0, 0, "centre_distance", 0), (1, 0, "centre_distance", 1)],
        0, None, 6, snapshots=SNAPSHOT_EVENTS, result=1.0, players=1)
    assert f["moving"].fn(g) == pytest.approx(3 / 6)
    assert f["cells_visited"].fn(g) == 4
    assert f["cargo_distance"].fn(g) == 3
    assert f["centre_distance"].fn(g) == 0.5
    assert f["reaction"].fn(g) == 0  # evidence in step 2, a move in step 3
    assert f["idle_before_evidence"].fn(g) == pytest.approx(2 / 3)  # steps 0-2: one move


def test_reaction_counts_from_the_first_evidence_of_either_kind():
    f = features_of("navy")
    late = game_of([(1, "cargo_damage", 1), (5, "sub_seen", 1), (6, "navy_moved", 1)])
    assert f["reaction"].fn(late) == 4  # evidence in step 1, first move after it in step 6
    never = game_of([(3, "sub_seen", 2)])
    assert f["reaction"].fn(never) == 10 - 3 - 1
    assert f["idle_before_evidence"].fn(never) == 1.0
    quiet = game_of([(0, "navy_moved", 1)])
    assert math.isnan(f["reaction"].fn(quiet))
    assert f["idle_before_evidence"].fn(quiet) == pytest.approx(0.9)


def test_a_played_game_logs_one_cell_per_step():
    s = GAME.new_state(1, seed=0, steps=7)
    for a in ("E", "STAY", "W", "N", "STAY", "S", "STAY"):
        s.apply(a if a in s.legal_actions() else "STAY")
    g = PlayerGame.from_events(s.events(), 0, None, 7, snapshots=SNAPSHOT_EVENTS)
    assert len(g.series["navy_cell"]) == 7
    assert features_of("navy")["moving"].fn(g) == pytest.approx(s.moves / 7)
    assert s.summary(0)["moves"] == s.moves


# ------------------------------------------------------------------ genome, config, quality

def test_the_genome_mapping_scales_each_term():
    out = genome_costs(TERMS, np.array([0.5, 0.5, 1.0, 0.25, 0.0]))
    assert out == {"costs": {"move": 1.0, "navy": 1.0, "cargo": 2.0,
                             "guard": 0.25 * COST_SCALE["guard"], "centre": 0.0}}
    with pytest.raises(ValueError, match="genome"):
        genome_costs(TERMS, np.zeros(3))


CONFIG = {
    "game": "navy",
    "name": "tiny_navy",
    "options": {"steps": 6, "size": 5, "cargo": 2},
    "levels": {"set": "range:0-5", "train": 2, "split_seed": 0},
    "agent": {"name": "hindsight", "genome_mapping": "navy_costs",
              "params": {"samples": 2, "horizon": 1, "particles": 4}},
    "repetitions": 1,
    "features": [{"name": "moving", "range": [0, 1], "width": 0.25},
                 {"name": "cargo_distance", "range": [0, 4], "width": 1}],
    "emitter": {"kind": "paper", "batch_size": 4, "initial_random": 2},
    "evaluations": 8,
    "seed": 1,
    "noise": {"method": "none"},  # plain: the elites are the evolved estimates
}


def test_the_mapping_fixes_the_genome_and_the_config_reads_back():
    cfg = config_from_dict(CONFIG)
    assert cfg.genome_names == TERMS and cfg.layout is None and cfg.players == 1
    again = config_from_dict(yaml.safe_load(yaml.safe_dump(cfg.to_dict())))
    assert again.to_dict() == cfg.to_dict()
    games = cfg.plan().games(np.full(len(TERMS), 0.5), 0)
    assert [len(g.agents) for g in games] == [1, 1]
    with pytest.raises(ConfigError, match="layout"):
        config_from_dict({**CONFIG, "layout": "all"})


def test_with_one_player_the_objective_orders_by_cost():
    costs = [0, 35, 120, 400]
    obj = [objective(wins=4, games=4, mean_score=-c, players=1) for c in costs]
    assert obj == sorted(obj, reverse=True) and len(set(obj)) == len(obj)


def test_a_tiny_navy_evolution_runs_end_to_end(tmp_path):
    cfg = tmp_path / "navy.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    out = tmp_path / "run"
    assert main(["evolve", str(cfg), "--out", str(out), "--workers", "0", "--quiet"]) == 0
    games = pd.read_csv(out / "games.csv")
    assert len(games) == 8 * 2 and set(games["genome_seat"]) == {0}
    assert (games["genome_won"] == 1).all()
    elites = pd.read_csv(out / "elites.csv")
    assert len(elites) >= 1 and (elites["win_rate"] == 1).all()
    assert list(elites.columns[elites.columns.get_loc("index") + 1:][:len(TERMS)]) == list(TERMS)
    ind = pd.read_csv(out / "individuals.csv")
    assert len(ind) == 8
    # the elite of a cell is the cheapest genome (highest mean score) that landed there
    def cell(df):
        return list(zip(np.clip(np.floor(df["measure_moving"] / 0.25), 0, 3),
                        np.clip(np.floor(df["measure_cargo_distance"] / 1), 0, 3)))
    ind["cell"] = cell(ind)
    best = ind.groupby("cell")["mean_score"].max()
    for c, score in zip(cell(elites), elites["mean_score"]):
        assert score == best[c]
    assert len(elites) == ind["cell"].nunique()
    # validation of a one-player run names no opponent and shows the cost (mean score)
    first = str(elites["cell"].iloc[0])
    assert main(["validate", str(out), "--cells", first, "--games", "2", "--workers", "0",
                 "--quiet"]) == 0
    summary = yaml.safe_load((out / "validation_summary.json").read_text())
    assert summary["opponent"] is None and summary["games_per_elite"] == 2
    table = (out / "validation.md").read_text()
    assert "genome plays alone" in table and "against" not in table
    header = next(line for line in table.splitlines() if line.startswith("| Cell"))
    assert "Mean score evolved / validated" in header
    assert table.startswith("**1 style at least 1 sd apart on held-out levels")
    # every one-player game is won: non-inferiority compares the mean score with the
    # control's, the margin a share of it
    assert summary["styles"]["quality"] == "score"
    ni = summary["styles"]["non_inferiority"][first]
    assert ni["margin"] == pytest.approx(0.1 * abs(summary["control"]["mean_score"]))
    assert "margin 10% of the control's mean score" in table
    games = pd.read_csv(out / "validation_games.csv")
    control = games[games["cell"] == "control"]
    assert summary["control"]["mean_score"] == pytest.approx(control["elite_score"].mean())
