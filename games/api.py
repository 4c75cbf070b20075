"""The forward-model protocol that every game implements and every agent uses.

It is deliberately small and shaped by search: agents copy a state thousands of times per
decision, so `copy()` must be cheap; portfolios ask for actions per actor and per action type,
so that grouping is part of the protocol; one `apply` on a search copy is one forward-model call,
the unit in which every search budget is counted.
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Protocol, Sequence, runtime_checkable

Action = Hashable
"""An action is an immutable, hashable value produced by the game itself (for Tribes a tuple)."""


@runtime_checkable
class GameState(Protocol):
    """One position of a game, mutated in place by `apply`."""

    num_players: int
    tick: int
    """The round counter (0-based): one round is one turn of every player."""

    @property
    def current_player(self) -> int:
        """Index of the player to act (0-based, also the turn order)."""

    def copy(self) -> "GameState":
        """An independent copy: applying actions to it never changes the original."""

    def reseed(self, seed: int) -> None:
        """Give this state its own random generator (search copies must not share the game's)."""

    def is_terminal(self) -> bool: ...

    def legal_actions(self) -> Sequence[Action]:
        """Every legal action of the current player (never empty before the end)."""

    def actions_by_actor(self) -> dict[Hashable, dict[int, list[Action]]]:
        """The legal actions grouped actor -> action type -> actions, computed lazily."""

    def apply(self, action: Action) -> None:
        """Apply a legal action in place: one forward-model call."""

    def winner(self) -> int | None:
        """The winning player once terminal, else None."""

    def ranking(self) -> list[int]:
        """Players best first (meaningful once terminal; a tie-broken order otherwise)."""

    def scores(self) -> list[float]: ...

    def summary(self, player: int) -> dict[str, float]:
        """Named figures of one player (score first) for result tables and features."""

    def player_name(self, player: int) -> str:
        """What a player controls (e.g. its tribe), for humans and result tables."""

    def events(self) -> list[tuple[int, int, str, float]]:
        """The statistics log: (round, player, event name, value) in the order they happened."""

    def action_type_name(self, action: Action) -> str: ...

    def describe(self, action: Action) -> str:
        """A short human-readable description of an action."""


class Game(Protocol):
    """A game: a name, its options, and how to start a state from a level and a seed."""

    name: str

    def new_state(self, level: Any, seed: int, **options: Any) -> GameState: ...

    def action_types(self) -> Sequence[str]: ...


def log_add(head: tuple | None, rnd: int, player: int, name: str, value: float = 1) -> tuple:
    """Append to a persistent event log: a node pointing at the previous one.

    Copying a state then shares its history for free (search copies never copy it), and the
    history of a game is still complete at its end.
    """
    return (head, rnd, player, name, value)


def log_to_list(head: tuple | None) -> list[tuple[int, int, str, float]]:
    """The events of a persistent log, oldest first."""
    out = []
    node = head
    while node is not None:
        out.append(node[1:])
        node = node[0]
    out.reverse()
    return out


def totals(events: Iterable[tuple[int, int, str, float]], player: int) -> dict[str, float]:
    """Sum of each event's values for one player (e.g. attacks, spawns per type)."""
    out: dict[str, float] = {}
    for _, p, name, value in events:
        if p == player:
            out[name] = out.get(name, 0) + value
    return out
