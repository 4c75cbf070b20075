"""Games by name: configs, presets and the command line name a game, never import one.

A game is a plug-in: one package whose `plugin` module declares, in one function
`register()`, everything the game brings (the game itself here, and its evaluators, search
hooks, portfolio scripts, rule-based player and behaviour features in the generic
registries); nothing registers as a side effect of an import. The generic layers only ever ask
for a game by name; the first such request imports the game's plug-in module and calls its
`register()` (`load_plugin`).

Four ways make a plug-in known:

* `PLUGINS` below: one line per game shipped with playstyles;
* an installed package's entry point in the group ``playstyles.games`` (name = the game or
  family name, value = the module that registers it);
* `register_plugin(name, module)` at run time (e.g. a test's game);
* the environment variable ``PLAYSTYLES_PLUGINS`` (`PLUGINS_ENV`), a JSON object of names and
  modules, read on the first lookup: the Ray layer (`play.shipping`) hands a driver's plug-ins
  to its workers this way.

A game registered with `register_game` alone, outside any plug-in's `register()`, exists in
its process only: another process (a Ray worker) cannot build it by name
(`games_without_plugin`). `outside_plugins` names the plug-ins beyond the shipped ones that a
process knows, the ones its workers must know too.

A *family* registers every game of a library under one prefix: ``openspiel:connect_four`` is
the game ``connect_four`` of the ``openspiel`` family. Lookups of per-game parts try the full
name, then the family name, then ``*`` (parts every game gets), see `lookup_keys`.
"""

from __future__ import annotations

import difflib
import importlib
import json
import os
from typing import Any, Callable

from base.limits import MAX_TEXT, short

PLUGINS: dict[str, str] = {
    "tribes": "games.tribes.plugin",
    "openspiel": "games.openspiel.plugin",
    "tribolo": "games.tribolo.plugin",
    "navy": "games.navy.plugin",
}
"""Game (or family) name -> the module that registers it."""

SHIPPED_PLUGINS: dict[str, str] = dict(PLUGINS)
"""The plug-ins of the games shipped with playstyles (`PLUGINS` before any is added)."""

ENTRY_POINT_GROUP = "playstyles.games"

PLUGINS_ENV = "PLAYSTYLES_PLUGINS"
"""The environment variable of more plug-ins: a JSON object of game (or family) names and
their modules, e.g. ``{"outgame": "outgame.plugin"}``. Read on the first lookup of a game;
it adds to (and overrides) `PLUGINS`, but a name given to `register_plugin` in the process wins.
The Ray layer sets it for its workers, so a driver's `register_plugin` reaches them."""


