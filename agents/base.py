"""The agent protocol: one decision at a time, reproducible from a seed."""

from __future__ import annotations

from typing import Any, Protocol

from games.api import Action, GameState


class Agent(Protocol):
    """Chooses one action for the current player of a state.

    `act` receives the real state (agents copy it before searching) and nothing else: a
    forward-model budget, like every other setting, is a parameter of the agent, given when
    it is built (`agents.registry.make_agent`); an agent constructed with the same
    parameters and seed makes the same decisions. Search agents also take `ms`, a time per
    move (`agents.search.Budget`), which makes their decisions depend on the machine's speed.
    """

    name: str

    def act(self, state: GameState) -> Action: ...

    def params(self) -> dict[str, Any]:
        """The parameters that rebuild this exact agent with `agents.registry.make_agent`."""
