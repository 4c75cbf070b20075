"""Flat Monte Carlo: random root action, random playout, evaluate; return the best mean.

Each iteration picks a root action uniformly at random (never the pass action of a
multi-action turn, Tribes' End Turn, while something else is legal), plays it on a search copy
followed by random actions (again avoiding the pass, so the playout mostly stays in the own
turn, as in the reference) up to `rollout_length` actions in all (default: the game's
`search_horizon`, or to the end of the game), and evaluates the end state against the root.
The answer is the root action with the highest plain mean. Unlike the reference it gives the
opponents no random extra techs (a leftover of partial observability) and uses the plain mean,
not the highest mean ever seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.evaluators import Evaluator
from agents.search import (
    DEFAULT_BUDGET,
    Budget,
    SearchAgent,
    arguments,
    at_least,
    flag,
    random_action,
    search_copy,
)
from games.api import Action, GameState, is_pass


class FlatMCAgent(SearchAgent):
    name = "mc"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET,
                 rollout_length: int | None = None, prioritize_root: bool = False,
                 game: str | None = None, evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator.
            budget: forward-model calls per decision.
            rollout_length: actions per playout, the root action included; None takes the
                game's `search_horizon` (Tribes: 20; a game without one: to the end).
            prioritize_root: try only one random group of root actions (the game's hooks).
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)
        self.rollout_length = rollout_length
        self.prioritize_root = prioritize_root

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        at_least(p, "rollout_length", 1, optional=True)
        flag(p["prioritize_root"], "prioritize_root")

    def root_actions(self, state: GameState) -> list[Action]:
        """The candidate root actions: one random group under root prioritisation, End Turn
        removed unless it is all there is."""
        acts = list(state.legal_actions())
        if self.prioritize_root:
            groups = self.hooks.root_groups(state)
            if groups:
                acts = groups[int(self.rng.integers(len(groups)))]
        cands = [a for a in acts if not is_pass(state, a)]
        return cands or acts

    def decide(self, state: GameState, b: Budget) -> Action:
        length = self.horizon_of(self.rollout_length)
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rng, hooks = self.rng, self.hooks
        cands = self.root_actions(state)
        if len(cands) == 1:
            return cands[0]
        me = state.current_player
        root = state.copy()
        n = len(cands)
        sums = [0.0] * n
        counts = [0] * n
        while not b.exhausted():
            k = int(rng.integers(n))
            s = search_copy(root, rng)
            b.apply(s, cands[k])
            steps = 1
            while steps < length and not s.is_terminal() and not b.exhausted():
                b.apply(s, random_action(s, rng, hooks, avoid_pass=True))
                steps += 1
            sums[k] += self.evaluate(root, s, me)
            counts[k] += 1
        best_v = -np.inf
        best: list[int] = []
        for k in range(n):
            if counts[k]:
                v = sums[k] / counts[k]
                if v > best_v:
                    best_v, best = v, [k]
                elif v == best_v:
                    best.append(k)
        if not best:
            return cands[int(rng.integers(n))]
        return cands[best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]]

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "rollout_length": self.rollout_length,
                "prioritize_root": self.prioritize_root, "game": self.game,
                "evaluator": self.evaluator}
