"""Hindsight optimisation (HOP): sample full worlds the player cannot tell from the real one,
plan in each as if it were certain, average each first action's value over the worlds.

One decision, for the player p to move:

1. Belief. With ``belief="particles"`` the agent keeps the game's belief
   (`games.api.new_belief`, e.g. Navy Defense's particle filter of `particles` states) and
   feeds it p's observation (`games.api.observation`) at every decision. With ``"none"``
   (the *paranoid* variant) it keeps nothing: every world is consistent with the current
   observation only. With ``"true"`` (the *omniscient* upper bound) the worlds are copies of
   the real state: this setting reads hidden information. A game-specific setting may offer
   more kept beliefs (`BELIEFS`, `KEPT`; Navy Defense's ``exact``) by `make_belief`.
2. Worlds. `samples` worlds: `games.api.determinise(state, p, rng, belief)`, each with its own
   luck (reseeded), drawn with replacement.
3. Plan. In each world, every legal first action a is applied and followed by a depth-first
   search of `horizon` more actions: the mover's best value where p moves, the worst (for p)
   where another player moves (paranoid, as perfect-information Monte Carlo does in card
   games), the evaluator's value at the horizon or the end. The search has alpha-beta cuts;
   with an evaluator that declares `monotone` (a value that only decreases along a path,
   minus an accruing cost: Navy's `cost`), a node already no better than the best alternative
   is cut: branch-and-bound. Each world's randomness is fixed by its seed, so every branch
   meets the same luck (the game's own tie-breaks decide how).
4. Choice. The first action with the best mean value over the worlds; ties go to the action
   the game lists first (Navy: STAY).

Budget: every `apply` of the planning is one forward-model call (`agents.search.Budget`);
None (the default) is no limit, the source's setting. Worlds are planned one after the other;
a world the budget cuts short is left out of the means (with no world finished, the first
actions of the interrupted world that were finished decide; with none, the first legal
action). The belief's upkeep (a particle filter advances its particles) is not search: it
is counted apart (`last_belief_calls`).
"""

from __future__ import annotations

import math
from typing import Any

from agents.evaluators import Evaluator, make_evaluator
from agents.search import (
    Budget,
    BudgetExhausted,
    SearchAgent,
    arguments,
    at_least,
    check_budget,
)
from base.limits import MAX_AGENT_COUNT
from games.api import Action, GameState, determinise, new_belief, observation

BELIEFS = ("particles", "none", "true")
UNLIMITED = 1 << 62
_SEED_BOUND = 1 << 48


