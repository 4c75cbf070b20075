"""The scripted baselines of Navy Defense. They read only what the Navy ship sees
(`games.api.observation`), never the hidden submarines.

* `StaticAgent`: never moves.
* `PatrolAgent(direction)`: circles the rectangle of the ring of its start cell, like a
  cargo ship, clockwise (``cw``) or counter-clockwise (``ccw``); off its route it steps
  back towards it; in the one-cell ring of an odd board's centre it stays.
* `ReactiveAgent(direction)`: patrols; when a cargo ship within `NEARBY` cells (Manhattan)
  is damaged, it heads for that ship (a step that most reduces the distance to the ship's
  cell) until the ship is inside its sonar block, then adopts the ship's direction and
  patrols the ring of the cell it has reached. A protected ship that sinks ends the
  protection (it patrols from where it is, in its own direction).

Their memory (the route, the last observation) restarts whenever an observation does not
follow the previous one (a new game).
"""

from __future__ import annotations

from games.api import observation
from games.navy.world import board

NEARBY = 4
"""How near (Manhattan distance) a damaged cargo ship must be for Reactive to protect it."""
DIRECTIONS = ("cw", "ccw")


class StaticAgent:
    name = "static"

    def __init__(self, seed: int = 0) -> None:
        """Args:
            seed: unused (kept so every agent builds the same way)."""
        self.seed = seed

    def act(self, state):
        return "STAY"

    def params(self) -> dict:
        return {"seed": self.seed}


def _check_direction(direction) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction: cw or ccw expected, got {direction!r}")
    return direction


def _step_towards(b, here: int, goal: int) -> str:
    """The move that most reduces the Manhattan distance to `goal` (the larger gap first);
    STAY when already there."""
    (x, y), (gx, gy) = b.xy[here], b.xy[goal]
    dx, dy = gx - x, gy - y
    if dx == dy == 0:
        return "STAY"
    if abs(dx) >= abs(dy):
        return "E" if dx > 0 else "W"
    return "S" if dy > 0 else "N"


def _move_to(b, here: int, dest: int) -> str:
    for a, d in b.moves[here]:
        if d == dest:
            return a
    return _step_towards(b, here, dest)


class PatrolAgent:
    name = "patrol"

    def __init__(self, seed: int = 0, direction: str = "cw") -> None:
        """Args:
            seed: unused (kept so every agent builds the same way).
            direction: ``cw`` (clockwise) or ``ccw``.
        """
        self.seed = seed
        self.direction = _check_direction(direction)
        self.own = self.direction
        self.route: tuple[int, ...] = ()
        self.last = None

    def _fresh(self, obs) -> bool:
        last = self.last
        return last is None or obs.t != last.t + 1 or obs.routes != last.routes

    def _patrol(self, b, obs) -> str:
        if obs.navy not in self.route:
            return _step_towards(b, obs.navy, min(self.route, key=lambda c: _manhattan(
                b, c, obs.navy)))
        route = self.route
        nxt = route[(route.index(obs.navy) + 1) % len(route)]
        return _move_to(b, obs.navy, nxt)

    def act(self, state):
        obs = observation(state, state.current_player)
        b = board(obs.size, obs.size)
        if self._fresh(obs):
            self.direction = self.own
            self.route = b.route(obs.navy, self.direction)
            self.reset(obs)
        self.react(b, obs)
        self.last = obs
        if obs.navy_hp <= 0:
            return "STAY"
        return self.choose(b, obs)

    def reset(self, obs) -> None:
        """A new game starts (subclasses forget more)."""

    def react(self, b, obs) -> None:
        """Update plans from the new observation (Patrol has none)."""

    def choose(self, b, obs) -> str:
        return self._patrol(b, obs)

    def params(self) -> dict:
        return {"seed": self.seed, "direction": self.own}


def _manhattan(b, a: int, c: int) -> int:
    (x, y), (u, v) = b.xy[a], b.xy[c]
    return abs(x - u) + abs(y - v)


class ReactiveAgent(PatrolAgent):
    name = "reactive"

    def reset(self, obs) -> None:
        self.protect = -1

    def react(self, b, obs) -> None:
        last = self.last
        if self.protect >= 0 and obs.cargo[self.protect][1] <= 0:  # it sank: patrol on
            self.protect = -1
            self.direction = self.own
            self.route = b.route(obs.navy, self.direction)
        if self.protect < 0 and last is not None and not self._fresh(obs):
            hurt = [c for c, (idx, hp) in enumerate(obs.cargo)
                    if 0 < hp < last.cargo[c][1]
                    and _manhattan(b, obs.routes[c][idx], obs.navy) <= NEARBY]
            if hurt:
                self.protect = min(hurt, key=lambda c: _manhattan(
                    b, obs.routes[c][obs.cargo[c][0]], obs.navy))

    def choose(self, b, obs) -> str:
        c = self.protect
        if c < 0:
            return self._patrol(b, obs)
        route = obs.routes[c]
        ship = route[obs.cargo[c][0]]
        if b.block[obs.navy] >> ship & 1:  # protected: adopt its direction and patrol on
            self.protect = -1
            self.direction = "cw" if b.route(route[0], "cw") == route else "ccw"
            self.route = b.route(obs.navy, self.direction)
            return self._patrol(b, obs)
        return _step_towards(b, obs.navy, ship)
