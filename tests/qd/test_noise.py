"""Noise-aware MAP-Elites (`qd.noise`): the decisions on synthetic candidates, pooled
estimates in a real run, and runs that stay a function of config and seed (resume, workers,
batches in flight)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from base.stats import wilson_interval
from qd.archive import EliteArchive
from qd.config import ConfigError, config_from_dict
from qd.features import Feature
from qd.noise import Adaptive, Candidate, Reestimate, Reevaluate, difference, noise_params
from qd.run import evolve
from tests.qd.test_run import TINY, assert_same_run, write


def rows(wins: int, games: int, x: float) -> np.ndarray:
    """Game rows (won, score, feature x) of `wins` wins out of `games`, feature x each game."""
    won = np.array([1.0] * wins + [0.0] * (games - wins))
    return np.column_stack([won, np.full(games, 100.0), np.full(games, x)])


FEATURES = [Feature("x", lo=0.0, hi=1.0, width=0.5, fn=lambda g: 0.0)]


def archive() -> EliteArchive:
    return EliteArchive(FEATURES, ["w"], seed=1)


def genomes(n: int) -> np.ndarray:
    return np.arange(n, dtype=float).reshape(n, 1)


def test_config():
    assert config_from_dict(TINY).noise == {"method": "none"}
    unnamed = {k: v for k, v in TINY.items() if k != "noise"}
    assert config_from_dict(unnamed).noise == {"method": "reestimate", "replays": 2}
    assert config_from_dict({**unnamed, "noise": {"replays": 3}}).noise == \
        {"method": "reestimate", "replays": 3}
    c = config_from_dict({**TINY, "noise": {"method": "reevaluate"}})
    assert c.noise == {"method": "reevaluate", "per_batch": 4}
    assert config_from_dict(c.to_dict()).noise == c.noise
    assert noise_params({"method": "adaptive", "max_rounds": 2}) == \
        {"method": "adaptive", "max_rounds": 2}
    assert noise_params({"method": "reestimate"}) == {"method": "reestimate", "replays": 2}
    with pytest.raises(ConfigError, match="noise.method: unknown noise method 'lucky'; known: none, "):
        config_from_dict({**TINY, "noise": {"method": "lucky"}})
    with pytest.raises(ConfigError, match=r"noise.max_rounds: unknown key \(known: method, per_batch\)"):
        config_from_dict({**TINY, "noise": {"method": "reevaluate", "max_rounds": 2}})
    with pytest.raises(ConfigError, match=r"noise.per_batch: must be >= 1, got 0"):
        config_from_dict({**TINY, "noise": {"method": "reevaluate", "per_batch": 0}})


def test_reevaluate_pools_replays_and_the_cell_follows_the_pooled_features():
    a, m = archive(), Reevaluate(per_batch=1)
    # batch 0: a lucky genome, 4 of 4, at x = 0.2 (cell 0)
    status, _ = m.tell(a, 0, 0, genomes(1), [rows(4, 4, 0.2)], [], FEATURES, ["x"])
    assert status.tolist() == [2] and a.ids() == [0]
    # it is replayed (fewest games first), and its replays lose and play at x = 0.9
    assert [(cid, r) for cid, r, _ in m.ask(a.ids())] == [(0, 1)]
    assert m.ask(a.ids()) == []  # its replay is in flight: not asked twice
    m.tell(a, 1, 1, genomes(0), [], [(0, rows(0, 12, 0.9))], FEATURES, ["x"])
    f = a.frame()
    assert f["games"].tolist() == [16] and f["wins"].tolist() == [4]
    assert f["win_rate"].tolist() == [0.25]
    assert f["x_mean"].iloc[0] == pytest.approx((4 * 0.2 + 12 * 0.9) / 16)
    assert f["cell"].tolist() == ["0.5"]  # moved with its pooled mean (0.725)


def test_reevaluate_decides_on_the_lower_confidence_bound():
    a, m = archive(), Reevaluate(per_batch=2)
    m.tell(a, 0, 0, genomes(1), [rows(60, 100, 0.2)], [], FEATURES, ["x"])  # 60%, tight
    # 3 of 4 is a higher rate, but its lower bound is below the incumbent's: rejected
    assert wilson_interval(3, 4)[0] < wilson_interval(60, 100)[0]
    status, _ = m.tell(a, 1, 1, genomes(1) + 1, [rows(3, 4, 0.2)], [], FEATURES, ["x"])
    assert status.tolist() == [0] and a.ids() == [0]
    # 20 of 20 is clearly better: it takes the cell
    status, _ = m.tell(a, 2, 2, genomes(1) + 2, [rows(20, 20, 0.2)], [], FEATURES, ["x"])
    assert status.tolist() == [1] and a.ids() == [2]
    assert set(m.candidates) == {2}  # the displaced elite and the rejected genome are gone


def test_adaptive_replays_until_the_difference_is_clear():
    a, m = archive(), Adaptive(max_rounds=3)
    m.tell(a, 0, 0, genomes(1), [rows(2, 4, 0.2)], [], FEATURES, ["x"])
    # 3 of 4 against 2 of 4: undecided, the challenger waits and both are replayed
    status, _ = m.tell(a, 1, 1, genomes(1) + 1, [rows(3, 4, 0.2)], [], FEATURES, ["x"])
    assert status.tolist() == [3] and a.ids() == [0] and m.waiting == {1: 0}
    asked = m.ask(a.ids())
    assert [(cid, r) for cid, r, _ in asked] == [(1, 1), (0, 1)]
    assert m.ask(a.ids()) == []
    # the replays separate them: 3+12 of 16 against 2+1 of 16
    m.tell(a, 2, 2, genomes(0), [], [(1, rows(12, 12, 0.2)), (0, rows(1, 12, 0.2))],
           FEATURES, ["x"])
    assert a.ids() == [1] and m.waiting == {} and a.frame()["games"].tolist() == [16]
    # a clearly worse challenger is dropped at once
    status, _ = m.tell(a, 3, 3, genomes(1) + 3, [rows(0, 30, 0.2)], [], FEATURES, ["x"])
    assert status.tolist() == [0] and 3 not in m.candidates
    # on an empty cell a challenger enters at once
    status, _ = m.tell(a, 4, 4, genomes(1) + 4, [rows(0, 2, 0.9)], [], FEATURES, ["x"])
    assert status.tolist() == [2]


def test_adaptive_stops_after_max_rounds():
    a, m = archive(), Adaptive(max_rounds=2)
    m.tell(a, 0, 0, genomes(1), [rows(2, 4, 0.2)], [], FEATURES, ["x"])
    m.tell(a, 1, 1, genomes(1) + 1, [rows(3, 4, 0.2)], [], FEATURES, ["x"])
    m.ask(a.ids())
    # still undecided after its second evaluation: the point estimates decide (5/8 > 4/8)
    m.tell(a, 2, 2, genomes(0), [], [(1, rows(2, 4, 0.2)), (0, rows(2, 4, 0.2))],
           FEATURES, ["x"])
    assert a.ids() == [1] and m.waiting == {}


def test_agresti_caffo_difference():
    c = lambda w, n: Candidate(0, 0, np.zeros(1), rows(w, n, 0.0))  # noqa: E731
    assert difference(c(18, 20), c(5, 20)) == 1
    assert difference(c(5, 20), c(18, 20)) == -1
    assert difference(c(4, 6), c(3, 6)) == 0


@pytest.mark.parametrize("method", [{"method": "reevaluate", "per_batch": 2},
                                    {"method": "adaptive", "max_rounds": 2}])
def test_a_noise_aware_run_resumes_and_plays_the_same_with_batches_in_flight(tmp_path, method):
    cfg = write(tmp_path, noise=method)
    whole = evolve(cfg, out=tmp_path / "whole", workers=0)
    assert whole.complete
    d = whole.run_dir
    games = pd.read_csv(d / "games.csv")
    metrics = pd.read_csv(d / "metrics.csv")
    assert metrics["replays"].sum() > 0 and (games["replay"] > 0).any()
    assert whole.games == len(games) == 14 * 4 + 4 * metrics["replays"].sum()
    # replays have seeds of their own
    assert not games.duplicated(["evaluation", "game", "game_seed"]).any()
    assert games.groupby(["evaluation", "replay"])["game_seed"].nunique().min() == 4
    # elites carry their pooled games
    elites = pd.read_csv(d / "elites.csv")
    played = games.groupby("evaluation").size()
    for r in elites.itertuples():
        assert r.games == played[r.evaluation]
        assert r.wins == games[games.evaluation == r.evaluation]["genome_won"].sum()
    # stopped after 2 batches and resumed: the same run
    evolve(cfg, out=tmp_path / "parts", workers=0, max_batches=2)
    evolve(cfg, out=tmp_path / "parts", workers=0, resume=True)
    assert_same_run(d, tmp_path / "parts")
    # batches in flight: a run of its own, still complete and deterministic
    lagged = write(tmp_path, name="lag.yaml", noise=method, pipeline={"lag": 2})
    a = evolve(lagged, out=tmp_path / "lag_a", workers=0)
    b = evolve(lagged, out=tmp_path / "lag_b", workers=0)
    assert a.complete
    assert_same_run(a.run_dir, b.run_dir)


def test_reestimate_replaces_evolved_games_by_fresh_ones_in_the_same_cells():
    a, m = archive(), Reestimate(replays=2)
    assert m.pending and m.reserve(3, 4) == 3 * 2 * 4
    # evolution: plain decisions on point estimates, no replays asked
    status, _ = m.tell(a, 0, 0, genomes(2), [rows(4, 4, 0.2), rows(1, 4, 0.7)], [],
                       FEATURES, ["x"])
    assert status.tolist() == [2, 2] and a.ids() == [0, 1] and m.ask(a.ids()) == []
    status, _ = m.tell(a, 1, 2, genomes(1), [rows(2, 4, 0.3)], [], FEATURES, ["x"])
    assert status.tolist() == [0]  # 2 of 4 loses to 4 of 4 in cell 0
    # closing: every elite twice, replay numbers 1 and 2; asked once only
    asked = m.closing(a.ids())
    assert [(cid, r) for cid, r, _ in asked] == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert m.closing(a.ids()) == [] and not m.pending and m.reserve(3, 4) == 0
    # elite 0's fresh games lose and play at x = 0.9, in cell 1 where elite 1 is: both keep
    # their cells (nothing is chosen on the fresh games), with the fresh estimates
    m.tell(a, 2, 3, genomes(0), [], [(0, rows(1, 4, 0.9)), (0, rows(0, 4, 0.9)),
                                     (1, rows(3, 4, 0.7)), (1, rows(2, 4, 0.7))],
           FEATURES, ["x"])
    frame = a.frame().set_index("evaluation")
    assert frame["cell"].to_dict() == {0: "0", 1: "0.5"}
    assert frame["games"].tolist() == [8, 8] and frame["wins"].tolist() == [1, 5]
    assert frame["x_mean"].tolist() == pytest.approx([0.9, 0.7])
    assert frame["measure_x"].tolist() == pytest.approx([0.2, 0.7])  # where evolution found it
    assert frame["objective"].loc[0] > 0.99  # the evolved rating, 4 of 4


def test_a_reestimated_run_closes_with_fresh_games_and_resumes(tmp_path):
    cfg = write(tmp_path, noise={"method": "reestimate", "replays": 1})
    whole = evolve(cfg, out=tmp_path / "whole", workers=0)
    assert whole.complete
    d = whole.run_dir
    games = pd.read_csv(d / "games.csv")
    metrics = pd.read_csv(d / "metrics.csv")
    individuals = pd.read_csv(d / "individuals.csv")
    elites = pd.read_csv(d / "elites.csv")
    # one closing batch of replays only, after the 14 evaluations
    assert metrics["replays"].tolist()[:-1] == [0] * (len(metrics) - 1)
    last = metrics.iloc[-1]
    assert last["batch_size"] == 0 and last["replays"] == metrics["cells"].iloc[-2]
    assert last["cells"] == metrics["cells"].iloc[-2]  # every elite keeps its cell
    assert len(individuals) == 14 and whole.games == len(games) == 4 * (14 + last["replays"])
    closing = games[games["batch"] == last["batch"]]
    assert (closing["replay"] == 1).all()
    assert not games.duplicated(["evaluation", "game", "game_seed"]).any()
    from qd.rundir import RunFiles
    assert RunFiles(d).reestimated
    # every elite's games are its fresh ones alone
    assert len(elites) >= 1
    for r in elites.itertuples():
        fresh = closing[closing.evaluation == r.evaluation]
        assert r.games == len(fresh) == 4
        assert r.wins == fresh["genome_won"].sum()
    # stopped after 2 batches, and again before the closing batch: the same run
    evolve(cfg, out=tmp_path / "parts", workers=0, max_batches=2)
    r = evolve(cfg, out=tmp_path / "parts", workers=0, resume=True,
               max_batches=len(metrics) - 3)
    assert not r.complete and not RunFiles(tmp_path / "parts").reestimated
    evolve(cfg, out=tmp_path / "parts", workers=0, resume=True)
    assert_same_run(d, tmp_path / "parts")
    lagged = write(tmp_path, name="lag.yaml", noise={"method": "reestimate", "replays": 1},
                   pipeline={"lag": 2})
    a = evolve(lagged, out=tmp_path / "lag_a", workers=0)
    b = evolve(lagged, out=tmp_path / "lag_b", workers=0)
    assert a.complete and pd.read_csv(a.run_dir / "metrics.csv")["batch_size"].iloc[-1] == 0
    assert_same_run(a.run_dir, b.run_dir)


def test_max_games_keeps_back_the_closing_games_of_reestimate(tmp_path):
    run = evolve(write(tmp_path, max_games=40, noise={"method": "reestimate", "replays": 1}),
                 out=tmp_path / "r", workers=0)
    metrics = pd.read_csv(run.run_dir / "metrics.csv")
    evolved = metrics["games"].iloc[-2]
    # evolution stopped once its games plus 4 per elite reached 40
    assert evolved + 4 * metrics["cells"].iloc[-2] >= 40
    assert evolved - 12 + 4 * metrics["cells"].iloc[-3] < 40
    assert run.complete and run.games == evolved + 4 * metrics["cells"].iloc[-2]


@pytest.mark.slow
def test_a_noise_aware_run_on_ray_equals_in_process(tmp_path):
    cfg = write(tmp_path, noise={"method": "reevaluate", "per_batch": 2})
    a = evolve(cfg, out=tmp_path / "a", workers=0)
    b = evolve(cfg, out=tmp_path / "b", workers=2)
    assert_same_run(a.run_dir, b.run_dir)


def test_max_games_stops_a_run_at_equal_games(tmp_path):
    """max_games: no batch is asked once the games asked reach it (replays included)."""
    plain = evolve(write(tmp_path, max_games=30), out=tmp_path / "plain", workers=0)
    # batches: 2 initial genomes (8 games), then 3 genomes (12 games): 8, 20, 32 >= 30
    assert plain.complete and plain.games == 32 and plain.evaluations == 8
    noisy = evolve(write(tmp_path, name="n.yaml", max_games=30,
                         noise={"method": "reevaluate", "per_batch": 1}),
                   out=tmp_path / "noisy", workers=0)
    assert noisy.complete and 30 <= noisy.games < 30 + 4 * 4
    replays = pd.read_csv(noisy.run_dir / "metrics.csv")["replays"].sum()
    assert replays > 0 and noisy.games == 4 * (noisy.evaluations + replays)
    with pytest.raises(ConfigError, match="max_games: must be >= 1"):
        config_from_dict({**TINY, "max_games": 0})


def test_a_config_naming_no_method_resumes_with_the_method_its_run_started_with(tmp_path):
    """Runs started while plain MAP-Elites was the default recorded `noise: none`: their
    config, which names no method, resumes them plainly."""
    whole = evolve(write(tmp_path), out=tmp_path / "whole", workers=0)
    unnamed = {k: v for k, v in TINY.items() if k != "noise"}
    cfg = tmp_path / "unnamed.yaml"
    cfg.write_text(yaml.safe_dump(unnamed))
    for name in ("recorded",):
        evolve(write(tmp_path), out=tmp_path / name, workers=0,
               max_batches=2)
        done = evolve(cfg, out=tmp_path / name, workers=0, resume=True)
        assert done.complete
        assert_same_run(whole.run_dir, tmp_path / name)
