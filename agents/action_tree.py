"""One-ply MCTS over action trees: search only the agent's own turn, one action at a time.

A turn of a game with multi-action turns is a sequence of single actions that ends where
`games.api.ends_turn` says (Tribes: End Turn); in a game with single-action turns every action
ends it, so the tree is one ply. The search never looks into another player's turn: a state
reached by an action that ends the turn (or a finished game) is a leaf, scored by the
evaluator from the searcher's view.

**The action tree.** The legal actions of a state are not hung under it directly but grouped
into decision nodes (`tree`): `"type"` groups them by action kind, then by source (the actor
that performs them: a unit, a city, the tribe), then the ground actions; `"actor"` puts the
actor first and the kind second; `"flat"` hangs the ground actions directly under the state.
A layer whose node would have a single child is skipped (a kind with one action is that
action), so a game without actors and kinds (Nim, every OpenSpiel game) is flat whatever
`tree` says. Choosing an action is one UCT choice per layer.

**An iteration** walks down from the root by UCT (an unvisited child first, ties at random),
through decision nodes to a ground action and into the state it leads to, until it reaches a
ground action not yet tried: that action is applied to a search copy of its parent's state
(one forward-model call) and the new state becomes a node (the expansion). If the action ended
the turn or the game, the new state is evaluated; otherwise a rollout plays on to the end of
the turn from a copy: `greedy` applies every candidate action to its own copy (one call each),
evaluates each and continues from the best (the pass of the turn is always a candidate, so a
greedy rollout stops when ending the turn scores best), `random` plays uniformly random actions
(never one the game's hooks exclude while another is legal). The value is that of the first
state after the turn ended. The value goes back up the path: every node counts the visit; a
leaf keeps the mean of its values, every other node the maximum of its visited children's
values (the best turn found below it).

Each node keeps its state, so walking down the tree costs nothing; a ground action has one
outcome, the state of its first simulation (a chance outcome inside the own turn, Tribes'
ruins, is represented by that sample). A leaf that ends the turn is therefore exact once
visited, and a subtree whose leaves are all exact is not searched again (this generalises the
source's rule that a deterministic End Turn visited once is skipped); when the whole tree is
exact the search stops before its budget is spent.

**The answer.** From the root, follow the child with the best value (`final="value"`) or the
most visited one (`final="visits"`, ties by value, then at random) down to a ground action.

**UCT.** A child scores  q + c·sqrt(ln N / n), with q its value normalised by the smallest
and largest value backed up through the parent (0.5 when they are equal), as in `mcts`: `c`
is on a [0, 1] scale whatever the evaluator's units. Unvisited children come first.

**Reuse within a turn.** After a decision the subtree below the chosen ground action is kept
if that action did not end the turn. The next decision reuses it when the position matches:
the same player, the same turn (the game hooks' `turn_key`, else the round and the player),
the same legal actions in the same order and the same scores as the kept node's state. A
mismatch (another game, a forced action played in between, a chance outcome that differs from
the sample) starts a fresh tree. Values in a reused tree stay comparable because every leaf
of a turn's tree is evaluated against the same state, the one the tree was first built from.
Nodes kept from the last decision were paid for by it: a decision's budget counts only the
forward-model calls it makes itself, and never more than its budget.

Nodes hold no link to their parents (values go back up along the path of the iteration), so
trees never form reference cycles and are freed by reference counting.
"""

from __future__ import annotations

import math
from typing import Any, Hashable

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
from agents.tree import TIE, run_iterations
from games.api import Action, GameState, ends_turn, is_pass

ROLLOUTS = ("greedy", "random")
FINALS = ("value", "visits")
TREES = ("type", "actor", "flat")
KIND, ACTOR = 0, 1
"""Positions of the layer keys in a labelled action `(kind, actor, action)`."""


class _Node:
    """Visits `n`, value `v` (a leaf: the mean of its values; otherwise the best visited
    child's value), the range [`lo`, `hi`] of the values backed up through it, its children
    (None until built) and whether its subtree is exhausted (`done`)."""

    __slots__ = ("n", "v", "lo", "hi", "children", "done")

    def __init__(self) -> None:
        self.n = 0
        self.v = 0.0
        self.lo = math.inf
        self.hi = -math.inf
        self.children: list[_Node] | None = None
        self.done = False


