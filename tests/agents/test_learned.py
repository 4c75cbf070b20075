"""The learned evaluator: the Tribes encoding, self-play positions, training, the model file
and the `learned:PATH` evaluator spec."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.encodings import encoding_names, get_encoding
from agents.evaluators import TerminalAware, make_evaluator
from agents.learned import LearnedEvaluator, Model, load_model, model_path
from games.registry import get_game
from games.tribes import constants as K
from games.tribes import encoding as E
from play.runner import play_game
from play.selfplay import generate_samples
from play.specs import parse_agent_spec
from play.tournament import plan
from play.train_evaluator import save_model, train_config_from_dict, train_evaluator

TINY = {"game": "tribes", "agents": ["rule_based"], "levels": "range:1-4", "repetitions": 2,
        "options": {"max_rounds": 5}, "seed": 5, "hidden": [8], "epochs": 5, "held_out": 1}


def start(level: int = 1):
    return get_game("tribes").new_state(level, 0)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A model trained on 8 short rule-based games (played in this process)."""
    path = tmp_path_factory.mktemp("learned") / "tiny.npz"
    config = train_config_from_dict({**TINY, "output": str(path)})
    result = train_evaluator(config, workers=0)
    return result


# ---------------------------------------------------------------- the encoding

def test_the_tribes_encoding_is_registered_with_its_fixed_length():
    enc = get_encoding("tribes")
    assert enc.name == "counts" in encoding_names("tribes")
    assert enc.length == E.LENGTH == sum(w for _, w in E.FIELDS)
    for state in (start(1), start(7)):
        for p in (0, 1):
            v = enc.vector(state, p)
            assert v.shape == (enc.length,)
            assert set(np.unique(v)) <= {0.0, 1.0}


def _ones(state, player):
    enc = get_encoding("tribes")
    return {enc.field_of(int(i)) for i in enc.indices(state, player)}


def test_one_more_warrior_moves_the_warrior_count_of_its_side():
    state = start(1)
    before0, before1 = _ones(state, 0), _ones(state, 1)
    t0 = state.tribes[0]
    cap = state.cities[t0.capital]
    free = next(i for i in state.radius(cap.pos, 1) if not state.unit_at[i]
                and not K.IS_WATER[state.terrain[i]])
    state.create_unit(K.WARRIOR, 0, free, cap.id)
    after0, after1 = _ones(state, 0), _ones(state, 1)
    assert before0 ^ after0 >= {"own_units_warrior[1]", "own_units_warrior[2]"}
    assert before1 ^ after1 >= {"opp_units_warrior[1]", "opp_units_warrior[2]"}
    assert not any(f.startswith("opp_units") for f in before0 ^ after0)


def test_the_view_is_rotated_to_the_viewer():
    """Each tribe sees itself first: tribe 0's own block is tribe 1's opponents' block."""
    state = start(3)
    a, b = _ones(state, 0), _ones(state, 1)
    own_a = {f[4:] for f in a if f.startswith("own_")}
    opp_b = {f[4:] for f in b if f.startswith("opp_")}
    assert own_a == opp_b
    assert "to_move[0]" in a and "to_move[0]" not in b  # tribe 0 moves first
    assert "seat[0]" in a and "seat[1]" in b


def test_counts_beyond_the_cap_are_clipped():
    state = start(1)
    state.tribes[0].stars = 10_000
    assert f"own_stars[{E.CAP}]" in _ones(state, 0)


# ---------------------------------------------------------------- positions from self-play

def _specs(**over):
    return plan(train_config_from_dict({**TINY, **over}).games)


def test_self_play_keeps_every_turn_start_from_both_views_with_the_result():
    specs = _specs(levels="seeds:2,3", repetitions=1, options={"max_rounds": 3})
    s = generate_samples(specs[:1], workers=0)
    g = s.games[0]
    assert g["rounds"] == 4  # the round limit ended it: rounds 0..3 were played
    # each round: 2 turn starts x 2 views
    assert len(s) == 16 and sorted(set(s.round.tolist())) == [0, 1, 2, 3]
    assert set(s.label.tolist()) == {-1, 1}
    for view in (0, 1):
        won = s.label[s.viewer == view]
        assert (won == (1 if g["winner"] == view else -1)).all()
    assert s.to_move.sum() == len(s) // 2
    first = s.rows(np.arange(len(s)) == 0)
    assert first.round[0] == 0 and first.to_move[0] and first.viewer[0] == 0


