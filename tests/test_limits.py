"""Limits on every input (docs/limits.md): every file, count and option from outside is one
short error naming the file and the field, within 5 seconds and 500 MB, never a traceback,
minutes of parsing or gigabytes of memory."""

from __future__ import annotations

import io
import json
import os
import socket
import time
import tracemalloc
import zipfile
from typing import Any, Callable

import numpy as np
import pytest

from agents.learned import load_model, model_path
from base import limits as L
from base.files import read_json, read_npz, read_yaml
from games.api import check_game_options
from games.recording import FORMAT as RECORD_FORMAT
from games.registry import get_game
from play.presets import FORMAT as PRESET_FORMAT
from play.presets import VERSION as PRESET_VERSION
from play.ray_session import check_address
from play.tournament import config_from_dict as tournament_config
from playstyles.cli import main
from qd.config import ConfigError, config_from_dict, load_config

SECONDS = 30.0
"""A bad input is refused well within this (about a second on a quiet machine): far above
what a busy machine adds, far below the minutes an unbounded read (inflating a declared
array, recursing into deep nesting) took before it was bounded."""
MEGABYTES = 500


def refused(call: Callable[[], Any], *needles: str, error: type[Exception] = ValueError) -> str:
    """Run `call`, which must raise `error` within SECONDS using at most MEGABYTES of newly
    allocated memory (tracemalloc's peak); its message must be one line holding every
    needle. Returns the message."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(error) as e:
            call()
    finally:
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    message = str(e.value)
    assert elapsed < SECONDS, f"{elapsed:.1f} s: {message}"
    assert peak < MEGABYTES * L.MIB, f"{peak / L.MIB:.0f} MB: {message}"
    assert "\n" not in message, message
    for needle in needles:
        assert needle in message, message
    return message


def cli_refuses(capsys, *argv: Any) -> str:
    """`playstyles ARGV` exits with status 2 within SECONDS and MEGABYTES and one error line
    (argparse's usage line aside), no traceback. Returns the error line."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    finally:
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert elapsed < SECONDS, f"{elapsed:.1f} s: {err}"
    assert peak < MEGABYTES * L.MIB, f"{peak / L.MIB:.0f} MB: {err}"
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if not x.startswith(("usage:", " "))]
    assert len(lines) == 1, err
    return lines[0]


# ------------------------------------------------------------------------------ YAML

def test_an_alias_bomb_is_refused_before_it_expands(tmp_path):
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("game: tribes\n" + "\n".join(lines) + "\nseed: *a8\n")
    message = refused(lambda: load_config(bomb), f"{bomb}: not valid YAML: line 3",
                      error=ConfigError)
    assert "alias *a0 names a list" in message  # refused at the first alias, not expanded


def test_an_alias_to_a_single_value_is_kept_and_their_number_is_capped(tmp_path):
    ok = tmp_path / "ok.yaml"
    ok.write_text("budget: &b 20\nagent: {budget: *b}\n")
    assert read_yaml(ok) == {"budget": 20, "agent": {"budget": 20}}
    many = tmp_path / "many.yaml"
    many.write_text("x: &x 1\n" + "".join(f"k{i}: *x\n" for i in range(L.MAX_YAML_ALIASES + 1)))
    refused(lambda: read_yaml(many), f"{many}", f"more than {L.MAX_YAML_ALIASES} aliases",
            f"line {L.MAX_YAML_ALIASES + 2}")


