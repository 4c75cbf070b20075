"""Presets: agents a game can ship, as a versioned JSON file (load, check, build).

A preset is an agent written down completely: the registered agent name and every parameter
except the seed (for Portfolio MCTS: budget, search constants, and the weights by script name),
plus the evidence it was chosen on (the archive cell, its features, the evolved and validated
win rates and how many games they rest on). Presets are exported from a run directory by
`qd.export`; this module owns the file format, so that a game (or the command line) can use a
preset without knowing anything about runs or archives.

    {"format": "playstyles-presets", "version": 1, "kind": "difficulty",
     "game": "tribes", "options": {"max_rounds": 15},
     "source": {"run": "quickstart", ..., "exported_by": {"playstyles": "0.1.0",
                "commit": "9f3c...", "uncommitted_changes": false}},
     "presets": [{"name": "level 1 (easiest)", "agent": "pmcts_pu",
                  "params": {"budget": 100, "weights": {"ResearchFarms": 0.25, ...}, ...},
                  "description": "...", "evidence": {"cell": "0.4:0.2", ...}}, ...]}

Loading checks the whole file and names the first bad field
(`presets.json: presets[1].params.weights.SpawnRange: a weight in [0, 1] expected, got 2`);
a game, agent or script this code does not know, or a newer version of the format, is
refused the same way. Every place that takes an agent spec also takes `preset:FILE#NAME`
(see `resolve_spec`); a game's own loop calls `load_preset` (docs/presets.md).
"""

from __future__ import annotations

import inspect
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from agents import search
from agents.portfolio.portfolio import GENOME_RENAMED
from agents.portfolio.script import SCRIPTS, scripts_of
from agents.registry import agent_names, check_agent, make_agent_from
from agents.search import Budget, check_budget, check_ms
from base.files import atomic_write, json_format, read_json
from base.limits import MAX_SEED, short
from base.schema import (
    OMIT,
    REQUIRED,
    Field,
    check_bool,
    check_mapping,
    check_name,
    check_number,
    count,
    errors_in,
    field_error,
    list_of,
    number,
    one_of,
    optional,
    read_section,
    section,
    text,
)
from games.api import Action, GameState, check_game_options
from games.registry import get_game
from play.journal import plain
from play.runner import AgentSpec

FORMAT = "playstyles-presets"
VERSION = 1
"""The schema version written; a file of a newer one is refused (upgrade playstyles)."""
PREFIX = "preset:"

class PresetError(ValueError):
    """A malformed preset file; the message names the file and the field."""


@dataclass
class Preset:
    name: str
    agent: str
    params: dict[str, Any]  # every parameter except the seed
    game: str
    options: dict[str, Any] = field(default_factory=dict)  # game options it was made for
    description: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)

    def spec(self, label: str | None = None):
        """The preset as an `AgentSpec` (for tournaments, ladders and Ray tasks)."""
        return AgentSpec.of(self.agent, label=label or self.name, **self.params)

    def build(self, seed: int = 0, budget: int | None = None):
        """The exact agent, seeded.

        Args:
            seed: the agent's seed.
            budget: forward-model calls per decision in place of the preset's (None: the
                preset's own).
        """
        params = self.params if budget is None else {**self.params, "budget": budget}
        return make_agent_from(self.agent, {**params, "seed": seed}, self.game)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "agent": self.agent,
                               "params": _json(self.params)}
        if self.description:
            out["description"] = self.description
        if self.evidence:
            out["evidence"] = _json(self.evidence)
        return out


CONTROL = "control"
"""The label of an evolved agent's default-weight control (with its budget when there are
several)."""


def weight_controls(agents: Sequence[AgentSpec]) -> list[AgentSpec]:
    """The default-weight controls that `agents` lack: for each distinct agent with evolved
    weights (its name and its other parameters: budget, search constants), the same agent
    without weights, unless one is among `agents` already. Wherever an evolved style is
    ranked (ladders, tournaments), its control sits at the table too, so that the ranking
    shows what evolution added to the search.

    Args:
        agents: the agents at the table.
    """
    have = {(a.name, tuple(sorted(a.params))) for a in agents if not dict(a.params).get("weights")}
    wanted: dict[tuple, None] = {}
    for a in agents:
        params = dict(a.params)
        if not params.get("weights"):
            continue
        rest = tuple(sorted((k, v) for k, v in params.items() if k != "weights"))
        if (a.name, rest) not in have:
            wanted.setdefault((a.name, rest), None)
    out = []
    for name, rest in wanted:
        label = CONTROL
        if len(wanted) > 1:
            label = f"{CONTROL} ({','.join(f'{k}={v}' for k, v in rest if k == 'budget') or name})"
        out.append(AgentSpec(name, rest, label))
    if len({a.label for a in out}) != len(out):  # same budget, other constants: number them
        out = [AgentSpec(a.name, a.params, f"{CONTROL} {i + 1}") for i, a in enumerate(out)]
    return out


