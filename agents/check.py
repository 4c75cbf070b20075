"""`playstyles check --game NAME`: every conformance check of a game's plug-in, in one report.

The checks, each run to its end so that one report lists every problem:

* the game (`games.conformance.check_game`): random games to the end, the protocol's rules
  (copies, illegal actions refused without a change, results, determinism);
* its portfolio scripts (`check_scripts`): every script asked in random positions, for every
  actor and every action type it handles; a script that raises, answers an action that is not
  one of those it was given, or a value outside [0, 1] is a failure naming the script, the
  position and the actor;
* its agents (`agents.conformance.check_agents`): every agent that can play the game decides
  in random positions, within its budget, with a legal action. An agent may refuse a game
  with a reason; an agent whose portfolio script fails (`ScriptError`) fails the check;
* its evaluation terms (`check_terms`): every evaluator that declares terms gives the same
  values rebuilt with its declared weights, finite values with each term reweighted, and
  each term is read (a term that never changes a value in the positions is a note);
* the checks a higher layer adds (`register_check`): `qd.features` adds its behaviour
  features' check (`qd.features.check_features`), as every plug-in with features imports it.

An unknown game is one error (ValueError) listing the known games, before any check runs. A
failure names what reproduces it: the game seed and action (game), the seed, level and
position index (scripts, agents).

An error raised by the plug-in's own code is reported with its own traceback, as a failure of
the check it happened in, never as a crash of the command.

This module sits in `agents`, the lowest layer that holds everything it checks: the game's
own check is in the games core, which may not import the scripts, evaluators and agents.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from agents.conformance import check_agents, position_text, positions_of
from agents.evaluators import EVALUATORS, evaluation_terms, evaluator_names
from agents.portfolio.script import answer_problem, game_info, make_context, scripts_of
from games.conformance import check_game
from games.registry import get_game


@dataclass
class Check:
    """One check's outcome: what it did, and its failures (empty: it passed)."""

    name: str
    done: str = ""
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _user_error(where: str, e: BaseException) -> str:
    """A failure with the plug-in's own traceback."""
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return f"{where}: {type(e).__name__}: {e}\n{tb.rstrip()}"


def check_scripts(game: str, positions: int = 20, seed: int = 0,
                  options: dict[str, Any] | None = None) -> Check:
    """Ask every portfolio script of `game` in random positions.

    Args:
        game: the registered game.
        positions: positions of random games to ask in.
        seed: seed of the positions and of the scripts' tie-breaking.
        options: game options.
    """
    out = Check("scripts")
    try:
        info = game_info(game)
    except ValueError:
        out.done = "the game registers no portfolio scripts (Portfolio MCTS cannot play it)"
        return out
    scripts = scripts_of(game)
    g = get_game(game)
    level = g.level_set(g.default_levels)[0]
    rng = np.random.default_rng(seed)
    answers = 0
    failed: set[str] = set()
    for k, state in enumerate(positions_of(game, level, dict(options or {}), positions, seed)):
        ctx = make_context(game, state, rng)
        for actor, types in state.actions_by_actor().items():
            for name, si in scripts.items():
                actions = types.get(info.action_kinds.get(si.action_type))
                if not actions or name in failed:
                    continue
                where = f"script {name} at position {k} ({position_text(seed, level)}, " \
                        f"actor {actor!r})"
                try:
                    r = si.fn(ctx, actor, actions)
                except Exception as e:  # noqa: BLE001 - the plug-in's error is the finding
                    out.failures.append(_user_error(where, e))
                    failed.add(name)
                    continue
                answers += 1
                if r is None:
                    continue
                problem = answer_problem(r, actions)
                if problem:
                    out.failures.append(f"{where}: {problem}")
                    failed.add(name)
    out.done = f"{len(scripts)} scripts, {answers} answers in {positions} positions"
    return out


LEAF_ACTIONS = 8
"""`check_terms`: random actions from a position to the leaf it is compared with."""


