"""Limits on every input, in one place (docs/limits.md gives the reason for each).

Every file, count and option that reaches playstyles from outside (a config, a preset, a
record, a level file, a command-line flag) is checked against a finite bound before any
work is done on it, so a typo or a hostile file is one short error naming the file and the
field, never minutes of parsing or gigabytes of memory. The bounds are generous: far above
any experiment's needs, far below what exhausts a machine.
"""

from __future__ import annotations

import reprlib
from typing import Any

KIB = 1024
MIB = 1024 * KIB

# ------------------------------------------------------------------------------ files

MAX_CONFIG_BYTES = 256 * KIB
"""YAML files (run, tournament and train-evaluator configs, a run directory's config.yaml).
A config is a few kilobytes; PyYAML's safe parser reads about 0.4 MiB a second, so the cap
keeps a parse well under a second."""

MAX_YAML_ALIASES = 100
"""Aliases (`*name`) in one YAML file; an alias may name a scalar only (an alias to a
mapping or a list is refused: it is how a few lines expand to gigabytes)."""

MAX_NESTING = 64
"""Nesting depth of a YAML or JSON document (a config nests 4 deep, a record 5)."""

MAX_JSON_BYTES = 8 * MIB
"""JSON files: game records (`play --record`), presets, summaries of a run directory. A
record of a long Tribes game is well under 1 MiB; the worst 8 MiB of JSON (empty lists)
parses in about a second into under 250 MB."""

MAX_MARKER_BYTES = 4 * KIB
"""The marker `.playstyles.json` of a command's output folder (`base.files.MARKER`):
about 40 bytes, read before a command writes into the folder."""

MAX_LEVEL_BYTES = 1 * MIB
"""Level files (a 64x64 Tribes level CSV is about 20 KiB)."""

MAX_BOARD = 64
"""Board side of a level file or a generated level (Tribes' largest default board is 24;
a 3000x3000 board takes gigabytes)."""

# ------------------------------------------------------------------------------ counts

MAX_BUDGET = 1_000_000
"""Forward-model calls per decision (the paper's agents use 1000 to 10000)."""

MAX_MS = 3_600_000
"""Milliseconds per decision of a time limit (`act(state, ms=...)`): an hour."""

MAX_AGENT_COUNT = MAX_BUDGET
"""A count among an agent's parameters (RHEA's population and length, HOP's samples and
particles, HPS's moves): each costs at least one forward-model call, so none exceeds the
largest budget."""

MAX_REPETITIONS = 10_000
"""Games per level and pairing (tournaments) or per training level (runs)."""

MAX_EVALUATIONS = 10_000_000
"""Genomes a run evaluates."""

MAX_GAMES = 100_000
"""Games per elite, per genome or per pair (validate, probe, export, ladder)."""

MAX_TOTAL_GAMES = 1_000_000_000
"""A run's `max_games` (games in total)."""

MAX_BINS = 10_000
"""Bins of one feature of a run's grid."""

MAX_CELLS = 1_000_000
"""Cells of a run's grid (the product of its features' bins)."""

MAX_PLANNED_GAMES = 1_000_000
"""Games one command plans at once (a tournament, a validation, a ladder, a probe): every
game is planned before the first is played, and a million plans take a few hundred MB (two
cores play a few thousand Tribes games an hour)."""

MAX_ROUNDS = 10_000
"""Rounds of one game (`--rounds`, a game's round-limit option)."""

MAX_COUNT = 1_000
"""Presets to export, candidates to calibrate, budgets to try, items of a list option."""

MAX_SEED = 2 ** 63 - 1
"""Seeds (level, game and run seeds) are whole numbers in 0..MAX_SEED (a run draws 63
random bits when the config gives none)."""

MAX_EPOCHS = 10_000
"""Training epochs of a learned evaluator."""

MAX_BATCH = 1_000_000
"""Samples in one training batch of a learned evaluator."""

MAX_LAYERS = 16
"""Hidden layers of a learned evaluator's network."""

MAX_LAYER_SIZE = 4_096
"""Units of one hidden layer (a 4096x4096 layer is 128 MiB of float64 weights)."""

MAX_WORKERS = 4_096
"""Local worker processes."""

MAX_TEXT = 10_000
"""Characters of one text value of a game option."""

MAX_NAME = 200
"""Bytes (UTF-8) of a name: a run's name (its directory's name: file systems allow 255
bytes), a preset's name, an agent's label (a column of every table, a line of every
chart)."""

MAX_DELAY = 3600.0
"""Seconds `play --watch --delay` waits after each round's board (an hour is a pause; a
larger number overflowed the clock)."""

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a Ray cluster's address to answer before joining it."""

# ------------------------------------------------------------------------------ helpers

SHORT = 80
"""Characters of a value quoted in an error message."""

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlong = 40
for _attr in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque",
              "maxarray"):
    setattr(_repr, _attr, 6)


def short(value: Any, limit: int = SHORT) -> str:
    """The repr of `value` for an error message, at most `limit` characters, built without
    ever making the full repr (a value from a file may be huge or deeply shared).

    Args:
        value: any value.
        limit: the longest text returned.
    """
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a huge int's str, a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_planned(total: int, what: str) -> int:
    """The number of games a command plans, at most `MAX_PLANNED_GAMES`, else one ValueError
    saying what multiplied to it.

    Args:
        total: the games planned.
        what: how they multiply (`3 pairings x 25 levels x 2 repetitions`).
    """
    if total > MAX_PLANNED_GAMES:
        raise ValueError(f"{what} are {total} games, more than the {MAX_PLANNED_GAMES} one "
                         f"command plays (docs/limits.md)")
    return total


MAX_NPZ_BYTES = 2 * 2**30
"""The most a `.npz` file (a model, saved samples) may hold once its arrays are read, and the
largest such file: checked from the file's size and the zip's directory before anything is
decompressed (a learned model of the largest network allowed, 16 layers of 4,096 units in
float32, holds about 1 GiB)."""
