"""The optional compiled modules (`base/compiled.py`, `setup.py`): where they are built they
are the ones in use, and the Python source they are compiled from plays the same games."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from base.compiled import PURE_PYTHON, compiled_available, compiled_in_use, compiled_stale
from tests.games.tribes.game_records import RECORDS

ROOT = Path(__file__).resolve().parents[1]


def _load_setup():
    """`setup.py` as a module (it calls setuptools' `setup` only when run as a script)."""
    spec = importlib.util.spec_from_file_location("playstyles_setup", ROOT / "setup.py")
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    return setup


def _setup_modules() -> list[str]:
    """`COMPILED` as `setup.py` lists it."""
    return list(_load_setup().COMPILED)


def _play_records(pure: bool) -> dict:
    """The fixed-seed game records, played in a new process with or without the compiled
    modules, and the compiled modules that process used."""
    code = ("import json\n"
            "from tests.games.tribes.game_records import record_all\n"
            "from base.compiled import compiled_in_use\n"
            "records = record_all()\n"
            "print(json.dumps({'records': records, 'compiled': compiled_in_use()}))\n")
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON}
    if pure:
        env[PURE_PYTHON] = "1"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_every_module_setup_compiles_has_its_source():
    modules = _setup_modules()
    assert modules, "setup.py compiles nothing"
    for name in modules:
        assert (ROOT / (name.replace(".", "/") + ".py")).is_file(), name
    # declarations beside a module that is not compiled would never be built (and would keep
    # every build from being used, `compiled_stale`)
    declared = {".".join(p.relative_to(ROOT).with_suffix("").parts)
                for package in ("games", "agents") for p in (ROOT / package).rglob("*.pxd")}
    assert declared and declared <= set(modules), sorted(declared - set(modules))


def test_built_modules_are_all_built_and_in_use():
    available = compiled_available(ROOT)
    if not available:
        pytest.skip("no compiled modules built here (no C compiler, or PLAYSTYLES_PURE_PYTHON=1 "
                    "at install): everything runs as Python")
    if os.environ.get(PURE_PYTHON) == "1":
        pytest.skip("PLAYSTYLES_PURE_PYTHON=1: the Python source runs")
    assert available == sorted(_setup_modules()), "a partial build: some modules failed to compile"
    stale = compiled_stale(ROOT)
    assert not stale, f"{stale} changed after the build and run as Python: pip install -e . again"
    for name in available:
        importlib.import_module(name)
    assert set(available) <= set(compiled_in_use())


@pytest.mark.slow
def test_pure_python_plays_the_recorded_games_and_uses_no_compiled_module():
    got = _play_records(pure=True)
    assert got["compiled"] == []
    assert got["records"] == json.loads(RECORDS.read_text())


def test_every_compiled_module_is_optional_so_a_failed_build_leaves_python(monkeypatch):
    """A module that does not compile (no C compiler) must not fail the install. Cythonize
    returns new extensions without `optional` (the stub below does as it does), so setup.py
    has to set it on what cythonize returns."""
    import types

    from setuptools import Extension

    def cythonize(modules, **kwargs):
        return [Extension(m.name, [s.replace(".py", ".c") for s in m.sources]) for m in modules]

    monkeypatch.setitem(sys.modules, "Cython", types.ModuleType("Cython"))
    monkeypatch.setitem(sys.modules, "Cython.Build", types.SimpleNamespace(cythonize=cythonize))
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    setup = _load_setup()
    built = setup.extensions()
    assert sorted(e.name for e in built) == sorted(_setup_modules() + list(setup.HELPERS))
    assert all(e.optional for e in built)
    monkeypatch.setenv(PURE_PYTHON, "1")
    assert setup.extensions() == []


def _fake_build(tmp_path: Path, package: str, *names: str) -> list[tuple[Path, Path]]:
    """A package with modules and a (fake) compiled extension beside each."""
    pkg = tmp_path / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    out = []
    for name in names:
        source = pkg / f"{name}.py"
        source.write_text("WHERE = 'source'\n")
        ext = pkg / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"
        ext.write_bytes(b"not a real extension")
        out.append((source, ext))
    return out


def _age(path: Path, seconds: float) -> None:
    t = path.stat().st_mtime - seconds
    os.utime(path, (t, t))


def _spec(name: str, path: list[str]):
    """What a new finder (a new process) does with the import of `name`."""
    from base.compiled import ModuleFinder
    return ModuleFinder(packages=("games",)).find_spec(name, path)


def test_the_finder_takes_the_source_only_when_asked_or_when_the_build_is_stale(tmp_path, monkeypatch):
    import warnings

    [(source, ext)] = _fake_build(tmp_path, "games", "mod")
    path = [str(source.parent)]
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    _age(source, 60)  # built after the last edit: Python's own import takes the extension
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _spec("games.mod", path) is None
    assert compiled_available(tmp_path) == ["games.mod"] and compiled_stale(tmp_path) == []
    monkeypatch.setenv(PURE_PYTHON, "1")  # asked for: the source, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _spec("games.mod", path).origin == str(source)
    monkeypatch.delenv(PURE_PYTHON)
    _age(ext, 62)  # two seconds apart (a copy unpacked in no set order): still the extension
    assert _spec("games.mod", path) is None and compiled_stale(tmp_path) == []
    _age(ext, 60)  # edited after the build: the source, with a warning saying what to do
    with pytest.warns(RuntimeWarning, match="pip install -e . compiles them again"):
        assert _spec("games.mod", path).origin == str(source)
    assert compiled_stale(tmp_path) == ["games.mod"]
    ext.unlink()  # nothing compiled: left to Python
    assert _spec("games.mod", path) is None
    assert _spec("other.mod", path) is None


def test_the_compiled_modules_run_together_or_not_at_all(tmp_path, monkeypatch):
    """They read each other's typed objects (`.pxd`): one stale module, stale declarations
    or a declared module left unbuilt sends every module to its source."""
    (a, a_ext), (b, b_ext) = _fake_build(tmp_path, "games", "a", "b")
    for f, age in ((a, 120), (b, 120), (a_ext, 60), (b_ext, 60)):  # built after the edits
        _age(f, age)
    path = [str(a.parent)]
    monkeypatch.delenv(PURE_PYTHON, raising=False)
    assert _spec("games.a", path) is None and _spec("games.b", path) is None
    decl = b.with_suffix(".pxd")
    decl.write_text("cdef class B:\n    pass\n")  # declarations changed after the build
    assert compiled_stale(tmp_path) == ["games.b"]
    with pytest.warns(RuntimeWarning, match="games.b: changed after the build"):
        assert _spec("games.a", path).origin == str(a)
    _age(decl, 120)
    assert compiled_stale(tmp_path) == [] and _spec("games.a", path) is None
    b_ext.unlink()  # declared but not built (its build failed): nothing compiled is used
    assert compiled_available(tmp_path) == ["games.a"] and compiled_stale(tmp_path) == ["games.b"]
    with pytest.warns(RuntimeWarning, match="or not built"):
        assert _spec("games.a", path).origin == str(a)
    a_ext.unlink()  # nothing built anywhere: plain Python, nothing to say
    assert compiled_stale(tmp_path) == [] and _spec("games.a", path) is None
