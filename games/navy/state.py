"""A Navy Defense position behind the `games.api.GameState` protocol, with hidden information.

One player (0, the Navy ship); the cargo ships and the submarines move inside `apply`, which
plays one whole time step: the Navy ship acts (STAY or one cell N/E/S/W), its sonar damages
every sub in the 3x3 block around its new cell; every cargo ship moves one cell along its
route; every sub chooses (`games.navy.subs`) on that state, then the subs act in creation
order (an attack damages every ship on the attacked cell, one hit at a time). Costs accrue
(`COSTS`); the game ends after `steps` time steps (one step is one round, `tick`).

Besides the costed events, every step logs where the Navy ship ended it (``navy_cell``), its
Manhattan distance to the nearest live cargo ship (``cargo_distance``, while one is left) and
to the board's centre (``centre_distance``), whether it moved (``navy_moved``, when it did),
the damage the cargo ships took (``cargo_damage``, when any) and how many live subs its sonar
block holds after the subs acted (``sub_seen``, when any): the records of a style
(`games.navy.features`).
The state also keeps running sums of the moves and of the two distances (`moves`, `far`,
`off`), which the style evaluator charges (`games.navy.evaluators`). None of this changes
what happens.

The player sees everything but the subs outside its sonar block (`observation`). The
environment's subs follow the true behaviour (`policy="true"`); the states the agent's
planner samples (`determinise`, and the particle filter `games.navy.belief`) follow the
believed model (`policy="believed"`), in which each sub hunts a target of its own.

Randomness: every sub's tie-break is decided by (the state's `seed`, step, sub, purpose)
(`world.pick`): a copy replays the same luck, `reseed` gives a copy other luck.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from games.api import IllegalAction, log_add, log_to_list
from games.navy.belief import ParticleBelief
from games.navy.level import MAX_SUBS, NavyLevel
from games.navy.subs import ATTACK, BELIEVED, MOVE, POLICIES, TRUE, choose
from games.navy.world import DIRECTION_NAMES, board

COSTS = {"move": 1, "navy_hit": 10, "navy_destroyed": 40, "cargo_hit": 20,
         "cargo_destroyed": 80}
"""The cost of each event; damaging or destroying a sub costs nothing, staying is free."""
HEALTH = 2
"""Every vessel's starting health."""
SNAPSHOT_EVENTS = ("navy_cell", "centre_distance", "cargo_distance", "sub_seen", "navy_moved",
                   "cargo_damage")
"""Events that record a figure at a step's end (kept as series, not summed)."""


class NavyObservation(NamedTuple):
    """What the Navy ship sees before a decision (plain, hashable): the whole state but the
    submarines outside its sonar block."""

    size: int
    steps: int
    t: int
    last_action: str | None  # the Navy ship's previous action (None at the start)
    navy: int  # cell
    navy_hp: int
    routes: tuple[tuple[int, ...], ...]  # each cargo ship's route (travel order)
    cargo: tuple[tuple[int, int], ...]  # (index on its route, health) per cargo ship
    subs_seen: tuple[tuple[int, int], ...]  # sorted (cell, health) of the subs in the block
    sonar: tuple[int, int]  # subs the sonar hit, and destroyed, in the last step
    cost: int

    def draw(self, rng: random.Random, policy: str = BELIEVED) -> "NavyState":
        """A full state with this observation, drawn with `rng` (`from_observation`)."""
        return from_observation(self, rng, policy)


