"""A portfolio as data, its layout and genome, and the assignment generator P-MCTS searches over.

A `Portfolio` is an ordered table (action type -> script names), one weight in [0, 1] per
script (default 0.5) and a layout: the ordered names of the scripts whose weights evolve (their
weights, in layout order, are the genome). It round-trips through a plain JSON-able dict, so
archives, configs and presets can hold portfolios, and it is validated on construction: every
unknown script, misplaced script, bad weight or bad layout name is reported in one error.

`produce_assignments(state, portfolio, rng)` runs the scripts for every actor of the player
to move and returns the action assignments
    (actor, script name, action, value, weight)
in the reference order (units, then cities, then the tribe; action types and scripts in table
order), keeping only the first script that proposes a given action for a given actor.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from agents.portfolio.script import (
    ScriptContext,
    ScriptError,
    answer_problem,
    default_layout,
    game_info,
    make_context,
    script_failure,
    scripts_of,
)
from base.schema import check_keys
from games.sequences import contains

DEFAULT_WEIGHT = 0.5

GENOME_RENAMED = "renamed to layout (the scripts whose weights evolve); rename the key"
"""The error for the key `genome` where a layout is meant (configs, presets, portfolio dicts
written before the rename)."""

# fields of an assignment tuple
ACTOR, SCRIPT, ACTION, VALUE, WEIGHT = range(5)


def default_table(game: str, exclude: Iterable[str] = ()) -> dict[str, list[str]]:
    """Every registered script of a game, grouped by action type in the game's type order
    (registration order within a type)."""
    info = game_info(game)
    skip = set(exclude)
    table: dict[str, list[str]] = {t: [] for t in info.type_order}
    for name, si in scripts_of(game).items():
        if name not in skip:
            table.setdefault(si.action_type, []).append(name)
    return {t: names for t, names in table.items() if names}


def layout_names(game: str, layout: str | Sequence[str],
                 table_names: Sequence[str]) -> tuple[str, ...]:
    """A layout given by name ('all', 'none', or one the game registers, e.g. 'paper') or as
    script names."""
    if isinstance(layout, str):
        if layout == "all":
            return tuple(table_names)
        if layout == "none":
            return ()
        named = game_info(game).layouts
        if layout not in named:
            raise ValueError(f"layout: unknown layout {layout!r} for {game}; known: "
                             f"{', '.join(['all', 'none', *named])}, or a list of script names")
        return named[layout]
    return tuple(layout)


class Portfolio:
    """Script table + weights + layout for one game (immutable; `with_*` copies)."""

    def __init__(self, game: str, table: Mapping[str, Sequence[str]] | None = None,
                 weights: Mapping[str, float] | None = None,
                 layout: str | Sequence[str] | None = None) -> None:
        self.game = game
        info = game_info(game)
        if layout is None:  # the game's default layout if it has one
            layout = default_layout(game) or "none"
        known = scripts_of(game)
        if table is None:
            table = default_table(game)
        problems: list[str] = []
        tab: dict[str, tuple[str, ...]] = {}
        seen: set[str] = set()
        for atype, names in table.items():
            if atype not in info.action_kinds:
                problems.append(f"unknown action type {atype!r} "
                                f"(known: {', '.join(info.type_order)})")
                continue
            if isinstance(names, str):
                problems.append(f"action type {atype}: expected a list of script names, "
                                f"got {names!r}")
                continue
            for n in names:
                if n not in known:
                    problems.append(f"unknown script {n!r} under {atype}")
                elif known[n].action_type != atype:
                    problems.append(f"script {n!r} handles {known[n].action_type}, not {atype}")
                elif n in seen:
                    problems.append(f"script {n!r} listed twice")
                seen.add(n)
            tab[atype] = tuple(names)
        names_in_table = [n for ns in tab.values() for n in ns]
        w = {n: DEFAULT_WEIGHT for n in names_in_table}
        problems += _weight_problems(known, w, weights or {})
        w.update({n: float(v) for n, v in (weights or {}).items()
                  if n in w and _is_weight(v)})
        lay = _layout(game, layout, names_in_table, known, problems)
        _raise(game, problems, known)
        self.table: Mapping[str, tuple[str, ...]] = MappingProxyType(tab)
        self.weights: Mapping[str, float] = MappingProxyType(w)
        self.layout: tuple[str, ...] = lay
        self._compiled = None

    # ---------------------------------------------------------------- views
    def script_names(self) -> list[str]:
        """All scripts in table order."""
        return [n for ns in self.table.values() for n in ns]

    def __len__(self) -> int:
        return len(self.weights)

    def genome_values(self) -> list[float]:
        """The evolving weights, in layout order."""
        return [self.weights[n] for n in self.layout]

    def with_genome(self, values: Sequence[float]) -> "Portfolio":
        """A copy whose genome weights are `values` (one per layout name)."""
        if len(values) != len(self.layout):
            raise ValueError(f"genome: expected {len(self.layout)} values "
                             f"({', '.join(self.layout)}), got {len(values)}")
        return self.with_weights(dict(zip(self.layout, values)))

    def with_weights(self, weights: Mapping[str, float]) -> "Portfolio":
        w = dict(self.weights)
        bad = {n: v for n, v in weights.items() if n not in w}
        w.update({n: v for n, v in weights.items() if n in w})
        w.update(bad)  # reported by the constructor
        return Portfolio(self.game, self.table, w, self.layout)

    def with_layout(self, layout: str | Sequence[str]) -> "Portfolio":
        return Portfolio(self.game, self.table, self.weights, layout)

    # ---------------------------------------------------------------- dict form
    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game,
                "scripts": {t: list(ns) for t, ns in self.table.items()},
                "weights": dict(self.weights),
                "layout": list(self.layout)}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Portfolio":
        if "genome" in d and "layout" not in d:
            raise ValueError(f"portfolio: genome: {GENOME_RENAMED}")
        check_keys(d, ("game", "scripts", "weights", "layout"), "portfolio")
        if "game" not in d:
            raise ValueError("portfolio: missing 'game'")
        return Portfolio(d["game"], d.get("scripts"), d.get("weights"), d.get("layout"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Portfolio) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (f"Portfolio({self.game!r}, {len(self)} scripts, genome "
                f"{dict(zip(self.layout, self.genome_values()))})")

    # ---------------------------------------------------------------- generation
    def compiled(self):
        """(kind -> rank, kind -> ((name, fn, weight), ...), cache: an actor's kinds in the
        order they appear -> those with scripts, in table order) for the generator."""
        if self._compiled is None:
            info = game_info(self.game)
            known = scripts_of(self.game)
            rank, by_kind = {}, {}
            for i, (atype, names) in enumerate(self.table.items()):
                kind = info.action_kinds[atype]
                rank[kind] = i
                by_kind[kind] = tuple((n, known[n].fn, self.weights[n]) for n in names)
            self._compiled = (rank, by_kind, {})
        return self._compiled


def _weight_problems(known: Mapping[str, Any], table: Mapping[str, float],
                     weights: Mapping[str, Any]) -> list[str]:
    """What is wrong with script weights given by name, for a portfolio table."""
    problems = []
    for n, v in weights.items():
        if n not in known:
            problems.append(f"weight for unknown script {n!r}")
        elif n not in table:
            problems.append(f"weight for script {n!r}, which is not in the portfolio table")
        elif not _is_weight(v):
            problems.append(f"weight of {n!r} must be a number in [0, 1], got {v!r}")
    return problems


def _layout(game: str, layout: Any, names_in_table: Sequence[str], known: Mapping[str, Any],
            problems: list[str]) -> tuple[str, ...]:
    """The layout's script names; what is wrong with it goes into `problems`."""
    try:
        lay = layout_names(game, layout, names_in_table)
    except ValueError as e:
        problems.append(str(e))
        return ()
    for n in lay:
        if n not in names_in_table:
            problems.append(f"layout names script {n!r}, which is not in the portfolio table"
                            if n in known else f"layout names unknown script {n!r}")
    if len(set(lay)) != len(lay):
        problems.append(f"layout names a script twice: {list(lay)}")
    return lay


