"""Algorithm 1 (initial individuals, one-weight mutation) and the snapped pyribs emitters."""

from __future__ import annotations

import numpy as np
import pytest
from ribs.schedulers import Scheduler

from base.schema import Field, count, number
from qd.archive import EliteArchive
from qd.config import ConfigError, config_from_dict
from qd.emitters import (
    EMITTERS,
    PAPER_VALUES,
    CmaMeGridEmitter,
    GridEmitter,
    IsoLineGridEmitter,
    PaperEmitter,
    initial_individuals,
    make_emitter,
    mutate_one,
    register_emitter,
    snap,
)
from qd.features import features_of


def get_feature(name):
    return features_of("tribes")[name]

VALUES = np.array(PAPER_VALUES)
DIM = 11


def make(kind="paper", **kw):
    arc = EliteArchive([get_feature("attacks"), get_feature("ranged_minus_melee")],
                       [f"w{i}" for i in range(DIM)], seed=3)
    params = {"batch_size": 5, "initial_random": 7, **kw}
    em = make_emitter(arc.grid, kind, seed=11, **params)
    return arc, em, Scheduler(arc.grid, [em])


def fake_tell(arc, sched, sols):
    """Measures and quality from the genome itself, so that cells fill."""
    measures = np.stack([sols[:, :5].sum(1) * 4, sols[:, 5:].sum(1) - 3], axis=1)
    objective = sols.mean(1)
    evs = len(sols)
    fields = {k: np.zeros(evs, dtype=arc.grid.dtypes[k]) for k in arc.grid.field_list
              if k not in ("solution", "objective", "measures", "threshold", "index")}
    sched.tell(objective, measures, **fields)


def test_initial_individuals():
    rng = np.random.default_rng(0)
    init = initial_individuals(DIM, VALUES, True, 40, rng)
    assert init.shape == (DIM + 40, DIM)
    assert (init[:DIM] == np.eye(DIM)).all()
    assert np.isin(init[DIM:], VALUES).all()
    again = initial_individuals(DIM, VALUES, True, 40, np.random.default_rng(0))
    assert (init == again).all()
    assert len(np.unique(init[DIM:], axis=0)) == 40


def test_mutation_changes_exactly_one_weight_to_another_grid_value():
    rng = np.random.default_rng(1)
    parent = rng.choice(VALUES, DIM)
    positions, new_values = set(), set()
    for _ in range(2000):
        child = mutate_one(parent, VALUES, rng)
        diff = np.flatnonzero(child != parent)
        assert len(diff) == 1
        i = diff[0]
        assert child[i] in VALUES and child[i] != parent[i]
        positions.add(i)
        new_values.add((parent[i], child[i]))
    assert positions == set(range(DIM))  # every position can mutate
    # every other grid value is reachable from each parent value
    for i in range(DIM):
        assert {b for a, b in new_values if a == parent[i]} == set(VALUES) - {parent[i]}


def test_paper_emitter_runs_algorithm_1():
    arc, em, sched = make()
    assert isinstance(em, PaperEmitter)
    seen = []
    while em.initial_left:
        sols = sched.ask()
        assert len(sols) <= 5
        seen.append(sols)
        fake_tell(arc, sched, sols)
    init = np.concatenate(seen)
    assert (init[:DIM] == np.eye(DIM)).all() and len(init) == DIM + 7
    assert [len(s) for s in seen] == [5, 5, 5, 3]  # a batch never mixes init and search
    for _ in range(5):
        elites = arc.grid.data("solution")
        sols = sched.ask()
        assert len(sols) == 5
        for child in sols:
            hamming = (elites != child).sum(1)
            assert hamming.min() == 1, "each child is one weight away from an elite"
        fake_tell(arc, sched, sols)


def test_budget_limit_cuts_the_last_batch():
    arc, em, sched = make()
    em.limit = 2
    assert len(sched.ask()) == 2


