"""What counts as a style: the statistics that decide it, on per-game values only.

A style is what a person would see: an elite whose games, on games it was not chosen on,
differ from every other counted style's by at least `delta` per-game standard deviations in
some mapped feature, that one game is often enough to recognise, and that plays within a
stated margin of the control (docs/styles.md defines every figure; `experiments/check_styles.py`
computes them again with code of its own).

Every genome plays the same games (common random numbers: game g of every sample is the same
level, seat and seeds), so every comparison is paired by game; games of one level form a
block, and the tests take the block, not the game, as their unit. `distinct_styles` counts
the styles (at `delta` 0, 0.5 and 1 and at the run's), finds the tied largest sets, the
duplicates, each style's non-inferiority to the control and the one-game identification
accuracy; validation, the report and export read what it computes.

Samples are per-game values; NaN (a feature undefined in a game) is dropped pairwise.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from scipy import stats

from base.stats import ALPHA, POWER, finite_values, holm

DELTAS = (0.0, 0.5, 1.0)
"""The minimum effects every count is given at (per-game standard deviations)."""

DELTA = 1.0
"""The default minimum effect: two styles differ when some feature differs by more than one
per-game standard deviation (`validate: {delta: ...}`)."""

MARGIN = 0.10
"""The default non-inferiority margin: 10 points of win rate, or in a one-player game 10% of
the control's mean score (`validate: {margin: ...}`)."""

EXACT_LIMIT = 60
"""Up to this many candidates the largest sets are enumerated exactly; beyond, greedily."""

SEARCH_STEPS = 200_000
"""At most this many steps of the enumeration; past them, the largest set found so far (or
the greedy one, if larger) and no tie count."""


def delta_key(delta: float) -> str:
    """How a minimum effect names its count in the summary ("0", "0.5", "1")."""
    return f"{delta:g}"


@dataclass
class Sample:
    """One genome's per-game values on the same games as every other sample.

    Args:
        key: its name (an elite's cell, "control", or a null genome's name).
        wins: its quality in each game: its share of first place, or in a one-player game
            (where that is always 1) its score.
        features: mapped feature -> one value per game (what tells styles apart).
        blocks: each game's block (its level): games of one block are not independent.
            Default: every game its own block.
        traces: a digest of each game as played; samples with equal traces in every game
            are duplicates.
        described: every feature the game registers -> one value per game, for one-game
            identification (default: `features`).
    """

    key: str
    wins: Sequence[float]
    features: Mapping[str, Sequence[float]]
    blocks: Sequence[Any] | None = None
    traces: Sequence[str] | None = None
    described: Mapping[str, Sequence[float]] | None = None

    @property
    def win_rate(self) -> float:
        w = finite_values(self.wins)
        return float(w.mean()) if len(w) else math.nan


# ------------------------------------------------------------------------------ the tests

def _block_means(d: np.ndarray, blocks: Sequence[Any] | None) -> np.ndarray:
    """The mean of the finite differences within each block (blocks in first-seen order)."""
    ok = np.isfinite(d)
    if blocks is None:
        return d[ok]
    b = np.asarray(blocks, dtype=object)[ok]
    d = d[ok]
    seen: dict[Any, list[float]] = {}
    for key, v in zip(b.tolist(), d.tolist()):
        seen.setdefault(key, []).append(v)
    return np.array([np.mean(v) for v in seen.values()], dtype=float)


@dataclass
class Paired:
    """A paired, blocked comparison: mean difference, its standard error and blocks."""

    mean: float
    se: float
    blocks: int
    sd_game: float  # the per-game standard deviation of the differences

    @staticmethod
    def of(a: Sequence[float], b: Sequence[float], blocks: Sequence[Any] | None) -> "Paired":
        d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
        means = _block_means(d, blocks)
        fin = d[np.isfinite(d)]
        sd_game = float(fin.std(ddof=1)) if len(fin) > 1 else math.nan
        if len(means) < 2:
            return Paired(float(means.mean()) if len(means) else math.nan, math.nan,
                          len(means), sd_game)
        return Paired(float(means.mean()), float(means.std(ddof=1) / math.sqrt(len(means))),
                      len(means), sd_game)

    def p_beyond(self, h: float) -> float:
        """p-value of a mean difference at least as far from 0 as this one when the true
        difference is exactly h (h = 0: the two-sided t test; h > 0: in effect one-sided
        against h)."""
        if self.blocks < 2 or not math.isfinite(self.mean):
            return 1.0
        m = abs(self.mean)
        if self.se == 0.0:
            return 0.0 if m > h else 1.0
        df = self.blocks - 1
        return float(min(1.0, stats.t.sf((m - h) / self.se, df) + stats.t.sf((m + h) / self.se,
                                                                              df)))


