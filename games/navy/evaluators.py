"""The leaf evaluators of Navy Defense for the search agents.

* `CostEvaluator` (``cost``, the default): minus the cost incurred since the decision's root.
* `StyleEvaluator`: minus a weighted sum of cost terms incurred since the root: the moves,
  the damage to the Navy ship and to the cargo ships (each in the game's cost units), and
  two costs the game does not charge, which shape a style: a charge per step for the Navy
  ship's distance to the nearest live cargo ship (``guard``) and to the board's centre
  (``centre``). Every term only accrues, so the value is `monotone` whatever the weights.
  With the weights of `TRUE_WEIGHTS` it is `CostEvaluator`'s value.
"""

from __future__ import annotations

from typing import Mapping

from games.navy.state import COSTS

TERMS = ("move", "navy", "cargo", "guard", "centre")
"""The style's cost terms, in genome order."""
TRUE_WEIGHTS = {"move": 1.0, "navy": 1.0, "cargo": 1.0, "guard": 0.0, "centre": 0.0}
"""The weights under which a style's value is the game's cost."""
_NAVY_COST = {2: 0, 1: COSTS["navy_hit"], 0: COSTS["navy_hit"] + COSTS["navy_destroyed"]}
_MOVE = COSTS["move"]


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


def check_weights(weights: Mapping[str, float], key: str = "costs") -> dict[str, float]:
    """The weights of `TERMS` (missing ones at their `TRUE_WEIGHTS`), each a number >= 0.

    Args:
        weights: term -> weight.
        key: the parameter's name in errors.
    """
    if not isinstance(weights, Mapping):
        raise ValueError(f"{key}: a mapping of {', '.join(TERMS)} to weights expected, "
                         f"got {weights!r}")
    out = dict(TRUE_WEIGHTS)
    for term, w in weights.items():
        if term not in TERMS:
            raise ValueError(f"{key}.{term}: unknown cost term (known: {', '.join(TERMS)})")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not w >= 0 \
                or w == float("inf"):
            raise ValueError(f"{key}.{term}: a finite number >= 0 expected, got {w!r}")
        out[term] = float(w)
    return out


class StyleEvaluator:
    """Minus the weighted cost terms incurred since the root (module docstring).

    Args:
        move, navy, cargo: weights of the moves and of the damage to the Navy ship and to
            the cargo ships (1 = the game's cost).
        guard: charge per step and cell of distance to the nearest live cargo ship.
        centre: charge per step and cell of distance to the board's centre.
    """

    name = "style"
    monotone = True

    def __init__(self, move: float = 1.0, navy: float = 1.0, cargo: float = 1.0,
                 guard: float = 0.0, centre: float = 0.0) -> None:
        w = check_weights({"move": move, "navy": navy, "cargo": cargo, "guard": guard,
                           "centre": centre})
        self.weights = w
        self._w = tuple(w[t] for t in TERMS)

    def evaluate(self, root, leaf, player: int) -> float:
        wm, wn, wc, wg, wo = self._w
        moves = leaf.moves - root.moves
        # the damage since the root, each side in the game's cost units: the Navy ship's
        # from its health, the cargo ships' as the rest of the cost charged since the root
        navy = _NAVY_COST[leaf.navy_hp] - _NAVY_COST[root.navy_hp]
        cargo = leaf.cost - root.cost - _MOVE * moves - navy
        return -(wm * _MOVE * moves + wn * navy + wc * cargo + wg * (leaf.far - root.far)
                 + wo * (leaf.off - root.off))

    def __repr__(self) -> str:
        return "StyleEvaluator(" + ", ".join(f"{t}={w:g}" for t, w in self.weights.items()) + ")"


COST_TERMS = {"move": 1.0, "navy": 1.0, "cargo": 1.0}
"""The evaluation terms of ``cost`` (`agents.evaluators.register_evaluator`): the costs the
game charges, each at its weight in the game's cost."""


def cost_evaluator(weights=None):
    """The ``cost`` evaluator: `CostEvaluator`, or with other `weights` of `COST_TERMS` (every
    term given) the `StyleEvaluator` that weighs them so."""
    if weights is None:
        return CostEvaluator()
    return StyleEvaluator(**{t: weights[t] for t in COST_TERMS})
