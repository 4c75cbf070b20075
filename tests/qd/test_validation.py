"""Validation on held-out levels: Table II for a tiny run, its summary statistics, common
games for every genome, seeds that do not depend on which cells are validated, errors, and
one Ray run equal to in-process."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from playstyles.cli import main
from qd.rundir import RunFiles
from qd.validation import spearman, validate
from tests.plots.tiny_run import copy_run, tiny_run

TIMING = ("seconds",)


def test_spearman():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    # ties get average ranks: ranks (1.5, 1.5, 3) vs (1, 2, 3)
    assert spearman([5, 5, 9], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)
    # undefined pairs are dropped; too few or constant values give None
    assert spearman([1, float("nan"), 3, 4], [1, 9, 3, 4]) == pytest.approx(1.0)
    assert spearman([1], [2]) is None
    assert spearman([1, 1, 1], [1, 2, 3]) is None


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("val") / "run")
    result = validate(d, games=4, workers=0)
    return d, result


def test_validation_writes_table_two(validated):
    d, result = validated
    for name in ("validation.csv", "validation_summary.json", "validation_games.csv",
                 "validation.md"):
        assert (d / name).stat().st_size > 0, name
    assert not (d / "validation.png").exists()  # the library returns data; the CLI draws
    elites = pd.read_csv(d / "elites.csv")
    v = pd.read_csv(d / "validation.csv")
    assert v["cell"].tolist() == elites["cell"].tolist()
    assert (v["win_rate_evolved"] == elites["win_rate"]).all()
    assert (v["research_slope_evolved"] == elites["research_slope_mean"]).all()
    assert (v["games_validated"] == 4).all()
    assert np.allclose(v["win_rate_validated"], v["wins_validated"] / 4)
    assert (v["win_rate_ci_low"] <= v["win_rate_validated"]).all()
    assert (v["win_rate_validated"] <= v["win_rate_ci_high"]).all()
    # the games behind each row
    every = pd.read_csv(d / "validation_games.csv")
    assert len(every) == 4 * (len(v) + 1)  # the elites, then the control on the same games
    games = every[every["cell"] != "control"]
    control = every[every["cell"] == "control"]
    assert (control["index"] == -1).all() and len(control) == 4
    assert control[["level", "elite_seat"]].values.tolist() == \
        games[games["cell"] == v["cell"].iloc[0]][["level", "elite_seat"]].values.tolist()
    # common random numbers: game g of every genome has the same level, seat and seeds
    first = games[games["cell"] == v["cell"].iloc[0]]
    for col in ("level", "elite_seat", "game_seed", "elite_seed", "opponent_seed"):
        assert control[col].tolist() == first[col].tolist(), col
        assert (games.groupby("game")[col].nunique() == 1).all(), col
    # every feature the game registers is kept per game, mapped or not, and a trace per game
    assert {"attacks", "buildings", "score", "research_slope", "trace"} <= set(every.columns)
    assert games.groupby("cell", sort=False)["elite_won"].sum().tolist() == \
        v["wins_validated"].tolist()
    assert set(every["level"]) == {13, 14, 15}  # the held-out levels, never a training one
    # seats alternate: each elite plays 2 games from each seat
    assert (every.groupby("cell")["elite_seat"].sum() == 2).all()
    # the per-game feature values are the validated means and intervals
    for f in ("research_slope", "tile_slope"):
        means = games.groupby("cell", sort=False)[f].mean().tolist()
        assert np.allclose(means, v[f"{f}_validated"], equal_nan=True)
        assert (v[f"{f}_ci_low_validated"] <= v[f"{f}_validated"] + 1e-12).all()
    # the validated cell is where the validated features fall on the run's grid
    axes = RunFiles(d).axes
    for r in v.to_dict("records"):
        cell = [a.index(r[f"measure_{a.name}_validated"]) for a in axes]
        assert r["validated_grid_index"] == ",".join(map(str, cell))
        evolved = [int(i) for i in r["grid_index"].split(",")]
        dist = max(abs(a - b) for a, b in zip(cell, evolved))
        assert r["cell_distance"] == dist
        assert r["same_cell"] == (dist == 0) and r["neighbour"] == (dist <= 1)


def test_validation_summary(validated):
    d, result = validated
    s = json.loads((d / "validation_summary.json").read_text())
    v = pd.read_csv(d / "validation.csv")
    assert s["elites"] == len(v) and s["games_per_elite"] == 4
    assert s["levels"] == [13, 14, 15] and s["levels_overlap_training"] == []
    assert s["same_cell_share"] == pytest.approx(v["same_cell"].mean())
    assert s["neighbour_share"] == pytest.approx(v["neighbour"].mean())
    for f in ("research_slope", "tile_slope"):
        want = spearman(v[f"{f}_evolved"], v[f"{f}_validated"])
        assert s["spearman"][f] == (pytest.approx(want) if want is not None else None)
    md = (d / "validation.md").read_text()
    assert md.count("\n| [") == len(v) and "Spearman" in md
    # distinct styles: recomputed from the per-game table
    from qd.styles import Sample, distinct_styles
    games = pd.read_csv(d / "validation_games.csv")
    feats = ["research_slope", "tile_slope"]

    def sample(cell):
        g = games[games["cell"] == cell]
        return Sample(cell, g["elite_won"].tolist(), {f: g[f].tolist() for f in feats},
                      blocks=g["level"].tolist(), traces=g["trace"].tolist())

    found = distinct_styles([sample(c) for c in v["cell"].astype(str)], feats,
                            control=sample("control"))
    assert s["version"] == 3
    assert s["distinct_styles"] == found.count >= 1
    assert s["distinct_styles_non_inferior"] == len(found.non_inferior)
    assert s["styles"]["counts"] == found.counts and set(found.counts) == {"0", "0.5", "1"}
    assert s["styles"]["delta"] == 1.0 and s["styles"]["margin"] == 0.1
    assert s["styles"]["styles"] == found.styles
    assert sorted(v.loc[v["distinct"], "cell"].astype(str)) == sorted(found.styles)
    assert (v.loc[~v["distinct"], "style"] == 0).all()
    # an elite that is no style names the styles it differs from in no feature, by number
    apart = v["not_told_apart_from"].astype(object).fillna("").astype(str)
    assert (apart[v["distinct"]] == "").all()
    for cell, named in zip(v.loc[~v["distinct"], "cell"].astype(str), apart[~v["distinct"]]):
        numbers = [int(x.removeprefix("#")) for x in named.split()]
        assert numbers == [found.styles.index(k) + 1 for k in found.not_told_apart(cell)]
        assert all(1 <= n <= found.count for n in numbers)
    assert s["control"]["games"] == 4
    assert s["control"]["genome"] == {n: 0.5 for n in s["control"]["genome"]}
    assert md.startswith(f"**{s['distinct_styles']} style")
    assert "Control (default weights)" in md and "Styles by minimum effect" in md


def test_chosen_cells_play_the_same_games(validated, tmp_path):
    d, result = validated
    cells = result.table["cell"].tolist()[-2:][::-1]
    part = validate(copy_run(d, tmp_path / "part"), games=4, cells=cells, workers=0)
    assert part.table["cell"].tolist() == cells
    full = result.table.set_index("cell").loc[cells].reset_index()
    # what an elite's own games give is the same; styles depend on which elites are compared
    own = [c for c in full.columns
           if c not in ("style", "distinct", "differs_from_control", "non_inferior",
                        "not_told_apart_from")]
    pd.testing.assert_frame_equal(part.table[own], full[own])


def test_validation_errors(validated, tmp_path):
    d, _ = validated
    with pytest.raises(ValueError, match="cells: 99:99 hold no elite; elites are in"):
        validate(d, cells=["99:99"], workers=0)
    with pytest.raises(ValueError, match="not a run directory"):
        validate(tmp_path, workers=0)
    with pytest.raises(ValueError, match="unknown level set"):
        validate(d, levels="nope", workers=0)


def test_cli_validate_on_other_levels(tmp_path_factory, tmp_path, capsys):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    cell = pd.read_csv(d / "elites.csv")["cell"].iloc[0]
    assert main(["validate", str(d), "--levels", "seeds:21,22", "--games", "2", "--cells",
                 cell, "--workers", "0", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"| [{cell}] |" in out and "validation.csv" in out
    assert out.strip().splitlines()[-1].startswith("1 style at least 1 sd apart on held-out "
                                                    "levels")
    v = pd.read_csv(d / "validation.csv")
    assert v["cell"].tolist() == [cell]
    assert set(pd.read_csv(d / "validation_games.csv")["level"]) == {21, 22}


def test_a_full_disk_at_the_chart_keeps_the_journal_and_resume_finishes(
        tmp_path_factory, tmp_path, capsys, monkeypatch):
    """validation.png fails to write (no space left): the error names it, the games stay in
    the journal, and `validate --resume` plays none again and writes every output."""
    import errno
    import os

    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    argv = ["validate", str(d), "--games", "2", "--workers", "0", "--quiet"]
    write = os.write

    def full_disk(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("validation.png.tmp"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{d / 'validation.png'}: cannot write: No space left on device" in err, err
    assert "validate --resume" in err and "Traceback" not in err
    assert (d / "validation.journal").exists() and not (d / "validation.png").exists()
    assert not list(d.glob("*.tmp"))
    table = (d / "validation.csv").read_bytes()
    monkeypatch.setattr(os, "write", write)
    played = []
    monkeypatch.setattr("qd.validation.GameJournal.add",
                        lambda self, i, rec: played.append(i))
    assert main([*argv, "--resume"]) == 0
    assert played == []  # every game came from the journal
    assert (d / "validation.png").stat().st_size > 0
    assert (d / "validation.csv").read_bytes() == table
    assert not (d / "validation.journal").exists()


@pytest.mark.slow
def test_same_results_on_ray(validated, tmp_path):
    """Seeds come from the run seed and the game's place: Ray workers change nothing."""
    d, result = validated
    out = copy_run(d, tmp_path / "ray")
    ray_result = validate(out, games=4, workers=2)
    pd.testing.assert_frame_equal(ray_result.table, result.table)
    a = pd.read_csv(d / "validation_games.csv")
    b = pd.read_csv(out / "validation_games.csv")
    cols = [c for c in a.columns if c not in TIMING]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_corrected_metrics_on_training_and_held_out_levels(tmp_path_factory, tmp_path):
    """--levels all replays every elite on the training levels (fresh seeds) and the held-out
    ones; the summary rebuilds the archive from the replayed estimates and states the gaps."""
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    r = validate(d, levels="all", games=5, workers=0)
    s = r.summary
    assert s["levels"] == [11, 12, 13, 14, 15]
    v = pd.read_csv(d / "validation.csv")
    games = pd.read_csv(d / "validation_games.csv")
    games = games[games["cell"] != "control"]
    c = s["corrected"]
    cells = int(np.prod([a.bins for a in RunFiles(d).axes]))
    best = v.groupby("validated_cell")["win_rate_validated"].max()
    assert c["cells"] == len(best) and c["coverage"] == pytest.approx(len(best) / cells)
    assert c["qd_score"] == pytest.approx(best.sum())
    assert c["cells_evolved"] == len(v)
    assert c["qd_score_evolved"] == pytest.approx(v["win_rate_evolved"].sum())
    assert s["mean_abs_gap"]["win_rate"] == pytest.approx(
        (v["win_rate_evolved"] - v["win_rate_validated"]).abs().mean())
    gap = (v["tile_slope_evolved"] - v["tile_slope_validated"]).abs()
    assert s["mean_abs_gap"]["tile_slope"] == pytest.approx(gap.mean())
    groups = s["by_level_group"]
    assert groups["train"]["games"] == 2 * len(v) and groups["held_out"]["games"] == 3 * len(v)
    train = games[games["level"].isin([11, 12])].groupby("index")["elite_won"].mean()
    assert groups["train"]["mean_win_rate"] == pytest.approx(train.mean())
    evolved = v.set_index("index")["win_rate_evolved"]
    assert groups["train"]["mean_abs_gap_win_rate"] == pytest.approx(
        (evolved.loc[train.index] - train).abs().mean())
    md = (d / "validation.md").read_text()
    assert "Corrected archive" in md and "On train levels" in md and "On held-out levels" in md
    assert validate(d, levels="train", games=2, workers=0).summary["levels"] == [11, 12]
    from plots.report import write_report
    validate(d, levels="all", games=5, workers=0)
    write_report(d)
    page = (d / "report.html").read_text()
    assert "QD score, evolution / corrected" in page and "on held-out levels" in page