class HOPAgent(SearchAgent):
    name = "hop"
    BELIEFS = BELIEFS
    """The belief settings offered (a game-specific setting may add its own)."""
    KEPT = ("particles",)
    """The settings whose belief is kept and fed every observation (`make_belief`)."""

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        if p.get("budget") is not None:
            check_budget(p["budget"])
        for key in ("samples", "particles"):
            at_least(p, key, 1, hi=MAX_AGENT_COUNT)
            if p[key] != int(p[key]):
                raise ValueError(f"{key}: a whole number expected, got {p[key]!r}")
        at_least(p, "horizon", 0)
        if p["horizon"] != int(p["horizon"]):
            raise ValueError(f"horizon: a whole number expected, got {p['horizon']!r}")
        if p["belief"] not in cls.BELIEFS:
            raise ValueError(f"belief: one of {', '.join(cls.BELIEFS)} expected, "
                             f"got {p['belief']!r}")
        super().check_params({**p, "budget": p.get("budget") or 1}, game)

    def __init__(self, seed: int = 0, budget: int | None = None, game: str | None = None,
                 evaluator: str | Evaluator | None = None, samples: int = 30, horizon: int = 5,
                 belief: str = "particles", particles: int = 30) -> None:
        """Args:
            seed: seed of the agent's generator (worlds, luck) and of its belief.
            budget: forward-model calls per decision; None: no limit.
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
            samples: worlds sampled per decision (N).
            horizon: actions searched after the first one in each world (H).
            belief: ``particles`` (the game's belief), ``none`` (paranoid: the current
                observation only) or ``true`` (omniscient: the real state).
            particles: the size of the game's belief (K).
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget or 1, game, evaluator)
        self.budget = budget
        self.samples = int(samples)
        self.horizon = int(horizon)
        self.belief = belief
        self.particles = int(particles)
        self._belief = None
        self._belief_game: str | None = None
        self.last_belief_calls = 0
        self.last_values: dict[Action, float] = {}
        self.last_worlds: list[GameState] = []

    def bind(self, game: str) -> None:
        super().bind(game)
        ev = self.evaluator
        if ev is None or isinstance(ev, str):
            ev = make_evaluator(game, ev, terminal=False)
        self.monotone = bool(getattr(ev, "monotone", False))

    def decision_budget(self) -> int:
        return self.budget if self.budget is not None else UNLIMITED

    # -- one decision -------------------------------------------------------------------------
    def _update_belief(self, state: GameState, me: int):
        if self.belief not in self.KEPT:
            return None
        if self._belief is None or self._belief_game != state.game_name:
            self._belief = self.make_belief(state, me, int(self.rng.integers(_SEED_BOUND)))
            self._belief_game = state.game_name
        if self._belief is not None:
            before = getattr(self._belief, "calls", 0)
            self._belief.update(observation(state, me))
            self.last_belief_calls = getattr(self._belief, "calls", 0) - before
        return self._belief

    def make_belief(self, state: GameState, me: int, seed: int):
        """A fresh belief of `me` (the game's, `games.api.new_belief`, of `particles` size);
        a game-specific setting may override it (e.g. to simulate another model).

        Args:
            state: the state of the first decision.
            me: the player.
            seed: the belief's seed.
        """
        return new_belief(state, me, self.particles, seed)

    def sample_world(self, state: GameState, me: int, belief=None) -> GameState:
        """One world the planner searches, before its luck is reseeded: a copy of `state`
        (``belief="true"``), else `games.api.determinise` (from `belief` when given); a
        game-specific setting may override it.

        Args:
            state: the real state.
            me: the player.
            belief: the belief kept by `decide`, if any.
        """
        if self.belief == "true":
            return state.copy()
        return determinise(state, me, self.rng, belief)

    def worlds(self, state: GameState, me: int, belief=None) -> list[GameState]:
        """This decision's sampled worlds, from `belief` (kept by `decide`) if given."""
        out = []
        for _ in range(self.samples):
            w = self.sample_world(state, me, belief)
            w.reseed(int(self.rng.integers(_SEED_BOUND)))
            out.append(w)
        return out

    def decide(self, state: GameState, b: Budget) -> Action:
        acts = list(state.legal_actions())
        me = state.current_player
        belief = self._update_belief(state, me)
        if len(acts) == 1:
            return acts[0]
        worlds = self.worlds(state, me, belief)
        self.last_worlds = worlds
        total = dict.fromkeys(acts, 0.0)
        done = 0
        partial: dict[Action, float] = {}
        for w in worlds:
            values: dict[Action, float] = {}
            try:
                for a in acts:
                    values[a] = self.first_action_value(w, a, b, me)
            except BudgetExhausted:
                partial = values
                break
            for a in acts:
                total[a] += values[a]
            done += 1
        if done:
            means = {a: total[a] / done for a in acts}
        else:
            means = partial
        self.last_values = means
        if not means:
            return acts[0]
        best = max(means.values())
        return next(a for a in acts if a in means and means[a] == best)

    def first_action_value(self, world: GameState, action: Action, b: Budget, me: int) -> float:
        """The value for `me` of `action` in `world` followed by the best plan of `horizon`
        actions (the planner of one world)."""
        c = world.copy()
        b.apply(c, action)
        return self.value(c, self.horizon, -math.inf, math.inf, b, world, me)

    def value(self, s: GameState, depth: int, alpha: float, beta: float, b: Budget,
              root: GameState, me: int) -> float:
        """Depth-first value of `s` for `me`, `depth` actions deep, within (alpha, beta)."""
        v = self.evaluate(root, s, me)
        if depth <= 0 or s.is_terminal():
            return v
        mine = s.current_player == me
        if mine and self.monotone and v <= alpha:
            return v  # no descendant is worth more than v: branch-and-bound cut
        if mine:
            best = -math.inf
            for a in s.legal_actions():
                c = s.copy()
                b.apply(c, a)
                x = self.value(c, depth - 1, max(alpha, best), beta, b, root, me)
                if x > best:
                    best = x
                    if best >= beta:
                        break
            return best
        worst = math.inf
        for a in s.legal_actions():
            c = s.copy()
            b.apply(c, a)
            x = self.value(c, depth - 1, alpha, min(beta, worst), b, root, me)
            if x < worst:
                worst = x
                if worst <= alpha:
                    break
        return worst

    def params(self) -> dict[str, Any]:
        return {**self.base_params(), "samples": self.samples, "horizon": self.horizon,
                "belief": self.belief, "particles": self.particles}
