"""Navy Defense as a playstyles plug-in: importing this module registers the game, its
evaluator ``cost`` (the default of the search agents), and its agents: the hindsight
optimisation settings of the source (``hindsight``, ``paranoid``, ``omniscient``: the generic
`agents.hop.HOPAgent`) and the scripted baselines ``static``, ``patrol``, ``reactive``."""

from __future__ import annotations

from functools import partial

from agents.evaluators import register_evaluator
from agents.hop import HOPAgent
from agents.registry import register as register_agent
from games.navy.baselines import PatrolAgent, ReactiveAgent, StaticAgent
from games.navy.evaluators import CostEvaluator
from games.navy.game import NavyGame
from games.registry import register_game

register_game("navy", NavyGame)
register_evaluator("navy", "cost", CostEvaluator, default=True)
register_agent("hindsight", partial(HOPAgent, belief="particles"), game="navy")
register_agent("paranoid", partial(HOPAgent, belief="none"), game="navy")
register_agent("omniscient", partial(HOPAgent, belief="true", samples=1), game="navy")
register_agent("static", StaticAgent, game="navy")
register_agent("patrol", PatrolAgent, game="navy")
register_agent("reactive", ReactiveAgent, game="navy")
