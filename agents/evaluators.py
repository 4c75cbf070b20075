"""State evaluators: how good a searched leaf is for a player, relative to the decision's root.

Search agents only ever call `evaluate(root_state, leaf_state, player)`, so a learned
evaluator can replace the hand-made heuristic without touching any agent. Evaluators are
registered per game name (this module imports no game): a game's plug-in registers its
heuristics and names its default; every game also has the neutral `outcome` evaluator, which
is the default of a game that registers none.

`outcome` knows nothing of the game: a finished game is worth its result (win, draw, loss),
an unfinished one is worth the same as a draw. Search agents therefore play random actions to
the end of the game (their horizon defaults to the game's `search_horizon`, None = to the end)
when a game brings no heuristic, so that leaves carry a result.

Every game also has `learned`: ``learned:PATH`` is a network trained on self-play
(`agents.learned`; ``learned`` alone, or ``learned:NAME``, a model the game's plug-in ships).
An evaluator registered with `argument=True` receives the text after ``name:`` in a spec.

An evaluator that weighs named quantities declares them as its *evaluation terms*
(`register_evaluator(..., terms={name: weight})`, e.g. Tribes' production, techs, score,
...). A spec may then reweight them: ``{"name": "diff", "terms": {"kills": 5}}`` (the name may
be left out: the game's default) multiplies each named term's weight by the number given, and
the factory is called with every term's weight (`factory(weights={...})`). The ``persona``
genome mapping (`qd.genome_games`) evolves these multipliers.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, Protocol, runtime_checkable

from agents.learned import learned_evaluator
from base.limits import short
from games.api import GameState
from games.registry import Registry


@runtime_checkable
class Evaluator(Protocol):
    """Higher is better for `player`. `root` is the state the decision is made in (never
    mutated by search), `leaf` the state reached by search from it."""

    def evaluate(self, root: GameState, leaf: GameState, player: int) -> float: ...


@contextmanager
def deciding(evaluator: Evaluator) -> Iterator[None]:
    """One decision of a search agent: an evaluator that has `start_decision()` and
    `end_decision()` is told when a decision begins and ends (always, also when the search
    raises), so that it may keep what it computed about a root for the decision's many
    leaves. Between the two calls a root passed to `evaluate` is never mutated (the search's
    contract); outside them an evaluator keeps nothing. Evaluators without the two methods
    are used as they are.

    Args:
        evaluator: the evaluator the decision's search calls.
    """
    start = getattr(evaluator, "start_decision", None)
    if start is None:
        yield
        return
    start()
    try:
        yield
    finally:
        evaluator.end_decision()


class TerminalAware:
    """Wraps an evaluator so that a finished game dominates every heuristic value: a won
    leaf is worth `+bound`, a lost one `-bound`, and every other value is clipped into
    `[-bound / 2, bound / 2]`, so a win ranks above any non-terminal state whatever the
    heuristic says. A finished game without a winner (a draw) keeps the heuristic value."""

    def __init__(self, inner: Evaluator, bound: float = 1e4) -> None:
        if bound <= 0:
            raise ValueError(f"bound: must be > 0, got {bound}")
        self.inner = inner
        self.bound = float(bound)

    def evaluate(self, root: GameState, leaf: GameState, player: int) -> float:
        if leaf.is_terminal():
            w = leaf.winner()
            if w is not None:
                return self.bound if w == player else -self.bound
        v = self.inner.evaluate(root, leaf, player)
        half = self.bound / 2
        return half if v > half else -half if v < -half else v

    def start_decision(self) -> None:
        start = getattr(self.inner, "start_decision", None)
        if start is not None:
            start()

    def end_decision(self) -> None:
        end = getattr(self.inner, "end_decision", None)
        if end is not None:
            end()

    def __repr__(self) -> str:
        return f"TerminalAware({self.inner!r}, bound={self.bound:g})"


class Outcome:
    """The neutral leaf value: 0 for every leaf that is not won or lost. Wrapped in
    `TerminalAware` (as registered evaluators are), a win is +bound, a loss -bound, and a
    draw or an unfinished game 0."""

    name = "outcome"

    def evaluate(self, root: GameState, leaf: GameState, player: int) -> float:
        return 0.0

    def __repr__(self) -> str:
        return "Outcome()"


EVALUATORS = Registry("evaluator")
"""Evaluators, per game: (factory, whether specs give it an argument, its evaluation terms),
and each game's default."""

MAX_MULTIPLIER = 1e6
"""The largest multiplier a spec may give a term."""


def register_evaluator(game: str, name: str, factory: Callable[..., Evaluator],
                       default: bool = False, argument: bool = False,
                       terms: Mapping[str, float] | None = None) -> None:
    """Register an evaluator `name` for `game`.

    Args:
        game: the game (`"*"`: every game; a family name: every game of the family).
        name: the name specs use (no ':').
        factory: `factory()` builds the evaluator; with `argument`, `factory(game, text)`,
            where `text` is what follows ``name:`` in a spec (None for the bare name), e.g.
            the model file of ``learned:PATH``; with `terms`, `factory(weights={term:
            weight})` builds it with other weights (`factory()` with its own).
        default: make it the game's evaluator when an agent names none.
        argument: whether specs may give the evaluator an argument after ``name:``.
        terms: the quantities the evaluator weighs, in order, with the weights it gives them
            (term names are identifiers; weights finite); specs and the ``persona`` genome
            mapping may then reweight them.
    """
    if ":" in name:
        raise ValueError(f"name: an evaluator name has no ':' ({name!r})")
    declared = None
    if terms is not None:
        if argument:
            raise ValueError(f"evaluator {name}: an evaluator with an argument declares no terms")
        declared = {}
        for term, w in dict(terms).items():
            if not (isinstance(term, str) and term.isidentifier()):
                raise ValueError(f"evaluator {name}: term {short(term)} is not an identifier")
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise ValueError(f"evaluator {name}: term {term}: a finite weight expected, "
                                 f"got {short(w)}")
            declared[term] = float(w)
        if not declared:
            raise ValueError(f"evaluator {name}: terms: at least one term, or None")
    EVALUATORS.add(name, (factory, argument, declared), game=game, default=default)


