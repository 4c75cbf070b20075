"""Game-neutral pieces shared by the search agents: the forward-model budget, search copies,
the game-specific hooks a search may ask for, and the set-up every search agent shares.

The budget is counted in forward-model calls: one `apply` on a search copy is one call
(copying and listing actions are free), as in the reference's "FM calls". Every search agent
applies actions only through `Budget.apply`, which refuses to go past the limit, so no agent
can overspend whatever its control flow.

The budget of a decision is a parameter of the agent (`budget`, given when it is built); it
may also have a time limit (`act(state, ms=...)`): the clock is read where the search
asks the budget (`exhausted`, `apply`), and the first reading past the deadline closes the
budget at the calls spent so far, exactly as if the call limit had been that number. Every
search loop already stops on a spent call budget, so each stops on time the same way, in the
thread that searches; without a time limit the clock is never read and the search is the
same as before, call for call.

Hooks are looked up by game name, so this module never imports a game: a game without hooks
still works, it only loses the optional refinements (root grouping, excluded random actions,
buffer reuse within a turn).

A search agent may be built for a game (`game="tribes"`) or for none: it then binds to the
game of the first state it is asked about (`state.game_name`), so `make_agent("mcts")` plays
any registered game.
"""

from __future__ import annotations

import gc
import math
import numbers
import time
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterator, Mapping

import numpy as np

from agents.draw import randbelow
from agents.evaluators import check_evaluator, deciding, make_evaluator
from base.limits import MAX_BUDGET, MAX_MS, short
from games.api import Action, GameState, is_pass
from games.registry import Registry, get_game

DEFAULT_BUDGET = 2000
"""Forward-model calls per decision, as in the reference's tournament configuration."""

_SEED_BOUND = 1 << 48  # the game generators keep 48 bits of seed


class BudgetExhausted(RuntimeError):
    """Raised by `Budget.apply`/`charge` when the decision's budget is spent."""


def now() -> float:
    """The clock a time limit is measured on (seconds, monotonic; tests replace it)."""
    return time.perf_counter()


class Budget:
    """A forward-model budget for one decision: `apply` spends one call or refuses. With a
    time limit, the budget closes at the first reading of the clock past the deadline."""

    __slots__ = ("total", "used", "ms", "deadline", "clock", "timed_out")

    def __init__(self, total: int, ms: float | None = None,
                 clock: Callable[[], float] | None = None, start: float | None = None) -> None:
        """Args:
            total: the most forward-model calls the decision may spend.
            ms: the most milliseconds it may take (None: no time limit, the clock is never
                read).
            clock: seconds on a monotonic clock (default `now`).
            start: when the decision began on `clock` (default: now).
        """
        if total < 0:
            raise ValueError(f"budget: must be >= 0 forward-model calls, got {total}")
        self.total = int(total)
        self.used = 0
        self.ms = None if ms is None else check_ms(ms)
        self.clock = clock or now
        self.timed_out = False
        self.deadline = None
        if self.ms is not None:
            self.deadline = (self.clock() if start is None else start) + self.ms / 1000.0

    def _late(self) -> bool:
        """Whether the deadline has passed; if so the budget closes at the calls spent."""
        if self.deadline is None or self.clock() < self.deadline:
            return False
        self.total = self.used
        self.deadline = None
        self.timed_out = True
        return True

    def left(self) -> int:
        return self.total - self.used

    def exhausted(self) -> bool:
        if self.used >= self.total:
            return True
        return self.deadline is not None and self._late()

    def charge(self, n: int = 1) -> None:
        """Spend `n` calls without applying anything (for reference-style accounting)."""
        if self.used + n > self.total:
            raise BudgetExhausted(f"budget of {self.total} forward-model calls spent")
        self.used += n

    def apply(self, state: GameState, action: Action) -> None:
        """Apply `action` to a search copy, spending one forward-model call. Past the
        deadline, this call is the last one: the budget closes after it (a search that asked
        `exhausted` before it is never refused mid-step)."""
        if self.used >= self.total:
            raise BudgetExhausted(f"budget of {self.total} forward-model calls spent")
        if self.deadline is not None and self._late():
            self.total = self.used + 1
        self.used += 1
        state.apply(action)


class Share(Budget):
    """Part of a budget: at most `calls` of `parent`'s remaining calls, and every call spent
    here is spent there too (a rollout given its share of a decision's budget)."""

    __slots__ = ("parent",)

    def __init__(self, parent: Budget, calls: int) -> None:
        """Args:
            parent: the budget the calls are taken from.
            calls: the most this share may spend (cut to what `parent` has left).
        """
        super().__init__(max(0, min(int(calls), parent.left())))
        self.parent = parent

    def left(self) -> int:
        return min(self.total - self.used, self.parent.left())

    def exhausted(self) -> bool:
        return self.used >= self.total or self.parent.exhausted()

    def charge(self, n: int = 1) -> None:
        if self.used + n > self.total:
            raise BudgetExhausted(f"share of {self.total} forward-model calls spent")
        self.parent.charge(n)
        self.used += n

    def apply(self, state: GameState, action: Action) -> None:
        if self.used >= self.total:
            raise BudgetExhausted(f"share of {self.total} forward-model calls spent")
        self.parent.apply(state, action)
        self.used += 1