class _Choice(_Node):
    """A decision node of the action tree (an action kind or an actor); `actions` are the
    ground actions below it, turned into children when it is first walked through."""

    __slots__ = ("actions", "layers")

    def __init__(self, actions: list[tuple], layers: tuple[int, ...]) -> None:
        _Node.__init__(self)
        self.actions = actions
        self.layers = layers


class _Step(_Node):
    """A ground action and the state it leads to (None until simulated); `end` when that
    state is another player's turn or a finished game. The root is a step without action."""

    __slots__ = ("action", "state", "end")

    def __init__(self, action: Action | None, state: GameState | None = None,
                 end: bool = False) -> None:
        _Node.__init__(self)
        self.action = action
        self.state = state
        self.end = end


class ActionTreeAgent(SearchAgent):
    name = "atree"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, c: float = math.sqrt(2),
                 rollout: str = "greedy", final: str = "value", tree: str = "type",
                 greedy_k: int | None = None, reuse: bool = True, game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (same seed, same decisions).
            budget: forward-model calls per decision.
            c: exploration constant, on values normalised to [0, 1] per node.
            rollout: how a new state is played to the end of the turn: "greedy" (every
                candidate action tried, the best by the evaluator kept) or "random".
            final: the answer: the best child by "value" or the most "visits" at each layer.
            tree: the action tree: "type" (kind, then actor, then action), "actor" (actor,
                then kind, then action) or "flat" (actions directly under the state).
            greedy_k: candidates per greedy rollout step: None for every legal action, else a
                random k of them (the pass of the turn always among them).
            reuse: keep the subtree of the chosen action for the next decision of the turn.
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)
        self.c = float(c)
        self.rollout = rollout
        self.final = final
        self.tree = tree
        self.greedy_k = greedy_k
        self.reuse = reuse
        self.last_iterations = 0
        self.last_start_visits = 0
        self._kept: _Step | None = None
        self._kept_base: GameState | None = None
        self._kept_key: Hashable = None

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        at_least(p, "c", 0)
        at_least(p, "greedy_k", 1, optional=True)
        if p["greedy_k"] is not None and p["greedy_k"] != int(p["greedy_k"]):
            raise ValueError(f"greedy_k: must be a whole number >= 1, got {p['greedy_k']!r}")
        for name, allowed in (("rollout", ROLLOUTS), ("final", FINALS), ("tree", TREES)):
            if p[name] not in allowed:
                raise ValueError(f"{name}: one of {', '.join(allowed)} expected, "
                                 f"got {p[name]!r}")
        flag(p["reuse"], "reuse")

    @property
    def kept_visits(self) -> int:
        """Visits of the subtree kept for the next decision of the turn (0: none kept)."""
        return self._kept.n if self._kept is not None else 0

    # ------------------------------------------------------------------ decision
    def decide(self, state: GameState, b: Budget) -> Action:
        self.last_iterations = 0
        self.last_start_visits = 0
        kept, base, key = self._kept, self._kept_base, self._kept_key
        self._kept = self._kept_base = self._kept_key = None
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player
        if kept is not None and key == self._position_key(state):
            root = kept
            self.last_start_visits = root.n
        else:
            root = _Step(None, state.copy())
            base = root.state
        self.last_iterations = run_iterations(
            b, lambda: self._iterate(root, base, me, b), stop=lambda: root.done)
        step = self._answer(root, legal)
        if self.reuse and step is not None and step.state is not None and not step.end:
            self._kept, self._kept_base = step, base
            self._kept_key = self._position_key(step.state)
        return step.action if step is not None else legal[int(self.rng.integers(len(legal)))]

    def _position_key(self, state: GameState) -> Hashable:
        """What a reused node's state and the decision's state must share: the player, the
        turn, the legal actions in order and the scores."""
        turn = self.hooks.turn_key(state)
        if turn is None:
            turn = (state.tick, state.current_player)
        return (state.current_player, turn, tuple(state.legal_actions()),
                tuple(state.scores()))

    # ------------------------------------------------------------------ the action tree
    def _layers(self) -> tuple[int, ...]:
        """The decision layers above the ground actions, as positions in a labelled action
        `(kind, actor, action)`."""
        return {"type": (KIND, ACTOR), "actor": (ACTOR, KIND), "flat": ()}[self.tree]

    def _children_of_state(self, state: GameState) -> list[_Node]:
        labelled = [(kind, actor, a) for actor, kinds in state.actions_by_actor().items()
                    for kind, acts in kinds.items() for a in acts]
        return _group(labelled, self._layers())

    def _build(self, node: _Node) -> list[_Node]:
        if isinstance(node, _Step):
            node.children = self._children_of_state(node.state)
        else:
            node.children = _group(node.actions, node.layers)
            node.actions = []
        return node.children

    # ------------------------------------------------------------------ iteration
    def _iterate(self, root: _Step, base: GameState, me: int, b: Budget) -> None:
        path: list[_Node] = [root]
        node: _Node = root
        while True:
            if isinstance(node, _Step) and node.end:
                value = self.evaluate(base, node.state, me)
                break
            children = node.children if node.children is not None else self._build(node)
            if not children:  # a state with no legal action that is not over: a leaf
                node.end = True
                continue
            child = self._select(node, children)
            path.append(child)
            if isinstance(child, _Step) and child.state is None:
                parent_state = self._state_above(path)
                s = search_copy(parent_state, self.rng)
                b.apply(s, child.action)
                child.state = s
                child.end = ends_turn(parent_state, child.action) or s.is_terminal()
                value = self._rollout(child, base, me, b)
                break
            node = child
        _backup(path, value)

    @staticmethod
    def _state_above(path: list[_Node]) -> GameState:
        for node in reversed(path[:-1]):
            if isinstance(node, _Step):
                return node.state
        raise AssertionError("a path starts at the root step")

    def _select(self, node: _Node, children: list[_Node]) -> _Node:
        rng = self.rng
        open_ = [ch for ch in children if not ch.done] or children
        fresh = [ch for ch in open_ if ch.n == 0]
        if fresh:
            return fresh[int(rng.integers(len(fresh)))] if len(fresh) > 1 else fresh[0]
        lo, span = node.lo, node.hi - node.lo
        log_n = math.log(max(node.n, 1))
        c = self.c
        best_u, best = -math.inf, []
        for ch in open_:
            q = (ch.v - lo) / span if span > 0 else 0.5
            u = q + c * math.sqrt(log_n / ch.n)
            if u > best_u + TIE:
                best_u, best = u, [ch]
            elif u >= best_u - TIE:
                best.append(ch)
        return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]

    # ------------------------------------------------------------------ rollouts
    def _rollout(self, step: _Step, base: GameState, me: int, b: Budget) -> float:
        """The value of the end of the turn reached from `step`'s state by the rollout
        policy (the state itself when its action ended the turn)."""
        if step.end:
            return self.evaluate(base, step.state, me)
        return rollout_to_turn_end(self, search_copy(step.state, self.rng), base=base, me=me,
                                   b=b, policy=self.rollout, greedy_k=self.greedy_k)

    # ------------------------------------------------------------------ answer
    def _answer(self, root: _Step, legal) -> _Step | None:
        node: _Node = root
        while True:
            seen = [ch for ch in (node.children or ()) if ch.n > 0]
            if not seen:
                return None
            if self.final == "value":
                top = max(ch.v for ch in seen)
                best = [ch for ch in seen if ch.v >= top - TIE]
            else:
                top_n = max(ch.n for ch in seen)
                best = [ch for ch in seen if ch.n == top_n]
                top = max(ch.v for ch in best)
                best = [ch for ch in best if ch.v >= top - TIE]
            node = best[0] if len(best) == 1 else best[int(self.rng.integers(len(best)))]
            if isinstance(node, _Step):
                return node

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "c": self.c, "rollout": self.rollout,
                "final": self.final, "tree": self.tree, "greedy_k": self.greedy_k,
                "reuse": self.reuse, "game": self.game, "evaluator": self.evaluator}


