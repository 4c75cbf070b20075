"""The leaf evaluator of Navy Defense for the search agents."""

from __future__ import annotations


class CostEvaluator:
    """Minus the cost incurred since the decision's root (higher is better). Costs only
    accrue, so a leaf is never worth more than its ancestors (`monotone`): planners may cut a
    branch as soon as its cost so far reaches the best complete one (branch-and-bound)."""

    name = "cost"
    monotone = True

    def evaluate(self, root, leaf, player: int) -> float:
        return float(root.cost - leaf.cost)

    def __repr__(self) -> str:
        return "CostEvaluator()"
