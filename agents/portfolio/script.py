"""The game-neutral script protocol and the per-game script registry.

A *script* is a small piece of domain knowledge: given one actor of the player to move and that
actor's legal actions of ONE action type, it proposes one of those actions together with a value
in [0, 1] saying how good it thinks that proposal is, or declines (None):

    fn(ctx, actor, actions) -> (action, value) | None

`ctx` is a `ScriptContext`: the state (`ctx.state`), the random generator for ties
(`ctx.randbelow`, drawn from the numpy Generator the caller passed in, never a global one) and,
in a game's subclass, lazily computed per-state facts that every script of that state shares
(enemy positions, distance fields, ...). A context lives for one state: one assignment
generation builds one, so nothing is ever computed twice for the same position.

Adding a script to a game is one function plus one decorator line:

    @script("tribes", "SpawnCheapest", "SPAWN")
    def spawn_cheapest(ctx, actor, actions): ...

A game makes itself known once with `register_portfolio` (its context class and the order in which
portfolios list its action types); `make_context` and `scripts_of` then work by game name only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from agents.draw import uniform
from games.registry import Registry

DEFAULT_VALUE = 0.5
"""The value a wrapper script gives its action (the paper's neutral value)."""

ScriptFn = Callable[["ScriptContext", Hashable, Sequence[Any]], "tuple[Any, float] | None"]


@dataclass(frozen=True)
class ScriptInfo:
    """A registered script: its unique name, the action type it handles and its function."""

    game: str
    name: str
    action_type: str
    fn: ScriptFn
    doc: str = ""


class lazy:
    """A per-instance cached attribute: computed on first read, then a plain instance-dict hit.

    (functools.cached_property takes a lock on Python 3.11, which costs more than most of the
    values it would cache here.)"""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None) -> Any:
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.name] = value
        return value


class ScriptContext:
    """What every script of one state shares: the state, tie-breaking randomness, caches.

    Randomness comes from the numpy Generator given by the caller (one `random()` draw per
    tie, so the same generator state gives the same choices). Game subclasses add `lazy`
    per-state facts and may reorder actors."""

    def __init__(self, state: Any, rng: np.random.Generator) -> None:
        self.state = state
        self.rng = rng

    def random(self) -> float:
        """A uniform float in [0, 1): `self.rng.random()`."""
        return uniform(self.rng)

    def randbelow(self, n: int) -> int:
        """A uniform int in [0, n)."""
        return int(self.random() * n) if n > 1 else 0

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.randbelow(len(seq))] if len(seq) > 1 else seq[0]

    def ordered_actors(self, by_actor: dict) -> list:
        """The actors in the order assignments are generated (default: as the game lists them)."""
        return list(by_actor)

    def after(self, state: Any, action: Any) -> "ScriptContext | None":
        """The context of `state`, this context's state after `action` was applied to it in
        place, keeping what the action cannot have changed, or None for a new one (the
        default). Whatever it returns must give the scripts exactly what a new context
        would: same facts, same random generator."""
        return None


class ScriptError(RuntimeError):
    """A portfolio script raised or gave an answer outside the protocol (an action it was not
    given, a value outside [0, 1], not an `(action, value)` pair). The message names the
    script, the actor and the state's turn; the script's own exception is the cause. Not a
    ValueError: an agent whose script fails has not refused the game, its plug-in is broken."""


def answer_problem(answer: Any, actions: Sequence[Any]) -> str | None:
    """What is wrong with a script's answer to `actions` (None: nothing; a decline, None, is a
    valid answer too)."""
    if answer is None:
        return None
    try:
        action, value = answer
    except (TypeError, ValueError):
        return f"answered {answer!r}, not (action, value) or None"
    try:
        in_range = 0.0 <= value <= 1.0  # False for NaN
    except TypeError:
        in_range = False
    if not in_range:
        return f"answered the value {value!r}, outside [0, 1]"
    try:
        legal = action in actions
    except (TypeError, ValueError) as e:
        return f"answered the action {action!r}, which cannot be compared with its actions ({e})"
    if not legal:
        return (f"answered the action {action!r}, which is not one of the {len(actions)} "
                f"actions it was given")
    return None


