"""Max^n for Tribolo: every player maximises its own score, with shallow pruning, deepened
iteratively under a forward-model budget.

A node's value is the vector of the three scores. A leaf is worth its scores after one more
cheap ply, as the original AI's score strategies look ahead: the player to move takes the
move that gains it most (score arithmetic only, no state built); a finished game is worth its
scores. At an inner node the player to move takes the child whose vector gives it the most;
among equals, the first in the node's move order.

Shallow pruning (Korf 1991) needs an upper bound on the sum of the components: in Tribolo
every move adds exactly one owned cell, so a leaf d moves below a state with n owned cells
sums to at most n + d (+1 for the cheap ply), and scores are never negative. At a node where
p has found b so far, a child where q moves is abandoned once q is sure of at least S - b
there: p would get at most S - (what q takes) <= b from it, never strictly more. Pruned and
unpruned searches therefore choose the same move with the same vector (tested), the pruned
one with fewer forward-model calls.

Iterative deepening: depth 0 (each root move's state judged by the cheap ply), then 1, 2, ...
until the budget runs out, the tree reaches the end of the game everywhere, or `max_depth`.
The move played is the choice of the deepest iteration that finished (of the unfinished one
when none finished, among the root moves it valued; a random move when it valued none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.search import DEFAULT_BUDGET, Budget, BudgetExhausted, check_budget, flag

INF = float("inf")


def leaf_value(state) -> tuple[int, int, int]:
    """The scores after the cheap ply: the mover's best own gain (ties: first move)."""
    s = state.score
    if state.is_terminal():
        return (s[0], s[1], s[2])
    p = state.current_player
    best = None
    for g in state.move_gains():
        if best is None or g[1 + p] > best[1 + p]:
            best = g
    return (s[0] + best[1], s[1] + best[2], s[2] + best[3])


class _Search:
    """One depth-limited max^n search; counts whether it stopped anywhere above the end."""

    def __init__(self, budget: Budget, prune: bool) -> None:
        self.budget = budget
        self.prune = prune
        self.cut_off = False  # a leaf above the end of the game was judged

    def value(self, state, depth: int, bound: float, parent: int) -> tuple[int, int, int]:
        """The max^n vector of `state`. Once its player to move is sure of `bound` or more
        the search stops: the parent's player (`parent`, another player) will not take this
        child. When the same player moves again (the others skipped) nothing is cut."""
        if state.is_terminal():
            return leaf_value(state)
        if depth == 0:
            self.cut_off = True
            return leaf_value(state)
        p = state.current_player
        if p == parent:
            bound = INF
        total = sum(state.score) + depth + 1  # every leaf below sums to at most this
        best = None
        for m in state.legal_actions():
            child = state.copy()
            self.budget.apply(child, m)
            v = self.value(child, depth - 1, total - best[p] if best is not None and self.prune
                           else INF, p)
            if best is None or v[p] > best[p]:
                best = v
                if best[p] >= bound:
                    break
        return best


class MaxnAgent:
    """Max^n with shallow pruning, deepened iteratively under a budget (module text)."""

    name = "tribolo_maxn"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, max_depth: int | None = None,
                 prune: bool = True) -> None:
        """Args:
            seed: seed of the root move order (hence of the choice among equal moves).
            budget: forward-model calls (states built) per decision.
            max_depth: deepest iteration (plies below the root moves); None: as deep as the
                budget allows.
            prune: shallow pruning (same choice, fewer calls).
        """
        self.check_params({"budget": budget, "max_depth": max_depth, "prune": prune})
        self.seed = seed
        self.budget = check_budget(budget)
        self.max_depth = max_depth
        self.prune = flag(prune, "prune")
        self.rng = np.random.default_rng(seed)
        self.last_budget: Budget | None = None
        self.last_depth = -1
        self.last_values: dict[Any, tuple[int, int, int]] = {}

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None = None) -> None:
        """One ValueError naming the first bad value.

        Args:
            p: the agent's parameters (budget, max_depth, prune).
            game: the game (unused: the agent plays Tribolo only).
        """
        check_budget(p.get("budget", DEFAULT_BUDGET))
        d = p.get("max_depth")
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 0):
            raise ValueError(f"max_depth: a whole number >= 0 or None expected, got {d!r}")
        flag(p.get("prune", True), "prune")

    def _root(self, state, moves, depth: int, search: _Search, values: dict) -> Any:
        p = state.current_player
        total = sum(state.score) + depth + 2
        best_move, best = None, None
        for m in moves:
            child = state.copy()
            search.budget.apply(child, m)
            bound = total - best[p] if best is not None and search.prune else INF
            v = search.value(child, depth, bound, p)
            values[m] = v
            if best is None or v[p] > best[p]:
                best_move, best = m, v
        return best_move

    def act(self, state, *, ms: float | None = None):
        b = Budget(self.budget, ms=ms)
        self.last_budget = b
        moves = list(state.legal_actions())
        moves = [moves[i] for i in self.rng.permutation(len(moves))]
        choice = None
        self.last_depth = -1
        depth = 0
        while self.max_depth is None or depth <= self.max_depth:
            search = _Search(b, self.prune)
            values: dict = {}
            try:
                move = self._root(state, moves, depth, search, values)
            except BudgetExhausted:
                if choice is None and values:
                    p = state.current_player
                    choice = max(values, key=lambda m: values[m][p])  # first best valued
                    self.last_values = values
                break
            choice, self.last_depth, self.last_values = move, depth, values
            if not search.cut_off:  # the whole tree reached the end of the game
                break
            depth += 1
        if choice is None:
            choice = moves[int(self.rng.integers(len(moves)))]
        return choice

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "max_depth": self.max_depth,
                "prune": self.prune}