def test_a_duplicate_key_is_refused_naming_both_lines(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("game: tribes\nseed: 1\nagent:\n  name: mcts\n  name: osla\n")
    message = refused(lambda: read_yaml(path), f"{path}: not valid YAML: line 5, column 3")
    assert "duplicate key 'name' (first on line 4)" in message
    path.write_text("game: tribes\nseed: 1\nrepetitions: 2\nseed: 2\n")
    message = refused(lambda: load_config(path), "line 4", error=ConfigError)
    assert "duplicate key 'seed' (first on line 2)" in message


def test_a_config_larger_than_the_cap_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as fh:  # sparse: the size alone must refuse it
        fh.truncate(50 * L.MIB)
    refused(lambda: load_config(path), f"{path}: {50 * L.MIB} bytes, more than the "
                                       f"{L.MAX_CONFIG_BYTES}", error=ConfigError)


@pytest.mark.parametrize("command", ["evolve", "tournament", "probe", "train-evaluator"])
def test_a_config_that_is_no_regular_file_is_refused_before_it_is_read(tmp_path, capsys,
                                                                        command):
    """A FIFO is not waited on (nothing would ever write to it), nor a device read."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path, what in ((fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device"),
                       (tmp_path, "a directory")):
        line = cli_refuses(capsys, command, path, "--quiet")
        assert f"{path}: is {what}, not a regular file; it is not read" in line


def test_a_list_just_under_the_cap_parses_quickly(tmp_path):
    path = tmp_path / "list.yaml"
    text = "levels:\n" + "".join(f"- {i}\n" for i in range(30_000))
    assert len(text) < L.MAX_CONFIG_BYTES
    path.write_text(text)
    start = time.perf_counter()
    assert len(read_yaml(path)["levels"]) == 30_000
    assert time.perf_counter() - start < SECONDS


@pytest.mark.parametrize("text, needle", [
    ("x: " + "[" * 10_000 + "]" * 10_000 + "\n", f"nested more than {L.MAX_NESTING} deep"),
    ("x:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200)) + "  " * 200 + "1\n",
     f"nested more than {L.MAX_NESTING} deep"),
    ("seed: " + "9" * 5000 + "\n", "4300 digits"),
    ("agent: [1,\n", "line 2"),
])
def test_deep_or_broken_yaml_is_one_error(tmp_path, text, needle):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    refused(lambda: read_yaml(path), f"{path}: not valid YAML", needle)


def test_undecodable_bytes_name_the_file_and_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("game: tribes\nname: caf\u00e9\n".encode("latin-1"))
    refused(lambda: read_yaml(path), f"{path}: line 2: not UTF-8 text")
    record = tmp_path / "r.json"
    record.write_bytes(b'{"format": "\xff"}')
    refused(lambda: read_json(record), f"{record}: line 1: not UTF-8 text")


def test_a_huge_value_is_shortened_in_messages():
    huge = list(range(10 ** 6))
    text = L.short(huge)
    assert len(text) <= L.SHORT and text.startswith("[0, 1")
    assert L.short(10 ** 5000) == "<int>" or len(L.short(10 ** 5000)) <= L.SHORT
    message = refused(lambda: config_from_dict({"game": "tribes", "seed": huge}),
                      "config: seed: a whole number expected", error=ConfigError)
    assert len(message) < 200


# ------------------------------------------------------------------------------ JSON

def test_a_record_nested_deeply_is_refused_without_recursion(capsys, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"actions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    line = cli_refuses(capsys, "replay", path)
    assert f"{path}: nested more than {L.MAX_NESTING} deep" in line


def test_json_too_large_or_broken_names_the_file(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(L.MAX_JSON_BYTES + 1)
    refused(lambda: read_json(big), f"{big}: {L.MAX_JSON_BYTES + 1} bytes")
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "a": 1,\n  "b": }\n')
    refused(lambda: read_json(broken), f"{broken}: not valid JSON: line 3, column 8")


# ------------------------------------------------------------------------------ markers

def _huge(path, size: int) -> None:
    with open(path, "wb") as fh:  # sparse: no disk or time spent
        fh.truncate(size)


@pytest.mark.parametrize("kind", ["huge", "deep", "long", "link", "fifo", "other"])
def test_a_bad_marker_is_one_error_naming_it(kind, tmp_path, capsys):
    """The marker is read within MAX_MARKER_BYTES and MAX_NESTING, unfollowed and unwaited:
    a bad one is one line naming it, quickly and in little memory, and nothing is written."""
    import os

    from base.files import MARKER, check_folder, claim_folder

    out = tmp_path / "out"
    out.mkdir()
    marker = out / MARKER
    if kind == "huge":
        _huge(marker, 1_500_000_000)
        needle = f"{marker}: 1500000000 bytes, more than the {L.MAX_MARKER_BYTES} bytes"
    elif kind == "deep":
        marker.write_text("[" * 2000 + "]" * 2000)
        needle = f"{marker}: nested more than {L.MAX_NESTING} deep"
    elif kind == "long":
        marker.write_text("[" * 200_000 + "]" * 200_000)
        needle = f"{marker}: 400000 bytes, more than"
    elif kind == "link":
        _huge(tmp_path / "elsewhere", 10)
        marker.symlink_to(tmp_path / "elsewhere")
        needle = f"{marker}: a symbolic link, not a marker"
    elif kind == "fifo":
        os.mkfifo(marker)
        needle = f"{marker}: not a regular file, not a marker"
    else:
        marker.write_text('{"command": ["tournament"], "format": 1}')
        needle = f"{marker}: not a marker playstyles wrote"
    for call in (lambda: check_folder(out, command="tournament", force=True),
                 lambda: claim_folder(out, command="tournament", force=True)):
        refused(call, needle, f"{out}: the directory holds files that playstyles did not write")
    (out / "games.csv").write_text("my,own\n")
    line = cli_refuses(capsys, "tournament", "--agents", "random", "random:label=b", "--game",
                       "nim", "--reps", "1", "--workers", "0", "--quiet", "--out", out,
                       "--force")
    assert needle in line
    assert sorted(p.name for p in out.iterdir()) == sorted(["games.csv", MARKER])
    assert (out / "games.csv").read_text() == "my,own\n"


# ------------------------------------------------------------------------------ names

NIM = {"game": "nim", "levels": {"set": "range:0-3", "train": 2},
       "agent": {"name": "pmcts_pu", "budget": 5}, "opponent": "random",
       "features": ["stones_per_move", "moves"], "evaluations": 4, "seed": 1}


@pytest.mark.parametrize("name, needle", [
    ("x" * (L.MAX_NAME + 1), f"{L.MAX_NAME + 1} bytes, more than the {L.MAX_NAME} bytes a name"),
    ("\u00e9" * 101, f"202 bytes, more than the {L.MAX_NAME} bytes"),
    ("run\nplaystyles: error: forged", "a control character (U+000A) at character 4"),
    ("a\tb", "a control character (U+0009) at character 2"),
    ("\x1b[31mred", "a control character (U+001B) at character 1"),
    ("abc\u202edef", "a control character (U+202E) at character 4"),
    ("a\u2028b", "a control character (U+2028) at character 2"),
    ("  ", "a non-empty text expected"),
])
def test_names_are_bounded_printable_text(name, needle):
    from base.schema import check_name
    from play.tournament import parse_agent

    refused(lambda: check_name(name, "f"), f"f: {needle}")
    refused(lambda: config_from_dict({**NIM, "name": name}), f"config: name: {needle}",
            error=ConfigError)
    refused(lambda: config_from_dict({**NIM, "agent": {"name": "mcts", "label": name}}),
            f"config: agent.label: {needle}", error=ConfigError)
    refused(lambda: parse_agent({"name": "random", "label": name}, "t.yaml: agents[1]"),
            f"t.yaml: agents[1].label: {needle}")
    assert check_name("level 2 (hardest) \u00e9\u4e2d", "f") == "level 2 (hardest) \u00e9\u4e2d"
    assert check_name("x" * L.MAX_NAME, "f") == "x" * L.MAX_NAME


def test_a_huge_preset_name_is_refused_before_a_game_is_played(capsys, tmp_path):
    from tests.play.test_ladder import presets

    path = presets(tmp_path)
    data = json.loads(path.read_text())
    data["presets"][1]["name"] = "x" * 5_000_000
    path.write_text(json.dumps(data))
    line = cli_refuses(capsys, "ladder", path, "--games", "2", "--workers", "0", "--quiet")
    assert f"{path}: presets[1].name: 5000000 bytes, more than the {L.MAX_NAME}" in line
    assert len(line) < 400
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no ladder folder


def test_a_run_name_with_a_newline_makes_nothing_and_forges_no_line(capsys, tmp_path,
                                                                     monkeypatch):
    import yaml

    monkeypatch.chdir(tmp_path)
    forged = "x\nplaystyles: error: forged"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({**NIM, "name": forged}))
    line = cli_refuses(capsys, "evolve", cfg, "--workers", "0", "--quiet")
    assert "name: a control character (U+000A)" in line
    stem = tmp_path / f"{forged}.yaml"  # the name a config without one takes: its file's
    stem.write_text(yaml.safe_dump(NIM))
    line = cli_refuses(capsys, "evolve", stem, "--workers", "0", "--quiet")
    assert "name: a control character (U+000A)" in line and "\\n" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["c.yaml", stem.name])

# ------------------------------------------------------------------------------ models

def _default_model() -> dict[str, Any]:
    with np.load(model_path("tribes", None)) as data:
        return {k: data[k] for k in data.files}


def _model_with(path, arrays: dict[str, Any], **meta: Any):
    """The shipped Tribes model saved to `path` with `meta` over its metadata (or, given
    `text`, that text as its metadata)."""
    text = meta.pop("text", None)
    if text is None:
        text = json.dumps({**json.loads(str(arrays["metadata"])), **meta})
    np.savez(path, **{**arrays, "metadata": np.array(text)})
    return path


@pytest.mark.parametrize("meta, needle", [
    ({"text": "[" * 100_000 + "]" * 100_000}, f"metadata: nested more than {L.MAX_NESTING} deep"),
    ({"text": '{"format": ' + "9" * 100_000 + "}"}, "metadata: not valid JSON: Exceeds the limit"),
    ({"text": "[1, 2"}, "metadata: not valid JSON: line 1"),
    ({"text": json.dumps("x" * 3 * 2**20)}, f"metadata: {12 * 2**20 + 136} bytes, more than"),
    ({"format": "x" * 2**20}, "format: expected 'playstyles-learned-evaluator', got 'xxx"),
    ({"format_version": True}, "format_version: True"),
    ({"format_version": 10 ** 50}, "format_version: 1000"),
    ({"game": ["tribes"]}, "game: ['tribes'] is not a game name"),
    ({"encoding": []}, "encoding: []; expected a name"),
    ({"encoding": {"name": "counts", "version": "1", "length": 2899}}, "encoding: {"),
    ({"layers": "abc"}, "layers: 'abc'; expected 2 to"),
    ({"layers": [2899, "x", 1]}, "layers: [2899, 'x', 1]"),
    ({"layers": [2899] + [64] * 200 + [1]}, "layers: [2899, 64, 64"),
    ({"layers": [2899, 10 ** 6, 1]}, f"hidden layers of at most {L.MAX_LAYER_SIZE} units"),
    ({"layers": [2899, 64, 64, 2]}, "and one output"),
    ({"layers": [77, 64, 64, 1]}, "layers: [77, 64, 64, 1] take 77 inputs"),
    ({"activation": {"relu": 1}}, "activation: {'relu': 1} is not one of"),
    ({"game": "tribolo"}, "game: the model is for 'tribolo', not 'tribes'"),
])
def test_a_model_with_bad_metadata_is_one_line_naming_the_file_and_field(tmp_path, meta, needle):
    path = _model_with(tmp_path / "bad.npz", _default_model(), **meta)
    message = refused(lambda: load_model(path, "tribes"), f"{path}: ", needle)
    assert len(message) < 400, message


@pytest.fixture(scope="module")
def declared_bomb(tmp_path_factory):
    """The shipped model with a W0 of 640 MB (zeros compress to a file of a few MB)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    shape = (2899, 55_000)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, array in _default_model().items():
            if name != "W0":
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, array)
                z.writestr(f"{name}.npy", buffer.getvalue())
        with z.open("W0.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_2_0(
                f, {"descr": "<f4", "fortran_order": False, "shape": shape})
            chunk, left = bytes(2**24), shape[0] * shape[1] * 4
            while left > 0:
                f.write(chunk[:left])
                left -= len(chunk)
    return path


