"""Tribolo as a playstyles plug-in: `register()` registers everything the game brings
(the game, its default leaf evaluator ``cells`` for the generic search agents, the original AI
as the agent ``tribolo_ai``, max^n as ``tribolo_maxn``, the portfolio scripts and their
``styles`` layout for Portfolio MCTS, and the behaviour features)."""

from __future__ import annotations

from agents.evaluators import register_evaluator
from agents.portfolio.script import register_layout, register_portfolio, register_scripts
from agents.registry import register_agent
from games.registry import register_game
from games.tribolo import features, scripts
from games.tribolo.ai import TriboloAI
from games.tribolo.evaluators import TERMS, CellsHeuristic
from games.tribolo.game import TriboloGame
from games.tribolo.maxn import MaxnAgent
from qd.features import register_features


def register() -> None:
    """Everything Tribolo brings, registered in one place (`games.registry.load_plugin`
    calls it once, on the first request for the game)."""
    register_game("tribolo", TriboloGame)
    register_evaluator("tribolo", "cells", CellsHeuristic, default=True, terms=TERMS)
    register_agent("tribolo", "tribolo_ai", TriboloAI)
    register_agent("tribolo", "tribolo_maxn", MaxnAgent)
    register_portfolio("tribolo", scripts.TriboloContext, (scripts.JUMP,))
    register_scripts("tribolo", scripts.SCRIPTS)
    register_layout("tribolo", "styles", scripts.STYLES_LAYOUT, default=True)
    register_features(features.FEATURES)
