"""A run directory in words: an elite's dominant scripts, and validation_summary.json read for
people (`qd.validation` writes it; the report, export and the command line say it; here so that
a run directory reads without the code).
"""

from __future__ import annotations

import math
from typing import Any, Mapping


def dominant_scripts(weights: Mapping[str, float], top: int = 2) -> str:
    """An elite's dominant scripts in words: the `top` scripts of highest weight with their
    weights, highest first (ties in genome order), and how many more share the last weight
    shown (`ResearchMountains 1, SpawnDefensive 0.75`; `ResearchFarms 1, ResearchNaval 1 (+3
    more at 1)`); a script of weight 0 is not named beside one above it (`ResearchMountains 1
    (the other 10 at 0)`).

    Args:
        weights: script -> weight, in genome order (NaN weights are left out).
        top: scripts to name.
    """
    items = [(str(k), float(v)) for k, v in weights.items()
             if v is not None and math.isfinite(float(v))]
    if not items or top < 1:
        return ""
    ranked = sorted(range(len(items)), key=lambda i: (-items[i][1], i))
    shown = [items[i] for i in ranked[:top]]
    if shown[0][1] > 0:  # a zero weight is no dominance: `A 1 (the other 10 at 0)`
        shown = [x for x in shown if x[1] > 0]
    text = ", ".join(f"{name} {w:.3g}" for name, w in shown)
    last = shown[-1][1]
    rest = [items[i][1] for i in ranked[len(shown):]]
    tied = sum(1 for w in rest if w == last)
    if rest and all(w == 0 for w in rest) and last > 0:
        text += f" (the other {len(rest)} at 0)"
    elif tied:
        text += f" (+{tied} more at {last:.3g})"
    return text


# ------------------------------------------------------------------------------ validation, in words
# (validation_summary.json read for people: `qd.validation` writes it, the report, export and
# the command line say it; here so that a run directory reads without the code)

def csv_true(value: Any) -> bool:
    """A boolean read back from a CSV table (True, "True", 1).

    Args:
        value: the cell.
    """
    return str(value).strip().lower() in ("true", "1", "1.0")


def style_verdict(style: Any, not_apart: Any = None) -> str:
    """A validated elite's verdict in words: `held up (style #k)` for style k, else `not told
    apart from style #a, #b` (validation.csv's `not_told_apart_from`), or `not told apart
    from the other styles` when the validation did not record which."""
    try:
        k = int(float(style))
    except (TypeError, ValueError):
        k = 0
    if k > 0:
        return f"held up (style #{k})"
    named = [w for w in str(not_apart).split() if w.startswith("#")] \
        if isinstance(not_apart, str) else []
    if named:
        return f"not told apart from style{'s' if len(named) > 1 else ''} {', '.join(named)}"
    return "not told apart from the other styles"


def validation_source(summary: Mapping[str, Any]) -> str:
    """Which games validation.csv's values come from, in words: `held out (N games on M
    held-out levels)`, `replayed (N fresh games on M training levels)` for a validation on
    the training levels, or a mix.

    Args:
        summary: validation_summary.json.
    """
    played = list(summary.get("levels") or [])
    train = set(summary.get("levels_overlap_training") or [])
    n = summary.get("games_per_elite", "?")
    m = len(set(played))
    if not train:
        return f"held out ({n} games on {m} held-out level{'s' if m != 1 else ''})"
    if set(played) <= train:
        return f"replayed ({n} fresh games on {m} training level{'s' if m != 1 else ''})"
    return (f"validation ({n} games on {m} levels, {len(train)} of them training levels)")


def styles_counted(summary: Mapping[str, Any] | None) -> bool:
    """Whether a validation counted the distinct styles (one written before it did has no
    `distinct_styles`)."""
    return bool(summary) and summary.get("distinct_styles") is not None


def number_text(x: Any, pct: bool = False) -> str:
    """A number as the tables print it (3 significant digits, or a percentage); n/a when
    missing or not finite."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3g}"


def _pct(x: Any) -> str:
    return number_text(x, True)


def current_styles(summary: Mapping[str, Any] | None) -> bool:
    """Whether a validation counted its styles as docs/styles.md says (summary version 3: a
    minimum effect on common games); earlier ones counted them otherwise."""
    return styles_counted(summary) and (summary or {}).get("version", 0) >= 3


def headline(summary: Mapping[str, Any]) -> str:
    """The validation's one-line verdict: how many styles held up at which minimum effect,
    how well one game names them, how many play within the margin of the control, and the
    null baseline's count."""
    k = summary.get("distinct_styles")
    if k is None:  # a validation written before styles were counted
        return (f"{summary.get('elites', 0)} elites validated (distinct styles not counted: "
                f"validate again)")
    played = set(summary.get("levels") or [])
    train = set(summary.get("levels_overlap_training") or [])
    levels = ("held-out levels" if not train else
              "the run's training levels on fresh seeds" if played <= train else
              f"held-out and training levels ({len(train)} of {len(played)} training)")
    of = (f"of {summary['elites']} elite{'s' if summary['elites'] != 1 else ''}, "
          f"{summary['games_per_elite']} games each")
    if not current_styles(summary):
        return (f"{k} distinct style{'s' if k != 1 else ''} on {levels} ({of}), counted by "
                f"the earlier statistics (no minimum effect): validate again to count them "
                f"as docs/styles.md says")
    st = summary["styles"]
    text = (f"{k} style{'s' if k != 1 else ''} at least {st['delta']:g} sd apart on {levels} "
            f"({of}, the same games for all)")
    ident = st.get("identification")
    if ident:
        text += f"; one game names the style {_pct(ident['accuracy'])} (chance {_pct(ident['chance'])})"
    if summary.get("distinct_styles_non_inferior") is not None:
        m = st["margin"]
        text += (f"; {summary['distinct_styles_non_inferior']} of {k} within "
                 + (f"{100 * m:g} points of the control's win rate" if st["quality"] != "score"
                    else f"{100 * m:g}% of the control's mean score") + " (non-inferior)")
    if summary.get("null_distinct_styles") is not None:
        text += f"; null baseline {summary['null_distinct_styles']}"
    return text


