"""One-step look-ahead: try every candidate action once and keep the best-evaluated one.

The weakest search baseline of the reference: it sees only the immediate effect of an action.
As in the reference it never chooses the pass action of a multi-action turn (Tribes: End
Turn) nor an action the game's hooks exclude (Tribes: Destroy, Disband) while anything else is
legal (so it ends its turn only when nothing else is left), and one candidate costs one
forward-model call. When the budget is smaller than the number of candidates, a random subset is tried.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.evaluators import Evaluator
from agents.search import DEFAULT_BUDGET, Budget, SearchAgent, arguments, search_copy
from games.api import Action, GameState, is_pass


class OSLAAgent(SearchAgent):
    name = "osla"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (ties and candidate order).
            budget: forward-model calls per decision (one per candidate tried).
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)

    def decide(self, state: GameState, b: Budget) -> Action:
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        hooks = self.hooks
        cands = [a for a in acts if not is_pass(state, a) and not hooks.excluded(state, a)]
        if not cands:
            cands = [a for a in acts if not hooks.excluded(state, a)] or list(acts)
            ends = [a for a in cands if is_pass(state, a)]
            return ends[0] if ends else cands[int(self.rng.integers(len(cands)))]
        rng = self.rng
        order = rng.permutation(len(cands))
        me = state.current_player
        root = state.copy()
        best_v = -np.inf
        best: list[Action] = []
        for i in order:
            if b.exhausted():
                break
            a = cands[int(i)]
            s = search_copy(root, rng)
            b.apply(s, a)
            v = self.evaluate(root, s, me)
            if v > best_v:
                best_v, best = v, [a]
            elif v == best_v:
                best.append(a)
        if not best:
            return cands[int(order[0])]
        return best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "game": self.game,
                "evaluator": self.evaluator}