def test_an_array_declared_larger_than_the_layers_is_refused_before_it_is_inflated(
        declared_bomb, capsys):
    assert declared_bomb.stat().st_size < 16 * L.MIB
    refused(lambda: load_model(declared_bomb, "tribes"),
            f"{declared_bomb}: W0: shape (2899, 55000); layers [2899, 64, 64, 1] make it")
    line = cli_refuses(capsys, "play", "--game", "tribes", "--p1",
                       f"mcts:evaluator=learned:{declared_bomb},budget=5", "--p2", "random")
    assert f"{declared_bomb}: W0: shape (2899, 55000)" in line


def test_an_array_header_that_declares_more_than_its_member_holds_is_refused(tmp_path):
    path = tmp_path / "liar.npz"
    header = io.BytesIO()
    np.lib.format.write_array_header_2_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (2**28,)})
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("w.npy", header.getvalue() + bytes(64))
    refused(lambda: read_npz(path), f"{path}: w: its header declares the shape (268435456,)")


def test_saved_samples_with_deep_or_foreign_metadata_are_one_line(tmp_path):
    from play.selfplay import Samples
    path = tmp_path / "samples.npz"
    for meta, needle in (("[" * 100_000 + "]" * 100_000, "meta: nested more than"),
                         ("[1, 2]", "fingerprint: these samples come from other games")):
        np.savez(path, meta=np.array(meta))
        refused(lambda: Samples.load(path, "f"), f"{path}: {needle}")
    np.savez(path, other=np.zeros(2))
    refused(lambda: Samples.load(path, "f"), f"{path}: not a samples file: 'meta' missing")


