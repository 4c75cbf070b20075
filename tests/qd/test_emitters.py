"""Algorithm 1 (initial individuals, one-weight mutation) and the snapped pyribs emitters."""

from __future__ import annotations

import numpy as np
import pytest
from ribs.schedulers import Scheduler

from qd.archive import EliteArchive
from qd.emitters import (PAPER_VALUES, PaperEmitter, initial_individuals, make_emitter,
                         mutate_one, snap)
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
