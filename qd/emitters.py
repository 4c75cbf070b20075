"""Emitters: where the genomes of each batch come from, all behind pyribs' ask/tell.

Every emitter starts with the paper's initial individuals (Algorithm 1, steps 1 and 2): one
genome per evolved weight with that weight at 1 and all others at 0, then `initial_random`
genomes whose weights are drawn from the value grid (default {0, 0.25, 0.5, 0.75, 1}). After
that the emitter's own search takes over:

* `paper`: Algorithm 1, step 3: pick a uniformly random elite, change one uniformly chosen
  weight to a different value of the grid (uniform among the other values).
* `iso_line`: pyribs' IsoLineEmitter (Iso+LineDD, Vassiliades & Mouret 2018);
* `cma_me`: pyribs' EvolutionStrategyEmitter with CMA-ES and improvement ranking (CMA-ME).

The pyribs emitters search the continuous cube; their solutions are clipped to [0, 1] and
snapped to the nearest grid value, and a snapped genome that is already an elite (or already
in the batch) gets the paper's one-weight mutation so that no evaluation is spent on a copy.

Every random choice comes from numpy Generators seeded from the run seed (the emitter's own,
and pyribs' internal ones, seeded at construction and pickled with the checkpoint).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from ribs.emitters import EmitterBase, EvolutionStrategyEmitter, IsoLineEmitter

PAPER_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)

KINDS = ("paper", "iso_line", "cma_me")
"""Emitter kinds a config may name."""

COMMON_PARAMS = {"batch_size": 8, "initial_random": 40, "one_hot": True,
                 "values": list(PAPER_VALUES)}
KIND_PARAMS: dict[str, dict[str, Any]] = {
    "paper": {},
    "iso_line": {"iso_sigma": 0.15, "line_sigma": 0.2},
    "cma_me": {"sigma0": 0.25, "ranker": "2imp", "restart_rule": "no_improvement"},
}
"""Default parameters: common to all kinds, and per kind."""


def snap(x: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Clip to the grid's range and move every coordinate to the nearest grid value (the
    lower one on an exact tie)."""
    x = np.clip(np.asarray(x, float), values[0], values[-1])
    idx = np.abs(x[..., None] - values).argmin(axis=-1)
    return values[idx]


