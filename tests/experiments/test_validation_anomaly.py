"""experiments/validation_anomaly.py: one replay's games against the other replays'."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "validation_anomaly.py"
spec = importlib.util.spec_from_file_location("validation_anomaly", SCRIPT)
anomaly = importlib.util.module_from_spec(spec)
spec.loader.exec_module(anomaly)


def _games(wins: dict[tuple[int, int], list[int]]) -> pd.DataFrame:
    """Replays of two elites x 2 levels x 2 seats, one game each; `wins` per replay in that
    order."""
    rows = []
    for (seed, offset), won in wins.items():
        k = 0
        for cell in ("0:0", "1:1"):
            for level in (10, 20):
                for seat in (0, 1):
                    rows.append({"run_seed": seed, "offset": offset, "cell": cell,
                                 "index": 0 if cell == "0:0" else 9, "game": k % 4,
                                 "level": level, "elite_seat": seat,
                                 "game_seed": 10 ** 9 + 10 ** 6 * seed + 100 * offset + k,
                                 "elite_seed": 2 * 10 ** 9 + 10 ** 6 * seed + 100 * offset + k,
                                 "opponent_seed": 3 * 10 ** 9 + 10 ** 6 * seed + 100 * offset
                                 + k,
                                 "elite_won": won[k]})
                    k += 1
    return pd.DataFrame(rows)


def test_a_replay_is_measured_against_the_pooled_others():
    g = _games({(1, 0): [0] * 8, (1, 1000): [1, 0] * 4, (2, 0): [1, 1, 0, 0] * 2})
    rep = anomaly.replay_table(g).set_index(["run_seed", "offset"])
    low = rep.loc[(1, 0)]
    assert low["wins"] == 0 and low["others_rate"] == pytest.approx(0.5)
    assert low["z_vs_others"] == pytest.approx(-0.5 / math.sqrt(0.25 / 8))
    # a replay at the others' rate lies at zero
    assert rep.loc[(1, 1000)]["z_vs_others"] == pytest.approx(
        (0.5 - 4 / 16) / math.sqrt(0.25 * 0.75 / 8))


def test_a_shortfall_in_one_elite_shows_between_groups_not_only_in_common():
    # the others win every even game 3 times in 4 and every odd one once in 4
    others = {(1, 1000): [1, 0] * 4, (1, 2000): [1, 0] * 4, (1, 3000): [1, 0] * 4,
              (1, 4000): [0, 1] * 4}
    spread = anomaly.shortfall(_games({(1, 0): [0, 0, 1, 0, 0, 0, 1, 0], **others}), (1, 0))
    one = anomaly.shortfall(_games({(1, 0): [0, 0, 0, 0, 1, 0, 1, 0], **others}), (1, 0))
    assert spread["expected"].tolist() == [0.75, 0.25] * 4
    _, t_spread = anomaly.grouped(spread, ["cell"])
    table, t_one = anomaly.grouped(one, ["cell"])
    # both miss two wins in all; spread over the two elites, or both in elite 0:0
    assert table.set_index("cell")["shortfall"].tolist() == pytest.approx([2, 0])
    for t in (t_spread, t_one):
        assert t["common_chi2"] + t["between_chi2"] == pytest.approx(t["chi2"])
    assert t_one["between_chi2"] > t_spread["between_chi2"]
    assert t_one["groups_below_expected"] == 1 and t_spread["groups_below_expected"] == 2


def test_seed_meetings_count_shared_seeds_and_equal_agent_seeds(tmp_path):
    g = _games({(1, 0): [0] * 8, (1, 1000): [1] * 8})
    g.loc[(g["offset"] == 0) & (g["cell"] == "0:0") & (g["game"] == 0), "opponent_seed"] = \
        g.loc[0, "elite_seed"]
    pd.DataFrame({"game_seed": [g.loc[1, "game_seed"], 5], "genome_seed": [6, 7],
                  "opponent_seed": [8, 9], "replay": [0, 1]}).to_csv(tmp_path / "games.csv",
                                                                     index=False)
    out = anomaly.seed_meetings(g, (1, 0), tmp_path)
    assert out["elite_equals_opponent"] == 1
    assert out["shared_with"]["evolution_first_games"] == 1
    assert out["shared_with"]["evolution_closing_replays"] == 0
    assert out["shared_with"]["other_replays"] == 0


def test_simulated_lowest_replay_is_lower_than_a_single_replay():
    rng = np.random.default_rng(1)
    wins = {(1, o): rng.integers(0, 2, 8).tolist() for o in range(0, 20000, 1000)}
    sim = anomaly.simulate_lowest(_games(wins), -2.0, 1, 4000)
    assert sim["replays"] == 20 and sim["games_per_replay"] == 8
    # the lowest of 20 replays is below -1 sd more often than not; a single one is not
    assert sim["lowest_z_quantiles"][0.5] < -1
    assert sim["normal_tail_lowest"] > sim["normal_tail_one"]


def test_held_out_sharing_ranks_the_targets_correlation_among_the_replays(tmp_path):
    # the target's games repeat the held-out results exactly; the others' are their opposite
    held = [1, 0, 1, 1, 0, 0, 1, 0]
    g = _games({(1, 0): held, (1, 1000): [1 - w for w in held], (2, 0): [1 - w for w in held]})
    h = g[(g["offset"] == 0) & (g["run_seed"] == 1)][["cell", "game", "elite_seat", "elite_won"]]
    pd.concat([h, pd.DataFrame([{"cell": "control", "game": 0, "elite_seat": 0,
                                 "elite_won": 1}])]).to_csv(tmp_path / "validation_games.csv",
                                                            index=False)
    out = anomaly.held_out_sharing(g, (1, 0), tmp_path)
    assert out["held_out_games"] == 8  # the control's game is not an elite's
    assert out["target_correlation"] == pytest.approx(1.0)
    assert out["others_correlation_mean"] == pytest.approx(-1.0)
    assert out["others_at_least_target"] == 0 and out["others"] == 2
    assert out["target_agreement"] == 1.0 and out["others_agreement_mean"] == 0.0
    assert anomaly.held_out_sharing(g, (1, 0), tmp_path / "nowhere") is None


def test_the_committed_analysis_recomputes_from_the_committed_games(tmp_path):
    here = SCRIPT.parent / "results" / "validation_seeds"
    anomaly.main([str(here / "run"), str(here / "games.csv"), "--validate-games",
                  str(here / "validate_train_games.csv"), "--sims", "0", "--out", str(tmp_path)])
    import json
    new = json.loads((tmp_path / "anomaly.json").read_text())
    old = json.loads((here / "anomaly.json").read_text())
    for a, b in zip(new["replays"], old["replays"]):
        assert a == pytest.approx(b)
    assert len(new["replays"]) == len(old["replays"]) == 40
    for name, t in old["groupings"].items():
        assert new["groupings"][name] == pytest.approx(t)
    assert new["seeds"] == old["seeds"]
    assert new["held_out_sharing"] == pytest.approx(old["held_out_sharing"])
    low = [r for r in new["replays"] if (r["run_seed"], r["offset"]) == (1, 0)][0]
    assert (low["wins"], low["games"]) == (181, 396)
