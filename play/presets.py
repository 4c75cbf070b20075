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
from base.limits import short
from base.schema import check_keys, check_name
from games.api import Action, GameState, check_game_options
from games.registry import get_game
from play.journal import plain
from play.runner import AgentSpec

FORMAT = "playstyles-presets"
VERSION = 1
"""The schema version written; a file of a newer one is refused (upgrade playstyles)."""
PREFIX = "preset:"

TOP_KEYS = ("format", "version", "kind", "game", "options", "source", "presets")
PRESET_KEYS = ("name", "agent", "params", "description", "evidence")
EVIDENCE_KEYS = ("run", "cell", "grid_index", "features", "features_validated",
                 "win_rate_evolved", "games_evolved", "win_rate_validated", "games_validated",
                 "win_rate_validated_ci", "validation_levels", "win_rate_source", "opponent",
                 "features_ci95", "rating", "candidate", "budget", "budget_evolved",
                 "features_validated_ci95", "style", "evolved_from", "validated_from",
                 "tier", "tiers", "holds", "non_inferior")
EXPORTED_BY_KEYS = ("playstyles", "commit", "uncommitted_changes")
"""`source.exported_by`: the code that wrote the file (`base.version.provenance`)."""


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

    def build(self, seed: int = 0):
        """The exact agent, seeded."""
        return make_agent_from(self.agent, {**self.params, "seed": seed}, self.game)

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

def _fail(where: str, key: str, msg: str) -> PresetError:
    return PresetError(f"{where}: {key}: {msg}")


def _keys(data: Mapping[str, Any], known: Sequence[str], where: str, key: str = "") -> None:
    """`base.schema.check_keys`, its error a PresetError naming the file."""
    try:
        check_keys(data, known, key)
    except ValueError as e:
        raise PresetError(f"{where}: {e}") from None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _rate(v: Any, where: str, key: str, optional: bool = True) -> None:
    if v is None and optional:
        return
    if not _is_number(v) or not 0.0 <= v <= 1.0:
        raise _fail(where, key, f"a rate in [0, 1]{' or null' if optional else ''} "
                                f"expected, got {short(v)}")


def _count(v: Any, where: str, key: str, optional: bool = True) -> None:
    if v is None and optional:
        return
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _fail(where, key, f"a count (integer >= 0) expected, got {short(v)}")


def _check_evidence(ev: Any, where: str, key: str) -> None:
    if not isinstance(ev, dict):
        raise _fail(where, key, f"a mapping expected, got {short(ev)}")
    _keys(ev, EVIDENCE_KEYS, where, key)
    for k in ("run", "cell", "opponent", "evolved_from", "validated_from"):
        if k in ev and ev[k] is not None and not isinstance(ev[k], str):
            raise _fail(where, f"{key}.{k}", f"text expected, got {short(ev[k])}")
    if "grid_index" in ev and not (isinstance(ev["grid_index"], list) and all(
            isinstance(i, int) and not isinstance(i, bool) for i in ev["grid_index"])):
        raise _fail(where, f"{key}.grid_index", f"a list of integers expected, "
                                                f"got {short(ev['grid_index'])}")
    for k in ("features", "features_validated"):
        f = ev.get(k)
        if f is None:
            continue
        if not isinstance(f, dict):
            raise _fail(where, f"{key}.{k}", f"a mapping feature: value expected, got {short(f)}")
        for n, v in f.items():
            if v is not None and not _is_number(v):
                raise _fail(where, f"{key}.{k}.{n}", f"a number or null expected, got {short(v)}")
    for k in ("win_rate_evolved", "win_rate_validated"):
        _rate(ev.get(k), where, f"{key}.{k}")
    for k in ("games_evolved", "games_validated", "budget", "budget_evolved", "style", "tier"):
        _count(ev.get(k), where, f"{key}.{k}")
    for k in ("holds", "non_inferior"):  # (a style at a tier: `qd.tiers`)
        if ev.get(k) is not None and not isinstance(ev[k], bool):
            raise _fail(where, f"{key}.{k}", f"true, false or null expected, got {short(ev[k])}")
    tiers = ev.get("tiers")
    if tiers is not None and not (isinstance(tiers, list) and all(
            isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in tiers)):
        raise _fail(where, f"{key}.tiers", f"a list of budgets expected, got {short(tiers)}")
    if ev.get("candidate") is not None and not isinstance(ev["candidate"], str):
        raise _fail(where, f"{key}.candidate", f"text expected, got {short(ev['candidate'])}")
    ci = ev.get("win_rate_validated_ci")
    if ci is not None:
        if not (isinstance(ci, list) and len(ci) == 2):
            raise _fail(where, f"{key}.win_rate_validated_ci", f"[low, high] expected, got {short(ci)}")
        for v in ci:
            _rate(v, where, f"{key}.win_rate_validated_ci", optional=False)
    lv = ev.get("validation_levels")
    if lv is not None and not (isinstance(lv, list) and all(
            isinstance(i, int) and not isinstance(i, bool) for i in lv)):
        raise _fail(where, f"{key}.validation_levels",
                    f"a list of level seeds expected, got {short(lv)}")
    src = ev.get("win_rate_source")
    if src is not None and src not in ("evolved", "validated"):
        raise _fail(where, f"{key}.win_rate_source", f"'evolved' or 'validated' expected, "
                                                     f"got {short(src)}")


