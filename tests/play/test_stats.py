"""The cluster bootstrap of base.stats: intervals of a mean over positions grouped in games."""

from __future__ import annotations

import math

import numpy as np
import pytest

from base.stats import cluster_bootstrap, wilson_interval


def _games(n_games: int, per_game: int, p: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 values where every position of a game has its game's value (fully correlated)."""
    rng = np.random.default_rng(seed)
    outcome = (rng.random(n_games) < p).astype(float)
    return np.repeat(outcome, per_game), np.repeat(np.arange(n_games), per_game)


def test_correlated_positions_widen_the_interval():
    values, games = _games(100, 40, 0.7, seed=1)
    b = cluster_bootstrap(values, games)
    assert (b.n, b.clusters) == (4000, 100)
    lo, hi = wilson_interval(values.sum(), len(values))  # as if 4000 independent positions
    assert b.high - b.low > 4 * (hi - lo)
    # what the positions carry is what 100 games carry
    glo, ghi = wilson_interval(values.sum() / 40, 100)
    assert b.high - b.low == pytest.approx(ghi - glo, rel=0.25)
    assert b.low < b.mean < b.high


def test_one_position_per_game_is_about_wilson():
    values, games = _games(500, 1, 0.7, seed=2)
    b = cluster_bootstrap(values, games)
    lo, hi = wilson_interval(values.sum(), len(values))
    assert b.mean == pytest.approx(values.mean())
    assert abs(b.low - lo) < 0.01 and abs(b.high - hi) < 0.01


def test_the_same_data_give_the_same_interval():
    values = np.random.default_rng(3).random(150)  # values not on a grid: quantiles move
    games = np.repeat(np.arange(30), 5)
    a = cluster_bootstrap(values, games)
    assert a == cluster_bootstrap(values, games)
    other = cluster_bootstrap(values, games, seed=1)
    assert (other.low, other.high) != (a.low, a.high)
    narrow = cluster_bootstrap(values, games, level=0.5)
    assert a.low < narrow.low and narrow.high < a.high


def test_the_mean_is_over_positions_and_clusters_take_any_label():
    # game "a": 3 positions all right, game "b": 1 position wrong: 3 of 4 positions
    b = cluster_bootstrap([1, 1, 1, 0, math.nan], ["a", "a", "a", "b", "b"], resamples=50)
    assert b.mean == 0.75 and (b.n, b.clusters) == (4, 2)
    # a resample holds two games: a+a (1), a+b (3/4) or b+b (0)
    assert 0.0 <= b.low <= b.high <= 1.0


def test_fewer_than_two_games_have_no_interval_and_bad_input_is_refused():
    one = cluster_bootstrap([1, 0, 1], [7, 7, 7])
    assert one.mean == pytest.approx(2 / 3) and math.isnan(one.low) and one.clusters == 1
    none = cluster_bootstrap([], [])
    assert none.n == 0 and math.isnan(none.mean)
    with pytest.raises(ValueError, match="one length"):
        cluster_bootstrap([1, 0], [1])
    with pytest.raises(ValueError, match="resamples"):
        cluster_bootstrap([1, 0], [1, 2], resamples=0)