def _raise(game: str, problems: list[str], known: Mapping[str, Any]) -> None:
    if problems:
        msg = f"portfolio ({game}): " + "; ".join(problems)
        if any("unknown script" in p for p in problems):
            msg += f". Known scripts: {', '.join(known)}"
        raise ValueError(msg)


def _default_names(game: str, reference: bool) -> list[str]:
    """The script names of the game's default table (without the reference-excluded ones)."""
    exclude = set(game_info(game).layouts.get("reference-excluded", ())) if reference else set()
    return [n for n in scripts_of(game) if n not in exclude]


def resolve_layout(game: str, layout: Any, reference: bool = False) -> tuple[str, ...]:
    """The script names a layout (a name such as "paper" or "all", or a list of names) gives
    for the game's default table, checked against the script registry without building a
    portfolio; one error names everything wrong."""
    known = scripts_of(game)
    problems: list[str] = []
    if layout is None:
        layout = default_layout(game) or "none"
    lay = _layout(game, layout, _default_names(game, reference), known, problems)
    _raise(game, problems, known)
    return lay


def check_portfolio_args(game: str, layout: Any, weights: Any, opponent_weights: Any = None,
                         reference: bool = False) -> None:
    """Check an agent's portfolio arguments against the script registry, without building a
    portfolio: the game has scripts, the layout resolves, weights (by name, or genome values
    in layout order) name known scripts of the default table and lie in [0, 1]."""
    known = scripts_of(game)
    names_in_table = _default_names(game, reference)
    lay = resolve_layout(game, layout, reference)
    problems: list[str] = []
    table = dict.fromkeys(names_in_table, DEFAULT_WEIGHT)
    for w in (weights, opponent_weights):
        if isinstance(w, Mapping):
            problems += _weight_problems(known, table, w)
        elif w is not None:
            values = list(w)
            if len(values) != len(lay):
                problems.append(f"genome: expected {len(lay)} values ({', '.join(lay)}), "
                                f"got {len(values)}")
            problems += [f"weight of {n!r} must be a number in [0, 1], got {v!r}"
                         for n, v in zip(lay, values) if not _is_weight(v)]
    _raise(game, problems, known)