def script_failure(name: str, actor: Any, state: Any, problem: str) -> str:
    """The message of a `ScriptError`: the script, the actor and the position."""
    turn = getattr(state, "tick", None)
    where = f"turn {turn}, " if turn is not None else ""
    return f"portfolio script {name!r} ({where}actor {actor!r}): {problem}"


def pick_max(ctx: ScriptContext, items: Sequence[Any], scores: list) -> tuple[Any, float]:
    """The item with the highest score (uniformly random among exact ties) and that score."""
    return _pick_extreme(ctx, items, scores, False)


def pick_min(ctx: ScriptContext, items: Sequence[Any], scores: list) -> tuple[Any, float]:
    """The item with the lowest score (uniformly random among exact ties) and that score."""
    return _pick_extreme(ctx, items, scores, True)


def _pick_extreme(ctx: ScriptContext, items: Sequence[Any], scores: list,
                  lowest: bool) -> tuple[Any, float]:
    """`pick_min` (`lowest`) or `pick_max`, in one scan: the best score as `min` / `max` find
    it (the first one no later score beats), where it first occurs, and how many scores equal
    it (as `list.count` counts); a random number only for ties."""
    best = scores[0]
    first = 0
    count = 1
    for i in range(1, len(scores)):
        v = scores[i]
        if v < best if lowest else v > best:
            best = v
            first = i
            count = 1
        elif v is best or v == best:
            count += 1
    if count > 1:
        ties = [j for j, v in enumerate(scores) if v == best]
        first = ties[ctx.randbelow(len(ties))]
    return items[first], best


def first_action(ctx: ScriptContext, actor: Hashable, actions: Sequence[Any]):
    """The wrapper script: the first legal action of its type, with the neutral value."""
    return actions[0], DEFAULT_VALUE


# ------------------------------------------------------------------------------ registry
@dataclass(frozen=True)
class GameInfo:
    """How a game plugs into portfolios: its context class and its action-type order."""

    name: str
    context: type
    type_order: tuple[str, ...]
    action_kinds: dict[str, int]  # action-type name -> the int kind in the game's actions
    layouts: dict  # layout name -> script names whose weights evolve (e.g. the paper's 11)


PORTFOLIOS = Registry("portfolio")
"""Each game's portfolio machinery (`GameInfo`), under the name "machinery", and its layouts
(a default one among them)."""
SCRIPTS = Registry("script")
"""Portfolio scripts, per game (or family), in registration order."""
MACHINERY = "machinery"


def register_portfolio(game: str, context: type = ScriptContext,
                       type_order: Sequence[str] = ("MOVE",),
                       action_kinds: dict[str, int] | None = None) -> None:
    """Declare a game's portfolio machinery.

    Args:
        game: the game's registered name.
        context: the `ScriptContext` subclass its scripts receive (default: the plain one).
        type_order: action-type names in the order a default portfolio lists them and
            generates assignments (default: one type, "MOVE").
        action_kinds: action-type name -> the int kind `actions_by_actor()` groups by
            (default: the position in `type_order`; a game grouping with
            `games.api.group_by_player` uses kind 0).
    """
    if action_kinds is None:
        action_kinds = {t: i for i, t in enumerate(type_order)}
    PORTFOLIOS.add(MACHINERY, GameInfo(game, context, tuple(type_order), dict(action_kinds), {}),
                   game=game)


def register_layout(game: str, name: str, script_names: Sequence[str],
                    default: bool = False) -> None:
    """A named layout: an ordered subset of the game's script names, whose weights form the
    genome.

    Args:
        game: the game's registered name.
        name: the layout's name (in configs, presets and `layout=` of P-MCTS).
        script_names: the scripts whose weights evolve, in genome order.
        default: the game's default layout (where none is given; see `default_layout`).
    """
    game_info(game).layouts[name] = tuple(script_names)
    if default:
        PORTFOLIOS.add(name, name, game=game, default=True)