def test_a_model_path_that_is_no_regular_file_is_refused_without_reading(tmp_path, capsys):
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    for path, what in (("/dev/zero", "a character device"), (fifo, "a FIFO (named pipe)"),
                       (tmp_path, "a directory")):
        refused(lambda: load_model(path, "tribes"), f"{path}: is {what}, not a regular file")
    line = cli_refuses(capsys, "play", "--game", "tribes", "--p1",
                       "mcts:evaluator=learned:/dev/zero,budget=5", "--p2", "random")
    assert "/dev/zero: is a character device" in line


# ------------------------------------------------------------------------------ counts

@pytest.mark.parametrize("patch, needle", [
    ({"agent": {"name": "mcts", "budget": 1e20}}, "agent.budget: a whole number expected, got 1e+20"),
    ({"agent": {"name": "mcts", "budget": 10 ** 7}}, f"agent.budget: must be at most "
                                                     f"{L.MAX_BUDGET}"),
    ({"agent": "mcts:budget=1e20"}, "agent.budget: a whole number expected, got 1e+20"),
    ({"repetitions": 1e12}, "repetitions: a whole number expected"),
    ({"repetitions": 10 ** 12}, f"repetitions: must be at most {L.MAX_REPETITIONS}"),
    ({"evaluations": 10 ** 9}, f"evaluations: must be at most {L.MAX_EVALUATIONS}"),
    ({"validate": {"games": 10 ** 9}}, f"validate.games: must be at most {L.MAX_GAMES}"),
    ({"seed": 2 ** 64}, "seed: must be at most"),
    ({"emitter": {"batch_size": 10 ** 9}}, "emitter.batch_size: must be at most"),
    ({"noise": {"method": "reevaluate", "per_batch": 10 ** 9}}, "noise.per_batch: must be at "
                                                                 "most"),
])
def test_run_config_counts_are_bounded(patch, needle):
    refused(lambda: config_from_dict({"game": "tribes", **patch}), f"config: {needle}",
            error=ConfigError)


