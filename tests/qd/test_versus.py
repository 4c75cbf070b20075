"""`playstyles versus`: two styles and the control on the same games of a tiny run, their
boards side by side, versus.csv and versus.md; the same games as validation; errors; and an
output folder it did not write is never written into."""

from __future__ import annotations

import pandas as pd
import pytest

from games.recording import load_record, replay
from games.registry import get_game
from playstyles.cli import main
from qd.features import features_of
from qd.validation import validate
from qd.versus import END, check_rounds, default_out, sanitise, versus
from tests.plots.tiny_run import copy_run, tiny_run

PNG = b"\x89PNG\r\n\x1a\n"
ROUNDS = (1, 2, 50, END)  # the tiny run's games last 5 rounds: round 50 is never drawn
GAMES = 2


def _cells(run) -> list[str]:
    return pd.read_csv(run / "elites.csv")["cell"].astype(str).tolist()[:2]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    run = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("versus") / "run")
    cells = _cells(run)
    return run, cells, versus(run, cells, games=GAMES, rounds=ROUNDS, workers=0)


def test_every_genome_plays_the_same_games(played):
    run, cells, result = played
    assert result.out == run / "versus" / f"{sanitise(cells[0])}_vs_{sanitise(cells[1])}"
    table = pd.read_csv(result.out / "versus.csv", dtype={"cell": str})
    assert len(table) == 3 * GAMES  # one row per genome and game
    assert table["cell"].tolist() == [c for c in (*cells, "control") for _ in range(GAMES)]
    assert table.groupby("cell", sort=False)["game"].apply(list).tolist() == \
        [list(range(GAMES))] * 3
    for col in ("level", "seat", "side", "game_seed", "genome_seed", "opponent_seeds"):
        assert (table.groupby("game")[col].nunique() == 1).all(), col
    assert set(table["level"]) <= {13, 14, 15}  # the run's held-out levels
    assert table.groupby("cell")["seat"].apply(list).tolist() == [[0, 1]] * 3  # seats alternate
    assert set(table["won"]) <= {0, 0.5, 1}
    assert set(features_of("tribes")) <= set(table.columns)  # every registered feature
    assert table["rounds"].notna().all()


def test_boards_side_by_side(played):
    import matplotlib.image as mpimg

    _, _, result = played
    names = sorted(p.name for p in result.out.glob("*.png"))
    assert names == sorted(f"game{g}_{r}.png" for g in range(GAMES)
                           for r in ("round01", "round02", "end"))
    assert [p.name for p in result.images] == [f"game{g}_{r}.png" for g in range(GAMES)
                                               for r in ("round01", "round02", "end")]
    single = None
    for p in result.images:
        assert p.read_bytes()[:8] == PNG
        h, w = mpimg.imread(p).shape[:2]
        single = single or (h, w)
        assert w > 2.5 * h  # three boards side by side
    md = (result.out / "versus.md").read_text()
    assert "game 0 round 50" in md and "game 1 round 50" in md  # not drawn: no game got there
    assert result.note is None


def test_markdown_tallies_every_feature(played):
    _, cells, result = played
    md = (result.out / "versus.md").read_text()
    table = result.table
    assert f"A: cell {cells[0]}" in md and f"B: cell {cells[1]}" in md and "control" in md
    for cell in (*cells, "control"):
        wins = table[table["cell"] == cell]["won"].sum()
        assert f"({wins:.3g} of {GAMES})" in md
    for name in features_of("tribes"):
        assert f"| {name} " in md
    assert "| research_slope (grid) |" in md


def test_records_replay_to_the_end(played):
    _, _, result = played
    assert len(result.records) == 3 * GAMES
    for path in result.records:
        record = load_record(path)
        state, action = list(replay(record, source=str(path)))[-1]
        assert action is None and state.is_terminal()


def test_the_games_are_validation_games(played, tmp_path):
    """Game g of a cell is game g of that cell in `validate` on the same levels."""
    run, cells, result = played
    copy = copy_run(run, tmp_path / "run")
    validate(copy, games=GAMES, cells=cells, workers=0)
    val = pd.read_csv(copy / "validation_games.csv", dtype={"cell": str})
    mine = result.table
    assert val["cell"].tolist() == mine["cell"].tolist()
    assert val["game_seed"].tolist() == mine["game_seed"].tolist()
    assert val["elite_seat"].tolist() == mine["seat"].tolist()
    assert val["elite_won"].tolist() == mine["won"].tolist()
    for f in ("research_slope", "tile_slope", "score", "rounds"):
        assert val[f].tolist() == pytest.approx(mine[f].tolist(), nan_ok=True), f


def test_an_unknown_cell_is_named(played, tmp_path):
    run, cells, _ = played
    with pytest.raises(ValueError, match=r"cells: '9:9' holds no elite.*known cells: "
                                         + cells[0].replace(".", r"\.")):
        versus(run, [cells[0], "9:9"], out=tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="given twice"):
        versus(run, [cells[0], cells[0]], out=tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="^rounds: "):
        versus(run, cells, rounds=("soon",), out=tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="^levels: "):
        versus(run, cells, levels="nope", out=tmp_path / "x", workers=0)
    assert not (tmp_path / "x").exists()