def evaluator_names(game: str) -> list[str]:
    """The evaluators `game` can use."""
    return EVALUATORS.names(game)


def default_evaluator(game: str) -> str:
    """The name of the evaluator agents use for `game` when they name none."""
    return EVALUATORS.default(game) or "outcome"


def _entry(game: str, name: str, spec: Any) -> tuple[Callable[..., Evaluator], bool,
                                                     dict[str, float] | None]:
    entry = EVALUATORS.find(name, game)
    if entry is None:
        raise ValueError("evaluator: " + EVALUATORS.unknown(
            spec[:200] if isinstance(spec, str) else name, f" for game {game!r}",
            evaluator_names(game)))
    return entry


def evaluation_terms(game: str, evaluator: str | Mapping[str, Any] | None = None
                     ) -> dict[str, float]:
    """The evaluation terms of an evaluator of `game` with their weights, in order (empty
    when it declares none).

    Args:
        game: the game name.
        evaluator: a registered name, a spec mapping (its ``name``), or None: the game's
            default evaluator.
    """
    if isinstance(evaluator, Mapping):
        evaluator = evaluator.get("name")
    if evaluator is None:
        evaluator = default_evaluator(game)
    if not isinstance(evaluator, str):
        return {}
    name = evaluator.partition(":")[0].strip()
    return dict(_entry(game, name, evaluator)[2] or {})


def term_weights(game: str, name: str, declared: Mapping[str, float],
                 multipliers: Any) -> dict[str, float]:
    """Every term's weight: its declared weight times the spec's multiplier (1 where the
    spec names none).

    Args:
        game: the game name (for errors).
        name: the evaluator's name (for errors).
        declared: the evaluator's terms and weights.
        multipliers: the spec's ``terms``: term -> a number in [0, MAX_MULTIPLIER].
    """
    if not isinstance(multipliers, Mapping):
        raise ValueError(f"evaluator.terms: a mapping of term to multiplier expected, got "
                         f"{short(multipliers)}")
    out = dict(declared)
    for term, m in multipliers.items():
        if term not in declared:
            raise ValueError(f"evaluator.terms.{short(term)}: evaluator {name} of {game} has no "
                             f"such term (its terms: {', '.join(declared)})")
        if isinstance(m, bool) or not isinstance(m, (int, float)) \
                or not 0 <= m <= MAX_MULTIPLIER:
            raise ValueError(f"evaluator.terms.{term}: a multiplier in [0, {MAX_MULTIPLIER:g}] "
                             f"expected, got {short(m)}")
        out[term] = declared[term] * float(m)
    return out


SPEC_KEYS = ("name", "terms")
"""The keys of an evaluator spec given as a mapping."""


def make_evaluator(game: str, spec: str | Mapping[str, Any] | Evaluator | None = None,
                   terminal: bool = True) -> Evaluator:
    """An evaluator for `game`.

    Args:
        game: the game name.
        spec: a registered name, ``name:ARGUMENT`` for an evaluator that takes one (e.g.
            ``learned:PATH``), a mapping ``{"name": NAME, "terms": {term: multiplier}}``
            (name optional: the game's default) for an evaluator with evaluation terms,
            None for the game's default, or an evaluator object (used exactly as given).
        terminal: wrap a named evaluator in `TerminalAware`.
    """
    multipliers = None
    if isinstance(spec, Mapping):
        unknown = [k for k in spec if k not in SPEC_KEYS]
        if unknown:
            raise ValueError(f"evaluator.{short(unknown[0])}: unknown key (known: "
                             f"{', '.join(SPEC_KEYS)})")
        multipliers = spec.get("terms")
        spec = spec.get("name")
        if spec is not None and not isinstance(spec, str):
            raise ValueError(f"evaluator.name: an evaluator name expected, got {short(spec)}")
    if spec is None:
        spec = default_evaluator(game)
    if not isinstance(spec, str):
        if not hasattr(spec, "evaluate"):
            raise ValueError(f"evaluator: {spec!r} has no evaluate(root, leaf, player) method")
        return spec
    name, sep, arg = spec.partition(":")
    name = name.strip()
    factory, takes_argument, terms = _entry(game, name, spec)
    if multipliers is not None:
        if not terms:
            raise ValueError(f"evaluator.terms: evaluator {name} of {game} declares no "
                             f"evaluation terms to reweight")
        if sep:
            raise ValueError(f"evaluator: {name!r} takes no argument, got {spec!r}")
        inner = factory(weights=term_weights(game, name, terms, multipliers))
    elif takes_argument:
        inner = factory(game, arg.strip() if sep else None)
    elif sep:
        raise ValueError(f"evaluator: {name!r} takes no argument, got {spec!r}")
    else:
        inner = factory()
    return TerminalAware(inner) if terminal else inner


def check_evaluator(game: str, spec: str | Mapping[str, Any] | Evaluator | None) -> None:
    """Raise the ValueError `make_evaluator` would raise for `spec` (an unknown name, a model
    file that is missing or made for another game, an unknown term), without keeping what it
    built.

    Args:
        game: the game name.
        spec: as for `make_evaluator`.
    """
    make_evaluator(game, spec)


register_evaluator("*", "outcome", Outcome)


def _learned(game: str, argument: str | None) -> Evaluator:
    return learned_evaluator(game=game, model=argument)


register_evaluator("*", "learned", _learned, argument=True)