@pytest.mark.parametrize("patch, needle", [
    ({"repetitions": 10 ** 9}, f"repetitions: must be at most {L.MAX_REPETITIONS}"),
    ({"repetitions": 1e20}, "repetitions: a whole number expected, got 1e+20 "
                            "(a float)"),
    ({"budget": 1e20}, "budget: at most 1000000 forward-model calls"),
    ({"seed": -1}, "seed: must be >= 0"),
    ({"agents": ["random", "mcts:budget=100000000"]}, "budget: at most"),
])
def test_tournament_config_counts_are_bounded(patch, needle):
    data = {"game": "tribes", "agents": ["random", "random:label=b"], **patch}
    refused(lambda: tournament_config(data, source="t.yaml"), "t.yaml: ", needle)


@pytest.mark.parametrize("argv, needle", [
    (["tournament", "--reps", "1000000000"], "--reps: must be at most 10000"),
    (["tournament", "--reps", "1e9"], "--reps: a whole number expected"),
    (["tournament", "--budget", "10000000"], "--budget: must be at most"),
    (["tournament", "--rounds", "100000"], "--rounds: must be at most"),
    (["tournament", "--seed", str(2 ** 64)], "--seed: must be at most"),
    (["play", "--seed", "-1"], "--seed: must be >= 0"),
    (["validate", "run", "--games", "1000000000"], "--games: must be at most"),
    (["probe", "c.yaml", "--games", "1000000000"], "--games: must be at most"),
    (["export", "run", "--count", "100000"], "--count: must be at most"),
    (["export", "run", "--candidates", "100000"], "--candidates: must be at most"),
    (["export", "run", "--budgets", "5", "100000000"], "--budgets: must be at most"),
    (["ladder", "p.json", "--games", "1000000000"], "--games: must be at most"),
    (["evolve", "c.yaml", "--workers", "1000000"], "--workers: must be at most"),
    (["levels", "show", "--seed", "1", "--size", "1000000"], "--size: must be at most"),
    (["play", "--watch", "--delay", "1e300"], "--delay: must be from 0 to 3600 seconds, got "
                                              "1e300"),
    (["play", "--watch", "--delay", "nan"], "--delay: must be from 0 to 3600 seconds"),
    (["validate", "run", "--delta", "20"], "argument --delta: must be from 0 to 10, got 20"),
])
def test_every_cli_count_is_bounded(capsys, argv, needle):
    assert needle in cli_refuses(capsys, *argv)


