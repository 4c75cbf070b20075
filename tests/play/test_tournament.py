"""Tournaments: the plan, the summary arithmetic, config errors, and results that do not
depend on how many workers played the games."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from play.runner import AgentSpec, GameSpec, run_game
from play.tournament import (
    ALL_TABLES,
    TournamentConfig,
    config_from_dict,
    plan,
    run_tournament,
    summarise,
    table_columns,
    to_markdown,
)

RANDOM_A = AgentSpec.of("random", label="A")
RANDOM_B = AgentSpec.of("random", label="B")


def small_config(**kw) -> TournamentConfig:
    base = dict(agents=[RANDOM_A, RANDOM_B], game="tribes", levels="seeds:11,12", repetitions=2,
                options={"max_rounds": 6}, seed=5)
    base.update(kw)
    return TournamentConfig(**base)


def test_plan_alternates_seats_and_covers_every_level():
    specs = plan(small_config(repetitions=4))
    assert len(specs) == 2 * 4
    for level in (11, 12):
        games = [s for s in specs if s.level == level]
        seats = [s.tag["agent_seat"] for s in games]
        assert seats == [0, 1, 0, 1]
        assert [s.agents[0].label for s in games] == ["A", "B", "A", "B"]
    assert len({s.seed for s in specs}) == len(specs), "every game has its own seed"
    assert plan(small_config(repetitions=4)) == specs, "the plan is a function of the config"
    assert plan(small_config(repetitions=4, seed=6)) != specs


def test_three_agents_play_all_pairs():
    c = small_config(agents=[RANDOM_A, RANDOM_B, AgentSpec.of("random", label="C")])
    pairs = {(s.tag["agent"], s.tag["opponent"]) for s in plan(c)}
    assert pairs == {(0, 1), (0, 2), (1, 2)}


def test_run_game_is_deterministic_and_records_events():
    spec = GameSpec(game="tribes", level=3, seed=9, agents=(RANDOM_A, RANDOM_B),
                    agent_seeds=(1, 2), options=(("max_rounds", 8),))
    r1, r2 = run_game(spec), run_game(spec)
    assert r1.events == r2.events and r1.summaries == r2.summaries
    assert r1.rounds == 9 and sorted(r1.ranking) == [0, 1]
    assert r1.event_totals(0).get("research", 0) == r1.summaries[0]["techs"] - 1


def test_summary_matches_hand_counted_games():
    games = pd.DataFrame({
        "agent": ["X"] * 4, "opponent": ["Y"] * 4, "agent_seat": [0, 1, 0, 1],
        "winner": [0, 1, 1, 0],
        "p0_score": [100, 10, 300, 20], "p1_score": [1, 200, 2, 400],
        "p0_techs_pct": [50, 0, 50, 0], "p1_techs_pct": [0, 25, 0, 25],
        "p0_cities": [1, 0, 3, 0], "p1_cities": [0, 2, 0, 4],
        "p0_production": [5, 0, 7, 0], "p1_production": [0, 6, 0, 8],
    })
    columns = table_columns("tribes")
    row = summarise(games, columns).iloc[0]
    assert row["Games"] == 4
    assert row["Win rate %"] == pytest.approx(50.0)  # won games 0 and 1
    assert row["s.e."] == pytest.approx(25.0)
    assert (row["CI low %"], row["CI high %"]) == pytest.approx((15.0, 85.0), abs=0.05)  # Wilson
    assert row["Score"] == pytest.approx((100 + 200 + 300 + 400) / 4)
    assert row["Techs %"] == pytest.approx(37.5)
    assert row["Cities"] == pytest.approx(2.5)
    assert row["Production"] == pytest.approx(6.5)
    assert "| X | Y | 4 | 50.00% (25.00) | 15.0-85.0% | 250 | 37.5% | 2.50 | 6.50 |" in \
        to_markdown(summarise(games, columns), columns)
    one = summarise(games.iloc[:1], columns)
    assert math.isnan(one.iloc[0]["s.e."])
    assert "| X | Y | 1 | 100.00% (n/a) | 20.7-100.0% | 100 |" in to_markdown(one, columns)
    # a drawn game (no winner) is neither a win nor a loss, and the table shows draws
    drawn = games.assign(winner=[0, 1, None, 0])
    row = summarise(drawn, columns).iloc[0]
    assert row["Win rate %"] == pytest.approx(50.0) and row["Draws %"] == pytest.approx(25.0)
    assert "| Draws |" in to_markdown(summarise(drawn, columns), columns)


@pytest.mark.parametrize("data, message", [
    ({"agents": ["random", "random:label=b"], "repetitons": 2},
     "repetitons: unknown key (known: game, agents, pairings, levels, repetitions, options, "
     "budget, seed, controls); did you mean 'repetitions'?"),
    ({"agents": ["random", "random:label=b"], "controls": "yes"},
     "controls: true or false expected"),
    ({"agents": ["random", "nosuchagent"]}, "agents[1]: unknown agent 'nosuchagent'"),
    ({"agents": ["random", "random:depth=3,label=b"]}, "unknown parameter 'depth'"),
    ({"agents": ["random", {"name": "random", "lable": "b"}]},
     "agents[1].lable: unknown key (known: name, label, params); did you mean 'label'?"),
    ({"agents": ["random", "mcts:rollouts=maybe"]}, "agents[1]: rollouts: expected true or false"),
    ({"agents": ["random", {"name": "mcts", "params": {"budget": -1}}]},
     "agents[1]: budget: must be a whole number"),
    ({"agents": ["random", "random:label=b"], "pairings": [["random", "c"]]}, "unknown agent 'c'"),
    ({"agents": ["random", "random:label=b"], "levels": "nosuchset"}, "levels:"),
    ({"agents": ["random", "random:label=b"], "options": {"max_round": 3}},
     "unknown game option 'max_round'"),
    ({"agents": ["random", "random:label=b"], "repetitions": "many"},
     "repetitions: a whole number expected"),
    ({"agents": ["random", "random"]}, "labels must be distinct"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ValueError) as e:
        config_from_dict({"game": "tribes", **data}, source="t.yaml")
    assert message in str(e.value)
    assert str(e.value).startswith("t.yaml")


def test_an_evolved_agent_meets_its_default_weight_control():
    style = {"name": "pmcts_pu", "label": "style", "params": {"budget": 20, "weights":
                                                             {"ResearchFarms": 1.0}}}
    c = config_from_dict({"game": "tribes", "agents": [style, "mcts"],
                          "pairings": [["style", "mcts"]]})
    assert [a.display() for a in c.agents] == ["style", "mcts", "control"]
    assert dict(c.agents[2].params) == {"budget": 20} and c.agents[2].name == "pmcts_pu"
    assert c.all_pairings() == [(0, 1), (2, 1)]  # the style's table, with its control too
    every = config_from_dict({"game": "tribes", "agents": [style, "mcts"]})
    assert every.pairings is None and len(every.all_pairings()) == 3
    off = config_from_dict({"game": "tribes", "agents": [style, "mcts"], "controls": False})
    assert [a.display() for a in off.agents] == ["style", "mcts"]
    present = config_from_dict({"game": "tribes", "agents": [
        style, {"name": "pmcts_pu", "label": "plain", "params": {"budget": 20}}]})
    assert [a.display() for a in present.agents] == ["style", "plain"]
    with pytest.raises(ValueError, match="the label 'control' is taken"):
        config_from_dict({"game": "tribes", "agents": [style, "mcts:label=control"]})


@pytest.mark.slow
def test_results_do_not_depend_on_workers(tmp_path):
    """Serial play and two Ray workers give the same games (ordered by plan, not by arrival)."""
    pytest.importorskip("ray")
    from play.ray_session import shutdown
    config = small_config()
    serial, s_sum = run_tournament(config, out=tmp_path / "serial", workers=0)
    try:
        parallel, p_sum = run_tournament(config, out=tmp_path / "ray", workers=2)
    finally:
        shutdown()
    drop = [c for c in serial.columns if c == "seconds" or c.endswith("think_s")]
    pd.testing.assert_frame_equal(serial.drop(columns=drop), parallel.drop(columns=drop))
    pd.testing.assert_frame_equal(s_sum, p_sum)
    for name in ("games.csv", "summary.csv", "summary.md", "tournament.json"):
        assert (tmp_path / "ray" / name).stat().st_size > 0


def test_partial_results_are_written_while_playing(tmp_path, monkeypatch):
    """A long tournament shows its finished games as it goes; the partial files give way to
    the final ones at the end."""
    import play.tournament as tournament
    seen = []
    real = tournament.atomic_write

    def spy(path, data):
        seen.append(path.name)
        return real(path, data)

    monkeypatch.setattr(tournament, "PARTIAL_EVERY", 2)
    monkeypatch.setattr(tournament, "atomic_write", spy)
    run_tournament(small_config(repetitions=4), out=tmp_path, workers=0)
    assert seen.count("games.partial.csv") == 3  # after games 2, 4 and 6 of 8
    assert "summary.partial.md" in seen
    assert not (tmp_path / "games.partial.csv").exists()
    assert len(pd.read_csv(tmp_path / "games.csv")) == 8


def test_a_cluster_job_ships_every_package_the_project_installs():
    """Cluster nodes get the code from the job, so a package added to the project but not to
    the shipped list would fail only on a cluster: the two lists must agree."""
    import tomllib
    from pathlib import Path

    from play.shipping import SHIPPED_PACKAGES, code_env
    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    installed = {name for name in include if "." not in name}
    assert installed == set(SHIPPED_PACKAGES)
    env = code_env()
    shipped = {Path(m.__file__).resolve().parent for m in env["py_modules"]}
    assert shipped == {root / name for name in SHIPPED_PACKAGES}
    assert "__pycache__" in env["excludes"] and "*.c" in env["excludes"]


def test_a_three_player_tournament_rotates_every_seating():
    """Tribolo: one table of three agents; 6 repetitions seat them in all 6 orders, every
    member is summarised against the other two, and the shares of first place add up."""
    config = config_from_dict({"game": "tribolo", "agents": ["random", "random:label=b",
                                                             "random:label=c"],
                               "levels": "seeds:1", "repetitions": 6, "seed": 4})
    specs = plan(config)
    seatings = {tuple(a.display() for a in s.agents) for s in specs}
    assert len(specs) == 6 and len(seatings) == 6
    assert all(len(s.agent_seeds) == 3 for s in specs)
    games, summary = run_tournament(config, workers=0)
    assert len(games) == 3 * 6  # one row per game and table member
    tables = summary[summary["Opponent"] != ALL_TABLES]
    assert sorted(tables["Opponent"]) == ["b + c", "random + b", "random + c"]
    assert tables["Games"].tolist() == [6, 6, 6]
    assert tables["Win rate %"].sum() == pytest.approx(100.0)  # shares of first place
    # each agent's row over all its tables (here one table each: the same figures)
    overall = summary[summary["Opponent"] == ALL_TABLES].set_index("Agent")
    assert overall.loc[["random", "b", "c"], "Win rate %"].tolist() == \
        tables.set_index("Agent").loc[["random", "b", "c"], "Win rate %"].tolist()
    for seat in range(3):
        assert (games.groupby("agent")["agent_seat"].apply(lambda x: (x == seat).sum()) == 2).all()
    with pytest.raises(ValueError, match=r"pairings\[0\]: 2 agents for a 3-player game"):
        config_from_dict({"game": "tribolo", "agents": ["random", "random:label=b"],
                          "pairings": [["random", "b"]], "levels": "seeds:1"})
    with pytest.raises(ValueError, match="a 3-player game needs at least 3 agents"):
        config_from_dict({"game": "tribolo", "agents": ["random", "random:label=b"],
                          "levels": "seeds:1"})
