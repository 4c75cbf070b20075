"""Check the style statistics of committed validations with code of their own.

An independent re-implementation of docs/styles.md: for each results folder (a copy of a run
directory's validation_games.csv and validation_summary.json), every figure of the summary's
`styles` entry is computed again from validation_games.csv alone (the summary gives only the
run's delta, margin, alpha, quality and the names of the mapped and identification features)
and compared with what validation_summary.json says. Nothing of `qd` or `play` is imported.

    python experiments/check_styles.py experiments/results/quickstart experiments/results/styles/*

Recomputed: the pooled per-game standard deviation of each mapped feature, the counts at
delta 0, 0.5, 1 and the run's delta, the chosen styles (strongest first), the tied sets, the
duplicates (equal traces in every game), whether each style differs from the control, each
style's non-inferiority (difference, lower bound, margin, verdict, power, games needed), the
one-game identification (accuracy, chance, per style) and, where null genomes were played,
their counts and styles. Floats agree within 1e-9 relative (1e-6 absolute for accuracies and
shares), ints, verdicts and sets exactly.

Prints one line per folder and exits with status 1 if any figure disagrees. Folders validated
before these statistics (summary version < 3) are reported and not checked.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

CONTROL = "control"
NULL_PREFIX = "null:"
DELTAS = (0.0, 0.5, 1.0)
EXACT_LIMIT = 60
"""Beyond this many genomes the styles are found greedily and the ties are not counted."""
POWER = 0.80
"""The power `games_needed` aims at."""
SUM_TOLERANCE = 1e-9
"""Summed mean qualities closer than this (relative to the largest, at least 1) tie."""
REL_TOL = 1e-9
ABS_TOL = 1e-12
ACCURACY_TOL = 1e-6


def delta_key(delta: float) -> str:
    return f"{delta:g}"


# --- the data -----------------------------------------------------------------------------


class Games:
    """validation_games.csv as per-genome arrays over the common games.

    Args:
        table: the rows (one per genome and game).
        features: the feature columns to hold.
        quality: "win_rate" (elite_won) or "score" (elite_score).
    """

    def __init__(self, table: pd.DataFrame, features: Sequence[str], quality: str):
        self.genomes = list(dict.fromkeys(table["cell"]))
        self.games = sorted(int(g) for g in table["game"].unique())
        col = {g: i for i, g in enumerate(self.games)}
        self.level = np.empty(len(self.games), dtype=object)
        for g, lv in zip(table["game"], table["level"]):
            if self.level[col[int(g)]] is None:
                self.level[col[int(g)]] = lv
        codes = {lv: i for i, lv in enumerate(dict.fromkeys(self.level))}
        self.block = np.array([codes[lv] for lv in self.level], dtype=int)
        self.blocks = len(codes)
        rows = {k: i for i, k in enumerate(self.genomes)}
        r = np.array([rows[c] for c in table["cell"]])
        c = np.array([col[int(g)] for g in table["game"]])

        def matrix(column: str) -> np.ndarray:
            m = np.full((len(self.genomes), len(self.games)), np.nan)
            m[r, c] = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
            return m

        q = "elite_score" if quality == "score" else "elite_won"
        self.quality = matrix(q)
        self.x = {f: matrix(f) for f in features}
        self.traces: dict[str, dict[int, str]] | None = None
        if "trace" in table.columns:
            self.traces = {k: {} for k in self.genomes}
            for cell, g, t in zip(table["cell"], table["game"], table["trace"]):
                self.traces[cell][int(g)] = t
        self.row = rows

    def mean_quality(self, genome: str) -> float:
        v = self.quality[self.row[genome]]
        v = v[np.isfinite(v)]
        return float(v.mean()) if len(v) else math.nan


def read_games(folder: Path) -> pd.DataFrame:
    """validation_games.csv, with `cell` and `trace` read as text (no NA conversion)."""
    path = folder / "validation_games.csv"
    table = pd.read_csv(path)
    text_columns = [c for c in ("cell", "trace") if c in table.columns]
    text = pd.read_csv(path, usecols=text_columns, dtype=str, keep_default_na=False)
    for c in text_columns:
        table[c] = text[c]
    return table


# --- the statistics -----------------------------------------------------------------------


def pooled_sd(values: np.ndarray) -> float:
    """sqrt(sum_i (n_i - 1) s_i^2 / sum_i (n_i - 1)) over the rows' finite values."""
    num = den = 0.0
    for v in values:
        v = v[np.isfinite(v)]
        if len(v) > 1:
            num += float(np.var(v, ddof=1)) * (len(v) - 1)
            den += len(v) - 1
    return math.sqrt(num / den) if den else math.nan