def check_terms(game: str, positions: int = 20, seed: int = 0,
                options: dict[str, Any] | None = None) -> Check:
    """The evaluation terms of every evaluator of `game` that declares some
    (`agents.evaluators.register_evaluator`), checked in (root, leaf) pairs: a random
    position and the position a few random actions later.

    Fails when the evaluator rebuilt with its declared weights gives another value than the
    evaluator as registered, or a value is not finite with one term's weight at 0 or x5; a
    term whose weight never changes a value is a note (the evaluator may not read it).

    Args:
        game: the registered game.
        positions: root positions of random games.
        seed: seed of the positions and of the random actions.
        options: game options.
    """
    out = Check("terms")
    weighed = [n for n in evaluator_names(game) if evaluation_terms(game, n)]
    if not weighed:
        out.done = "no evaluator declares evaluation terms (the persona genome mapping has none)"
        return out
    g = get_game(game)
    level = g.level_set(g.default_levels)[0]
    rng = np.random.default_rng(seed)
    pairs = []
    for root in positions_of(game, level, dict(options or {}), positions, seed):
        leaf = root.copy()
        for _ in range(LEAF_ACTIONS):
            if leaf.is_terminal():
                break
            acts = leaf.legal_actions()
            leaf.apply(acts[int(rng.integers(len(acts)))])
        pairs.append((root, leaf))
    done = []
    for name in weighed:
        factory = EVALUATORS.find(name, game)[0]
        terms = evaluation_terms(game, name)
        plain = factory()
        same = factory(weights=dict(terms))
        moved = dict.fromkeys(terms, False)
        for k, (root, leaf) in enumerate(pairs):
            for p in range(root.num_players):
                a, b = plain.evaluate(root, leaf, p), same.evaluate(root, leaf, p)
                if not (np.isfinite(a) and a == b):
                    out.failures.append(
                        f"evaluator {name}: position {k}, player {p}: {a!r} as registered, "
                        f"{b!r} rebuilt with its declared weights {terms} (weights=... must "
                        f"give the same evaluator)")
                    break
                for t, w in terms.items():
                    for m in (0.0, 5.0):
                        v = factory(weights={**terms, t: w * m}).evaluate(root, leaf, p)
                        if not np.isfinite(v):
                            out.failures.append(f"evaluator {name}: term {t} x{m:g}: value "
                                                f"{v!r} at position {k}, player {p}")
                        elif v != a:
                            moved[t] = True
        still = [t for t, m in moved.items() if not m]
        if still:
            out.notes.append(f"evaluator {name}: the weight of {', '.join(still)} changed no "
                             f"value in {len(pairs)} (position, {LEAF_ACTIONS} random actions "
                             f"later) pairs: random play seldom moves it, or the evaluator "
                             f"does not read it")
        done.append(f"{name} ({len(terms)} terms)")
    out.done = f"{', '.join(done)} in {len(pairs)} positions"
    return out


ADDED_CHECKS: dict[str, Callable[..., Check]] = {}
"""Checks a higher layer adds to `run_checks`, by name (`register_check`)."""


def register_check(name: str, check: Callable[..., Check]) -> None:
    """Add a check to `run_checks` (a layer above `play` adds what it knows of a game:
    `qd.features` its behaviour features).

    Args:
        name: the check's name in the report.
        check: called as `check(game, games=N, options=OPTIONS)`; returns a `Check`.
    """
    ADDED_CHECKS[name] = check


def run_checks(game: str, games: int = 10, positions: int = 20, budget: int = 30,
               options: dict[str, Any] | None = None) -> list[Check]:
    """The game, its scripts, its agents, its evaluation terms and the added checks
    (`register_check`), each checked to its end.

    Args:
        game: the registered game.
        games: random games of the game check (and of an added check's).
        positions: positions of the script check (the agents decide in a tenth of them).
        budget: forward-model calls per decision of the agents that take a budget.
        options: game options.

    Raises:
        ValueError: an unknown game, listing the known ones (before any check).
    """
    get_game(game)  # loads the plug-in, whose imports may add checks
    results = []

    def guarded(check: Check, body: Callable[[Check], None]) -> None:
        try:
            body(check)
        except AssertionError as e:  # a broken rule, named by the check
            check.failures.append(str(e))
        except Exception as e:  # noqa: BLE001 - the plug-in's own error
            check.failures.append(_user_error(check.name, e))
        results.append(check)

    def game_check(c: Check) -> None:
        r = check_game(game, seeds=range(games), options=options)
        c.done = f"{r.games} games, {r.actions} actions"

    guarded(Check("game"), game_check)
    scripts = check_scripts(game, positions=positions, options=options)
    results.append(scripts)

    def agents_check(c: Check) -> None:
        r = check_agents(game, options=options, budget=budget,
                         positions=max(1, positions // 10), strict=False)
        c.done = f"{len(r.decisions)} agents decided"
        for name, why in r.failed.items():
            c.failures.append(f"agent {name} failed because of a script: {why}")
        for name, why in r.refused.items():
            c.notes.append(f"agent {name} refused the game: {why}")

    guarded(Check("agents"), agents_check)
    terms = Check("terms")
    guarded(terms, lambda c: _merge(c, check_terms(game, positions=positions,
                                                   options=options)))
    for name, added in list(ADDED_CHECKS.items()):
        guarded(Check(name), lambda c, f=added: _merge(c, f(game, games=games,
                                                            options=options)))
    return results


def _merge(into: Check, found: Check) -> None:
    into.done, into.failures, into.notes = found.done, found.failures, found.notes


def report(game: str, checks: list[Check]) -> str:
    """The report the command prints: one line per check, then its failures and notes."""
    lines = []
    for c in checks:
        lines.append(f"{c.name}: {'ok' if c.ok else 'FAILED'}" + (f" ({c.done})" if c.done else ""))
        lines += [f"  - {f}" for f in c.failures]
        lines += [f"  note: {n}" for n in c.notes]
    bad = [c.name for c in checks if not c.ok]
    lines.append(f"{game}: every check passed" if not bad else
                 f"{game}: {len(bad)} check(s) failed: {', '.join(bad)}")
    return "\n".join(lines)
