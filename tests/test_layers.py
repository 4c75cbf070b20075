"""The layer contracts: which package may import which, read from the source of every module
(imports inside functions included), and no import circle at module level.

The layers, bottom up (docs/design.md):

    base      the ground floor (base/): bounds, checks, files, data logs, statistics,
              progress callbacks, the code's version
    games     games.api, .registry, .levels, .recording, .conformance: the protocol,
              .sequences: a compiled membership test the engines and agents share, and
              .new_game: the starter package of a new game
    agents    the agents and what only they use
    play      everything that plays whole games: runner, the Ray session, the code shipped
              to the workers, the game pool and the local Ray's watchdog, journals,
              tournaments, ladders, presets, self-play and training
    rundir    qd.rundir and its modules (qd.rundir.names, .read, ...): the run directory's
              schema, readable without any code of the run
    qd        the evolution, the probe, validation and export
    plots     figures and the report, from run directories only
    plugin    games.<game>: one game, registering its parts into the layers it uses
    cli       the entrance, the package playstyles: its command line (playstyles.cli: parses,
              calls the libraries, draws) and its Python entry points (playstyles/__init__.py,
              loaded on first use)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("base", "games", "agents", "play", "qd", "plots", "playstyles")
GAMES_CORE = ("api", "registry", "levels", "recording", "conformance", "sequences", "new_game")

MAY_IMPORT = {
    "base": {"base"},
    "games": {"base", "games"},
    "agents": {"base", "games", "agents"},
    "play": {"base", "games", "agents", "play"},
    "rundir": {"base", "rundir"},
    "qd": {"base", "games", "agents", "play", "rundir", "qd"},
    "plots": {"base", "rundir", "plots"},
    "plugin": {"base", "games", "agents", "play", "rundir", "qd", "plugin"},
    "cli": {"base", "games", "agents", "play", "rundir", "qd", "plots", "plugin", "cli"},
}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "playstyles":
        return "cli"
    if parts[0] == "games":
        return "plugin" if len(parts) > 1 and parts[1] not in GAMES_CORE else "games"
    if module == "qd.rundir" or module.startswith("qd.rundir."):
        return "rundir"
    return parts[0]


def module_of(path: Path) -> str:
    name = ".".join(path.relative_to(REPO).with_suffix("").parts)
    return name.removesuffix(".__init__")


def resolve(name: str) -> str | None:
    """The project module an imported name lives in (None: not the project's)."""
    parts = name.split(".")
    while parts:
        here = REPO.joinpath(*parts)
        if (here.with_suffix(".py").exists() or here.with_suffix(".pyx").exists()
                or (here / "__init__.py").exists()):  # (.pyx: a compiled helper, agents._draw)
            return ".".join(parts)
        parts.pop()
    return None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside `if TYPE_CHECKING:` blocks."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def imports(path: Path, top_level_only: bool = False, typing: bool = True
            ) -> list[tuple[str, int]]:
    """(project module, line) of every import of a source file (without `typing`, not the
    imports only a type checker reads)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    if not typing:
        skip = _type_checking_nodes(tree)
        nodes = [n for n in nodes if id(n) not in skip]
    out = []
    for node in nodes:
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            if n.split(".")[0] in PACKAGES:
                target = resolve(n)
                if target:
                    out.append((target, node.lineno))
    return out


def sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))


def test_the_layers_form_no_circle():
    """The contract itself is acyclic: no two layers may import each other."""
    for a, allowed in MAY_IMPORT.items():
        for b in allowed - {a}:
            assert a not in MAY_IMPORT[b], f"{a} and {b} may import each other"


def test_every_import_keeps_the_layer_contracts():
    offenders = []
    for path in sources():
        src = module_of(path)
        for target, line in imports(path):
            if layer(target) not in MAY_IMPORT[layer(src)]:
                offenders.append(f"{path.relative_to(REPO)}:{line}: {layer(src)} {src} imports "
                                 f"{layer(target)} {target}")
    assert not offenders, "\n".join(offenders)


def test_the_run_directory_package_is_one_layer():
    """Every module of qd.rundir is the layer `rundir` (the package's own modules import each
    other; the rest of qd is above them)."""
    modules = sorted(module_of(p) for p in (REPO / "qd" / "rundir").glob("*.py"))
    assert "qd.rundir" in modules and "qd.rundir.read" in modules
    assert {layer(m) for m in modules} == {"rundir"}
    assert layer("qd.rundirs") == "qd" and layer("qd.run") == "qd"


def test_the_contract_test_sees_an_upward_import(tmp_path):
    """The checks above read real imports: an agent importing the evolution is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom qd.run import evolve\n\ndef f():\n    from plots import report\n")
    found = [(layer(t), line) for t, line in imports(bad)]
    assert ("qd", 2) in found and ("plots", 5) in found
    assert all(layer_ not in MAY_IMPORT["agents"] for layer_, _ in found)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a module graph: its strongly connected components of more than
    one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph or w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_at_module_level():
    """No two modules import each other, directly or around a loop, when they load."""
    graph = {module_of(p): {t for t, _ in imports(p, top_level_only=True)} for p in sources()}
    assert circles(graph) == []