def test_same_seed_same_genomes():
    def run():
        arc, em, sched = make()
        out = []
        for _ in range(8):
            sols = sched.ask()
            out.append(sols.copy())
            fake_tell(arc, sched, sols)
        return np.concatenate(out)
    assert (run() == run()).all()


def test_snap():
    x = np.array([-1, 0.1, 0.13, 0.125, 0.6, 0.9, 2])
    assert snap(x, VALUES).tolist() == [0, 0, 0.25, 0, 0.5, 1.0, 1.0]


@pytest.mark.parametrize("kind", ["iso_line", "cma_me"])
def test_pyribs_emitters_stay_on_the_grid(kind):
    arc, em, sched = make(kind)
    for _ in range(12):
        sols = sched.ask()
        assert np.isin(sols, VALUES).all()
        if not em.initial_left and em._searching:
            elites = {tuple(g) for g in arc.grid.data("solution")}
            assert not any(tuple(s) in elites for s in sols)
            assert len({tuple(s) for s in sols}) == len(sols)
        fake_tell(arc, sched, sols)
    assert len(arc.grid) > 3


# ------------------------------------------------------------------------------ the registry

CONFIG = {"game": "tribes", "agent": {"name": "mcts", "budget": 10, "genome_mapping": "none"},
          "levels": {"train": "seeds:1,2"}, "options": {"max_rounds": 3}, "seed": 1}


class UniformEmitter(GridEmitter):
    """A test emitter: after the initial individuals, genomes drawn uniformly from the grid,
    each weight `repeat` times redrawn (one class, one registration, nothing else)."""

    kind = "test_uniform"
    params = (Field("repeat", count(1), 1),)

    def __init__(self, archive, *, repeat: int = 1, **common) -> None:
        super().__init__(archive, **common)
        self.repeat = repeat

    def _search(self, n):
        for _ in range(self.repeat):
            out = self.rng.choice(self.values, size=(n, self.solution_dim))
        return out


@pytest.fixture
def uniform_kind():
    register_emitter(UniformEmitter)
    yield UniformEmitter.kind
    EMITTERS.pop(UniformEmitter.kind)


def test_a_registered_emitter_is_a_config_kind(uniform_kind):
    c = config_from_dict({**CONFIG, "emitter": {"kind": uniform_kind, "repeat": 3,
                                                "batch_size": 4}})
    assert c.emitter == {"kind": uniform_kind, "batch_size": 4, "initial_random": 40,
                         "one_hot": True, "values": [0.0, 0.25, 0.5, 0.75, 1.0], "repeat": 3}
    assert config_from_dict(c.to_dict()).to_dict() == c.to_dict()
    with pytest.raises(ConfigError, match=r"^config: emitter\.repeat: must be >= 1, got 0"):
        config_from_dict({**CONFIG, "emitter": {"kind": uniform_kind, "repeat": 0}})
    with pytest.raises(ConfigError, match=r"^config: emitter\.sigma0: unknown key \(known: "
                                          r"kind, batch_size, initial_random, one_hot, "
                                          r"values, repeat\)"):
        config_from_dict({**CONFIG, "emitter": {"kind": uniform_kind, "sigma0": 1.0}})

    # the run builds it from the config like any other emitter
    from qd.evolution import new_state
    state = new_state(c)
    assert isinstance(state.emitter, UniformEmitter) and state.emitter.repeat == 3
    arc, sched = state.archive, state.scheduler
    while state.emitter.initial_left:
        fake_tell(arc, sched, sched.ask())
    sols = sched.ask()
    assert len(sols) == 4 and np.isin(sols, VALUES).all()


def test_unregistered_after_the_test():
    assert UniformEmitter.kind not in EMITTERS
    with pytest.raises(ConfigError, match=r"^config: emitter\.kind: unknown emitter kind "
                                          r"'test_uniform'; known: paper, iso_line, cma_me"):
        config_from_dict({**CONFIG, "emitter": {"kind": "test_uniform"}})


