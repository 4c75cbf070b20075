"""The forward-model protocol that every game implements and every agent uses.

It is deliberately small and shaped by search: agents copy a state thousands of times per
decision, so `copy()` must be cheap; portfolios ask for actions per actor and per action type,
so that grouping is part of the protocol; one `apply` on a search copy is one forward-model call,
the unit in which every search budget is counted.

Two kinds of turn are supported. In a game with single-action turns (tic-tac-toe, connect four,
most OpenSpiel games) every action ends the mover's turn. In a game with multi-action turns
(Tribes) a player takes actions until it plays the game's *pass* action (Tribes: End Turn);
such a state sets `multi_action_turns = True` and says which actions end the turn with
`ends_turn`. Agents and the game loop only use the helpers below (`ends_turn`, `is_pass`),
never a game's action names.

Results: `winner()` is the single winning player once the game is over, and None both while it
runs and when it ended without a single winner (a draw); `results(state)` gives each player's
share of first place (a state may define `results()` itself; by default 1 for the winner,
0 for the others, 1/n each without a single winner) and `outcome(state, p)` one player's share:
1 for a win, 0.5 for a two-player draw, 0 for a loss. `ranking()` orders the players best
first (ties broken by the game's own rule).

Hidden information is optional and costs a game with full information nothing. A game whose
players do not see everything defines `observation(player)` (what the player sees, a plain
hashable value), `determinise(player, rng, belief)` (a full state the player cannot tell
apart from this one, drawn from a belief or from the current observation alone) and, if it
has one, `new_belief(player, size, seed)` (a `Belief` that an agent feeds the player's
observations). Agents use the helpers `observation`, `determinise` and `new_belief` below,
whose defaults are those of full information: the observation is the state, a determinisation
is a copy, and there is no belief to keep.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Protocol, Sequence, runtime_checkable

from base.files import load_json, save_figure
from base.limits import MAX_COUNT, MAX_SEED, MAX_TEXT, short
from base.schema import check_count, errors_in
from games.levels import level_set

Action = Hashable
"""An action is an immutable, hashable value produced by the game itself (for Tribes a tuple,
for OpenSpiel games an int)."""


class IllegalAction(ValueError):
    """`apply` was given an action that is not legal in the state."""


@runtime_checkable
class GameState(Protocol):
    """One position of a game, mutated in place by `apply`."""

    game_name: str
    """The registered name of the game (`games.registry.get_game(state.game_name)`)."""

    tick: int
    """Completed rounds, starting at 0: one round is one turn of every player (in
    alternating-move games, one move of each player)."""

    @property
    def num_players(self) -> int: ...

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
        """The legal actions grouped actor -> action kind (an int) -> actions. A game without
        actors returns `group_by_player(self)`."""

    def apply(self, action: Action) -> None:
        """Apply a legal action in place: one forward-model call. An action that is not
        legal raises `IllegalAction` and leaves the state unchanged."""

    def winner(self) -> int | None:
        """The winning player once terminal; None while the game runs and on a draw."""

    def ranking(self) -> list[int]:
        """Players best first (meaningful once terminal; a tie-broken order otherwise)."""

    def scores(self) -> list[float]:
        """One number per player, higher is better (the game's score, or its result)."""

    def summary(self, player: int) -> dict[str, float]:
        """Named figures of one player, "score" first, for result tables and features."""

    def player_name(self, player: int) -> str:
        """What a player controls (e.g. its tribe), for humans and result tables."""

    def events(self) -> list[tuple[int, int, str, float]]:
        """The statistics log: (round, player, event name, value) in the order they happened."""

    def action_type_name(self, action: Action) -> str: ...

    def describe(self, action: Action) -> str:
        """A short human-readable description of an action."""


# ------------------------------------------------------------------------------ turn helpers

def ends_turn(state: GameState, action: Action) -> bool:
    """True when applying `action` ends the mover's turn: every action in a game with
    single-action turns, the pass action in a game with multi-action turns."""
    if not getattr(state, "multi_action_turns", False):
        return True
    return state.ends_turn(action)


def is_pass(state: GameState, action: Action) -> bool:
    """True for the action that does nothing but end a multi-action turn (Tribes: End Turn).
    Games with single-action turns have none."""
    return getattr(state, "multi_action_turns", False) and state.ends_turn(action)


def results(state: GameState) -> list[float]:
    """Each player's share of first place once the game is over: the state's own
    `results()` when it has one (an optional protocol method; e.g. Tribolo gives 1/k to each
    of k players tied for first and 0 to the others), else 1 for the winner and 0 for the
    others, or 1/n to each of the n players when there is no single winner (a two-player
    draw: 0.5 each). The shares sum to 1."""
    own = getattr(state, "results", None)
    if callable(own):
        return [float(x) for x in own()]
    n = state.num_players
    w = state.winner()
    if w is None:
        return [1.0 / n] * n
    return [1.0 if p == w else 0.0 for p in range(n)]


def outcome(state: GameState, player: int) -> float:
    """`player`'s share of first place (`results`): 1 if it won, 0 if it lost, 0.5 for each
    side of a two-player draw. Only meaningful once the state is terminal."""
    return results(state)[player]


def group_by_player(state: GameState, kind: int = 0) -> dict[Hashable, dict[int, list[Action]]]:
    """The actor grouping of a game without actors: the mover is the only actor and every
    action is of one kind."""
    return {state.current_player: {kind: list(state.legal_actions())}}


# ------------------------------------------------------------------------------ hidden information

class Belief(Protocol):
    """What one player believes about the parts of a game it does not see: made by the game
    (`new_belief`), kept by an agent from one decision to the next, fed the player's
    observations, and sampled by the game's `determinise`.

    A game with hidden information that brings no belief still works with every agent: a
    determinisation without a belief is consistent with the current observation only."""

    def update(self, observation: Any) -> None:
        """The player's observation at its next decision (`observation(state, player)`).
        An observation that does not follow the last one (another game, a step skipped)
        starts the belief again from this observation alone."""


def observation(state: GameState, player: int) -> Any:
    """What `player` sees of `state`: the state's own `observation(player)` (an optional
    protocol method; a plain, hashable value) when it has one, else the state itself (a
    game with full information hides nothing). Two states a player cannot tell apart give
    equal observations."""
    own = getattr(state, "observation", None)
    return own(player) if callable(own) else state


def hides_information(state: GameState) -> bool:
    """True for a game whose players do not see the whole state (it defines `observation`)."""
    return callable(getattr(state, "observation", None))


def determinise(state: GameState, player: int, rng: Any, belief: Belief | None = None
                ) -> GameState:
    """A full state that `player` cannot tell apart from `state` (equal observations), drawn
    with `rng` (a numpy Generator) from `belief` when one is given, else consistent with the
    current observation only: the state's own `determinise(player, rng, belief)` (an optional
    protocol method) when it has one, else a copy (full information: nothing to draw).

    The state returned is the searcher's to apply actions to; its random outcomes use its
    own generator (reseeded from `rng`), never the game's."""
    own = getattr(state, "determinise", None)
    if callable(own):
        return own(player, rng, belief)
    return state.copy()


def new_belief(state: GameState, player: int, size: int, seed: int) -> Belief | None:
    """A fresh belief of `player` about `state`'s game (the state's own
    `new_belief(player, size, seed)`, an optional protocol method): `size` is the game's
    measure of its effort (a particle filter's particle count), `seed` its random stream.
    None for a game that brings none (every game with full information)."""
    own = getattr(state, "new_belief", None)
    return own(player, size, seed) if callable(own) else None


# ------------------------------------------------------------------------------ games

class Game(Protocol):
    """A game: a name, its options, its levels, and how to start a state."""

    name: str
    option_names: tuple[str, ...]
    default_levels: str

    def new_state(self, level: Any, seed: int, **options: Any) -> GameState: ...

    def level(self, spec: Any, **options: Any) -> Any: ...

    def level_set(self, name: str) -> list[Any]: ...

    def render(self, state: GameState, ascii_only: bool = False) -> str: ...

    def round_limit_options(self, rounds: int) -> dict[str, Any]: ...


@dataclass(frozen=True)
class OptionSpec:
    """What values a game option takes, checked before `new_state` (`check_game_options`).

    Args:
        kind: the type of a value: int, bool, str or list (of text).
        lo: the smallest int allowed.
        hi: the largest int allowed.
        choices: the texts allowed (a str option).
        items: the smallest and largest number of items of a list.
        none: whether None (the game's default) is allowed.
        check_value: the game's own check of a value that passed the others (e.g. the names in
            a list); it raises a ValueError, which is raised again naming the field.
    """

    kind: type
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    items: tuple[int, int] = (0, 1000)
    none: bool = True
    check_value: Callable[[Any], Any] | None = None

    def check(self, field: str, value: Any) -> None:
        """Raise a ValueError naming `field` for a value this option does not take.

        Args:
            field: what the error calls the option (`options.size`, `--option size`).
            value: the value given.
        """
        if value is None and self.none:
            return
        if self.kind is int:
            lo = -MAX_SEED if self.lo is None else self.lo
            check_count(value, field, lo, MAX_SEED if self.hi is None else self.hi)
        elif self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{field}: true or false expected, got {short(value)}")
        elif self.kind is str:
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise ValueError(f"{field}: a text expected, got {short(value)}")
            if self.choices and value not in self.choices:
                raise ValueError(f"{field}: one of {', '.join(self.choices)} expected, got "
                                 f"{short(value)}")
        elif self.kind is list:
            lo, hi = self.items
            if not isinstance(value, (list, tuple)) or not lo <= len(value) <= hi:
                raise ValueError(f"{field}: a list of {lo} to {hi} items expected, got "
                                 f"{short(value)}")
            for i, v in enumerate(value):
                if not isinstance(v, str) or len(v) > MAX_TEXT:
                    raise ValueError(f"{field}[{i}]: a text expected, got {short(v)}")
        if self.check_value is not None:
            with errors_in(field):
                self.check_value(value)


def check_plain_option(field: str, value: Any) -> None:
    """The bounds of an option that declares no `OptionSpec`: None, a bool, a whole number
    within +-MAX_SEED, a finite float, a text of at most MAX_TEXT characters, or a list of
    at most MAX_COUNT such values.

    Args:
        field: what the error calls the option.
        value: the value given.
    """
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        check_count(value, field, -MAX_SEED, MAX_SEED)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{field}: a finite number expected, got {short(value)}")
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ValueError(f"{field}: a text of at most {MAX_TEXT} characters expected, "
                             f"got {short(value)}")
    elif isinstance(value, (list, tuple)):
        if len(value) > MAX_COUNT:
            raise ValueError(f"{field}: at most {MAX_COUNT} items expected, got {len(value)}")
        for i, v in enumerate(value):
            if isinstance(v, (list, tuple, dict)):
                raise ValueError(f"{field}[{i}]: a single value expected, got {short(v)}")
            check_plain_option(f"{field}[{i}]", v)
    else:
        raise ValueError(f"{field}: a number, text, true/false or a list expected, got "
                         f"{short(value)}")


def option_names_of(game: Any) -> tuple[str, ...]:
    """The options a game takes: its `option_names` when it declares any, else the keyword
    parameters of its `new_state` after the level and the seed.

    Args:
        game: a game object (`games.registry.get_game`).
    """
    declared = tuple(getattr(game, "option_names", None) or ())
    if declared:
        return declared
    import inspect
    try:
        params = list(inspect.signature(game.new_state).parameters.values())
    except (TypeError, ValueError):
        return ()
    named = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return tuple(p.name for p in named[2:])


def check_game_options(game: Any, options: Any, field: str = "options") -> dict[str, Any]:
    """Game options checked before `new_state` is called: an unknown name is an error
    listing the known ones, a value the option does not take (its `OptionSpec` in the game's
    `option_specs`, else `check_plain_option`) an error naming the option. Called at every
    edge: the command line, run and tournament configs, presets and records.

    Args:
        game: a game object (`games.registry.get_game`).
        options: the options as given (a mapping).
        field: what errors call the options (`options`; `--option`).

    Returns:
        The options, unchanged.
    """
    if not isinstance(options, dict):
        raise ValueError(f"{field}: a mapping expected, got {short(options)}")
    known = option_names_of(game)
    specs = getattr(game, "option_specs", None) or {}
    sep = " " if field.startswith("-") else "."
    for k, v in options.items():
        where = f"{field}{sep}{k}"
        if k not in known:
            name = getattr(game, "name", "the game")
            raise ValueError(f"{where}: unknown game option {short(k)} for {name} (known: "
                             f"{', '.join(known) or 'none'})")
        spec = specs.get(k)
        if spec is not None:
            spec.check(where, v)
        else:
            check_plain_option(where, v)
    return options


class BaseGame:
    """Defaults for the optional parts of a game, so a small game writes only what it has.

    A subclass sets `name` and implements `new_state`. Levels default to integers (a seed
    for the game's set-up, which a game without levels may ignore); level sets are the
    generic `seeds:1,2,3` and `range:a-b` forms plus the game's own `level_sets`.
    """

    name: str = ""
    option_names: tuple[str, ...] = ()
    default_levels: str = "range:0-9"
    level_sets: dict[str, tuple[Any, ...]] = {}
    options_doc: dict[str, str] = {}
    option_specs: dict[str, "OptionSpec"] = {}
    """What values each option takes (`OptionSpec`); an option without one takes plain
    values within `check_plain_option`'s bounds."""
    search_horizon: int | None = None
    """Default depth of search agents' trees and playouts; None: to the end of the game."""
    snapshot_events: tuple[str, ...] = ()
    """Events logged as end-of-turn figures (a state, not a count to total)."""

    def new_state(self, level: Any, seed: int, **options: Any) -> GameState:
        raise NotImplementedError

    def check_options(self, options: dict[str, Any]) -> None:
        """Raise a ValueError naming the first option this game does not know or whose value
        it does not take (`check_game_options`)."""
        check_game_options(self, options)

    def round_limit_options(self, rounds: int) -> dict[str, Any]:
        """The game options under which a game lasts at most `rounds` rounds (`state.tick`
        is then at most `rounds` at the end): how "play N rounds" (the command line's
        `--rounds N`) maps to this game's own options. A game without a round limit keeps
        this default, which refuses with a ValueError naming the game."""
        raise ValueError(f"{self.name} has no round limit (its options: "
                         f"{', '.join(self.option_names) or 'none'})")

    # levels ---------------------------------------------------------------
    def level(self, spec: Any, **options: Any) -> Any:
        """A level from what a config or command line gives (default: the value itself)."""
        return spec

    def level_set(self, name: str) -> list[Any]:
        return level_set(name, self.level_sets)

    def level_text(self, level: Any) -> str:
        return json.dumps(level)

    def level_from_text(self, text: str, source: str = "<level>") -> Any:
        try:
            return load_json(text, source)
        except ValueError as e:
            raise ValueError(f"{e} (not a level of {self.name})") from None

    # actions as data (records) ---------------------------------------------
    def action_to_data(self, action: Action) -> Any:
        return list(action) if isinstance(action, tuple) else action

    def action_from_data(self, data: Any) -> Action:
        return tuple(data) if isinstance(data, list) else data

    # rendering ---------------------------------------------------------------
    def render(self, state: GameState, ascii_only: bool = False) -> str:
        text = str(state)
        return text if not ascii_only else text.encode("ascii", "replace").decode()

    def render_view(self, state: GameState, player: int, ascii_only: bool = False) -> str:
        """What `player` sees of the state, as text (shown to a human player). `render` shows
        everything (replays, spectators); a game with hidden information hides it here. The
        default, for full information: `render`.

        Args:
            state: the position.
            player: whose view.
            ascii_only: ASCII symbols only.
        """
        return self.render(state, ascii_only=ascii_only)

    def render_image(self, state: GameState, path: Any, title: str | None = None) -> None:
        """The text rendering drawn into a PNG (games with a board draw their own)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        text = self.render(state)
        lines = text.splitlines() or [""]
        fig = plt.figure(figsize=(max(3.0, 0.11 * max(map(len, lines))), 0.25 * len(lines) + 1))
        fig.text(0.02, 0.98, text, family="monospace", va="top", fontsize=9)
        if title:
            fig.suptitle(title)
        save_figure(fig, path, dpi=100)
        plt.close(fig)


# ------------------------------------------------------------------------------ event logs

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
