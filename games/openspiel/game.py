"""OpenSpiel games (module ``pyspiel`` of the ``open_spiel`` package) behind `games.api`.

``openspiel:<text>`` is the game ``pyspiel.load_game(<text>)``: a short name
(``openspiel:connect_four``) or a name with parameters as pyspiel writes them
(``openspiel:breakthrough(rows=6,columns=6)``). Only turn-based games are played: simultaneous
and mean-field games are refused when the game is loaded.

How OpenSpiel maps onto the protocol:

* an action is pyspiel's int; every action ends the mover's turn (``multi_action_turns`` is
  False), and the player to act is whoever pyspiel says (in a game such as pig a player may act
  several times in a row);
* chance nodes are never shown to agents: after every move (and when a game starts, e.g.
  backgammon's first dice or kuhn poker's deal) the state samples chance outcomes with its own
  generator, so the same seed gives the same chance outcomes for the same moves, and `reseed`
  gives a search copy its own; the generator is splitmix64 whose whole state is one 64-bit
  integer, so copying it costs nothing;
* ``tick`` counts completed rounds: the number of player (non-chance) moves made so far,
  integer-divided by the number of players;
* levels are the generic integers (``range:0-9``), which these games ignore: the game is fixed
  by its name and parameters, and the seed decides the chance outcomes;
* results are pyspiel's returns: `scores` is ``state.returns()``, `winner` the single player
  with the strictly highest return once the game is over (None on a tie; in a one-player game
  the player always "wins", use `scores`), `ranking` players by return, ties by index.
"""

from __future__ import annotations

import contextlib
import difflib
from typing import Any

from games.api import BaseGame, IllegalAction, group_by_player, log_add, log_to_list

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_TO_UNIT = 1.0 / (1 << 53)

INSTALL_HINT = 'game: openspiel games need the openspiel extra: pip install -e ".[openspiel]"'


def _import_pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise ValueError(INSTALL_HINT) from None
    return pyspiel


def _mix(x: int) -> int:
    """The splitmix64 output function of a 64-bit value."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _seed_state(seed: int) -> int:
    """The generator state for a seed (mixed, so nearby seeds give unrelated streams)."""
    return _mix((int(seed) + _GAMMA) & _MASK)


# ------------------------------------------------------------------------------ states

class OpenSpielState:
    """One position of an OpenSpiel game: a pyspiel state plus a few small fields.

    `spiel_state` is the wrapped pyspiel state, for agents that want pyspiel's own views
    (observation tensors, information states); change it only through `apply`.
    """

    __slots__ = ("_legal", "_log", "_n", "_plies", "_rng", "_state", "game_name", "tick")

    multi_action_turns = False
    """Every action ends the mover's turn (see `games.api.ends_turn`)."""

    def __init__(self, game_name: str, spiel_state: Any, num_players: int, seed: int):
        self.game_name = game_name
        self.tick = 0
        self._state = spiel_state
        self._n = num_players
        self._rng = _seed_state(seed)
        self._legal: list[int] | None = None
        self._plies = 0
        self._log: tuple | None = None
        self._resolve_chance()

    # -- basics ---------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self._n

    @property
    def current_player(self) -> int:
        """The player to act (pyspiel's negative ids, e.g. -4 for terminal, once it is over)."""
        return self._state.current_player()

    @property
    def spiel_state(self) -> Any:
        return self._state

    def copy(self) -> OpenSpielState:
        new = OpenSpielState.__new__(OpenSpielState)
        new.game_name = self.game_name
        new.tick = self.tick
        new._state = self._state.clone()
        new._n = self._n
        new._rng = self._rng
        new._legal = self._legal          # shared until either side applies (never modified)
        new._plies = self._plies
        new._log = self._log              # persistent: shared history
        return new

    def reseed(self, seed: int) -> None:
        self._rng = _seed_state(seed)

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    # -- actions --------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act (a cached list shared with copies: do not
        modify it); empty once the game is over."""
        if self._legal is None:
            self._legal = self._state.legal_actions()
        return self._legal

    def actions_by_actor(self):
        return group_by_player(self)

    def apply(self, action: int) -> None:
        legal = self.legal_actions()
        if action not in legal:
            if self._state.is_terminal():
                raise IllegalAction(f"action {action!r}: {self.game_name} is over")
            raise IllegalAction(f"action {action!r} is not legal for player "
                                f"{self._state.current_player()} in {self.game_name} "
                                f"({len(legal)} legal actions: {legal[:10]}"
                                f"{' ...' if len(legal) > 10 else ''})")
        player = self._state.current_player()
        self._state.apply_action(int(action))
        self._log = log_add(self._log, self.tick, player, "moves", 1)
        self._plies += 1
        self.tick = self._plies // self._n
        self._legal = None
        self._resolve_chance()

    def _resolve_chance(self) -> None:
        """Play chance nodes with outcomes drawn from the state's own generator."""
        s = self._state
        while s.is_chance_node():
            outcomes = s.chance_outcomes()
            self._rng = x = (self._rng + _GAMMA) & _MASK
            u = (_mix(x) >> 11) * _TO_UNIT
            acc = 0.0
            chosen = outcomes[-1][0]      # guards against probabilities summing below 1
            for a, p in outcomes:
                acc += p
                if u < acc:
                    chosen = a
                    break
            s.apply_action(chosen)

    # -- results --------------------------------------------------------------
    def winner(self) -> int | None:
        if not self._state.is_terminal():
            return None
        r = self._state.returns()
        best = max(r)
        top = [p for p, v in enumerate(r) if v == best]
        return top[0] if len(top) == 1 else None

    def ranking(self) -> list[int]:
        r = self._state.returns()
        return sorted(range(self._n), key=lambda p: (-r[p], p))

    def scores(self) -> list[float]:
        """pyspiel's returns (usually all 0 until the game is over)."""
        return list(self._state.returns())

    def summary(self, player: int) -> dict[str, float]:
        moves = sum(1 for _, p, _, _ in log_to_list(self._log) if p == player)
        return {"score": float(self._state.returns()[player]), "moves": float(moves)}

    def player_name(self, player: int) -> str:
        return f"player {player}"

    def events(self) -> list[tuple[int, int, str, float]]:
        """One ``(round, player, "moves", 1)`` per player move (chance moves are not logged)."""
        return log_to_list(self._log)

    def action_type_name(self, action: int) -> str:
        return "MOVE"

    def describe(self, action: int) -> str:
        player = self._state.current_player()
        if player < 0:                    # terminal: pyspiel has no mover to describe for
            return str(action)
        try:
            return self._state.action_to_string(player, int(action))
        except Exception:  # noqa: BLE001 - a description must never fail
            return str(action)

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return (f"<OpenSpielState {self.game_name} tick={self.tick} "
                f"player={self._state.current_player()}>")