def test_no_import_circle_counting_imports_inside_functions():
    """Nor through an import inside a function (a lazy import hides a circle, it does not
    break it); imports only a type checker reads (`if TYPE_CHECKING:`) do not count."""
    graph = {module_of(p): {t for t, _ in imports(p, typing=False)} for p in sources()}
    assert circles(graph) == []


def test_the_circle_check_sees_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


DRAWS = "playstyles.cli"
"""The one module that draws progress bars; the libraries tell it through callbacks
(`base.progress`)."""


def imported_names(path: Path) -> list[tuple[str, int]]:
    """(top-level package, line) of every import of a source file, the project's or not
    (imports inside functions included)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module.split(".")[0], node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name.split(".")[0], node.lineno) for a in node.names]
    return out


def test_only_the_cli_draws_progress_bars():
    """No library module imports tqdm: a long command reports through its callbacks and the
    command line draws the bars."""
    offenders = [f"{path.relative_to(REPO)}:{line}" for path in sources()
                 if module_of(path) != DRAWS
                 for name, line in imported_names(path) if name == "tqdm"]
    assert not offenders, "tqdm imported outside playstyles/cli.py: " + ", ".join(offenders)
    assert any(name == "tqdm" for name, _ in imported_names(REPO / "playstyles" / "cli.py"))


def test_the_progress_test_sees_a_lazy_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\ndef f():\n    from tqdm import tqdm\n    import tqdm.auto\n")
    assert [n for n in imported_names(bad) if n[0] == "tqdm"] == [("tqdm", 4), ("tqdm", 5)]


RUN_BY_FILE = ("play/watchdog.py",)
"""Modules a process runs by their file (`python -I FILE`, no project on its path): they import
the standard library alone."""


def test_a_module_run_by_its_file_needs_only_the_standard_library():
    for rel in RUN_BY_FILE:
        others = [f"{rel}:{line} imports {name}" for name, line in imported_names(REPO / rel)
                  if name not in sys.stdlib_module_names]
        assert others == []


LONG_ON_PURPOSE = {("games.tribes.actions", "_reachable"),
                   ("games.tribes.levelgen", "generate_level")}
"""The game rules' functions kept whole on purpose (their comments say why)."""
MAX_FUNCTION_LINES = 80


def long_functions(path: Path) -> list[tuple[str, int]]:
    """(name, lines) of every function of a source file whose body, without its docstring,
    runs over `MAX_FUNCTION_LINES` lines."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):  # the docstring does not count
            first = body[1] if len(body) > 1 else first
        lines = node.end_lineno - first.lineno + 1
        if lines > MAX_FUNCTION_LINES:
            out.append((node.name, lines))
    return out


def test_no_function_runs_over_eighty_lines():
    """Outside the game rules' functions kept whole on purpose, no function's body runs over
    80 lines (the complexity bound, McCabe 25, is ruff's C901 in pyproject.toml)."""
    found = [f"{module_of(p)}.{name} ({n} lines)" for p in sources()
             for name, n in long_functions(p) if (module_of(p), name) not in LONG_ON_PURPOSE]
    assert found == []


def test_the_size_check_sees_a_long_function(tmp_path):
    src = tmp_path / "long.py"
    src.write_text('def f():\n    """Doc."""\n' + "    x = 1\n" * 81 + "\n\ndef g():\n"
                   + "    x = 1\n" * 80)
    assert long_functions(src) == [("f", 81)]


def _catches_value_error(handler: ast.ExceptHandler) -> bool:
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id == "ValueError" for t in types)


def rewraps(path: Path) -> list[int]:
    """The lines of a source file where an `except` that catches ValueError raises an error
    whose message puts a name in front of the caught one (`raise X(f"{source}: {e}")`): a
    reader naming its file (or a key) by hand, where `base.schema.errors_in` does it."""
    out = []
    for handler in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(handler, ast.ExceptHandler) and handler.name
                and _catches_value_error(handler)):
            continue
        for node in ast.walk(handler):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                    and node.exc.args and isinstance(node.exc.args[0], ast.JoinedStr)):
                continue
            parts = node.exc.args[0].values
            if len(parts) > 1 and isinstance(parts[0], ast.FormattedValue) \
                    and isinstance(parts[1], ast.Constant) and str(parts[1].value).startswith(": ") \
                    and any(isinstance(n, ast.Name) and n.id == handler.name
                            for n in ast.walk(node.exc.args[0])):
                out.append(node.lineno)
    return out


def test_only_the_config_language_names_a_file_in_front_of_an_error():
    """One config language (docs/design.md): every reader of a file a user writes puts the
    file's name (or a key path) in front of a check's error with `base.schema.errors_in`;
    no module outside base re-wraps a ValueError by hand."""
    found = [f"{p.relative_to(REPO)}:{line}" for p in sources() if layer(module_of(p)) != "base"
             for line in rewraps(p)]
    assert found == []


def test_the_rewrap_check_sees_a_rewrap(tmp_path):
    src = tmp_path / "rewrap.py"
    src.write_text('def f(source):\n    try:\n        g()\n    except ValueError as e:\n'
                   '        raise ValueError(f"{source}: {e}") from None\n    try:\n        g()\n'
                   '    except (KeyError, ValueError) as err:\n'
                   '        raise RuntimeError(f"{source}: key: {err}")\n    try:\n        g()\n'
                   '    except ValueError as e:\n        raise ValueError(f"bad: {e}")\n')
    assert rewraps(src) == [5, 9]