def test_same_seed_same_positions():
    specs = _specs()
    a = generate_samples(specs, workers=0)
    b = generate_samples(specs, workers=0)
    for field in ("indptr", "indices", "label", "game", "round", "viewer"):
        assert np.array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.slow
def test_positions_do_not_depend_on_workers(no_ray):
    specs = _specs()
    serial = generate_samples(specs, workers=0)
    ray = generate_samples(specs, workers=2)
    for field in ("indptr", "indices", "label", "game", "round", "viewer"):
        assert np.array_equal(getattr(serial, field), getattr(ray, field))


# ---------------------------------------------------------------- training and the model file

def test_the_model_file_describes_the_model(tiny_model):
    meta = load_model(tiny_model.path).metadata
    assert meta["format_version"] == 1 and meta["game"] == "tribes"
    assert meta["encoding"] == {"name": "counts", "version": E.VERSION, "length": E.LENGTH}
    assert meta["layers"] == [E.LENGTH, 8, 1]
    tr, ho = meta["data"]["train"], meta["data"]["held_out"]
    assert tr["games"] == 6 and ho["games"] == 2  # one level of four held out, 2 games each
    assert ho["samples"] == meta["held_out"]["overall"]["n"] > 0
    overall = meta["held_out"]["overall"]
    assert overall["games"] == 2 and overall["interval"] == "bootstrap over games"
    assert meta["held_out"]["vs_score_leader"]["games"] == 2
    assert meta["config"]["hidden"] == [8] and meta["seed"] == 5
    assert 0 <= meta["held_out"]["overall"]["accuracy"] <= 1


def test_a_learned_value_is_in_range_and_deterministic(tiny_model):
    ev = make_evaluator("tribes", f"learned:{tiny_model.path}")
    assert isinstance(ev, TerminalAware) and isinstance(ev.inner, LearnedEvaluator)
    state = start(2)
    values = [ev.evaluate(state, state, p) for p in (0, 1)]
    assert all(-1 <= v <= 1 for v in values)
    assert values == [ev.evaluate(state, state, p) for p in (0, 1)]
    again = Model(tiny_model.model.weights, tiny_model.model.biases, {})
    enc = get_encoding("tribes")
    dense = again.values(enc.vector(state, 0)[None, :])[0]
    assert dense == pytest.approx(values[0], abs=1e-5)


def test_the_numpy_forward_pass_matches_scikit_learn(tiny_model):
    pytest.importorskip("sklearn")
    from sklearn.neural_network import MLPClassifier
    m = tiny_model.model
    clf = MLPClassifier(hidden_layer_sizes=(8,))
    clf.coefs_ = [w.astype(np.float64) for w in m.weights]
    clf.intercepts_ = [b.astype(np.float64) for b in m.biases]
    clf.n_layers_, clf.out_activation_, clf.classes_ = 3, "logistic", np.array([-1, 1])
    clf.activation, clf.n_outputs_ = "relu", 1
    enc = get_encoding("tribes")
    x = np.stack([enc.vector(start(lv), p) for lv in (1, 2) for p in (0, 1)])
    expected = 2 * clf.predict_proba(x)[:, 1] - 1
    got = [m.value(np.flatnonzero(row)) for row in x]
    assert np.allclose(got, expected, atol=1e-5)


def test_mcts_with_a_learned_evaluator_plays_a_game(tiny_model):
    spec = f"mcts:evaluator=learned:{tiny_model.path},rollouts=false,budget=30"
    agent = parse_agent_spec(spec, seed=1, game="tribes")
    state = get_game("tribes").new_state(1, 0, max_rounds=1)
    play_game(state, [agent, parse_agent_spec("random", seed=2, game="tribes")])
    assert state.is_terminal()


def test_hps_takes_a_learned_evaluator(tiny_model):
    agent = parse_agent_spec(f"hps:evaluator=learned:{tiny_model.path},budget=200", seed=1,
                             game="tribes")
    state = start(1)
    assert agent.act(state) in state.legal_actions()


def test_a_tournament_config_accepts_a_learned_agent(tiny_model):
    from play.tournament import config_from_dict
    spec = f"mcts:evaluator=learned:{tiny_model.path},budget=20"
    config = config_from_dict({"game": "tribes", "agents": [spec, "random"]})
    assert dict(config.agents[0].params)["evaluator"] == f"learned:{tiny_model.path}"


