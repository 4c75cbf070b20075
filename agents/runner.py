"""Playing one game between agents: the loop every tool (CLI, tournaments, evolution) shares."""

from __future__ import annotations

from typing import Callable, Sequence

from games.api import GameState


def play_game(state: GameState, agents: Sequence, budget: int | None = None,
              on_turn_end: Callable[[GameState], None] | None = None,
              max_actions: int = 1_000_000) -> GameState:
    """Let `agents[p]` choose for player p until the game ends (the state is mutated).

    A turn whose only legal action is the end of the turn ends without asking the agent,
    as in the reference game loop.
    """
    n = 0
    while not state.is_terminal():
        actions = state.legal_actions()
        player = state.current_player
        if len(actions) == 1:
            action = actions[0]
        else:
            action = agents[player].act(state, budget)
        ends_turn = state.action_type_name(action) == "END_TURN"
        state.apply(action)
        n += 1
        if n >= max_actions:
            raise RuntimeError(f"game did not end within {max_actions} actions")
        if on_turn_end is not None and (ends_turn or state.is_terminal()):
            on_turn_end(state)
    return state
