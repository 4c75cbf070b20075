"""The agents' side of a game's conformance check: every registered agent builds by name for
the game, answers with a legal action, and spends its forward-model budget exactly.

The budget is checked with a counting proxy around the state (`CountingState`): its copies
share one counter, so every `apply` made anywhere in a search is seen, whatever the agent's
own bookkeeping says. An agent that needs something the game does not bring (Portfolio MCTS
needs portfolio scripts) must refuse with one clear error that names what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from agents.portfolio.script import ScriptError
from agents.registry import agent_names, check_agent, make_agent
from base.limits import short
from games.api import determinise
from games.registry import get_game


class Counter:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class CountingState:
    """Behaves as the wrapped state (attributes are forwarded); `copy()` and `determinise`
    return another proxy on the same counter and `apply` adds one to it."""

    def __init__(self, inner, counter: Counter | None = None) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "counter", counter if counter is not None else Counter())

    def copy(self) -> "CountingState":
        return CountingState(self._inner.copy(), self.counter)

    def apply(self, action) -> None:
        self.counter.n += 1
        self._inner.apply(action)

    def determinise(self, player: int, rng, belief=None) -> "CountingState":
        """A determinisation (`games.api.determinise`) is a search state too: counted."""
        return CountingState(determinise(self._inner, player, rng, belief), self.counter)

    @property
    def current_player(self) -> int:
        return self._inner.current_player

    @property
    def num_players(self) -> int:
        return self._inner.num_players

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value) -> None:
        setattr(self._inner, name, value)


@dataclass
class AgentsReport:
    game: str
    decisions: dict[str, int] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # agent -> its error
    failed: dict[str, str] = field(default_factory=dict)  # agent -> its script's failure


NOT_CHECKED = ("human",)
"""Agents that need a person at the terminal."""


def positions_of(game_name: str, level: Any, options: dict[str, Any], count: int, seed: int):
    """`count` positions from a random game (restarted when it ends), none terminal."""
    game = get_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    k = 0
    while len(out) < count:
        state = game.new_state(level, seed + k, **options)
        k += 1
        while not state.is_terminal() and len(out) < count:
            if rng.random() < 0.3:
                out.append(state.copy())
            acts = state.legal_actions()
            state.apply(acts[int(rng.integers(len(acts)))])
        if k > 50 * count:
            break
    return out


def position_text(seed: int, level: Any) -> str:
    """Where a position of the checks comes from, in a message: position k of
    `positions_of(game, level, options, count, seed)`."""
    return f"seed {seed}, level {short(level)}"


def check_agents(game: str, level: Any = None, options: dict[str, Any] | None = None,
                 budget: int = 30, positions: int = 3, seed: int = 0,
                 names: Iterable[str] | None = None, strict: bool = True) -> AgentsReport:
    """Every agent that can play `game` (or `names`) decides in a few random positions.

    Raises AssertionError when an agent answers with an illegal action, spends more or less
    than it reports, or goes past its budget; an agent that refuses the game must say why
    in a ValueError (recorded in the report's `refused`). An agent whose portfolio script
    fails (`ScriptError`) has not refused: it is recorded in `failed`, and with `strict` an
    AssertionError lists every such agent once all were checked.

    Args:
        game: the registered game.
        level: the level of the positions (default: the first of the game's default set).
        options: game options.
        budget: forward-model calls per decision of the agents that take a budget.
        positions: decisions per agent.
        seed: seed of the positions and the agents.
        names: the agents to check (default: every agent registered for the game).
        strict: raise when an agent's script failed (else only record it).
    """
    g = get_game(game)
    if level is None:
        level = g.level_set(g.default_levels)[0]
    options = dict(options or {})
    report = AgentsReport(game)
    states = positions_of(game, level, options, positions, seed)
    assert states, f"{game}: no position to decide in"
    for name in names if names is not None else agent_names(game):
        if name in NOT_CHECKED:
            continue
        params: dict[str, Any] = {"seed": seed}
        try:
            check_agent(name, {"budget": budget}, game)
            params["budget"] = budget
        except ValueError:
            pass
        k = 0
        try:
            agent = make_agent(name, game=game, **params)
            for k, s in enumerate(states):
                c = CountingState(s.copy())
                a = agent.act(c)
                assert a in s.legal_actions(), f"{game}: {name} answered the illegal {a!r}"
                if "budget" in params:
                    assert c.counter.n <= budget, \
                        f"{game}: {name} made {c.counter.n} calls on a budget of {budget}"
                    used = getattr(getattr(agent, "last_budget", None), "used", None)
                    if used is not None and c.counter.n != used:
                        raise AssertionError(f"{game}: {name} reports {used} calls and made "
                                             f"{c.counter.n}")
                report.decisions[name] = report.decisions.get(name, 0) + 1
        except ValueError as e:
            if not str(e):
                raise AssertionError(f"{game}: {name} refused the game without a reason")
            report.refused[name] = str(e)
        except ScriptError as e:  # where to find the position again: positions_of(...)[k]
            report.failed[name] = f"{e} (at position {k}: {position_text(seed, level)})"
    if strict and report.failed:
        raise AssertionError(f"{game}: a script failed in " + "; ".join(
            f"{name}: {why}" for name, why in report.failed.items()))
    return report
