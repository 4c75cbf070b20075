"""Tribes as a playstyles plug-in: `register()` registers everything the game brings.

`games.registry.PLUGINS` names this module, so the first request for the game "tribes"
(a config, a preset, the command line, an agent) imports it. Nothing else in the generic
layers knows Tribes.
"""

from __future__ import annotations

from pathlib import Path

from agents.encodings import register_encoding
from agents.evaluators import register_evaluator
from agents.hps import register_phases
from agents.learned import register_model
from agents.portfolio.script import register_layout, register_portfolio, register_scripts
from agents.registry import register_agent
from agents.search import register_hooks
from games.registry import register_game
from games.tribes import actions, encoding, features, phases, scripts
from games.tribes.evaluators import TERMS, WEIGHTS, TribesDiffHeuristic
from games.tribes.game import TribesGame
from games.tribes.hooks import TribesHooks
from games.tribes.rule_based import RuleBasedAgent
from qd.features import register_features


def register() -> None:
    """Everything Tribes brings, registered in one place (`games.registry.load_plugin`
    calls it once, on the first request for the game)."""
    register_game("tribes", TribesGame)
    register_evaluator("tribes", "diff", TribesDiffHeuristic, default=True,
                       terms=dict(zip(TERMS, WEIGHTS)))
    register_hooks("tribes", TribesHooks)
    register_agent("tribes", "rule_based", RuleBasedAgent)
    register_encoding("tribes", encoding.NAME, encoding.active, encoding.LENGTH,
                      version=encoding.VERSION, fields=encoding.FIELDS, default=True)
    register_model("tribes", "default", Path(__file__).parent / "models" / "default.npz")
    register_portfolio("tribes", scripts.TribesContext, scripts.TYPE_ORDER,
                       actions.ACTION_OF_NAME)
    register_scripts("tribes", scripts.SCRIPTS)
    register_layout("tribes", "paper", scripts.PAPER_LAYOUT, default=True)
    register_layout("tribes", "reference-excluded", scripts.REFERENCE_EXCLUDED)
    register_phases("tribes", phases.PHASES, phases.INTERRUPTS)
    register_features(features.FEATURES)