def _group(items: list[tuple], layers: tuple[int, ...]) -> list[_Node]:
    """Children of a node from its ground actions (labelled `(kind, actor, action)`): one
    decision node per key of the first layer, or the ground actions themselves when no layer
    is left; a layer that would make a single node is skipped, and so is a decision node with
    a single action (it is that action)."""
    while layers:
        key = layers[0]
        groups: dict[Any, list] = {}
        for item in items:
            groups.setdefault(item[key], []).append(item)
        if len(groups) > 1:
            out: list[_Node] = []
            for members in groups.values():
                if len(members) == 1:
                    out.append(_Step(members[0][2]))
                else:
                    out.append(_Choice(members, layers[1:]))
            return out
        layers = layers[1:]
    return [_Step(item[2]) for item in items]


def _backup(path: list[_Node], value: float) -> None:
    """Back a value up the path: the leaf keeps the mean of its values, every other node
    the best value among its visited children; a node is exhausted when it is an evaluated
    leaf that ends the turn, or when all its children are."""
    leaf = path[-1]
    for node in reversed(path):
        node.n += 1
        if value < node.lo:
            node.lo = value
        if value > node.hi:
            node.hi = value
        if node is leaf:
            node.v += (value - node.v) / node.n
            node.done = isinstance(node, _Step) and node.end
        else:
            kids = node.children
            node.v = max(ch.v for ch in kids if ch.n > 0)
            node.done = all(ch.done for ch in kids)


