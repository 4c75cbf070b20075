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
and pyribs' internal ones, seeded at construction; a resumed run rebuilds them by telling
the emitter the checkpoint's batches again).

A new emitter is one class and one registration: subclass `GridEmitter` (or `RibsEmitter` to
wrap a pyribs emitter), set `kind` and `params` (its own parameters, each a `base.schema.Field`:
its name, check and default; the common ones are inherited), take them as keyword arguments,
check what ties two parameters together in `check`, write `_search`, and decorate the class
with `@register_emitter`. The config's `emitter.kind` then
names it, and `emitter.<param>` sets its parameters:

    @register_emitter
    class Uniform(GridEmitter):
        kind = "uniform"

        def _search(self, n):
            return self.rng.choice(self.values, size=(n, self.solution_dim))
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
from ribs.emitters import EmitterBase, EvolutionStrategyEmitter, IsoLineEmitter

from base.limits import MAX_EVALUATIONS, MAX_GAMES, short
from base.schema import (
    Field,
    check_bool,
    check_number,
    count,
    field_error,
    number,
    one_of,
    read_section,
)
from games.registry import Registry

PAPER_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)

EMITTERS = Registry("emitter kind")
"""Emitter kinds a config may name -> their classes, in registration order."""


# ------------------------------------------------------------------------------ Algorithm 1

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


# ------------------------------------------------------------------------------ checks

def weight_grid(value: Any, field: str) -> list[float]:
    """The weight grid (`values`): at least two distinct weights in [0, 1], sorted.

    Args:
        value: the value as given.
        field: its key path (`emitter.values`).
    """
    if not isinstance(value, list) or len(value) < 2:
        raise field_error(field, "a list of at least two weights expected")
    vals = [check_number(v, field) for v in value]
    if any(not 0.0 <= v <= 1.0 for v in vals) or len(set(vals)) != len(vals):
        raise field_error(field, f"distinct weights in [0, 1] expected, got {vals}")
    return sorted(vals)


# ------------------------------------------------------------------------------ registry

def register_emitter(cls: type["GridEmitter"]) -> type["GridEmitter"]:
    """Class decorator: make an emitter class a config `emitter.kind` (its `kind`).

    The class declares its own parameters in `params` (`base.schema.Field`s: name, check,
    default; the base classes' are inherited), takes every parameter as a keyword argument of
    its constructor (with the same default, if any) and checks what ties parameters together
    in `check`. A later registration of the same kind replaces the earlier one.

    Args:
        cls: a `GridEmitter` subclass with a `kind`.
    """
    if not (isinstance(cls, type) and issubclass(cls, GridEmitter)):
        raise TypeError(f"register_emitter: a GridEmitter subclass expected, got {short(cls)}")
    kind = cls.__dict__.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"register_emitter: {cls.__name__} sets no kind (a class attribute "
                         f"naming it in configs)")
    own = cls.__dict__.get("params", ())
    if not (isinstance(own, tuple) and all(isinstance(f, Field) for f in own)):
        raise ValueError(f"emitter {kind}: params is a tuple of base.schema.Field (name, "
                         f"check, default), got {short(own)}")
    defaults = cls.defaults()
    if "kind" in defaults or "seed" in defaults:
        raise ValueError(f"emitter {kind}: 'kind' and 'seed' are not parameters")
    sig = inspect.signature(cls.__init__)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    for key, value in defaults.items():
        p = sig.parameters.get(key)
        if p is None:
            if not takes_any:
                raise ValueError(f"emitter {kind}: {cls.__name__}() takes no parameter {short(key)}")
        elif p.default is not p.empty and not _same_default(p.default, value):
            raise ValueError(f"emitter {kind}: {cls.__name__}() defaults {key} to "
                             f"{short(p.default)}, its params to {short(value)}")
    EMITTERS.add(kind, cls)
    return cls


def _same_default(a: Any, b: Any) -> bool:
    """A keyword default equals a declared one (a tuple default stands for a list)."""
    if isinstance(a, tuple):
        a = list(a)
    if isinstance(b, tuple):
        b = list(b)
    return type(a) is type(b) and a == b


def emitter_class(kind: Any, where: str = "emitter") -> type["GridEmitter"]:
    """The class registered for `kind`.

    Args:
        kind: the config's `emitter.kind`.
        where: the emitter's place in the config (for the error).
    """
    if not isinstance(kind, str) or kind not in EMITTERS:
        raise field_error(f"{where}.kind", EMITTERS.unknown(kind, "", list(EMITTERS)))
    return EMITTERS[kind]


def emitter_params(kind: Any, given: Mapping[str, Any], where: str = "emitter"
                   ) -> dict[str, Any]:
    """Every parameter of an emitter kind, checked: the given ones over the defaults, in the
    order of the defaults. Errors (ValueError) name the parameter (`emitter.batch_size: ...`).

    Args:
        kind: the config's `emitter.kind`.
        given: the parameters the config sets (without `kind`).
        where: the emitter's place in the config.
    """
    cls = emitter_class(kind, where)
    params = read_section(given, (Field("kind"), *cls.fields()), where)
    params.pop("kind")
    return cls.check(params, where)


