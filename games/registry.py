"""Games by name: configs, presets and the command line name a game, never import one."""

from __future__ import annotations

from typing import Callable

_GAMES: dict[str, Callable[[], object]] = {}


def register(name: str, factory: Callable[[], object]) -> None:
    _GAMES[name] = factory


def get_game(name: str):
    """The game called `name`; an unknown name is one clear error listing the known ones."""
    if name not in _GAMES:
        raise ValueError(f"game: unknown game {name!r}; known games: {', '.join(sorted(_GAMES))}")
    return _GAMES[name]()


def game_names() -> list[str]:
    return sorted(_GAMES)


def _tribes():
    from games.tribes.game import TribesGame
    return TribesGame()


register("tribes", _tribes)
