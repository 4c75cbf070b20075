"""Agents by name: configs, presets and the command line build agents from a name plus
parameters, so an agent is always data that can be written down and rebuilt."""

from __future__ import annotations

import inspect
from typing import Any, Callable

_AGENTS: dict[str, Callable[..., Any]] = {}


def register(name: str, factory: Callable[..., Any]) -> None:
    _AGENTS[name] = factory


def agent_names() -> list[str]:
    return sorted(_AGENTS)


def check_agent(name: str, params: dict[str, Any]) -> None:
    """Fail with one clear error for an unknown agent name or parameter, before anything runs."""
    if name not in _AGENTS:
        raise ValueError(f"agent: unknown agent {name!r}; known agents: {', '.join(agent_names())}")
    accepted = inspect.signature(_AGENTS[name]).parameters
    for key in params:
        if key not in accepted:
            raise ValueError(f"agent {name}: unknown parameter {key!r}; "
                             f"known: {', '.join(accepted)}")


def validate_agent(name: str, params: dict[str, Any]) -> None:
    """`check_agent`, and a bad value too: the agent is built once and dropped (building an
    agent is cheap), so configs fail before any game runs."""
    check_agent(name, params)
    try:
        _AGENTS[name](**params)
    except TypeError as e:
        raise ValueError(f"agent {name}: {e}") from None


def make_agent(name: str, **params: Any):
    """Build the agent `name`; an unknown name or parameter is one clear error."""
    check_agent(name, params)
    return _AGENTS[name](**params)


def split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """`name` or `name:key=value,key=value` -> (name, params); values become int, float or text.

    `preset:FILE#NAME` -> the preset's agent and every parameter (`agents.presets`): every
    place that reads agent specs goes through here, so all of them accept presets."""
    if spec.strip().startswith("preset:"):
        from agents.presets import resolve_spec
        return resolve_spec(spec)
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"agent {spec!r}: expected key=value, got {item!r}")
        params[key.strip()] = _parse_value(value.strip())
    return name.strip(), params


def parse_agent_spec(spec: str, seed: int = 0):
    """Build an agent from a `name:key=value,...` spec, seeded with `seed` unless it sets one."""
    name, params = split_spec(spec)
    params.setdefault("seed", seed)
    return make_agent(name, **params)


def _parse_value(v: str) -> Any:
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def _random(seed: int = 0):
    from agents.random_agent import RandomAgent
    return RandomAgent(seed)


register("random", _random)


# Search agents (one decision = one search within a forward-model budget).
from agents.flat_mc import FlatMCAgent  # noqa: E402
from agents.mcts import MCTSAgent  # noqa: E402
from agents.osla import OSLAAgent  # noqa: E402
from agents.rhea import RHEAAgent  # noqa: E402

register("osla", OSLAAgent)
register("mc", FlatMCAgent)
register("mcts", MCTSAgent)
register("rhea", RHEAAgent)

from agents.rule_based import RuleBasedAgent  # noqa: E402

register("rule_based", RuleBasedAgent)

# Portfolio MCTS: one class, three registered configurations of the paper (plain, progressive
# bias, weighted progressive unpruning with bias); params() carries bias and pruning, so any of
# the names rebuilds any configuration exactly.
from functools import partial  # noqa: E402

from agents.portfolio.pmcts import PMCTSAgent  # noqa: E402

register("pmcts", partial(PMCTSAgent, bias=False, pruning=False))
register("pmcts_b", partial(PMCTSAgent, bias=True, pruning=False))
register("pmcts_pu", partial(PMCTSAgent, bias=True, pruning=True))


def _human(seed: int = 0, game: str = "tribes"):
    from agents.human import HumanAgent
    from games.registry import get_game
    return HumanAgent(seed, show=get_game(game).render)


register("human", _human)
