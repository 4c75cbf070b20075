"""The statistics every layer shares, on plain numbers: interval estimates, tests and ratings.

* `wilson_interval`: the Wilson 95% interval of a proportion (a win rate);
* `mean_interval`: a mean with its Student's t interval;
* `cluster_bootstrap`: a mean over items grouped in clusters (positions of games), with the
  percentile bootstrap interval that resamples whole clusters;
* `welch_p`: Welch's t test of two samples (unequal variances), two-sided or one-sided;
* `holm`: Holm's step-down correction, family-wise error at `alpha`;
* `ahead_p`, `games_to_show`: one-sided tests of one agent ahead of another, and the games
  they need;
* `detectable`: the smallest difference of two means a test finds with 80% power;
* `bradley_terry`: Bradley-Terry ratings of a round robin on the Elo scale, with intervals.

Samples are per-game values; NaN (a value undefined in a game) is dropped. This module needs
no game, agent or file: numpy and scipy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np
from scipy import stats

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a 95% two-sided interval is +-Z95 standard errors."""

ALPHA = 0.05
"""Family-wise error of the distinctness tests, and the level of the one-sided 'weaker' test."""

POWER = 0.8
"""The power at which `detectable` states the smallest difference found."""


def finite_values(values: Sequence[float]) -> np.ndarray:
    """The finite values of a sample, as an array (NaN: undefined in a game)."""
    v = np.asarray(values, dtype=float)
    return v[np.isfinite(v)]


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default); (0, 1) without data.
    Better than the normal interval for few games and rates near 0 or 1."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float, int]:
    """(mean, low, high, n) over the finite values: Student's t interval of the mean (NaN
    bounds with fewer than two values; a zero-width interval when every value is equal).

    Args:
        values: one value per game.
        level: the interval's coverage.
    """
    v = finite_values(values)
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(v.mean())
    if n < 2:
        return m, math.nan, math.nan, n
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * float(v.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half, n


BOOTSTRAP_RESAMPLES = 2000
"""Resamples of `cluster_bootstrap` by default."""

BOOTSTRAP_SEED = 0
"""The seed of `cluster_bootstrap` by default (the same data give the same interval)."""


class ClusterInterval(NamedTuple):
    """A mean over items with its cluster-bootstrap interval (`cluster_bootstrap`).

    Args:
        mean: the mean over all items.
        low: the lower end of the interval.
        high: the upper end.
        n: items (finite values).
        clusters: clusters holding them.
    """

    mean: float
    low: float
    high: float
    n: int
    clusters: int


def cluster_bootstrap(values: Sequence[float], clusters: Sequence[Any], level: float = 0.95,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
                      ) -> ClusterInterval:
    """The mean of `values` with a percentile bootstrap interval over clusters: each resample
    draws as many clusters as there are, with replacement, each with all its items, and takes
    the mean over the items drawn. Items of one cluster (the positions of one game) are often
    alike, so this interval is wider than one that treats every item as independent; with one
    item per cluster it is the ordinary bootstrap (about Wilson's interval for 0/1 values).

    Deterministic: the same data, `resamples` and `seed` give the same interval. NaN bounds
    with fewer than two clusters (nothing to resample); a percentile interval has no width
    when every value is equal (e.g. a share of 1).

    Args:
        values: one value per item (0/1 for a share); NaN items are dropped.
        clusters: the cluster of each item (any hashable labels, e.g. game indices).
        level: the interval's coverage.
        resamples: bootstrap resamples (at least 1).
        seed: the random generator's seed.
    """
    v = np.asarray(values, dtype=float)
    c = np.asarray(clusters)
    if v.shape != c.shape or v.ndim != 1:
        raise ValueError(f"cluster_bootstrap: values {v.shape} and clusters {c.shape} must be "
                         f"two sequences of one length")
    if resamples < 1:
        raise ValueError(f"cluster_bootstrap: resamples must be at least 1, got {resamples}")
    keep = np.isfinite(v)
    v, c = v[keep], c[keep]
    n = len(v)
    if n == 0:
        return ClusterInterval(math.nan, math.nan, math.nan, 0, 0)
    _, which = np.unique(c, return_inverse=True)
    sums = np.bincount(which, weights=v)
    sizes = np.bincount(which).astype(float)
    k = len(sums)
    mean = float(v.mean())
    if k < 2:
        return ClusterInterval(mean, math.nan, math.nan, n, k)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // k)  # bounded memory: chunk x k drawn indices at a time
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        drawn = rng.integers(0, k, size=(stop - start, k))
        means[start:stop] = sums[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return ClusterInterval(mean, float(lo), float(hi), n, k)


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
    x, y = finite_values(a), finite_values(b)
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


def ahead_p(score: float, games: int) -> float:
    """One-sided p-value that the first of two agents is the stronger: an exact binomial test
    of H0 "it scores at most half" on `games` games, its `score` (wins plus half the draws)
    rounded down, so a draw never counts for it; 1.0 without games.

    Args:
        score: what it scored against the other.
        games: games between them.
    """
    n = int(games)
    if n <= 0:
        return 1.0
    k = int(math.floor(score + 1e-9))
    return float(stats.binom.sf(k - 1, n, 0.5))


def games_to_show(rate: float, alpha: float, power: float = POWER) -> float:
    """Games a pair needs for a one-sided test at level `alpha` to show, with probability
    `power`, that the first is ahead when it scores `rate` (normal approximation); inf when
    `rate` is not above one half.

    Args:
        rate: the first agent's score rate against the other.
        alpha: the test's level (after a correction, the corrected level).
        power: the chance to show it.
    """
    if not rate > 0.5:
        return math.inf
    rate = min(rate, 1.0 - 1e-6)
    z = stats.norm.ppf(1 - alpha) * 0.5 + stats.norm.ppf(power) * math.sqrt(rate * (1 - rate))
    return float(math.ceil((z / (rate - 0.5)) ** 2))


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


ELO = 400.0 / math.log(10.0)
"""Elo points per unit of log-strength: a 400-point gap is 10:1 odds."""


@dataclass
class Ratings:
    """Bradley-Terry ratings on the Elo scale (mean 0), with 95% intervals.

    Args:
        labels: the agents.
        rating: each agent's rating.
        low: the lower end of its 95% interval.
        high: the upper end.
        games: games it played.
    """

    labels: list[str]
    rating: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray

    def separated(self, order: Sequence[str]) -> bool:
        """Whether the agents of `order` (weakest first) have rating intervals that do not
        overlap, each above the one before."""
        pos = {lab: k for k, lab in enumerate(self.labels)}
        idx = [pos[lab] for lab in order]
        return all(self.low[b] > self.high[a] for a, b in zip(idx, idx[1:]))

    def to_records(self) -> list[dict[str, Any]]:
        return [{"agent": lab, "rating": float(r), "ci_low": float(lo), "ci_high": float(hi),
                 "games": int(n)}
                for lab, r, lo, hi, n in zip(self.labels, self.rating, self.low, self.high,
                                             self.games)]


def bradley_terry(labels: Sequence[str], score: np.ndarray, games: np.ndarray,
                  prior_draws: float = 1.0, iterations: int = 10_000) -> Ratings:
    """Fit Bradley-Terry strengths to a round robin and give them as Elo-scale ratings.

    P(i beats j) = p_i / (p_i + p_j); fitted by Hunter's MM iterations to the scores (wins plus
    half the draws), with `prior_draws` virtual draws added to every pair that played (so an
    agent that won every game still gets a finite rating). Intervals: +-1.96 standard errors
    from the observed information of the log-strengths, under the constraint that ratings
    average 0.

    Args:
        labels: the agents.
        score: score[i, j], what i scored against j.
        games: games[i, j], games between i and j.
        prior_draws: virtual draws per pair that played.
        iterations: at most this many MM iterations (they stop at convergence).
    """
    n = len(labels)
    games = np.asarray(games, dtype=float)
    played = games > 0
    s = np.asarray(score, dtype=float) + np.where(played, prior_draws / 2, 0.0)
    g = games + np.where(played, prior_draws, 0.0)
    wins = s.sum(axis=1)
    p = np.ones(n)
    for _ in range(iterations):
        denom = (g / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1), p)
        new = np.maximum(new, 1e-12)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(p))) < 1e-10:
            p = new
            break
        p = new
    theta = np.log(p)
    w = g * np.outer(p, p) / (p[:, None] + p[None, :]) ** 2
    info = np.diag(w.sum(axis=1)) - w
    centre = np.eye(n) - np.ones((n, n)) / n
    cov = centre @ np.linalg.pinv(info) @ centre
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    rating = ELO * (theta - theta.mean())
    return Ratings(list(labels), rating, rating - Z95 * ELO * se, rating + Z95 * ELO * se,
                   games.sum(axis=1).astype(int))