def _check_params(agent: str, params: Any, game: str, where: str, key: str) -> None:
    if not isinstance(params, dict):
        raise _fail(where, key, f"a mapping parameter: value expected, got {short(params)}")
    for k in params:
        if not isinstance(k, str):
            raise _fail(where, f"{key}.{short(k)}", "parameter names are text")
    if "seed" in params:
        raise _fail(where, f"{key}.seed", "not part of a preset (the seed is given when the "
                                          "agent is built)")
    if "genome" in params and _renamed_to_layout(agent, game):
        raise _fail(where, f"{key}.genome", GENOME_RENAMED)
    for k in params:
        try:
            check_agent(agent, {k: params[k]}, game)
        except ValueError as e:
            raise _fail(where, f"{key}.{k}", str(e)) from None
    w = params.get("weights")
    if w is not None:
        if not isinstance(w, dict):
            raise _fail(where, f"{key}.weights", f"a mapping script name: weight expected, "
                                                 f"got {short(w)}")
        for n, v in w.items():
            if not _is_number(v) or not 0.0 <= v <= 1.0:
                raise _fail(where, f"{key}.weights.{n}", f"a weight in [0, 1] expected, got {short(v)}")
    for k in ("weights", "opponent_weights"):
        _check_scripts(params.get(k), game, where, f"{key}.{k}")
    if "game" in params and params["game"] != game:
        raise _fail(where, f"{key}.game", f"{short(params['game'])} differs from the file's game "
                                          f"{short(game)}")
    try:
        make_agent_from(agent, {**params, "seed": 0}, game)
    except (ValueError, TypeError, KeyError) as e:
        raise _fail(where, key, f"the agent cannot be built: {e}") from None


def _check_scripts(weights: Any, game: str, where: str, key: str) -> None:
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
            raise _fail(where, f"{key}.{short(n) if not isinstance(n, str) else n[:80]}",
                        SCRIPTS.unknown(n, f" for game {game!r}", known))