def default_layout(game: str) -> str | None:
    """The name of the layout a game uses when none is given: the one registered with
    `default=True` (Tribes: "paper"), else one named "paper", else None (the caller's
    fallback: no genome for a portfolio, every script for an evolution run).

    Args:
        game: the game's registered name.
    """
    layouts = game_info(game).layouts
    name = PORTFOLIOS.default(game)
    if name is None and "paper" in layouts:
        name = "paper"
    return name


def register_script(game: str, name: str, action_type: str, fn: ScriptFn) -> ScriptInfo:
    """Add one script to a game's registry (names are unique per game)."""
    machinery = PORTFOLIOS.find(MACHINERY, game)
    if machinery is not None and action_type not in machinery.action_kinds:
        raise ValueError(f"script {name!r}: game {game!r} has no action type {action_type!r}")
    old = SCRIPTS.find(name, game)
    if old is not None and old.game == game and old.fn is not fn:
        raise ValueError(f"script {name!r} is already registered for game {game!r}")
    info = ScriptInfo(game, name, action_type, fn, " ".join((fn.__doc__ or "").split()))
    SCRIPTS.add(name, info, game=game)
    return info


def script(game: str, name: str, action_type: str) -> Callable[[ScriptFn], ScriptFn]:
    """Decorator form of `register`."""
    def deco(fn: ScriptFn) -> ScriptFn:
        register_script(game, name, action_type, fn)
        return fn
    return deco


class ScriptTable:
    """A game's scripts as its plug-in declares them, in order: `@table.script(name,
    action_type)` and `table.wrapper(name, action_type)` keep a script and register nothing;
    the plug-in's `register()` gives the table to `register_scripts`."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, ScriptFn]] = []

    def script(self, name: str, action_type: str) -> Callable[[ScriptFn], ScriptFn]:
        """Decorator: keep `fn` as the script `name` of `action_type`.

        Args:
            name: the script's name (unique per game).
            action_type: the action type it chooses among.
        """
        def deco(fn: ScriptFn) -> ScriptFn:
            self.entries.append((name, action_type, fn))
            return fn
        return deco

    def wrapper(self, name: str, action_type: str) -> None:
        """Keep a wrapper script: the first action of the type, value 0.5.

        Args:
            name: the script's name.
            action_type: its action type.
        """
        self.entries.append((name, action_type, first_action))


def register_scripts(game: str, table: ScriptTable) -> None:
    """Register every script of a table for `game`, in the table's order.

    Args:
        game: the game (its `register_portfolio` comes first).
        table: the scripts.
    """
    for name, action_type, fn in table.entries:
        register_script(game, name, action_type, fn)


def register_wrapper(game: str, name: str, action_type: str) -> ScriptInfo:
    """A wrapper script: first action of the type, value 0.5."""
    return register_script(game, name, action_type, first_action)


def game_info(game: str) -> GameInfo:
    """The game's portfolio machinery (its plug-in is loaded first; a family's serves its
    games); a game without any is one error naming what it lacks."""
    info = PORTFOLIOS.find(MACHINERY, game)
    if info is None:
        known = PORTFOLIOS.owners(MACHINERY)
        raise ValueError(f"portfolio: game {game!r} registers no portfolio scripts (its plug-in "
                         f"must call register_portfolio and register scripts, see "
                         f"docs/design.md); games with scripts: "
                         f"{', '.join(known) or 'none loaded'}")
    return info


def scripts_of(game: str) -> dict[str, ScriptInfo]:
    """Name -> ScriptInfo of every script registered for a game (its own, then its
    family's), in registration order."""
    game_info(game)
    return SCRIPTS.of(game)


def make_context(game: str, state: Any, rng: np.random.Generator) -> ScriptContext:
    """A fresh per-state context of the game's class."""
    return game_info(game).context(state, rng)
