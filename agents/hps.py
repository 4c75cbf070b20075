"""Hierarchical Portfolio Search (HPS): alpha-beta over whole turns made of partial players.

A turn is cut into **phases** (a game registers them: `register_phases`; Tribes: research,
economy, units, spawn). Each phase has a few **partial players**: a partial player is an
ordered list of portfolio scripts; on the state reached so far it lets the first actor (in the
game's actor order) that one of its scripts proposes something for play that script's
proposal (`agents.portfolio.produce_assignments` with a table of just those scripts), and
repeats until none of its scripts proposes anything (or its `limit` of actions is reached).
A game's **interrupt** scripts are added to every partial player: they settle actions that
block all others (Tribes: a pending level-up, settled by LevelUpGrowth). After the last phase
the interrupts run once more and the pass action ends the turn.

A **whole-turn move** is one partial player per phase, run in phase order on the state the
earlier phases left: a child of a node is a combination of partial players (an index per
phase). The combinations are the cross-product of the phases' partial players, drawn once in
an order fixed by the agent's seed and cut to the first `max_moves`; moves whose action
sequences repeat an earlier one of the same node are dropped. States after a combination's
prefix (its first k phases) are kept per node, so combinations that share a prefix pay its
forward-model calls once.

The top search (`search=`) is one of three. `alphabeta` (default): NegaMax with alpha-beta
pruning (`alpha_beta=False`: plain NegaMax) over whole turns, with iterative deepening
(depth = turns) until the budget is spent, the tree is solved, or `max_depth` is reached;
the root's best move of the previous iteration is searched first, and the answer is the best
move of the last complete iteration (or, when not even depth 1 completes, the best root move
found so far). Values are the searcher's: the searcher
maximises, every other player minimises (paranoid, in games of more than two players). A leaf
is worth the game's evaluator (`leaf="eval"`, default) or the evaluator after a playout of
`playout_turns` whole turns played by every player with the first partial player of each
phase (`leaf="playout"`; a cut symmetric playout, not one to the end of the game).

`mcts`: UCT whose edges are whole-turn moves. An iteration descends from the root by UCB
(`agents.tree.select_uct`: children's means normalised by the node's value range, flipped
where another player moves, so every other player minimises the searcher's value as in
alpha-beta) while a node has no untried combination left, generates one new child of the
first node that has (one combination, or several when the first repeat earlier moves),
values that child as alpha-beta values a leaf and backs the value up. Iterations run until
the budget is spent; `max_depth` caps the tree's depth in turns. The answer is the most
visited root move (`final="mean"`: the best mean). `random`: no search, one combination
drawn uniformly among the agent's (Prismata's Medium Bot); only building that turn costs
calls.

Children are generated lazily, one combination at a time, so a cut-off also saves the calls of
the siblings that are never generated. Every action applied on a search copy (while building
moves and in playouts) is one forward-model call through `Budget`; listing actions, running
scripts and evaluating leaves are free. Generated nodes are kept for the whole decision, so a
deeper iteration pays only for the nodes it adds.

The portfolio can be cut without touching the game's declaration (difficulty settings):
`drop` removes partial players by name (`defensive`: in every phase that has one;
`units/defensive`: in that phase only), `forbid` removes from every partial player the
scripts of the named action types, so that no partial player ever plays them (Tribes'
pacifist: `forbid=ATTACK+CAPTURE+CONVERT`). Partial players that become the same policy are
merged, and a phase left with none is an error.

The chosen turn is kept as a plan and handed out action by action at the decisions of the same
turn (same `turn_key` of the game's hooks, same player); the agent searches again when the
next planned action is no longer legal (a random outcome, a level-up the search did not see)
or the turn is another one.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np

from agents.evaluators import Evaluator
from agents.portfolio.portfolio import ACTION, SCRIPT, Portfolio, default_table, produce_assignments
from agents.portfolio.script import game_info, scripts_of
from agents.search import (
    DEFAULT_BUDGET,
    Budget,
    BudgetExhausted,
    SearchAgent,
    arguments,
    at_least,
    flag,
    random_action,
    search_copy,
)
from agents.tree import (
    FINAL_CHOICES,
    TreeNode,
    backup,
    best_mean,
    most_visited,
    release,
    run_iterations,
    select_uct,
)
from base.limits import MAX_AGENT_COUNT
from games.api import Action, GameState, ends_turn, is_pass
from games.registry import Registry

SEARCHES = ("alphabeta", "mcts", "random")
"""Top searches over whole-turn moves: iterative-deepening alpha-beta, UCT, or none (a random
move)."""

LEAVES = ("eval", "playout")
"""Leaf evaluations: the evaluator on the leaf, or on the end of a short scripted playout."""

MAX_PHASE_STEPS = 200
"""Actions one partial player may apply in one phase (a guard against scripts that never stop
proposing)."""

DEPTH_LIMIT = 64
"""The deepest iteration when `max_depth` is None (the budget or a solved tree stops it first)."""


# ------------------------------------------------------------------------------ phases
@dataclass(frozen=True)
class PartialPlayer:
    """A policy for one phase: scripts in priority order, applied until none proposes.

    Args:
        name: the partial player's name (unique within its phase).
        scripts: portfolio script names, in priority order (empty: the phase does nothing).
        limit: at most this many actions in the phase (interrupts not counted); None: no limit.
    """

    name: str
    scripts: tuple[str, ...] = ()
    limit: int | None = None


@dataclass(frozen=True)
class Phase:
    """One part of a turn and its partial players (the options a move picks one of).

    Args:
        name: the phase's name.
        players: its partial players; a move picks one, the first one plays the playouts.
    """

    name: str
    players: tuple[PartialPlayer, ...]


@dataclass(frozen=True)
class Phases:
    """A game's turn decomposition: phases in turn order and the interrupt scripts."""

    phases: tuple[Phase, ...]
    interrupts: tuple[str, ...] = ()