def arguments(frame_locals: dict[str, Any]) -> dict[str, Any]:
    """A constructor's arguments from its `locals()` (taken first thing in `__init__`)."""
    return {k: v for k, v in frame_locals.items() if k not in ("self", "__class__")}


def at_least(p: dict[str, Any], name: str, lo: float, optional: bool = False,
             hi: float | None = None) -> None:
    """`p[name]` must be a number >= lo (or None when `optional`), and <= hi when given.

    Args:
        p: the parameters.
        name: the parameter checked.
        lo: the smallest value allowed.
        optional: whether None is allowed.
        hi: the largest value allowed (a count's `base.limits.MAX_AGENT_COUNT`).
    """
    v = p[name]
    if optional and v is None:
        return
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name}: must be a number >= {lo:g}, got {short(v)}")
    if not v >= lo:
        raise ValueError(f"{name}: must be >= {lo:g}, got {short(v)}")
    if hi is not None and v > hi:
        raise ValueError(f"{name}: must be at most {hi:g}, got {short(v)}")


MIN_BUDGET = 1
"""The smallest budget anywhere (agents, run and tournament configs, `--budget`): a
decision searches at least one forward-model call."""


def check_budget(budget: Any) -> int:
    """A budget as given by a config or command line: a whole number of forward-model calls
    from `MIN_BUDGET` to `MAX_BUDGET`. A whole float within the bounds (300.0) is read as
    that int; any other float, 1e20 among them, is refused, never converted.

    Args:
        budget: the budget as given.
    """
    whole = not isinstance(budget, bool) and isinstance(budget, numbers.Real) \
        and math.isfinite(budget) and budget == int(budget)
    if whole and budget > MAX_BUDGET:
        raise ValueError(f"budget: at most {MAX_BUDGET} forward-model calls per decision, "
                         f"got {short(budget)}")
    if not whole or budget < MIN_BUDGET:
        raise ValueError(f"budget: must be a whole number of forward-model calls >= "
                         f"{MIN_BUDGET}, got {short(budget)}")
    return int(budget)


def check_ms(ms: Any) -> float:
    """A time limit as given: milliseconds per decision, a number > 0 and at most `MAX_MS`.

    Args:
        ms: the time limit as given.
    """
    if isinstance(ms, bool) or not isinstance(ms, numbers.Real) or not math.isfinite(ms) \
            or not 0 < ms <= MAX_MS:
        raise ValueError(f"ms: a time per decision in milliseconds, > 0 and at most {MAX_MS}, "
                         f"expected, got {short(ms)}")
    return float(ms)


def search_copy(state: GameState, rng: np.random.Generator) -> GameState:
    """A copy for search with its own random stream drawn from the agent's generator, so a
    search never consumes (or peeks at) the game's own random outcomes."""
    c = state.copy()
    c.reseed(randbelow(rng, _SEED_BOUND))
    return c


