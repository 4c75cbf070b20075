"""The probe (`playstyles probe`) on Nim: the genomes and games it plays, its statistics
against scipy on the games it wrote, determinism, the default N from a pilot, resume after
Ctrl-C, the warnings for a run config, the chart and the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from play.journal import GameJournal, Interrupted
from playstyles.cli import main
from qd import features as registry
from qd import probe as probe_mod
from qd.config import config_from_dict
from qd.features import Feature, features_of
from qd.probe import (
    default_games,
    kruskal,
    probe_warnings,
    run_probe,
    settings_key,
    spread_ratio,
)

NIM = {"name": "nimp", "game": "nim", "levels": {"set": "range:0-3", "train": 2},
       "agent": {"name": "pmcts_pu", "budget": 5, "params": {"expansion": "prior"}},
       "opponent": "random", "features": ["stones_per_move", "moves"], "repetitions": 8,
       "seed": 2}
GAMES = 24  # per genome: 6 passes over 2 levels x 2 seats


def nim_config(**changes):
    return config_from_dict({**NIM, **changes})


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "p"
    return run_probe(nim_config(), games=GAMES, out=out, workers=0)


def test_probe_writes_every_file_and_plays_every_game(probed):
    r = probed
    for name in ("probe_games.csv", "probe_genomes.csv", "probe.csv", "probe.json", "probe.md"):
        assert (r.out / name).stat().st_size > 0, name
    assert not (r.out / "probe.journal").exists()
    config = nim_config()
    size = len(config.genome_names)
    games = pd.read_csv(r.out / "probe_games.csv")
    labels = ["control", "zero", *(f"{n}=1" for n in config.genome_names)]
    assert games["genome"].drop_duplicates().tolist() == labels
    assert len(labels) == size + 2 == games["genome_number"].nunique()
    for k, part in games.groupby("genome_number"):
        assert part["game"].tolist() == list(range(GAMES))
        # every training level in every seat equally often
        assert (part.groupby(["level", "seat"]).size() == GAMES // 4).all()
    assert set(games["level"]) == set(config.train_levels)
    # common games: game g has one seed for every genome, and the games differ
    assert (games.groupby("game")["game_seed"].nunique() == 1).all()
    assert games["game_seed"].nunique() == GAMES
    fixed = json.loads((r.out / "probe.json").read_text())["results"]["fixed_styles"]
    assert set(fixed) == {"mapped", "every"} and set(fixed["mapped"]["counts"]) == {"0", "0.5", "1"}
    assert fixed["mapped"]["features"] == [f.name for f in config.features]
    assert 1 <= fixed["every"]["counts"]["0"] <= len(labels) - 1  # the control left out
    s = json.loads((r.out / "probe.json").read_text())
    assert s["complete"] and s["settings"]["games_per_genome"] == GAMES
    assert s["settings"]["settings_key"] == settings_key(config)
    assert [g["label"] for g in s["settings"]["genomes"]] == labels
    assert s["settings"]["genomes"][0]["values"] == {n: 0.5 for n in config.genome_names}
    assert s["results"]["ranking"] == r.table["feature"].tolist()
    assert set(r.table["feature"]) == set(features_of("nim"))
    assert r.settings["games_chosen"] == f"{GAMES} games per genome, as given"


def test_statistics_match_the_games_written(probed):
    r = probed
    games = pd.read_csv(r.out / "probe_games.csv")
    genomes = pd.read_csv(r.out / "probe_genomes.csv")
    table = pd.read_csv(r.out / "probe.csv").set_index("feature")
    g_config = nim_config().plan().games_per_individual
    labels = games["genome"].drop_duplicates().tolist()
    for f in features_of("nim"):
        by = {lab: games.loc[games["genome"] == lab, f].dropna().to_numpy() for lab in labels}
        got = genomes[genomes["feature"] == f].set_index("genome")
        for lab, v in by.items():
            assert got.at[lab, "mean"] == pytest.approx(v.mean())
            assert got.at[lab, "n"] == len(v)
            half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
            assert got.at[lab, "ci_high"] - got.at[lab, "mean"] == pytest.approx(half)
        row = table.loc[f]
        assert row["kruskal_p"] == pytest.approx(stats.kruskal(*by.values()).pvalue)
        n = sum(len(v) for v in by.values())
        assert row["epsilon2"] == pytest.approx(stats.kruskal(*by.values()).statistic / (n - 1))
        sd_w = math.sqrt(sum((len(v) - 1) * v.var(ddof=1) for v in by.values())
                         / sum(len(v) - 1 for v in by.values()))
        spread = np.std([v.mean() for v in by.values()], ddof=1)
        assert row["sd_within"] == pytest.approx(sd_w)
        assert row["spread"] == pytest.approx(spread)
        assert row["ratio"] == pytest.approx(spread / (sd_w / math.sqrt(g_config)))
        assert row["min_width"] == pytest.approx(2 * 1.959964 * sd_w / math.sqrt(g_config))
        assert row["moves"] == (row["holm_reject"] and row["ratio"] >= 1)
    assert table["rank"].tolist() == list(range(1, len(table) + 1))
    assert (np.diff(table["ratio"].to_numpy()) <= 0).all()
    assert table.loc["stones_per_move", "mapped"] and not table.loc["rounds", "mapped"]
    assert table.loc["rounds", "width"] == features_of("nim")["rounds"].width
    # win rates: Wilson intervals on the share of first place
    wins = genomes[genomes["feature"] == "win_rate"].set_index("genome")
    for lab in labels:
        won = games.loc[games["genome"] == lab, "won"]
        assert wins.at[lab, "mean"] == pytest.approx(won.mean()) and wins.at[lab, "n"] == GAMES
        assert wins.at[lab, "ci_low"] <= won.mean() <= wins.at[lab, "ci_high"]
    md = (r.out / "probe.md").read_text()
    assert f"{GAMES} games per genome on the training levels" in md and "in every seat" in md
    assert "against random" in md and "| control |" in md
    # at g = 16 games per genome some features of Nim move and others do not
    assert r.results["moves"] and r.results["does_not_move"], r.table
    assert "The genome moves: " + ", ".join(r.results["moves"]) + "." in md
    assert "The genome does not move: " + ", ".join(r.results["does_not_move"]) + "." in md


def test_same_settings_same_games(probed, tmp_path):
    again = run_probe(nim_config(), games=GAMES, out=tmp_path / "again", workers=0)
    def games(out):  # every column but the CPU time a game took
        return pd.read_csv(out / "probe_games.csv").drop(columns="seconds")

    pd.testing.assert_frame_equal(games(again.out), games(probed.out))
    pd.testing.assert_frame_equal(again.table, probed.table)
    # fewer games per genome are the first games of more
    fewer = run_probe(nim_config(), games=8, out=tmp_path / "fewer", workers=0)
    a = games(fewer.out)
    b = games(probed.out)
    pd.testing.assert_frame_equal(a, b[b["game"] < 8].reset_index(drop=True))


def test_edge_cases_of_the_statistics():
    nan = float("nan")
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, nan])
    h, p, n = kruskal([a, b, np.array([nan])])  # a genome without a defined value is skipped
    assert (h, p) == pytest.approx(tuple(stats.kruskal(a, b[:2]))) and n == 5
    assert kruskal([np.ones(3), np.ones(2)]) == (0.0, 1.0, 5)  # all equal: p = 1
    h, p, n = kruskal([a, np.array([nan])])  # one group: nothing to test
    assert math.isnan(h) and p == 1.0 and n == 3
    assert spread_ratio(0.5, 0.25) == 2.0
    assert spread_ratio(0.5, 0.0) == math.inf and spread_ratio(0.0, 0.0) == 0.0
    assert math.isnan(spread_ratio(nan, 1.0)) and math.isnan(spread_ratio(1.0, nan))


def test_default_games_from_the_pilot(tmp_path, monkeypatch):
    assert default_games([0.5, 1.0, 30.0], 5, 4) == (
        200, "200 games per genome, sized for ~10 min on 2 cores from a pilot of 3 games; "
             "give --games 200 to repeat it")
    assert default_games([10.0], 5, 4)[0] == 24  # floor(1200 / 50) rounded down to 4s
    assert default_games([1000.0], 5, 4)[0] == 4  # at least every level in every seat
    assert default_games([1e-6], 3, 6)[0] == 198  # at most 200, in whole passes
    monkeypatch.setattr(probe_mod, "game_seconds", lambda rec: 30.0)  # 1200 / (5 x 30) = 8
    r = run_probe(nim_config(), out=tmp_path / "p", workers=0)
    assert r.settings["games_per_genome"] == 8
    assert r.settings["pilot"] == {"games": 5, "median_seconds": 30.0}
    assert "give --games 8 to repeat it" in r.settings["games_chosen"]
    assert "give --games 8 to repeat it" in (r.out / "probe.md").read_text()
    given = run_probe(nim_config(), games=8, out=tmp_path / "given", workers=0)
    assert (given.out / "probe_games.csv").read_text() == \
        (r.out / "probe_games.csv").read_text()


def _interrupt_after(monkeypatch, count):
    """Ctrl-C once `count` games are kept; returns the list of games kept (cleared, it
    counts again without interrupting)."""
    real = GameJournal.add
    added: list[int] = []
    armed = [True]

    def add(self, index, record):
        real(self, index, record)
        added.append(index)
        if armed[0] and len(added) == count:
            armed[0] = False
            raise KeyboardInterrupt

    monkeypatch.setattr(GameJournal, "add", add)
    return added


@pytest.mark.parametrize("stop", [3, 12])  # in the pilot (5 games), then after it
def test_resume_after_ctrl_c(tmp_path, monkeypatch, stop):
    monkeypatch.setattr(probe_mod, "game_seconds", lambda rec: 30.0)  # N = 8 per genome
    out = tmp_path / "p"
    added = _interrupt_after(monkeypatch, stop)
    with pytest.raises(Interrupted, match="continue with --resume"):
        run_probe(nim_config(), out=out, workers=0)
    assert (out / "probe.journal").exists() and len(added) == stop
    s = json.loads((out / "probe.json").read_text())
    assert not s["complete"]
    assert s["settings"]["games_per_genome"] == (None if stop < 5 else 8)
    with pytest.raises(ValueError, match="continue it with --resume"):
        run_probe(nim_config(), out=out, workers=0)
    added.clear()
    r = run_probe(nim_config(), out=out, workers=0, resume=True)
    assert len(added) == 8 * 5 - stop  # only the missing games
    assert not (out / "probe.journal").exists()
    fresh = run_probe(nim_config(), games=8, out=tmp_path / "fresh", workers=0)
    assert (out / "probe_games.csv").read_text() == \
        (fresh.out / "probe_games.csv").read_text()
    assert r.settings["games_chosen"].startswith("8 games per genome, sized for")
    with pytest.raises(ValueError, match="holds no interrupted probe"):
        run_probe(nim_config(), out=out, workers=0, resume=True)


def test_refuses_a_foreign_directory_and_bad_games(tmp_path):
    (tmp_path / "other.txt").write_text("not a probe")
    with pytest.raises(ValueError, match="the directory is not empty .it holds files that"):
        run_probe(nim_config(), games=4, out=tmp_path, workers=0)
    with pytest.raises(ValueError, match="games: at least one game per genome"):
        run_probe(nim_config(), games=0, out=tmp_path / "p", workers=0)


@pytest.fixture
def constant_feature():
    """A Nim feature no genome can move (the same value in every game)."""
    features_of("nim")
    registry.FEATURES.add("constant", Feature("constant", 0.0, 1.0, 0.5, lambda g: 1.0,
                                              "always 1"), game="nim")
    yield
    registry.FEATURES.pop("constant", "nim")


def test_a_constant_feature_does_not_move(constant_feature, tmp_path):
    config = nim_config(features=["stones_per_move", "constant"])
    r = run_probe(config, games=8, out=tmp_path / "p", workers=0)
    row = r.table.set_index("feature").loc["constant"]
    assert row["kruskal_p"] == 1.0 and row["epsilon2"] == 0.0 and row["sd_within"] == 0.0
    assert row["ratio"] == 0.0 and not row["moves"] and row["mapped"]
    assert "constant" in r.results["does_not_move"]
    assert "The genome does not move: " in (r.out / "probe.md").read_text()
    lines = probe_warnings(config, r.out)
    assert any(line.startswith("feature constant: the genome does not move it") and
               f"(probe {r.out}/)" in line for line in lines)


def test_probe_warnings(probed, tmp_path):
    table = probed.table.set_index("feature")
    g = 16
    narrow = float(table.at["moves", "min_width"]) / 2
    enough = 1.5 * float(table.at["stones_per_move", "min_width"])  # < sqrt(16 / 2) x it
    config = nim_config(features=[{"name": "moves", "range": [0, 10], "width": narrow},
                                  {"name": "stones_per_move", "range": [1, 5], "width": enough}],
                        seed=99)  # another seed: the same settings
    lines = probe_warnings(config, probed.out)
    assert (f"feature moves: cells {narrow:.3g} wide, narrower than the "
            f"{table.at['moves', 'min_width']:.3g} that the games' noise allows at {g} games "
            f"per genome (probe {probed.out}/)") in lines
    assert not any(line.startswith("feature stones_per_move: cells") for line in lines)
    moving = set(probed.results["moves"])
    for f in ("moves", "stones_per_move"):
        said = any(line.startswith(f"feature {f}: the genome does not move it") for line in lines)
        assert said == (f not in moving)
    # at fewer games per genome the noise allows only wider cells
    few = nim_config(features=config.to_dict()["features"], repetitions=1)
    wide = [line for line in probe_warnings(few, probed.out) if "stones_per_move: cells" in line]
    assert wide and "at 2 games per genome" in wide[0]
    # settings that do not match: nothing to say
    assert probe_warnings(nim_config(opponent="rule_based"), probed.out) == []
    assert probe_warnings(nim_config(agent={"name": "pmcts_pu", "budget": 6}), probed.out) == []
    with pytest.raises(ValueError, match="probe.json: not found"):
        probe_warnings(config, tmp_path)


def test_cli_probe_and_chart(tmp_path, capsys):
    cfg = tmp_path / "nimp.yaml"
    cfg.write_text(yaml.safe_dump(NIM))
    out = tmp_path / "probe"
    assert main(["probe", str(cfg), "--games", "4", "--out", str(out), "--workers", "0",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "# Probe of nimp" in text and "4 games per genome" in text
    last = text.strip().splitlines()[-1]
    assert last.startswith(f"results in {out}/") and "probe.md" in last and "probe.png" in last
    assert (out / "probe.png").stat().st_size > 0
    with pytest.raises(SystemExit):
        main(["probe", str(cfg), "--games", "0", "--workers", "0"])
    assert "--games: must be >= 1, got 0" in capsys.readouterr().err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    assert main(["probe", str(cfg), "--games", "4", "--out", str(tmp_path / "busy"),
                 "--workers", "0", "--quiet"]) == 2
    assert "the directory is not empty (it holds files that" in capsys.readouterr().err


def test_evolve_warns_from_a_probe(probed, tmp_path, capsys):
    """`evolve --probe DIR` names, before the run, a feature mapped narrower than the probe's
    noise allows; with no probe given or found it says nothing of the kind."""
    table = probed.table.set_index("feature")
    narrow = float(table.at["moves", "min_width"]) / 2
    data = {**NIM, "features": [{"name": "moves", "range": [0, 10], "width": narrow},
                                "stones_per_move"],
            "evaluations": 4, "emitter": {"batch_size": 4, "initial_random": 2}}
    cfg = tmp_path / "nimp.yaml"
    cfg.write_text(yaml.safe_dump(data))
    assert main(["evolve", str(cfg), "--probe", str(probed.out), "--out", str(tmp_path / "r"),
                 "--workers", "0", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"playstyles: warning: feature moves: cells {narrow:.3g} wide" in err
    assert main(["evolve", str(cfg), "--out", str(tmp_path / "r2"), "--workers", "0",
                 "--quiet"]) == 0
    assert "cells" not in capsys.readouterr().err


def test_probe_on_an_openspiel_game(tmp_path):
    """Any game: an OpenSpiel game has no scripts, so its genome is the exploration constant
    of MCTS (the `exploration` mapping); the probe plays it and names what does not move."""
    pytest.importorskip("pyspiel")
    config = config_from_dict({
        "name": "ttt", "game": "openspiel:tic_tac_toe", "seed": 1,
        "agent": {"name": "mcts", "budget": 8, "genome_mapping": "exploration"},
        "opponent": "random", "levels": {"set": "range:0-3", "train": 2},
        "features": ["rounds", "win_round"]})
    r = run_probe(config, games=8, out=tmp_path / "p", workers=0)
    games = pd.read_csv(r.out / "probe_games.csv")
    assert games["genome"].drop_duplicates().tolist() == ["control", "zero", "exploration=1"]
    assert len(games) == 3 * 8
    assert set(r.table["feature"]) == {"rounds", "win_round"}
    md = (r.out / "probe.md").read_text()
    moving = [f for f, m in zip(r.table["feature"], r.table["moves"]) if m]
    still = [f for f in r.table["feature"] if f not in moving]
    if still:
        assert "The genome does not move: " in md and all(f in md for f in still)


def test_the_quickstart_maps_what_its_committed_probe_found_moving():
    """experiments/quickstart.yaml shares its probe's settings but for the levels (the probe
    plays 84 generated levels once each), maps only features the probe found moving, and no
    cell is narrower than the probe's noise allows at the quickstart's games per genome."""
    from pathlib import Path

    import pandas as pd
    import yaml

    from qd.config import config_from_dict, load_config
    from qd.probe import noise_at
    root = Path(__file__).resolve().parents[2]
    config = load_config(root / "experiments" / "quickstart.yaml")
    probe_dir = root / "experiments" / "results" / "probe" / "visible_r15"
    recorded = json.loads((probe_dir / "probe.json").read_text())
    data = yaml.safe_load((root / "experiments" / "quickstart.yaml").read_text())
    data["levels"] = yaml.safe_load((root / "experiments" / "probe_visible_r15.yaml")
                                    .read_text())["levels"]
    assert recorded["settings"]["settings_key"] == settings_key(config_from_dict(data))
    moving = set(recorded["results"]["moves"])
    assert {f.name for f in config.features} <= moving
    table = pd.read_csv(probe_dir / "probe.csv").set_index("feature")
    g = config.plan().games_per_individual
    for f in config.features:
        _, min_width = noise_at(table.loc[f.name, "sd_within"], table.loc[f.name, "spread"], g)
        assert f.width >= min_width, f.name


def test_pairs_adds_every_two_gene_genome_on_the_same_games(probed, tmp_path, monkeypatch):
    config = nim_config()
    names = config.genome_names
    r = run_probe(config, games=GAMES, out=tmp_path / "pairs", workers=0, pairs=True)
    games = pd.read_csv(r.out / "probe_games.csv")
    labels = games["genome"].drop_duplicates().tolist()
    two = [f"{a}=1+{b}=1" for i, a in enumerate(names) for b in names[i + 1:]]
    assert labels == ["control", "zero", *(f"{n}=1" for n in names), *two]
    assert len(two) == len(names) * (len(names) - 1) // 2 > 0
    values = {g["label"]: g["values"] for g in r.settings["genomes"]}
    for label in two:
        a, b = (part.removesuffix("=1") for part in label.split("+"))
        assert values[label] == {n: float(n in (a, b)) for n in names}
    # the genomes both probes play, play the same games (common random numbers)
    alone = pd.read_csv(probed.out / "probe_games.csv")
    shared = games[games["genome"].isin(alone["genome"])].reset_index(drop=True)
    timing = [c for c in alone.columns if "seconds" in c]
    pd.testing.assert_frame_equal(shared.drop(columns=timing), alone.drop(columns=timing))
    assert r.settings["pairs"] and not probed.settings["pairs"]
    assert "every genome with two genes at 1" in (r.out / "probe.md").read_text()
    # beside the count with the pairs, the count of the genes alone on the same yardstick
    fixed = r.results["fixed_styles"]["mapped"]
    alone = fixed["single"]["styles"]
    assert alone["0"] and all("+" not in k for d in alone for k in alone[d])
    assert "single" not in probed.results["fixed_styles"]["mapped"]
    assert fixed["exact"] == (len(labels) - 1 <= probe_mod.EXACT_LIMIT)
    assert "(the null baseline's)" in (r.out / "probe.md").read_text()
    # a resumed probe keeps its choice
    out = tmp_path / "stopped"
    _interrupt_after(monkeypatch, 3)
    with pytest.raises(Interrupted):
        run_probe(config, games=4, out=out, workers=0, pairs=True)
    with pytest.raises(ValueError, match="started with --pairs; resume it with the same"):
        run_probe(config, games=4, out=out, workers=0, resume=True)
