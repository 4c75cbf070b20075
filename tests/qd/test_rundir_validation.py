"""Reading a run directory checks what it reads: a damaged table or a config.yaml that no
longer describes the archive is one error naming the file (and the line and column), from
`report`, `validate` and `export` alike, before any of them writes a file; an undamaged run,
old or new, reads without a false alarm."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from playstyles.cli import main
from qd import rundir
from qd.rundir import RunFiles, read_table
from tests.plots.test_report import fake_run, fake_validation
from tests.plots.tiny_run import copy_run, tiny_run


@pytest.fixture(scope="module")
def validated(tmp_path_factory) -> Path:
    """The tiny run, validated (4 games per elite): every file the commands read."""
    from qd.validation import validate
    d = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("checked") / "run")
    validate(d, games=4, workers=0)
    return d


# ------------------------------------------------------------------------------ damage

def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


def _write_rows(path: Path, rows: list[list[str]]) -> None:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def set_cell(path: Path, line: int, column: str, value: str) -> None:
    """One value of a CSV table changed in place, the rest left as written.

    Args:
        path: the table.
        line: the line in the file (the header is line 1).
        column: the column's name.
        value: the new text.
    """
    rows = _rows(path)
    rows[line - 1][rows[0].index(column)] = value
    _write_rows(path, rows)


def drop_column(path: Path, column: str) -> None:
    rows = _rows(path)
    j = rows[0].index(column)
    _write_rows(path, [r[:j] + r[j + 1:] for r in rows])


EDITED = ["config.yaml: not the config the run was started with (differs in: features;"]


def edit_config(d: Path, feature: int, **changes) -> None:
    cfg = yaml.safe_load((d / rundir.CONFIG).read_text())
    cfg["features"][feature].update(changes)
    (d / rundir.CONFIG).write_text(yaml.safe_dump(cfg, sort_keys=False))


def _bad_byte(d: Path) -> None:
    data = (d / rundir.ELITES).read_bytes().split(b"\n")
    data[2] = data[2].replace(b":", b"\xff:", 1)  # line 3, inside the cell label
    (d / rundir.ELITES).write_bytes(b"\n".join(data))


def _extra_field(d: Path) -> None:
    lines = (d / rundir.ELITES).read_text().split("\n")
    lines[2] += ",0.5"  # line 3: one field more than the header
    (d / rundir.ELITES).write_text("\n".join(lines))


ELITES_DAMAGE = {
    # name: (damage, what the one error line says)
    "win_rate": (lambda d: set_cell(d / rundir.ELITES, 3, "win_rate", "7.0"),
                 ["elites.csv: line 3, column 'win_rate': 7.0 is outside [0, 1]"]),
    "negative games": (lambda d: set_cell(d / rundir.ELITES, 4, "games", "-2"),
                       ["elites.csv: line 4, column 'games': -2 is negative"]),
    "grid index": (lambda d: set_cell(d / rundir.ELITES, 2, "grid_index", "9,0"),
                   ["elites.csv: line 2, column 'grid_index': 9,0 is off the grid of config.yaml",
                    "or the row is damaged"]),
    "missing column": (lambda d: drop_column(d / rundir.ELITES, "wins"),
                       ["elites.csv: no column 'wins'"]),
    "non-UTF-8 byte": (_bad_byte, ["elites.csv: line 3: not UTF-8 text (byte 0xff"]),
    "non-UTF-8 config": (lambda d: (d / rundir.CONFIG).write_bytes(
        b"# \xe9\n" + (d / rundir.CONFIG).read_bytes()),
        ["config.yaml: line 1: not UTF-8 text (byte 0xe9 at character 3)"]),
    "malformed row": (_extra_field, ["elites.csv: not a valid CSV table: ", "in line 3"]),
    # an edited grid: config.yaml is not the config the run's checkpoint recorded
    "changed width": (lambda d: edit_config(d, 0, width=0.5), EDITED),
    "changed range": (lambda d: edit_config(d, 1, range=[0.0, 3.0]), EDITED),
    "shifted range": (lambda d: edit_config(d, 0, range=[0.1, 1.1]), EDITED),
    "larger grid": (lambda d: edit_config(d, 0, range=[0.0, 2.0]), EDITED),
}

VALIDATION_DAMAGE = {
    "validated win rate": (lambda d: set_cell(d / rundir.VALIDATION, 2, "win_rate_validated",
                                              "1.5"),
                           ["validation.csv: line 2, column 'win_rate_validated': 1.5 is "
                            "outside [0, 1]"]),
    "negative validation games": (lambda d: set_cell(d / rundir.VALIDATION, 3,
                                                     "games_validated", "-4"),
                                  ["validation.csv: line 3, column 'games_validated': -4 is "
                                   "negative"]),
    "unknown elite": (lambda d: set_cell(d / rundir.VALIDATION, 2, "index", "99"),
                      ["validation.csv: line 2, column 'index': 99 is not an elite of "
                       "elites.csv"]),
    "summary share": (lambda d: _summary(d, same_cell_share=3),
                      ["validation_summary.json: same_cell_share: 3 is not a number in [0, 1]"]),
    "summary cell": (lambda d: _summary(d, cells=["7.5:0"]),
                     ["validation_summary.json: cell 7.5:0 is not an elite's cell in "
                      "elites.csv"]),
    "summary not an object": (lambda d: (d / rundir.VALIDATION_SUMMARY).write_text("null"),
                              ["validation_summary.json: a JSON object expected, got null"]),
    "summary syntax": (lambda d: (d / rundir.VALIDATION_SUMMARY).write_text('{"elites": 4,\n}'),
                       ["validation_summary.json: not valid JSON: line 2, column 1"]),
    "summary corrected cells": (lambda d: _summary(d, corrected={"cells": "<b>4</b>"}),
                                ["validation_summary.json: corrected.cells: '<b>4</b>' is not "
                                 "a whole number >= 0"]),
    "summary corrected not an object": (lambda d: _summary(d, corrected=[1]),
                                        ["validation_summary.json: corrected: an array is not "
                                         "an object"]),
    # a validation.csv that no longer holds what validation_summary.json counts is damaged,
    # not a run never validated: validating again writes both
    "header-only validation": (lambda d: _keep_lines(d / rundir.VALIDATION, 1),
                               ["validation.csv: holds a header but no rows",
                                "validate again (playstyles validate "]),
    "empty validation": (lambda d: _keep_lines(d / rundir.VALIDATION, 0),
                         ["validation.csv: is empty, while validation_summary.json counts 4 "
                          "validated elites: validate again (playstyles validate "]),
    "missing validation": (lambda d: (d / rundir.VALIDATION).unlink(),
                           ["validation.csv: is missing, while validation_summary.json counts "
                            "4 validated elites: validate again (playstyles validate "]),
    "validation rows lost": (lambda d: _keep_lines(d / rundir.VALIDATION, 3),
                             ["validation.csv: holds 2 rows, while validation_summary.json "
                              "counts 4 validated elites"]),
}


def _keep_lines(path: Path, lines: int) -> None:
    """A table cut to its first lines (the header is line 1)."""
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:lines]))


def _summary(d: Path, **changes) -> None:
    p = d / rundir.VALIDATION_SUMMARY
    p.write_text(json.dumps({**json.loads(p.read_text()), **changes}, indent=2))


COMMANDS = {
    "report": lambda d: ["report", str(d)],
    "validate": lambda d: ["validate", str(d), "--games", "2", "--workers", "0", "--quiet"],
    "export": lambda d: ["export", str(d), "--kind", "difficulty", "--count", "2", "--quiet"],
}


def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def refused(argv: list[str], d: Path, capsys, says: list[str]) -> str:
    """Run a command on a damaged run directory: exit 2, one error line naming the file and
    saying `says`, no traceback, and every file of the directory as it was."""
    before = snapshot(d)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("playstyles: error: "), err
    assert lines[0].startswith(f"playstyles: error: {d}/"), err  # the file, by its path
    for text in says:
        assert text in lines[0], err
    assert snapshot(d) == before  # nothing written, nothing changed
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("damage", sorted(ELITES_DAMAGE))
def test_a_damaged_run_is_refused_with_one_error_naming_the_file(validated, tmp_path, capsys,
                                                                 damage, command):
    d = copy_run(validated, tmp_path / "run")
    spoil, says = ELITES_DAMAGE[damage]
    spoil(d)
    refused(COMMANDS[command](d), d, capsys, says)


@pytest.mark.parametrize("command", ["report", "export"])
@pytest.mark.parametrize("damage", sorted(VALIDATION_DAMAGE))
def test_a_damaged_validation_is_refused_by_what_reads_it(validated, tmp_path, capsys, damage,
                                                          command):
    d = copy_run(validated, tmp_path / "run")
    spoil, says = VALIDATION_DAMAGE[damage]
    spoil(d)
    refused(COMMANDS[command](d), d, capsys, says)


@pytest.mark.parametrize("damage", ["validated win rate", "header-only validation"])
def test_validate_replaces_a_damaged_validation(validated, tmp_path, capsys, damage):
    """validate does not read the validation it replaces: validating again is the fix."""
    d = copy_run(validated, tmp_path / "run")
    VALIDATION_DAMAGE[damage][0](d)
    assert main(COMMANDS["validate"](d)) == 0
    assert RunFiles(d).check().validation[rundir.validated_column("games")].eq(2).all()


def test_every_bad_row_is_counted_and_the_first_named(validated, tmp_path):
    d = copy_run(validated, tmp_path / "run")
    for line in (3, 4):
        set_cell(d / rundir.ELITES, line, "SpawnRange", "2")
    with pytest.raises(ValueError) as e:
        RunFiles(d).check()
    assert str(e.value) == (f"{d / rundir.ELITES}: line 3, column 'SpawnRange': 2.0 is outside "
                            f"[0, 1] (and 1 more row)")


@pytest.mark.parametrize("column, value, says", [
    ("wins", "3", "column 'wins': 3 is more than the row's games"),
    ("measure_research_slope", "0.9", "column 'measure_research_slope': 0.9 is not in the bin"),
    ("measure_tile_slope", "inf", "column 'measure_tile_slope': inf is not finite"),
    ("index", "5", "column 'index': 5 is not the index of its grid_index"),
    ("cell", "0.5:0.5", "column 'cell': 0.5:0.5 does not name the lower edges"),
    ("win_rate_ci_low", "-0.1", "column 'win_rate_ci_low': -0.1 is outside [0, 1]"),
    ("games", "2.5", "column 'games': 2.5 is not a whole number"),
    ("mean_score", "many", "column 'mean_score': many is not a number"),
    ("objective", "", "column 'objective': no value"),
])
def test_each_value_check_of_elites(validated, tmp_path, column, value, says):
    d = copy_run(validated, tmp_path / "run")
    set_cell(d / rundir.ELITES, 2, column, value)
    with pytest.raises(ValueError, match="^" + str(d / rundir.ELITES).replace(".", r"\.")) as e:
        RunFiles(d).elites
    assert f"line 2, {says}" in str(e.value)


def test_a_cell_twice_in_elites(validated, tmp_path):
    d = copy_run(validated, tmp_path / "run")
    rows = _rows(d / rundir.ELITES)
    _write_rows(d / rundir.ELITES, rows + [rows[1]])
    with pytest.raises(ValueError, match=rf"line {len(rows) + 1}, column 'grid_index': "
                                         rf"{rows[1][1]} is a cell already taken"):
        RunFiles(d).elites


def test_tables_the_commands_do_not_read_are_checked_when_loaded(validated, tmp_path):
    d = copy_run(validated, tmp_path / "run")
    (d / rundir.CHECKPOINT).unlink()  # the tables' digests would refuse any change first
    set_cell(d / rundir.GAMES, 3, "game", "-1")
    set_cell(d / rundir.INDIVIDUALS, 2, "status", "lost")
    set_cell(d / rundir.VALIDATION_GAMES, 2, "elite_won", "2")
    run = RunFiles(d).check()  # report, validate and export do not read them: no error
    with pytest.raises(ValueError, match=r"games\.csv: line 3, column 'game': -1 is negative"):
        run.games
    with pytest.raises(ValueError, match=r"individuals\.csv: line 2, column 'status': lost is "
                                         r"not one of rejected"):
        run.individuals
    with pytest.raises(ValueError, match=r"validation_games\.csv: line 2, column 'elite_won': "
                                         r"2 is outside \[0, 1\]"):
        run.validation_games


def test_an_undamaged_run_reads_without_a_false_alarm(validated, tmp_path_factory, tmp_path,
                                                     capsys):
    d = copy_run(validated, tmp_path / "run")
    run = RunFiles(d).check(*rundir.TOOL_INPUTS, rundir.INDIVIDUALS, rundir.GAMES,
                            rundir.VALIDATION_GAMES)
    assert len(run.elites) == len(run.validation) > 0
    for argv in COMMANDS.values():
        assert main(argv(d)) == 0, capsys.readouterr().err
    assert (d / rundir.REPORT).exists() and (d / rundir.presets_file("difficulty")).exists()
    # not validated yet, and no elite yet: nothing to refuse either
    fresh = copy_run(tiny_run(tmp_path_factory), tmp_path / "fresh")
    RunFiles(fresh).check()
    (fresh / rundir.CHECKPOINT).unlink()  # its digest of elites.csv
    (fresh / rundir.ELITES).write_text("\n")  # how a run writes an archive without elites
    assert RunFiles(fresh).check().elites.empty


def test_old_run_directories_read_without_a_false_alarm(validated, tmp_path, capsys):
    # hand-made: fewer columns, no genome_scripts, a validation from before styles
    d = fake_run(tmp_path / "fake")
    fake_validation(d)
    RunFiles(d).check()
    assert main(["report", str(d)]) == 0, capsys.readouterr().err
    # a real run from before config.yaml recorded its scripts: the weights by position
    old = copy_run(validated, tmp_path / "old")
    cfg = yaml.safe_load((old / rundir.CONFIG).read_text())
    del cfg[rundir.GENOME_SCRIPTS]
    (old / rundir.CONFIG).write_text(yaml.safe_dump(cfg, sort_keys=False))
    RunFiles(old).check()
    set_cell(old / rundir.ELITES, 2, "ResearchFarms", "1.5")
    with pytest.raises(ValueError, match=r"line 2, column 'ResearchFarms': 1\.5 is outside"):
        RunFiles(old).check()


def test_each_file_is_read_and_checked_once(validated, monkeypatch):
    reads = []
    real = rundir.read_table
    monkeypatch.setattr(rundir.read, "read_table", lambda path, **kw: reads.append(path.name)
                        or real(path, **kw))
    run = RunFiles(validated).check()
    run.check()
    run.elites, run.validation, run.metrics
    assert sorted(reads) == sorted([rundir.ELITES, rundir.METRICS, rundir.VALIDATION])


# ------------------------------------------------------------------------------ the reader

def test_the_reader_names_the_file_for_every_failure(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b\n1,2\n")
    assert read_table(p).to_dict("list") == {"a": [1], "b": [2]}
    with pytest.raises(ValueError, match=rf"^{p}: 8 bytes, more than the 4 bytes"):
        read_table(p, max_bytes=4)
    assert rundir.MAX_TABLE_BYTES == 2 * 1024 ** 3
    p.write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(ValueError, match=rf"^{p}: not a valid CSV table: Expected 2 fields in "
                                         rf"line 3, saw 3$"):
        read_table(p)
    p.write_text("a,b\n1,2,9\n3,4,5\n")  # every row one field longer: no silent index column
    with pytest.raises(ValueError, match=rf"^{p}: not a valid CSV table: line 2: 3 fields, "
                                         rf"the header has 2$"):
        read_table(p)
    p.write_text('a,b\n1,"2\n')
    with pytest.raises(ValueError, match=rf"^{p}: not a valid CSV table: EOF inside string"):
        read_table(p)
    p.write_bytes(b"a,b\n1,2\n3,\xe9\n")
    with pytest.raises(ValueError, match=rf"^{p}: line 3: not UTF-8 text \(byte 0xe9 at "
                                         rf"character 3\)$"):
        read_table(p)
    p.write_text("\n")
    assert read_table(p, empty_ok=True) is None
    with pytest.raises(ValueError, match=rf"^{p}: empty \(no header line\)$"):
        read_table(p)
    with pytest.raises(ValueError, match=rf"^{tmp_path / 'none.csv'}: cannot read"):
        read_table(tmp_path / "none.csv")


@pytest.mark.parametrize("features, says", [
    ([{"name": "x", "range": [1, 0], "width": 0.5}], "feature x: range [lo, hi] with lo < hi"),
    ([{"name": "x", "range": [0, 1], "width": 0}], "feature x: a positive width expected"),
    ([{"name": "x", "range": "wide", "width": 1}], "feature x: range [lo, hi] and width"),
    ([{"range": [0, 1], "width": 1}], "features[0]: a feature with a name"),
    ({"x": 1}, "features: a list expected"),
])
def test_a_broken_grid_in_config_yaml_names_the_feature(tmp_path, features, says):
    d = tmp_path / "run"
    d.mkdir()
    (d / rundir.CONFIG).write_text(yaml.safe_dump({"name": "r", "features": features}))
    with pytest.raises(ValueError) as e:
        RunFiles(d).check()
    assert str(e.value).startswith(f"{d / rundir.CONFIG}: ") and says in str(e.value)


def test_a_damaged_row_of_a_large_table_is_named(validated):
    """A large games.csv is checked whole, and the one damaged row among 200,000 is named by
    its line."""
    run = RunFiles(validated)
    games = run.games
    big = pd.concat([games] * (200_000 // len(games) + 1), ignore_index=True)
    rundir.check_schema(run, rundir.GAMES, big)
    assert len(big) >= 200_000
    big.loc[len(big) - 1, "game"] = -1
    with pytest.raises(ValueError, match=rf"games\.csv: line {len(big) + 1}, column 'game'"):
        rundir.check_schema(run, rundir.GAMES, big)


def test_cell_labels_that_read_back_as_numbers(tmp_path, capsys):
    """In a one-feature grid pandas reads the labels as numbers: `6` in a validation of one
    elite, `6.0` beside `0.5` in elites.csv; the same cell either way."""
    d = fake_run(tmp_path / "one", features=(("attacks", 0, 20, 0.5),),
                 cells=((12, 0.5), (1, 0.75)))
    (d / rundir.METRICS).unlink()  # made for the 100 cells of fake_run's own grid
    e = pd.read_csv(d / rundir.ELITES)
    assert e["cell"].tolist() == [6.0, 0.5] or e["cell"].tolist() == [0.5, 6.0]
    row = e[e["grid_index"] == 12].iloc[0]
    (d / rundir.VALIDATION).write_text(
        "cell,grid_index,index,win_rate_validated,games_validated,win_rate_ci_low,"
        f"win_rate_ci_high\n6,12,{int(row['index'])},0.5,10,0.2,0.8\n")
    (d / rundir.VALIDATION_SUMMARY).write_text(json.dumps({"elites": 1, "cells": ["6"]}))
    run = RunFiles(d).check()
    assert len(run.validation) == 1
    (d / rundir.VALIDATION).write_text(
        "cell,grid_index,index,win_rate_validated,games_validated,win_rate_ci_low,"
        f"win_rate_ci_high\n0.5,12,{int(row['index'])},0.5,10,0.2,0.8\n")
    with pytest.raises(ValueError, match=r"validation\.csv: line 2, column 'cell': 0\.5 is not "
                                         r"the cell of the row's index in elites\.csv"):
        RunFiles(d).check()
