"""Preset files: round trip to the exact agent, lookup by name, `preset:FILE#NAME` wherever an
agent spec is read, and malformed files rejected with the bad field named."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agents.registry import make_agent
from play.presets import (
    Preset,
    PresetError,
    PresetFile,
    build_agent,
    dump_presets,
    full_params,
    load_presets,
    presets_from_dict,
    slug,
)
from play.runner import AgentSpec, GameSpec, run_game
from play.specs import parse_agent_spec, split_spec
from play.tournament import parse_agent
from playstyles.cli import main

WEIGHTS = {"ResearchFarms": 0.0, "ResearchRoads": 1.0, "SpawnRange": 0.75, "SpawnCheapest": 0.25}


def preset_file(tmp_path: Path) -> Path:
    presets = [
        Preset("level 1 (easiest)", "pmcts_pu", full_params("pmcts_pu", {"budget": 6}, "tribes"),
               "tribes", {"max_rounds": 4}, "weak", {"cell": "0:0", "win_rate_evolved": 0.25,
                                                     "games_evolved": 4}),
        Preset("level 2 (hardest)", "pmcts_pu",
               full_params("pmcts_pu", {"budget": 12, "weights": WEIGHTS}, "tribes"), "tribes",
               {"max_rounds": 4}, "", {"cell": "2:1", "grid_index": [1, 1],
                                       "features": {"attacks": 3.5, "win_turn": None},
                                       "win_rate_evolved": 0.75, "games_evolved": 4,
                                       "win_rate_validated": 0.5, "games_validated": 10,
                                       "win_rate_validated_ci": [0.24, 0.76],
                                       "win_rate_source": "validated"}),
    ]
    pf = PresetFile("tribes", presets, "difficulty", {"max_rounds": 4}, {"run": "hand"})
    return dump_presets(pf, tmp_path / "presets.json")


def test_round_trip_builds_the_exact_agent(tmp_path):
    path = preset_file(tmp_path)
    pf = load_presets(path)
    assert pf.kind == "difficulty" and pf.names == ["level 1 (easiest)", "level 2 (hardest)"]
    hard = pf.get("level 2 (hardest)")
    direct = make_agent("pmcts_pu", game="tribes", seed=5, budget=12, weights=WEIGHTS)
    agent = build_agent(path, "level 2 (hardest)", seed=5)
    assert agent.params() == direct.params()
    assert agent.params()["weights"]["SpawnRange"] == 0.75
    assert hard.evidence["features"] == {"attacks": 3.5, "win_turn": None}
    # same decisions: a game with the preset equals a game with the directly built agent
    opp = AgentSpec.of("random")
    base = dict(game="tribes", level=11, seed=3, agent_seeds=(1, 2),
                options=(("max_rounds", 4),))
    a = run_game(GameSpec(agents=(AgentSpec.of("pmcts_pu", budget=12, weights=WEIGHTS), opp),
                          **base))
    b = run_game(GameSpec(agents=(hard.spec(), opp), **base))
    assert a.events == b.events and a.winner == b.winner
    assert a.decisions[0] > 3


def test_full_params_are_every_parameter_but_the_seed():
    p = full_params("pmcts_pu", {"budget": 6}, "tribes")
    assert "seed" not in p and p["budget"] == 6 and p["pruning"] is True
    assert set(p) == set(make_agent("pmcts_pu", game="tribes").params()) - {"seed"}
    assert full_params("random", {}, "tribes") == {}


def test_lookup_by_name_slug_and_position(tmp_path):
    pf = load_presets(preset_file(tmp_path))
    first = pf.presets[0]
    assert pf.get("LEVEL 1 (EASIEST)") is first
    assert pf.get("level-1-easiest") is first and slug(first.name) == "level-1-easiest"
    assert pf.get("1") is first and pf.get(2) is pf.presets[1]
    with pytest.raises(PresetError, match="no preset 'level 9'; presets: level 1 .easiest., "):
        pf.get("level 9")
    with pytest.raises(PresetError, match="holds 2 presets, name one"):
        pf.get()


def test_preset_specs_wherever_agents_are_read(tmp_path):
    path = preset_file(tmp_path)
    spec = f"preset:{path}#level 2 (hardest)"
    name, params = split_spec(spec)
    assert name == "pmcts_pu" and params["weights"]["ResearchRoads"] == 1.0
    agent = parse_agent_spec(f"preset:{path}#level-2-hardest", seed=4)
    assert agent.params() == make_agent("pmcts_pu", game="tribes", seed=4, budget=12,
                                        weights=WEIGHTS).params()
    # tournaments: a spec string, and a mapping whose params override the preset's
    t = parse_agent(spec, "agents[0]")
    assert t.name == "pmcts_pu" and t.label == spec and dict(t.params)["budget"] == 12
    t = parse_agent({"name": f"preset:{path}#1", "label": "easy", "params": {"budget": 3}},
                    "agents[1]")
    assert t.label == "easy" and dict(t.params)["budget"] == 3
    # run configs (opponents)
    from qd.config import config_from_dict
    cfg = config_from_dict({"game": "tribes", "opponent": f"preset:{path}#1", "levels": {"train": [11]},
                            "evaluations": 1, "seed": 1})
    assert cfg.opponent["name"] == "pmcts_pu" and cfg.opponent["budget"] == 6
    with pytest.raises(PresetError, match="no preset 'nope'"):
        split_spec(f"preset:{path}#nope")
    with pytest.raises(PresetError, match="cannot read"):
        split_spec(f"preset:{tmp_path / 'missing.json'}#1")


def test_play_from_the_command_line_with_a_preset(tmp_path, capsys):
    path = preset_file(tmp_path)
    assert main(["play", "--p1", f"preset:{path}#1", "--p2", "random", "--rounds", "2",
                 "--seed", "3"]) == 0
    assert "winner" in capsys.readouterr().out
    assert main(["play", "--p1", f"preset:{path}#9", "--p2", "random"]) == 2


def mutate(data: dict, path: str, value, delete: bool = False) -> dict:
    d = copy.deepcopy(data)
    keys = path.split("/")
    node = d
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if delete:
        del node[last]
    else:
        node[last] = value
    return d


BAD = [
    ("format", "other", "presets.json: format: 'playstyles-presets' expected"),
    ("version", 2, "version: version 2 is not supported"),
    ("version", "1", "version: an integer expected"),
    ("game", "chess", "game: "),
    ("colour", "red", "colour: unknown key"),
    ("presets", [], "presets: a non-empty list"),
    ("presets/0/name", None, "presets[0].name: missing"),
    ("presets/1/name", "level 1 (easiest)", "presets[1].name: 'level 1 (easiest)' is used twice"),
    ("presets/0/agent", "alphazero", "presets[0].agent: unknown agent 'alphazero'"),
    ("presets/0/params", [1, 2], "presets[0].params: a mapping"),
    ("presets/0/params/foo", 1, "presets[0].params.foo: agent pmcts_pu: unknown parameter 'foo'"),
    ("presets/0/params/seed", 1, "presets[0].params.seed: not part of a preset"),
    ("presets/1/params/weights/SpawnRange", 2, "presets[1].params.weights.SpawnRange: a weight "
                                               "in [0, 1] expected, got 2"),
    ("presets/1/params/weights/SpawnRange", "high", "presets[1].params.weights.SpawnRange"),
    ("presets/1/params/weights/Teleport", 0.5, "presets[1].params: the agent cannot be built: "
                                               "portfolio (tribes): weight for unknown script"),
    ("presets/1/params/weights", [0.5], "presets[1].params.weights: a mapping"),
    ("presets/1/params/game", "other", "presets[1].params.game: 'other' differs"),
    ("presets/1/params/c", -1.0, "presets[1].params: the agent cannot be built: c: must be >= 0"),
    ("presets/0/evidence/win_rate_evolved", 1.5, "presets[0].evidence.win_rate_evolved: a rate"),
    ("presets/0/evidence/games_evolved", -1, "presets[0].evidence.games_evolved: a count"),
    ("presets/0/evidence/colour", 1, "presets[0].evidence.colour: unknown key"),
    ("presets/1/evidence/grid_index", ["a"], "presets[1].evidence.grid_index: a list of integers"),
    ("presets/1/evidence/features/attacks", "many", "presets[1].evidence.features.attacks: "
                                                    "a number or null"),
    ("presets/1/evidence/win_rate_validated_ci", [0.2],
     "presets[1].evidence.win_rate_validated_ci"),
    ("presets/1/evidence/win_rate_source", "guess", "presets[1].evidence.win_rate_source"),
    ("presets/0/description", 5, "presets[0].description: text expected"),
    ("presets/0/motto", "x", "presets[0].motto: unknown key"),
]


@pytest.mark.parametrize("where, value, message", BAD, ids=[b[0] + "=" + repr(b[1]) for b in BAD])
def test_malformed_presets_name_the_field(tmp_path, where, value, message):
    data = json.loads(preset_file(tmp_path).read_text())
    bad = mutate(data, where, value, delete=value is None)
    p = tmp_path / "presets.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(PresetError) as e:
        load_presets(p)
    assert message in str(e.value)


def test_a_preset_file_from_before_the_layout_rename_says_so(tmp_path):
    """Older files name P-MCTS's `layout` parameter `genome`: one error says what it is now."""
    data = json.loads(preset_file(tmp_path).read_text())
    params = data["presets"][1]["params"]
    params["genome"] = params.pop("layout")
    p = tmp_path / "old.json"
    p.write_text(json.dumps(data))
    with pytest.raises(PresetError) as e:
        load_presets(p)
    assert str(e.value) == (f"{p}: presets[1].params.genome: renamed to layout (the scripts "
                            "whose weights evolve); rename the key")
    data["presets"][1] = {"name": "random", "agent": "random", "params": {"genome": None}}
    p.write_text(json.dumps(data))
    with pytest.raises(PresetError, match=r"presets\[1\]\.params\.genome: agent random: "
                                          "unknown parameter 'genome'"):
        load_presets(p)


def test_unreadable_files_and_unwritable_presets(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(PresetError, match="x.json: not valid JSON"):
        load_presets(p)
    with pytest.raises(PresetError, match="a JSON object expected"):
        presets_from_dict([1, 2])
    bad = PresetFile("tribes", [Preset("p", "pmcts_pu", {"weights": {"SpawnRange": 3.0}},
                                       "tribes")])
    with pytest.raises(PresetError, match=r"presets\[0\].params.weights.SpawnRange"):
        dump_presets(bad, tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
