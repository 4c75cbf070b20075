"""`playstyles new-game NAME [DIR]`: write an installable starter package for a new game.

The package (`DIR`, default `./NAME`) holds a small two-player territory game with everything
a plug-in brings: the rules (`game.py`), a leaf evaluator, two portfolio scripts and a
layout, two behaviour features with their words (`knowledge.py`), the registration
(`plugin.py`), the entry point that makes the game known (`pyproject.toml`), its conformance
checks as tests and a tiny run config. As written it passes `playstyles check --game NAME`
and evolves; its README says what to replace. The files come from the templates in
`games/starter/`, with the game's name filled in.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from base.files import atomic_write
from games.registry import game_names

NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""A game name new-game accepts: lower-case letters, digits and '_', a letter first, at
most 32 characters (it also names the Python package, `NAME_game`)."""

TEMPLATES = "starter"
"""The folder of templates beside this module; `X.tmpl` becomes the file `X`, `package/` the
game's Python package."""


@dataclass(frozen=True)
class Starter:
    """What new-game wrote: the folder, the game, its package and the files."""

    folder: Path
    game: str
    package: str
    files: tuple[Path, ...]


def check_name(name: str) -> str:
    """The name, or a ValueError saying why a new game cannot have it.

    Args:
        name: the game's name.
    """
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"new-game: NAME {name!r} is not a game name new-game can use: "
                         "lower-case letters, digits and '_', a letter first, at most 32 "
                         "characters")
    if keyword.iskeyword(name):
        raise ValueError(f"new-game: NAME {name!r} is a Python keyword")
    taken = {n.split(":")[0] for n in game_names()}
    if name in taken:
        raise ValueError(f"new-game: NAME {name!r} is already a game here "
                         f"(known: {', '.join(sorted(taken))}); choose another name")
    return name


def _fields(name: str) -> dict[str, str]:
    words = name.split("_")
    return {"name": name, "package": f"{name}_game", "dist": f"playstyles-{name}".replace("_", "-"),
            "Class": "".join(w.capitalize() for w in words if w) or "Game",
            "title": " ".join(w.capitalize() for w in words if w)}


def _templates():
    root = resources.files("games") / TEMPLATES
    todo = [(root, Path())]
    while todo:
        folder, rel = todo.pop()
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.is_dir():
                if entry.name != "__pycache__":
                    todo.append((entry, rel / entry.name))
            elif entry.name.endswith(".tmpl"):
                yield rel / entry.name[:-len(".tmpl")], entry.read_text(encoding="utf-8")


def write_starter(name: str, folder: str | Path | None = None) -> Starter:
    """Write the starter package of the game `name` into `folder` (default `./name`).

    Args:
        name: the new game's name (`check_name`).
        folder: where to write; it must not exist or be empty (nothing is overwritten).

    Raises:
        ValueError: a name new-game cannot use, or a folder that holds files.
    """
    check_name(name)
    out = Path(name if folder is None else folder)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        what = "a folder that holds files" if out.is_dir() else "not a folder"
        raise ValueError(f"new-game: {out} is {what}; new-game writes only into a new or "
                         "empty folder (nothing there is overwritten)")
    fields = _fields(name)
    written = []
    for rel, text in _templates():
        parts = [fields["package"] if p == "package" else p for p in rel.parts]
        for key, value in fields.items():
            text = text.replace("{{" + key + "}}", value)
        path = out.joinpath(*parts)
        atomic_write(path, text)
        written.append(path)
    return Starter(out, name, fields["package"], tuple(written))