@pytest.mark.parametrize("spec, needle", [
    ("rhea:population=1000000000", "population: must be at most"),
    ("hop:particles=1000000000", "particles: must be at most"),
    ("mcts:budget=1000000000", "budget: at most 1000000"),
])
def test_agent_parameter_counts_are_bounded(spec, needle):
    from play.specs import split_spec
    from play.tournament import parse_agent
    refused(lambda: parse_agent(spec, "agents[0]", "navy" if "hop" in spec else "tribes"),
            "agents[0]", needle)
    assert split_spec("mcts:budget=20", "tribes")[1]["budget"] == 20


def test_an_agent_spec_budget_of_1e20_is_refused_not_converted(capsys):
    line = cli_refuses(capsys, "tournament", "--agents", "random", "mcts:budget=1e20",
                       "--workers", "0")
    assert "budget" in line and "1e+20" in line


def test_the_games_one_command_plans_are_bounded(capsys, tmp_path):
    line = cli_refuses(capsys, "tournament", "--agents", "random", "random:label=b",
                       "--levels", "range:0-99999", "--reps", "10000", "--workers", "0",
                       "--quiet", "--out", tmp_path / "t")
    assert "100000 levels x 10000 repetitions are" in line
    assert f"more than the {L.MAX_PLANNED_GAMES} one command plays" in line
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())


# ------------------------------------------------------------------------------ levels

def test_a_level_file_too_large_is_refused_before_it_is_read(capsys, tmp_path):
    path = tmp_path / "huge.csv"
    with open(path, "wb") as fh:
        fh.truncate(3000 * 3000 * 4)  # a 3000x3000 level's size
    line = cli_refuses(capsys, "play", "--level", path)
    assert f"{path}: {3000 * 3000 * 4} bytes, more than the {L.MAX_LEVEL_BYTES}" in line


def test_a_level_board_larger_than_the_cap_names_the_line(tmp_path):
    from games.tribes.level import LevelFormatError, load_level
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(["1:"] * (L.MAX_BOARD + 1)) + "\n")
    refused(lambda: load_level(wide), f"{wide}: line 1: the board is larger than",
            error=LevelFormatError)
    tall = tmp_path / "tall.csv"
    tall.write_text("1:\n" * (L.MAX_BOARD + 1))
    refused(lambda: load_level(tall), f"{tall}: line {L.MAX_BOARD + 1}: the board is larger",
            error=LevelFormatError)