# ---------------------------------------------------------------- bad models and specs

def test_a_missing_model_file_is_named(tmp_path):
    missing = tmp_path / "nope.npz"
    with pytest.raises(ValueError, match="nope.npz: model file not found"):
        make_evaluator("tribes", f"learned:{missing}")
    with pytest.raises(ValueError, match="nope.npz"):
        parse_agent_spec(f"mcts:evaluator=learned:{missing}", game="tribes")


def test_a_file_that_is_no_model_is_named(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="junk.npz: not a model file"):
        make_evaluator("tribes", f"learned:{junk}")
    arrays = tmp_path / "arrays.npz"
    np.savez(arrays, W0=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="arrays.npz: metadata: missing"):
        make_evaluator("tribes", f"learned:{arrays}")


def _resaved(model: Model, path, **meta):
    m = Model(model.weights, model.biases, {**model.metadata, **meta})
    return save_model(m, path)


def test_a_model_for_another_game_or_encoding_version_is_refused(tiny_model, tmp_path):
    other = _resaved(tiny_model.model, tmp_path / "other.npz", game="tribolo")
    with pytest.raises(ValueError, match=r"other.npz: game: the model is for 'tribolo'"):
        make_evaluator("tribes", f"learned:{other}")
    enc = {**tiny_model.model.metadata["encoding"], "version": E.VERSION + 1}
    old = _resaved(tiny_model.model, tmp_path / "old.npz", encoding=enc)
    with pytest.raises(ValueError, match=r"old.npz: encoding.version"):
        make_evaluator("tribes", f"learned:{old}")


def test_a_newer_format_is_refused(tiny_model, tmp_path):
    path = tmp_path / "new.npz"
    with np.load(tiny_model.path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["metadata"]))
    meta["format_version"] = 99
    arrays["metadata"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="new.npz: format_version: 99"):
        load_model(path)


def test_an_evaluator_without_argument_refuses_one():
    with pytest.raises(ValueError, match="'diff' takes no argument"):
        make_evaluator("tribes", "diff:x")


def test_the_default_model_is_shipped_with_tribes():
    path = model_path("tribes", None)
    assert path == model_path("tribes", "default")
    assert path.is_file() and path.parent.name == "models"
    ev = make_evaluator("tribes", "learned")
    assert -1 <= ev.evaluate(start(1), start(1), 0) <= 1


@pytest.mark.parametrize("over, message", [
    ({"hidden": [0]}, "hidden: a list of layer sizes"),
    ({"activation": "swish"}, "activation: one of relu, tanh, logistic, identity expected, "
                              "got 'swish'"),
    ({"held_out": 1.5}, "held_out: a share"),
    ({"held_out": 4}, "held_out: 4 of 4 levels"),
    ({"views": "some"}, "views: one of all, mover expected, got 'some'"),
    ({"epochs": 0}, "epochs: must be >= 1, got 0"),
    ({"learning_rate": -1}, "learning_rate: must be > 0"),
    ({"encoding": "pixels"}, "unknown encoding 'pixels'"),
    ({"layers": 2}, "layers: unknown key (known: activation, agents"),
])
def test_bad_config_fields_are_named(over, message):
    with pytest.raises(ValueError, match="t.yaml") as e:
        train_config_from_dict({**TINY, **over}, source="t.yaml")
    assert message in str(e.value)


def test_agent_specs_keep_a_model_path_whole():
    from play.specs import split_spec
    name, params = split_spec("mcts:evaluator=learned:runs/m-1.2.npz,rollouts=false", "tribes")
    assert name == "mcts"
    assert params == {"evaluator": "learned:runs/m-1.2.npz", "rollouts": False}


def test_the_command_line_trains_and_writes_the_model_and_summary(tmp_path, capsys):
    import yaml

    from playstyles.cli import main
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({**TINY, "output": str(tmp_path / "m.npz")}))
    assert main(["train-evaluator", str(cfg), "--workers", "0", "--quiet",
                 "--summary", str(tmp_path / "summary.md")]) == 0
    assert load_model(tmp_path / "m.npz", "tribes").layers == [E.LENGTH, 8, 1]
    out = capsys.readouterr().out
    assert "| all |" in out and f"learned:{tmp_path / 'm.npz'}" in out
    assert "| rounds 0-9 |" in (tmp_path / "summary.md").read_text()
    assert main(["train-evaluator", str(tmp_path / "missing.yaml")]) == 2


