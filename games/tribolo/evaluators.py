"""Leaf evaluators of Tribolo for the generic search agents (MCTS, OSLA, ...)."""

from __future__ import annotations


class CellsHeuristic:
    """The player's cells minus the most cells of an opponent, from the player's side
    (positive: ahead of both; 0: level with the leader). Relative to nothing at the root:
    the board alone decides."""

    name = "cells"

    def evaluate(self, root, leaf, player: int) -> float:
        s = leaf.score
        return float(s[player] - max(s[p] for p in range(3) if p != player))

    def __repr__(self) -> str:
        return "CellsHeuristic()"