def styles_text(summary: Mapping[str, Any]) -> list[str]:
    """What the style count means, its tests, the counts at each minimum effect, ties,
    duplicates, identification, the control and the null baseline, in lines."""
    st = summary.get("styles")
    if not st or not current_styles(summary):
        return []
    feats = summary.get("features") or []
    sd = st.get("sd") or {}
    lines = [f"A style counts when every pair of counted styles differs by more than "
             f"{st['delta']:g} per-game standard deviation{'s' if st['delta'] != 1 else ''} in at "
             f"least one of " + ", ".join(f"{f} (sd {number_text(sd.get(f))})" for f in feats)
             + f", on the same {st['games']} games (paired by game, blocked by level; Holm over the "
             f"{st['pairs_tested']} pair-and-feature tests, family-wise error "
             f"{100 * st['alpha']:.0f}%; docs/styles.md). {st['pairs_differing']} of the "
             f"{st['pairs_tested']} tests found such a difference.",
             "Styles by minimum effect: " + ", ".join(
                 f"{n} at {d} sd" for d, n in st["counts"].items()) + "."]
    ties = st.get("ties") or {}
    if ties.get("count") is not None and ties["count"] > 1:
        share = ", ".join(f"[{c}] {_pct(v)}" for c, v in sorted(
            ties["share"].items(), key=lambda kv: -kv[1]))
        lines.append(f"{ties['count']} sets of {summary['distinct_styles']} tie; the one of "
                     f"highest summed win rate is counted. Share of the tied sets: {share}.")
    for group in st.get("duplicates") or []:
        lines.append(f"[{'], ['.join(group)}] played identical games: one style.")
    ident = st.get("identification")
    if ident:
        per = ", ".join(f"[{c}] {_pct(v)}" for c, v in ident["per_style"].items())
        lines.append(f"One game names the style {_pct(ident['accuracy'])} of the time (chance "
                     f"{_pct(ident['chance'])}; {ident['games']} games, "
                     f"{len(ident['features'])} features, leaving one level out): {per}.")
    c = summary.get("control")
    if c:
        score = st.get("quality") == "score"
        key, name, pct = ("mean_score", "mean score", False) if score else \
            ("win_rate", "win rate", True)
        lo, hi = c[f"{key}_ci"]
        lines.append(f"Control (default weights), on the same games: {name} "
                     f"{number_text(c[key], pct)} ({number_text(lo, pct)} to "
                     f"{number_text(hi, pct)}, {c['games']} games).")
        ni = st.get("non_inferiority") or {}
        m = st["margin"]
        rule = (f"{100 * m:g} points of win rate" if not score
                else f"{100 * m:g}% of the control's mean score")
        parts = []
        for k, v in ni.items():
            verdict = "non-inferior" if v["non_inferior"] else "not shown non-inferior"
            need = (f" ({v['games_needed']} games per genome give 80% power if it plays as "
                    f"well as the control)" if not v["non_inferior"] and v.get("games_needed")
                    else "")
            parts.append(f"[{k}] {number_text(v['difference'], pct)} (bound "
                         f"{number_text(v['lower'], pct)}) {verdict}{need}")
        lines.append(f"Against the control (paired, one-sided 95% bound, margin {rule}): "
                     + "; ".join(parts) + ".")
        diff = [k for k, v in st["differs_from_control"].items() if v]
        lines.append(f"Styles that differ from the control by more than {st['delta']:g} sd in "
                     f"a feature: {len(diff)} of {len(st['styles'])}"
                     + (f" ([{'], ['.join(diff)}])" if diff else "") + ".")
    null = st.get("null")
    if null:
        lines.append(f"Null baseline ({len(null['genomes'])} fixed genomes, no evolution, the "
                     f"same games): " + ", ".join(f"{n} at {d} sd"
                                                  for d, n in null["counts"].items()) + ".")
    return lines