def test_navy_and_tribolo_level_files_are_capped(tmp_path):
    deep = tmp_path / "navy.json"
    deep.write_text("[" * 10_000 + "]" * 10_000)
    refused(lambda: get_game("navy").level(str(deep)), f"{deep}: nested more than")
    big = tmp_path / "tribolo.txt"
    with open(big, "wb") as fh:
        fh.truncate(L.MAX_LEVEL_BYTES + 1)
    refused(lambda: get_game("tribolo").level(str(big)), f"{big}: ", "bytes")


# ------------------------------------------------------------------------------ game options

def test_game_options_are_checked_before_new_state():
    tribes = get_game("tribes")
    refused(lambda: check_game_options(tribes, {"foo": 1}),
            "options.foo: unknown game option 'foo' for tribes (known: mode, max_rounds")
    refused(lambda: check_game_options(tribes, {"size": 1_000_000}),
            f"options.size: must be at most {L.MAX_BOARD}")
    refused(lambda: check_game_options(tribes, {"max_rounds": 1e20}), "(a float)")
    refused(lambda: check_game_options(tribes, {"mode": "x" * 10 ** 6}), "options.mode")
    refused(lambda: tribes.new_state(0, 0, size=1_000_000), "options.size")
    assert check_game_options(tribes, {"size": 12, "max_rounds": 3}) == {"size": 12,
                                                                          "max_rounds": 3}


def test_a_game_that_declares_nothing_takes_its_new_state_keywords():
    class Bare:
        name = "bare"

        def new_state(self, level, seed, *, width: int = 3, **rest):
            raise AssertionError("never called")

    check_game_options(Bare(), {"width": 5})
    refused(lambda: check_game_options(Bare(), {"height": 5}), "known: width")
    refused(lambda: check_game_options(Bare(), {"width": 10 ** 30}), "options.width")


@pytest.mark.parametrize("argv, needle", [
    (["play", "--option", "foo=1"], "--option foo: unknown game option 'foo' for tribes"),
    (["play", "--option", "size=1000000"], f"--option size: must be at most {L.MAX_BOARD}"),
    (["play", "--option", "max_rounds=1e20"], "--option max_rounds:"),
    (["play", "--option", "size=[&a [1, 1], *a]"], "--option size: not valid YAML"),
    (["levels", "show", "--seed", "1", "--size", "60000"], "--size: must be at most"),
    (["levels", "show", "--seed", "1", "--size", "63", "--option", "mode=x"],
     "--option mode: one of capitals, score"),
    (["tournament", "--agents", "random", "random:label=b", "--option", "foo=1"],
     "--option foo: unknown game option"),
])
def test_cli_options_are_one_error(capsys, argv, needle):
    assert needle in cli_refuses(capsys, *argv)


def test_config_options_are_checked(tmp_path):
    refused(lambda: config_from_dict({"game": "tribes", "options": {"size": 1_000_000}}),
            "config: options.size: must be at most", error=ConfigError)
    refused(lambda: tournament_config({"game": "tribes", "agents": ["random", "random:label=b"],
                                       "options": {"foo": 1}}, source="t.yaml"),
            "t.yaml: options.foo: unknown game option")


