"""State evaluators: how good a searched leaf is for a player, relative to the decision's root.

Search agents only ever call `evaluate(root_state, leaf_state, player)`, so a learned
evaluator can replace the hand-made heuristic without touching any agent. Evaluators are
registered per game name (this module imports no game): the Tribes difference heuristic lives
in `agents.tribes.evaluation`, and a second game's would sit beside it under its own name.
"""

from __future__ import annotations

import importlib
from typing import Callable, Protocol, runtime_checkable

from games.api import GameState


@runtime_checkable
class Evaluator(Protocol):
    """Higher is better for `player`. `root` is the state the decision is made in (never
    mutated by search), `leaf` the state reached by search from it."""

    def evaluate(self, root: GameState, leaf: GameState, player: int) -> float: ...


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

    def __repr__(self) -> str:
        return f"TerminalAware({self.inner!r}, bound={self.bound:g})"


_EVALUATORS: dict[tuple[str, str], Callable[[], Evaluator]] = {}


def register_evaluator(game: str, name: str, factory: Callable[[], Evaluator]) -> None:
    _EVALUATORS[(game, name)] = factory


def evaluator_names(game: str) -> list[str]:
    return sorted(n for g, n in _EVALUATORS if g == game)


def make_evaluator(game: str, spec: str | Evaluator = "diff", terminal: bool = True) -> Evaluator:
    """An evaluator for `game`: a registered name (wrapped in `TerminalAware` unless
    `terminal` is False) or an evaluator object, which is used exactly as given."""
    if not isinstance(spec, str):
        if not hasattr(spec, "evaluate"):
            raise ValueError(f"evaluator: {spec!r} has no evaluate(root, leaf, player) method")
        return spec
    key = (game, spec)
    if key not in _EVALUATORS:
        known = ", ".join(evaluator_names(game)) or "none"
        raise ValueError(f"evaluator: unknown evaluator {spec!r} for game {game!r}; known: {known}")
    inner = _EVALUATORS[key]()
    return TerminalAware(inner) if terminal else inner


def _lazy(module: str, attr: str) -> Callable[[], Evaluator]:
    def factory():
        return getattr(importlib.import_module(module), attr)()
    return factory


register_evaluator("tribes", "diff", _lazy("agents.tribes.evaluation", "TribesDiffHeuristic"))
