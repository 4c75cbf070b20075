"""The Navy ship's exact belief: every hidden sub configuration consistent with all the
observations so far under the agent's sub model, with its probability.

A configuration is the multiset of live subs, each a (cell, health, target) triple (target
-1 under the true behaviour, which has none): the subs' creation order changes nothing that
the Navy ship can observe, so it is not kept. The probabilities are those of the sub model:

* **prior** (at the first observation, and at a restart): the filter restart's draw
  (`state.from_observation`): a total of subs uniform on (subs seen) .. `MAX_SUBS`, each
  hidden sub on a uniform cell outside the sonar block at full health, each sub's target
  uniform among the live cargo ships (believed model);
* **update**: every configuration is advanced by the Navy ship's last action with *every*
  outcome of the subs' random choices (`subs.choose` with a pick that enumerates its options;
  each option of a choice among n has probability 1/n), and each successor whose observation
  differs from the real one is dropped; the survivors' probabilities are renormalised.

The environment's subs do not follow the believed model, so the real history can be
impossible under it: when no configuration survives, the belief restarts from the current
observation alone (counted in `restarts`), as the particle filter does.

The exact belief is only tractable on small boards: its support can be as large as the
encoding's state space (`state_count`), and every configuration costs one simulated step
per update. A configuration whose state space exceeds `exact_limit` is refused.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections import defaultdict

from games.navy.belief import follows
from games.navy.level import MAX_SUBS
from games.navy.state import HEALTH, NavyObservation, NavyState, with_subs
from games.navy.subs import BELIEVED, POLICIES, choose
from games.navy.world import board

EXACT_LIMIT = 200_000
"""The default largest state space (`state_count`) the exact belief accepts."""

Config = tuple[tuple[int, int, int], ...]


def state_count(size: int, cargo: int, subs: int = MAX_SUBS, policy: str = BELIEVED) -> int:
    """The number of hidden sub configurations of the encoding: multisets of 0 to `subs`
    subs, each a (cell, health, target) triple.

    Args:
        size: the board's side.
        cargo: the number of cargo ships (a believed sub's possible targets).
        subs: the largest number of subs.
        policy: the sub model (the true behaviour has no target).
    """
    items = size * size * HEALTH * (max(cargo, 1) if policy == BELIEVED else 1)
    return sum(math.comb(items + k - 1, k) for k in range(subs + 1))


def outcomes(state: NavyState, sid: int, dist, blocked: int) -> dict[tuple, float]:
    """Every outcome of sub `sid`'s choice in `state`: {((kind, cell), target after): its
    probability}, enumerating each random pick's options (depth first)."""
    out: dict[tuple, float] = defaultdict(float)
    saved = state.s_target[sid]
    stack: list[tuple[int, ...]] = [()]
    while stack:
        path = stack.pop()
        sizes: list[int] = []

        def forced(options, seed, t, who, salt=0, path=path, sizes=sizes):
            j = len(sizes)
            sizes.append(len(options))
            return options[path[j] if j < len(path) else 0]

        action = choose(state, sid, dist, blocked, pick=forced)
        out[(action, state.s_target[sid])] += 1.0 / math.prod(sizes)
        state.s_target[sid] = saved
        for j in range(len(path), len(sizes)):
            stack.extend(path + (0,) * (j - len(path)) + (k,) for k in range(1, sizes[j]))
    return out


def config_of(state: NavyState) -> Config:
    """The state's hidden configuration: its live subs, sorted."""
    return tuple(sorted((p, h, g) for p, h, g in zip(state.s_pos, state.s_hp, state.s_target)
                        if h > 0))


