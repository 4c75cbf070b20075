"""Hindsight optimisation in Navy Defense: the generic `agents.hop.HOPAgent` with two Navy
settings.

* `model`: the submarine behaviour the planner simulates, in its particles and sampled
  worlds: ``believed`` (the source's wrong model: each sub hunts a target of its own, drawn
  at random) or ``true`` (the environment's behaviour, `games.navy.subs`). Planning with the
  true model prices the mismatch. With ``belief="true"`` (omniscient) the worlds are copies
  of the real state, whose subs are switched to the believed model when `model` says so.
* `costs`: the planner's objective as weights of cost terms (`games.navy.evaluators.
  StyleEvaluator`: moves, damage to the Navy ship and to the cargo ships, and charges per
  step for the distance to the nearest cargo ship and to the centre); None is the game's
  cost. The weights make play-styles (docs/navy.md, "Play-styles"); the genome mapping
  ``navy_costs`` turns a genome into them.

It also offers ``belief="exact"``: the exact belief of `games.navy.exact` in place of the
particle filter (small worlds only: one larger than `exact_limit` states is refused).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from agents.hop import HOPAgent
from games.navy.belief import ParticleBelief
from games.navy.evaluators import TERMS, StyleEvaluator, check_weights
from games.navy.exact import EXACT_LIMIT, ExactBelief
from games.navy.subs import BELIEVED, POLICIES, TRUE

COST_SCALE = {"move": 2.0, "navy": 2.0, "cargo": 2.0, "guard": 4.0, "centre": 4.0}
"""A genome value g in [0, 1] is the weight g x scale of its term: 0.5 gives the game's own
weights of the moves and the damage (1), and a charge of 2 per cell of distance."""


class NavyHOP(HOPAgent):
    """`agents.hop.HOPAgent` with the Navy settings `model`, `costs` and the exact belief
    (module docstring)."""

    name = "hop"
    BELIEFS = HOPAgent.BELIEFS + ("exact",)
    KEPT = ("particles", "exact")

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        model = p.get("model", BELIEVED)
        if model not in POLICIES:
            raise ValueError(f"model: one of {', '.join(POLICIES)} expected, got {model!r}")
        limit = p.get("exact_limit", EXACT_LIMIT)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"exact_limit: a whole number >= 1 expected, got {limit!r}")
        costs = p.get("costs")
        if costs is not None:
            check_weights(costs)
            if p.get("evaluator") is not None:
                raise ValueError("costs: give costs or evaluator, not both")
        super().check_params({k: v for k, v in p.items() if k not in ("model", "costs", "exact_limit")}, game)

    def __init__(self, seed: int = 0, budget: int | None = None, game: str | None = None,
                 evaluator=None, samples: int = 30, horizon: int = 5,
                 belief: str = "particles", particles: int = 30, model: str = BELIEVED,
                 costs: Mapping[str, float] | None = None,
                 exact_limit: int = EXACT_LIMIT) -> None:
        """Args:
            seed, budget, game, evaluator, samples, horizon, belief, particles: as
                `agents.hop.HOPAgent`; `belief` may also be ``exact``.
            model: ``believed`` or ``true``: the sub behaviour the planner simulates.
            costs: term -> weight of the planner's objective (`TERMS`; missing terms keep
                the game's weights); None: the game's cost.
            exact_limit: with ``belief="exact"``, the largest state space accepted
                (`games.navy.exact.state_count`).
        """
        self.check_params({"model": model, "costs": costs, "evaluator": evaluator,
                           "budget": budget, "samples": samples, "horizon": horizon,
                           "belief": belief, "particles": particles, "game": game,
                           "exact_limit": exact_limit}, game)
        self.model = model
        self.exact_limit = exact_limit
        self.costs = None if costs is None else check_weights(costs)
        if self.costs is not None:
            evaluator = StyleEvaluator(**self.costs)
        super().__init__(seed, budget, game, evaluator, samples, horizon, belief, particles)

    def make_belief(self, state, me: int, seed: int):
        if self.belief == "exact":
            return ExactBelief(seed, policy=self.model, exact_limit=self.exact_limit)
        return ParticleBelief(self.particles, seed, policy=self.model)

    def sample_world(self, state, me: int, belief=None):
        if self.belief == "true":
            w = state.copy()
            if self.model != w.policy:
                w.policy = self.model
                w.s_target = [-1] * len(w.s_pos)  # believed targets are drawn as needed
            return w
        if self.model == BELIEVED:  # the game's own default
            return super().sample_world(state, me, belief)
        return state.determinise(me, self.rng, belief, policy=self.model)

    def params(self) -> dict[str, Any]:
        out = {**super().params(), "model": self.model, "costs": self.costs}
        if self.belief == "exact":
            out["exact_limit"] = self.exact_limit
        if self.costs is not None:
            out["evaluator"] = None
        return out


def genome_costs(names, genome: np.ndarray) -> dict[str, Any]:
    """The genome mapping ``navy_costs``: genome values (one per `TERMS` entry, in [0, 1])
    -> the agent's `costs` ({term: value x `COST_SCALE`[term]})."""
    if len(genome) != len(TERMS):
        raise ValueError(f"genome: {len(TERMS)} values expected ({', '.join(TERMS)}), "
                         f"got {len(genome)}")
    return {"costs": {t: float(v) * COST_SCALE[t] for t, v in zip(TERMS, genome)}}


__all__ = ["COST_SCALE", "NavyHOP", "TRUE", "genome_costs"]