def pooled_sd(samples: Sequence[Sample], feature: str | None) -> float:
    """The within-sample standard deviation pooled over samples (of a feature, or of the
    quality when `feature` is None)."""
    num = den = 0.0
    for s in samples:
        v = finite_values(s.wins if feature is None else s.features[feature])
        if len(v) > 1:
            num += float(v.var(ddof=1)) * (len(v) - 1)
            den += len(v) - 1
    return math.sqrt(num / den) if den else math.nan


def duplicates(samples: Sequence[Sample]) -> list[list[str]]:
    """Groups (two or more) of samples whose games are identical: equal traces in every game."""
    groups: dict[tuple, list[str]] = {}
    for s in samples:
        if s.traces is None or not len(s.traces):
            continue
        groups.setdefault(tuple(str(t) for t in s.traces), []).append(s.key)
    return [g for g in groups.values() if len(g) > 1]


# ------------------------------------------------------------------------------ the largest sets

@dataclass
class Cliques:
    """The largest sets of mutually differing keys.

    Args:
        chosen: the set the tie-break picks, strongest first.
        ties: how many sets are as large (None where not enumerated: past `EXACT_LIMIT`
            keys or `SEARCH_STEPS` steps).
        share: key -> the share of the tied sets it belongs to.
    """

    chosen: list[str]
    ties: int | None
    share: dict[str, float]


def largest_sets(keys: Sequence[str], differs: Callable[[str, str], bool],
                 strength: Mapping[str, float]) -> Cliques:
    """Every largest set of keys in which each pair differs (maximum cliques of the 'differs'
    graph, enumerated with Bron-Kerbosch), and the one the tie-break picks: the highest summed
    strength; then the set whose keys come first in `keys` (lexicographically smallest
    ranks). More than `EXACT_LIMIT` keys: the greedy walk from the strongest down, no ties.

    Args:
        keys: the candidates, strongest first.
        differs: (a, b) -> whether a and b differ.
        strength: key -> its mean quality.
    """
    greedy: list[str] = []
    for k in keys:
        if all(differs(k, c) for c in greedy):
            greedy.append(k)
    if len(keys) > EXACT_LIMIT or not keys:
        return Cliques(greedy, None if keys else 0, {k: 1.0 for k in greedy})
    rank = {k: i for i, k in enumerate(keys)}
    nbrs = {a: {b for b in keys if b != a and differs(a, b)} for a in keys}
    found: list[frozenset[str]] = []
    size = [len(greedy)]
    steps = [0]

    def expand(r: frozenset[str], p: set[str], x: set[str]) -> None:
        steps[0] += 1
        if steps[0] > SEARCH_STEPS or len(r) + len(p) < size[0]:
            return
        if not p and not x:
            if len(r) > size[0]:
                size[0] = len(r)
                found.clear()
            found.append(r)
            return
        pivot = max(p | x, key=lambda u: len(nbrs[u] & p))
        for v in sorted(p - nbrs[pivot], key=rank.__getitem__):
            expand(r | {v}, p & nbrs[v], x & nbrs[v])
            p = p - {v}
            x = x | {v}

    expand(frozenset(), set(keys), set())
    complete = steps[0] <= SEARCH_STEPS
    sets = [s for s in found if len(s) == size[0]] or [frozenset(greedy)]
    best = min(sets, key=lambda s: (-round(sum(strength[k] for k in s), 12),
                                    sorted(rank[k] for k in s)))
    share = {k: sum(k in s for s in sets) / len(sets) for k in keys}
    return Cliques(sorted(best, key=rank.__getitem__), len(sets) if complete else None,
                   {k: v for k, v in share.items() if v > 0})


