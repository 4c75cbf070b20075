"""Navy Defense's exact belief: it holds the true hidden state, its worlds agree with the
observations, its marginals are a large rejection filter's, and it refuses large worlds."""

from __future__ import annotations

import random

import pytest

from games.navy.belief import ParticleBelief
from games.navy.exact import ExactBelief, config_of, outcomes, state_count
from games.navy.hindsight import NavyHOP
from games.navy.level import NavyLevel
from games.navy.state import NavyState
from games.navy.subs import BELIEVED, TRUE
from play.runner import play_game


def tiny(policy: str, seed: int = 3) -> NavyState:
    """A 4x4 world, one cargo ship, two subs, under `policy` (believed targets drawn)."""
    s = NavyState.start(NavyLevel(4, (1, 1), ((0, 0, "cw"),), ((3, 3), (3, 0))), 12, seed)
    s.policy = policy
    if policy == BELIEVED:
        s.s_target = [0, 0]
    return s


@pytest.mark.parametrize("policy", [BELIEVED, TRUE])
def test_the_exact_belief_holds_the_true_state_and_its_worlds_agree(policy):
    real = tiny(policy)
    belief = ExactBelief(policy=policy)
    rng = random.Random(1)
    while not real.is_terminal():
        obs = real.observation(0)
        belief.update(obs)
        assert config_of(real) in belief.states
        assert sum(belief.states.values()) == pytest.approx(1.0)
        for seed in range(10):
            assert belief.sample(seed).observation(0) == obs
        real.apply(rng.choice(real.legal_actions()))
    assert belief.restarts == 0


def test_its_marginals_match_a_large_rejection_filter():
    real = tiny(BELIEVED, seed=5)
    exact = ExactBelief()
    filt = ParticleBelief(size=3000, seed=2, jitter=0.0)
    for action in ("STAY", "E", "S", "STAY", "W"):
        obs = real.observation(0)
        exact.update(obs)
        filt.update(obs)
        assert filt.restarts == 1  # the first observation only
        for e, f in zip(exact.cell_marginals(), filt.cell_marginals()):
            assert abs(e - f) < 0.06
        real.apply(action)
    assert max(exact.cell_marginals()) > 0.1  # not trivially empty


def test_outcomes_enumerate_every_pick():
    s = tiny(TRUE)
    s.navy, s.s_pos[0] = 9, 6  # ship at (1, 2); the sub at (2, 1) in its block, two exits
    live, dist, blocked = s.sub_context()
    out = outcomes(s, 0, dist, blocked)
    assert {cell: p for (_, cell), p in ((a, p) for (a, _), p in out.items())} == {
        2: pytest.approx(0.5), 7: pytest.approx(0.5)}  # (2, 0) and (3, 1), half each


def test_state_count_of_the_encoding():
    assert state_count(2, 1, 1) == 1 + 2 * 2 * 2
    assert state_count(5, 2, 3) == 176_851
    assert state_count(5, 2, 1, policy=TRUE) == 1 + 50


def test_a_world_above_the_limit_is_refused_naming_the_parameter():
    obs = tiny(BELIEVED).observation(0)
    with pytest.raises(ValueError, match="exact_limit"):
        ExactBelief(exact_limit=100).update(obs)
    with pytest.raises(ValueError, match="exact_limit"):
        NavyHOP(belief="exact", exact_limit=0)
    agent = NavyHOP(belief="exact", exact_limit=100, samples=2, horizon=1)
    with pytest.raises(ValueError, match="exact_limit"):
        play_game(tiny(TRUE), [agent])


def test_hop_plays_with_the_exact_belief():
    agent = NavyHOP(belief="exact", samples=3, horizon=2, seed=4)
    play_game(tiny(TRUE), [agent])
    assert isinstance(agent._belief, ExactBelief) and len(agent._belief) > 0
    assert agent.params()["belief"] == "exact"