def rollout_to_turn_end(agent: SearchAgent, state: GameState, *, base: GameState, me: int,
                        b: Budget, policy: str, greedy_k: int | None = None) -> float:
    """Play `state` on to the end of its mover's turn and return the value of the first state
    after the turn ended (or of the finished game), by `agent`'s evaluator against `base`.
    When the budget runs out on the way, the state reached so far is evaluated.

    Args:
        agent: the searching agent: its generator, game hooks and evaluator are used.
        state: a search copy in the middle of the turn (played on, not kept).
        base: the state values are measured against (the decision's state).
        me: the player the values are for.
        b: the budget every forward-model call is spent from.
        policy: "random" (uniformly random actions, never one the hooks exclude while
            another is legal) or "greedy" (every candidate action tried on a copy, one call
            each, the best by the evaluator kept; the pass of the turn is a candidate).
        greedy_k: candidates per greedy step: None for every legal action, else a random k
            of them (the pass of the turn always among them).
    """
    s, rng, hooks = state, agent.rng, agent.hooks
    while not b.exhausted():
        if policy == "random":
            a = random_action(s, rng, hooks)
            done = ends_turn(s, a)
            b.apply(s, a)
            if done or s.is_terminal():
                break
            continue
        best, best_v, done = greedy_step(agent, s, base=base, me=me, b=b, greedy_k=greedy_k)
        if best is None:
            break
        s = best
        if done or s.is_terminal():
            return best_v
    return agent.evaluate(base, s, me)


def greedy_step(agent: SearchAgent, state: GameState, *, base: GameState, me: int, b: Budget,
                greedy_k: int | None = None) -> tuple[GameState | None, float, bool]:
    """Try the candidate actions of `state` on copies (one call each, as many as the budget
    allows, in random order) and return the best resulting state, its value and whether its
    action ended the turn (None, -inf, False when the budget allowed none).

    Args:
        agent: the searching agent: its generator, game hooks and evaluator are used.
        state: the state the actions are tried from (not modified).
        base: the state values are measured against.
        me: the player the values are for.
        b: the budget every forward-model call is spent from.
        greedy_k: None for every legal action but those the hooks exclude (all of them if
            nothing else is legal), else a random k of those, the pass always among them.
    """
    rng, hooks = agent.rng, agent.hooks
    acts = state.legal_actions()
    cands = [a for a in acts if not hooks.excluded(state, a)] or list(acts)
    if greedy_k is not None and len(cands) > greedy_k:
        passes = [a for a in cands if is_pass(state, a)]
        others = [a for a in cands if not is_pass(state, a)]
        pick = rng.choice(len(others), size=max(greedy_k - len(passes), 0), replace=False)
        cands = passes + [others[int(i)] for i in pick]
    order = rng.permutation(len(cands))
    best, best_v, best_end = None, -math.inf, False
    for i in order:
        if b.exhausted():
            break
        a = cands[int(i)]
        t = search_copy(state, rng)
        b.apply(t, a)
        end = ends_turn(state, a) or t.is_terminal()
        v = agent.evaluate(base, t, me)
        if v > best_v:
            best, best_v, best_end = t, v, end
    return best, best_v, best_end
