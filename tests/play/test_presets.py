"""Preset files: round trip to the exact agent, lookup by name, `preset:FILE#NAME` wherever an
agent spec is read, malformed files (an unknown game, script or version among them) rejected
with the bad field named in one line, every committed preset file still read, and the Python
entry point a game calls: `load_preset`, its time per move and the calls it records."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agents.search
import playstyles
from agents.registry import make_agent
from games.registry import get_game
from play.presets import (
    Preset,
    PresetAgent,
    PresetError,
    PresetFile,
    build_agent,
    dump_presets,
    full_params,
    load_preset,
    load_presets,
    presets_from_dict,
    slug,
)
from play.runner import AgentSpec, GameSpec, run_game
from play.specs import parse_agent_spec, split_spec
from play.tournament import parse_agent
from playstyles.cli import main
from tests.agents.counting import CountingState

REPO = Path(__file__).resolve().parents[2]

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
    pf = PresetFile("tribes", presets, "difficulty", {"max_rounds": 4},
                    {"run": "hand", "exported_by": {"playstyles": "0.1.0", "commit": None,
                                                    "uncommitted_changes": None}})
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
    ("version", 2, "presets.json: version: version 2 is newer than this playstyles reads "
                   "(version 1): upgrade playstyles"),
    ("version", 0, "presets.json: version: version 0 is unknown (this playstyles reads version 1)"),
    ("version", "1", "version: an integer expected"),
    ("game", "chess", "presets.json: game: unknown game 'chess'; known: "),
    ("source/exported_by/commit", 7, "presets.json: source.exported_by.commit: text expected"),
    ("source/exported_by/by", "me", "presets.json: source.exported_by.by: unknown key"),
    ("source/exported_by", "me", "presets.json: source.exported_by: a mapping expected"),
    ("source/run", ["a"], "presets.json: source.run: text expected"),
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
    ("presets/1/params/weights/Teleport", 0.5, "presets.json: presets[1].params.weights.Teleport: "
                                               "unknown script 'Teleport' for game 'tribes'; known: "),
    ("presets/1/params/weights/SpawnRang", 0.5, "presets[1].params.weights.SpawnRang: unknown "
                                                "script 'SpawnRang' for game 'tribes'; known: "),
    ("presets/1/params/opponent_weights", {"Teleport": 0.5},
     "presets[1].params.opponent_weights.Teleport: unknown script 'Teleport'"),
    ("presets/1/params/weights", [0.5], "presets[1].params.weights: a mapping"),
    ("presets/1/params/game", "other", "presets[1].params.game: 'other' differs"),
    ("presets/1/params/c", -1.0, "presets[1].params: the agent cannot be built: c: must be >= 0"),
    ("presets/0/evidence/win_rate_evolved", 1.5, "presets[0].evidence.win_rate_evolved: a number "
                                                 "in [0, 1] expected"),
    ("presets/0/evidence/games_evolved", -1, "presets[0].evidence.games_evolved: must be >= 0"),
    ("presets/0/evidence/colour", 1, "presets[0].evidence.colour: unknown key"),
    ("presets/1/evidence/grid_index", ["a"], "presets[1].evidence.grid_index[0]: a whole number expected"),
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
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith(f"{p}: ")


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


def test_every_committed_preset_file_still_loads():
    files = sorted(REPO.glob("experiments/results/**/presets*.json"))
    assert len(files) >= 4
    for f in files:
        pf = load_presets(f)
        assert pf.presets and load_preset(f).label == pf.names[0]


# ------------------------------------------------------------------------------ load_preset

def test_load_preset_gives_an_agent_a_game_loop_calls(tmp_path):
    path = preset_file(tmp_path)
    assert playstyles.load_preset is load_preset  # the package's entry point
    assert load_preset(path).label == "level 1 (easiest)"  # no name: the first
    agent = load_preset(path, "level-2-hardest", seed=5)
    assert isinstance(agent, PresetAgent) and agent.game == "tribes"
    assert agent.options == {"max_rounds": 4}
    assert agent.params() == make_agent("pmcts_pu", game="tribes", seed=5, budget=12,
                                        weights=WEIGHTS).params()
    state = get_game(agent.game).new_state(11, 3, **agent.options)
    for _ in range(12):
        legal = state.legal_actions()
        a = agent.act(state)
        assert a in legal
        state.apply(a)
    assert len(agent.moves) == 12 and not any(m.timed_out for m in agent.moves)
    assert agent.last_budget.used == agent.moves[-1].calls
    assert max(m.calls for m in agent.moves) == 12 and all(m.calls <= 12 for m in agent.moves)
    small = load_preset(path, "level-2-hardest", seed=5, budget=3)
    assert small.act(state) in state.legal_actions() and small.moves[-1].calls <= 3
    assert small.params()["budget"] == 3
    with pytest.raises(PresetError) as e:
        load_preset(path, "level 9")
    assert str(e.value) == (f"{path}: no preset 'level 9'; presets: level 1 (easiest), "
                            f"level 2 (hardest) (or a position 1..2)")
    with pytest.raises(ValueError, match="preset 'level 2 .hardest.' plays tribes, not tribolo"):
        agent.act(get_game("tribolo").new_state(1, 0))


def test_a_time_per_move_stops_the_preset_and_its_calls_are_recorded(tmp_path, monkeypatch):
    """A clock that advances one millisecond per forward-model call: 5 ms stop the search
    at the 5th call (or the 6th: a call asked for past the deadline is the last one)."""
    path = preset_file(tmp_path)
    s = CountingState(get_game("tribes").new_state(11, 3, max_rounds=4))
    monkeypatch.setattr(agents.search, "now", lambda: s.counter.n / 1000.0)
    agent = load_preset(path, 2, ms=5, budget=5000)
    assert agent.act(s) in s.legal_actions()
    m = agent.moves[-1]
    assert m.timed_out and m.calls == agent.last_budget.used == s.counter.n and 5 <= m.calls <= 6
    assert m.ms == pytest.approx(m.calls)
    s.counter.n = 0
    agent.act(s, ms=2)  # a time for this move only
    assert agent.moves[-1].timed_out and 2 <= agent.moves[-1].calls <= 3
    s.counter.n = 0
    relaxed = load_preset(path, 2, ms=1000)  # the preset's 12 calls come first
    relaxed.act(s)
    assert relaxed.moves[-1].calls == s.counter.n == 12 and not relaxed.moves[-1].timed_out


def test_load_preset_refuses_what_the_agent_cannot_do(tmp_path):
    path = preset_file(tmp_path)
    with pytest.raises(PresetError, match=r"presets.json: preset 'level 1 .easiest.': ms: a time "
                                          r"per decision in milliseconds, > 0"):
        load_preset(path, 1, ms=0)
    with pytest.raises(PresetError, match=r"preset 'level 1 .easiest.': budget: .* >= 1, got 0"):
        load_preset(path, 1, budget=0)
    plain = dump_presets(PresetFile("tribes", [Preset("any", "random", {}, "tribes")]),
                         tmp_path / "random.json")
    state = get_game("tribes").new_state(11, 3)
    assert load_preset(plain).act(state) in state.legal_actions()
    with pytest.raises(ValueError, match="ms: agent random takes no time per move"):
        load_preset(plain).act(state, ms=100)
    with pytest.raises(PresetError, match="preset 'any': ms: agent random takes no time per move"):
        load_preset(plain, ms=100)
    with pytest.raises(PresetError, match="preset 'any': budget: agent random takes no budget"):
        load_preset(plain, budget=100)


def test_importing_the_package_loads_no_preset_code_until_asked():
    code = ("import sys, playstyles\n"
            "assert 'play.presets' not in sys.modules and 'agents.search' not in sys.modules\n"
            "from playstyles import load_preset, PresetError\n"
            "import play.presets\n"
            "assert load_preset is play.presets.load_preset\n"
            "assert 'load_preset' in dir(playstyles)\n"
            "try:\n    playstyles.nothing\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env=_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "module 'playstyles' has no attribute 'nothing'"


def _env() -> dict:
    import os
    return {**os.environ, "PYTHONPATH": str(REPO)}


def test_the_game_loop_of_the_docs_runs(tmp_path, monkeypatch, capsys):
    """docs/presets.md's example, as printed, on a small file of the name it loads."""
    text = (REPO / "docs" / "presets.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert 'playstyles.load_preset("presets.json", "level 2"' in code
    presets = [Preset(f"level {i}", "pmcts_pu", full_params("pmcts_pu", {"budget": b}, "tribes"),
                      "tribes", {"max_rounds": 2}) for i, b in ((1, 4), (2, 8))]
    dump_presets(PresetFile("tribes", presets, "difficulty", {"max_rounds": 2}),
                 tmp_path / "presets.json")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/presets.md", "exec"), {})
    out = capsys.readouterr().out
    calls = json.loads(re.search(r"calls per move: (\[.*\])", out).group(1))
    assert len(calls) > 3 and max(calls) == 8
    assert "share of first place per player: [" in out
