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

With the searcher's rewards, values are from the searching player's point of view. At a node,
the children's mean values are normalised by the smallest and largest value ever backed up
through that node, so the exploitation term is in [0, 1]; at nodes where an opponent moves it
is replaced by 1 - normalised value (the whole UCB value is maximised, the exploration term is
never negated). In a game of more than two players every opponent thus minimises the
searcher's value, as if all of them were one adversary (paranoid).

With one reward per player (`rewards="per_player"`, max^n-style), a leaf is evaluated once
for each player (`evaluate(root, leaf, p)`, the same evaluator and win/loss bounds) and every
backup carries those values; at each node the player to move maximises its own, its
children's means normalised by the range of its own values at that node. The default
(`rewards="auto"`) is per-player rewards in games of more than two players and the
searcher's otherwise (also with the solver, which proves the searcher's wins and losses), so
two-player games are searched exactly as before.

The answer is the most visited root child (ties: the better mean for the searcher, then
random). Node statistics, selection and the final choice are shared with Portfolio MCTS
(`agents.tree`).

The exploration constant is relative to that [0, 1] scale: with c = sqrt(2) this search
explores about twice as much as an implementation whose values lie in [-1, 1] with the same
c (its value differences are twice as large); c = sqrt(2) / 2 here matches such a search
with c = sqrt(2). See docs/agents.md.

`solver=True` adds MCTS-Solver (Winands, Bjornsson and Saito 2008): a won or lost game
state is a proven value; a node where the searcher moves is proven won when one child is,
and proven lost when every child is; where an opponent moves, the reverse. Proven nodes are
not searched again, selection avoids proven losses (for the mover), and the answer is a
proven win whenever there is one. It pays in small games whose ends the search can reach.
It needs the searcher's rewards (`rewards="per_player"` with the solver is refused).
"""

from __future__ import annotations

import math
from typing import Any

from agents.draw import permutation, randbelow
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
from agents.tree import (
    TreeNode,
    backup,
    backup_each,
    each_player,
    most_visited,
    release,
    run_iterations,
    select_uct,
)
from games.api import Action, GameState

WIN, LOSS = 1, -1
"""Proven values (MCTS-Solver), from the searcher's point of view."""

REWARDS = ("auto", "searcher", "per_player")
"""What a backup carries: `searcher`, the searcher's value (opponents minimise it);
`per_player`, one value per player (each maximises its own); `auto`, per-player in games of
more than two players unless the solver is on, else the searcher's."""


class _Node(TreeNode):
    __slots__ = ("action", "children", "untried", "proven")

    def __init__(self, state: GameState, parent: "_Node | None", action: Action | None,
                 depth: int, me: int) -> None:
        TreeNode.__init__(self, state, parent, depth, me)
        self.action = action
        self.children: list[_Node] = []
        self.untried: list[Action] | None = None  # filled when first expanded
        self.proven = 0  # WIN or LOSS once proven (solver only)