def test_evolve_validates_when_the_config_says_so(tmp_path, capsys):
    """`validate:` in a config: evolve ends by validating every elite beside the control and
    prints the headline; --resume on the finished run keeps that validation; a run without
    the key says how to validate."""
    import yaml
    data = {"name": "nimv", "game": "nim", "levels": {"set": "range:0-5", "train": 2},
            "agent": {"name": "pmcts_pu", "budget": 5, "params": {"expansion": "prior"}},
            "opponent": "random", "features": ["stones_per_move", "moves"], "repetitions": 2,
            "evaluations": 6, "emitter": {"batch_size": 3, "initial_random": 2},
            "validate": {"games": 8}, "seed": 3}
    cfg = tmp_path / "nimv.yaml"
    cfg.write_text(yaml.safe_dump(data))
    run = tmp_path / "run"
    assert main(["evolve", str(cfg), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    s = json.loads((run / "validation_summary.json").read_text())
    assert s["games_per_elite"] == 8 and len(s["levels"]) == 4  # the 4 held-out levels
    assert s["settings"] == {"games": 8, "levels": "held_out", "control": True,
                             "null_baseline": False,
                             "delta": 1.0, "margin": 0.1}
    assert last.startswith(f"{s['distinct_styles']} style")
    assert f"(of {s['elites']} elite" in last and "8 games each," in last
    games = pd.read_csv(run / "validation_games.csv")
    assert (games["cell"] == "control").sum() == 8
    assert not set(games["level"]) & set(yaml.safe_load((run / "config.yaml").read_text())
                                          ["levels"]["train"])
    before = (run / "validation_games.csv").read_bytes()
    assert main(["evolve", str(cfg), "--out", str(run), "--workers", "0", "--quiet",
                 "--resume"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == last
    assert (run / "validation_games.csv").read_bytes() == before
    # a validation written by `playstyles validate` is not overwritten by evolve --resume
    assert main(["validate", str(run), "--games", "2", "--workers", "0", "--quiet"]) == 0
    mine = (run / "validation_games.csv").read_bytes()
    capsys.readouterr()
    assert main(["evolve", str(cfg), "--out", str(run), "--workers", "0", "--quiet",
                 "--resume"]) == 0
    assert "2 games each" in capsys.readouterr().out.strip().splitlines()[-1]
    assert (run / "validation_games.csv").read_bytes() == mine
    del data["validate"]
    cfg.write_text(yaml.safe_dump(data))
    assert main(["evolve", str(cfg), "--out", str(tmp_path / "plain"), "--workers", "0",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "have not been checked on held-out levels: playstyles validate" in out
    assert not (tmp_path / "plain" / "validation_summary.json").exists()


def test_validation_without_the_control(tmp_path_factory, tmp_path):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    r = validate(d, games=2, workers=0, control=False)
    games = pd.read_csv(d / "validation_games.csv")
    assert "control" not in set(games["cell"])
    assert r.summary["control"] is None and r.summary["distinct_styles_non_inferior"] is None
    assert r.summary["distinct_styles"] >= 1
    from qd.validation import headline
    assert "non-inferior" not in headline(r.summary)
    assert r.table["non_inferior"].isna().all()


def test_the_null_baseline_plays_the_same_games_and_is_counted(tmp_path_factory, tmp_path):
    """`null`: the all-zero and every one-hot genome play the same games as the elites and
    the control, and are counted among themselves on the same yardstick."""
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    r = validate(d, games=2, workers=0, null=True)
    games = pd.read_csv(d / "validation_games.csv", dtype={"cell": str})
    names = list(r.summary["control"]["genome"])
    null = games[games["cell"].str.startswith("null:")]
    assert sorted(null["cell"].unique()) == sorted(
        ["null:zero", *(f"null:{n}=1" for n in names)])
    assert (null["index"] < -1).all()
    for col in ("level", "elite_seat", "game_seed", "elite_seed", "opponent_seed"):
        assert (games.groupby("game")[col].nunique() == 1).all(), col
    n = r.summary["styles"]["null"]
    assert n["genomes"] == ["null:zero", *(f"null:{k}=1" for k in names)]
    assert set(n["counts"]) == {"0", "0.5", "1"}
    assert r.summary["null_distinct_styles"] == n["counts"]["1"] >= 1
    from qd.validation import headline
    assert f"null baseline {n['counts']['1']}" in headline(r.summary)
    # the elites' count does not depend on the null genomes beyond the shared yardstick
    assert r.table["cell"].tolist() == pd.read_csv(d / "elites.csv")["cell"].tolist()
