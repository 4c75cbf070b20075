"""State encodings by game: a position as a fixed-length binary vector, for learned evaluators.

An encoding turns `(state, player)` into the positions of the ones of a binary vector of fixed
length, seen from `player` (the player whose value is wanted). Binary, because every feature
is a one-hot count or a flag, as in Prismata's learned evaluation; giving only the ones keeps
an encoding cheap to compute, to store (a sparse matrix) and to feed to a network (the first
layer sums the weight rows of the ones). Encodings are registered per game name, like
evaluators (this module imports no game); a model file names its encoding and version, so a
model is only ever fed the vectors it was trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from games.api import GameState
from games.registry import Registry


@dataclass(frozen=True)
class Encoding:
    """A registered encoding.

    Args:
        game: the game it is registered for.
        name: its name within the game.
        length: the length of every vector.
        version: bumped whenever the meaning of a position changes (models of another version
            are refused).
        active: `active(state, player)` -> the positions of the ones, in [0, length).
        fields: (field name, width) in vector order, for documentation and inspection; the
            widths sum to `length`.
    """

    game: str
    name: str
    length: int
    version: int
    active: Callable[[GameState, int], Sequence[int]]
    fields: tuple[tuple[str, int], ...] = ()

    def indices(self, state: GameState, player: int) -> np.ndarray:
        """The positions of the ones, as int32, checked to lie within the length."""
        idx = np.asarray(self.active(state, player), dtype=np.int32)
        if idx.size and (idx.min() < 0 or idx.max() >= self.length):
            raise ValueError(f"encoding {self.name!r}: position {int(idx.max())} outside "
                             f"[0, {self.length})")
        return idx

    def vector(self, state: GameState, player: int) -> np.ndarray:
        """The whole vector (float32, ones and zeros)."""
        v = np.zeros(self.length, dtype=np.float32)
        v[self.indices(state, player)] = 1.0
        return v

    def field_of(self, position: int) -> str:
        """The name of the field a position belongs to, with the offset inside it."""
        start = 0
        for name, width in self.fields:
            if position < start + width:
                return f"{name}[{position - start}]"
            start += width
        raise ValueError(f"encoding {self.name!r}: position {position} outside [0, {self.length})")


ENCODINGS = Registry("encoding")
"""State encodings, per game, and each game's default."""


def register_encoding(game: str, name: str, active: Callable[[GameState, int], Sequence[int]],
                      length: int, version: int = 1,
                      fields: Sequence[tuple[str, int]] = (), default: bool = False) -> Encoding:
    """Register an encoding of `game`'s states.

    Args:
        game: the game name (a family name covers the family).
        name: the encoding's name.
        active: `active(state, player)` -> positions of the ones, seen from `player`.
        length: the fixed vector length.
        version: the encoding's version (stored in model files).
        fields: (name, width) per field in vector order; if given, the widths must sum to
            `length`.
        default: make it the game's encoding when none is named.
    """
    if length < 1:
        raise ValueError(f"length: must be >= 1, got {length}")
    fields = tuple((str(n), int(w)) for n, w in fields)
    if fields and sum(w for _, w in fields) != length:
        raise ValueError(f"fields: widths sum to {sum(w for _, w in fields)}, not the length "
                         f"{length}")
    enc = Encoding(game, name, int(length), int(version), active, fields)
    ENCODINGS.add(name, enc, game=game, default=default)
    return enc


def encoding_names(game: str) -> list[str]:
    """The encodings registered for `game`."""
    return ENCODINGS.names(game)


def get_encoding(game: str, name: str | None = None) -> Encoding:
    """The encoding `name` of `game` (None: the game's default).

    Args:
        game: the game name.
        name: the encoding name; None takes the one registered with `default=True`.
    """
    if name is None:
        name = ENCODINGS.default(game)
        if name is None:
            raise ValueError(f"encoding: game {game!r} registers no state encoding")
    try:
        return ENCODINGS.get(name, game)
    except ValueError as e:
        raise ValueError(f"encoding: {e}") from None
