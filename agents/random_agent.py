"""The uniformly random baseline: every legal action, END_TURN included, is equally likely."""

from __future__ import annotations

import numpy as np

from games.api import Action, GameState


class RandomAgent:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState) -> Action:
        actions = state.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]

    def params(self) -> dict:
        return {"seed": self.seed}
