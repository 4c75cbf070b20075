"""Tribolo as a playstyles plug-in: importing this module registers everything the game brings
(the game, and the original AI as the agent ``tribolo_ai``)."""

from __future__ import annotations

from agents.registry import register as register_agent
from games.registry import register_game
from games.tribolo.ai import TriboloAI
from games.tribolo.game import TriboloGame

register_game("tribolo", TriboloGame)
register_agent("tribolo_ai", TriboloAI, game="tribolo")
