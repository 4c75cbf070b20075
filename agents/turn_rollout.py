"""Turn-level baselines of one-ply search: judge each action of the decision by the end of
the own turn it leads to (`turn_rollout`), or by the state right after it (`hillclimb`).

**Rollout** (`turn_rollout`). Every candidate action of the decision is applied to a search
copy (one forward-model call); from the state it leads to, `rollouts` rollouts play on to the
end of the agent's turn with the rollout policy of the one-ply action-tree search
(`agents.action_tree.rollout_to_turn_end`: `greedy` tries every candidate action on a copy
and continues from the best by the evaluator, the pass of the turn among them; `random`
plays uniformly random actions). An action's value is the mean over its rollouts of the
value of the first state after the turn ended; an action that ends the turn (or the game) is
valued by that state without a rollout. The best action is played, ties at random.

**Hillclimb** (`hillclimb`). The same with no rollout: every candidate action is applied once
and valued by the evaluator on the state it leads to (a one-step greedy choice). It differs
from one-step look-ahead (`osla`) in one point: the pass of the turn (Tribes' End Turn) is a
candidate like any other action, valued by the first state after the turn ended, so hillclimb
ends its turn as soon as nothing else scores better, where `osla` plays on until nothing but
the pass is left. In a game with single-action turns the two choose alike.

**Candidates** are the legal actions but those the game's hooks exclude (Tribes: Destroy,
Disband), or all of them when nothing else is legal; they are tried in random order.

**Budget.** Counted in forward-model calls. The calls left are shared out evenly over the
candidates not tried yet (what one leaves unspent goes to those after it), and an action's
share evenly over its rollouts; a rollout whose share runs out evaluates the state it reached.
When the budget is smaller than the number of candidates, a random subset is tried, each
without rollout. A decision never spends more than its budget and may spend less (short turns,
actions that end the turn).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from agents.action_tree import ROLLOUTS, rollout_to_turn_end
from agents.evaluators import Evaluator
from agents.search import (
    DEFAULT_BUDGET,
    Budget,
    SearchAgent,
    Share,
    arguments,
    at_least,
    search_copy,
)
from agents.tree import TIE
from base.limits import MAX_AGENT_COUNT
from games.api import Action, GameState, ends_turn


class TurnRolloutAgent(SearchAgent):
    name = "turn_rollout"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, policy: str = "greedy",
                 rollouts: int = 1, greedy_k: int | None = None, game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (same seed, same decisions).
            budget: forward-model calls per decision, shared out over the candidate actions.
            policy: the rollout policy after each candidate action: "greedy" (every candidate
                action tried, the best by the evaluator kept) or "random".
            rollouts: rollouts to the end of the turn per candidate action (a whole number
                >= 0; their mean is the action's value; 0 values the action by the state it
                leads to, as `hillclimb`).
            greedy_k: candidates per greedy rollout step: None for every legal action, else a
                random k of them (the pass of the turn always among them).
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        type(self).check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)
        self.policy = policy
        self.rollouts = int(rollouts)
        self.greedy_k = greedy_k
        self.last_values: list[tuple[Action, float]] = []

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        if p["policy"] not in ROLLOUTS:
            raise ValueError(f"policy: one of {', '.join(ROLLOUTS)} expected, "
                             f"got {p['policy']!r}")
        _whole(p, "rollouts", 0)
        if p["greedy_k"] is not None:
            _whole(p, "greedy_k", 1)

    def decide(self, state: GameState, b: Budget) -> Action:
        self.last_values = []
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rng, hooks = self.rng, self.hooks
        cands = [a for a in legal if not hooks.excluded(state, a)] or list(legal)
        order = rng.permutation(len(cands))
        me = state.current_player
        root = state.copy()
        for done, i in enumerate(order):
            if b.exhausted():
                break
            a = cands[int(i)]
            share = Share(b, max(1, b.left() // (len(order) - done)))
            t = search_copy(root, rng)
            share.apply(t, a)
            if self.rollouts == 0 or ends_turn(root, a) or t.is_terminal():
                v = self.evaluate(root, t, me)
            else:
                total = 0.0
                for r in range(self.rollouts):
                    part = Share(share, share.left() // (self.rollouts - r))
                    total += rollout_to_turn_end(self, search_copy(t, rng), base=root, me=me,
                                                 b=part, policy=self.policy,
                                                 greedy_k=self.greedy_k)
                v = total / self.rollouts
            self.last_values.append((a, v))
        if not self.last_values:
            return cands[int(order[0])]
        top = max(v for _, v in self.last_values)
        best = [a for a, v in self.last_values if v >= top - TIE]
        return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]

    def params(self) -> dict[str, Any]:
        return {**self.base_params(), "policy": self.policy, "rollouts": self.rollouts,
                "greedy_k": self.greedy_k}


class HillclimbAgent(TurnRolloutAgent):
    name = "hillclimb"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (candidate order and ties).
            budget: forward-model calls per decision (one per candidate action tried).
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        super().__init__(seed=seed, budget=budget, rollouts=0, game=game, evaluator=evaluator)

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        SearchAgent.check_params.__func__(cls, p, game)

    def params(self) -> dict[str, Any]:
        return self.base_params()


def _whole(p: dict[str, Any], name: str, lo: int) -> None:
    """`p[name]` must be a whole number >= lo."""
    at_least(p, name, lo, hi=MAX_AGENT_COUNT)
    v = p[name]
    if not isinstance(v, numbers.Integral) and not (math.isfinite(v) and v == int(v)):
        raise ValueError(f"{name}: must be a whole number >= {lo}, got {v!r}")