def _is_weight(v: Any) -> bool:
    return (isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)
            and math.isfinite(v) and 0.0 <= v <= 1.0)


def portfolio(game: str, layout: str | Sequence[str] | None = None,
              reference: bool = False) -> Portfolio:
    """The default portfolio of a game (all its scripts, weights 0.5). `reference=True` drops
    the scripts the reference code leaves out (the game's "reference-excluded" list; Tribes:
    the Destroy and Disband wrappers)."""
    exclude: Sequence[str] = ()
    if reference:
        exclude = game_info(game).layouts.get("reference-excluded", ())
    return Portfolio(game, default_table(game, exclude), None, layout)


def produce_assignments(state: Any, portfolio: Portfolio, rng: np.random.Generator,
                        ctx: ScriptContext | None = None) -> list[tuple]:
    """The action assignments of the player to move: (actor, script, action, value, weight).

    Order: actors as the game's context orders them (Tribes: units, cities, tribe), action
    types and scripts in table order; a later script proposing an action already proposed for
    the same actor is dropped. `ctx` may be passed to reuse a context built for this state."""
    if ctx is None:
        ctx = make_context(portfolio.game, state, rng)
    by_actor = state.actions_by_actor()
    out: list[tuple] = []
    for actor in ctx.ordered_actors(by_actor):
        actor_assignments(actor, by_actor[actor], portfolio, ctx, out)
    return out


def actor_assignments(actor: Any, types: dict, portfolio: Portfolio, ctx: ScriptContext,
                      out: list) -> list[tuple]:
    """One actor's part of `produce_assignments`, appended to `out` (returned).

    Args:
        actor: the actor.
        types: its legal actions grouped by kind (`state.actions_by_actor()[actor]`).
        portfolio: the portfolio.
        ctx: the context of the state (its random generator breaks the scripts' ties).
        out: the list to append to.
    """
    compiled = portfolio._compiled  # read directly: once per actor, where a call costs
    if compiled is None:
        compiled = portfolio.compiled()
    rank, by_kind, kind_order = compiled
    key = tuple(types)
    kinds = kind_order.get(key)
    if kinds is None:
        kinds = kind_order[key] = sorted([k for k in key if k in rank], key=rank.__getitem__)
    seen = []  # few per actor: a scan by identity first costs less than hashing actions
    for kind in kinds:
        actions = types[kind]
        for name, fn, w in by_kind[kind]:
            try:
                r = fn(ctx, actor, actions)
            except Exception as e:
                raise ScriptError(script_failure(name, actor, ctx.state,
                                                 f"raised {type(e).__name__}: {e}")) from e
            if r is None:
                continue
            # the answer checked at the edge: (action, value), value in [0, 1], one of `actions`
            try:
                a, v = r
                x = v  # a C double where compiled: the same test, in C comparisons
                ok = 0.0 <= x <= 1.0 and contains(a, actions)
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                raise ScriptError(script_failure(name, actor, ctx.state,
                                                 answer_problem(r, actions) or "a bad answer"))
            if contains(a, seen):
                continue
            seen.append(a)
            out.append((actor, name, a, v, w))
    return out
