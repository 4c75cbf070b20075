"""Leaf evaluators of Tribolo for the generic search agents (MCTS, OSLA, ...)."""

from __future__ import annotations

TERMS = {"own": 1.0, "leader": 1.0}
"""The evaluation terms and their weights: the player's cells (``own``) and, subtracted, the
most cells of an opponent (``leader``)."""


class CellsHeuristic:
    """The player's cells minus the most cells of an opponent, from the player's side
    (positive: ahead of both; 0: level with the leader). Relative to nothing at the root:
    the board alone decides. With other `weights` (`TERMS`): own x cells - leader x the
    leading opponent's cells (a greedy player weighs its own cells, a spoiler the leader's).

    Args:
        weights: term -> weight, every term of `TERMS` given; None: `TERMS`' weights.
    """

    name = "cells"

    def __init__(self, weights=None) -> None:
        w = TERMS if weights is None else weights
        self.own, self.leader = float(w["own"]), float(w["leader"])

    def evaluate(self, root, leaf, player: int) -> float:
        s = leaf.score
        best = max(s[p] for p in range(3) if p != player)
        if self.own == 1.0 and self.leader == 1.0:
            return float(s[player] - best)
        return self.own * s[player] - self.leader * best

    def __repr__(self) -> str:
        if self.own == 1.0 and self.leader == 1.0:
            return "CellsHeuristic()"
        return f"CellsHeuristic(weights={{'own': {self.own}, 'leader': {self.leader}}})"
