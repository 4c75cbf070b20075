"""A whole play-style pipeline on a three-player game (Tribolo): evolution with the genome in
every seat, validation, report, export and a ladder with a field agent."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playstyles.cli import main

CONFIG = {
    "game": "tribolo",
    "name": "trio",
    "levels": {"set": "range:0-5", "train": 2, "split_seed": 0},
    "agent": {"name": "pmcts_pu", "budget": 8, "params": {"horizon": 3}},
    "layout": "styles",
    "opponent": {"name": "random"},
    "repetitions": 3,
    "features": [{"name": "leader_hits", "range": [0.3, 1.0], "width": 0.07},
                 {"name": "edge_moves", "range": [0.1, 0.6], "width": 0.05}],
    "emitter": {"kind": "paper", "batch_size": 3, "initial_random": 2},
    "evaluations": 6,
    "seed": 3,
    "noise": {"method": "none"},
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("trio")
    cfg = tmp / "trio.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    out = tmp / "run"
    assert main(["evolve", str(cfg), "--out", str(out), "--workers", "0", "--quiet"]) == 0
    return out


def test_the_genome_takes_every_seat_and_wins_count_shares(run_dir):
    games = pd.read_csv(run_dir / "games.csv")
    assert len(games) == 6 * 2 * 3
    for _, g in games.groupby("evaluation"):
        assert g["genome_seat"].tolist() == [0, 1, 2, 0, 1, 2]
    # every seat is described, the opponents in the seats after the genome's
    for side in ("genome", "opponent", "opponent2"):
        assert f"{side}_agent" in games and f"{side}_score" in games
    assert set(games["opponent_agent"]) == set(games["opponent2_agent"]) == {"random"}
    # a win is the share of first place: 1 for a single winner, 1/k for a shared first place
    single = games["winner"].notna()
    assert ((games.loc[single, "genome_won"] == 0) | (games.loc[single, "genome_won"] == 1)).all()
    assert games.loc[~single, "genome_won"].isin([0, 0.5, 1 / 3]).all()
    ind = pd.read_csv(run_dir / "individuals.csv")
    sums = games[games["replay"] == 0].groupby("evaluation")["genome_won"].sum()
    assert ind.set_index("evaluation")["wins"].to_numpy() == pytest.approx(sums.to_numpy())


def test_validate_report_export_and_a_ladder_work_unchanged(run_dir, capsys):
    assert main(["validate", str(run_dir), "--games", "3", "--workers", "0", "--quiet"]) == 0
    vgames = pd.read_csv(run_dir / "validation_games.csv")
    assert sorted(set(vgames["elite_seat"])) == [0, 1, 2]
    assert main(["report", str(run_dir)]) == 0
    assert (run_dir / "report.html").exists()
    presets = run_dir / "styles.json"
    # 3 games per elite tell no two styles apart: export elites, not distinct styles
    assert main(["export", str(run_dir), "--kind", "style", "--count", "2", "--all-elites",
                 "-o", str(presets)]) == 0
    capsys.readouterr()
    out = run_dir / "ladder"
    assert main(["ladder", str(presets), "--games", "6", "--levels", "seeds:4", "--workers", "0",
                 "--quiet",
                 "--out", str(out), "--field", "random:label=field", "--no-control"]) == 0
    assert "the difficulty order" in capsys.readouterr().out
    pairs = pd.read_csv(out / "ladder_pairs.csv")
    assert pairs["games"].tolist() == [6, 6]
    info = json.loads((out / "ladder.json").read_text())
    assert info["field"]["name"] == "random"
    games = pd.read_csv(out / "games.csv")
    assert sorted(zip(games["agent_seat"], games["opponent_seat"])) == \
        [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


def test_a_field_agent_is_refused_in_a_two_player_ladder(tmp_path, capsys):
    from play.presets import Preset, PresetFile, dump_presets
    f = tmp_path / "p.json"
    dump_presets(PresetFile("nim", [Preset("a", "random", {}, "nim"),
                                    Preset("b", "random", {}, "nim")], "difficulty"), f)
    assert main(["ladder", str(f), "--field", "random", "--workers", "0", "--quiet"]) == 2
    assert "field: nim is a two-player game" in capsys.readouterr().err


def test_a_one_player_game_has_no_ladder(tmp_path):
    from play.ladder import run_ladder
    from play.presets import Preset, PresetFile, dump_presets
    f = tmp_path / "p.json"
    dump_presets(PresetFile("navy", [Preset("a", "random", {}, "navy"),
                                     Preset("b", "static", {}, "navy")], "difficulty"), f)
    with pytest.raises(ValueError, match="navy is a one-player game"):
        run_ladder(f, workers=0, out=tmp_path / "l")