def test_accuracy_intervals_resample_games_and_compare_with_the_leader_paired():
    from play.train_evaluator import accuracy_tables, to_markdown
    rng = np.random.default_rng(0)
    games = np.repeat(np.arange(40), 20)  # 40 games of 20 positions
    label = np.repeat(np.where(rng.random(40) < 0.5, 1, -1), 20)
    rounds = np.tile(np.arange(20), 40)
    lead = label * 1.0  # the score leader always wins
    value = np.where(rng.random(800) < 0.8, label, -label) * 0.5  # right 4 times in 5
    value[:20] = 0.0  # game 0: the model undecided
    t = accuracy_tables(value, label, rounds, np.tile([True, False], 400), lead, games)
    o = t["overall"]
    assert (o["n"], o["games"]) == (800, 40) and o["interval"] == "bootstrap over games"
    assert o["accuracy"] == pytest.approx(np.mean(np.sign(value) == label), abs=1e-4)
    assert o["ci95"][0] < o["accuracy"] < o["ci95"][1]
    assert t["score_leader"]["accuracy"] == 1.0
    d = t["vs_score_leader"]
    assert d["difference"] == pytest.approx(o["accuracy"] - 1.0, abs=1e-4)
    assert d["ci95"][1] < 0  # the leader is better, paired over the same games
    assert list(t["by_phase"]) == ["0-9", "10-19"] and t["by_phase"]["0-9"]["n"] == 400
    assert t["by_view"]["to_move"]["games"] == 40
    # a draw is left out; its game still counts where it has decided positions
    drawn = label.copy()
    drawn[20:40] = 0
    assert accuracy_tables(value, drawn, rounds, rounds % 2 == 0, lead,
                           games)["overall"]["games"] == 39
    meta = {"game": "tribes", "encoding": {"name": "counts", "version": 1, "length": 3},
            "layers": [3, 1], "activation": "relu", "fit": {"iterations": 1}, "seed": 0,
            "data": {"views": "all", "agents": ["a"], "held_out_levels": ["1"],
                     **{k: {"games": 1, "samples": 1, "rounds": {"mean": 1.0},
                            "first_seat_wins": 0.5} for k in ("train", "held_out")}},
            "train_accuracy": {"accuracy": 1.0}, "held_out": t}
    text = to_markdown(meta)
    assert "95% (bootstrap over games)" in text
    assert f"| all | 800 | 40 | {o['accuracy']:.3f} | {o['ci95'][0]:.3f}-" in text


def test_saved_positions_are_reused_only_for_the_same_games(tmp_path):
    from play.train_evaluator import self_play
    file = tmp_path / "samples.npz"
    config = train_config_from_dict(TINY)
    played = self_play(config, samples=file, workers=0)
    again = self_play(config, samples=file, workers=0)
    for field in ("indptr", "indices", "label", "game", "round", "viewer", "score_lead"):
        assert np.array_equal(getattr(played, field), getattr(again, field))
    assert again.games == played.games
    other = train_config_from_dict({**TINY, "seed": 6})
    with pytest.raises(ValueError, match="samples.npz: fingerprint"):
        self_play(other, samples=file, workers=0)


def test_a_model_file_is_read_as_plain_arrays_within_a_bound(tmp_path):
    """A model holding an array of objects (a pickle) is refused without unpickling it, and
    a small file whose arrays would expand past the bound is refused before decompressing."""
    from base.files import read_npz

    flag = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(flag), "w"))

    objects = tmp_path / "objects.npz"
    np.savez(objects, metadata=np.array([Payload()], dtype=object))
    with pytest.raises(ValueError, match="objects.npz: metadata: an array of objects"):
        load_model(objects)
    assert not flag.exists()
    bomb = tmp_path / "bomb.npz"
    np.savez_compressed(bomb, w=np.zeros(3 * 2**20))  # 24 MB of zeros in a small file
    assert bomb.stat().st_size < 2**20
    with pytest.raises(ValueError, match=r"bomb.npz: its arrays hold \d+ bytes, more than"):
        read_npz(bomb, limit=2**20)
    assert read_npz(bomb)["w"].shape == (3 * 2**20,)
