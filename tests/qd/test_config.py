"""Run configs: defaults, the resolved form, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from qd.config import ConfigError, config_from_dict, dump_config, load_config

TINY = {"game": "tribes","agent": {"name": "mcts", "budget": 10, "genome_mapping": "none"},
        "levels": {"train": "seeds:1,2"}, "options": {"max_rounds": 3}, "seed": 1}


def test_defaults_are_the_paper_setting():
    c = config_from_dict({"game": "tribes", "seed": 3})
    assert c.agent["name"] == "pmcts_pu" and c.agent["genome_mapping"] == "weights"
    assert len(c.genome_names) == 11 and c.genome_names[0] == "ResearchFarms"
    assert c.opponent["name"] == "mcts"
    assert len(c.train_levels) == 5 and len(c.held_out_levels) == 20
    assert not set(c.train_levels) & set(c.held_out_levels)
    assert c.repetitions == 4 and c.plan().games_per_individual == 20
    assert c.emitter["kind"] == "paper" and c.emitter["initial_random"] == 40
    assert c.evaluations == 11 + 40 + 500
    assert [f.name for f in c.features] == ["attacks", "ranged_minus_melee"]


def test_opponent_gets_the_same_budget():
    c = config_from_dict({"game": "tribes", "agent": {"budget": 123}, "seed": 0})
    assert c.opponent["budget"] == 123
    c = config_from_dict({"game": "tribes", "agent": {"budget": 123},
                          "opponent": "mcts:budget=7", "seed": 0})
    assert c.opponent["budget"] == 7
    c = config_from_dict({"game": "tribes", **TINY, "opponent": "random"})
    assert c.opponent["budget"] is None  # random takes no budget


def test_resolved_form_reads_back_identically(tmp_path):
    data = {**TINY, "features": ["win_turn", {"name": "score", "range": [0, 1000], "bins": 4}],
            "emitter": {"kind": "iso_line", "batch_size": 3}}
    c = config_from_dict(data)
    again = config_from_dict(c.to_dict())
    assert again.to_dict() == c.to_dict()
    p = tmp_path / "config.yaml"
    p.write_text(dump_config(c))
    assert load_config(p).to_dict() == c.to_dict()
    assert c.to_dict()["emitter"]["iso_sigma"] > 0


def test_missing_seed_is_drawn_and_recorded(tmp_path):
    a = config_from_dict({k: v for k, v in TINY.items() if k != "seed"})
    assert isinstance(a.seed, int) and a.to_dict()["seed"] == a.seed
    p = tmp_path / "c.yaml"
    p.write_text("game: tribes\nagent: {name: mcts, budget: 5, genome_mapping: none}\n")
    assert load_config(p, seed=42).seed == 42


@pytest.mark.parametrize("patch,key", [
    ({"emitter": {"batch_sise": 4}}, "emitter.batch_sise: unknown key"),
    ({"seeds": 1}, "seeds: unknown key"),
    ({"levels": {"train": "seeds:1", "hold_out": "seeds:2"}}, "levels.hold_out: unknown key"),
    ({"agent": {"name": "mcts", "budgett": 3}}, "agent.budgett: unknown key"),
    ({"opponent": {"name": "mcts", "parms": {}}}, "opponent.parms: unknown key"),
    ({"features": [{"name": "attacks", "rnage": [0, 1]}]}, "features[0].rnage: unknown key"),
    ({"options": {"max_round": 3}}, "options.max_round: unknown game option"),
    ({"emitter": {"kind": "iso_line", "sigma0": 0.3}}, "emitter.sigma0: unknown key"),
    ({"validate": {"game": 3}}, "validate.game: unknown key"),
])
def test_unknown_keys_are_named(patch, key):
    with pytest.raises(ConfigError) as e:
        config_from_dict({"game": "tribes", **TINY, **patch})
    assert str(e.value).startswith(f"config: {key}"), str(e.value)


@pytest.mark.parametrize("patch,key", [
    ({"repetitions": 0}, "repetitions"),
    ({"repetitions": True}, "repetitions"),
    ({"evaluations": "many"}, "evaluations"),
    ({"seed": -1}, "seed"),
    ({"emitter": {"kind": "cmaes"}}, "emitter.kind"),
    ({"emitter": {"batch_size": 0}}, "emitter.batch_size"),
    ({"emitter": {"values": [0, 2]}}, "emitter.values"),
    ({"emitter": {"one_hot": False, "initial_random": 0}}, "emitter.initial_random"),
    ({"features": []}, "features"),
    ({"features": ["attack"]}, "features[0].name"),
    ({"features": [{"name": "attacks", "range": [5, 1]}]}, "features[0]"),
    ({"features": ["attacks", "attacks"]}, "features"),
    ({"layout": ["ResearchFarms", "Nope"]}, "layout"),
    ({"layout": []}, "layout"),
    ({"agent": {"name": "nobody"}}, "agent"),
    ({"agent": {"name": "mcts", "params": {"depth": 3}, "genome_mapping": "none"}}, "agent"),
    ({"agent": {"name": "mcts", "genome_mapping": "nope"}}, "agent.genome_mapping"),
    ({"agent": {"name": "mcts", "params": {"seed": 3}}}, "agent.params.seed"),
    ({"opponent": "nobody"}, "opponent"),
    ({"levels": {"train": "seeds:1,2", "held_out": "seeds:2,3"}}, "levels.held_out"),
    ({"levels": {"set": "paper", "train": 30}}, "levels.train"),
    ({"levels": {"set": "nope"}}, "levels.set"),
    ({"options": {"mode": "conquest"}}, "options.mode"),
    ({"name": "a/b"}, "name"),
    ({"game": "chess"}, "game"),
    ({"validate": {"games": 0}}, "validate.games"),
    ({"validate": {"levels": 3}}, "validate.levels"),
    ({"validate": {"control": "yes"}}, "validate.control"),
    ({"validate": {"null_baseline": 1}}, "validate.null_baseline"),
    ({"validate": {None: True}}, "validate.null"),  # YAML reads `null: true` so
    ({"validate": {"delta": -0.5}}, "validate.delta"),
    ({"validate": {"delta": "big"}}, "validate.delta"),
    ({"validate": {"margin": 2}}, "validate.margin"),
    ({"validate": "yes"}, "validate"),
    ({"validate": True, "levels": {"set": "paper", "train": 25}}, "validate.levels"),
])
def test_invalid_values_name_the_key(patch, key):
    with pytest.raises(ConfigError) as e:
        config_from_dict({"game": "tribes", **TINY, **patch})
    assert str(e.value).startswith(f"config: {key}:"), str(e.value)


def test_the_old_genome_key_says_it_was_renamed(tmp_path):
    """A config, or a run directory's config.yaml, written before `genome` became `layout`
    gets one error saying so, not an unknown key."""
    resolved = config_from_dict({"game": "tribes", **TINY, "layout": "paper", "seed": 1})
    old = {("genome" if k == "layout" else k): v for k, v in resolved.to_dict().items()}
    p = tmp_path / "config.yaml"
    p.write_text(yaml.safe_dump(old, sort_keys=False))
    for bad in (old, {"game": "tribes", **TINY, "genome": ["SpawnRange"]}):
        with pytest.raises(ConfigError) as e:
            config_from_dict(bad)
        assert str(e.value) == ("config: genome: renamed to layout (the scripts whose weights "
                                "evolve); rename the key")
    with pytest.raises(ConfigError, match=r"config\.yaml: genome: renamed to layout"):
        load_config(p)


def test_file_errors_name_the_file(tmp_path):
    p = tmp_path / "run.yaml"
    p.write_text("game: tribes\nemitter:\n  batch_sise: 4\n")
    with pytest.raises(ConfigError, match=r"run\.yaml: emitter\.batch_sise: unknown key"):
        load_config(p)
    p.write_text("emitter: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")


def test_level_split_is_reproducible():
    def split(seed):
        return config_from_dict({"game": "tribes", "seed": 0,
                                 "levels": {"set": "paper", "train": 5, "split_seed": seed}})
    a, b, c = split(1), split(1), split(2)
    assert a.train_levels == b.train_levels != c.train_levels
    d = config_from_dict({"game": "tribes", "levels": {"set": "paper", "train": 0.2}, "seed": 0})
    assert len(d.train_levels) == 5


def test_a_config_is_checked_without_building_agents_or_portfolios(monkeypatch):
    """Checking a run config consults the registries only: no agent, no portfolio is built
    (a bad weight or script name still fails, naming the key)."""
    import functools
    import sys

    from agents.portfolio.pmcts import PMCTSAgent
    portfolio = sys.modules["agents.portfolio.portfolio"]

    def refusing(init):
        @functools.wraps(init)
        def refuse(*a, **k):
            raise AssertionError("built")
        return refuse
    monkeypatch.setattr(PMCTSAgent, "__init__", refusing(PMCTSAgent.__init__))
    monkeypatch.setattr(portfolio.Portfolio, "__init__", refusing(portfolio.Portfolio.__init__))
    c = config_from_dict({"game": "tribes", "agent": {"name": "pmcts_pu", "budget": 10},
                          "opponent": "pmcts_pu:weights=SpawnRange:1", "seed": 1})
    assert len(c.genome_names) == 11
    with pytest.raises(ConfigError, match="opponent: .*unknown script 'Nope'"):
        config_from_dict({"game": "tribes", "opponent": "pmcts_pu:weights=Nope:1", "seed": 1})
    with pytest.raises(ConfigError, match="layout: .*unknown script 'Nope'"):
        config_from_dict({"game": "tribes", "layout": ["Nope"], "seed": 1})


def test_checking_a_config_builds_no_game_state(monkeypatch):
    """Options are checked by the game's declarations at the edge, so a config is checked
    without a game state (a bad option is still one error naming it)."""
    from games.registry import get_game
    game = get_game(TINY["game"])

    def no_state(*args, **kwargs):
        raise AssertionError("a game state was built to check a config")
    monkeypatch.setattr(type(game), "new_state", no_state)
    assert config_from_dict(TINY).game == TINY["game"]
    with pytest.raises(ConfigError, match=r"options\.size: must be at most"):
        config_from_dict({**TINY, "options": {"size": 10 ** 6}})


def test_every_committed_run_config_still_loads():
    """A run directory written by an earlier version stays readable (validate, tiers, export
    read its config.yaml): every config committed under experiments/results loads."""
    repo = Path(__file__).resolve().parents[2]
    found = sorted((repo / "experiments" / "results").rglob("config.yaml"))
    assert len(found) >= 10
    for path in found:
        assert load_config(path).name, path


def test_validates_former_key_for_the_null_baseline_is_read_and_not_beside_the_new_one():
    assert config_from_dict({**TINY, "validate": {"null": True, "levels": "all"}}).validation["null_baseline"]
    with pytest.raises(ValueError, match="validate.null: the former name"):
        config_from_dict({**TINY, "validate": {"null": True, "null_baseline": False, "levels": "all"}})
