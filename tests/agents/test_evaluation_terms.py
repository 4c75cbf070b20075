"""Evaluation terms: an evaluator declares the quantities it weighs, a spec reweights them, the
`persona` genome mapping evolves their multipliers, and `playstyles check` checks them."""

from __future__ import annotations

import numpy as np
import pytest

from agents.check import check_terms
from agents.conformance import positions_of
from agents.evaluators import (
    EVALUATORS,
    evaluation_terms,
    make_evaluator,
    register_evaluator,
)
from agents.registry import make_agent_from
from games.registry import get_game
from games.tribes.evaluators import TERMS, WEIGHTS, tribe_features
from play.runner import run_game
from qd.config import ConfigError, config_from_dict
from qd.genome_games import PERSONA_RANGE, persona_multiplier
from qd.validation import game_trace


def _pairs(game: str, count: int = 12, seed: int = 3):
    """(root, leaf) pairs: a random position and the position 6 random actions later."""
    g = get_game(game)
    rng = np.random.default_rng(seed)
    out = []
    for root in positions_of(game, g.level_set(g.default_levels)[0], {}, count, seed):
        leaf = root.copy()
        for _ in range(6):
            if leaf.is_terminal():
                break
            acts = leaf.legal_actions()
            leaf.apply(acts[int(rng.integers(len(acts)))])
        out.append((root, leaf))
    return out


@pytest.mark.parametrize("game", ["tribes", "tribolo", "navy"])
def test_multipliers_of_one_give_the_default_evaluator_exactly(game):
    terms = evaluation_terms(game)
    assert terms, f"{game}'s default evaluator declares its terms"
    plain = make_evaluator(game, None)
    same = make_evaluator(game, {"terms": dict.fromkeys(terms, 1.0)})
    for root, leaf in _pairs(game):
        for p in range(root.num_players):
            assert same.evaluate(root, leaf, p) == plain.evaluate(root, leaf, p)


def test_a_tribes_term_alone_weighs_its_own_quantity():
    """With every multiplier 0 but one, the value is that term's weight times the player's
    change minus the others' mean change, plus the change in connected cities."""
    k = TERMS.index("production")
    only = make_evaluator("tribes", {"name": "diff", "terms": {**dict.fromkeys(TERMS, 0.0),
                                                               "production": 2.0}},
                          terminal=False)
    seen = 0
    for root, leaf in _pairs("tribes", count=20):
        change = [tribe_features(leaf, t)[k] - tribe_features(root, t)[k]
                  for t in range(len(leaf.tribes))]
        for p in range(len(leaf.tribes)):
            others = np.mean([c for t, c in enumerate(change) if t != p])
            connected = len(leaf.tribes[p].connected) - len(root.tribes[p].connected)
            want = 2.0 * WEIGHTS[k] * (change[p] - others) + connected
            assert only.evaluate(root, leaf, p) == pytest.approx(want)
            seen += change[p] != 0
    assert seen, "some pair changed production"


@pytest.mark.parametrize("spec, message", [
    ({"terms": {"gold": 2}}, r"evaluator.terms.'?gold'?: evaluator diff of tribes has no such "
                             r"term \(its terms: production, techs"),
    ({"terms": {"kills": -1}}, r"evaluator.terms.kills: a multiplier in \[0, "),
    ({"terms": {"kills": True}}, r"evaluator.terms.kills: a multiplier"),
    ({"terms": [1, 2]}, r"evaluator.terms: a mapping of term to multiplier"),
    ({"weights": {}}, r"evaluator.'?weights'?: unknown key \(known: name, terms\)"),
    ({"name": "outcome", "terms": {"x": 1}}, r"evaluator outcome of tribes declares no "
                                             r"evaluation terms"),
    ({"name": "nope", "terms": {}}, r"unknown evaluator"),
])
def test_a_bad_reweighting_is_one_error_naming_the_key(spec, message):
    with pytest.raises(ValueError, match=message):
        make_evaluator("tribes", spec)


@pytest.mark.parametrize("terms, message", [
    ({"not a name": 1.0}, "is not an identifier"),
    ({"a": float("inf")}, "a finite weight expected"),
    ({}, "at least one term"),
])
def test_a_bad_declaration_is_refused_at_registration(terms, message):
    with pytest.raises(ValueError, match=message):
        register_evaluator("nim", "bad_terms", lambda weights=None: None, terms=terms)
    assert EVALUATORS.find("bad_terms", "nim") is None


class _Heaps:
    """A Nim evaluator with one term: the stones taken since the root (weights honoured, or
    not, or honoured wrongly)."""

    def __init__(self, weights=None, fault: str = ""):
        self.w = 1.0 if weights is None else weights["taken"]
        if fault == "ignores":
            self.w = 1.0
        elif fault == "wrong" and weights is not None:
            self.w = 2.0 * weights["taken"]

    def evaluate(self, root, leaf, player):
        return self.w * (sum(root.heaps) - sum(leaf.heaps))


