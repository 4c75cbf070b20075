"""A human at the terminal: shows the position and the legal actions, reads a choice.

It lets a designer play against any agent or preset to feel a play-style directly.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from games.api import Action, GameState


class HumanAgent:
    name = "human"

    def __init__(self, seed: int = 0, show: Callable[[GameState], str] | bool = True,
                 stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Args:
            seed: unused (a human needs none); kept so every agent builds the same way.
            show: how to show the position before each choice: True (default) for the
                game's own text rendering, False for nothing, or a function state -> text.
            stdin, stdout: where choices are read and the position is written.
        """
        self.seed = seed
        self.show = show
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def act(self, state: GameState, budget: int | None = None) -> Action:
        actions = state.legal_actions()
        out = self.stdout
        if self.show is True:
            from games.registry import get_game
            print(get_game(state.game_name).render(state), file=out)
        elif self.show:
            print(self.show(state), file=out)
        print(f"\nplayer {state.current_player} ({state.player_name(state.current_player)}), "
              f"choose an action:", file=out)
        for i, a in enumerate(actions):
            print(f"  {i:>3}  {state.describe(a)}", file=out)
        while True:
            print("> ", end="", file=out, flush=True)
            line = self.stdin.readline()
            if not line:
                raise EOFError("input closed")
            text = line.strip()
            if text.isdigit() and int(text) < len(actions):
                return actions[int(text)]
            matches = [a for a in actions if text and text.lower() in state.describe(a).lower()]
            if len(matches) == 1:
                return matches[0]
            print(f"type a number from 0 to {len(actions) - 1}, or text matching one action "
                  f"({len(matches)} match)", file=out)

    def params(self) -> dict:
        return {"seed": self.seed}
