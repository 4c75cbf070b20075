"""The archive's quality rule (win rate, then mean score) and its statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qd.archive import (
    EliteArchive,
    Evaluation,
    band,
    evaluate_rows,
    is_better,
    objective,
    share_unit,
)
from qd.features import features_of

FEATURES = features_of("tribes")


def get_feature(name):
    return FEATURES[name]

scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(scores, st.integers(-10**8, 10**8), st.integers(1, 200))
def test_band_is_strictly_increasing_inside_a_half(x, total, n):
    assert 0.0 < band(x) < 0.5
    a, b = total / n, (total + 1) / n  # neighbouring mean scores of n games
    assert band(a) < band(b)


@settings(max_examples=1000)
@given(st.integers(1, 200), st.data())
def test_objective_orders_exactly_as_the_paper_rule(n, data):
    """Higher win rate always wins, whatever the scores; equal win rate: higher mean score.
    Mean scores are means of n integer game scores (up to a million in size)."""
    w1 = data.draw(st.integers(0, n))
    w2 = data.draw(st.integers(0, n))
    total = st.integers(-10**6 * n, 10**6 * n)
    s1, s2 = data.draw(total) / n, data.draw(total) / n
    if data.draw(st.booleans()):
        s2 = data.draw(st.sampled_from([s1, (round(s1 * n) + 1) / n, (round(s1 * n) - 1) / n]))
    a = Evaluation(np.zeros(2), w1, n, s1, {}, {})
    b = Evaluation(np.zeros(2), w2, n, s2, {}, {})
    if is_better(a, b):
        assert a.objective > b.objective
    elif is_better(b, a):
        assert b.objective > a.objective
    else:
        assert a.objective == b.objective


def test_one_game_outweighs_any_score():
    n = 20
    assert objective(11, n, -1e12) > objective(10, n, 1e12)
    assert objective(10, n, 5001) > objective(10, n, 5000)
    with pytest.raises(ValueError):
        objective(0, 0, 0.0)


def ev(genome, wins, games, score, attacks):
    mean = {n: 0.0 for n in FEATURES}
    mean["attacks"] = attacks
    e = Evaluation(np.asarray(genome, float), wins, games, score, mean, dict(mean))
    e.measures = np.array([attacks])
    return e


def archive():
    return EliteArchive([get_feature("attacks")], ["a", "b"], seed=1, stats=FEATURES.values())


def test_replacement_rule():
    arc = archive()
    arc.add([ev([0, 0], 10, 20, 5000, 5)])
    # lower win rate, much higher score: never replaces
    info = arc.add([ev([1, 0], 9, 20, 1e9, 5)])
    assert info["status"][0] == 0
    assert arc.frame()["a"].tolist() == [0]
    # same win rate, higher score: replaces
    assert arc.add([ev([0.25, 0], 10, 20, 5001, 5.5)])["status"][0] == 1
    assert arc.frame()["a"].tolist() == [0.25]
    # full tie: the incumbent stays
    assert arc.add([ev([0.5, 0], 10, 20, 5001, 5)])["status"][0] == 0
    # one more win with a worse score: replaces
    assert arc.add([ev([0.75, 0], 11, 20, 10, 4.1)])["status"][0] == 1
    assert arc.frame()["a"].tolist() == [0.75]
    # another cell: new
    assert arc.add([ev([1, 1], 0, 20, 0, 19)])["status"][0] == 2


def test_a_batch_keeps_the_best_of_each_cell():
    arc = archive()
    arc.add([ev([0, 0], 3, 4, 10, 1), ev([1, 0], 4, 4, 0, 1), ev([0, 1], 4, 4, 0, 1.5)])
    f = arc.frame()
    assert len(f) == 1 and f["a"].tolist() == [1.0]  # the first of the best on a tie


def test_stats_and_frame():
    arc = archive()
    assert arc.stats()["cells"] == 0
    arc.add([ev([0, 0], 1, 4, 10, 1), ev([1, 0], 4, 4, 0, 15), ev([0, 1], 2, 4, 0, 25)],
            batch=3, first_evaluation=7)
    s = arc.stats()
    assert s["cells"] == 3 and s["coverage"] == pytest.approx(0.3)
    assert s["qd_score"] == pytest.approx(0.25 + 1 + 0.5)
    assert s["best_win_rate"] == 1.0
    f = arc.frame()
    assert f["cell"].tolist() == ["0", "14", "18"]  # lower edge of each bin; 25 is clipped
    assert f["evaluation"].tolist() == [7, 8, 9] and set(f["batch"]) == {3}
    assert {"win_rate", "mean_score", "games", "attacks_mean", "attacks_std",
            "win_turn_mean", "measure_attacks"} <= set(f.columns)


@settings(max_examples=500)
@given(st.integers(1, 100), st.sampled_from([3, 4]), st.data())
def test_shared_first_places_order_exactly_as_the_paper_rule(n, players, data):
    """With three or four players, wins are sums of shares of first place (1, 1/2, 1/3, ...):
    multiples of 1/L (L = lcm(1..players)); the score never bridges two different totals."""
    unit = share_unit(players)
    w1 = data.draw(st.integers(0, n * unit)) / unit
    w2 = data.draw(st.integers(0, n * unit)) / unit
    total = st.integers(-10**6 * n, 10**6 * n)  # mean scores of n integer game scores
    s1, s2 = data.draw(total) / n, data.draw(total) / n
    a = Evaluation(np.zeros(2), w1, n, s1, {}, {}, players=players)
    b = Evaluation(np.zeros(2), w2, n, s2, {}, {}, players=players)
    if is_better(a, b):
        assert a.objective > b.objective
    elif is_better(b, a):
        assert b.objective > a.objective
    else:
        assert a.objective == b.objective


def test_a_third_of_a_win_more_outweighs_any_score_with_three_players():
    assert share_unit(2) == 2 and share_unit(3) == 6 and share_unit(4) == 12
    # 1/2 + 1/3 against 1/3 + 1/3 + ... : the totals differ by 1/6
    assert objective(5 / 6, 3, -1e12, players=3) > objective(4 / 6, 3, 1e12, players=3)
    # the two-player objective is unchanged by the players argument
    assert objective(3, 5, 100.0) == objective(3, 5, 100.0, players=2) == (3 + band(100.0)) / 5


def test_pooled_shares_are_summed_exactly():
    rows = np.array([[1 / 3, 0.0], [1 / 3, 0.0], [1 / 3, 0.0], [0.5, 0.0], [0.5, 0.0]])
    e = evaluate_rows(np.zeros(1), rows, [], [], players=3)
    assert e.wins == 2 and isinstance(e.wins, int)
    e = evaluate_rows(np.zeros(1), rows[:4], [], [], players=3)
    assert e.wins == 1.5 and e.win_rate == 1.5 / 4
