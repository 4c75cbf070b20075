"""The optional compiled modules: which are in use, when the source runs instead, and running
without them.

`pip install -e .` compiles the modules named in `setup.py` (the Tribes engine, its scripts
and the search agents' inner loops) from their own Python source with Cython, when a C
compiler is there; the extension files sit beside the `.py` files. Nothing else changes: the
same source, the same random numbers, the same games (`tests/test_compiled.py` plays the
fixed-seed game records both ways). Without a compiler the build skips them and the `.py`
files run.

Which file a module is imported from (`ModuleFinder`, put in front of the import system by
importing this module, which `games` and `agents` do first):

- the compiled extension, where there is one and the build is up to date;
- the `.py` file of every module where any extension is older than its `.py` file or its
  `.pxd` declarations (the source was edited or updated after the build: running the old
  build would run old code), or where a module that others compile against (one with a
  `.pxd` file) has no extension: the compiled modules read each other's typed objects, so
  they run together or not at all. A warning says that `pip install -e .` compiles them
  again;
- the `.py` file always when `PLAYSTYLES_PURE_PYTHON=1` is in the environment (for profiling
  with cProfile, which does not see inside compiled functions, and for comparing the two). It
  takes effect for modules not imported yet, so set it before the process starts. At install
  time it skips the build.

The `.pxd` files beside some modules declare types for the compiler only (the state, its
pieces and the tree nodes as extension types; the local variables of the hot loops): the
`.py` files stay plain Python and run unchanged without them.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path

PURE_PYTHON = "PLAYSTYLES_PURE_PYTHON"
"""The environment variable that asks for the `.py` files."""

PACKAGES = ("games", "agents")
"""The top-level packages that may hold compiled modules."""


def pure_python_requested() -> bool:
    """Whether `PLAYSTYLES_PURE_PYTHON=1` asks for the `.py` files."""
    return os.environ.get(PURE_PYTHON, "") == "1"


def extension_of(source: Path) -> Path | None:
    """The compiled extension beside a `.py` file that this Python can load, or None."""
    stem = source.with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        ext = stem.with_name(stem.name + suffix)
        if ext.is_file():
            return ext
    return None


STALE_AFTER_S = 10.0
"""How much newer than its extension a `.py` file must be to count as changed since the build:
unpacking a copy (a wheel, the package a Ray job ships) gives every file the time it was
written, a few seconds apart at most, in no set order."""


def is_stale(source: Path, ext: Path) -> bool:
    """Whether the `.py` file, or the `.pxd` file beside it, was changed after its extension
    was built."""
    changed = source.stat().st_mtime
    decl = source.with_suffix(".pxd")
    if decl.is_file():
        changed = max(changed, decl.stat().st_mtime)
    return changed - ext.stat().st_mtime > STALE_AFTER_S


class ModuleFinder:
    """A meta-path finder for the project's modules that have a compiled extension: it loads
    the `.py` file instead when pure Python is asked for or the build is not up to date
    (`compiled_stale`), and otherwise leaves the import to Python (which takes the extension
    first). What it finds of a build is kept for the finder's life (the process's).

    Args:
        packages: the top-level packages it looks after.
    """

    def __init__(self, packages: tuple[str, ...] = PACKAGES) -> None:
        self.packages = packages
        self._stale: dict[Path, list[str]] = {}
        self._warned = False

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in self.packages or path is None:
            return None
        leaf = name.rpartition(".")[2]
        for entry in path:
            source = Path(entry) / f"{leaf}.py"
            if not source.is_file():
                continue
            ext = extension_of(source)
            if ext is None:
                return None
            if not pure_python_requested():
                root = Path(entry).parents[name.count(".") - 1]
                stale = self._stale.get(root)
                if stale is None:
                    stale = self._stale[root] = compiled_stale(root, self.packages)
                if not stale:
                    return None
                if not self._warned:
                    self._warned = True
                    shown = ", ".join(stale[:3]) + (", ..." if len(stale) > 3 else "")
                    warnings.warn(f"{shown}: changed after the build (or not built), so every "
                                  f"compiled module runs as Python (the same games, slower); "
                                  f"pip install -e . compiles them again",
                                  RuntimeWarning, stacklevel=2)
            loader = importlib.machinery.SourceFileLoader(name, str(source))
            return importlib.util.spec_from_file_location(name, source, loader=loader)
        return None


def install_finder() -> None:
    """Put `ModuleFinder` in front of the import system (once)."""
    if not any(isinstance(f, ModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ModuleFinder())


def compiled_in_use() -> list[str]:
    """The project modules imported so far that run from a compiled extension, sorted."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(name for name, module in list(sys.modules.items())
                  if name.partition(".")[0] in PACKAGES
                  and str(getattr(module, "__file__", "") or "").endswith(suffixes))


def _built(root: Path | None, packages: tuple[str, ...] = PACKAGES
           ) -> list[tuple[str, Path, Path | None]]:
    """(module name, source, extension) of every project module with an extension or a
    `.pxd` file beside it (extension None: not built)."""
    root = Path(__file__).resolve().parents[1] if root is None else root
    found = {}
    for package in packages:
        for source in sorted((root / package).rglob("*.py")):
            ext = extension_of(source)
            if ext is not None or source.with_suffix(".pxd").is_file():
                found[".".join(source.relative_to(root).with_suffix("").parts)] = (source, ext)
    return [(name, *found[name]) for name in sorted(found)]


def compiled_available(root: Path | None = None) -> list[str]:
    """The project modules that have a compiled extension beside their source (whether or
    not they are in use), sorted; `root` defaults to the installed project."""
    return [name for name, _, ext in _built(root) if ext is not None]


def compiled_stale(root: Path | None = None, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """What keeps a build from being used, sorted: the modules whose source or declarations
    changed after their extension was built, and, where anything is built, the modules with
    declarations (`.pxd`) that have no extension. Empty where nothing is built."""
    return _stale_of(_built(root, packages))


def _stale_of(built: list[tuple[str, Path, Path | None]]) -> list[str]:
    if not any(ext is not None for _, _, ext in built):
        return []
    return [name for name, source, ext in built if ext is None or is_stale(source, ext)]


def summary() -> str:
    """One line for `playstyles --version`: whether games run compiled."""
    scan = _built(None)
    built = [name for name, _, ext in scan if ext is not None]
    if not built:
        return "no compiled modules: the engine and search run as Python"
    if pure_python_requested():
        return f"{len(built)} compiled modules, not used ({PURE_PYTHON}=1)"
    stale = _stale_of(scan)
    if stale:
        return (f"{len(built)} compiled modules, run as Python: {len(stale)} changed after "
                f"the build or not built; pip install -e . compiles them again")
    return f"{len(built)} compiled modules"


install_finder()