def test_an_unknown_tribe_or_game_names_the_file_once(capsys, tmp_path):
    """The tribe names are checked with the options (not later, when a level is made, where
    the file is no longer known), and the game's message is not prefixed twice."""
    run = tmp_path / "run.yaml"
    run.write_text("game: tribes\nlevels: {set: 'range:1-4', train: 2}\nagent: {name: pmcts_pu, "
                   "budget: 5}\noptions: {tribes: [xeno, imperius]}\nevaluations: 4\n")
    tour = tmp_path / "tour.yaml"
    tour.write_text("game: tribes\nagents: [random, 'random:label=b']\n"
                    "options: {tribes: [imperius, Imperius]}\n")
    preset = tmp_path / "presets.json"
    preset.write_text(json.dumps({"format": PRESET_FORMAT, "version": PRESET_VERSION,
                                  "game": "tribes", "options": {"tribes": ["xeno", "bardur"]},
                                  "presets": [{"name": "a", "agent": "random", "params": {}}]}))
    for argv, needle in (
            (["evolve", run, "--out", tmp_path / "r", "--quiet"],
             f"{run}: options.tribes: unknown tribe 'xeno'; known: XIN_XI"),
            (["tournament", tour, "--out", tmp_path / "t", "--quiet"],
             f"{tour}: options.tribes: each tribe may appear once"),
            (["ladder", preset, "--out", tmp_path / "l", "--quiet"],
             f"{preset}: options.tribes: unknown tribe 'xeno'"),
            (["play", "--option", "tribes=[xeno, bardur]"], "--option tribes: unknown tribe")):
        assert needle in cli_refuses(capsys, *argv)
    for command, text in (("evolve", "game: othello\n"),
                          ("tournament", "game: Tribes\nagents: [random, 'random:label=b']\n")):
        run.write_text(text)
        line = cli_refuses(capsys, command, run, "--quiet")
        assert f"{run}: game: unknown game" in line and "game: game" not in line, line
    preset.write_text(preset.read_text().replace('"tribes"', '"othello"', 1))
    line = cli_refuses(capsys, "ladder", preset, "--quiet")
    assert f"{preset}: game: unknown game 'othello'" in line and "game: game" not in line


def test_a_preset_with_a_bad_option_is_one_error(capsys, tmp_path):
    path = tmp_path / "presets.json"
    path.write_text(json.dumps({"format": PRESET_FORMAT, "version": PRESET_VERSION,
                                "game": "tribes", "options": {"size": 10 ** 6},
                                "presets": [{"name": "a", "agent": "random", "params": {}}]}))
    assert f"{path}: options.size: must be at most" in cli_refuses(capsys, "ladder", path)
    line = cli_refuses(capsys, "tournament", "--agents", "random", f"preset:{path}#a")
    assert f"{path}: options.size" in line


def test_a_record_with_a_bad_option_is_one_error(capsys, tmp_path):
    record = tmp_path / "game.json"
    base = {"format": RECORD_FORMAT, "game": "tribes", "level": "", "seed": 0,
            "players": ["random", "random"], "actions": []}
    for options, needle in (({"foo": 1}, "options.foo: unknown game option"),
                            ({"size": 10 ** 6}, "options.size: must be at most")):
        record.write_text(json.dumps({**base, "options": options}))
        assert f"{record}: {needle}" in cli_refuses(capsys, "replay", record)
    record.write_text(json.dumps({**base, "options": {}, "seed": 2 ** 70}))
    assert f"{record}: seed: must be at most {L.MAX_SEED}" in cli_refuses(capsys, "replay", record)


# ------------------------------------------------------------------------------ --address

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_that_does_not_answer_fails_within_the_timeout(capsys, tmp_path):
    address = f"127.0.0.1:{_closed_port()}"
    refused(lambda: check_address(address, timeout=2.0), f"at {address}",
            error=ConnectionError)
    line = cli_refuses(capsys, "tournament", "--agents", "random", "random:label=b",
                       "--address", address, "--reps", "1", "--out", tmp_path / "t", "--quiet")
    assert f"could not join the Ray cluster at {address}" in line
    assert not (tmp_path / "t").exists()  # nothing is left behind
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: nim\nlevels: {set: 'range:0-3', train: 2}\nagent: {name: pmcts_pu, "
                   "budget: 5}\nopponent: random\nfeatures: [stones_per_move, moves]\n"
                   "evaluations: 4\nseed: 1\n")
    line = cli_refuses(capsys, "evolve", cfg, "--address", address, "--out", tmp_path / "r",
                       "--quiet")
    assert f"at {address}" in line
    assert not (tmp_path / "r").exists()  # so the next run does not find an occupied folder
    refused(lambda: check_address("host:port"), "port 'port' is not a number",
            error=ConnectionError)
    check_address("auto")  # Ray finds the cluster itself: nothing to probe