@pytest.mark.parametrize("fault", ["", "ignores", "wrong"])
def test_check_finds_a_term_rebuilt_wrongly_or_never_read(fault):
    register_evaluator("nim", "heaps", lambda weights=None: _Heaps(weights, fault),
                       terms={"taken": 1.0})
    try:
        found = check_terms("nim", positions=8)
    finally:
        EVALUATORS.pop("heaps", "nim")
    if fault == "wrong":
        assert not found.ok and "rebuilt with its declared weights" in found.failures[0]
    else:
        assert found.ok and "heaps (1 terms) in 8 positions" in found.done
        assert bool(found.notes) == (fault == "ignores")
        if found.notes:
            assert "the weight of taken changed no value" in found.notes[0]


def _config(game: str, **agent) -> dict:
    base = {"tribes": {"options": {"max_rounds": 3}, "layout": "paper",
                       "features": ["forestry"]},
            "tribolo": {"features": None},
            "navy": {"features": ["moving"]}}[game]
    data = {"name": "t", "game": game, "seed": 3, "repetitions": 1,
            "levels": {"set": "range:1-4", "train": 2, "split_seed": 0},
            "agent": {"genome_mapping": "persona", **agent}}
    data.update({k: v for k, v in base.items() if v is not None})
    return data


def test_persona_evolves_the_scripts_then_the_terms():
    cfg = config_from_dict(_config("tribes", name="pmcts_pu", budget=10), source="c.yaml")
    assert cfg.genome_names[-len(TERMS):] == tuple(f"term:{t}" for t in TERMS)
    assert len(cfg.genome_names) == 11 + len(TERMS)
    plan = cfg.plan()
    genome = plan.control().copy()
    genome[cfg.genome_names.index("term:kills")] = 1.0
    genome[cfg.genome_names.index("term:score")] = 0.0
    params = dict(plan.agent_for(genome).params)
    terms = params["evaluator"]["terms"]
    assert terms["kills"] == pytest.approx(PERSONA_RANGE)
    assert terms["score"] == pytest.approx(1 / PERSONA_RANGE)
    assert terms["production"] == 1.0 and len(params["weights"]) == 11
    assert persona_multiplier(0.5) == 1.0


def test_the_persona_control_plays_the_default_agents_games():
    """Every term at multiplier 1 is the default evaluator: the control's game is the weights
    mapping's control's game, move for move."""
    traces = []
    for mapping in ("persona", "weights"):
        data = _config("tribes", name="pmcts_pu", budget=10)
        data["agent"]["genome_mapping"] = mapping
        plan = config_from_dict(data, source="c.yaml").plan()
        traces.append(game_trace(run_game(plan.games(plan.control(), 0)[0])))
    assert traces[0] == traces[1]
    plan = config_from_dict(_config("tribes", name="pmcts_pu", budget=10), source="c").plan()
    genome = plan.control().copy()
    genome[-2] = 1.0  # kills x5
    spec = plan.agent_for(genome)
    agent = make_agent_from(spec.name, dict(spec.params), "tribes")
    weights = dict(zip(TERMS, agent.evaluator_object.inner.weights))
    assert weights == {**dict(zip(TERMS, WEIGHTS)), "kills": WEIGHTS[-2] * PERSONA_RANGE}


def test_persona_of_an_agent_without_scripts_evolves_the_terms_only():
    cfg = config_from_dict(_config("navy", name="hindsight",
                                   params={"samples": 2, "particles": 4, "horizon": 2}),
                           source="n.yaml")
    assert cfg.genome_names == ("term:move", "term:navy", "term:cargo")
    data = _config("navy", name="hindsight")
    data["layout"] = "all"
    with pytest.raises(ConfigError, match="n.yaml: layout: agent hindsight takes no script "
                                          "weights"):
        config_from_dict(data, source="n.yaml")
    tribolo = config_from_dict(_config("tribolo", name="pmcts_pu", budget=10), source="t")
    assert tribolo.genome_names[-2:] == ("term:own", "term:leader")


def test_persona_with_an_evaluator_that_declares_no_terms_is_refused():
    data = _config("tribes", name="mcts", budget=10)
    data.pop("layout")
    data["agent"]["params"] = {"evaluator": "outcome"}
    with pytest.raises(ConfigError, match="c.yaml: agent.genome_mapping: persona evolves the "
                                          "evaluation terms .* 'outcome' of tribes declares "
                                          "none"):
        config_from_dict(data, source="c.yaml")


def test_persona_keeps_an_evaluator_named_in_the_config():
    data = _config("tribes", name="pmcts_pu", budget=10, params={"evaluator": "diff"})
    plan = config_from_dict(data, source="c.yaml").plan()
    ev = dict(plan.agent_for(plan.control()).params)["evaluator"]
    assert ev["name"] == "diff" and ev["terms"]["kills"] == 1.0
