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
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Protocol, runtime_checkable

from agents.learned import learned_evaluator
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
"""Evaluators, per game: (factory, whether specs give it an argument), and each game's
default."""


def register_evaluator(game: str, name: str, factory: Callable[..., Evaluator],
                       default: bool = False, argument: bool = False) -> None:
    """Register an evaluator `name` for `game`.

    Args:
        game: the game (`"*"`: every game; a family name: every game of the family).
        name: the name specs use (no ':').
        factory: `factory()` builds the evaluator; with `argument`, `factory(game, text)`,
            where `text` is what follows ``name:`` in a spec (None for the bare name), e.g.
            the model file of ``learned:PATH``.
        default: make it the game's evaluator when an agent names none.
        argument: whether specs may give the evaluator an argument after ``name:``.
    """
    if ":" in name:
        raise ValueError(f"name: an evaluator name has no ':' ({name!r})")
    EVALUATORS.add(name, (factory, argument), game=game, default=default)


def evaluator_names(game: str) -> list[str]:
    """The evaluators `game` can use."""
    return EVALUATORS.names(game)


def default_evaluator(game: str) -> str:
    """The name of the evaluator agents use for `game` when they name none."""
    return EVALUATORS.default(game) or "outcome"


def make_evaluator(game: str, spec: str | Evaluator | None = None,
                   terminal: bool = True) -> Evaluator:
    """An evaluator for `game`.

    Args:
        game: the game name.
        spec: a registered name, ``name:ARGUMENT`` for an evaluator that takes one (e.g.
            ``learned:PATH``), None for the game's default, or an evaluator object (used
            exactly as given).
        terminal: wrap a named evaluator in `TerminalAware`.
    """
    if spec is None:
        spec = default_evaluator(game)
    if not isinstance(spec, str):
        if not hasattr(spec, "evaluate"):
            raise ValueError(f"evaluator: {spec!r} has no evaluate(root, leaf, player) method")
        return spec
    name, sep, arg = spec.partition(":")
    name = name.strip()
    entry = EVALUATORS.find(name, game)
    if entry is None:
        raise ValueError("evaluator: " + EVALUATORS.unknown(
            spec, f" for game {game!r}", evaluator_names(game)))
    factory, takes_argument = entry
    if takes_argument:
        inner = factory(game, arg.strip() if sep else None)
    elif sep:
        raise ValueError(f"evaluator: {name!r} takes no argument, got {spec!r}")
    else:
        inner = factory()
    return TerminalAware(inner) if terminal else inner


def check_evaluator(game: str, spec: str | Evaluator | None) -> None:
    """Raise the ValueError `make_evaluator` would raise for `spec` (an unknown name, a model
    file that is missing or made for another game), without keeping what it built.

    Args:
        game: the game name.
        spec: as for `make_evaluator`.
    """
    make_evaluator(game, spec)


register_evaluator("*", "outcome", Outcome)


def _learned(game: str, argument: str | None) -> Evaluator:
    return learned_evaluator(game=game, model=argument)


register_evaluator("*", "learned", _learned, argument=True)