# ------------------------------------------------------------------------------ games

def _check_int_actions(game: Any, name: str) -> None:
    """Refuse a game whose players act through action structs only (e.g. crossword): walk
    to the first player node (first chance outcomes) and ask for its legal int actions."""
    s = game.new_initial_state()
    for _ in range(10_000):
        if not s.is_chance_node():
            break
        s.apply_action(s.chance_outcomes()[0][0])
    if s.is_terminal() or s.current_player() < 0:
        return
    try:
        s.legal_actions()
    except Exception as e:  # noqa: BLE001 - pyspiel.SpielError
        raise ValueError(f"game: {name} cannot be played with int actions: "
                         f"{str(e).strip() or type(e).__name__}") from None


class OpenSpielGame(BaseGame):
    """One OpenSpiel game; `text` is what follows ``openspiel:`` (given to pyspiel.load_game).

    Levels are integers which these games ignore (`default_levels` is ``range:0-9`` so the
    generic tools have something to iterate over); there are no game options.
    """

    option_names: tuple[str, ...] = ()
    default_levels = "range:0-9"

    def __init__(self, text: str):
        self.text = text
        self.name = f"openspiel:{text}"
        short = text.partition("(")[0].strip()
        if not short:
            raise ValueError('game: an OpenSpiel game name expected after "openspiel:" '
                             "(e.g. openspiel:connect_four)")
        pyspiel = _import_pyspiel()
        names = list(pyspiel.registered_names())
        if short not in names:
            # games written in Python (python_*) register on import; optional, so a failure
            # only leaves the name unknown, which is reported below
            with contextlib.suppress(Exception):
                import open_spiel.python.games  # noqa: F401
                names = list(pyspiel.registered_names())
        if short not in names:
            close = difflib.get_close_matches(short, names, n=3, cutoff=0.6)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            examples = ", ".join(n for n in ("tic_tac_toe", "connect_four", "breakthrough",
                                             "hex", "othello", "backgammon", "kuhn_poker")
                                 if n in names)
            raise ValueError(f"game: unknown OpenSpiel game {short!r} in {self.name!r}; "
                             f"{hint}e.g. {examples} ({len(names)} games: "
                             "python -c 'import pyspiel; print(pyspiel.registered_names())')")
        try:
            game = pyspiel.load_game(text)
        except Exception as e:  # noqa: BLE001 - pyspiel.SpielError and the like
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"game: OpenSpiel cannot load {text!r}: {msg}") from None
        gtype = game.get_type()
        dyn = gtype.dynamics
        if dyn != pyspiel.GameType.Dynamics.SEQUENTIAL:
            kind = "mean-field" if dyn == pyspiel.GameType.Dynamics.MEAN_FIELD else "simultaneous-move"
            inner = text if "(" in text else f"{text}()"
            extra = (" (a turn-based version: "
                     f"openspiel:turn_based_simultaneous_game(game={inner}))"
                     if dyn == pyspiel.GameType.Dynamics.SIMULTANEOUS else "")
            raise ValueError(f"game: {self.name} is a {kind} game; only turn-based "
                             f"(sequential) OpenSpiel games are supported{extra}")
        if game.num_players() < 1:
            raise ValueError(f"game: {self.name} has {game.num_players()} players; "
                             "at least 1 is needed")
        _check_int_actions(game, self.name)
        self.spiel_game = game
        self.num_players = game.num_players()

    def __reduce__(self):                 # rebuild from the name (e.g. when sent to a worker)
        return (OpenSpielGame, (self.text,))

    def new_state(self, level: Any, seed: int, **options: Any) -> OpenSpielState:
        """A new game; `level` is ignored, `seed` decides every chance outcome."""
        self.check_options(options)
        return OpenSpielState(self.name, self.spiel_game.new_initial_state(),
                              self.num_players, seed)

    def __repr__(self) -> str:
        return f"OpenSpielGame({self.text!r})"
