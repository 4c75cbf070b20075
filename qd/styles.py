"""Are the styles real? The statistics that decide it, on per-game values only.

A play-style is real when its games can be told apart from other styles' games: on games it
was not chosen on (held-out levels, fresh seeds), at least one mapped feature differs by more
than the games' noise. `distinct_styles` finds the largest set of mutually distinguishable
elites, every pair differing in at least one feature at family-wise 5% (Holm over all pairs
and features tested), with each style against a control; validation, the probe, the report and
export read what it computes. The tests themselves (`mean_interval`, `welch_p`, `holm`,
`detectable`) are the shared statistics of `play.stats`.

Samples are per-game values; NaN (a feature undefined in a game) is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from play.stats import ALPHA, detectable, finite_values, holm, welch_p


@dataclass
class Sample:
    """One agent's per-game values on the same games as the others (an elite or the control).

    Args:
        key: its name (an elite's cell, or "control").
        wins: its quality in each game: its share of first place, or in a one-player game
            (where that is always 1) its score.
        features: feature -> one value per game.
    """

    key: str
    wins: Sequence[float]
    features: Mapping[str, Sequence[float]]

    @property
    def win_rate(self) -> float:
        w = finite_values(self.wins)
        return float(w.mean()) if len(w) else math.nan


@dataclass
class Styles:
    """What `distinct_styles` found.

    Args:
        styles: the keys of the distinct styles, in the order chosen (strongest first).
        tested: the keys of every sample considered.
        pairs: one record per pair and feature tested: a, b, feature, p, differs.
        differs_from_control: style key -> whether some feature differs from the control
            (Holm over styles and features); empty without a control.
        weaker_than_control: style key -> whether its quality (win rate, or mean score in a
            one-player game) is below the control's (Welch, one-sided, at `alpha`,
            uncorrected: a lenient correction would hide weak styles).
        not_weaker: the styles that are not weaker than the control (all, without one).
        power: feature -> the smallest difference of two styles' means the pairwise test
            detects with 80% power at the games played (at Holm's strictest level), the
            pooled per-game standard deviation and that level; `<quality>_vs_control`: the
            same for the one-sided test of a style's quality against the control's.
        alpha: the family-wise error.
        games: games per sample (the smallest, when they differ).
        quality: what `Sample.wins` holds: "win_rate" or "score".
    """

    styles: list[str]
    tested: list[str]
    pairs: list[dict[str, Any]] = field(default_factory=list)
    differs_from_control: dict[str, bool] = field(default_factory=dict)
    weaker_than_control: dict[str, bool] = field(default_factory=dict)
    power: dict[str, dict[str, float]] = field(default_factory=dict)
    alpha: float = ALPHA
    games: int = 0
    quality: str = "win_rate"

    @property
    def count(self) -> int:
        return len(self.styles)

    @property
    def not_weaker(self) -> list[str]:
        return [k for k in self.styles if not self.weaker_than_control.get(k, False)]

    def summary(self) -> dict[str, Any]:
        """The JSON form (validation_summary.json's `styles` entry)."""
        return {"distinct_styles": self.count, "distinct_styles_not_weaker": len(self.not_weaker),
                "styles": list(self.styles), "tested": len(self.tested),
                "differs_from_control": dict(self.differs_from_control),
                "weaker_than_control": dict(self.weaker_than_control),
                "pairs_tested": len(self.pairs),
                "pairs_differing": sum(1 for r in self.pairs if r["differs"]),
                "alpha": self.alpha, "games": self.games, "power": self.power,
                "quality": self.quality}


EXACT_LIMIT = 60
"""Up to this many candidates the largest set is searched exactly; beyond, greedily."""

SEARCH_STEPS = 200_000
"""At most this many steps of the exact search; past them, the larger of the best set found
so far and the greedy one (deterministic: the same graph gives the same set)."""


def largest_set(keys: Sequence[str], differs, strength: Mapping[str, float]) -> list[str]:
    """The largest set of keys in which every pair differs (a maximum clique of the
    'differs' graph; Bron-Kerbosch with pivoting), the strongest such set when several are
    as large; strongest first. With more than `EXACT_LIMIT` keys (or past `SEARCH_STEPS`
    steps of the search), the greedy walk where it is not beaten: from the strongest down, a
    key joins when it differs from every key taken.

    Args:
        keys: the candidates, strongest first.
        differs: (a, b) -> whether a and b differ.
        strength: key -> win rate (ties between sets of equal size go to the larger sum).
    """
    greedy: list[str] = []
    for k in keys:
        if all(differs(k, c) for c in greedy):
            greedy.append(k)
    if len(keys) > EXACT_LIMIT:
        return greedy
    nbrs = {a: {b for b in keys if b != a and differs(a, b)} for a in keys}
    best: list[set[str]] = [set(greedy)]
    steps = [0]

    def better(r: set[str]) -> bool:
        if len(r) != len(best[0]):
            return len(r) > len(best[0])
        return sum(strength[k] for k in r) > sum(strength[k] for k in best[0]) + 1e-12

    def expand(r: set[str], p: set[str], x: set[str]) -> None:
        steps[0] += 1
        if steps[0] > SEARCH_STEPS:
            return
        if not p and not x:
            if better(r):
                best[0] = set(r)
            return
        if len(r) + len(p) < len(best[0]):
            return
        pivot = max(p | x, key=lambda u: len(nbrs[u] & p))
        for v in sorted(p - nbrs[pivot], key=keys.index):
            expand(r | {v}, p & nbrs[v], x & nbrs[v])
            p = p - {v}
            x = x | {v}

    expand(set(), set(keys), set())
    return [k for k in keys if k in best[0]]


def _pair_tests(samples: Sequence[Sample], features: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            for f in features:
                out.append({"a": samples[i].key, "b": samples[j].key, "feature": f,
                            "p": welch_p(samples[i].features[f], samples[j].features[f])})
    return out


def _pooled_sd(samples: Sequence[Sample], f: str | None) -> float:
    """The within-sample standard deviation pooled over samples (of a feature, or of the
    wins when f is None)."""
    num = den = 0.0
    for s in samples:
        v = finite_values(s.wins if f is None else s.features[f])
        if len(v) > 1:
            num += float(v.var(ddof=1)) * (len(v) - 1)
            den += len(v) - 1
    return math.sqrt(num / den) if den else math.nan


def distinct_styles(samples: Sequence[Sample], features: Sequence[str],
                    control: Sample | None = None, alpha: float = ALPHA,
                    quality: str = "win_rate") -> Styles:
    """The distinct styles among `samples`, strongest first.

    Every pair of samples is compared on every feature (Welch's t test); Holm's correction
    over all those tests keeps the family-wise error at `alpha`, so every difference declared
    holds together with all the others. The styles are the largest set in which every pair
    differs in at least one feature (`largest_set`: exact up to `EXACT_LIMIT` candidates, the
    strongest of the largest sets; greedily from the strongest beyond), strongest first.

    With a control (the default-weight genome on the same games), each style is also tested
    against it: whether a feature differs (Holm over styles and features) and whether its win
    rate is below the control's (one-sided Welch at `alpha`).

    Args:
        samples: the candidates (e.g. one per elite), each with per-game values.
        features: the features that tell styles apart (the run's mapped features).
        control: the control's per-game values on the same games, if played.
        alpha: the family-wise error.
        quality: what the samples' `wins` hold: "win_rate" (shares of first place) or
            "score" (a one-player game's scores).
    """
    order = sorted(range(len(samples)), key=lambda i: (-np.nan_to_num(samples[i].win_rate,
                                                                       nan=-1.0), i))
    pairs = _pair_tests(samples, features)
    rejected = holm([r["p"] for r in pairs], alpha)
    differ: set[tuple[str, str]] = set()
    for r, rej in zip(pairs, rejected):
        r["differs"] = bool(rej)
        if rej:
            differ.add((r["a"], r["b"]))
            differ.add((r["b"], r["a"]))
    keys = [samples[i].key for i in order]
    strength = {samples[i].key: np.nan_to_num(samples[i].win_rate, nan=0.0) for i in order}
    chosen = largest_set(keys, lambda a, b: (a, b) in differ, strength)
    games = min((len(finite_values(s.wins)) for s in samples), default=0)
    tests = max(1, len(pairs))
    power = {}
    for f in features:  # at the strictest level Holm uses, alpha / tests
        sd = _pooled_sd(samples, f)
        power[f] = {"sd": sd, "level": alpha / tests,
                    "detectable": detectable(sd, sd, games, games, alpha / tests)
                    if sd == sd else math.inf}
    out = Styles(styles=chosen, tested=[s.key for s in samples], pairs=pairs, alpha=alpha,
                 games=games, power=power, quality=quality)
    if control is not None:
        by_key = {s.key: s for s in samples}
        tests_c = [(k, f, welch_p(by_key[k].features[f], control.features[f]))
                   for k in chosen for f in features]
        rej = holm([p for _, _, p in tests_c], alpha)
        out.differs_from_control = {k: False for k in chosen}
        for (k, _, _), r in zip(tests_c, rej):
            if r:
                out.differs_from_control[k] = True
        out.weaker_than_control = {k: welch_p(by_key[k].wins, control.wins, "less") < alpha
                                   for k in chosen}
        sd = _pooled_sd([*samples, control], None)
        n_c = len(finite_values(control.wins))
        out.power[f"{quality}_vs_control"] = {
            "sd": sd, "level": alpha,
            "detectable": detectable(sd, sd, games, n_c, alpha, sides=1) if sd == sd
            else math.inf}
    return out