PHASES = Registry("turn phases")
"""How HPS cuts each game's turn (a game without any gets `default_phases`)."""


def register_phases(game: str, phases: Sequence[Phase], interrupts: Sequence[str] = ()) -> None:
    """Declare how HPS cuts a game's turn (a game without phases gets `default_phases`).

    Args:
        game: the game's registered name (it must register portfolio scripts first).
        phases: the phases in turn order, each with at least one partial player.
        interrupts: scripts added to every partial player (after its own), for actions that
            block every other one when they arise (Tribes: level-ups).
    """
    known = scripts_of(game)
    problems = []
    for ph in phases:
        if not ph.players:
            problems.append(f"phase {ph.name!r} has no partial player")
        for pp in ph.players:
            problems += [f"partial player {ph.name}/{pp.name}: unknown script {n!r}"
                         for n in pp.scripts if n not in known]
            if pp.limit is not None and pp.limit < 1:
                problems.append(f"partial player {ph.name}/{pp.name}: limit must be >= 1")
    problems += [f"interrupts: unknown script {n!r}" for n in interrupts if n not in known]
    if problems:
        raise ValueError(f"phases ({game}): " + "; ".join(problems))
    PHASES.add("phases", Phases(tuple(phases), tuple(interrupts)), game=game)


def default_phases(game: str) -> Phases:
    """One phase, "turn", with one partial player per script of the game's default table
    (in table order): a move lets one script play the whole turn."""
    names = [n for ns in default_table(game).values() for n in ns]
    return Phases((Phase("turn", tuple(PartialPlayer(n, (n,)) for n in names)),))


def phases_of(game: str) -> Phases:
    """The phases a game registered, else `default_phases`; a game without portfolio scripts
    is refused with an error naming it."""
    try:
        game_info(game)
    except ValueError:
        raise ValueError(f"hps: game {game!r} registers no portfolio scripts, and HPS builds its "
                         f"partial players from them") from None
    return PHASES.find("phases", game) or default_phases(game)


def _table(game: str, names: Sequence[str]) -> dict[str, list[str]]:
    """A portfolio table holding exactly `names`: action types in first-appearance order."""
    known = scripts_of(game)
    table: dict[str, list[str]] = {}
    for n in names:
        table.setdefault(known[n].action_type, []).append(n)
    return table