def initial_individuals(dim: int, values: np.ndarray, one_hot: bool, n_random: int,
                        rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1, steps 1-2: the one-hot genomes, then `n_random` genomes from the grid."""
    rows = []
    if one_hot:
        rows.append(np.eye(dim))
    if n_random:
        rows.append(rng.choice(values, size=(n_random, dim)))
    if not rows:
        return np.empty((0, dim))
    return np.concatenate(rows, axis=0)


def mutate_one(genome: np.ndarray, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1, step 3: one uniformly chosen weight moves to another grid value."""
    child = np.array(genome, dtype=float)
    pos = int(rng.integers(child.size))
    current = int(np.abs(values - child[pos]).argmin())
    others = [i for i in range(values.size) if i != current]
    child[pos] = values[others[int(rng.integers(len(others)))]]
    return child


class GridEmitter(EmitterBase):
    """Initial individuals first, then `_search` batches; solutions always on the grid.

    `limit`, set by the run loop before `ask`, caps the batch at the evaluations left (the
    pyribs searches need whole batches and may ignore it; see `exact_budget`).
    """

    exact_budget = True

    def __init__(self, archive, *, batch_size: int, initial_random: int, one_hot: bool,
                 values: Sequence[float], seed: int) -> None:
        dim = archive.solution_dim
        super().__init__(archive, solution_dim=dim, bounds=None,
                         lower_bounds=np.zeros(dim), upper_bounds=np.ones(dim))
        self.values = np.array(sorted(float(v) for v in values))
        self.batch_size = int(batch_size)
        self.rng = np.random.default_rng(seed)
        self.queue = initial_individuals(dim, self.values, one_hot, int(initial_random),
                                         self.rng)
        self.pos = 0
        self.limit: int | None = None
        self.last_add_info: dict = {}
        self._searching = False

    @property
    def initial_left(self) -> int:
        return len(self.queue) - self.pos

    def ask(self) -> np.ndarray:
        n = self.batch_size if self.limit is None else max(0, min(self.batch_size, self.limit))
        if self.initial_left:
            # a batch never mixes initial individuals with search: the search needs their elites
            k = min(n, self.initial_left)
            out = self.queue[self.pos:self.pos + k].copy()
            self.pos += k
            self._searching = False
            return out
        if self.archive.empty:
            raise RuntimeError("emitter: the archive is empty after the initial individuals "
                               "(give one_hot or initial_random)")
        self._searching = True
        return self._search(n)

    def tell(self, solution, objective, measures, add_info, **fields) -> None:
        self.last_add_info = add_info  # the run reports new / improved / rejected from it
        if self._searching:
            self._search_tell(solution, objective, measures, add_info, **fields)

    # ---------------------------------------------------------------- subclass hooks
    def _search(self, n: int) -> np.ndarray:
        raise NotImplementedError

    def _search_tell(self, solution, objective, measures, add_info, **fields) -> None:
        pass

    def _elites(self) -> np.ndarray:
        """The elites' genomes in cell order (independent of insertion history)."""
        d = self.archive.data(["solution", "index"])
        return d["solution"][np.argsort(d["index"], kind="stable")]


class PaperEmitter(GridEmitter):
    """Algorithm 1 of the paper: random elite, one weight changed to another grid value."""

    def _search(self, n: int) -> np.ndarray:
        elites = self._elites()
        out = np.empty((n, self.solution_dim))
        for i in range(n):
            parent = elites[int(self.rng.integers(len(elites)))]
            out[i] = mutate_one(parent, self.values, self.rng)
        return out


class RibsEmitter(GridEmitter):
    """A pyribs emitter whose solutions are snapped to the value grid."""

    exact_budget = False

    def __init__(self, archive, *, kind: str, batch_size: int, initial_random: int,
                 one_hot: bool, values: Sequence[float], seed: int, **params: Any) -> None:
        super().__init__(archive, batch_size=batch_size, initial_random=initial_random,
                         one_hot=one_hot, values=values, seed=seed)
        dim = self.solution_dim
        inner_seed = int(np.random.SeedSequence(seed).spawn(1)[0].generate_state(1)[0])
        x0 = np.full(dim, float(np.median(self.values)))
        bounds = [(float(self.values[0]), float(self.values[-1]))] * dim
        if kind == "iso_line":
            self.inner = IsoLineEmitter(archive, iso_sigma=params["iso_sigma"],
                                        line_sigma=params["line_sigma"], x0=x0, bounds=bounds,
                                        batch_size=self.batch_size, seed=inner_seed)
        elif kind == "cma_me":
            self.inner = EvolutionStrategyEmitter(
                archive, x0=x0, sigma0=params["sigma0"], ranker=params["ranker"],
                es="cma_es", restart_rule=params["restart_rule"], bounds=bounds,
                batch_size=self.batch_size, seed=inner_seed)
        else:
            raise ValueError(f"emitter: unknown pyribs kind {kind!r}")
        self.kind = kind

    def _search(self, n: int) -> np.ndarray:
        out = snap(self.inner.ask(), self.values)
        seen = {tuple(g) for g in self._elites()}
        for i in range(len(out)):
            tries = 0
            while tuple(out[i]) in seen and tries < 100:
                out[i] = mutate_one(out[i], self.values, self.rng)
                tries += 1
            seen.add(tuple(out[i]))
        return out

    def _search_tell(self, solution, objective, measures, add_info, **fields) -> None:
        self.inner.tell(solution, objective, measures, add_info, **fields)


def make_emitter(archive, kind: str, seed: int, **params: Any) -> GridEmitter:
    """Build an emitter of `kind` with the (already validated) parameters."""
    p = {**COMMON_PARAMS, **KIND_PARAMS[kind], **params}
    common = {k: p.pop(k) for k in list(COMMON_PARAMS)}
    if kind == "paper":
        return PaperEmitter(archive, seed=seed, **common)
    return RibsEmitter(archive, kind=kind, seed=seed, **common, **p)