class NavyState:
    __slots__ = ("board", "size", "steps", "t", "tick", "navy", "navy_hp", "c_route", "c_dir",
                 "c_idx", "c_hp", "s_pos", "s_hp", "s_target", "policy", "seed", "cost",
                 "last_action", "sonar", "moves", "far", "off", "_log")

    game_name = "navy"
    num_players = 1
    current_player = 0
    multi_action_turns = False

    # -- set-up -------------------------------------------------------------------------
    @classmethod
    def start(cls, level: NavyLevel, steps: int, seed: int) -> "NavyState":
        """The start of a world: the true submarine behaviour, tie-breaks from `seed`."""
        s = cls.__new__(cls)
        b = board(level.size, level.size)
        w = level.size
        s.board, s.size, s.steps = b, level.size, steps
        s.t = s.tick = 0
        s.navy = level.navy[1] * w + level.navy[0]
        s.navy_hp = HEALTH
        s.c_route = tuple(b.route(y * w + x, d) for x, y, d in level.cargo)
        s.c_dir = tuple(d for _, _, d in level.cargo)
        s.c_idx = [0] * len(level.cargo)
        s.c_hp = [HEALTH] * len(level.cargo)
        s.s_pos = [y * w + x for x, y in level.subs]
        s.s_hp = [HEALTH] * len(level.subs)
        s.s_target = [-1] * len(level.subs)
        s.policy = TRUE
        s.seed = int(seed)
        s.cost = 0
        s.last_action = None
        s.sonar = (0, 0)
        s.moves = 0
        s.far = s.off = 0.0
        s._log = None
        return s

    def copy(self) -> "NavyState":
        c = NavyState.__new__(NavyState)
        c.board, c.size, c.steps, c.t, c.tick = self.board, self.size, self.steps, self.t, self.tick
        c.navy, c.navy_hp = self.navy, self.navy_hp
        c.c_route, c.c_dir = self.c_route, self.c_dir
        c.c_idx, c.c_hp = self.c_idx[:], self.c_hp[:]
        c.s_pos, c.s_hp, c.s_target = self.s_pos[:], self.s_hp[:], self.s_target[:]
        c.policy, c.seed, c.cost = self.policy, self.seed, self.cost
        c.last_action, c.sonar = self.last_action, self.sonar
        c.moves, c.far, c.off = self.moves, self.far, self.off
        c._log = self._log
        return c

    def reseed(self, seed: int) -> None:
        """Other luck for the subs' tie-breaks from now on."""
        self.seed = int(seed)

    # -- protocol -------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.t >= self.steps

    def legal_actions(self) -> list[str]:
        """STAY, then the moves N, E, S, W that stay on the board; only STAY once the Navy
        ship is destroyed; none once the game is over."""
        if self.t >= self.steps:
            return []
        if self.navy_hp <= 0:
            return ["STAY"]
        return [a for a, _ in self.board.moves[self.navy]]

    def actions_by_actor(self):
        return {0: {0: self.legal_actions()}}

    def apply(self, action) -> None:
        t, moved, cargo_hp = self.begin_step(action)
        # subs: all choose on the same state, then act in creation order
        live, dist, blocked = self.sub_context()
        self.finish_step(t, moved, cargo_hp,
                         [(i, choose(self, i, dist, blocked)) for i in live])

    def begin_step(self, action) -> tuple[int, bool, int]:
        """The first part of a step: the Navy ship acts, its sonar fires, the cargo ships
        move. Returns (the step, whether the ship moved, the cargo ships' health)."""
        if self.t >= self.steps:
            raise IllegalAction(f"navy: {action!r}: the game is over")
        dest = None
        if self.navy_hp > 0:
            dest = self.board.move_to[self.navy].get(action) if isinstance(action, str) else None
        elif action == "STAY":
            dest = self.navy
        if dest is None:
            raise IllegalAction(f"navy: {action!r} is not a legal action "
                                f"(legal: {', '.join(self.legal_actions())})")
        t = self.t
        b = self.board
        moved = dest != self.navy
        if moved:
            self.navy = dest
            self.moves += 1
            self._charge("move")
        self.last_action = action
        # sonar: every sub in the block of the ship's (new) cell loses 1 health
        hits = kills = 0
        if self.navy_hp > 0:
            block = b.block[dest]
            s_pos, s_hp = self.s_pos, self.s_hp
            for i in range(len(s_pos)):
                if s_hp[i] > 0 and block >> s_pos[i] & 1:
                    s_hp[i] -= 1
                    if s_hp[i] > 0:
                        hits += 1
                        self._log = log_add(self._log, t, 0, "sub_hit", 1)
                    else:
                        kills += 1
                        self._log = log_add(self._log, t, 0, "sub_destroyed", 1)
        self.sonar = (hits, kills)
        # cargo ships move one cell along their routes
        c_idx, c_hp, routes = self.c_idx, self.c_hp, self.c_route
        for c in range(len(c_idx)):
            if c_hp[c] > 0:
                c_idx[c] = (c_idx[c] + 1) % len(routes[c])
        return t, moved, sum(c_hp)

    def sub_context(self) -> tuple[list[int], list[list[int]] | None, int]:
        """(live subs, distances outside the sonar block, the block's cells): what the subs
        choose on, after the Navy ship and the cargo ships moved."""
        live = [i for i in range(len(self.s_pos)) if self.s_hp[i] > 0]
        if not live:
            return live, None, 0
        navy_on = self.navy if self.navy_hp > 0 else -1
        return (live, self.board.distances(navy_on),
                self.board.block[navy_on] if navy_on >= 0 else 0)

    def finish_step(self, t: int, moved: bool, cargo_hp: int, plans) -> None:
        """The subs act by `plans` ((sub, (kind, cell)) in creation order), then the step's
        records; `cargo_hp` is the cargo ships' health before the subs acted."""
        for i, (kind, cell) in plans:
            if kind == MOVE:
                self.s_pos[i] = cell
            elif kind == ATTACK:
                self._attack(cell)
        self._record(t, moved, cargo_hp - sum(self.c_hp))
        self.t = self.tick = t + 1

    def _record(self, t: int, moved: bool, cargo_damage: int) -> None:
        """The step's snapshot events and running sums (see the module's docstring)."""
        b, here = self.board, self.navy
        off = b.centre[here]
        self.off += off
        log = log_add(log_add(self._log, t, 0, "navy_cell", here), t, 0, "centre_distance", off)
        if moved:
            log = log_add(log, t, 0, "navy_moved", 1)
        if cargo_damage:
            log = log_add(log, t, 0, "cargo_damage", cargo_damage)
        dist, c_hp, c_idx, routes = b.manhattan[here], self.c_hp, self.c_idx, self.c_route
        near = -1
        for c in range(len(c_hp)):
            if c_hp[c] > 0:
                d = dist[routes[c][c_idx[c]]]
                if near < 0 or d < near:
                    near = d
        if near >= 0:
            self.far += near
            log = log_add(log, t, 0, "cargo_distance", near)
        if self.navy_hp > 0:
            block = b.block[here]
            seen = 0
            for p, h in zip(self.s_pos, self.s_hp):
                if h > 0 and block >> p & 1:
                    seen += 1
            if seen:
                log = log_add(log, t, 0, "sub_seen", seen)
        self._log = log

    def _attack(self, cell: int) -> None:
        if self.navy_hp > 0 and self.navy == cell:
            self.navy_hp -= 1
            self._charge("navy_hit" if self.navy_hp > 0 else "navy_destroyed")
        c_hp, c_idx, routes = self.c_hp, self.c_idx, self.c_route
        for c in range(len(c_hp)):
            if c_hp[c] > 0 and routes[c][c_idx[c]] == cell:
                c_hp[c] -= 1
                self._charge("cargo_hit" if c_hp[c] > 0 else "cargo_destroyed")

    def _charge(self, event: str) -> None:
        c = COSTS[event]
        self.cost += c
        self._log = log_add(log_add(self._log, self.t, 0, event, 1), self.t, 0, "cost", c)

    # -- results ---------------------------------------------------------------------------
    def winner(self) -> int | None:
        """None: Navy Defense has no win, only a cost to keep low (a maintenance goal)."""
        return None

    def ranking(self) -> list[int]:
        return [0]

    def results(self) -> list[float]:
        """The lone player's share of first place: always 1 (the cost is the result)."""
        return [1.0]

    def scores(self) -> list[float]:
        """Minus the total cost (higher is better, as every game's scores)."""
        return [float(-self.cost)]

    def summary(self, player: int) -> dict[str, float]:
        """score (minus the cost), cost, and the counts of every costed and sonar event."""
        t = {"moves": 0.0, "navy_hit": 0.0, "navy_destroyed": 0.0, "cargo_hit": 0.0,
             "cargo_destroyed": 0.0, "sub_hit": 0.0, "sub_destroyed": 0.0}
        for _, _, name, value in log_to_list(self._log):
            if name == "move":
                t["moves"] += value
            elif name in t:
                t[name] += value
        return {"score": float(-self.cost), "cost": float(self.cost),
                "cargo_left": float(sum(h > 0 for h in self.c_hp)),
                "navy_alive": float(self.navy_hp > 0), **t}

    def player_name(self, player: int) -> str:
        return "Navy"

    def events(self) -> list[tuple[int, int, str, float]]:
        """(step, 0, event, value): ``move``, ``navy_hit``, ``navy_destroyed``, ``cargo_hit``,
        ``cargo_destroyed`` (each followed by its ``cost``), ``sub_hit``, ``sub_destroyed``;
        at each step's end the snapshots of `SNAPSHOT_EVENTS` (``navy_cell``,
        ``centre_distance``, ``cargo_distance``, ``sub_seen``, ``navy_moved``,
        ``cargo_damage``)."""
        return log_to_list(self._log)

    def action_type_name(self, action) -> str:
        return "STAY" if action == "STAY" else "MOVE"

    def describe(self, action) -> str:
        if action == "STAY":
            return "stay"
        for a, d in self.board.moves[self.navy]:
            if a == action:
                x, y = self.board.xy[d]
                return f"move {DIRECTION_NAMES[a]} to ({x},{y})"
        return str(action)

    # -- hidden information -----------------------------------------------------------------------
    def observation(self, player: int = 0) -> NavyObservation:
        """What the Navy ship sees: everything but the subs outside its sonar block."""
        block = self.board.block[self.navy] if self.navy_hp > 0 else 0
        seen = tuple(sorted((p, h) for p, h in zip(self.s_pos, self.s_hp)
                            if h > 0 and block >> p & 1))
        return NavyObservation(self.size, self.steps, self.t, self.last_action, self.navy,
                               self.navy_hp, self.c_route,
                               tuple(zip(self.c_idx, self.c_hp)), seen, self.sonar, self.cost)

    def determinise(self, player: int, rng, belief=None, policy: str = BELIEVED
                    ) -> "NavyState":
        """A state the Navy ship cannot tell from this one: drawn from `belief` (a
        `games.navy.belief.ParticleBelief` or `games.navy.exact.ExactBelief`, which carry
        their sub model) when given and not empty, else from the current observation
        alone (`from_observation`) under `policy` (the believed sub model by default)."""
        seed = int(rng.integers(1 << 62))
        if belief is not None and len(belief):
            return belief.sample(seed)
        return from_observation(self.observation(player), random.Random(seed), policy)

    def new_belief(self, player: int, size: int, seed: int):
        """A particle filter of `size` particles (`games.navy.belief.ParticleBelief`)."""
        return ParticleBelief(size, seed)

    # -- views ------------------------------------------------------------------------------
    def cargo_cell(self, c: int) -> int:
        return self.c_route[c][self.c_idx[c]]

    def __repr__(self) -> str:
        return (f"<NavyState t={self.t}/{self.steps} navy={self.board.xy[self.navy]} "
                f"hp={self.navy_hp} cost={self.cost}>")