def name_list(value: Any, field: str) -> tuple[str, ...]:
    """Names given as text joined with "+" (agent specs: `drop=defensive+score`) or as a list.

    Args:
        value: the text, a list of names, or None (no name).
        field: the parameter's name, for the error.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        items = value.split("+")
    elif isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
        items = value
    else:
        raise ValueError(f"{field}: names joined with '+' (or a list of names) expected, "
                         f"got {value!r}")
    return tuple(x.strip() for x in items if x.strip())


def portfolio_phases(game: str, drop: Sequence[str] = (), forbid: Sequence[str] = ()) -> Phases:
    """A game's phases with partial players dropped and action types forbidden.

    Args:
        game: the game (it must register portfolio scripts).
        drop: partial players to remove: `name` in every phase that has one, `phase/name`
            in that phase only.
        forbid: action-type names (the game's portfolio types, e.g. Tribes' ATTACK) whose
            scripts are taken out of every partial player; partial players that become the
            same policy as an earlier one of their phase are merged.
    """
    spec = phases_of(game)
    known = [f"{ph.name}/{pp.name}" for ph in spec.phases for pp in ph.players]
    for n in drop:
        if n not in known and not any(k.split("/", 1)[1] == n for k in known):
            raise ValueError(f"drop: unknown partial player {n!r} of game {game!r}; the phases' "
                             f"partial players: {', '.join(known)}")
    types = game_info(game).action_kinds
    for t in forbid:
        if t not in types:
            raise ValueError(f"forbid: unknown action type {t!r} of game {game!r}; known: "
                             f"{', '.join(types)}")
    scripts = scripts_of(game)
    blocked = [n for n in spec.interrupts if scripts[n].action_type in forbid]
    if blocked:
        raise ValueError(f"forbid: {scripts[blocked[0]].action_type} is played by the interrupt "
                         f"script {blocked[0]}, which settles actions that block every other one")
    phases = []
    for ph in spec.phases:
        players: list[PartialPlayer] = []
        for pp in ph.players:
            if pp.name in drop or f"{ph.name}/{pp.name}" in drop:
                continue
            kept = PartialPlayer(pp.name, tuple(n for n in pp.scripts
                                                if scripts[n].action_type not in forbid), pp.limit)
            if not any((q.scripts, q.limit) == (kept.scripts, kept.limit) for q in players):
                players.append(kept)
        if not players:
            raise ValueError(f"drop: every partial player of phase {ph.name!r} is dropped; keep "
                             f"at least one of {', '.join(pp.name for pp in ph.players)}")
        phases.append(Phase(ph.name, tuple(players)))
    return Phases(tuple(phases), spec.interrupts)


# ------------------------------------------------------------------------------ search nodes
class _Node(TreeNode):
    """A state at the start of a turn, its children generated one combination at a time; the
    statistics of `TreeNode` serve the UCT search (`depth` counts turns)."""

    __slots__ = ("actions", "next", "prefixes", "children", "seen", "value")

    def __init__(self, state: GameState, parent: "_Node | None", actions: tuple, me: int) -> None:
        TreeNode.__init__(self, state, parent, 0 if parent is None else parent.depth + 1, me)
        self.mover = state.current_player
        self.actions = actions  # the move that leads here
        self.next = 0  # the next combination to generate
        self.prefixes: dict[tuple, tuple] | None = {}  # combination prefix -> (state, actions, ended)
        self.children: list[_Node] = []
        self.seen: set[tuple] = set()
        self.value: float | None = None  # the leaf value, once computed


class HPSAgent(SearchAgent):
    """Hierarchical Portfolio Search. Registered as `hps` for every game; a game without
    portfolio scripts is refused when the agent binds to it."""

    name = "hps"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, search: str = "alphabeta",
                 max_moves: int = 36, max_depth: int | None = None, leaf: str = "eval",
                 playout_turns: int = 2, alpha_beta: bool = True, c: float = math.sqrt(2),
                 final: str = "visits", drop: str | Sequence[str] = (),
                 forbid: str | Sequence[str] = (), game: str | None = None,
                 evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator (the order of the combinations, the scripts'
                tie-breaks, the search copies' random streams, the random moves).
            budget: forward-model calls per search (one per action applied on a search copy).
            search: "alphabeta" (iterative-deepening alpha-beta), "mcts" (UCT over whole-turn
                moves) or "random" (a uniformly random combination, no search).
            max_moves: whole-turn moves (combinations of partial players) per node, at most;
                with `search="random"`, the combinations drawn from.
            max_depth: alpha-beta: the deepest iteration, in turns; None: deepen until the
                budget is spent or the tree is solved. MCTS: the deepest node, in turns
                below the root; None: no limit.
            leaf: "eval" (the evaluator on the leaf) or "playout" (the evaluator after a
                scripted playout of `playout_turns` turns).
            playout_turns: whole turns a playout plays (with `leaf="playout"`).
            alpha_beta: prune with alpha-beta (false: plain NegaMax, same root value).
            c: MCTS: exploration constant, on values normalised to [0, 1] per node.
            final: MCTS: the answer, "visits" (most visited root move) or "mean" (best mean).
            drop: partial players left out of the portfolio, names joined with "+" or a list
                (`name`: in every phase, `phase/name`: in one).
            forbid: action types no partial player plays, names joined with "+" or a list
                (their scripts are taken out of every partial player).
            game: the game (it must register portfolio scripts); None binds to the game of
                the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        self.search = search
        self.c = float(c)
        self.final = final
        self.drop = name_list(drop, "drop")
        self.forbid = name_list(forbid, "forbid")
        self.max_moves = int(max_moves)
        self.max_depth = max_depth
        self.leaf = leaf
        self.playout_turns = int(playout_turns)
        self.alpha_beta = alpha_beta
        self.plan: list[Action] = []
        self._plan_key: Hashable = None
        self.last_depth = 0
        self.last_value: float | None = None
        self.last_moves = 0
        self.last_iterations = 0
        self.last_replanned = False
        super().__init__(seed, budget, game, evaluator)

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        for name in ("max_moves", "playout_turns"):
            at_least(p, name, 1, hi=MAX_AGENT_COUNT)
        at_least(p, "max_depth", 1, optional=True)
        at_least(p, "c", 0)
        for name, choices in (("search", SEARCHES), ("leaf", LEAVES), ("final", FINAL_CHOICES)):
            if p[name] not in choices:
                raise ValueError(f"{name}: one of {', '.join(choices)} expected, "
                                 f"got {p[name]!r}")
        flag(p["alpha_beta"], "alpha_beta")
        drop, forbid = name_list(p["drop"], "drop"), name_list(p["forbid"], "forbid")
        g = p.get("game") or game
        if g is not None:
            portfolio_phases(g, drop, forbid)

    def bind(self, game: str) -> None:
        """The game's phases as compiled portfolios and the seeded order of combinations."""
        spec = portfolio_phases(game, self.drop, self.forbid)
        super().bind(game)
        kinds = game_info(game).action_kinds
        self.forbidden_kinds = frozenset(kinds[t] for t in self.forbid)
        self.interrupts = frozenset(spec.interrupts)
        self.phase_players = [
            [Portfolio(game, _table(game, [*pp.scripts,
                                           *(n for n in spec.interrupts if n not in pp.scripts)]),
                       None, "none")
             for pp in ph.players] for ph in spec.phases]
        self.limits = [[pp.limit for pp in ph.players] for ph in spec.phases]
        self.closing = Portfolio(game, _table(game, spec.interrupts), None, "none")
        combos = list(itertools.product(*(range(len(ph.players)) for ph in spec.phases)))
        order = np.random.default_rng(self.seed).permutation(len(combos))
        self.combos = [combos[int(i)] for i in order[:self.max_moves]]
        self.phases = spec

    # ------------------------------------------------------------------ decision
    def decide(self, state: GameState, b: Budget) -> Action:
        legal = state.legal_actions()
        key = (self.hooks.turn_key(state), state.current_player)
        self.last_replanned = bool(self.plan)
        if self.plan and key == self._plan_key and key[0] is not None:
            if self.plan[0] in legal:
                self.last_replanned = False
                return self.plan.pop(0)
        self.plan = []
        if len(legal) == 1:
            return legal[0]
        self._first = None
        self._best_partial = None
        move = self._search(state, b)
        if move is None:
            if self._first is not None:
                return self._first
            allowed = self._permitted(state, legal)
            if len(allowed) < len(legal):
                return allowed[int(self.rng.integers(len(allowed)))]
            return random_action(state, self.rng, self.hooks)
        self.plan = list(move[1:])
        self._plan_key = key
        return move[0]

    def _search(self, state: GameState, b: Budget) -> tuple | None:
        """The actions of the move the top search chooses (None: no move was built)."""
        me = state.current_player
        self.root_state = state
        root = _Node(search_copy(state, self.rng), None, (), me)
        self.last_depth, self.last_value, self.last_moves, self.last_iterations = 0, None, 0, 0
        try:
            if self.search == "alphabeta":
                best = self._deepen(root, b, me)
            elif self.search == "mcts":
                best = self._uct(root, b, me)
            else:
                best = self._random_move(root, b)
            self.last_moves = len(root.children)
        finally:
            self.root_state = None
            release(root)
        return best

    def _deepen(self, root: _Node, b: Budget, me: int) -> tuple | None:
        """Iterative-deepening alpha-beta: the best move of the last complete iteration."""
        best: tuple | None = None
        deepest = self.max_depth if self.max_depth is not None else DEPTH_LIMIT
        for depth in range(1, deepest + 1):
            self._cut = False
            try:
                found = self._root(root, depth, b, me, best)
            except BudgetExhausted:
                break
            if found is None:
                break  # no move at all
            self.last_value, best = found
            self.last_depth = depth
            if not self._cut:
                break  # every line ended before the depth limit: the tree is solved
        return best if best is not None else self._best_partial

    def _root(self, root: _Node, depth: int, b: Budget, me: int, first: tuple | None):
        """One iteration at the root (where the searcher moves): (value, best move's
        actions), None when no move can be built. The previous iteration's best move is
        searched first."""
        best_v, best_m = -math.inf, None
        order = [k for k, ch in enumerate(root.children) if ch.actions == first]
        i = 0
        while True:
            if order:
                idx = order.pop()
            elif self._child(root, i, b, me):
                idx, i = i, i + 1
                if root.children[idx].actions == first:
                    continue
            else:
                break
            child = root.children[idx]
            v = self._searcher_value(child, depth - 1, best_v, math.inf, b, me)
            if v > best_v:
                best_v, best_m = v, child.actions
                self._best_partial = child.actions
        return None if best_m is None else (best_v, best_m)

    def _searcher_value(self, node: _Node, depth: int, alpha: float, beta: float, b: Budget,
                        me: int) -> float:
        """The searcher's value of `node` within the searcher's window (alpha, beta)."""
        if node.mover == me:
            return self._negamax(node, depth, alpha, beta, b, me)
        return -self._negamax(node, depth, -beta, -alpha, b, me)

    def _negamax(self, node: _Node, depth: int, alpha: float, beta: float, b: Budget,
                 me: int) -> float:
        """NegaMax with alpha-beta: the value of `node` for its side (the searcher's value,
        negated where another player moves), within (alpha, beta)."""
        color = 1.0 if node.mover == me else -1.0
        if node.state.is_terminal():
            return color * self._leaf(node, b, me)
        if depth == 0:
            self._cut = True
            return color * self._leaf(node, b, me)
        best = -math.inf
        i = 0
        while self._child(node, i, b, me):
            child = node.children[i]
            i += 1
            if (child.mover == me) == (color > 0):
                v = self._negamax(child, depth - 1, alpha, beta, b, me)
            else:
                v = -self._negamax(child, depth - 1, -beta, -alpha, b, me)
            best = max(best, v)
            alpha = max(alpha, v)
            if self.alpha_beta and alpha >= beta:
                break
        if i == 0:  # no move generated: the node is a leaf
            return color * self._leaf(node, b, me)
        return best

    def _uct(self, root: _Node, b: Budget, me: int) -> tuple | None:
        """UCT over whole-turn moves until the budget is spent: the most visited root move
        (or the best mean); None when no root move was built and valued."""
        self.last_iterations = run_iterations(b, lambda: self._iterate(root, b, me))
        valued = [ch for ch in root.children if ch.n]
        if not valued:
            return root.children[0].actions if root.children else None
        pick = (most_visited if self.final == "visits" else best_mean)(valued, self.rng)
        self.last_value = pick.total / pick.n
        return pick.actions

    def _iterate(self, root: _Node, b: Budget, me: int) -> None:
        """One UCT iteration: select down to a node with an untried combination, generate one
        new child there, value it as a leaf, back the value up."""
        node = root
        deepest = self.max_depth
        while not node.state.is_terminal() and (deepest is None or node.depth < deepest):
            if node.prefixes is not None:  # combinations left to try
                k = len(node.children)
                if self._child(node, k, b, me):
                    node = node.children[k]
                    break
            if not node.children:
                break  # no move can be built: the node is a leaf
            node = select_uct(node, node.children, self.c, self.rng)
        value = self._leaf(node, b, me)
        self.last_depth = max(self.last_depth, node.depth)
        backup(node, value)

    def _random_move(self, root: _Node, b: Budget) -> tuple | None:
        """No search: the actions of one combination drawn uniformly among the agent's."""
        combo = self.combos[int(self.rng.integers(len(self.combos)))]
        try:
            actions, _ = self._build(root, combo, b)
        except BudgetExhausted:
            return None
        return actions or None

    def _leaf(self, node: _Node, b: Budget, me: int) -> float:
        if node.value is None:
            leaf = node.state
            if self.leaf == "playout" and not leaf.is_terminal():
                leaf = search_copy(leaf, self.rng)
                for _ in range(self.playout_turns):
                    if leaf.is_terminal():
                        break
                    self._play_turn(leaf, (0,) * len(self.phase_players), b)
            node.value = float(self.evaluate(self.root_state, leaf, me))
        return node.value

    # ------------------------------------------------------------------ move generation
    def _child(self, node: _Node, i: int, b: Budget, me: int) -> bool:
        """Make sure child `i` of `node` exists (generating combinations until a new move
        appears); False when the node has fewer children."""
        while len(node.children) <= i:
            if node.next >= len(self.combos):
                node.prefixes = None
                return False
            combo = self.combos[node.next]
            actions, state = self._build(node, combo, b)
            node.next += 1
            if actions and actions not in node.seen:
                node.seen.add(actions)
                node.children.append(_Node(state, node, actions, me))
        return True

    def _build(self, node: _Node, combo: tuple, b: Budget) -> tuple[tuple, GameState]:
        """The actions and end state of one combination from `node`, reusing the longest
        prefix already built there."""
        cache = node.prefixes
        k = len(combo)
        while k > 0 and combo[:k] not in cache:
            k -= 1
        if k:
            state, actions, ended = cache[combo[:k]]
        else:
            state, actions, ended = node.state, (), False
        mover = node.mover
        for f in range(k, len(combo)):
            if not ended:
                state = search_copy(state, self.rng)
                done: list[Action] = []
                ended = self._run(state, self.phase_players[f][combo[f]],
                                  self.limits[f][combo[f]], mover, b, done)
                actions = actions + tuple(done)
            cache[combo[:f + 1]] = (state, actions, ended)
        if not ended:
            state = search_copy(state, self.rng)
            actions = actions + tuple(self._close(state, mover, b, bool(actions)))
        return actions, state

    def _play_turn(self, state: GameState, combo: tuple, b: Budget) -> None:
        """Play one whole turn of `combo` on `state` (playouts)."""
        mover = state.current_player
        for f, p in enumerate(combo):
            done: list[Action] = []
            if self._run(state, self.phase_players[f][p], self.limits[f][p], mover, b, done):
                return
        self._close(state, mover, b, True)

    def _run(self, state: GameState, pf: Portfolio, limit: int | None, mover: int, b: Budget,
             done: list[Action]) -> bool:
        """Let one partial player play its phase on `state`, appending its actions to `done`;
        True when the turn ended."""
        steps = 0
        for _ in range(MAX_PHASE_STEPS):
            if limit is not None and steps >= limit:
                break
            asg = produce_assignments(state, pf, self.rng)
            if not asg:
                break
            a = asg[0][ACTION]
            if self._first is None:
                self._first = a
            b.apply(state, a)
            done.append(a)
            if asg[0][SCRIPT] not in self.interrupts:
                steps += 1
            if state.is_terminal() or state.current_player != mover or ends_turn(state, a):
                return True
        return False

    def _close(self, state: GameState, mover: int, b: Budget, acted: bool) -> list[Action]:
        """End the turn: the interrupts, then the pass action; in a game without one, a move
        that has done nothing takes the first legal action."""
        done: list[Action] = []
        if self._run(state, self.closing, None, mover, b, done):
            return done
        legal = state.legal_actions()
        end = next((a for a in legal if is_pass(state, a)), None)
        if end is None and not (acted or done) and legal:
            legal = self._permitted(state, legal)
            end = next((a for a in legal if not self.hooks.excluded(state, a)), legal[0])
        if end is not None:
            if self._first is None:
                self._first = end
            b.apply(state, end)
            done.append(end)
        return done

    def _permitted(self, state: GameState, actions: list[Action]) -> list[Action]:
        """`actions` without those of the forbidden action types (all of them when every one
        is forbidden)."""
        if not self.forbidden_kinds:
            return actions
        banned = {a for groups in state.actions_by_actor().values()
                  for kind, acts in groups.items() if kind in self.forbidden_kinds for a in acts}
        return [a for a in actions if a not in banned] or actions

    def params(self) -> dict[str, Any]:
        return {**self.base_params(), "search": self.search, "max_moves": self.max_moves,
                "max_depth": self.max_depth, "leaf": self.leaf,
                "playout_turns": self.playout_turns, "alpha_beta": self.alpha_beta,
                "c": self.c, "final": self.final, "drop": list(self.drop),
                "forbid": list(self.forbid)}