class ExactBelief:
    """The exact belief (module docstring): `states` maps a configuration to its probability."""

    def __init__(self, seed: int = 0, policy: str = BELIEVED,
                 exact_limit: int = EXACT_LIMIT) -> None:
        """Args:
            seed: seed of nothing random in the update (it is exact); kept for the interface.
            policy: the sub model (`games.navy.subs`: believed by default, or true).
            exact_limit: the largest state space (`state_count`) accepted; a larger world is
                refused at the first observation.
        """
        if policy not in POLICIES:
            raise ValueError(f"model: one of {', '.join(POLICIES)} expected, got {policy!r}")
        if isinstance(exact_limit, bool) or not isinstance(exact_limit, int) or exact_limit < 1:
            raise ValueError(f"exact_limit: a whole number >= 1 expected, got {exact_limit!r}")
        self.policy = policy
        self.exact_limit = exact_limit
        self.seed = seed
        self.states: dict[Config, float] = {}
        self.last: NavyObservation | None = None
        self.calls = 0
        self.restarts = 0
        self.largest = 0
        self._keys: list[Config] = []
        self._cum: list[float] = []

    def __len__(self) -> int:
        return len(self.states)

    def check(self, obs: NavyObservation) -> None:
        """Refuse a world whose state space exceeds `exact_limit` (one clear error)."""
        n = state_count(obs.size, len(obs.routes), MAX_SUBS, self.policy)
        if n > self.exact_limit:
            raise ValueError(
                f"exact_limit: the exact belief of a {obs.size}x{obs.size} board with "
                f"{len(obs.routes)} cargo ships and up to {MAX_SUBS} subs has {n:,} states, "
                f"above exact_limit={self.exact_limit:,} (raise it, or use particles)")

    def prior(self, obs: NavyObservation) -> dict[Config, float]:
        """The filter restart's distribution (`state.from_observation`), exactly."""
        b = board(obs.size, obs.size)
        block = b.block[obs.navy] if obs.navy_hp > 0 else 0
        outside = [c for c in range(b.cells) if not block >> c & 1]
        live = [c for c, (_, h) in enumerate(obs.cargo) if h > 0]
        targets = live if live and self.policy == BELIEVED else [-1]
        seen = list(obs.subs_seen)
        totals = range(len(seen), MAX_SUBS + 1)
        out: dict[Config, float] = defaultdict(float)
        for total in totals:
            hidden = total - len(seen)
            p = 1.0 / (len(totals) * len(outside) ** hidden * len(targets) ** total)
            for cells in itertools.product(outside, repeat=hidden):
                subs = seen + [(c, HEALTH) for c in cells]
                for tg in itertools.product(targets, repeat=total):
                    out[tuple(sorted((c, h, g) for (c, h), g in zip(subs, tg)))] += p
        return dict(out)

    def successors(self, config: Config, obs: NavyObservation, action) -> dict[Config, float]:
        """{successor configuration: probability} of `config` (seen as `obs`) after `action`,
        every outcome of the subs' choices, observations not yet filtered."""
        s = with_subs(obs, list(config), self.policy, 0)
        t, moved, cargo_hp = s.begin_step(action)
        live, dist, blocked = s.sub_context()
        per_sub = [list(outcomes(s, i, dist, blocked).items()) for i in live]
        out: dict[Config, float] = defaultdict(float)
        for combo in itertools.product(*per_sub):
            c = s.copy()
            p = 1.0
            plans = []
            for i, ((action_i, target), q) in zip(live, combo):
                c.s_target[i] = target
                plans.append((i, action_i))
                p *= q
            c.finish_step(t, moved, cargo_hp, plans)
            self.calls += 1
            out[(config_of(c), c.observation(0))] += p
        return out

    def update(self, observation: NavyObservation) -> None:
        """Advance and filter every configuration by the new observation (module docstring)."""
        if self.last is None:
            self.check(observation)
        new: dict[Config, float] = defaultdict(float)
        if self.last is not None and follows(self.last, observation):
            for config, p in self.states.items():
                for (succ, seen), q in self.successors(config, self.last,
                                                       observation.last_action).items():
                    if seen == observation:
                        new[succ] += p * q
        if not new:
            if self.last is not None:
                self.restarts += 1
            new = self.prior(observation)
        total = sum(new.values())
        self.states = {k: v / total for k, v in new.items()}
        self.largest = max(self.largest, len(self.states))
        self._keys = list(self.states)
        self._cum = list(itertools.accumulate(self.states[k] for k in self._keys))
        self.last = observation

    def sample(self, seed: int) -> NavyState:
        """A state drawn from the belief (its probability) with luck of its own."""
        u = random.Random(seed).random() * self._cum[-1]
        k = self._keys[min(bisect.bisect_right(self._cum, u), len(self._keys) - 1)]
        return with_subs(self.last, list(k), self.policy, seed)

    def cell_marginals(self) -> list[float]:
        """The expected number of live subs on each cell."""
        out = [0.0] * (self.last.size ** 2)
        for k, p in self.states.items():
            for c, _, _ in k:
                out[c] += p
        return out


__all__ = ["EXACT_LIMIT", "ExactBelief", "config_of", "outcomes", "state_count"]