def make_emitter(archive, kind: str, seed: int | None = None, **params: Any) -> "GridEmitter":
    """An emitter of a registered kind, its parameters checked and completed by defaults.

    Args:
        archive: the pyribs archive it feeds.
        kind: the registered kind (`paper`, `iso_line`, `cma_me`, ...).
        seed: seed of its generators.
        **params: its parameters (defaults for the others).
    """
    p = emitter_params(kind, params)
    return EMITTERS[kind](archive, seed=seed, **p)


# ------------------------------------------------------------------------------ emitters

class GridEmitter(EmitterBase):
    """Initial individuals first, then `_search` batches; solutions always on the grid.

    `limit`, set by the run loop before `ask`, caps the batch at the evaluations left (the
    pyribs searches need whole batches and may ignore it; see `exact_budget`).

    Subclasses set `kind` (and register with `@register_emitter`), declare their own
    parameters in `params` (`base.schema.Field`s), check what ties them together in `check`
    and write `_search` (and
    `_search_tell` if the search learns from its results).

    Args:
        archive: the pyribs archive (its `solution_dim` is the genome's length).
        batch_size: genomes per batch.
        initial_random: random initial genomes (R_M), after the one-hot ones.
        one_hot: start with one genome per weight, that weight 1 and the others 0.
        values: the weight grid; every solution's weights are among them.
        seed: seed of the emitter's generator.
    """

    kind: ClassVar[str | None] = None
    """The name configs give the emitter (`emitter.kind`); None for a base class."""
    params: ClassVar[tuple[Field, ...]] = (
        Field("batch_size", count(1, MAX_GAMES), 8),
        Field("initial_random", count(0, MAX_EVALUATIONS), 40),
        Field("one_hot", check_bool, True), Field("values", weight_grid, list(PAPER_VALUES)))
    """This class's own parameters: name, check and default (a subclass lists only its
    own)."""
    exact_budget = True
    pipelined: ClassVar[bool] = True
    """Whether it may be asked for a batch before the previous ones are told (a run's
    `pipeline.lag` > 1): true when `_search_tell` can take the results of any earlier batch."""

    def __init__(self, archive, *, batch_size: int = 8, initial_random: int = 40,
                 one_hot: bool = True, values: Sequence[float] = PAPER_VALUES,
                 seed: int | None = None) -> None:
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

    # ---------------------------------------------------------------- parameters
    @classmethod
    def fields(cls) -> tuple[Field, ...]:
        """Every parameter: the base classes' first, then each subclass's (a subclass's
        field of the same name replaces the base's in its place)."""
        out: dict[str, Field] = {}
        for klass in reversed(cls.__mro__):
            out.update((f.name, f) for f in klass.__dict__.get("params", ()))
        return tuple(out.values())

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every parameter and its default: the base classes' first, then each subclass's."""
        return {f.name: copy.deepcopy(f.default) for f in cls.fields()}

    @classmethod
    def check(cls, params: dict[str, Any], where: str = "emitter") -> dict[str, Any]:
        """What ties parameters together, once each is read (`params`' checks): a subclass
        checks its own after `super().check`. A bad value raises ValueError naming
        `<where>.<key>` (`base.schema.field_error`).

        Args:
            params: every parameter of the emitter, each read (defaults filled in).
            where: the emitter's place in the config.
        """
        if not params["one_hot"] and params["initial_random"] == 0:
            raise field_error(f"{where}.initial_random", "must be >= 1 when one_hot is false "
                                                         "(the search needs initial elites)")
        return params

    # ---------------------------------------------------------------- ask / tell
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
        """`n` genomes (or a whole batch, if the search cannot cut it) once the initial
        individuals are evaluated."""
        raise NotImplementedError

    def _search_tell(self, solution, objective, measures, add_info, **fields) -> None:
        """The results of the genomes `_search` proposed."""

    def _elites(self) -> np.ndarray:
        """The elites' genomes in cell order (independent of insertion history)."""
        d = self.archive.data(["solution", "index"])
        return d["solution"][np.argsort(d["index"], kind="stable")]


@register_emitter
class PaperEmitter(GridEmitter):
    """Algorithm 1 of the paper: random elite, one weight changed to another grid value.

    Args:
        archive: the pyribs archive.
        batch_size: genomes per batch.
        initial_random: random initial genomes (R_M).
        one_hot: start with the one-hot genomes.
        values: the weight grid.
        seed: seed of the emitter's generator.
    """

    kind = "paper"

    def _search(self, n: int) -> np.ndarray:
        elites = self._elites()
        out = np.empty((n, self.solution_dim))
        for i in range(n):
            parent = elites[int(self.rng.integers(len(elites)))]
            out[i] = mutate_one(parent, self.values, self.rng)
        return out


class RibsEmitter(GridEmitter):
    """Base of the emitters that wrap a pyribs emitter (`self.inner`, built by the subclass
    with `_inner_args()`); its solutions are snapped to the value grid, and a snapped genome
    that is already an elite or in the batch gets one weight mutated.

    Args:
        archive: the pyribs archive.
        batch_size: genomes per batch (the pyribs emitter's batch size too).
        initial_random: random initial genomes (R_M).
        one_hot: start with the one-hot genomes.
        values: the weight grid.
        seed: seed of the emitter's generator; the pyribs emitter's is derived from it.
    """

    exact_budget = False

    def _inner_args(self, seed: int | None) -> dict[str, Any]:
        """The pyribs emitter's start (the grid's middle value), bounds (the grid's range),
        batch size and seed (derived from the emitter's)."""
        dim = self.solution_dim
        inner_seed = int(np.random.SeedSequence(seed).spawn(1)[0].generate_state(1)[0])
        return {"x0": np.full(dim, float(np.median(self.values))),
                "bounds": [(float(self.values[0]), float(self.values[-1]))] * dim,
                "batch_size": self.batch_size, "seed": inner_seed}

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


@register_emitter
class IsoLineGridEmitter(RibsEmitter):
    """pyribs' `IsoLineEmitter` (Iso+LineDD), snapped to the weight grid.

    Args:
        archive: the pyribs archive.
        iso_sigma: spread of the isotropic Gaussian around a random elite.
        line_sigma: spread along the line between two random elites.
        batch_size: genomes per batch.
        initial_random: random initial genomes (R_M).
        one_hot: start with the one-hot genomes.
        values: the weight grid.
        seed: seed of the emitter's generator; the pyribs emitter's is derived from it.
    """

    kind = "iso_line"
    params = (Field("iso_sigma", number(positive=True), 0.15),
              Field("line_sigma", number(positive=True), 0.2))

    def __init__(self, archive, *, iso_sigma: float = 0.15, line_sigma: float = 0.2,
                 batch_size: int = 8, initial_random: int = 40, one_hot: bool = True,
                 values: Sequence[float] = PAPER_VALUES, seed: int | None = None) -> None:
        super().__init__(archive, batch_size=batch_size, initial_random=initial_random,
                         one_hot=one_hot, values=values, seed=seed)
        self.inner = IsoLineEmitter(archive, iso_sigma=iso_sigma, line_sigma=line_sigma,
                                    **self._inner_args(seed))


CMA_RANKERS = ("2imp", "imp", "obj", "2obj", "rd", "2rd")
CMA_RESTART_RULES = ("no_improvement", "basic")


def check_restart_rule(value: Any, field: str) -> str | int:
    """CMA-ES's restart rule: `no_improvement`, `basic` or a number of iterations.

    Args:
        value: the value as given.
        field: its key path (`emitter.restart_rule`).
    """
    if value in CMA_RESTART_RULES or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise field_error(field, f"no_improvement, basic or a number of iterations expected, got "
                             f"{short(value)}")


@register_emitter
class CmaMeGridEmitter(RibsEmitter):
    """pyribs' `EvolutionStrategyEmitter` with CMA-ES (CMA-ME), snapped to the weight grid.

    Args:
        archive: the pyribs archive.
        sigma0: CMA-ES's initial step size.
        ranker: pyribs' ranker (`2imp`: two-stage improvement, CMA-ME's; `imp`, `obj`,
            `2obj`, `rd`, `2rd`).
        restart_rule: when CMA-ES restarts: `no_improvement`, `basic`, or after this many
            iterations.
        batch_size: genomes per batch.
        initial_random: random initial genomes (R_M).
        one_hot: start with the one-hot genomes.
        values: the weight grid.
        seed: seed of the emitter's generator; the pyribs emitter's is derived from it.
    """

    kind = "cma_me"
    params = (Field("sigma0", number(positive=True), 0.25),
              Field("ranker", one_of(CMA_RANKERS), "2imp"),
              Field("restart_rule", check_restart_rule, "no_improvement"))
    pipelined = False  # CMA-ES updates from the samples of its last ask

    def __init__(self, archive, *, sigma0: float = 0.25, ranker: str = "2imp",
                 restart_rule: str | int = "no_improvement", batch_size: int = 8,
                 initial_random: int = 40, one_hot: bool = True,
                 values: Sequence[float] = PAPER_VALUES, seed: int | None = None) -> None:
        super().__init__(archive, batch_size=batch_size, initial_random=initial_random,
                         one_hot=one_hot, values=values, seed=seed)
        self.inner = EvolutionStrategyEmitter(archive, sigma0=sigma0, ranker=ranker,
                                              es="cma_es", restart_rule=restart_rule,
                                              **self._inner_args(seed))