def _check_source(source: Any, where: str) -> None:
    """The file's provenance: `source.run` text, `source.exported_by` the code that wrote
    it (the rest of `source` is the exporter's own record, read by no one here)."""
    if source is None:
        return
    if source.get("run") is not None and not isinstance(source["run"], str):
        raise _fail(where, "source.run", f"text expected, got {short(source['run'])}")
    by = source.get("exported_by")
    if by is None:
        return
    if not isinstance(by, dict):
        raise _fail(where, "source.exported_by", f"a mapping expected, got {short(by)}")
    _keys(by, EXPORTED_BY_KEYS, where, "source.exported_by")
    for k in ("playstyles", "commit"):
        if by.get(k) is not None and not isinstance(by[k], str):
            raise _fail(where, f"source.exported_by.{k}", f"text or null expected, "
                                                         f"got {short(by[k])}")
    changed = by.get("uncommitted_changes")
    if changed is not None and not isinstance(changed, bool):
        raise _fail(where, "source.exported_by.uncommitted_changes",
                    f"true, false or null expected, got {short(changed)}")


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
    """Check a preset file's content completely and return it; errors name the field."""
    if not isinstance(data, dict):
        raise PresetError(f"{where}: a JSON object expected")
    _keys(data, TOP_KEYS, where)
    if data.get("format") != FORMAT:
        raise _fail(where, "format", f"{short(FORMAT)} expected, got {short(data.get('format'))}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _fail(where, "version", f"an integer expected, got {short(version)}")
    if version > VERSION:
        raise _fail(where, "version", f"version {version} is newer than this playstyles reads "
                                      f"(version {VERSION}): upgrade playstyles")
    if version != VERSION:
        raise _fail(where, "version", f"version {version} is unknown (this playstyles reads "
                                      f"version {VERSION})")
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise _fail(where, "game", f"a game name expected, got {short(game)}")
    try:
        get_game(game)
    except ValueError as e:  # (it names the field: "game: unknown game ...")
        raise PresetError(f"{where}: {e}") from None
    kind = data.get("kind", "custom")
    if not isinstance(kind, str) or not kind:
        raise _fail(where, "kind", f"text expected, got {short(kind)}")
    for k in ("options", "source"):
        if data.get(k) is not None and not isinstance(data[k], dict):
            raise _fail(where, k, f"a mapping expected, got {short(data[k])}")
    _check_source(data.get("source"), where)
    try:
        check_game_options(get_game(game), data.get("options") or {})
    except ValueError as e:
        raise PresetError(f"{where}: {e}") from None
    items = data.get("presets")
    if not isinstance(items, list) or not items:
        raise _fail(where, "presets", "a non-empty list of presets expected")
    presets, seen = [], set()
    known_agents = agent_names(game)
    for i, p in enumerate(items):
        key = f"presets[{i}]"
        if not isinstance(p, dict):
            raise _fail(where, key, f"a mapping expected, got {short(p)}")
        _keys(p, PRESET_KEYS, where, key)
        for k in ("name", "agent", "params"):
            if k not in p:
                raise _fail(where, f"{key}.{k}", "missing")
        try:
            name = check_name(p["name"], f"{key}.name")
        except ValueError as e:
            raise PresetError(f"{where}: {e}") from None
        if name in seen:
            raise _fail(where, f"{key}.name", f"{short(name)} is used twice")
        seen.add(name)
        agent = p["agent"]
        if agent not in known_agents:
            raise _fail(where, f"{key}.agent", f"unknown agent {short(agent)}; known: "
                                               f"{', '.join(known_agents)}")
        _check_params(agent, p["params"], game, where, f"{key}.params")
        desc = p.get("description", "")
        if not isinstance(desc, str):
            raise _fail(where, f"{key}.description", f"text expected, got {short(desc)}")
        ev = p.get("evidence", {})
        _check_evidence(ev, where, f"{key}.evidence")
        presets.append(Preset(name, agent, dict(p["params"]), game,
                              dict(data.get("options") or {}), desc, dict(ev)))
    return PresetFile(game, presets, kind, dict(data.get("options") or {}),
                      dict(data.get("source") or {}))


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
    try:
        text = _dumps(pf.to_dict()) + "\n"
    except (TypeError, ValueError) as e:
        raise PresetError(f"{path}: a value cannot be written as JSON ({e})") from None
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
        try:
            self.ms = None if ms is None else check_ms(ms)
            self.budget = None if budget is None else check_budget(budget)
        except ValueError as e:
            raise PresetError(f"{here}: {e}") from None
        self.preset = preset
        if self.budget is not None and "budget" not in preset.params:
            raise PresetError(f"{here}: budget: agent {preset.agent} takes no budget of "
                              f"forward-model calls")
        params = preset.params if self.budget is None else {**preset.params, "budget": self.budget}
        self.agent = make_agent_from(preset.agent, {**params, "seed": seed}, preset.game)
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
