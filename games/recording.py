"""Recorded games: everything needed to replay a game action by action.

A record is JSON: the game, the level as text, the game seed and options, who played, and
the actions in order. Replaying applies the same actions to the same start, so a record is
small and exact; it also lets a designer watch a play-style turn by turn long after the game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from base.files import atomic_write, json_format, read_json
from base.limits import MAX_SEED, short
from base.schema import (
    REQUIRED,
    Field,
    check_mapping,
    count,
    errors_in,
    field_error,
    list_of,
    read_section,
    text,
)
from games.api import check_game_options
from games.registry import get_game

FORMAT = "playstyles-game/1"


class RecordError(ValueError):
    """A malformed game record; the message names the file and the field."""


def make_record(game: str, level_text: str, seed: int, options: dict[str, Any],
                players: list[str], actions: list) -> dict[str, Any]:
    """`actions` as data (`game.action_to_data`), so that the record is plain JSON."""
    return {"format": FORMAT, "game": game, "level": level_text, "seed": seed,
            "options": options, "players": players, "actions": list(actions)}


def save_record(record: dict[str, Any], path: str | Path) -> None:
    atomic_write(path, json.dumps(record, indent=None, separators=(",", ":")) + "\n")


def is_record(path: str | Path) -> bool:
    """Whether `path` is a game record (its `format` field), i.e. one `playstyles play
    --record` wrote: what it may overwrite with --force.

    Args:
        path: the file.
    """
    return json_format(path) == FORMAT


def _format(value: Any, field: str) -> str:
    if value != FORMAT:
        raise field_error(field, f"expected {FORMAT!r}, got {short(value)}")
    return value


FIELDS = (Field("format", _format, REQUIRED), Field("game", text(), REQUIRED),
          Field("level", text(empty=True), REQUIRED), Field("seed", count(0, MAX_SEED), REQUIRED),
          Field("options", check_mapping, REQUIRED), Field("players", list_of(), REQUIRED),
          Field("actions", list_of(), REQUIRED))
"""A record's keys (`make_record`)."""


def load_record(path: str | Path) -> dict[str, Any]:
    """A record file, checked: its size and nesting (`base.limits`), its fields, and its
    game options (`games.api.check_game_options`); every error names the file and the field.

    Args:
        path: a record written by `save_record` (`playstyles play --record`).
    """
    data = read_json(path, RecordError, what="record")
    with errors_in(str(path), RecordError):
        if not isinstance(data, dict):
            raise field_error("", "a JSON object expected")
        _format(data.get("format"), "format")  # (another file is named as such first)
        record = read_section(data, FIELDS)
        check_game_options(get_game(record["game"]), record["options"])
    return record


def replay(record: dict[str, Any], source: str = "record") -> Iterator[tuple[Any, Any]]:
    """Yield (state, action) before each recorded action, then (final state, None).
    An action that is not legal where it was recorded is an error naming its index."""
    game = get_game(record["game"])
    level = game.level_from_text(record["level"], source=f"{source}: level")
    state = game.new_state(level, record["seed"], **record["options"])
    for i, raw in enumerate(record["actions"]):
        action = game.action_from_data(raw)
        if action not in state.legal_actions():
            raise RecordError(f"{source}: actions[{i}]: {raw} is not legal at that point")
        yield state, action
        state.apply(action)
    yield state, None
