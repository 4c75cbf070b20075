"""Weighted progressive unpruning: the schedule and the per-node state of P-MCTS PU.

A node with n children (one per action assignment) is searched over all of them until its
visit count N reaches T = floor(alpha_t * n); then only the k_init = max(1, floor(alpha_k * n))
children with the highest prior h = v * w stay selectable. After that, each time N passes the
next limit floor(A * base^k) (A = floor(T * a_mult), k = 1, 2, ... counting the prune and every
unprune since) the best pruned child by h becomes selectable again, at most one per visit.

These are the reference code's numbers and its exponent (the paper's text writes the schedule
with the constants swapped; see the reference notes, section 5.5): with the defaults
alpha_k 0.5, alpha_t 2, a_mult 1.5 (so A is about 3n) and base 1.3, n = 4 prunes to 2 children
at 8 visits and unprunes after 15, 20, 26, 34 visits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class Schedule:
    """The four constants of the schedule (paper and reference defaults)."""

    alpha_k: float = 0.5
    alpha_t: float = 2.0
    a_mult: float = 1.5
    base: float = 1.3

    def __post_init__(self) -> None:
        problems = []
        for name in ("alpha_k", "alpha_t", "a_mult", "base"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                problems.append(f"{name}: must be a finite number, got {v!r}")
        if not problems:
            if self.alpha_k <= 0:
                problems.append(f"alpha_k: must be > 0, got {self.alpha_k}")
            if self.alpha_t < 0:
                problems.append(f"alpha_t: must be >= 0, got {self.alpha_t}")
            if self.a_mult <= 0:
                problems.append(f"a_mult: must be > 0, got {self.a_mult}")
            if self.base < 1:
                problems.append(f"base: must be >= 1, got {self.base}")
        if problems:
            raise ValueError("; ".join(problems))

    def first(self, n: int) -> tuple[int, int, int]:
        """(T, k_init, A) for a node with n children."""
        t = math.floor(self.alpha_t * n)
        return t, max(1, math.floor(self.alpha_k * n)), math.floor(t * self.a_mult)

    def limit(self, a: int, k: int) -> int:
        """Visits a node must exceed for the unprune that follows step k (k = 1 after the prune)."""
        return math.floor(a * self.base ** k)

    def thresholds(self, n: int, unprunes: int) -> tuple[int, int, int, list[int]]:
        """(T, k_init, A, the first `unprunes` unprune limits) for n children."""
        t, k_init, a = self.first(n)
        return t, k_init, a, [self.limit(a, k) for k in range(1, unprunes + 1)]


class Pruner:
    """Which children of one node are selectable. `update(N)` is called at each selection
    with the node's visit count; it prunes once at T and unprunes one child per limit passed.
    Children are objects with the prior `h`; ties in h are broken at random."""

    __slots__ = ("schedule", "t", "k_init", "a", "k", "next_limit", "active", "pruned")

    def __init__(self, schedule: Schedule, n: int) -> None:
        self.schedule = schedule
        self.t, self.k_init, self.a = schedule.first(n)
        self.k = 0  # 0 before the prune; then 1 + the number of unprune steps taken
        self.next_limit = 0
        self.active: list | None = None  # None: nothing pruned yet, every child selectable
        self.pruned: list = []  # pruned children, the best last

    def update(self, visits: int, children: Sequence, rng: np.random.Generator) -> Sequence:
        """The selectable children after this visit's prune or unprune, if any is due."""
        if self.k == 0:
            if visits < self.t:
                return children
            order = rng.random(len(children))
            ranked = sorted(range(len(children)), key=lambda i: (children[i].h, order[i]))
            keep = len(children) - self.k_init
            self.pruned = [children[i] for i in ranked[:keep]] if keep > 0 else []
            self.active = [children[i] for i in ranked[max(keep, 0):]]
            self.k = 1
            self.next_limit = self.schedule.limit(self.a, 1)
        elif visits > self.next_limit:
            if self.pruned:
                self.active.append(self.pruned.pop())
            self.k += 1  # as the reference: counted even when nothing was left to unprune
            self.next_limit = self.schedule.limit(self.a, self.k)
        return self.active