@dataclass
class PresetFile:
    game: str
    presets: list[Preset]
    kind: str = "custom"
    options: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.presets]

    def get(self, key: str | int | None = None) -> Preset:
        """A preset by name (exact, then ignoring case, then its slug: `level-1-easiest`), or
        by 1-based position; without a key, the file's only preset."""
        where = str(self.path) if self.path else "presets"
        if key is None or key == "":
            if len(self.presets) == 1:
                return self.presets[0]
            raise PresetError(f"{where}: holds {len(self.presets)} presets, name one "
                              f"(#NAME): {', '.join(self.names)}")
        text = str(key).strip()
        for test in (lambda p: p.name == text,
                     lambda p: p.name.lower() == text.lower(),
                     lambda p: slug(p.name) == slug(text)):
            hits = [p for p in self.presets if test(p)]
            if len(hits) == 1:
                return hits[0]
        if text.isdigit() and 1 <= int(text) <= len(self.presets):
            return self.presets[int(text) - 1]
        raise PresetError(f"{where}: no preset {short(text)}; presets: {', '.join(self.names)} "
                          f"(or a position 1..{len(self.presets)})")

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "kind": self.kind, "game": self.game,
                "options": _json(self.options), "source": _json(self.source),
                "presets": [p.to_dict() for p in self.presets]}


