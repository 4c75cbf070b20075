"""Portfolio MCTS (P-MCTS): UCT over action assignments, with progressive bias and weighted
progressive unpruning (Perez-Liebana et al., CoG 2021; reference notes sections 2, 5 and 6).

The edges of the tree are action assignments (actor, script, action, v, w) produced by the
portfolio for the player to move at the node, so the branching factor is the number of
assignments, not of legal actions. Opponent nodes use the opponent's portfolio (the agent's
own unless `opponent_weights` is given): the opponent is modelled by the same scripts.

Budget and tree as in `agents.mcts`: every node keeps its own state, so an expansion costs one
forward-model call and selection none (`charge_selection=True` charges one per step, as the
reference counts); rollouts (on by default, as in the paper) play uniformly random portfolio
assignments down to the horizon; the leaf is evaluated against the decision's state.
Selection maximises, over the selectable children,
    q + C·sqrt(ln N / n)  [+ v·w / (1 + n) with progressive bias]
with q the child's normalised mean, 1 − q where an opponent moves (`agents.tree`). With
pruning, `agents.portfolio.pruning` decides which children are selectable.

Assignments are generated lazily, once per node (when the node is first expanded from, or for
the first rollout step from it). A rollout step from a state without a node samples one
assignment uniformly without running every script: an actor slot is drawn in proportion to an
upper bound on the actor's assignment count, only that actor's scripts run, and the draw is
rejected if the slot is empty, which gives exactly the uniform distribution over the state's
assignments at about half the cost of generating them all. With `lazy_sampler=true` the
actor is drawn before any actor is listed (`sample_assignment_lazy`, through the game's
`actor_kinds` and `actor_actions` hooks): the same distribution, other random numbers.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from functools import partial
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from agents.draw import permutation, randbelow
from agents.evaluators import Evaluator
from agents.portfolio.portfolio import (
    ACTION,
    DEFAULT_WEIGHT,
    VALUE,
    WEIGHT,
    Portfolio,
    actor_assignments,
    check_portfolio_args,
    portfolio,
    produce_assignments,
)
from agents.portfolio.pruning import Pruner, Schedule
from agents.portfolio.script import ScriptContext, make_context
from agents.search import (
    DEFAULT_BUDGET,
    Budget,
    GameHooks,
    SearchAgent,
    arguments,
    at_least,
    flag,
    random_action,
    search_copy,
)
from agents.tree import (
    FINAL_CHOICES,
    TIE,
    TreeNode,
    backup,
    best_mean,
    most_visited,
    release,
    run_iterations,
    select_uct,
)
from games.api import Action, GameState

ROLLOUT_POLICIES = ("portfolio", "random", "none")
EXPANSIONS = ("random", "prior")
"""Orders in which a node's assignments are expanded: a random permutation (the paper's), or
highest prior v·w first (ties at random), which lets the weights choose what a small budget
looks at."""


class _PNode(TreeNode):
    """A node: the assignment that led here, its prior h = v·w (the mover's), and lazily the
    node's own assignments, expanded children and pruning state."""

    __slots__ = ("assignment", "h", "assignments", "unexpanded", "children", "pruner")

    def __init__(self, state: GameState, parent: "_PNode | None", assignment: tuple | None,
                 depth: int, me: int) -> None:
        TreeNode.__init__(self, state, parent, depth, me)
        self.assignment = assignment
        self.h = assignment[VALUE] * assignment[WEIGHT] if assignment is not None else 0.0
        self.assignments: list[tuple] | None = None
        self.unexpanded: list[int] = []
        self.children: list[_PNode] = []
        self.pruner: Pruner | None = None


def script_counts(pf: Portfolio) -> dict[int, int]:
    """Action kind -> number of scripts of that kind in the portfolio."""
    return {kind: len(scripts) for kind, scripts in pf.compiled()[1].items()}


def sample_assignment(state: GameState, pf: Portfolio, counts: Mapping[int, int],
                      rng: np.random.Generator, ctx: ScriptContext | None = None
                      ) -> tuple | None:
    """One assignment drawn uniformly from `produce_assignments(state, pf, rng)`, or None if
    there is none, running the scripts of as few actors as possible.

    An actor has at most sum over its action types of min(#scripts, #actions) assignments
    (one proposal per script, duplicates dropped). Draw a slot uniformly among all actors'
    bounds, generate that actor's assignments (once per call) and accept the slot if it holds
    one: every assignment is equally likely. Once every actor has been generated the draw is
    made directly among them. `ctx`: the scripts' context of `state`, if one is at hand."""
    by_actor = state.actions_by_actor()
    actors, ends = _bounds(by_actor, counts)
    total = ends[-1] if ends else 0
    if not total:
        return None
    if ctx is None:
        ctx = make_context(pf.game, state, rng)
    made: dict = {}
    while True:
        j = randbelow(rng, total)
        i = bisect_right(ends, j)
        actor = actors[i]
        lst = made.get(actor)
        if lst is None:
            lst = made[actor] = actor_assignments(actor, by_actor[actor], pf, ctx, [])
        off = j - ends[i - 1] if i else j
        if off < len(lst):
            return lst[off]
        if len(made) == len(actors):
            flat = [x for a in actors for x in made[a]]
            return flat[randbelow(rng, len(flat))] if flat else None


def _bounds(by_actor: Mapping[Hashable, Mapping[int, Sequence]],
            counts: Mapping[int, int]) -> tuple[list, list[int]]:
    """(the actors with a nonzero bound, the running sums of their bounds), where an actor's
    bound on its assignments is the sum over its action kinds of min(#scripts, #actions)."""
    actors: list = []
    ends: list[int] = []
    total = 0
    get = counts.get
    for actor, types in by_actor.items():
        bound = 0
        for kind, acts in types.items():
            m = get(kind)
            if m:
                k = len(acts)
                bound += m if m < k else k
        if bound:
            total += bound
            actors.append(actor)
            ends.append(total)
    return actors, ends


def sample_assignment_lazy(state: GameState, pf: Portfolio, counts: Mapping[int, int],
                           rng: np.random.Generator, hooks: GameHooks,
                           kind_bounds: dict, ctx: ScriptContext | None = None
                           ) -> tuple | None:
    """One assignment drawn uniformly from `produce_assignments(state, pf, rng)`, as
    `sample_assignment` draws it, but listing only the actions of the actors drawn.

    Every actor starts with a bound found without listing its actions: the number of scripts
    of the kinds it may have (`hooks.actor_kinds`). Each round draws a slot uniformly among
    the current bounds. The drawn actor, if not listed yet, is listed and its bound lowered
    to sum over kinds of min(#scripts, #actions); if not generated yet, its scripts run and
    its bound is lowered to its number of assignments; the slot is accepted if it holds an
    assignment, else the round is repeated. In every round each assignment has the same
    chance, 1 / (sum of bounds), and lowering a bound between rounds keeps that, so the draw
    is uniform over the assignments, as `sample_assignment`'s (its random numbers differ).

    Args:
        state: the position.
        pf: the mover's portfolio.
        counts: `script_counts(pf)`.
        rng: the generator of the draws and of the scripts' ties.
        hooks: the game's hooks (`actor_kinds`, `actor_actions`).
        kind_bounds: a cache, kinds tuple -> bound, kept for one portfolio.
        ctx: the scripts' context of `state`, if one is at hand.
    """
    cands = hooks.actor_kinds(state)
    if cands is None:
        cands = [(actor, tuple(types)) for actor, types in state.actions_by_actor().items()]
    actors: list = []
    sizes: list[int] = []
    total = 0
    get = counts.get
    for actor, kinds in cands:
        b = kind_bounds.get(kinds)
        if b is None:
            b = kind_bounds[kinds] = sum(get(k, 0) for k in kinds)
        if b:
            actors.append(actor)
            sizes.append(b)
            total += b
    stage = [0] * len(actors)  # 0: bound without listing, 1: listed, 2: generated
    made: list = [None] * len(actors)  # the actor's grouped actions, then its assignments
    while total:
        j = randbelow(rng, total)
        i = 0
        while j >= sizes[i]:
            j -= sizes[i]
            i += 1
        if stage[i] == 0:
            types = made[i] = hooks.actor_actions(state, actors[i])
            ends = _bounds({actors[i]: types}, counts)[1]
            b = ends[0] if ends else 0
            total += b - sizes[i]
            sizes[i] = b
            stage[i] = 1
            if j >= b:
                continue
        if stage[i] == 1:
            if ctx is None:
                ctx = make_context(pf.game, state, rng)
            lst = made[i] = actor_assignments(actors[i], made[i], pf, ctx, [])
            total += len(lst) - sizes[i]
            sizes[i] = len(lst)
            stage[i] = 2
        if j < sizes[i]:
            return made[i][j]
    return None


def _weights_arg(value: Any, name: str) -> Mapping[str, float] | Sequence[float] | None:
    """Weights as given: a dict (script -> weight) or a list (genome values in layout order);
    text forms are parsed at the edge (`play.specs.parse_weights`)."""
    if value is None or isinstance(value, (Mapping, list, tuple, np.ndarray)):
        return value
    raise ValueError(f"{name}: expected a dict of script weights or a list of genome values, "
                     f"got {value!r}")


def _with_weights(base: Portfolio, weights: Any) -> Portfolio:
    if weights is None:
        return base
    if isinstance(weights, Mapping):
        return base.with_weights(weights)
    return base.with_genome(list(weights))


def _rollout_policy(value: Any) -> str:
    if isinstance(value, str) and value in ROLLOUT_POLICIES:
        return value
    if isinstance(value, (bool, np.bool_)):
        return "portfolio" if value else "none"
    raise ValueError(f"rollouts: expected true (= portfolio), false (= none) or one of "
                     f"{', '.join(ROLLOUT_POLICIES)}; got {value!r}")


class PMCTSAgent(SearchAgent):
    """P-MCTS. Registered as `pmcts` (plain UCT over assignments), `pmcts_b` (progressive
    bias) and `pmcts_pu` (weighted progressive unpruning with progressive bias, the paper's
    PU configuration); the three differ only in the defaults of `bias` and `pruning`."""

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, c: float = math.sqrt(2),
                 horizon: int | None = None, rollouts: bool | str = True, bias: bool = False,
                 pruning: bool = False,
                 weights: Mapping[str, float] | Sequence[float] | None = None,
                 opponent_weights: Mapping[str, float] | Sequence[float] | None = None,
                 layout: str | Sequence[str] | None = None, reference_portfolio: bool = False,
                 alpha_k: float = 0.5, alpha_t: float = 2.0, a_mult: float = 1.5,
                 base: float = 1.3, charge_selection: bool = False, final: str = "visits",
                 lazy_sampler: bool = False, expansion: str = "random",
                 game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator.
            budget: forward-model calls per decision.
            c: exploration constant, on values normalised to [0, 1] per node.
            horizon: depth of the tree and the playouts; None takes the game's
                `search_horizon` (Tribes: 20; a game without one: to the end).
            rollouts: "portfolio" (true), "random" or "none" (false).
            bias: progressive bias v·w / (1 + n).
            pruning: weighted progressive unpruning.
            weights: script weights: a dict script -> weight, or the genome's values in
                layout order.
            opponent_weights: the opponent model's weights (default: the agent's own).
            layout: the scripts whose weights form the genome (a layout name or script
                names; default the game's default layout if it has one: Tribes "paper",
                Tribolo "styles").
            reference_portfolio: leave out the scripts the reference leaves out.
            alpha_k, alpha_t, a_mult, base: the unpruning schedule.
            charge_selection: charge one call per selection step, as the reference counts.
            final: the answer: "visits" (most visited) or "mean" (best mean, the reference).
            lazy_sampler: rollouts draw assignments with `sample_assignment_lazy`, which
                lists only the actors it draws: the same distribution as the default
                sampler, other random numbers, so other games.
            expansion: the order in which a node's assignments are expanded: "random" (a
                random permutation, the paper's) or "prior" (highest prior v·w first, ties
                at random). With a budget too small to expand every child of the root, only
                "prior" lets the weights decide which assignments the search compares.
            game: the game (it must register portfolio scripts); None binds to the game of
                the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        self.c = float(c)
        self.horizon = horizon
        self.rollouts = _rollout_policy(rollouts)
        self.bias = bias
        self.pruning = pruning
        self.reference_portfolio = reference_portfolio
        self.charge_selection = charge_selection
        self.final = final
        self.lazy_sampler = bool(lazy_sampler)
        self.expansion = expansion
        self.schedule = Schedule(float(alpha_k), float(alpha_t), float(a_mult), float(base))
        self.layout = list(layout) if isinstance(layout, (list, tuple)) else layout
        self._weights = _weights_arg(weights, "weights")
        self._opponent = _weights_arg(opponent_weights, "opponent_weights")
        self._opponent_given = self._opponent is not None
        self.portfolio: Portfolio | None = None
        self.opponent_portfolio: Portfolio | None = None
        self.name = "pmcts_pu" if self.pruning else "pmcts_b" if self.bias else "pmcts"
        self.last_iterations = 0
        self.last_assignments = 0
        self.last_root: _PNode | None = None
        super().__init__(seed, budget, game, evaluator)

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        """Also the portfolio's side against the script registry (script names, weights,
        the layout), without building a portfolio."""
        super().check_params(p, game)
        at_least(p, "horizon", 1, optional=True)
        at_least(p, "c", 0)
        if p["final"] not in FINAL_CHOICES:
            raise ValueError(f"final: expected one of {', '.join(FINAL_CHOICES)}, "
                             f"got {p['final']!r}")
        _rollout_policy(p["rollouts"])
        if p["expansion"] not in EXPANSIONS:
            raise ValueError(f"expansion: expected one of {', '.join(EXPANSIONS)}, "
                             f"got {p['expansion']!r}")
        for name in ("bias", "pruning", "reference_portfolio", "charge_selection",
                     "lazy_sampler"):
            flag(p[name], name)
        Schedule(p["alpha_k"], p["alpha_t"], p["a_mult"], p["base"])
        weights = _weights_arg(p["weights"], "weights")
        opponent = _weights_arg(p["opponent_weights"], "opponent_weights")
        g = p.get("game") or game
        if g is not None:
            check_portfolio_args(g, p["layout"], weights, opponent, p["reference_portfolio"])

    def bind(self, game: str) -> None:
        """The game's portfolio with this agent's weights (an unknown script, a bad weight
        or a game without scripts fails here, naming what is wrong)."""
        super().bind(game)
        base_pf = portfolio(game, layout=self.layout, reference=self.reference_portfolio)
        self.portfolio = _with_weights(base_pf, self._weights)
        self.opponent_portfolio = (_with_weights(base_pf, self._opponent)
                                   if self._opponent_given else self.portfolio)
        self._counts = script_counts(self.portfolio)
        self._opp_counts = script_counts(self.opponent_portfolio)
        self._kind_bounds: dict = {}
        self._opp_kind_bounds: dict = {}

    # ------------------------------------------------------------------ decision
    def decide(self, state: GameState, b: Budget) -> Action:
        self.last_iterations = 0
        self.last_root = None
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_assignments = 1
            return legal[0]
        me = state.current_player
        root_state = state.copy()
        root = _PNode(root_state, None, None, 0, me)
        asg = self._assignments(root)
        self.last_assignments = len(asg)
        if not asg:  # no script proposes anything: fall back on a random legal action
            return random_action(state, self.rng, self.hooks)
        if len(asg) == 1:
            return asg[0][ACTION]
        depth = self.horizon_of(self.horizon)
        try:
            self.last_iterations = run_iterations(
                b, lambda: self._iterate(root, root_state, me, b, depth))
        finally:
            release(root)
        self.last_root = root
        return self._final(root)

    def _assignments(self, node: _PNode) -> list[tuple]:
        """The node's assignments, generated on first use with the mover's portfolio; the
        expansion order is drawn at the same time."""
        asg = node.assignments
        if asg is None:
            pf = self.opponent_portfolio if node.opponent else self.portfolio
            asg = node.assignments = produce_assignments(node.state, pf, self.rng)
            if len(asg) > 1 and self.expansion == "prior":  # popped from the end: best last
                order = self.rng.random(len(asg))
                node.unexpanded = sorted(range(len(asg)), key=lambda i: (
                    asg[i][VALUE] * asg[i][WEIGHT], order[i]))
            elif len(asg) > 1:
                node.unexpanded = permutation(self.rng, len(asg))
            elif asg:
                node.unexpanded = [0]
        return asg

    def _iterate(self, root: _PNode, root_state: GameState, me: int, b: Budget,
                 horizon: int) -> None:
        node = root
        while True:
            st = node.state
            if node.depth >= horizon or st.is_terminal():
                break
            asg = node.assignments
            if asg is None:
                asg = self._assignments(node)
            if node.unexpanded:
                i = node.unexpanded[-1]
                a = asg[i]
                child_state = search_copy(st, self.rng)
                b.apply(child_state, a[ACTION])
                node.unexpanded.pop()
                child = _PNode(child_state, node, a, node.depth + 1, me)
                node.children.append(child)
                node = child
                break
            if not node.children:
                break  # no assignment in a non-terminal state: evaluate it as it is
            if self.charge_selection:
                b.charge(1)
            node = self._select(node)
        leaf = node.state
        if (self.rollouts != "none" and node.depth < horizon and not leaf.is_terminal()
                and not b.exhausted()):
            leaf = self._rollout(node, me, b, horizon)
        backup(node, self.evaluate(root_state, leaf, me))

    def _select(self, node: _PNode) -> _PNode:
        """UCB (with progressive bias if on) over the selectable children: all of them, or
        with pruning those the schedule leaves unpruned at this visit count."""
        children: Sequence[_PNode] = node.children
        if self.pruning:
            pr = node.pruner
            if pr is None:
                pr = node.pruner = Pruner(self.schedule, len(children))
            children = pr.update(node.n, children, self.rng)
        return select_uct(node, children, self.c, self.rng, self.bias)

    def _rollout(self, node: _PNode, me: int, b: Budget, horizon: int) -> GameState:
        """Play from the node's state down to the horizon: uniformly random portfolio
        assignments of the player to move (or uniformly random legal actions)."""
        rng = self.rng
        portfolio_policy = self.rollouts == "portfolio"
        lazy = portfolio_policy and self.lazy_sampler
        # list the node's actions on the node itself: the copy shares the lists, and a later
        # expansion of this node then does not list them again (the lazy sampler lists on
        # the shared lists only what it needs)
        if not portfolio_policy:
            node.state.legal_actions()
        elif not lazy:
            node.state.actions_by_actor()
        leaf = search_copy(node.state, rng)
        first = node.assignments if portfolio_policy else None
        ctx = None  # the scripts' context of the leaf, carried on where the game allows
        for _ in range(horizon - node.depth):
            if leaf.is_terminal() or b.exhausted():
                break
            a = None
            if portfolio_policy:
                if first:
                    a = first[randbelow(rng, len(first))][ACTION]
                else:
                    if ctx is None:
                        ctx = make_context(self.portfolio.game, leaf, rng)
                    asg = self._sample(leaf, me, lazy, ctx)
                    if asg is not None:
                        a = asg[ACTION]
                first = None
            if a is None:
                acts = leaf.legal_actions()
                a = acts[randbelow(rng, len(acts))]
            b.apply(leaf, a)
            if ctx is not None:
                ctx = ctx.after(leaf, a)
        return leaf

    def _sample(self, state: GameState, me: int, lazy: bool,
                ctx: ScriptContext) -> tuple | None:
        """One uniformly random assignment of the player to move, with its portfolio."""
        mine = state.current_player == me or not self._opponent_given
        pf = self.portfolio if mine else self.opponent_portfolio
        counts = self._counts if mine else self._opp_counts
        if lazy:
            return sample_assignment_lazy(state, pf, counts, self.rng, self.hooks,
                                          self._kind_bounds if mine else self._opp_kind_bounds,
                                          ctx)
        return sample_assignment(state, pf, counts, self.rng, ctx)

    def _final(self, root: _PNode) -> Action:
        """Most visited root child (default), or the best mean as the reference; with no
        child expanded (no call was left for one), the assignment with the highest prior v·w."""
        rng = self.rng
        if not root.children:
            asg = root.assignments
            top = max(x[VALUE] * x[WEIGHT] for x in asg)
            best = [x for x in asg if x[VALUE] * x[WEIGHT] >= top - TIE]
            return best[randbelow(rng, len(best))][ACTION]
        if self.final == "visits":
            return most_visited(root.children, rng).assignment[ACTION]
        return best_mean(root.children, rng).assignment[ACTION]

    # ------------------------------------------------------------------ parameters
    @staticmethod
    def _weights_out(pf: Portfolio) -> dict[str, float]:
        """The genome's weights and every other weight that is not the default: merged over
        the defaults, this rebuilds the portfolio exactly."""
        out = {n: pf.weights[n] for n in pf.layout}
        out.update((n, w) for n, w in pf.weights.items() if w != DEFAULT_WEIGHT)
        return out

    def params(self) -> dict[str, Any]:
        if self.portfolio is None:  # not bound to a game yet: the weights as given
            w, ow = self._weights, self._opponent
        else:
            w = self._weights_out(self.portfolio)
            ow = (self._weights_out(self.opponent_portfolio) if self._opponent_given else None)
        s = self.schedule
        return {"seed": self.seed, "budget": self.budget, "c": self.c, "horizon": self.horizon,
                "rollouts": self.rollouts, "bias": self.bias, "pruning": self.pruning,
                "weights": w, "opponent_weights": ow,
                "layout": self.layout, "reference_portfolio": self.reference_portfolio,
                "alpha_k": s.alpha_k, "alpha_t": s.alpha_t, "a_mult": s.a_mult, "base": s.base,
                "charge_selection": self.charge_selection, "final": self.final,
                "lazy_sampler": self.lazy_sampler, "expansion": self.expansion,
                "game": self.game, "evaluator": self.evaluator}


PMCTS_CONFIGURATIONS = {
    "pmcts": partial(PMCTSAgent, bias=False, pruning=False),
    "pmcts_b": partial(PMCTSAgent, bias=True, pruning=False),
    "pmcts_pu": partial(PMCTSAgent, bias=True, pruning=True),
}
"""The paper's three configurations: plain, progressive bias, weighted progressive
unpruning with bias (the registered agent names)."""