def largest_set(keys: Sequence[str], differs: Callable[[str, str], bool],
                strength: Mapping[str, float]) -> list[str]:
    """The largest set `largest_sets` picks, strongest first."""
    return largest_sets(keys, differs, strength).chosen


# ------------------------------------------------------------------------------ identification

def identification(samples: Sequence[Sample]) -> dict[str, Any] | None:
    """How often one game's features name the sample that played it: linear discriminant
    analysis (shrunk covariance) on every described feature, standardised, cross-validated
    leaving one block (level) out; None with fewer than two samples or two blocks.

    Returns:
        accuracy, chance (1 / samples), per_style accuracy, the features and the games used.
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.preprocessing import StandardScaler

    if len(samples) < 2:
        return None
    names = sorted(set.intersection(*(set(s.described if s.described is not None
                                          else s.features) for s in samples)))
    rows, labels, groups = [], [], []
    for k, s in enumerate(samples):
        feats = s.described if s.described is not None else s.features
        n = len(s.wins)
        rows.append(np.column_stack([np.asarray(feats[f], dtype=float) for f in names])
                    if names else np.zeros((n, 0)))
        labels += [k] * n
        groups += list(s.blocks) if s.blocks is not None else list(range(n))
    x = np.vstack(rows)
    y = np.asarray(labels)
    g = np.asarray(groups, dtype=object)
    levels = list(dict.fromkeys(g.tolist()))
    if len(levels) < 2 or x.shape[1] == 0:
        return None
    pred = np.full(len(y), -1)
    for level in levels:
        test = g == level
        train = ~test
        xt = np.where(np.isfinite(x[train]), x[train], np.nan)
        with warnings.catch_warnings():  # a feature undefined in every training game
            warnings.simplefilter("ignore", RuntimeWarning)
            mean, spread = np.nanmean(xt, axis=0), np.nanstd(xt, axis=0)
        keep = [j for j in range(x.shape[1]) if np.isfinite(mean[j]) and spread[j] > 0]
        if not keep or len(set(y[train].tolist())) < 2:
            continue
        fill = mean[keep]
        xa = np.where(np.isfinite(x[:, keep]), x[:, keep], fill)
        scaler = StandardScaler().fit(xa[train])
        lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
        lda.fit(scaler.transform(xa[train]), y[train])
        pred[test] = lda.predict(scaler.transform(xa[test]))
    right = pred == y
    return {"accuracy": float(right.mean()), "chance": 1.0 / len(samples),
            "per_style": {s.key: float(right[y == k].mean()) for k, s in enumerate(samples)},
            "features": names, "games": int(len(y))}


# ------------------------------------------------------------------------------ the count

@dataclass
class Styles:
    """What `distinct_styles` found.

    Args:
        styles: the keys of the styles at the run's `delta`, in the order chosen (strongest
            first).
        tested: the keys of every sample considered.
        delta: the run's minimum effect (per-game standard deviations).
        counts: delta (as `delta_key`) -> the number of styles at that minimum effect.
        by_delta: delta -> the styles chosen at it.
        sd: feature -> its per-game standard deviation (pooled over every sample given).
        pairs: one record per pair and feature at the run's delta: a, b, feature,
            difference (in sd), p, differs.
        ties: how many largest sets tie at the run's delta (None: not enumerated).
        share: key -> the share of the tied sets it belongs to.
        duplicates: groups of samples that played identical games.
        differs_from_control: style -> whether some feature differs from the control by
            more than delta (Holm over styles and features); empty without a control.
        non_inferiority: style -> difference, lower (its one-sided 95% bound), margin
            (absolute), non_inferior, power, games_needed; empty without a control.
        identification: one-game identification among the styles (`identification`).
        margin: the non-inferiority margin as given (win-rate points, or a fraction of the
            control's mean score in a one-player game).
        alpha: the family-wise error.
        games: games per sample (the smallest, when they differ).
        quality: what `Sample.wins` holds: "win_rate" or "score".
    """

    styles: list[str]
    tested: list[str]
    delta: float = DELTA
    counts: dict[str, int] = field(default_factory=dict)
    by_delta: dict[str, list[str]] = field(default_factory=dict)
    sd: dict[str, float] = field(default_factory=dict)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    ties: int | None = None
    share: dict[str, float] = field(default_factory=dict)
    duplicates: list[list[str]] = field(default_factory=list)
    differs_from_control: dict[str, bool] = field(default_factory=dict)
    non_inferiority: dict[str, dict[str, Any]] = field(default_factory=dict)
    identification: dict[str, Any] | None = None
    margin: float = MARGIN
    alpha: float = ALPHA
    games: int = 0
    quality: str = "win_rate"

    @property
    def count(self) -> int:
        return len(self.styles)

    def not_told_apart(self, key: str) -> list[str]:
        """The styles (in style order) that `key`, a sample not among them, differs from in
        no feature at the run's delta: why it is not a style of its own."""
        differs = {(r["a"], r["b"]) for r in self.pairs if r["differs"]}
        return [k for k in self.styles if k != key
                and (key, k) not in differs and (k, key) not in differs]

    @property
    def non_inferior(self) -> list[str]:
        """The styles shown non-inferior to the control (none without one)."""
        return [k for k in self.styles if self.non_inferiority.get(k, {}).get("non_inferior")]

    def summary(self) -> dict[str, Any]:
        """The JSON form (validation_summary.json's `styles` entry)."""
        return {"delta": self.delta, "margin": self.margin, "alpha": self.alpha,
                "quality": self.quality, "games": self.games, "sd": dict(self.sd),
                "counts": dict(self.counts), "styles": list(self.styles),
                "styles_by_delta": {k: list(v) for k, v in self.by_delta.items()},
                "tested": len(self.tested), "pairs_tested": len(self.pairs),
                "pairs_differing": sum(1 for r in self.pairs if r["differs"]),
                "duplicates": [list(g) for g in self.duplicates],
                "ties": {"count": self.ties, "share": dict(self.share)},
                "differs_from_control": dict(self.differs_from_control),
                "non_inferiority": {k: dict(v) for k, v in self.non_inferiority.items()},
                "identification": self.identification}


def _pair_tests(samples: Sequence[Sample], features: Sequence[str], sd: Mapping[str, float],
                delta: float) -> list[dict[str, Any]]:
    out = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            a, b = samples[i], samples[j]
            for f in features:
                pr = Paired.of(a.features[f], b.features[f], a.blocks)
                s = sd[f]
                out.append({"a": a.key, "b": b.key, "feature": f,
                            "difference": pr.mean / s if s and s == s else math.nan,
                            "p": pr.p_beyond(delta * s if s == s else 0.0)})
    return out


def _count(samples: Sequence[Sample], features: Sequence[str], sd: Mapping[str, float],
           delta: float, alpha: float) -> tuple[list[dict[str, Any]], Cliques]:
    order = sorted(range(len(samples)),
                   key=lambda i: (-np.nan_to_num(samples[i].win_rate, nan=-1.0), i))
    pairs = _pair_tests(samples, features, sd, delta)
    differ: set[tuple[str, str]] = set()
    for r, rej in zip(pairs, holm([r["p"] for r in pairs], alpha)):
        r["differs"] = bool(rej)
        if rej:
            differ.update({(r["a"], r["b"]), (r["b"], r["a"])})
    keys = [samples[i].key for i in order]
    strength = {s.key: float(np.nan_to_num(s.win_rate, nan=0.0)) for s in samples}
    return pairs, largest_sets(keys, lambda a, b: (a, b) in differ, strength)


def non_inferiority(sample: Sample, control: Sample, margin: float,
                    alpha: float = ALPHA) -> dict[str, Any]:
    """Whether a style plays within `margin` (absolute) of the control: the one-sided lower
    bound of the paired, blocked mean difference in quality, the power to show it if the two
    are truly equal and the games per genome that give `POWER` power."""
    pr = Paired.of(sample.wins, control.wins, sample.blocks)
    if pr.blocks < 2 or not math.isfinite(pr.se):
        return {"difference": pr.mean, "lower": math.nan, "margin": margin,
                "non_inferior": False, "power": math.nan, "games_needed": None}
    crit = float(stats.t.ppf(1 - alpha, pr.blocks - 1))
    lower = pr.mean - crit * pr.se
    power = 1.0 if pr.se == 0 else float(1 - stats.t.cdf(crit - margin / pr.se, pr.blocks - 1))
    z = stats.norm.ppf(1 - alpha) + stats.norm.ppf(POWER)
    need = (int(math.ceil((z * pr.sd_game / margin) ** 2))
            if margin > 0 and math.isfinite(pr.sd_game) else None)
    return {"difference": pr.mean, "lower": lower, "margin": margin,
            "non_inferior": bool(lower > -margin), "power": power, "games_needed": need}


def distinct_styles(samples: Sequence[Sample], features: Sequence[str],
                    control: Sample | None = None, delta: float = DELTA,
                    margin: float = MARGIN, alpha: float = ALPHA, quality: str = "win_rate",
                    sd: Mapping[str, float] | None = None) -> Styles:
    """The styles among `samples` (docs/styles.md), strongest first.

    Every pair of samples is compared on every feature, paired by game and blocked by level:
    the test asks whether the mean difference exceeds `delta` per-game standard deviations;
    Holm's correction over all those tests keeps the family-wise error at `alpha`. The styles
    are the largest set in which every pair differs in at least one feature (`largest_sets`),
    counted at each of `DELTAS` and at `delta`. With a control, each style is tested against
    it (a feature differs by more than delta, Holm over styles and features) and for
    non-inferiority in quality at `margin`; the styles' games give the one-game
    identification accuracy.

    Args:
        samples: the candidates (e.g. one per elite), each with per-game values on the same
            games as the others.
        features: the features that tell styles apart (the run's mapped features).
        control: the control's per-game values on the same games, if played.
        delta: the minimum effect, in per-game standard deviations.
        margin: the non-inferiority margin: points of win rate, or in a one-player game
            (quality "score") a fraction of the control's mean score.
        alpha: the family-wise error (and the one-sided level of non-inferiority).
        quality: what the samples' `wins` hold: "win_rate" or "score".
        sd: feature -> per-game standard deviation (default: pooled over the samples and the
            control), so that two counts can share one yardstick.
    """
    every = [*samples, *([control] if control is not None else [])]
    sd = dict(sd) if sd is not None else {f: pooled_sd(every, f) for f in features}
    out = Styles(styles=[], tested=[s.key for s in samples], delta=delta, sd=sd, margin=margin,
                 alpha=alpha, quality=quality,
                 games=min((len(finite_values(s.wins)) for s in samples), default=0),
                 duplicates=duplicates(samples))
    for d in dict.fromkeys((*DELTAS, delta)):
        pairs, cliques = _count(samples, features, sd, d, alpha)
        out.counts[delta_key(d)] = len(cliques.chosen)
        out.by_delta[delta_key(d)] = cliques.chosen
        if d == delta:
            out.styles, out.pairs, out.ties, out.share = (cliques.chosen, pairs, cliques.ties,
                                                          cliques.share)
    by_key = {s.key: s for s in samples}
    chosen = [by_key[k] for k in out.styles]
    out.identification = identification(chosen)
    if control is None:
        return out
    tests = [(s.key, Paired.of(s.features[f], control.features[f], s.blocks).p_beyond(
        delta * sd[f] if sd[f] == sd[f] else 0.0)) for s in chosen for f in features]
    out.differs_from_control = {k: False for k in out.styles}
    for (k, _), rej in zip(tests, holm([p for _, p in tests], alpha)):
        out.differs_from_control[k] |= bool(rej)
    absolute = margin * abs(control.win_rate) if quality == "score" else margin
    out.non_inferiority = {s.key: non_inferiority(s, control, absolute, alpha) for s in chosen}
    return out