class MCTSAgent(SearchAgent):
    name = "mcts"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, c: float = math.sqrt(2),
                 horizon: int | None = None, rollouts: bool = True,
                 prioritize_root: bool = False, charge_selection: bool = False,
                 solver: bool = False, rewards: str = "auto", game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (same seed, same decisions).
            budget: forward-model calls per decision.
            c: exploration constant, on values normalised to [0, 1] per node.
            horizon: depth (actions below the root) of the tree and the playouts; None
                takes the game's `search_horizon` (Tribes: 20; a game without one: to the end).
            rollouts: play random actions from a new node down to the horizon (else evaluate
                the new node itself, the paper's configuration).
            prioritize_root: search only one random group of root actions (the game's hooks).
            charge_selection: charge one call per selection step, as the reference counts.
            solver: MCTS-Solver (proven wins and losses propagated; needs the searcher's
                rewards).
            rewards: what a backup carries: "searcher" (the searcher's value; every other
                player minimises it), "per_player" (one value per player; the player to move
                maximises its own, max^n-style), or "auto": per_player in games of more than
                two players (unless `solver`), else searcher.
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)
        self.c = float(c)
        self.horizon = horizon
        self.rollouts = rollouts
        self.prioritize_root = prioritize_root
        self.charge_selection = charge_selection
        self.solver = solver
        self.rewards = rewards
        self.last_iterations = 0

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        at_least(p, "horizon", 1, optional=True)
        at_least(p, "c", 0)
        for name in ("rollouts", "prioritize_root", "charge_selection", "solver"):
            flag(p[name], name)
        if p["rewards"] not in REWARDS:
            raise ValueError(f"rewards: one of {', '.join(REWARDS)} expected, "
                             f"got {p['rewards']!r}")
        if p["solver"] and p["rewards"] == "per_player":
            raise ValueError("solver: MCTS-Solver proves the searcher's wins and losses; "
                             "it needs rewards=searcher (or auto), not per_player")

    # ------------------------------------------------------------------ decision
    def decide(self, state: GameState, b: Budget) -> Action:
        self.last_iterations = 0
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rng = self.rng
        acts = list(legal)
        if self.prioritize_root:
            groups = self.hooks.root_groups(state)
            if groups:
                acts = list(groups[randbelow(rng, len(groups))])
        if len(acts) == 1:
            return acts[0]
        me = state.current_player
        root_state = state.copy()
        root = _Node(root_state, None, None, 0, me)
        players = self.players_rewarded(state)
        if players:
            each_player(root, me)
        root.untried = self._shuffled(acts)
        depth = self.horizon_of(self.horizon)
        try:
            self.last_iterations = run_iterations(
                b, lambda: self._iterate(root, root_state, me, b, depth, players),
                stop=(lambda: root.proven != 0) if self.solver else None)
            return self._final(root, acts)
        finally:
            release(root)

    def players_rewarded(self, state: GameState) -> int:
        """The number of players a backup carries a value for in `state`'s game: 0 with the
        searcher's rewards (one value, the searcher's).

        Args:
            state: a state of the game searched.
        """
        if self.rewards == "searcher" or (self.rewards == "auto" and self.solver):
            return 0
        n = state.num_players
        return n if self.rewards == "per_player" or n > 2 else 0

    def _shuffled(self, acts) -> list[Action]:
        return [acts[i] for i in permutation(self.rng, len(acts))]

    def _iterate(self, root: _Node, root_state: GameState, me: int, b: Budget,
                 horizon: int, players: int) -> None:
        node = root
        solver = self.solver
        while True:
            st = node.state
            if node.depth >= horizon or st.is_terminal():
                break
            if solver and node.proven:
                backup(node, node.hi if node.proven == WIN else node.lo)
                return
            if node.untried is None:
                node.untried = self._shuffled(st.legal_actions())
            if node.untried:
                a = node.untried[-1]
                child_state = search_copy(st, self.rng)
                b.apply(child_state, a)
                node.untried.pop()
                child = _Node(child_state, node, a, node.depth + 1, me)
                if players:
                    each_player(child, st.current_player)
                node.children.append(child)
                node = child
                if solver and child_state.is_terminal():
                    w = child_state.winner()
                    if w is not None:
                        child.proven = WIN if w == me else LOSS
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
        if players:
            evaluate = self.evaluate
            backup_each(node, [evaluate(root_state, leaf, p) for p in range(players)])
        else:
            backup(node, self.evaluate(root_state, leaf, me))
        if solver and node.proven:
            _prove(node.parent)

    def _select(self, node: _Node) -> _Node:
        """The child maximising normalised value (flipped at opponent nodes with the searcher's
        rewards) + C·sqrt(ln N / n); with the solver, never a child proven lost for the mover
        unless all are."""
        children = node.children
        if self.solver:
            bad = WIN if node.opponent else LOSS
            open_ = [ch for ch in children if ch.proven != bad]
            if open_:
                children = open_
        return select_uct(node, children, self.c, self.rng)

    def _final(self, root: _Node, acts: list[Action]) -> Action:
        if not root.children:
            return acts[randbelow(self.rng, len(acts))]
        children = root.children
        if self.solver:
            won = [ch for ch in children if ch.proven == WIN]
            if won:
                return most_visited(won, self.rng).action
            children = [ch for ch in children if ch.proven != LOSS] or children
        return most_visited(children, self.rng).action

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "c": self.c, "horizon": self.horizon,
                "rollouts": self.rollouts, "prioritize_root": self.prioritize_root,
                "charge_selection": self.charge_selection, "solver": self.solver,
                "rewards": self.rewards, "game": self.game, "evaluator": self.evaluator}


def _prove(node: _Node | None) -> None:
    """MCTS-Solver's backup: settle ancestors whose value the proven children decide."""
    while node is not None and not node.proven:
        mover_best, mover_worst = (LOSS, WIN) if node.opponent else (WIN, LOSS)
        kids = node.children
        if any(ch.proven == mover_best for ch in kids):
            node.proven = mover_best
        elif not node.untried and kids and all(ch.proven == mover_worst for ch in kids):
            node.proven = mover_worst
        else:
            return
        node = node.parent
