"""Agent specs as text, parsed at the edge: the command line, tournament configs and run
configs write an agent as ``name`` or ``name:key=value,key=value`` (or a preset,
``preset:FILE#NAME``). This module turns that text into a name and *typed* parameters, by
the agent's own signature, so agents only ever receive typed values:

* a flag (a `bool` parameter): ``true/false``, ``yes/no``, ``on/off``, ``1/0``;
* script weights (a mapping or sequence parameter): JSON, or ``Script:0.25;Other:1``;
* numbers: int, then float; anything else stays text (names, choices).
"""

from __future__ import annotations

import inspect
from typing import Any

from agents.registry import accepts, factory_of, make_agent_from
from base.files import load_json
from base.limits import short
from play.presets import resolve_spec

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def split_spec(spec: str, game: str | None = None) -> tuple[str, dict[str, Any]]:
    """`name` or `name:key=value,...` -> (name, typed params); `preset:FILE#NAME` -> the
    preset's agent and every parameter. A value that does not fit its parameter is one
    error naming the parameter."""
    if spec.strip().startswith("preset:"):
        return resolve_spec(spec)
    name, _, rest = spec.partition(":")
    name = name.strip()
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"agent {short(spec)}: expected key=value, got {short(item)}")
        params[key.strip()] = _number(value.strip())
    return name, typed_params(name, params, game)


def parse_agent_spec(spec: str, seed: int = 0, game: str | None = None,
                     budget: int | None = None):
    """Build an agent from a spec, seeded with `seed` unless it sets one.

    Args:
        spec: the agent spec.
        seed: the agent's seed, unless the spec sets one.
        game: the game it plays (for agents registered for one game).
        budget: forward-model calls per decision of an agent that takes a budget (it
            replaces one the spec names); None: the spec's or the agent's default.
    """
    name, params = split_spec(spec, game)
    params.setdefault("seed", seed)
    if budget is not None and accepts(name, "budget", game):
        params["budget"] = budget
    return make_agent_from(name, params, game)


def typed_params(name: str, params: dict[str, Any], game: str | None = None) -> dict[str, Any]:
    """Text values turned into what the agent's parameters declare (see the module text);
    an unknown agent is left for the registry to report."""
    try:
        factory = factory_of(name, game)
    except ValueError:
        return dict(params)
    target = getattr(factory, "func", factory)
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return dict(params)
    out = dict(params)
    for key, value in params.items():
        p = sig.parameters.get(key)
        if p is None or not isinstance(value, str):
            continue
        ann = str(p.annotation)
        if "bool" in ann:
            v = value.strip().lower()
            if v in _TRUE or v in _FALSE:
                out[key] = v in _TRUE
            elif "str" not in ann:
                raise ValueError(f"{key}: expected true or false, got {short(value)}")
        elif "Mapping" in ann:  # script weights (a layout name, `str | Sequence`, stays text)
            out[key] = parse_weights(value, key)
    return out


def parse_weights(text: str, name: str = "weights") -> dict[str, float] | list[float] | None:
    """Script weights as text: JSON (a mapping or a list) or ``Script:0.25;Other:1``."""
    text = text.strip()
    if not text:
        return None
    if text[0] in "[{":
        return load_json(text, name)
    out = {}
    for item in filter(None, (x.strip() for x in text.split(";"))):
        key, sep, v = item.partition(":")
        if not sep:
            raise ValueError(f"{name}: expected Script:weight;... or JSON, got {short(text)}")
        try:
            out[key.strip()] = float(v)
        except ValueError:
            raise ValueError(f"{name}: weight of {short(key.strip())} is not a number: {short(v)}") from None
    return out


def _number(v: str) -> Any:
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v
