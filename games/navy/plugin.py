"""Navy Defense as a playstyles plug-in: importing this module registers the game and its
evaluator ``cost`` (the default of the search agents)."""

from __future__ import annotations

from agents.evaluators import register_evaluator
from games.navy.evaluators import CostEvaluator
from games.navy.game import NavyGame
from games.registry import register_game

register_game("navy", NavyGame)
register_evaluator("navy", "cost", CostEvaluator, default=True)