def test_rounds_are_checked_and_ordered():
    assert check_rounds([END, 10, 5, "5", "last"]) == [5, 10, END]
    assert check_rounds(END) == [END]
    for bad in ([], [-1], ["x"], [True], [1.5]):
        with pytest.raises(ValueError, match="^rounds: "):
            check_rounds(bad)


def test_a_folder_it_did_not_write_is_refused(played, tmp_path, capsys):
    run, cells, _ = played
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    for force in (False, True):
        with pytest.raises(ValueError, match="not empty"):
            versus(run, cells, out=mine, force=force, workers=0)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    # the command line: one line naming the folder (the run directory itself is refused too)
    for out in (mine, run):
        before = sorted(p.name for p in out.iterdir())
        code = main(["versus", str(run), *cells, "--out", str(out), "--workers", "0",
                     "--quiet", "--force"])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("playstyles: error: ") and str(out) in err
        assert err.count("\n") == 1
        assert sorted(p.name for p in out.iterdir()) == before


def test_its_own_results_need_force_and_are_replaced(played, tmp_path):
    run, cells, _ = played
    out = tmp_path / "vs"
    versus(run, cells, games=2, rounds=(END,), out=out, workers=0)
    assert sorted(p.name for p in out.glob("*.png")) == ["game0_end.png", "game1_end.png"]
    with pytest.raises(ValueError, match="earlier playstyles versus; give --force"):
        versus(run, cells, games=1, rounds=(END,), out=out, workers=0)
    result = versus(run, cells, games=1, rounds=(END,), out=out, workers=0, force=True)
    assert sorted(p.name for p in out.glob("*.png")) == ["game0_end.png"]  # none left over
    assert len(list((out / "records").iterdir())) == 3
    assert len(result.table) == 3


def test_a_game_without_images_gets_the_tables(played, tmp_path, monkeypatch):
    run, cells, _ = played
    monkeypatch.setattr(get_game("tribes"), "render_image", None)
    result = versus(run, cells, rounds=(1, END), out=tmp_path / "vs", workers=0)
    assert result.images == [] and not list((tmp_path / "vs").glob("*.png"))
    assert "no render_image" in result.note
    md = (tmp_path / "vs" / "versus.md").read_text()
    assert "No board images" in md and "| win rate |" in md
    assert len(pd.read_csv(tmp_path / "vs" / "versus.csv")) == 3


def test_the_command(played, capsys):
    run, cells, _ = played
    code = main(["versus", str(run), *cells, "--rounds", "0", "end", "--workers", "0",
                 "--quiet", "--out", str(run / "versus" / "cli")])
    out, err = capsys.readouterr()
    assert code == 0, err
    where = run / "versus" / "cli"
    assert f"results in {where}/" in out and "2 board images" in out
    assert sorted(p.name for p in where.glob("*.png")) == ["game0_end.png", "game0_round00.png"]
    # argument errors: one line naming the field
    for argv, field in (([*cells, "--rounds", "x"], "--rounds"),
                        ([*cells, "--games", "0"], "--games"),
                        ([cells[0], "7:7"], "cells: '7:7'"),
                        ([*cells, "--levels", "nope"], "levels: ")):
        try:
            code = main(["versus", str(run), *argv, "--workers", "0", "--quiet"])
        except SystemExit as e:
            code = e.code
        err = capsys.readouterr().err
        assert code == 2 and field in err, (argv, err)
    assert default_out(run, ["1.5:-0.5", "a b"]) == run / "versus" / "1.5_-0.5_vs_a_b"


def test_the_report_shows_the_boards_versus_drew(played):
    """`playstyles report` embeds the first game's boards of each comparison in the run
    directory, in round order (the last board last), and nothing when there is none."""
    from plots.versus import VERSUS_IMAGES, versus_images
    from qd.rundir import RunFiles
    run, _, result = played
    every = versus_images(RunFiles(run))  # other tests may have drawn comparisons too
    assert len({p.parent for _, p, _ in every}) <= 2
    shown = [x for x in every if x[1].parent == result.out]
    assert [p for _, p, _ in shown] == [result.out / n for n in
                                        ("game0_round01.png", "game0_round02.png",
                                         "game0_end.png")][:VERSUS_IMAGES]
    assert all(result.out.name in heading for heading, _, _ in shown)
    import shutil
    bare = copy_run(run, run.parent / "bare")
    shutil.rmtree(bare / "versus")
    assert versus_images(RunFiles(bare)) == []


def test_by_default_it_plays_the_levels_the_config_validates_on(played, tmp_path):
    import yaml
    run, cells, _ = played
    other = copy_run(run, tmp_path / "run")
    config = yaml.safe_load((other / "config.yaml").read_text())
    config["validate"] = {"games": None, "levels": "seeds:21,22", "control": True,
                          "null_baseline": False, "delta": 1.0, "margin": 0.1}
    (other / "config.yaml").write_text(yaml.safe_dump(config))
    result = versus(other, cells, games=2, rounds=(END,), workers=0,
                    out=tmp_path / "v")
    table = pd.read_csv(result.out / "versus.csv", dtype={"cell": str})
    assert sorted(set(table["level"])) == [21, 22]
