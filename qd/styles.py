"""Are the styles real? The statistics that decide it, on per-game values only.

A play-style is real when its games can be told apart from other styles' games: on games it
was not chosen on (held-out levels, fresh seeds), at least one mapped feature differs by more
than the games' noise. This module holds the tests every view shares (validation, the probe,
the report and export read what they compute):

* `mean_interval`: a mean with its 95% t interval;
* `welch_p`: Welch's two-sided t test of two samples (unequal variances);
* `holm`: Holm's step-down correction, family-wise error at `alpha`;
* `distinct_styles`: the largest set of mutually distinguishable elites, every pair differing
  in at least one feature at family-wise 5% (Holm over all pairs and features tested), with
  each style against a control;
* `detectable`: the smallest difference of two means a test finds with 80% power at the
  games played (the test's power, stated in the feature's units).

Samples are per-game values; NaN (a feature undefined in a game) is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
from scipy import stats

ALPHA = 0.05
"""Family-wise error of the distinctness tests, and the level of the one-sided 'weaker' test."""

POWER = 0.8
"""The power at which `detectable` states the smallest difference found."""


def _clean(values: Sequence[float]) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    return v[np.isfinite(v)]


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float, int]:
    """(mean, low, high, n) over the finite values: Student's t interval of the mean (NaN
    bounds with fewer than two values; a zero-width interval when every value is equal).

    Args:
        values: one value per game.
        level: the interval's coverage.
    """
    v = _clean(values)
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(v.mean())
    if n < 2:
        return m, math.nan, math.nan, n
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * float(v.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half, n


def _flat(v: np.ndarray) -> bool:
    """No spread beyond rounding (scipy's t test loses its precision there)."""
    return float(np.ptp(v)) <= 1e-12 * (1.0 + float(np.abs(v).max()))


def welch_p(a: Sequence[float], b: Sequence[float], alternative: str = "two-sided") -> float:
    """Welch's t test of equal means: its p-value (1 when either sample has fewer than two
    values; with no spread in either sample, 1 for equal means and 0 otherwise).

    Args:
        a, b: per-game values.
        alternative: "two-sided", or "less" (mean of a below mean of b).
    """
    x, y = _clean(a), _clean(b)
    if len(x) < 2 or len(y) < 2:
        return 1.0
    vx = 0.0 if _flat(x) else float(x.var(ddof=1)) / len(x)
    vy = 0.0 if _flat(y) else float(y.var(ddof=1)) / len(y)
    d = float(x.mean() - y.mean())
    if vx + vy == 0.0:
        if d == 0.0 or (alternative == "less" and d > 0):
            return 1.0
        return 0.0
    t = d / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    if alternative == "less":
        return float(stats.t.cdf(t, df))
    return float(2 * stats.t.sf(abs(t), df))


def holm(pvalues: Sequence[float], alpha: float = ALPHA) -> np.ndarray:
    """Holm's step-down procedure: which hypotheses are rejected with family-wise error at
    most `alpha` (a boolean per p-value, in the given order).

    Args:
        pvalues: one p-value per test of the family.
        alpha: the family-wise error.
    """
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    out = np.zeros(m, dtype=bool)
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > alpha / (m - rank):
            break
        out[i] = True
    return out


def detectable(sd_a: float, sd_b: float, n_a: int, n_b: int, alpha: float,
               power: float = POWER, sides: int = 2) -> float:
    """The smallest difference of two means that a test at level `alpha` detects with
    probability `power`, for per-game standard deviations sd_a, sd_b over n_a, n_b games
    (normal approximation); inf without two games on each side.

    Args:
        sd_a, sd_b: the samples' standard deviations.
        n_a, n_b: their sizes.
        alpha: the test's level (per comparison: after a correction, the corrected level).
        power: the chance to detect a difference of the size returned.
        sides: 2 for a two-sided test, 1 for a one-sided one.
    """
    if n_a < 2 or n_b < 2:
        return math.inf
    z = stats.norm.ppf(1 - alpha / sides) + stats.norm.ppf(power)
    return float(z * math.sqrt(sd_a ** 2 / n_a + sd_b ** 2 / n_b))


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
        w = _clean(self.wins)
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
        v = _clean(s.wins if f is None else s.features[f])
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
    games = min((len(_clean(s.wins)) for s in samples), default=0)
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
        n_c = len(_clean(control.wins))
        out.power[f"{quality}_vs_control"] = {
            "sd": sd, "level": alpha,
            "detectable": detectable(sd, sd, games, n_c, alpha, sides=1) if sd == sd
            else math.inf}
    return out
