"""What the tree searches (MCTS, Portfolio MCTS) share: node statistics, backup, UCB
selection with min/max-normalised values, the robust final choice and the budgeted loop.

Kept in one place so that every tree agent normalises, explores, minimises at opponent nodes
and breaks ties in exactly the same way; the agents differ only in what their edges are and
in which children selection may consider.

Two ways of backing values up. With the searcher's rewards (`backup`) every value is from the
searching player's view and a node where another player moves minimises it: in a game of
more than two players all opponents act as one adversary (the paranoid view). With one reward
per player (`backup_each`, after `each_player` on every node) a backup carries one value per
player and the player who moves at a node maximises its own (max^n-style). Selection
(`select_uct`) and the final choice (`most_visited`) serve both unchanged: a per-player node
keeps, of the per-player sums and ranges, the two that a decision reads, namely the sum of
the values of the player whose move leads to it (what its parent's mover compares) and the
range of the values of the player who moves at it (what normalises its children's means).
"""

from __future__ import annotations

import math
import math as libm  # compiled: the C library's functions (`tree.pxd`), the same values
from typing import Callable, Sequence

import numpy as np

from agents.draw import randbelow
from agents.search import Budget, BudgetExhausted
from games.api import GameState

TIE = 1e-12
"""Scores closer than this are ties (broken uniformly with the agent's generator)."""

FINAL_CHOICES = ("visits", "mean")
"""The answer of a tree search: the most visited root child (`most_visited`) or the one with
the best mean (`best_mean`)."""


class TreeNode:
    """A node that holds its own state (a search copy) and the statistics of the values
    backed up through it: visits `n`, their sum `total` and their range [`lo`, `hi`].
    `opponent` is true where a player other than the searcher moves.

    With one reward per player (`each_player`) `chooser` and `mover` say whose values go
    into `total` and into [`lo`, `hi`]; they are left unset otherwise."""

    __slots__ = ("state", "parent", "depth", "n", "total", "lo", "hi", "opponent",
                 "chooser", "mover")

    def __init__(self, state: GameState, parent: "TreeNode | None", depth: int, me: int) -> None:
        self.state = state
        self.parent = parent
        self.depth = depth
        self.n = 0
        self.total = 0.0
        self.lo = math.inf
        self.hi = -math.inf
        self.opponent = (not state.is_terminal()) and state.current_player != me


def backup(node: TreeNode | None, value: float) -> None:
    """Add one value (from the searcher's view) to the node and all its ancestors."""
    while node is not None:
        node.n += 1
        node.total += value
        if value < node.lo:
            node.lo = value
        if value > node.hi:
            node.hi = value
        node = node.parent


def each_player(node: TreeNode, chooser: int) -> TreeNode:
    """Make a new node keep per-player statistics (for `backup_each`): its `total` sums the
    values of `chooser`, the player whose move leads to it (the searcher at the root), and its
    range [`lo`, `hi`] is that of the values of the player who moves at it (`chooser` at a
    finished game, where nobody does). No node is an opponent's: everyone maximises its own
    value. Returns the node.

    Args:
        node: a node nothing has been backed up through yet.
        chooser: the player to move at the node's parent (the searcher at the root).
    """
    node.chooser = chooser
    st = node.state
    node.mover = chooser if st.is_terminal() else st.current_player
    node.opponent = False
    return node


def backup_each(node: TreeNode | None, values: Sequence[float]) -> None:
    """Add one value per player to the node and all its ancestors (nodes made by
    `each_player`): each node adds the value of its `chooser` to its sum and widens its range
    by the value of its `mover`.

    Args:
        node: the node the values were found at.
        values: one value per player, each from that player's view (higher is better).
    """
    while node is not None:
        node.n += 1
        node.total += values[node.chooser]
        v = values[node.mover]
        if v < node.lo:
            node.lo = v
        if v > node.hi:
            node.hi = v
        node = node.parent


def select_uct(node: TreeNode, children: Sequence[TreeNode], c: float,
               rng: np.random.Generator, bias: bool = False) -> TreeNode:
    """The child maximising  q + C·sqrt(ln N / n)  [+ h / (1 + n) with `bias`].

    q is the child's mean normalised by the parent's value range (0.5 when the range is
    empty) and replaced by 1 − q where an opponent moves, so an opponent minimises the
    searcher's value while exploration and progressive bias (the mover's own prior `h`, read
    from the child) still reward it. With per-player statistics (`each_player`) q is the
    child's mean of the mover's own values normalised by the mover's range at the parent,
    never flipped. Every child must have been visited."""
    lo = node.lo
    span = node.hi - lo
    spread = span > 0
    log_n = libm.log(node.n)
    flip = node.opponent
    above = below = -math.inf  # the best score so far + TIE and - TIE
    best: list[TreeNode] = []
    for ch in children:
        n = ch.n
        q = (ch.total / n - lo) / span if spread else 0.5
        if flip:
            q = 1.0 - q
        u = q + c * libm.sqrt(log_n / n)
        if bias:
            u += ch.h / (1 + n)
        if u > above:
            best = [ch]
            above, below = u + TIE, u - TIE
        elif u >= below:
            best.append(ch)
    return best[0] if len(best) == 1 else best[randbelow(rng, len(best))]


def most_visited(children: Sequence[TreeNode], rng: np.random.Generator) -> TreeNode:
    """The most visited child; ties by the better mean, then uniformly at random."""
    top = max(ch.n for ch in children)
    best = [ch for ch in children if ch.n == top]
    if len(best) > 1:
        top_q = max(ch.total / ch.n for ch in best)
        best = [ch for ch in best if ch.total / ch.n == top_q]
    return best[0] if len(best) == 1 else best[randbelow(rng, len(best))]


def best_mean(children: Sequence[TreeNode], rng: np.random.Generator) -> TreeNode:
    """The child with the best mean value; ties (within `TIE`) uniformly at random. Every
    child must have been visited."""
    top_q = max(ch.total / ch.n for ch in children)
    best = [ch for ch in children if ch.total / ch.n >= top_q - TIE]
    return best[randbelow(rng, len(best))]


def release(root: TreeNode) -> None:
    """Cut every child's link to its parent, so the tree holds no reference cycle and is freed
    by reference counting as soon as the last reference to its root goes (searches run with
    the cyclic collector paused, `agents.search.collector_paused`). The tree can still be
    walked from the root down; nodes must keep their children in `children`.

    Args:
        root: the root of a finished search tree.
    """
    stack = [root]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        node.parent = None
        extend(node.children)


def run_iterations(b: Budget, iterate: Callable[[], None],
                   stop: Callable[[], bool] | None = None) -> int:
    """Call `iterate` until the budget is spent (or `stop()` says the search is decided);
    returns the number of iterations. Stops early when iterations keep spending nothing (the
    tree is exhausted down to terminal states or the horizon), so a tiny game cannot loop
    forever."""
    iterations = free = 0
    while not b.exhausted() and not (stop is not None and stop()):
        spent = b.used
        try:
            iterate()
        except BudgetExhausted:
            break
        iterations += 1
        if b.used == spent:
            free += 1
            if free > max(100, b.total):
                break
    return iterations
