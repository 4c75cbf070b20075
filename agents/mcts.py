"""UCT Monte Carlo tree search, the reference's MCTS baseline with its bugs fixed.

Every node keeps the state it stands for (a search copy), so an expansion costs exactly one
forward-model call and selection costs none; with `charge_selection` each selection step is
also charged one call, as the reference counts. By default random legal actions (the shared
random policy: never a self-destructive one while another is legal) are played from the newly
expanded node down to the horizon (depth `horizon` below the root) and that state is evaluated.
`rollouts=False` evaluates the expanded node's state itself, the paper's configuration: the
difference heuristic values neither unspent stars nor where units stand, so without playouts a
deeper tree only reorders the same greedy gains and more budget buys little (docs/agents.md
has the measurements).

Values are always from the searching player's point of view. At a node, the children's mean
values are normalised by the smallest and largest value ever backed up through that node, so
the exploitation term is in [0, 1]; at nodes where an opponent moves it is replaced by
1 - normalised value (the whole UCB value is maximised, the exploration term is never negated).
The answer is the most visited root child (ties: the better mean, then random). Node
statistics, selection and the final choice are shared with Portfolio MCTS (`agents.tree`).
"""

from __future__ import annotations

import math
from typing import Any

from games.api import Action, GameState

from agents.evaluation import Evaluator
from agents.search import (SearchAgent, Budget, DEFAULT_BUDGET, as_bool, random_action,
                           resolve_budget, search_copy)
from agents.tree import TreeNode, backup, most_visited, run_iterations, select_uct


class _Node(TreeNode):
    __slots__ = ("action", "children", "untried")

    def __init__(self, state: GameState, parent: "_Node | None", action: Action | None,
                 depth: int, me: int) -> None:
        TreeNode.__init__(self, state, parent, depth, me)
        self.action = action
        self.children: list[_Node] = []
        self.untried: list[Action] | None = None  # filled when first expanded


class MCTSAgent(SearchAgent):
    name = "mcts"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, c: float = math.sqrt(2),
                 horizon: int = 20, rollouts: bool = True, prioritize_root: bool = False,
                 charge_selection: bool = False, game: str = "tribes",
                 evaluator: str | Evaluator = "diff") -> None:
        if horizon < 1:
            raise ValueError(f"horizon: must be >= 1, got {horizon}")
        if c < 0:
            raise ValueError(f"c: must be >= 0, got {c}")
        super().__init__(seed, budget, game, evaluator)
        self.c = float(c)
        self.horizon = horizon
        self.rollouts = as_bool(rollouts, "rollouts")
        self.prioritize_root = as_bool(prioritize_root, "prioritize_root")
        self.charge_selection = as_bool(charge_selection, "charge_selection")
        self.last_iterations = 0

    # ------------------------------------------------------------------ decision
    def act(self, state: GameState, budget: int | None = None) -> Action:
        b = resolve_budget(self.budget, budget)
        self.last_budget = b
        self.last_iterations = 0
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rng = self.rng
        acts = list(legal)
        if self.prioritize_root:
            groups = self.hooks.root_groups(state)
            if groups:
                acts = list(groups[int(rng.integers(len(groups)))])
        if len(acts) == 1:
            return acts[0]
        me = state.current_player
        root_state = state.copy()
        root = _Node(root_state, None, None, 0, me)
        root.untried = self._shuffled(acts)
        self.last_iterations = run_iterations(b, lambda: self._iterate(root, root_state, me, b))
        return self._final(root, acts)

    def _shuffled(self, acts) -> list[Action]:
        order = self.rng.permutation(len(acts))
        return [acts[int(i)] for i in order]

    def _iterate(self, root: _Node, root_state: GameState, me: int, b: Budget) -> None:
        node = root
        horizon = self.horizon
        while True:
            st = node.state
            if node.depth >= horizon or st.is_terminal():
                break
            if node.untried is None:
                node.untried = self._shuffled(st.legal_actions())
            if node.untried:
                a = node.untried[-1]
                child_state = search_copy(st, self.rng)
                b.apply(child_state, a)
                node.untried.pop()
                child = _Node(child_state, node, a, node.depth + 1, me)
                node.children.append(child)
                node = child
                break
            if not node.children:
                break  # no legal action in a non-terminal state: evaluate it as it is
            if self.charge_selection:
                b.charge(1)
            node = self._select(node)
        leaf = node.state
        if self.rollouts and node.depth < horizon and not leaf.is_terminal() and not b.exhausted():
            leaf = search_copy(leaf, self.rng)
            rng, hooks = self.rng, self.hooks
            for _ in range(horizon - node.depth):
                if leaf.is_terminal() or b.exhausted():
                    break
                b.apply(leaf, random_action(leaf, rng, hooks))
        backup(node, self.evaluate(root_state, leaf, me))

    def _select(self, node: _Node) -> _Node:
        """The child maximising normalised value (flipped at opponent nodes) + C·sqrt(ln N / n)."""
        return select_uct(node, node.children, self.c, self.rng)

    def _final(self, root: _Node, acts: list[Action]) -> Action:
        if not root.children:
            return acts[int(self.rng.integers(len(acts)))]
        return most_visited(root.children, self.rng).action

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "c": self.c, "horizon": self.horizon,
                "rollouts": self.rollouts, "prioritize_root": self.prioritize_root,
                "charge_selection": self.charge_selection, "game": self.game,
                "evaluator": self.evaluator}