@pytest.mark.parametrize("emitter,key", [
    ({"batch_size": True}, "batch_size"),
    ({"initial_random": -1}, "initial_random"),
    ({"one_hot": "yes"}, "one_hot"),
    ({"values": [0.5]}, "values"),
    ({"values": [0, 0.5, 0.5]}, "values"),
    ({"values": [0, "x"]}, "values"),
    ({"kind": "iso_line", "iso_sigma": 0}, "iso_sigma"),
    ({"kind": "iso_line", "line_sigma": "wide"}, "line_sigma"),
    ({"kind": "iso_line", "ranker": "2imp"}, "ranker"),
    ({"kind": "cma_me", "sigma0": -0.1}, "sigma0"),
    ({"kind": "cma_me", "ranker": "best"}, "ranker"),
    ({"kind": "cma_me", "restart_rule": "never"}, "restart_rule"),
    ({"kind": "cma_me", "restart_rule": True}, "restart_rule"),
    ({"kind": "paper", "iso_sigma": 0.1}, "iso_sigma"),
])
def test_a_bad_emitter_parameter_is_named(emitter, key):
    with pytest.raises(ConfigError) as e:
        config_from_dict({**CONFIG, "emitter": emitter})
    assert str(e.value).startswith(f"config: emitter.{key}: "), str(e.value)


def test_resolved_emitter_configs_are_unchanged():
    """config.yaml's emitter section (keys, order, defaults) as run directories hold it."""
    common = {"batch_size": 8, "initial_random": 40, "one_hot": True,
              "values": [0.0, 0.25, 0.5, 0.75, 1.0]}
    want = {"paper": {"kind": "paper", **common},
            "iso_line": {"kind": "iso_line", **common, "iso_sigma": 0.15, "line_sigma": 0.2},
            "cma_me": {"kind": "cma_me", **common, "sigma0": 0.25, "ranker": "2imp",
                       "restart_rule": "no_improvement"}}
    for kind, resolved in want.items():
        got = config_from_dict({**CONFIG, "emitter": {"kind": kind}}).to_dict()["emitter"]
        assert list(got.items()) == list(resolved.items())
    assert config_from_dict({**CONFIG, "emitter": {"kind": "cma_me", "restart_rule": 5,
                                                   "values": [1, 0]}}).emitter["values"] \
        == [0.0, 1.0]


def test_each_pyribs_emitter_is_its_own_class():
    assert EMITTERS["iso_line"] is IsoLineGridEmitter and EMITTERS["cma_me"] is CmaMeGridEmitter
    _, em, _ = make("iso_line", iso_sigma=0.3)
    assert type(em) is IsoLineGridEmitter and em.inner.iso_sigma == 0.3
    _, em, _ = make("cma_me")
    assert type(em) is CmaMeGridEmitter and not em.exact_budget
    with pytest.raises(ValueError, match=r"emitter\.kind: unknown emitter kind 'nope'"):
        make("nope")


def test_registration_checks_the_class():
    class NoKind(GridEmitter):
        pass

    class Untaken(GridEmitter):
        kind = "test_untaken"
        params = (Field("spread", number(), 1.0),)

    class OtherDefault(GridEmitter):
        kind = "test_other_default"
        params = (Field("spread", number(), 1.0),)

        def __init__(self, archive, *, spread: float = 2.0, **common):
            super().__init__(archive, **common)

    class Undeclared(GridEmitter):
        kind = "test_undeclared"
        params = {"spread": 1.0}  # a default without its check

    for cls, msg in ((NoKind, "sets no kind"), (Untaken, "takes no parameter 'spread'"),
                     (OtherDefault, "defaults spread to 2.0, its params to 1.0"),
                     (Undeclared, "params is a tuple of base.schema.Field")):
        with pytest.raises(ValueError, match=msg):
            register_emitter(cls)
        assert cls.__dict__.get("kind") not in EMITTERS