def flag(value: Any, name: str) -> bool:
    """A typed flag: True or False (text such as "false" is parsed at the edge,
    `play.specs`)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}: expected true or false, got {short(value)}")


# ------------------------------------------------------------------------------ game hooks
class GameHooks:
    """Optional game knowledge for search. The defaults make no assumption about the game."""

    def root_groups(self, state: GameState) -> list[list[Action]] | None:
        """Non-empty groups of root actions of which root prioritisation picks one at random,
        or None when the game has no grouping (search then uses every legal action)."""
        return None

    def excluded(self, state: GameState, action: Action) -> bool:
        """Actions random play and one-step look-ahead never choose unless nothing else is
        legal (the reference keeps self-destructive actions out of random play)."""
        return False

    def turn_key(self, state: GameState) -> Hashable | None:
        """A value that is equal exactly for decisions of the same turn of the same player
        (None: unknown, buffers are then never carried over)."""
        return None

    def actor_kinds(self, state: GameState) -> list[tuple[Hashable, tuple]] | None:
        """The actors of the player to move that may have legal actions, each with a tuple of
        the action kinds (as `actions_by_actor` groups them) it may have, found without
        listing actions: a superset is fine, a missing actor or kind is not. None: the game
        does not tell (the lazy portfolio sampler then lists every actor)."""
        return None

    def actor_actions(self, state: GameState, actor: Hashable) -> dict:
        """One actor's legal actions grouped by kind, `state.actions_by_actor().get(actor,
        {})`; a game may list only that actor."""
        return state.actions_by_actor().get(actor, {})


HOOKS = Registry("search hooks")
"""Each game's `GameHooks` factory (a game without one gets the neutral defaults)."""
_HOOK_CACHE: dict[str, GameHooks] = {}


def register_hooks(game: str, factory: Callable[[], GameHooks]) -> None:
    """Register a game's search hooks: `factory()` builds its `GameHooks` (once per game)."""
    HOOKS.add("hooks", factory, game=game)
    _HOOK_CACHE.clear()


def hooks_for(game: str) -> GameHooks:
    """The hooks of a game by name; a game that registered none gets the neutral defaults."""
    if game not in _HOOK_CACHE:
        factory = HOOKS.find("hooks", game)
        _HOOK_CACHE[game] = factory() if factory is not None else GameHooks()
    return _HOOK_CACHE[game]


def random_action(state: GameState, rng: np.random.Generator, hooks: GameHooks,
                  avoid_pass: bool = False) -> Action:
    """A uniformly random legal action, never an excluded one (nor the pass action of a
    multi-action turn when asked) unless nothing else is legal. Rejection first: the filtered
    list is built only on a miss."""
    acts = state.legal_actions()
    if len(acts) == 1:
        return acts[0]
    a = acts[randbelow(rng, len(acts))]
    if not hooks.excluded(state, a) and not (avoid_pass and is_pass(state, a)):
        return a
    pool = [b for b in acts if not hooks.excluded(state, b)
            and not (avoid_pass and is_pass(state, b))]
    if not pool:
        pool = [b for b in acts if not hooks.excluded(state, b)] or list(acts)
    return pool[randbelow(rng, len(pool))]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector out of a block: it is disabled for the block and
    left as it was found afterwards, also when the block raises.

    A decision allocates tens of thousands of short-lived objects (search copies, nodes,
    action lists); with the collector on, they trigger dozens of collections per decision,
    each of which walks the growing search tree. Everything a search allocates is freed by
    reference counting once the search lets go of it (trees are released explicitly,
    `agents.tree.release`), so nothing is left for the collector to find."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


NO_HORIZON = 1 << 30
"""A horizon that is never reached: play to the end of the game (within the budget)."""


class SearchAgent:
    """What every search agent sets up the same way: its seed and generator, its default
    budget, the game's hooks and the state evaluator (by name or an object).

    With `game=None` the agent binds to the game of the first state it decides in; `bind`
    then resolves the game's hooks, its default evaluator (when `evaluator` is None) and
    its default search horizon (when the agent's horizon is None)."""

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        """Raise one ValueError naming the first bad value among the agent's parameters `p`
        (every parameter, defaults filled in), without building anything: configs are checked
        with it before any game runs, and the constructor calls it too. Subclasses add theirs
        to the base checks (budget, game, evaluator name)."""
        check_budget(p["budget"])
        ev = p.get("evaluator")
        g = p.get("game") or game
        if isinstance(ev, (str, Mapping)) and g is not None:
            check_evaluator(g, ev)

    def __init__(self, seed: int, budget: int, game: str | None, evaluator: Any) -> None:
        self.seed = seed
        self.budget = check_budget(budget)
        self.game = game
        self.evaluator = evaluator
        self.rng = np.random.default_rng(seed)
        self.last_budget: Budget | None = None
        self._bound: str | None = None
        if game is not None:
            self.bind(game)

    def bind(self, game: str) -> None:
        """Resolve everything that depends on the game (an unknown evaluator fails here)."""
        self.hooks = hooks_for(game)
        self.evaluator_object = make_evaluator(game, self.evaluator)
        self.evaluate = self.evaluator_object.evaluate
        self.game_horizon = getattr(get_game(game), "search_horizon", None)
        self._bound = game

    def prepare(self, state: GameState) -> None:
        """Called at the start of every decision: bind to the state's game if needed."""
        game = self.game or state.game_name
        if game != self._bound:
            self.bind(game)

    def act(self, state: GameState, *, ms: float | None = None) -> Action:
        """The agent's action in `state`, searched within the agent's budget with Python's
        garbage collector paused and the evaluator told that a decision is under way
        (`agents.evaluators.deciding`). The budget it searched with, and the calls it spent
        (`last_budget.used`), stay readable in `last_budget` until the next decision.

        Args:
            state: the position to decide in (not modified).
            ms: the most milliseconds this decision may take, counted from this call (None:
                no time limit). The search stops at the first check past it, spent calls
                counted as ever, `last_budget.timed_out` set.
        """
        start = now() if ms is not None else None
        self.prepare(state)
        b = Budget(self.decision_budget(), ms=ms, start=start)
        self.last_budget = b
        with collector_paused(), deciding(self.evaluator_object):
            return self.decide(state, b)

    def decision_budget(self) -> int:
        """The forward-model calls of one decision (the agent's `budget`)."""
        return self.budget

    def decide(self, state: GameState, b: Budget) -> Action:
        """The search itself (each agent's own), called by `act`.

        Args:
            state: the position to decide in (not modified).
            b: this decision's budget; every forward-model call goes through it.
        """
        raise NotImplementedError

    def horizon_of(self, horizon: int | None) -> int:
        """A depth limit: the agent's own, else the game's, else none (`NO_HORIZON`)."""
        if horizon is not None:
            return horizon
        return self.game_horizon if self.game_horizon is not None else NO_HORIZON

    def base_params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "game": self.game,
                "evaluator": self.evaluator}
