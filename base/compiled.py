"""The optional compiled modules: which are in use, and running without them.

`pip install -e .` compiles the modules named in `setup.py` (the Tribes engine, its scripts
and the search agents' inner loops) from their own Python source with Cython, when a C
compiler is there; the extension files sit beside the `.py` files and Python imports them
first. Nothing else changes: the same source, the same random numbers, the same games
(`tests/test_compiled.py` plays the fixed-seed game records both ways). Without a compiler
the build skips them and the `.py` files run.

`PLAYSTYLES_PURE_PYTHON=1` in the environment runs the `.py` files even where the compiled
modules exist (for profiling with cProfile, which does not see inside compiled functions,
and for comparing the two); it takes effect for modules not imported yet, so set it before
the process starts. At install time it skips the build.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

PURE_PYTHON = "PLAYSTYLES_PURE_PYTHON"
"""The environment variable that asks for the `.py` files."""

PACKAGES = ("games", "agents")
"""The top-level packages that may hold compiled modules."""


def pure_python_requested() -> bool:
    """Whether `PLAYSTYLES_PURE_PYTHON=1` asks for the `.py` files."""
    return os.environ.get(PURE_PYTHON, "") == "1"


class _SourceFirst:
    """A meta-path finder that loads a project module from its `.py` file when one is there,
    ahead of a compiled extension of the same name."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in PACKAGES or path is None:
            return None
        leaf = name.rpartition(".")[2]
        for entry in path:
            source = Path(entry) / f"{leaf}.py"
            if source.is_file():
                loader = importlib.machinery.SourceFileLoader(name, str(source))
                return importlib.util.spec_from_file_location(name, source, loader=loader)
        return None


def honour_pure_python() -> None:
    """Put the source-first finder in front of the import system when the environment asks
    for pure Python. Importing this module does it; `games` and `agents` import it before
    any module of theirs."""
    if pure_python_requested() and not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def compiled_in_use() -> list[str]:
    """The project modules imported so far that run from a compiled extension, sorted."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(name for name, module in list(sys.modules.items())
                  if name.partition(".")[0] in PACKAGES
                  and str(getattr(module, "__file__", "") or "").endswith(suffixes))


def compiled_available(root: Path | None = None) -> list[str]:
    """The project modules that have a compiled extension beside their source (whether or
    not they are in use), sorted; `root` defaults to the installed project."""
    root = Path(__file__).resolve().parents[1] if root is None else root
    found = set()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for package in PACKAGES:
            for ext in (root / package).rglob(f"*{suffix}"):
                source = ext.with_name(ext.name[: -len(suffix)] + ".py")
                if source.is_file():
                    found.add(".".join(source.relative_to(root).with_suffix("").parts))
    return sorted(found)


def summary() -> str:
    """One line for `playstyles --version`: whether games run compiled."""
    available = compiled_available()
    if not available:
        return "no compiled modules: the engine and search run as Python"
    if pure_python_requested():
        return f"{len(available)} compiled modules, not used ({PURE_PYTHON}=1)"
    return f"{len(available)} compiled modules"


honour_pure_python()
