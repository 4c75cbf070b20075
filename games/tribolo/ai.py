"""The original Tribolo AI: strategies chosen by situation, searched with fixed-depth minimax.

A *strategy* (the original's AIStrategy protocol) says two things of a state: whether the
player to move there maximises or minimises (`maximizing`), and what a leaf is worth
(`evaluate`). Three players and irregular turns (skips) need nothing else: every node reads
its side from the state's player to move.

* own score (for player A): the leaf is A's score after one more cheap ply (the mover's
  best or worst move for A, by score arithmetic only, no state built); A maximises, both
  others minimise (paranoid);
* allied scores (against player T, the original's "human", blue): the leaf is the sum of
  the two others' scores after the cheap ply; those two maximise, T minimises;
* own choices (anti-trap, for A): the leaf is the number of legal moves A has, whoever is
  to move; A maximises, both others minimise.

At the root the strategy is selected once, in the original's order: allied scores when both
others are below 1.1 times T's score; own score when fewer than 20 of the 176 cells are not
owned (176 counts walls, as the original); own choices when A has fewer than 5 moves; else
own score. A game-over state inside the tree is worth the plain score sum of the strategy's
players (the original leaves this undefined), or 0 moves for own choices.

Search: plain minimax to `depth` plies below the root moves (the original: depth 1, so with
the cheap ply a horizon of 3 plies), or with `search="paranoid"` the same tree with
alpha-beta pruning, which returns the same best value with fewer forward-model calls. Every
state built in the tree is one forward-model call on the decision's `Budget`, as for every
search agent; the cheap score ply builds no state and costs none.

Iterative deepening (`iterative=True`): the same search at depth 1, 2, 3, ... (the strategy
selected once) until the budget runs out, the tree reaches the end of the game everywhere,
or `depth` (the deepest iteration; None: no limit). The move played is the choice of the
deepest finished iteration. Each iteration searches first the root moves that were best in
the previous one (which tightens alpha-beta's root window sooner); an unfinished iteration
is discarded, unless none finished: then its finished root moves count, as in a fixed-depth
search cut short by the budget.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.search import Budget, BudgetExhausted, check_budget, flag
from games.tribolo.board import PLAYER_NAMES

ALLY_RATIO = 1.1
LATE_FREE_CELLS = 20
BOARD_CELLS = 176
FEW_MOVES = 5

STRATEGY_NAMES = ("ally_ai_scores", "own_score_late", "own_choices", "own_score")
"""In the order the selection tries them (the vectors' names)."""

SEARCHES = ("minimax", "paranoid")


class ScoreStrategy:
    """The leaf is the sum of `players`' scores one cheap ply later; players in `maximizers`
    maximise, the others minimise."""

    def __init__(self, name: str, players: tuple[int, ...], maximizers: frozenset[int]) -> None:
        self.name = name
        self.players = players
        self.maximizers = maximizers

    def maximizing(self, state) -> bool:
        return state.current_player in self.maximizers

    def evaluate(self, state) -> float:
        players = self.players
        base = sum(state.score[p] for p in players)
        if state.is_terminal():
            return base
        values = [base + sum(g[1 + p] for p in players) for g in state.move_gains()]
        return max(values) if state.current_player in self.maximizers else min(values)


class ChoicesStrategy:
    """The leaf is the number of legal moves of `player`; it maximises, the others minimise."""

    def __init__(self, player: int) -> None:
        self.name = "own_choices"
        self.player = player

    def maximizing(self, state) -> bool:
        return state.current_player == self.player

    def evaluate(self, state) -> float:
        return state.legal_count(self.player)


def own_score(player: int, name: str = "own_score") -> ScoreStrategy:
    return ScoreStrategy(name, (player,), frozenset((player,)))


def allied_scores(against: int) -> ScoreStrategy:
    others = tuple(p for p in range(3) if p != against)
    return ScoreStrategy("ally_ai_scores", others, frozenset(others))


def select_strategy(state, against: int | None = 0):
    """The strategy of the player to move, in the original's order (see the module text).

    Args:
        state: a state with a player to move.
        against: the player the allied strategy plays against (0 blue, the original's
            human); None never allies.
    """
    s = state.score
    me = state.current_player
    if against is not None:
        t = s[against]
        others = [s[p] for p in range(3) if p != against]
        if all(v < ALLY_RATIO * t for v in others):
            return allied_scores(against)
    if BOARD_CELLS - sum(s) < LATE_FREE_CELLS:
        return own_score(me, "own_score_late")
    if state.legal_count(me) < FEW_MOVES:
        return ChoicesStrategy(me)
    return own_score(me)


class Reach:
    """What a depth-limited search saw of the game's end: `cut_off` is set once a leaf above
    the end (an unfinished game at depth 0) was judged, so a deeper search could differ."""

    __slots__ = ("cut_off",)

    def __init__(self) -> None:
        self.cut_off = False


def _is_leaf(state, depth: int, reach: Reach | None) -> bool:
    """Whether `state` is a leaf of the search (recorded in `reach` when it is one above the
    end of the game)."""
    if state.is_terminal():
        return True
    if depth == 0:
        if reach is not None:
            reach.cut_off = True
        return True
    return False


def minimax(strategy, state, depth: int, budget: Budget, reach: Reach | None = None) -> float:
    """The original's recursion: the leaf value at depth 0 or at the end, else the max (or
    min, as the strategy says for the player to move) over every legal move.

    Args:
        strategy: says who maximises and what a leaf is worth.
        state: the node (never changed: children are copies).
        depth: plies still to expand.
        budget: every child built is one forward-model call on it.
        reach: told when a leaf above the end of the game is judged (None: nobody asks).
    """
    if _is_leaf(state, depth, reach):
        return strategy.evaluate(state)
    values = []
    for m in state.legal_actions():
        child = state.copy()
        budget.apply(child, m)
        values.append(minimax(strategy, child, depth - 1, budget, reach))
    return max(values) if strategy.maximizing(state) else min(values)


def _ordered(state) -> list:
    """Moves by the mover's immediate gain, largest first (free: no state is built)."""
    gains = state.move_gains()
    p = state.current_player
    gains.sort(key=lambda g: -g[1 + p])
    return [g[0] for g in gains]


def alphabeta(strategy, state, depth: int, alpha: float, beta: float, budget: Budget,
              reach: Reach | None = None) -> float:
    """Minimax with alpha-beta pruning over nodes that are MAX or MIN as the strategy says
    (no alternation needed): the exact minimax value when it lies strictly inside
    (alpha, beta), else a bound on the same side.

    Args:
        strategy, state, depth, budget, reach: as for `minimax`.
        alpha, beta: the window: values at or below alpha, or at or above beta, need not
            be exact.
    """
    if _is_leaf(state, depth, reach):
        return strategy.evaluate(state)
    maxing = strategy.maximizing(state)
    value = -math.inf if maxing else math.inf
    for m in _ordered(state):
        child = state.copy()
        budget.apply(child, m)
        v = alphabeta(strategy, child, depth - 1, alpha, beta, budget, reach)
        if maxing:
            if v > value:
                value = v
            if value > alpha:
                alpha = value
        else:
            if v < value:
                value = v
            if value < beta:
                beta = value
        if alpha >= beta:
            break
    return value


class TriboloAI:
    """The original AI as an agent: strategy selection at the root, then fixed-depth search
    (or iterative deepening, module text).

    With a budget too small for the whole tree, the root moves are searched in order ((x, y)
    for minimax, the mover's immediate gain for paranoid) until it runs out; a root move
    whose tree was not finished is not counted, and with none finished a random move is
    played.
    """

    name = "tribolo_ai"

    def __init__(self, seed: int = 0, budget: int | None = None, depth: int | None = None,
                 against: str = "blue", search: str = "minimax", iterative: bool = False) -> None:
        """Args:
            seed: seed of the generator that breaks ties between equally valued moves.
            budget: forward-model calls (states built) per decision; None: no limit, the
                original's fixed-depth search (typically 10-1000 calls).
            depth: plies searched below each root move before the leaf evaluation; None: 1
                (the original). With `iterative`, the deepest iteration; None: no limit (as
                deep as the budget allows).
            against: the player the allied strategy is played against: blue (the original's
                human), red, green, or none (never ally).
            search: minimax (the original, every root move valued exactly) or paranoid
                (alpha-beta on the same tree: the same best value, fewer calls).
            iterative: iterative deepening under the budget (depth 1, 2, ...; the move of the
                deepest finished iteration) instead of one search at a fixed depth.
        """
        self.check_params({"budget": budget, "depth": depth, "against": against,
                           "search": search, "iterative": iterative})
        self.seed = seed
        self.budget = None if budget is None else check_budget(budget)
        self.depth = depth
        self.iterative = flag(iterative, "iterative")
        self.against = against
        self.search = search
        self._against = None if against == "none" else PLAYER_NAMES.index(against)
        self.rng = np.random.default_rng(seed)
        self.last_budget: Budget | None = None
        self.last_strategy: str | None = None
        self.last_values: dict[Any, float] = {}
        self.last_depth = -1
        self._maximizing = True

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None = None) -> None:
        """One ValueError naming the first bad value, before anything is built (configs
        are checked with it before any game runs).

        Args:
            p: the agent's parameters (budget, depth, against, search, iterative).
            game: the game (unused: the agent plays Tribolo only).
        """
        if p.get("budget") is not None:
            check_budget(p["budget"])
        depth = p.get("depth")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)
                                  or depth < 0):
            raise ValueError(f"depth: a whole number >= 0 or None expected, got {depth!r}")
        if flag(p.get("iterative", False), "iterative") and depth is None \
                and p.get("budget") is None:
            raise ValueError("depth: iterative deepening without a budget needs the deepest "
                             "depth (give a budget or a depth)")
        names = PLAYER_NAMES + ("none",)
        if p.get("against", "blue") not in names:
            raise ValueError(f"against: one of {', '.join(names)} expected, got {p['against']!r}")
        if p.get("search", "minimax") not in SEARCHES:
            raise ValueError(f"search: one of {', '.join(SEARCHES)} expected, got {p['search']!r}")

    def analyse(self, state, *, ms: float | None = None) -> tuple[str, dict[Any, float]]:
        """The strategy selected in `state` and the value of every root move searched (with
        `search="paranoid"`, values of moves worse than the best are upper bounds, or lower
        bounds at a minimising root); with `iterative`, those of the deepest finished
        iteration. `last_depth` is then the depth searched (-1: the search was cut short
        by the budget before it finished any depth).

        Args:
            state: a state with a player to move (not changed).
            ms: the most milliseconds the search may take (None: no time limit).
        """
        b = Budget(self.budget if self.budget is not None else 1 << 62, ms=ms)
        self.last_budget = b
        strategy = select_strategy(state, self._against)
        self.last_strategy = strategy.name
        maxing = strategy.maximizing(state)
        moves = state.legal_actions() if self.search == "minimax" else _ordered(state)
        if self.iterative:
            values, depth = self._deepen(strategy, state, moves, maxing, b)
        else:
            depth = 1 if self.depth is None else self.depth
            values, finished = self._search(strategy, state, moves, maxing, depth, b)
            depth = depth if finished else -1
        self.last_values = values
        self.last_depth = depth
        self._maximizing = maxing
        return strategy.name, values

    def _search(self, strategy, state, moves: list, maxing: bool, depth: int, b: Budget,
                reach: Reach | None = None) -> tuple[dict[Any, float], bool]:
        """The root moves' values at one depth, in the order of `moves`, and whether every
        root move was finished before the budget ran out."""
        values: dict[Any, float] = {}
        best = -math.inf if maxing else math.inf
        for m in moves:
            try:
                child = state.copy()
                b.apply(child, m)
                if self.search == "minimax":
                    v = minimax(strategy, child, depth, b, reach)
                else:  # ties with the best so far stay exact: values are whole numbers
                    lo, hi = (best - 0.5, math.inf) if maxing else (-math.inf, best + 0.5)
                    v = alphabeta(strategy, child, depth, lo, hi, b, reach)
            except BudgetExhausted:
                return values, False
            values[m] = v
            best = max(best, v) if maxing else min(best, v)
        return values, True

    def _deepen(self, strategy, state, moves: list, maxing: bool,
                b: Budget) -> tuple[dict[Any, float], int]:
        """Iterative deepening (module text): the values of the deepest finished iteration
        and its depth (the first iteration's partial values and -1 when none finished)."""
        limit = self.depth
        depth = 0 if limit == 0 else 1
        done: dict[Any, float] | None = None
        done_depth = -1
        while True:
            reach = Reach()
            values, finished = self._search(strategy, state, moves, maxing, depth, b, reach)
            if not finished:
                return (values if done is None else done), done_depth
            done, done_depth = values, depth
            if not reach.cut_off or (limit is not None and depth >= limit):
                return done, done_depth
            best = max(values.values()) if maxing else min(values.values())
            moves = [m for m in moves if values[m] == best] + \
                [m for m in moves if values[m] != best]
            depth += 1

    def act(self, state, *, ms: float | None = None):
        acts = state.legal_actions()
        _, values = self.analyse(state, ms=ms)
        if not values:
            return acts[int(self.rng.integers(len(acts)))]
        best = max(values.values()) if self._maximizing else min(values.values())
        top = sorted(m for m, v in values.items() if v == best)  # (x, y) order: same set,
        # same choice, whatever order the search visited the moves in
        return top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "depth": self.depth,
                "against": self.against, "search": self.search, "iterative": self.iterative}
