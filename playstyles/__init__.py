"""playstyles: breed diverse, still competitive AI play-styles for turn-based strategy games.

The Python entry points a game calls are loaded on first use, so that importing the package
(or any of its modules) loads nothing else:

    import playstyles
    agent = playstyles.load_preset("presets.json", "level 2", ms=200)
    action = agent.act(state)

`load_preset`, `PresetAgent` and `PresetError` come from `play.presets` (docs/presets.md).
"""

from __future__ import annotations

from typing import Any

from base.version import __version__

_LAZY = ("load_preset", "PresetAgent", "PresetError")

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'playstyles' has no attribute {name!r}")
    import play.presets
    value = getattr(play.presets, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
