"""The reference's difference heuristic for Tribes, without its visibility term.

Every player gets a weighted sum of how much its production, techs, score, cities, units,
kills and city levels changed between the decision's root and the leaf; the value for a player
is its own sum minus the mean of the others', plus the change in its cities connected to the
capital. The reference also adds the change in visible tiles; the port plays with full
observability, where that term only measures whose turn it is (see docs/agents.md).
"""

from __future__ import annotations

WEIGHTS = (5.0, 4.0, 0.1, 4.0, 2.0, 3.0, 2.0)
"""production, techs, score, cities, units, kills, sum of city levels."""
TERMS = ("production", "techs", "score", "cities", "units", "kills", "city_levels")
"""The evaluation terms (`agents.evaluators.register_evaluator`), in the order of WEIGHTS."""


def tribe_features(state, tid: int) -> tuple[float, ...]:
    """The quantities the heuristic compares, in the order of WEIGHTS."""
    t = state.tribes[tid]
    cities = state.cities
    production = 0
    levels = 0
    units = len(t.extra_units)
    for cid in t.cities:
        c = cities[cid]
        production += c.production()
        levels += c.level
        units += len(c.units)
    return (production, t.n_techs(), t.score, len(t.cities), units, t.kills, levels)


class TribesDiffHeuristic:
    """evaluate(root, leaf, p) = s_p - mean_{i != p} s_i + delta(connected cities of p),
    with s_i = sum_k WEIGHTS[k] * (feature_k(leaf, i) - feature_k(root, i)).

    Args:
        weights: term (`TERMS`) -> weight, every term given; None: `WEIGHTS`.
    """

    name = "diff"

    def __init__(self, weights=None) -> None:
        self.weights = WEIGHTS if weights is None else tuple(float(weights[t]) for t in TERMS)
        self._deciding = False
        self._root = None
        self._root_features: list[tuple[float, ...]] = []

    def start_decision(self) -> None:
        """A decision begins: its roots are not mutated until `end_decision`, so the features
        of the last root seen are kept for the next leaves (`agents.evaluators.deciding`)."""
        self._deciding = True
        self._root = None

    def end_decision(self) -> None:
        self._deciding = False
        self._root = None
        self._root_features = []

    def _features_of_root(self, root) -> list[tuple[float, ...]]:
        if root is self._root:
            return self._root_features
        feats = [tribe_features(root, tid) for tid in range(len(root.tribes))]
        if self._deciding:
            self._root, self._root_features = root, feats
        return feats

    def evaluate(self, root, leaf, player: int) -> float:
        n = len(leaf.tribes)
        own = 0.0
        others = 0.0
        root_features = self._features_of_root(root)
        weights = self.weights
        for tid in range(n):
            a = root_features[tid]
            b = tribe_features(leaf, tid)
            s = 0.0
            for k in range(len(weights)):
                s += weights[k] * (b[k] - a[k])
            if tid == player:
                own = s
            else:
                others += s
        value = own - (others / (n - 1) if n > 1 else 0.0)
        value += len(leaf.tribes[player].connected) - len(root.tribes[player].connected)
        return value

    def __repr__(self) -> str:
        if self.weights == WEIGHTS:
            return "TribesDiffHeuristic()"
        return f"TribesDiffHeuristic(weights={dict(zip(TERMS, self.weights))})"