class Registry:
    """Parts registered by name, the one type behind every registry of the project (agents,
    evaluators, encodings, models, search hooks, portfolio scripts, turn phases, behaviour
    features, emitter kinds, noise methods): a part is registered for one game, a family, or
    ``*`` (every game), and a lookup for a game loads its plug-in once and tries the game, its
    family, then ``*`` (`lookup_keys`). A game may name one of its parts its default. The parts
    of every game read like a mapping: `name in reg`, `reg[name]`, iteration in registration
    order.

    Args:
        what: what a part is called in messages (`evaluator`, `encoding`).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._items: dict[tuple[str, str], Any] = {}
        self._defaults: dict[str, str] = {}

    def add(self, name: str, item: Any, game: str = "*", default: bool = False) -> None:
        """Register `item` as the part `name` of `game` (a later one of the same name and
        game replaces it).

        Args:
            name: the part's name.
            item: the part (a factory, a class, a value).
            game: a game, a family, or ``*`` for every game.
            default: make it the part the game uses when none is named.
        """
        self._items[(game, name)] = item
        if default:
            self._defaults[game] = name

    def names(self, game: str | None = None) -> list[str]:
        """The parts `game` can use (every registered part without a game).

        Args:
            game: the game (None: every game).
        """
        if game is None:
            return sorted({n for _, n in self._items})
        load_plugin(game)
        keys = lookup_keys(game)
        return sorted({n for g, n in self._items if g in keys})

    def find(self, name: str, game: str) -> Any | None:
        """The part `name` of `game`, the most specific first, or None.

        Args:
            name: the part's name.
            game: the game.
        """
        item = self._items.get((game, name))  # the game's own part: its plug-in is loaded
        if item is not None:
            return item
        load_plugin(game)
        for key in lookup_keys(game):
            if (key, name) in self._items:
                return self._items[(key, name)]
        return None

    def get(self, name: str, game: str) -> Any:
        """The part `name` of `game`; an unknown name is one error listing the known ones
        (and the closest, when one is close).

        Args:
            name: the part's name.
            game: the game.
        """
        item = self.find(name, game)
        if item is None:
            raise ValueError(self.unknown(name, f" for game {short(game)}", self.names(game)))
        return item

    def unknown(self, name: Any, where: str, known: list[str]) -> str:
        """The message of an unknown part: `unknown evaluator 'x' for game 'tribes'; known:
        a, b; did you mean 'y'?`.

        Args:
            name: the name asked for.
            where: what follows the name (` for game 'tribes'`).
            known: the names known there.
        """
        close = difflib.get_close_matches(str(name), known, n=1) if isinstance(name, str) else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return (f"unknown {self.what} {short(name)}{where}; known: {', '.join(known) or 'none'}"
                f"{hint}")

    def default(self, game: str) -> str | None:
        """The name of the part `game` uses when none is named (None: it names none).

        Args:
            game: the game.
        """
        load_plugin(game)
        return next((self._defaults[k] for k in lookup_keys(game) if k in self._defaults),
                    None)

    def of(self, game: str) -> dict[str, Any]:
        """Every part `game` can use, by name (the most specific of each name; the game's own
        first, then its family's, then every game's).

        Args:
            game: the game.
        """
        load_plugin(game)
        out: dict[str, Any] = {}
        for key in lookup_keys(game):
            for (g, n), item in self._items.items():
                if g == key and n not in out:
                    out[n] = item
        return out

    def __contains__(self, name: object) -> bool:
        return ("*", name) in self._items

    def __getitem__(self, name: str) -> Any:
        """The part `name` of every game (KeyError: none)."""
        return self._items[("*", name)]

    def __iter__(self):
        """The names of the parts of every game, in registration order."""
        return (n for g, n in list(self._items) if g == "*")

    def __len__(self) -> int:
        return sum(1 for g, _ in self._items if g == "*")

    def owners(self, name: str) -> list[str]:
        """The games (or families, or ``*``) a part of this name is registered for.

        Args:
            name: the part's name.
        """
        return sorted(g for g, n in self._items if n == name)

    def pop(self, name: str, game: str = "*") -> Any | None:
        """Remove a part (tests that register one for a while).

        Args:
            name: the part's name.
            game: the game it was registered for.
        """
        return self._items.pop((game, name), None)


_GAMES = Registry("game")
"""Game name -> the factory of its game object."""
_FAMILIES = Registry("game family")
"""Family prefix -> the factory of one of its games (from the name after the prefix)."""
_INSTANCES: dict[str, Any] = {}
_LOADED: set[str] = set()
_REGISTERED: set[str] = set()  # names given to register_plugin in this process
_FROM_ENV: list[bool] = []  # [True] once PLUGINS_ENV was read


def register_game(name: str, factory: Callable[[], Any]) -> None:
    """Register a game: `factory()` returns the game object (called once, then cached)."""
    if ":" in name:
        raise ValueError(f"game: a game name has no ':' ({name!r}); families use register_family")
    _GAMES.add(name, factory)
    _INSTANCES.pop(name, None)
    _LOADED.add(name)


def register_family(prefix: str, factory: Callable[[str], Any]) -> None:
    """Register a family of games named ``prefix:NAME``; `factory(NAME)` builds one (and
    raises a ValueError for a name the family does not have)."""
    _FAMILIES.add(prefix, factory)
    _LOADED.add(prefix)


def register_plugin(name: str, module: str) -> None:
    """Make a plug-in module known under a game or family name (imported on first use).

    The plug-in reaches Ray workers too (`play.shipping`): a local Ray's workers get the name
    and the directory the module is imported from, and a cluster gets the module's top-level
    package shipped with the job. Register before the games start."""
    PLUGINS[name] = module
    _REGISTERED.add(name)


def _read_env() -> None:
    """Add the plug-ins of `PLUGINS_ENV` to `PLUGINS`, once (a malformed value is one error,
    raised on every lookup until it is fixed)."""
    if _FROM_ENV:
        return
    text = os.environ.get(PLUGINS_ENV, "").strip()
    if len(text) > MAX_TEXT:
        raise ValueError(f"game: {PLUGINS_ENV} holds {len(text)} characters, more than "
                         f"{MAX_TEXT}")
    if text:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not all(
                isinstance(k, str) and k and isinstance(v, str) and v for k, v in data.items()):
            raise ValueError(f"game: {PLUGINS_ENV} must be a JSON object of game names and "
                             f"plug-in modules, e.g. {{\"mygame\": \"mygame.plugin\"}}; got "
                             f"{short(text)}")
        for name, module in data.items():
            if name not in _REGISTERED:
                PLUGINS[name] = module
    _FROM_ENV.append(True)


def plugin_module(name: str) -> str | None:
    """The module of the plug-in that registers a game (or its family): from `PLUGINS`
    (with `register_plugin` and `PLUGINS_ENV`), else an installed entry point; None when no
    plug-in names it (a game registered with `register_game` alone, or an unknown one).

    Args:
        name: a game or family name.
    """
    _read_env()
    fam = family_of(name)
    return PLUGINS.get(fam) or _entry_points().get(fam)


def outside_plugins(loaded_only: bool = False) -> dict[str, str]:
    """The plug-ins this process knows beyond the shipped ones, by name: every `PLUGINS`
    entry that is not one of `SHIPPED_PLUGINS` (from `register_plugin` or `PLUGINS_ENV`) and
    every entry-point plug-in loaded so far. Other processes of a run (Ray workers) must know
    them too.

    Args:
        loaded_only: only the plug-ins loaded in this process (the ones its games used).
    """
    _read_env()
    out = {n: m for n, m in PLUGINS.items() if SHIPPED_PLUGINS.get(n) != m}
    if _LOADED - set(PLUGINS):
        points = _entry_points()
        out.update({n: points[n] for n in sorted(_LOADED) if n not in PLUGINS and n in points})
    if loaded_only:
        out = {n: m for n, m in out.items() if n in _LOADED}
    return out


def games_without_plugin() -> list[str]:
    """Games (and families) registered in this process that no plug-in names (`register_game`
    or `register_family` called outside a plug-in's `register()`, or under another name than
    the plug-in's): another process, such as a Ray worker, cannot build them by name."""
    _read_env()
    names = set(_GAMES) | set(_FAMILIES)
    points = _entry_points() if names - set(PLUGINS) else {}
    return sorted(n for n in names if n not in PLUGINS and n not in points)


def family_of(name: str) -> str:
    """The plug-in name of a game: ``openspiel`` for ``openspiel:connect_four``."""
    return name.partition(":")[0]


def lookup_keys(name: str) -> tuple[str, ...]:
    """Where per-game registries look for a game's parts, most specific first."""
    fam = family_of(name)
    return (name, "*") if fam == name else (name, fam, "*")


def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points
    try:
        return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    except Exception:  # noqa: BLE001 - a broken installed package must not break lookups
        return {}


def load_plugin(name: str) -> None:
    """Import the plug-in of a game (or family) once and call its `register()`, which
    declares, in one place, everything the game registers; unknown names are left to the
    caller. (A plug-in module without `register()` registers as it is imported.)"""
    fam = family_of(name)
    if fam in _LOADED:
        return
    module = plugin_module(fam)
    if module is None:
        return
    try:
        plugin = importlib.import_module(module)
    except ImportError as e:
        raise ValueError(f"game: the plug-in of {fam!r} ({module}) cannot be imported: {e}"
                         ) from None
    _LOADED.add(fam)  # (before register(): its own lookups must not load it again)
    register = getattr(plugin, "register", None)
    if callable(register):
        try:
            register()
        except BaseException:
            _LOADED.discard(fam)
            raise


def get_game(name: str):
    """The game called `name`; an unknown name is one clear error listing the known ones."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"game: a game name expected, got {name!r}")
    game = _INSTANCES.get(name)
    if game is not None:
        return game
    load_plugin(name)
    fam, sep, rest = name.partition(":")
    if sep:
        if fam not in _FAMILIES:
            raise ValueError(f"game: {_FAMILIES.unknown(fam, f' in {name!r}', game_names())}")
        game = _FAMILIES[fam](rest)
    elif name in _GAMES:
        game = _GAMES[name]()
    else:
        raise ValueError(f"game: {_GAMES.unknown(name, '', game_names())}")
    _INSTANCES[name] = game
    return game


def game_names() -> list[str]:
    """Registered and installable games; a family shows as ``NAME:...``."""
    _read_env()
    names = set(_GAMES) | {f"{f}:..." for f in _FAMILIES}
    for n in set(PLUGINS) | set(_entry_points()):
        if n not in _GAMES and n not in _FAMILIES:
            names.add(n)
    return sorted(names)
