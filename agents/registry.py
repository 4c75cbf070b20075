"""Agents by name: configs, presets and the command line build agents from a name plus
parameters, so an agent is always data that can be written down and rebuilt.

Search agents are registered for every game; a game's plug-in registers the agents that only
make sense for it (its rule-based player) under the game's name, so ``rule_based`` means the
rule-based player of whatever game is being played. An agent whose constructor takes a `game`
parameter is given the game it is built for.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from base.limits import short
from games.registry import Registry

AGENTS = Registry("agent")
"""Agent factories: for every game (``*``) or for one game (or family)."""


def register_agent(game: str, name: str, factory: Callable[..., Any]) -> None:
    """Register an agent for one game (or family), or for every game.

    Args:
        game: the game (or family); ``*`` for every game.
        name: its name in specs and configs.
        factory: (seed=..., budget=..., **params) -> the agent.
    """
    AGENTS.add(name, factory, game=game)


def agent_names(game: str | None = None) -> list[str]:
    """The agents that can play `game` (every registered agent when no game is given)."""
    return AGENTS.names(game)


def factory_of(name: str, game: str | None = None) -> Callable[..., Any]:
    """The factory of agent `name` for `game`; an unknown name is one clear error."""
    if game is not None:
        return AGENTS.get(name, game)
    found = AGENTS.find(name, "*")
    if found is not None:
        return found
    owners = AGENTS.owners(name)
    if len(owners) == 1:
        return AGENTS.find(name, owners[0])
    where = "" if not owners else " without a game (several games have one: name the game)"
    raise ValueError(AGENTS.unknown(name, where, agent_names()))


def _accepts(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(factory).parameters)


def _with_game(name: str, factory: Callable[..., Any], params: dict[str, Any],
               game: str | None) -> dict[str, Any]:
    """Parameters with the game filled in where the agent takes one (a parameter naming
    another game than the one played is an error)."""
    params = dict(params)
    given = params.get("game")
    if given is not None and game is not None and given != game:
        raise ValueError(f"agent {name}: built for game {short(given)}, asked to play {short(game)}")
    if "game" in _accepts(factory):
        if game is not None:
            params["game"] = game
    else:
        params.pop("game", None)
    return params


def check_agent(name: str, params: dict[str, Any], game: str | None = None) -> None:
    """Fail with one clear error for an unknown agent name or parameter, before anything runs."""
    accepted = _accepts(factory_of(name, game))
    for key in params:
        if key not in accepted and key != "game":
            raise ValueError(f"agent {name}: unknown parameter {short(key)}; "
                             f"known: {', '.join(accepted)}")


def validate_agent(name: str, params: dict[str, Any], game: str | None = None) -> None:
    """`check_agent`, and every value too, without building the agent: an agent class that
    declares `check_params(params, game)` (every search agent) is given its parameters with
    the defaults filled in, so a config fails before any game runs, naming the value."""
    check_agent(name, params, game)
    factory = factory_of(name, game)
    target = getattr(factory, "func", factory)  # a functools.partial's class
    check = getattr(target, "check_params", None)
    if check is None:
        return
    full = {k: p.default for k, p in inspect.signature(target).parameters.items()
            if p.default is not inspect.Parameter.empty}
    full.update(getattr(factory, "keywords", None) or {})
    full.update(params)
    try:
        check(full, game)
    except TypeError as e:
        raise ValueError(f"agent {name}: {e}") from None


def accepts(name: str, key: str, game: str | None = None) -> bool:
    """Whether the agent `name` takes the parameter `key` (e.g. a budget); False for an
    unknown agent, which `check_agent` reports."""
    try:
        return key in _accepts(factory_of(name, game))
    except ValueError:
        return False


def make_agent_from(name: str, params: dict[str, Any], game: str | None = None):
    """Build the agent `name` from its parameters, for `game` if given (a `game` among the
    parameters that names another game is an error); an unknown name or parameter is one
    clear error."""
    if game is None:
        game = params.get("game")
    check_agent(name, params, game)
    factory = factory_of(name, game)
    return factory(**_with_game(name, factory, params, game))


def make_agent(name: str, game: str | None = None, **params: Any):
    """`make_agent_from` with the parameters as keywords."""
    return make_agent_from(name, params, game)


# ------------------------------------------------------------------------------ agents of every game

def _random(seed: int = 0):
    return RandomAgent(seed)


def _human(seed: int = 0):
    return HumanAgent(seed)


from agents.action_tree import ActionTreeAgent  # noqa: E402
from agents.flat_mc import FlatMCAgent  # noqa: E402
from agents.hop import HOPAgent  # noqa: E402
from agents.hps import HPSAgent  # noqa: E402
from agents.human import HumanAgent  # noqa: E402
from agents.mcts import MCTSAgent  # noqa: E402
from agents.osla import OSLAAgent  # noqa: E402
from agents.portfolio.pmcts import PMCTS_CONFIGURATIONS  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from agents.rhea import RHEAAgent  # noqa: E402
from agents.turn_rollout import HillclimbAgent, TurnRolloutAgent  # noqa: E402

register_agent("*", "random", _random)
register_agent("*", "human", _human)
register_agent("*", "osla", OSLAAgent)
register_agent("*", "mc", FlatMCAgent)
register_agent("*", "mcts", MCTSAgent)
register_agent("*", "rhea", RHEAAgent)
register_agent("*", "hop", HOPAgent)
register_agent("*", "atree", ActionTreeAgent)
# Hierarchical Portfolio Search: registered for every game, refused (naming the game) by one
# that registers no portfolio scripts, like P-MCTS.
register_agent("*", "hps", HPSAgent)
register_agent("*", "turn_rollout", TurnRolloutAgent)
register_agent("*", "hillclimb", HillclimbAgent)
# Portfolio MCTS: one class, three registered configurations of the paper (plain, progressive
# bias, weighted progressive unpruning with bias); params() carries bias and pruning, so any of
# the names rebuilds any configuration exactly.
for _name, _factory in PMCTS_CONFIGURATIONS.items():
    register_agent("*", _name, _factory)
