"""Agents: the protocol, agents by name, the search agents and what they share.

The public surface: `Agent` (the protocol), the registry (`make_agent`, `register`,
`agent_names`, `validate_agent`), agent specs as text (`split_spec`, `parse_agent_spec`),
evaluators (`Evaluator`, `register_evaluator`, `make_evaluator`), the search agents
(`OSLAAgent`, `FlatMCAgent`, `MCTSAgent`, `RHEAAgent`, `PMCTSAgent`, `HPSAgent`) with their shared
`SearchAgent`, `Budget` and `register_hooks`, the agents' conformance check
(`check_agents`) and every check of a game's plug-in in one report (`agents.check`, the
command `playstyles check`). What plays whole games (the game runner, tournaments, ladders, presets, agent
specs as text) is the package `play`.
"""

import base.compiled  # noqa: F401  (first: it picks compiled or source modules)
from agents.base import Agent
from agents.conformance import check_agents
from agents.evaluators import Evaluator, make_evaluator, register_evaluator
from agents.flat_mc import FlatMCAgent
from agents.hps import HPSAgent
from agents.mcts import MCTSAgent
from agents.osla import OSLAAgent
from agents.portfolio.pmcts import PMCTSAgent
from agents.registry import agent_names, make_agent, register_agent, validate_agent
from agents.rhea import RHEAAgent
from agents.search import Budget, SearchAgent, register_hooks

__all__ = ["Agent", "Budget", "Evaluator", "FlatMCAgent", "HPSAgent", "MCTSAgent", "OSLAAgent",
           "PMCTSAgent", "RHEAAgent", "SearchAgent", "agent_names", "check_agents",
           "make_agent", "make_evaluator", "register_agent", "register_evaluator", "register_hooks",
           "validate_agent"]
