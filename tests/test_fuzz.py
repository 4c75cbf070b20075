"""Fuzzing every file kind the tool reads, and every command-line count.

Each file kind starts from a valid file that the tool wrote (or that its docs show), damaged
by hypothesis (cut, bytes flipped, text or numbers put in, lines dropped or doubled). Reading
it must end in the file's result or in one `ValueError` (the CLI's "playstyles: error: ...",
exit 2): no other exception (a traceback), no hang (each example is stopped after
`HANG_SECONDS`; a reader's peak allocation is bounded by `MEGABYTES`), and nothing written
outside the command's own folder. Examples are drawn deterministically (`derandomize`), so a
failure reproduces.
"""

from __future__ import annotations

import os
import shutil
import signal
import tracemalloc
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playstyles.cli import build_parser, main

HANG_SECONDS = 20
MEGABYTES = 500
EXAMPLES = int(os.environ.get("PLAYSTYLES_FUZZ_EXAMPLES", "25"))
"""Examples per file kind (set PLAYSTYLES_FUZZ_EXAMPLES for a longer search)."""

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])


class Hang(Exception):
    pass


@contextmanager
def bounded():
    """Fail an example that runs longer than HANG_SECONDS."""
    def stop(*_):
        raise Hang(f"no answer within {HANG_SECONDS} s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


NUMBERS = [b"0", b"-1", b"1e20", b"nan", b"-inf", b"99999999999999999999", b"1.5", b"[]",
           b"{}", b"null", b"true", b"\"x\"", b"\xff\xfe", b"&a", b"*a", b"!!python/object:os.system"]


@st.composite
def damaged(draw, data: bytes) -> bytes:
    """`data` with one to three damages."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["cut", "flip", "insert", "number", "drop", "double"]))
        n = len(data)
        at = draw(st.integers(0, max(0, n - 1)))
        if kind == "cut":
            data = data[:at]
        elif kind == "flip" and n:
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
        elif kind == "insert":
            data = data[:at] + draw(st.binary(max_size=8) | st.sampled_from(NUMBERS)) + data[at:]
        elif kind == "number":
            digits = [i for i, c in enumerate(data) if 48 <= c <= 57]
            if digits:
                i = draw(st.sampled_from(digits))
                data = data[:i] + draw(st.sampled_from(NUMBERS)) + data[i + 1:]
        else:
            lines = data.splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines[k:k + 1] = [] if kind == "drop" else [lines[k]] * 2
                data = b"".join(lines)
    return data


def snapshot(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*")
            if p.is_file()}


def written_outside(before: dict[str, int], after: dict[str, int], allowed: tuple[str, ...]
                    ) -> list[str]:
    return sorted(k for k in after if before.get(k) != after[k]
                  and not k.startswith(allowed))


def read_or_refuse(fn, path: Path, *args, **kw) -> tuple[Any, str | None]:
    """(fn(path, ...)'s result, None), or (None, its message) when it refused the file with
    a ValueError; either way within HANG_SECONDS and MEGABYTES of memory allocated at the
    peak (any other exception fails the test)."""
    tracemalloc.start()
    try:
        with bounded():
            try:
                return fn(path, *args, **kw), None
            except ValueError as e:
                return None, str(e)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MEGABYTES * 2**20, f"{peak / 2**20:.0f} MB allocated reading {path.name}"


def damage_and_read(data, good: bytes, path: Path, reader) -> tuple[Any, str | None]:
    """Write `good` damaged to `path` and read it with `reader` (`read_or_refuse`)."""
    path.write_bytes(data.draw(damaged(good)))
    return read_or_refuse(reader, path)


def cli(argv: list[str], capsys) -> int:
    with bounded():
        code = main(argv)
    err = capsys.readouterr().err
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    return code


# ------------------------------------------------------------------------------ fixtures

NIM_RUN = {"name": "fz", "game": "nim", "levels": {"set": "range:0-5", "train": 2},
           "agent": {"name": "pmcts_pu", "budget": 5}, "opponent": "random",
           "features": ["stones_per_move", "moves"],
           "emitter": {"batch_size": 2, "initial_random": 2}, "evaluations": 6, "seed": 3}


@pytest.fixture(scope="module")
def nim_run(tmp_path_factory):
    from qd.run import evolve
    base = tmp_path_factory.mktemp("fuzz")
    cfg = base / "c.yaml"
    cfg.write_text(yaml.safe_dump(NIM_RUN))
    evolve(cfg, out=base / "run", workers=0)
    assert main(["validate", str(base / "run"), "--workers", "0", "--quiet"]) == 0
    assert main(["export", str(base / "run"), "--count", "2", "-o",
                 str(base / "presets.json")]) == 0
    assert main(["play", "--game", "nim", "--p1", "random", "--p2", "random", "--record",
                 str(base / "game.json")]) == 0
    assert main(["probe", str(cfg), "--games", "2", "--workers", "0", "--quiet", "--out",
                 str(base / "probe")]) == 0
    return base


# ------------------------------------------------------------------------------ files

@FUZZ
@given(data=st.data())
def test_run_configs(tmp_path, data, nim_run):
    from qd.config import load_config
    result, error = damage_and_read(data, (nim_run / "run" / "config.yaml").read_bytes(),
                                    tmp_path / "c.yaml", load_config)
    assert (result is None) != (error is None)  # read, or refused
    assert error is None or (tmp_path / "c.yaml").name in error, error  # naming it


def load_config_text(data, path, load):
    """The undamaged file reads (so the damaged ones reach the value checks)."""
    path.write_text(yaml.safe_dump(data))
    return load(path)


@FUZZ
@given(data=st.data())
def test_tournament_configs(tmp_path, data):
    from play.tournament import load_config
    good = {"game": "nim", "agents": ["random", "mcts:budget=5"], "levels": "range:0-2",
            "repetitions": 2, "budget": 5, "seed": 1}
    assert load_config_text(good, tmp_path / "good.yaml", load_config) is not None
    text = yaml.safe_dump(good).encode()
    result, error = damage_and_read(data, text, tmp_path / "t.yaml", load_config)
    assert (result is None) != (error is None)  # read, or refused
    assert error is None or (tmp_path / "t.yaml").name in error, error  # naming it


@FUZZ
@given(data=st.data())
def test_train_evaluator_configs(tmp_path, data):
    from play.train_evaluator import load_train_config
    good = (Path(__file__).resolve().parents[1] / "experiments" / "learned_evaluator.yaml")
    result, error = damage_and_read(data, good.read_bytes(), tmp_path / "t.yaml",
                                    load_train_config)
    assert (result is None) != (error is None)  # read, or refused
    assert error is None or (tmp_path / "t.yaml").name in error, error  # naming it


@pytest.mark.parametrize("name", ["probe.json", "probe.csv"])
def test_probe_files(tmp_path, nim_run, name):
    """evolve --probe reads a probe's settings and table."""
    from qd.probe import probe_warnings
    config = nim_run / "c.yaml"
    d = tmp_path / "probe"

    @FUZZ
    @given(data=st.data())
    def one(data):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(nim_run / "probe", d)
        result, error = damage_and_read(data, (nim_run / "probe" / name).read_bytes(),
                                        d / name, lambda path: probe_warnings(config, d))
        assert (result is None) != (error is None)  # read, or refused
        assert error is None or (d / name).name in error, error  # naming it
    one()


@FUZZ
@given(data=st.data())
def test_preset_files(tmp_path, data, nim_run):
    from play.presets import load_presets
    result, error = damage_and_read(data, (nim_run / "presets.json").read_bytes(),
                                    tmp_path / "p.json", load_presets)
    assert (result is None) != (error is None)  # read, or refused
    assert error is None or (tmp_path / "p.json").name in error, error  # naming it


@FUZZ
@given(data=st.data())
def test_game_records(tmp_path, data, nim_run, capsys):
    path = tmp_path / "g.json"
    path.write_bytes(data.draw(damaged((nim_run / "game.json").read_bytes())))
    before = snapshot(tmp_path)
    cli(["replay", str(path), "--ascii"], capsys)
    assert written_outside(before, snapshot(tmp_path), ()) == []


@pytest.fixture(scope="module")
def level_csv(tmp_path_factory):
    """A Tribes level file, as `playstyles levels show --csv` writes one."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["levels", "show", "--seed", "3", "--csv"]) == 0
    return out.getvalue().encode()


def _level_file(game: str, level_csv: bytes) -> tuple[bytes, object]:
    """A valid level file of the game and the game's reader."""
    import json

    from games.navy import level as navy
    from games.tribes.level import load_level
    from games.tribolo import level as tribolo
    if game == "tribes":
        return level_csv, load_level
    if game == "navy":
        return json.dumps(navy.generate_level(3).to_dict()).encode(), navy.load_level
    start = tribolo.generate_level(3)
    return ("first: red\n" + "\n".join(start.rows) + "\n").encode(), tribolo.load_level


@pytest.mark.parametrize("game", ["tribes", "navy", "tribolo"])
def test_level_files(tmp_path, level_csv, game):
    good, reader = _level_file(game, level_csv)
    assert reader(_written(tmp_path / "good", good)) is not None  # the base file is valid

    @FUZZ
    @given(data=st.data())
    def one(data):
        result, error = damage_and_read(data, good, tmp_path / "level", reader)
        assert (result is None) != (error is None)  # read, or refused
        assert error is None or (tmp_path / "level").name in error, error  # naming it
    one()


def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@FUZZ
@given(data=st.data())
def test_models(tmp_path, data):
    from agents.learned import load_model, model_path
    result, error = damage_and_read(data, Path(model_path("tribes", None)).read_bytes(),
                                    tmp_path / "m.npz", load_model)
    assert (result is None) != (error is None)  # read, or refused
    assert error is None or (tmp_path / "m.npz").name in error, error  # naming it


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
HOSTILE = st.sampled_from(["[" * 100_000 + "]" * 100_000, "9" * 100_000, '"' + "x" * 2**20 + '"',
                           "{" * 70 + "}" * 70, "", "NaN", "[1, 2", "\ud800"])


def test_model_metadata(tmp_path):
    """A model whose metadata text is damaged, replaced, or has one field (a nested one too)
    set to any JSON value: the model, or one error naming the file (`read_or_refuse`)."""
    import itertools
    import json

    import numpy as np

    from agents.learned import load_model, model_path
    with np.load(model_path("tribes", None)) as npz:
        arrays = {k: npz[k] for k in npz.files}
    good = str(arrays["metadata"])
    names = itertools.count()

    @FUZZ
    @given(data=st.data())
    def one(data):
        how = data.draw(st.sampled_from(["damage", "replace", "field"]))
        if how == "damage":
            text = data.draw(damaged(good.encode())).decode("utf-8", "replace")
        elif how == "replace":
            text = data.draw(HOSTILE)
        else:
            meta = json.loads(good)
            where = data.draw(st.sampled_from([(k,) for k in meta] + [
                ("encoding", k) for k in meta["encoding"]] + [("layers", 1)]))
            target = meta
            for key in where[:-1]:
                target = target[key]
            target[where[-1]] = data.draw(JSON)
            text = json.dumps(meta)
        path = tmp_path / f"m{next(names)}.npz"  # a new name: no cached model is reused
        np.savez(path, **{**arrays, "metadata": np.array(text)})
        result, error = read_or_refuse(load_model, path, "tribes")
        assert (result is None) != (error is None)  # read, or refused
        assert error is None or (path.name in error and "\n" not in error
                                 and len(error) < 400), error
        path.unlink()
    one()


@pytest.mark.parametrize("name", ["elites.csv", "individuals.csv", "metrics.csv",
                                  "validation.csv", "validation_summary.json", "config.yaml"])
def test_run_directory_files(tmp_path, nim_run, name, capsys):
    """export and report read a run directory whose file was damaged: a result or one error,
    and nothing written outside the run directory and the preset file's folder."""
    @FUZZ
    @given(data=st.data())
    def one(data):
        d = tmp_path / "run"
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(nim_run / "run", d)
        (d / name).write_bytes(data.draw(damaged((nim_run / "run" / name).read_bytes())))
        out = tmp_path / "out"
        shutil.rmtree(out, ignore_errors=True)
        before = snapshot(tmp_path)
        cli(["export", str(d), "--count", "2", "-o", str(out / "p.json")], capsys)
        if name in REPORTED:
            cli(["report", str(d)], capsys)
        assert written_outside(before, snapshot(tmp_path), ("run", "out")) == []
    one()


REPORTED = ("elites.csv", "validation.csv", "validation_summary.json")
"""The damaged files `report` is also run on (it draws every one of them)."""


def test_checkpoints_and_journals(tmp_path, nim_run, capsys):
    """evolve --resume on a damaged checkpoint, validate --resume on a damaged journal."""
    from play.journal import GameJournal
    from play.runner import AgentSpec, GameSpec, run_game

    @FUZZ
    @given(data=st.data())
    def checkpoint(data):
        d = tmp_path / "run"
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(nim_run / "run", d)
        text = (nim_run / "run" / "checkpoint.jsonl").read_bytes()
        (d / "checkpoint.jsonl").write_bytes(data.draw(damaged(text)))
        before = snapshot(tmp_path)
        cli(["evolve", str(d / "config.yaml"), "--resume", "--workers", "0", "--quiet"], capsys)
        assert written_outside(before, snapshot(tmp_path), ("run",)) == []
    checkpoint()

    a = AgentSpec.of("random")
    specs = [GameSpec("nim", i, i, (a, a), (i, i + 1)) for i in range(3)]
    path = tmp_path / "games.journal"
    j = GameJournal(path, specs, "tournament")
    for i in range(3):
        j.add(i, run_game(specs[i]))
    j.log.close()
    good = path.read_bytes()

    @FUZZ
    @given(data=st.data())
    def journal(data):
        path.write_bytes(data.draw(damaged(good)))
        got, error = read_or_refuse(GameJournal, path, specs, "tournament", resume=True)
        assert error is None or path.name in error, error
        if got is not None:
            got.log.close()
            for i, rec in got.done.items():
                assert rec.spec == specs[i]
    journal()


# ------------------------------------------------------------------------------ markers

GOOD_MARKER = b'{"command": "ladder", "format": 1}\n'


@st.composite
def markers(draw) -> bytes:
    """A marker damaged, nested deep, or padded large."""
    kind = draw(st.sampled_from(["damaged", "nested", "large"]))
    if kind == "damaged":
        return draw(damaged(GOOD_MARKER))
    if kind == "nested":
        k = draw(st.integers(1, 300_000))
        return b"[" * k + b"]" * k
    pad = draw(st.integers(0, 10_000_000))
    return GOOD_MARKER[:-2] + b', "pad": "' + b"x" * pad + b'"}\n'


def test_markers(tmp_path, nim_run):
    """A marker of any content claims no run directory for a ladder (one error naming the
    folder), and in an empty folder is read or refused in one line naming it; either way
    nothing but the marker itself is written."""
    from base.files import MARKER, claim_folder
    from play.ladder import FILES, is_ladder_dir

    run = tmp_path / "run"
    shutil.copytree(nim_run / "run", run)
    empty = tmp_path / "empty"
    empty.mkdir()

    def claim(folder: Path) -> Path:
        return claim_folder(folder, command="ladder", force=True, ours=is_ladder_dir,
                            writes=FILES)

    @FUZZ
    @given(data=st.data())
    def one(data):
        text = data.draw(markers())
        for folder in (run, empty):
            (folder / MARKER).write_bytes(text)
            before = snapshot(tmp_path)
            result, error = read_or_refuse(claim, folder)
            assert error is None or (str(folder) in error and "\n" not in error), error
            if folder == run:
                assert error is not None, "a run directory was claimed"
            elif error is not None:
                assert str(folder / MARKER) in error, error
            assert written_outside(before, snapshot(tmp_path), (f"empty/{MARKER}",)) == []
        assert sorted(p.name for p in empty.iterdir()) == [MARKER]
    one()


# ------------------------------------------------------------------------------ names

CONTROL = st.characters(categories=["Cc", "Cf", "Zl", "Zp"])
NAMES = (st.text(max_size=30)
         | st.tuples(st.text(max_size=10), CONTROL, st.text(max_size=10)).map("".join)
         | st.integers(150, 260).map(lambda n: "n" * n)
         | st.integers(50, 120).map(lambda n: "\u00e9" * n)
         | st.integers(0, 6_000_000).map(lambda n: "m" * n))
"""Names: any text, text with a control character, and names near and far past the
bound (in ASCII and in two-byte characters)."""


def _valid_name(name: str) -> bool:
    import unicodedata

    from base.limits import MAX_NAME
    return bool(name.strip()) and len(name.encode("utf-8", "surrogatepass")) <= MAX_NAME \
        and not any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in name)


def _named(call, name: str, field: str, source: str = "") -> None:
    """`call()` accepts a valid name and refuses any other in one line naming `field` (and
    the file `source`, which the message quotes as given)."""
    result, error = read_or_refuse(lambda _: call(), Path("."))
    if error is None:
        assert _valid_name(name), f"{field}: {name[:80]!r} accepted"
    else:
        assert field in error and source in error, error
        assert "\n" not in error.replace(source, ""), error


@FUZZ
@given(name=NAMES)
def test_names(tmp_path, nim_run, name):
    """Run names, agent labels, tournament labels and preset names: bounded printable text,
    or one error naming the field."""
    import json

    from play.presets import load_presets
    from play.tournament import parse_agent
    from qd.config import config_from_dict

    _named(lambda: config_from_dict({**NIM_RUN, "name": name}), name, "name")
    if name:  # (an empty label is no label: the agent's name is)
        agent = {**NIM_RUN["agent"], "label": name}
        _named(lambda: config_from_dict({**NIM_RUN, "agent": agent}), name, "agent.label")
        _named(lambda: parse_agent({"name": "random", "label": name}, "agents[0]", "nim"),
               name, "agents[0].label")
    data = json.loads((nim_run / "presets.json").read_text())
    data["presets"][0]["name"] = name
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    _named(lambda: load_presets(path), name, "presets[0].name")


@FUZZ
@given(stem=st.text(st.characters(exclude_characters="/\x00"), min_size=1, max_size=60)
       | st.tuples(st.text(max_size=5), CONTROL).map("".join))
def test_config_file_names(tmp_path, stem):
    """A config without a name takes its file's: bounded printable text, or one error naming
    the name; no folder is made either way."""
    from qd.config import load_config

    path = tmp_path / f"{stem}.yaml"
    try:
        path.write_text(yaml.safe_dump({k: v for k, v in NIM_RUN.items() if k != "name"}))
    except (OSError, UnicodeEncodeError):  # a name the file system refuses
        return
    try:
        _named(lambda: load_config(path), stem, "name", str(path))
    finally:
        path.unlink()
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------ counts

COUNTS = [("tournament", "--reps"), ("tournament", "--budget"), ("tournament", "--rounds"),
          ("tournament", "--seed"), ("validate", "--games"), ("export", "--count"),
          ("export", "--games"), ("export", "--candidates"), ("ladder", "--games"),
          ("ladder", "--rounds"), ("play", "--rounds"), ("play", "--seed"),
          ("probe", "--games"), ("evolve", "--workers")]


def _argv(command: str, flag: str, value: str) -> list[str]:
    first = {"tournament": [], "validate": ["run"], "export": ["run"], "ladder": ["p.json"],
             "play": [], "probe": ["c.yaml"], "evolve": ["c.yaml"]}[command]
    return [command, *first, flag, value]


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(COUNTS),
       value=st.integers(-10**30, 10**30).map(str) | st.floats(allow_nan=True).map(repr)
       | st.sampled_from(["1e9", "1e20", "", "x", "0x10", "1_000", " 3", "inf", "-0"]))
def test_command_line_counts(case, value, capsys):
    """Every count on the command line parses to a bounded integer or is one usage error."""
    command, flag = case
    with bounded():
        try:
            args = build_parser().parse_args(_argv(command, flag, value))
        except SystemExit as e:
            assert e.code == 2
            err = capsys.readouterr().err
            assert flag in err or "argument" in err
            return
    got = getattr(args, flag.lstrip("-").replace("-", "_"))
    assert isinstance(got, int) and not isinstance(got, bool)
    assert abs(got) < 2**63
    if flag not in ("--seed",):
        assert 0 <= got <= 10**7, f"{flag} {value} accepted as {got}"


def test_the_fuzz_suite_sees_damage():
    """The damage strategy changes its input in many ways (a fuzz suite that never damaged
    its input would pass for nothing)."""
    good = b"a: 1\nb: 2\nc: [3, 4]\n"
    seen = set()

    @settings(max_examples=40, derandomize=True, database=None)
    @given(data=st.data())
    def collect(data):
        seen.add(data.draw(damaged(good)))
    collect()
    assert len(seen - {good}) > 10