def slug(name: str) -> str:
    """A name as lower-case words joined by dashes ("Level 1 (easiest)" -> "level-1-easiest")."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# ------------------------------------------------------------------------------ checking

def _format(value: Any, field: str) -> str:
    if value != FORMAT:
        raise field_error(field, f"{short(FORMAT)} expected, got {short(value)}")
    return value


def _version(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise field_error(field, f"an integer expected, got {short(value)}")
    if value > VERSION:
        raise field_error(field, f"version {value} is newer than this playstyles reads "
                                 f"(version {VERSION}): upgrade playstyles")
    if value != VERSION:
        raise field_error(field, f"version {value} is unknown (this playstyles reads "
                                 f"version {VERSION})")
    return value


def _game(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise field_error(field, f"a game name expected, got {short(value)}")
    get_game(value)  # (it names the field: "game: unknown game ...")
    return value


def _figures(value: Any, field: str) -> dict[str, Any]:
    """Features by name: each a number or null."""
    if not isinstance(value, dict):
        raise field_error(field, f"a mapping feature: value expected, got {short(value)}")
    for n, v in value.items():
        if v is not None and not _is_number(v):
            raise field_error(f"{field}.{n}", f"a number or null expected, got {short(v)}")
    return value


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _interval(value: Any, field: str) -> list[float]:
    if not (isinstance(value, list) and len(value) == 2):
        raise field_error(field, f"[low, high] expected, got {short(value)}")
    return [check_number(v, field, lo=0.0, hi=1.0) for v in value]


def _source(value: Any, field: str) -> dict[str, Any]:
    """The file's provenance: `source.run` text, `source.exported_by` the code that wrote
    it (the rest of `source` is the exporter's own record, read by no one here)."""
    source = check_mapping(value, field)
    read_section({k: source[k] for k in ("run", "exported_by") if k in source}, SOURCE_FIELDS,
                 field)
    return source


_RATE, _COUNT, _TEXT = optional(number(lo=0.0, hi=1.0)), optional(count()), optional(text(True))
_SEEDS = list_of(count(-MAX_SEED))
EXPORTED_BY_FIELDS = (Field("playstyles", _TEXT), Field("commit", _TEXT),
                      Field("uncommitted_changes", optional(check_bool)))
"""`source.exported_by`: the code that wrote the file (`base.version.provenance`)."""
SOURCE_FIELDS = (Field("run", _TEXT), Field("exported_by", optional(section(EXPORTED_BY_FIELDS))))
EVIDENCE_FIELDS = tuple(Field(name, check, OMIT) for name, check in (
    ("run", _TEXT), ("cell", _TEXT), ("grid_index", _SEEDS), ("features", optional(_figures)),
    ("features_validated", optional(_figures)), ("win_rate_evolved", _RATE),
    ("games_evolved", _COUNT), ("win_rate_validated", _RATE), ("games_validated", _COUNT),
    ("win_rate_validated_ci", optional(_interval)), ("validation_levels", optional(_SEEDS)),
    ("win_rate_source", optional(one_of(("evolved", "validated")))), ("opponent", _TEXT),
    ("features_ci95", None), ("rating", None), ("candidate", _TEXT), ("budget", _COUNT),
    ("budget_evolved", _COUNT), ("features_validated_ci95", None), ("style", _COUNT),
    ("evolved_from", _TEXT), ("validated_from", _TEXT), ("tier", _COUNT),
    ("tiers", optional(list_of(count(1)))), ("holds", optional(check_bool)),
    ("non_inferior", optional(check_bool))))
"""A preset's `evidence`: what it was chosen on (`qd.export`, `qd.tiers`)."""
PRESET_FIELDS = (Field("name", check_name, REQUIRED), Field("agent", default=REQUIRED),
                 Field("params", default=REQUIRED), Field("description", text(True), ""),
                 Field("evidence", section(EVIDENCE_FIELDS), {}))
"""One preset's keys (its `params` are checked by the agent)."""
FIELDS = (Field("format", _format, REQUIRED), Field("version", _version, REQUIRED),
          Field("kind", text(), "custom"), Field("game", _game, REQUIRED),
          Field("options", check_mapping, {}), Field("source", _source, {}),
          Field("presets", list_of(lo=1), REQUIRED))
"""A preset file's keys."""


def _check_params(agent: str, params: Any, game: str, key: str) -> None:
    if not isinstance(params, dict):
        raise field_error(key, f"a mapping parameter: value expected, got {short(params)}")
    for k in params:
        if not isinstance(k, str):
            raise field_error(f"{key}.{short(k)}", "parameter names are text")
    if "seed" in params:
        raise field_error(f"{key}.seed", "not part of a preset (the seed is given when the "
                                         "agent is built)")
    if "genome" in params and _renamed_to_layout(agent, game):
        raise field_error(f"{key}.genome", GENOME_RENAMED)
    for k in params:
        with errors_in(f"{key}.{k}"):
            check_agent(agent, {k: params[k]}, game)
    w = params.get("weights")
    if w is not None:
        if not isinstance(w, dict):
            raise field_error(f"{key}.weights", f"a mapping script name: weight expected, "
                                                f"got {short(w)}")
        for n, v in w.items():
            if not _is_number(v) or not 0.0 <= v <= 1.0:
                raise field_error(f"{key}.weights.{n}", f"a weight in [0, 1] expected, got "
                                                        f"{short(v)}")
    for k in ("weights", "opponent_weights"):
        _check_scripts(params.get(k), game, f"{key}.{k}")
    if "game" in params and params["game"] != game:
        raise field_error(f"{key}.game", f"{short(params['game'])} differs from the file's "
                                         f"game {short(game)}")
    try:
        make_agent_from(agent, {**params, "seed": 0}, game)
    except (ValueError, TypeError, KeyError) as e:
        raise field_error(key, f"the agent cannot be built: {e}") from None


def _check_scripts(weights: Any, game: str, key: str) -> None:
    """Weights by script name name scripts the game has: one error naming the first that
    it does not (a preset from newer code, or from a plug-in not installed)."""
    if not isinstance(weights, dict):
        return
    try:
        known = list(scripts_of(game))
    except ValueError:  # a game without scripts: building the agent says so
        return
    for n in weights:
        if n not in known:
            raise field_error(f"{key}.{short(n) if not isinstance(n, str) else n[:80]}",
                              SCRIPTS.unknown(n, f" for game {game!r}", known))


def _renamed_to_layout(agent: str, game: str) -> bool:
    """The agent takes `layout` and not `genome`: a preset file written before the rename."""
    try:
        check_agent(agent, {"layout": None}, game)
    except ValueError:
        return False
    try:
        check_agent(agent, {"genome": None}, game)
    except ValueError:
        return True
    return False


def presets_from_dict(data: Any, where: str = "presets") -> PresetFile:
    """Check a preset file's content completely and return it; errors name the file and
    the field.

    Args:
        data: the file's content (as read from JSON).
        where: the file, named in errors.
    """
    with errors_in(where, PresetError):
        return _read_presets(data)


def _read_presets(data: Any) -> PresetFile:
    """`presets_from_dict` (errors name the key; the caller puts the file in front)."""
    if not isinstance(data, dict):
        raise field_error("", "a JSON object expected")
    d = read_section(data, FIELDS)
    game, options = d["game"], d["options"]
    check_game_options(get_game(game), options)
    presets, seen = [], set()
    known_agents = agent_names(game)
    for i, item in enumerate(d["presets"]):
        key = f"presets[{i}]"
        p = read_section(item, PRESET_FIELDS, key)
        if p["name"] in seen:
            raise field_error(f"{key}.name", f"{short(p['name'])} is used twice")
        seen.add(p["name"])
        if p["agent"] not in known_agents:
            raise field_error(f"{key}.agent", f"unknown agent {short(p['agent'])}; known: "
                                              f"{', '.join(known_agents)}")
        _check_params(p["agent"], p["params"], game, f"{key}.params")
        presets.append(Preset(p["name"], p["agent"], dict(p["params"]), game, dict(options),
                              p["description"], dict(item.get("evidence") or {})))
    return PresetFile(game, presets, d["kind"], dict(options), d["source"])


def load_presets(path: str | Path) -> PresetFile:
    """A preset file, checked completely (its size and nesting first, `base.files.
    read_json`); every error names the file and the field.

    Args:
        path: the preset file (from `playstyles export`).
    """
    p = Path(path)
    data = read_json(p, PresetError, what="preset file")
    pf = presets_from_dict(data, str(path))
    pf.path = p
    return pf


def is_preset_file(path: str | Path) -> bool:
    """Whether `path` is a preset file (its `format` field), i.e. one `playstyles export`
    wrote: what export may overwrite with --force.

    Args:
        path: the file.
    """
    return json_format(path) == FORMAT


def dump_presets(pf: PresetFile, path: str | Path) -> Path:
    """Write a preset file (checked by reading it back before it replaces anything)."""
    with errors_in(str(path), PresetError):
        try:
            text = _dumps(pf.to_dict()) + "\n"
        except (TypeError, ValueError) as e:
            raise ValueError(f"a value cannot be written as JSON ({e})") from None
    presets_from_dict(json.loads(text), str(path))
    return atomic_write(path, text)


# ------------------------------------------------------------------------------ using presets

def full_params(agent: str, params: Mapping[str, Any], game: str) -> dict[str, Any]:
    """Every parameter of the agent `agent` built with `params` for `game` (its own
    `params()`), without the seed; checked to rebuild the same agent, so a preset never
    depends on defaults."""
    built = make_agent_from(agent, {**params, "seed": 0}, game)
    if not hasattr(built, "params"):
        return {k: v for k, v in params.items() if k != "seed"}
    out = {k: v for k, v in built.params().items() if k != "seed"}
    again = {k: v for k, v in make_agent_from(agent, {**out, "seed": 0}, game).params().items()
             if k != "seed"}
    if _json(again) != _json(out):
        raise ValueError(f"agent {agent}: its parameters do not rebuild the same agent")
    return _json(out)


def build_agent(path: str | Path, name: str | int | None = None, seed: int = 0):
    """The exact agent of preset `name` in the file at `path`, in one call."""
    return load_presets(path).get(name).build(seed)


@dataclass(frozen=True)
class Move:
    """What one decision of a `PresetAgent` cost."""

    calls: int | None  # forward-model calls spent (None: the agent does not count them)
    ms: float  # milliseconds `act` took
    timed_out: bool  # the time limit ended the search


class PresetAgent:
    """A preset's agent for a game's own loop: `act(state)` returns a legal action for the
    player to move in `state`, searched within the preset's budget of forward-model calls (or
    the one given) and, with `ms`, within that many milliseconds per move. The cost of every
    decision is kept in `moves` (calls spent, time taken, whether the time limit stopped it);
    `last_budget` is the last decision's budget (`last_budget.used`: the calls it spent).

    It is also an agent like any other (`act(state)`, `params()`), so that
    `play.runner.play_game` and tournaments can seat it.
    """

    def __init__(self, preset: Preset, seed: int = 0, ms: float | None = None,
                 budget: int | None = None, where: str = "presets") -> None:
        """Args:
            preset: the preset played.
            seed: the agent's seed (same preset, same seed, same state: same action, unless
                a time limit cut the search).
            ms: milliseconds per move (None: none; the call budget alone decides).
            budget: forward-model calls per move (None: the preset's own).
            where: the preset's file, for messages.
        """
        here = f"{where}: preset {short(preset.name)}"
        with errors_in(here, PresetError):
            self.ms = None if ms is None else check_ms(ms)
            self.budget = None if budget is None else check_budget(budget)
        self.preset = preset
        if self.budget is not None and "budget" not in preset.params:
            raise PresetError(f"{here}: budget: agent {preset.agent} takes no budget of "
                              f"forward-model calls")
        self.agent = preset.build(seed, self.budget)
        self._timed = "ms" in inspect.signature(self.agent.act).parameters
        if self.ms is not None and not self._timed:
            raise PresetError(f"{here}: ms: agent {preset.agent} takes no time per move")
        self.name = preset.agent
        self.label = preset.name
        self.game = preset.game
        self.options = dict(preset.options)
        self.moves: list[Move] = []

    @property
    def last_budget(self) -> Budget | None:
        """The last decision's budget (None before the first, or for an agent that keeps
        none): `used` the calls spent, `total` the limit (cut to `used` when the time limit
        stopped the search), `timed_out` whether it did."""
        return getattr(self.agent, "last_budget", None)

    def act(self, state: GameState, *, ms: float | None = None) -> Action:
        """A legal action for the player to move in `state` (not modified), within the
        agent's budget (see `__init__`).

        Args:
            state: a position of the preset's game with a player to move.
            ms: milliseconds for this move (None: the agent's).
        """
        if state.game_name != self.game:
            raise ValueError(f"preset {short(self.label)} plays {self.game}, not "
                             f"{state.game_name}")
        ms = self.ms if ms is None else ms
        if ms is not None and not self._timed:
            raise ValueError(f"ms: agent {self.preset.agent} takes no time per move")
        before = getattr(self.agent, "last_budget", None)
        start = search.now()  # (looked up here: the clock a test may replace)
        if ms is None:
            action = self.agent.act(state)
        else:
            action = self.agent.act(state, ms=ms)
        took = (search.now() - start) * 1000.0
        b = self.last_budget
        b = b if b is not before else None
        self.moves.append(Move(None if b is None else b.used, took,
                               bool(b is not None and b.timed_out)))
        return action

    def params(self) -> dict[str, Any]:
        """The agent's parameters (`Preset.build` rebuilds it with these and the seed)."""
        return self.agent.params() if hasattr(self.agent, "params") else dict(self.preset.params)


def load_preset(path: str | Path, name: str | int | None = None, seed: int = 0,
                ms: float | None = None, budget: int | None = None) -> PresetAgent:
    """The agent of a preset, ready for a game's own loop: `load_preset(path).act(state)`.

    The file is checked completely first (`load_presets`): a game, agent or script this
    code does not know, or a newer version of the format, is one error naming the file and
    the field.

    Args:
        path: the preset file (from `playstyles export`).
        name: the preset: its name, its slug (`level-2`) or its 1-based position; None: the
            file's first (its only one, for a file of one preset).
        seed: the agent's seed.
        ms: milliseconds per move (None: no time limit). The search stops at the first
            check past it; the calls it spent are counted as ever (`PresetAgent.moves`).
        budget: forward-model calls per move (None: the preset's own).
    """
    pf = load_presets(path)
    preset = pf.presets[0] if name is None else pf.get(name)
    return PresetAgent(preset, seed=seed, ms=ms, budget=budget, where=str(path))


def resolve_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """`preset:FILE#NAME` (or `preset:FILE` for a file of one preset) -> (agent name, every
    parameter). NAME is the preset's name, its slug or its 1-based position."""
    body = spec.strip()[len(PREFIX):]
    path, _, name = body.partition("#")
    if not path:
        raise PresetError(f"agent {short(spec)}: expected preset:FILE#NAME")
    p = load_presets(path.strip()).get(name.strip() or None)
    return p.agent, dict(p.params)


def _dumps(x: Any, depth: int = 0) -> str:
    """JSON with one key per line, but lists of plain values on one line (level seeds)."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(x, dict) and x:
        items = [f"{inner}{json.dumps(str(k))}: {_dumps(v, depth + 1)}" for k, v in x.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(x, list) and any(isinstance(v, (dict, list)) for v in x):
        return "[\n" + ",\n".join(inner + _dumps(v, depth + 1) for v in x) + "\n" + pad + "]"
    return json.dumps(x, allow_nan=False)


def _json(x: Any) -> Any:
    """JSON-ready copy for a preset file: tuples become lists, numpy scalars plain numbers,
    NaN becomes null (`play.journal.plain`)."""
    return plain(x, finite=True)
