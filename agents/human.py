"""A human at the terminal: shows the position and the legal actions, reads a choice.

It lets a designer play against any agent or preset to feel a play-style directly. At the
prompt, a number picks that action, text picks the one action whose description contains it;
`help` lists the commands, `list` shows the position and the actions again, and `quit` (or
Ctrl-D, or Ctrl-C) abandons the game: `act` raises `GameAbandoned`, which the game loop's
caller (`play.watch.play_shown`) turns into a clean end.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from games.api import Action, GameState
from games.registry import get_game

QUIT = ("quit", "exit")
HELP = ("help", "?")
LIST = ("list",)


class GameAbandoned(Exception):
    """The human ended the game at the prompt (`quit`, Ctrl-D or Ctrl-C); the message says
    which."""


class HumanAgent:
    name = "human"

    def __init__(self, seed: int = 0, show: Callable[[GameState], str] | bool = True,
                 stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Args:
            seed: unused (a human needs none); kept so every agent builds the same way.
            show: how to show the position before each choice: True (default) for the
                game's own text rendering of what the player sees (`render_view`), False
                for nothing, or a function state -> text.
            stdin, stdout: where choices are read and the position is written.
        """
        self.seed = seed
        self.show = show
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def _show(self, state: GameState, actions) -> None:
        out = self.stdout
        if self.show is True:
            print(get_game(state.game_name).render_view(state, state.current_player), file=out)
        elif self.show:
            print(self.show(state), file=out)
        print(f"\nplayer {state.current_player} ({state.player_name(state.current_player)}), "
              f"choose an action (help: the commands):", file=out)
        for i, a in enumerate(actions):
            print(f"  {i:>3}  {state.describe(a)}", file=out)

    def _help(self, n: int) -> str:
        return (f"  0-{n - 1}      play the action with that number\n"
                f"  TEXT     play the one action whose description contains TEXT "
                f"(any case)\n"
                f"  list     show the position and the actions again\n"
                f"  help     this list of commands\n"
                f"  quit     abandon the game (Ctrl-D and Ctrl-C too)")

    def _read(self) -> str:
        out = self.stdout
        print("> ", end="", file=out, flush=True)
        try:
            line = self.stdin.readline()
        except KeyboardInterrupt:
            print(file=out)
            raise GameAbandoned("Ctrl-C") from None
        if not line:
            print(file=out)
            raise GameAbandoned("input closed")
        return line.strip()

    def act(self, state: GameState) -> Action:
        actions = state.legal_actions()
        out = self.stdout
        self._show(state, actions)
        while True:
            text = self._read()
            word = text.lower()
            if word in QUIT:
                raise GameAbandoned("quit")
            if word in HELP:
                print(self._help(len(actions)), file=out)
                continue
            if word in LIST:
                self._show(state, actions)
                continue
            if text.isdigit() and int(text) < len(actions):
                return actions[int(text)]
            matches = [a for a in actions if text and word in state.describe(a).lower()]
            if len(matches) == 1:
                return matches[0]
            print(f"type a number from 0 to {len(actions) - 1}, or text matching one action "
                  f"({len(matches)} match); help lists the commands", file=out)

    def params(self) -> dict:
        return {"seed": self.seed}