def blocked(d: np.ndarray, block: np.ndarray) -> tuple[float, float, int]:
    """(D, se, L) of the per-game differences `d` grouped by `block`: D the mean of the
    blocks' means over the finite games, se = stdev(block means, ddof 1) / sqrt(L), L the
    number of blocks with a finite game (se NaN when L < 2)."""
    ok = np.isfinite(d)
    d, block = d[ok], block[ok]
    if not len(d):
        return math.nan, math.nan, 0
    means = np.array([d[block == b].mean() for b in np.unique(block)])
    n = len(means)
    mean = float(means.mean())
    se = float(np.std(means, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean, se, n


def p_value(mean: float, se: float, blocks: int, h: float) -> float:
    """The paired, blocked test of a difference of at least h: the chance of a mean difference
    at least as far from 0 as `mean` when the true difference is exactly h."""
    if blocks < 2:
        return 1.0
    if se == 0:
        return 0.0 if abs(mean) > h else 1.0
    df = blocks - 1
    return min(1.0, float(stats.t.sf((abs(mean) - h) / se, df) + stats.t.sf((abs(mean) + h) / se, df)))


def holm(ps: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down: the k-th smallest p (k from 0) is rejected while p <= alpha / (m - k)."""
    m = len(ps)
    out = [False] * m
    for k, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        if ps[i] > alpha / (m - k):
            break
        out[i] = True
    return out


def maximum_cliques(n: int, adjacent: Callable[[int, int], bool]) -> list[frozenset[int]]:
    """Every maximum clique of the graph on 0..n-1 (Bron-Kerbosch with pivoting, bit sets,
    branches that cannot reach the largest size found pruned)."""
    if n == 0:
        return []
    nbrs = [sum(1 << j for j in range(n) if j != i and adjacent(i, j)) for i in range(n)]
    best: list[int] = []
    size = [0]

    def members(bits: int) -> frozenset[int]:
        return frozenset(i for i in range(n) if bits >> i & 1)

    def expand(r: int, r_size: int, p: int, x: int) -> None:
        if not p and not x:
            if r_size > size[0]:
                size[0] = r_size
                best.clear()
            if r_size == size[0]:
                best.append(r)
            return
        if r_size + p.bit_count() < size[0]:
            return
        pivot = max((u for u in range(n) if (p | x) >> u & 1), key=lambda u: (nbrs[u] & p).bit_count())
        candidates = p & ~nbrs[pivot]
        while candidates:
            v = (candidates & -candidates).bit_length() - 1
            candidates &= candidates - 1
            expand(r | 1 << v, r_size + 1, p & nbrs[v], x & nbrs[v])
            p &= ~(1 << v)
            x |= 1 << v

    expand(0, 0, (1 << n) - 1, 0)
    return [members(b) for b in best]


def ranks(genomes: Sequence[str], mean_quality: dict[str, float]) -> dict[str, int]:
    """Rank 0 the strongest: mean quality descending, ties (and NaN, last) by appearance."""
    def key(i: int) -> tuple[float, int]:
        q = mean_quality[genomes[i]]
        return (-q if q == q else math.inf, i)
    return {genomes[i]: r for r, i in enumerate(sorted(range(len(genomes)), key=key))}


def choose(genomes: Sequence[str], differs: set[frozenset[str]],
           mean_quality: dict[str, float]) -> dict[str, Any]:
    """The styles: the largest sets of genomes every pair of which differs; the tie-break
    (highest summed mean quality, then the lexicographically smallest sorted ranks); the
    chosen set strongest first, the number of tied sets and each genome's share of them.
    Beyond `EXACT_LIMIT` genomes, greedily from the strongest down (ties not counted)."""
    rank = ranks(genomes, mean_quality)
    by_rank = sorted(genomes, key=rank.__getitem__)
    if len(genomes) > EXACT_LIMIT:
        taken: list[str] = []
        for g in by_rank:
            if all(frozenset((g, t)) in differs for t in taken):
                taken.append(g)
        return {"styles": taken, "ties": None, "share": None}
    cliques = maximum_cliques(len(genomes),
                              lambda i, j: frozenset((genomes[i], genomes[j])) in differs)
    sets = [sorted((genomes[i] for i in c), key=rank.__getitem__) for c in cliques]
    if not sets:
        return {"styles": [], "ties": 0, "share": {}}

    def summed(s: list[str]) -> float:
        return float(sum(np.nan_to_num(mean_quality[g], nan=0.0) for g in s))

    top = max(summed(s) for s in sets)
    strongest = [s for s in sets if summed(s) >= top - SUM_TOLERANCE * max(1.0, abs(top))]
    chosen = min(strongest, key=lambda s: [rank[g] for g in s])
    share = {g: sum(g in s for s in sets) / len(sets) for g in genomes}
    return {"styles": chosen, "ties": len(sets), "share": {g: v for g, v in share.items() if v}}


class Tests:
    """The paired, blocked tests of a set of genomes' features, computed once for every delta."""

    def __init__(self, games: Games, features: Sequence[str], sd: dict[str, float]):
        self.games, self.features, self.sd = games, list(features), sd
        self._cache: dict[tuple[str, str, str], tuple[float, float, int]] = {}

    def moments(self, a: str, b: str, f: str) -> tuple[float, float, int]:
        k = (a, b, f)
        if k not in self._cache:
            x = self.games.x[f]
            self._cache[k] = blocked(x[self.games.row[a]] - x[self.games.row[b]], self.games.block)
        return self._cache[k]

    def p(self, a: str, b: str, f: str, delta: float) -> float:
        mean, se, blocks = self.moments(a, b, f)
        h = 0.0 if delta == 0 else delta * self.sd[f]
        return p_value(mean, se, blocks, h)

    def differing(self, pairs: Sequence[tuple[str, str]], delta: float,
                  alpha: float) -> set[frozenset[str]]:
        """The pairs one of whose features' tests Holm rejects (one family: pairs x features)."""
        tests = [(a, b, f) for a, b in pairs for f in self.features]
        rejected = holm([self.p(a, b, f, delta) for a, b, f in tests], alpha)
        return {frozenset((a, b)) for (a, b, _), r in zip(tests, rejected) if r}


def count_styles(games: Games, genomes: Sequence[str], tests: Tests, deltas: Sequence[float],
                 alpha: float) -> dict[float, dict[str, Any]]:
    """Per delta: the chosen styles, the ties and the number of differing pairs."""
    mean_quality = {g: games.mean_quality(g) for g in genomes}
    pairs = list(itertools.combinations(genomes, 2))
    out = {}
    for delta in deltas:
        differs = tests.differing(pairs, delta, alpha)
        out[delta] = {**choose(genomes, differs, mean_quality), "pairs_differing": len(differs),
                      "pairs_tested": len(pairs)}
    return out


def duplicates(games: Games, genomes: Sequence[str]) -> list[list[str]] | None:
    """Groups (two or more) of genomes whose traces are equal in every game."""
    if games.traces is None:
        return None
    groups: dict[tuple, list[str]] = {}
    for g in genomes:
        groups.setdefault(tuple(sorted(games.traces[g].items())), []).append(g)
    return [v for v in groups.values() if len(v) > 1]


def non_inferiority(games: Games, style: str, margin: float, alpha: float) -> dict[str, Any]:
    """d_g = q(style, g) - q(control, g), blocked: the one-sided (1 - alpha) lower bound
    D - t x se, the verdict (bound above -margin), the power if the style plays as well as the
    control, 1 - cdf_t(t_(1-alpha) - margin / se), and the games giving 80% power,
    ceil(((z_(1-alpha) + z_0.80) x s / margin)^2), s the per-game stdev of d_g (ddof 1)."""
    d = games.quality[games.row[style]] - games.quality[games.row[CONTROL]]
    mean, se, blocks = blocked(d, games.block)
    out: dict[str, Any] = {"difference": mean, "lower": math.nan, "margin": margin,
                           "non_inferior": False, "power": math.nan, "games_needed": None}
    if blocks >= 2:
        t = float(stats.t.ppf(1 - alpha, blocks - 1))
        out["lower"] = mean - t * se
        out["non_inferior"] = bool(out["lower"] > -margin)
        out["power"] = 1.0 if se == 0 else float(stats.t.sf(t - margin / se, blocks - 1))
    finite = d[np.isfinite(d)]
    if len(finite) > 1 and margin > 0:
        s = float(np.std(finite, ddof=1))
        z = float(stats.norm.ppf(1 - alpha) + stats.norm.ppf(POWER))
        out["games_needed"] = int(math.ceil((z * s / margin) ** 2))
    return out


def identification(table: pd.DataFrame, styles: Sequence[str], features: Sequence[str]) -> dict[str, Any]:
    """One game's features name its style? Linear discriminant analysis (shrunk covariance) on
    standardised features, missing values filled with the training mean, features constant or
    undefined in the training games left out; cross-validated leaving one level out. The games
    are the chosen styles' rows of validation_games.csv, in its order."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.model_selection import LeaveOneGroupOut
    from sklearn.preprocessing import StandardScaler

    rows = table[table["cell"].isin(list(styles))]
    x = np.column_stack([pd.to_numeric(rows[f], errors="coerce").to_numpy(dtype=float)
                         for f in features]).reshape(len(rows), len(features))
    groups = rows["level"].to_numpy()
    y = rows["cell"].to_numpy(dtype=object)
    predicted = np.empty(len(y), dtype=object)
    for train, test in LeaveOneGroupOut().split(x, y, groups):
        xt = x[train]
        finite = np.isfinite(xt)
        keep = []
        for k in range(xt.shape[1]):
            v = xt[finite[:, k], k]
            if len(v) and np.nanmax(v) != np.nanmin(v):
                keep.append(k)
        if not keep or len(set(y[train])) < 2:
            values, counts = np.unique(y[train], return_counts=True)
            predicted[test] = values[np.argmax(counts)]
            continue
        fill = np.array([np.nanmean(xt[:, k]) for k in keep])

        def filled(m: np.ndarray) -> np.ndarray:
            m = m[:, keep].copy()
            nan = ~np.isfinite(m)
            m[nan] = np.broadcast_to(fill, m.shape)[nan]
            return m

        scaler = StandardScaler().fit(filled(xt))
        lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
        lda.fit(scaler.transform(filled(xt)), y[train])
        predicted[test] = lda.predict(scaler.transform(filled(x[test])))
    right = predicted == y
    return {"accuracy": float(right.mean()) if len(y) else math.nan, "chance": 1.0 / len(styles),
            "per_style": {s: float(right[y == s].mean()) for s in styles},
            "features": list(features), "games": int(len(y))}


# --- the comparison -----------------------------------------------------------------------


def _number(v: Any) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def same_float(mine: Any, theirs: Any, absolute: float | None = None) -> bool:
    a, b = _number(mine), _number(theirs)
    a_nan = a is None or math.isnan(a)
    b_nan = b is None or math.isnan(b)
    if a_nan or b_nan:
        return a_nan and b_nan
    if math.isinf(a) or math.isinf(b):
        return a == b
    if absolute is not None:
        return abs(a - b) <= absolute
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


class Compare:
    def __init__(self):
        self.disagreements: list[str] = []

    def exact(self, what: str, mine: Any, theirs: Any) -> None:
        if mine != theirs:
            self.disagreements.append(f"{what}: {mine!r} here, {theirs!r} in the summary")

    def close(self, what: str, mine: Any, theirs: Any, absolute: float | None = None) -> None:
        if not same_float(mine, theirs, absolute):
            self.disagreements.append(f"{what}: {mine!r} here, {theirs!r} in the summary")


def _counts(found: dict[float, dict[str, Any]]) -> dict[str, int]:
    return {delta_key(d): len(r["styles"]) for d, r in found.items()}


def _deltas(run_delta: float, summary_counts: Any) -> list[float]:
    deltas = list(DELTAS)
    for d in [run_delta, *(_number(k) for k in (summary_counts or {}))]:
        if d is not None and d not in deltas:
            deltas.append(d)
    return deltas


def check(folder: Path) -> dict[str, Any]:
    """The style statistics of one results folder computed again and compared with its
    validation_summary.json: the recomputed figures, `checked` (False for a summary older
    than version 3) and `disagreements` (one line each)."""
    folder = Path(folder)
    summary = json.loads((folder / "validation_summary.json").read_text())
    version = summary.get("version") or 0
    if version < 3:
        return {"folder": str(folder), "checked": False, "version": version, "disagreements": []}
    if not isinstance(summary.get("styles"), dict):  # nothing stated: every figure disagrees
        summary["styles"] = {}
    st = summary["styles"]
    delta = float(st.get("delta", 1.0))
    margin = float(st.get("margin", 0.1))
    alpha = float(st.get("alpha", 0.05))
    quality = st.get("quality", "win_rate")
    mapped = list(summary["features"])
    ident = st.get("identification") if isinstance(st.get("identification"), dict) else None
    ident_features = list(ident.get("features") or []) if ident else []
    table = read_games(folder)
    games = Games(table, mapped, quality)
    elites = [g for g in games.genomes if g != CONTROL and not g.startswith(NULL_PREFIX)]
    nulls = [g for g in games.genomes if g.startswith(NULL_PREFIX)]
    has_control = CONTROL in games.row

    sd = {f: pooled_sd(games.x[f]) for f in mapped}
    tests = Tests(games, mapped, sd)
    deltas = _deltas(delta, st.get("counts"))
    found = count_styles(games, elites, tests, deltas, alpha)
    styles = found[delta]["styles"]
    out: dict[str, Any] = {
        "folder": str(folder), "checked": True, "version": version, "delta": delta,
        "margin": margin, "alpha": alpha, "quality": quality, "elites": elites, "sd": sd,
        "counts": _counts(found), "count": len(styles), "styles": styles,
        "pairs_tested": found[delta]["pairs_tested"], "pairs_differing": found[delta]["pairs_differing"],
        "ties": {"count": found[delta]["ties"], "share": found[delta]["share"]},
        "duplicates": duplicates(games, elites)}

    if has_control:
        tests_c = [(s, f) for s in styles for f in mapped]
        rejected = holm([tests.p(s, CONTROL, f, delta) for s, f in tests_c], alpha)
        out["differs_from_control"] = {s: False for s in styles}
        for (s, _), r in zip(tests_c, rejected):
            out["differs_from_control"][s] |= r
        absolute = margin
        if quality == "score":
            absolute = margin * abs(games.mean_quality(CONTROL))
        out["non_inferiority"] = {s: non_inferiority(games, s, absolute, alpha) for s in styles}
        out["non_inferior"] = sum(r["non_inferior"] for r in out["non_inferiority"].values())
    else:
        out["differs_from_control"], out["non_inferiority"], out["non_inferior"] = {}, {}, None

    levels = table.loc[table["cell"].isin(styles), "level"].nunique()
    out["identification"] = (identification(table, styles, ident_features)
                             if len(styles) >= 2 and ident_features and levels >= 2 else None)
    out["null"] = None
    if nulls:
        null_st = st.get("null") if isinstance(st.get("null"), dict) else {}
        found_null = count_styles(games, nulls, tests, _deltas(delta, null_st.get("counts")), alpha)
        out["null"] = {"counts": _counts(found_null), "styles": found_null[delta]["styles"],
                       "genomes": nulls}

    out["disagreements"] = compare(out, summary)
    return out


def compare(mine: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """Every figure of `mine` that the summary states otherwise."""
    c = Compare()
    st = summary["styles"]
    c.exact("distinct_styles", mine["count"], summary.get("distinct_styles"))
    c.exact("distinct_styles_non_inferior", mine["non_inferior"],
            summary.get("distinct_styles_non_inferior"))
    for f, v in mine["sd"].items():
        c.close(f"sd[{f}]", v, (st.get("sd") or {}).get(f))
    counts = st.get("counts") or {}
    for k, v in mine["counts"].items():
        if k in counts or k in map(delta_key, DELTAS):
            c.exact(f"counts[{k}]", v, counts.get(k))
    c.exact("styles", mine["styles"], st.get("styles"))
    ties = st.get("ties") or {}
    c.exact("ties.count", mine["ties"]["count"], ties.get("count"))
    if mine["ties"]["share"] is not None and ties.get("share") is not None:
        theirs = ties["share"]
        for cell in dict.fromkeys([*mine["ties"]["share"], *theirs]):
            c.close(f"ties.share[{cell}]", mine["ties"]["share"].get(cell, 0.0), theirs.get(cell, 0.0),
                    ACCURACY_TOL)
    if mine["duplicates"] is not None:
        c.exact("duplicates", sorted(sorted(g) for g in mine["duplicates"]),
                sorted(sorted(g) for g in st.get("duplicates") or []))
    c.exact("differs_from_control", mine["differs_from_control"], st.get("differs_from_control") or {})
    theirs_ni = st.get("non_inferiority") or {}
    c.exact("non_inferiority styles", sorted(mine["non_inferiority"]), sorted(theirs_ni))
    for s, r in mine["non_inferiority"].items():
        t = theirs_ni.get(s)
        if not isinstance(t, dict):
            continue
        for k in ("difference", "lower", "margin"):
            c.close(f"non_inferiority[{s}].{k}", r[k], t.get(k))
        c.exact(f"non_inferiority[{s}].non_inferior", r["non_inferior"], t.get("non_inferior"))
        if not same_float(r["power"], t.get("power")) and same_float(1 - r["power"], t.get("power")):
            c.disagreements.append(f"non_inferiority[{s}].power: {r['power']!r} here, {t.get('power')!r} "
                                   "in the summary (its complement: cdf for sf)")
        else:
            c.close(f"non_inferiority[{s}].power", r["power"], t.get("power"))
        c.exact(f"non_inferiority[{s}].games_needed", r["games_needed"], t.get("games_needed"))
    mine_id, theirs_id = mine["identification"], st.get("identification")
    if (mine_id is None) != (theirs_id is None):
        c.exact("identification", mine_id, theirs_id)
    elif mine_id is not None:
        for k in ("accuracy", "chance"):
            c.close(f"identification.{k}", mine_id[k], theirs_id.get(k), ACCURACY_TOL)
        per = theirs_id.get("per_style") or {}
        c.exact("identification.per_style styles", sorted(mine_id["per_style"]), sorted(per))
        for s, v in mine_id["per_style"].items():
            if s in per:
                c.close(f"identification.per_style[{s}]", v, per[s], ACCURACY_TOL)
        c.exact("identification.games", mine_id["games"], theirs_id.get("games"))
    mine_null, theirs_null = mine["null"], st.get("null")
    if (mine_null is None) != (theirs_null is None):
        c.exact("null", mine_null and mine_null["counts"], theirs_null and theirs_null.get("counts"))
    elif mine_null is not None:
        counts = theirs_null.get("counts") or {}
        for k, v in mine_null["counts"].items():
            if k in counts or k in map(delta_key, DELTAS):
                c.exact(f"null.counts[{k}]", v, counts.get(k))
        c.exact("null.styles", mine_null["styles"], theirs_null.get("styles"))
    return c.disagreements


def line(r: dict[str, Any]) -> str:
    """One folder's result in words."""
    if not r["checked"]:
        return f"{r['folder']}: validated before these statistics (version {r['version']}); not checked"
    ident = r["identification"]
    said = (f"identification {ident['accuracy']:.2f} vs chance {ident['chance']:.2f}" if ident
            else "no identification")
    ni = "no control" if r["non_inferior"] is None else f"{r['non_inferior']} non-inferior"
    verdict = "agrees" if not r["disagreements"] else "DISAGREES: " + "; ".join(r["disagreements"])
    return (f"{r['folder']}: {r['count']} styles at delta {r['delta']:g} of {len(r['elites'])} elites, "
            f"{said}, {ni}; {verdict}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+", type=Path)
    args = p.parse_args(argv)
    bad = 0
    for folder in args.folders:
        r = check(folder)
        bad += bool(r["disagreements"])
        print(line(r))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
