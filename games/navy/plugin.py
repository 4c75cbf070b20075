"""Navy Defense as a playstyles plug-in: `register()` registers the game, its
evaluator ``cost`` (the default of the search agents), and its agents: the hindsight
optimisation settings of the source (``hindsight``, ``paranoid``, ``omniscient``: the generic
`agents.hop.HOPAgent` with Navy's `model` and `costs`, `games.navy.hindsight.NavyHOP`) and the
scripted baselines ``static``, ``patrol``, ``reactive``; its behaviour features
(`games.navy.features`) and the genome mapping ``navy_costs`` (genome -> `costs`)."""

from __future__ import annotations

from functools import partial

from agents.evaluators import register_evaluator
from agents.registry import register_agent
from games.navy import features
from games.navy.baselines import PatrolAgent, ReactiveAgent, StaticAgent
from games.navy.evaluators import COST_TERMS, TERMS, TRUE_WEIGHTS, cost_evaluator
from games.navy.game import NavyGame
from games.navy.hindsight import NavyHOP, genome_costs
from games.registry import register_game
from qd.features import register_features
from qd.genome_games import register_mapping


def register() -> None:
    """Everything Navy Defense brings, registered in one place (`games.registry.load_plugin`
    calls it once, on the first request for the game)."""
    register_game("navy", NavyGame)
    register_evaluator("navy", "cost", cost_evaluator, default=True, terms=COST_TERMS)
    register_agent("navy", "hindsight", partial(NavyHOP, belief="particles"))
    register_agent("navy", "paranoid", partial(NavyHOP, belief="none"))
    register_agent("navy", "omniscient",
                   partial(NavyHOP, belief="true", samples=1, model="true"))
    register_mapping("navy", "navy_costs", genome_costs, genes=TERMS,
                     control=[TRUE_WEIGHTS[t] for t in TERMS])
    register_agent("navy", "static", StaticAgent)
    register_agent("navy", "patrol", PatrolAgent)
    register_agent("navy", "reactive", ReactiveAgent)
    register_features(features.FEATURES)