def from_observation(obs: NavyObservation, rng: random.Random, policy: str = BELIEVED
                     ) -> NavyState:
    """A full state with observation `obs`, drawn with `rng`: the subs seen where they are,
    and as many hidden subs as make a total drawn uniformly from (subs seen) to `MAX_SUBS`,
    each on a uniformly drawn cell outside the sonar block, at full health; under `policy`,
    each sub's target drawn uniformly among the live cargo ships; its own tie-break seed.

    Args:
        obs: what the Navy ship sees.
        rng: the draws.
        policy: the sub behaviour the state simulates (believed by default).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy: one of {', '.join(POLICIES)} expected, got {policy!r}")
    b = board(obs.size, obs.size)
    block = b.block[obs.navy] if obs.navy_hp > 0 else 0
    outside = [c for c in range(b.cells) if not block >> c & 1]
    total = rng.randint(len(obs.subs_seen), MAX_SUBS)
    subs = list(obs.subs_seen) + [(rng.choice(outside), HEALTH)
                                  for _ in range(total - len(obs.subs_seen))]
    rng.shuffle(subs)  # creation order is not seen
    live = [c for c, (_, h) in enumerate(obs.cargo) if h > 0]
    return with_subs(obs, [(p, h, rng.choice(live) if live and policy == BELIEVED else -1)
                           for p, h in subs], policy, rng.getrandbits(62))


def with_subs(obs: NavyObservation, subs, policy: str, seed: int) -> NavyState:
    """The full state with observation `obs` and these subs.

    Args:
        obs: what the Navy ship sees.
        subs: (cell, health, target) per sub, in creation order (target -1: none drawn).
        policy: the sub behaviour the state simulates.
        seed: the state's luck.
    """
    s = NavyState.__new__(NavyState)
    b = board(obs.size, obs.size)
    s.board, s.size, s.steps, s.t, s.tick = b, obs.size, obs.steps, obs.t, obs.t
    s.navy, s.navy_hp = obs.navy, obs.navy_hp
    s.c_route = obs.routes
    s.c_dir = tuple("cw" if b.route(r[0], "cw") == r else "ccw" for r in obs.routes)
    s.c_idx = [i for i, _ in obs.cargo]
    s.c_hp = [h for _, h in obs.cargo]
    s.s_pos = [p for p, _, _ in subs]
    s.s_hp = [h for _, h, _ in subs]
    s.s_target = [g for _, _, g in subs]
    s.policy = policy
    s.seed = int(seed)
    s.cost = obs.cost
    s.last_action = obs.last_action
    s.sonar = obs.sonar
    s.moves = 0
    s.far = s.off = 0.0
    s._log = None
    return s
