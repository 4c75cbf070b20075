"""The Navy ship's belief about the hidden submarines: an unweighted particle filter.

A particle is a full state under the believed sub model (`games.navy.subs`), or under the
true behaviour for a planner given the true model (`policy`). After each real
step, `update(observation)` advances every particle by the Navy ship's last action (its own
tie-break luck) and drops every particle whose observation differs from the real one (a sub
seen or not seen in the sonar block, its health, the sonar's hits and kills, damage to the
cargo ships or the Navy ship, the cost). The survivors are the belief; it is refilled to its
size by **rejuvenation**: copies of uniformly drawn survivors, each with fresh luck, in
which every hidden sub moves to a random orthogonal neighbour outside the sonar block with
probability `JITTER` (so that the filter keeps exploring positions its wrong model did not
predict). When no particle survives, or the observation does not follow the previous one
(another game, a skipped step), the belief restarts from the observation alone
(`state.from_observation`: the subs seen, and 0 to 3 subs in total, uniformly).

The filter's own simulation (one `apply` per particle and step) is the belief's upkeep, not
search: it is counted in `calls`, not in a search agent's budget.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from games.navy.subs import BELIEVED, POLICIES
from games.navy.world import board

if TYPE_CHECKING:  # (the states it holds; state.py makes the filter)
    from games.navy.state import NavyObservation, NavyState

JITTER = 0.5
"""The chance that a hidden sub of a rejuvenated particle moves one cell."""


class ParticleBelief:
    """An unweighted particle filter of `size` particles (the `games.api.Belief` of Navy)."""

    def __init__(self, size: int = 30, seed: int = 0, policy: str = BELIEVED,
                 jitter: float = JITTER) -> None:
        """Args:
            size: the number of particles.
            seed: seed of the filter's draws.
            policy: the sub behaviour the particles simulate (`games.navy.subs`: the
                believed model by default, or the true behaviour).
            jitter: the chance that a hidden sub of a rejuvenated particle moves one cell
                (`JITTER`); 0 makes the filter a plain rejection filter of the model's
                posterior (the exact belief's, as the particles grow).
        """
        if not 0.0 <= jitter <= 1.0:
            raise ValueError(f"jitter: a probability in [0, 1] expected, got {jitter!r}")
        self.jitter = jitter
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"particles: a whole number >= 1 expected, got {size!r}")
        if policy not in POLICIES:
            raise ValueError(f"model: one of {', '.join(POLICIES)} expected, got {policy!r}")
        self.size = size
        self.policy = policy
        self.rng = random.Random(seed)
        self.particles: list[NavyState] = []
        self.last: NavyObservation | None = None
        self.calls = 0
        self.restarts = 0

    def update(self, observation: NavyObservation) -> None:
        """Filter the particles by the new observation (see the module's docstring)."""
        survivors = []
        if self.last is not None and follows(self.last, observation):
            action = observation.last_action
            for p in self.particles:
                p.apply(action)
                self.calls += 1
                if p.observation(0) == observation:
                    survivors.append(p)
        if survivors:
            self.particles = survivors + [self._rejuvenated(self.rng.choice(survivors),
                                                            observation)
                                          for _ in range(self.size - len(survivors))]
        else:
            self.restarts += 1
            self.particles = [observation.draw(self.rng, self.policy)
                              for _ in range(self.size)]
        self.last = observation

    def _rejuvenated(self, p: NavyState, obs: NavyObservation) -> NavyState:
        c = p.copy()
        c.seed = self.rng.getrandbits(62)
        b = board(obs.size, obs.size)
        block = b.block[obs.navy] if obs.navy_hp > 0 else 0
        for i, q in enumerate(c.s_pos):
            if c.s_hp[i] > 0 and not block >> q & 1 and self.rng.random() < self.jitter:
                moves = [n for n in b.neighbours[q] if not block >> n & 1]
                if moves:
                    c.s_pos[i] = self.rng.choice(moves)
        return c

    def sample(self, seed: int) -> NavyState:
        """A copy of a uniformly drawn particle (with replacement) with its own luck."""
        c = self.particles[random.Random(seed).randrange(len(self.particles))].copy()
        c.seed = seed
        return c

    def __len__(self) -> int:
        return len(self.particles)

    def cell_marginals(self) -> list[float]:
        """The mean number of live subs on each cell over the particles."""
        out = [0.0] * (self.last.size ** 2)
        for p in self.particles:
            for c, h in zip(p.s_pos, p.s_hp):
                if h > 0:
                    out[c] += 1.0 / len(self.particles)
        return out

    def hidden_counts(self) -> list[int]:
        """Live subs per particle (for tests and reports)."""
        return [sum(h > 0 for h in p.s_hp) for p in self.particles]


def follows(prev: NavyObservation, obs: NavyObservation) -> bool:
    """Whether `obs` is the observation one step after `prev` in the same world."""
    return (obs.t == prev.t + 1 and obs.size == prev.size and obs.routes == prev.routes
            and obs.last_action is not None)
