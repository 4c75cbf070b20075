"""Run configurations: one YAML file describes an evolution run completely.

Everything is validated before any game is played, and every error names the key it is about
(`config.yaml: emitter.batch_sise: unknown key`). The resolved form (`RunConfig.to_dict`) fills
in every default, the seed and the level seeds; it is what the run directory's config.yaml
holds, and reading it back gives the same run.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.portfolio.portfolio import GENOME_RENAMED, resolve_layout
from agents.portfolio.script import default_layout
from agents.registry import accepts, validate_agent
from base import files
from base.limits import (
    MAX_BINS,
    MAX_BUDGET,
    MAX_CELLS,
    MAX_COUNT,
    MAX_EVALUATIONS,
    MAX_GAMES,
    MAX_REPETITIONS,
    MAX_SEED,
    MAX_TOTAL_GAMES,
    short,
)
from base.schema import check_count, check_keys, check_mapping, check_name, check_number
from games.api import check_game_options
from games.levels import split
from games.registry import get_game
from play.runner import AgentSpec
from play.specs import split_spec
from play.tournament import seats_of
from qd.emitters import emitter_class, emitter_params
from qd.features import Feature, features_of
from qd.genome_games import MAPPINGS, Plan, mapping_of, term_genes
from qd.noise import noise_params
from qd.rundir import GENOME_SCRIPTS
from qd.styles import DELTA, MARGIN

DEFAULT_AGENT = "pmcts_pu"
DEFAULT_OPPONENT = "mcts"

TOP_KEYS = ("name", "game", "options", "levels", "agent", "layout", GENOME_SCRIPTS, "opponent",
            "repetitions", "features", "emitter", "evaluations", "max_games", "pipeline", "noise",
            "validate", "seed")
LEVEL_KEYS = ("set", "train", "split_seed", "held_out")
AGENT_KEYS = ("name", "label", "budget", "params", "genome_mapping")
OPPONENT_KEYS = ("name", "label", "budget", "params")
FEATURE_KEYS = ("name", "range", "width", "bins")
PIPELINE_KEYS = ("lag",)
VALIDATE_KEYS = ("games", "levels", "control", "delta", "margin", "null_baseline")


class ConfigError(ValueError):
    """A config problem, naming the file and the key."""


@dataclass
class RunConfig:
    """A validated run config with every default resolved (see `config_from_dict`).

    Args:
        name: the run's name (the run directory is runs/<name> unless given).
        game: the registered game.
        options: the game's options.
        train_levels: the level seeds evolution plays.
        held_out_levels: the level seeds kept for validation (disjoint from the training ones).
        agent: the evolved agent: name, label, budget, params, genome_mapping.
        layout: the scripts whose weights evolve: a layout name or a list of script names,
            as given; None when the genome mapping fixes the genome (`qd.genome_games.
            register_mapping` with `genes`).
        genome_names: the evolved scripts in genome order (`genome_scripts` in config.yaml).
        opponent: the opponent: name, label, budget, params.
        repetitions: games per training level.
        features: the grid's features (with their ranges).
        emitter: `kind` and every parameter of that emitter kind.
        evaluations: genomes to evaluate in total.
        max_games: if set, no batch is asked once the games asked (new genomes and replays)
            reach it: runs of different noise methods then play equal total games.
        seed: the run seed.
        pipeline: `lag`, the batches in flight: batch k + lag is asked from the archive as
            it stands after batch k (1: every batch sees the one before it).
        noise: `method` (`reestimate`, the default; `none`, `reevaluate`, `adaptive`) and
            its parameters: how the run deals with noisy estimates (`qd.noise`).
        validation: None, or how `evolve` validates the final elites once evolution ends
            (`games` per elite, `levels`, `control`: the arguments of `qd.validation.validate`).
        source: where the config came from (named in errors).
    """

    name: str
    game: str
    options: dict[str, Any]
    train_levels: list[int]
    held_out_levels: list[int]
    agent: dict[str, Any]  # name, label, budget, params, genome_mapping
    layout: Any  # layout name or list of script names, as given
    genome_names: tuple[str, ...]
    opponent: dict[str, Any]  # name, label, budget, params
    repetitions: int
    features: list[Feature]
    emitter: dict[str, Any]  # kind + every parameter
    evaluations: int
    seed: int
    pipeline: dict[str, Any] = field(default_factory=lambda: {"lag": 1})
    noise: dict[str, Any] = field(default_factory=lambda: noise_params(None))
    max_games: int | None = None
    validation: dict[str, Any] | None = None
    source: str = "config"

    def to_dict(self) -> dict[str, Any]:
        """The resolved config (every default filled in, the evolved scripts under
        `genome_scripts`), as written to the run directory's config.yaml."""
        return {
            "name": self.name, "game": self.game, "options": dict(self.options),
            "levels": {"train": list(self.train_levels), "held_out": list(self.held_out_levels)},
            "agent": {k: self.agent[k] for k in AGENT_KEYS},
            "layout": (self.layout if self.layout is None or isinstance(self.layout, str)
                       else list(self.layout)),
            GENOME_SCRIPTS: list(self.genome_names),
            "opponent": {k: self.opponent[k] for k in OPPONENT_KEYS},
            "repetitions": self.repetitions,
            "features": [{"name": f.name, "range": [f.lo, f.hi], "width": f.width}
                         for f in self.features],
            "emitter": dict(self.emitter),
            "evaluations": self.evaluations, "pipeline": dict(self.pipeline),
            "noise": dict(self.noise), "max_games": self.max_games,
            "validate": dict(self.validation) if self.validation else None, "seed": self.seed}

    @property
    def players(self) -> int:
        """Seats at the game's table (the genome takes one, the opponent the others)."""
        return seats_of(self.game, self.train_levels[0], dict(self.options))

    def plan(self) -> Plan:
        return Plan(game=self.game, levels=tuple(self.train_levels),
                    repetitions=self.repetitions, agent=_spec(self.agent),
                    opponent=_spec(self.opponent), genome_names=self.genome_names,
                    mapping=self.agent["genome_mapping"],
                    options=tuple(sorted(self.options.items())), seed=self.seed,
                    players=self.players)


def _spec(a: dict[str, Any]) -> AgentSpec:
    params = dict(a["params"])
    if a["budget"] is not None:
        params["budget"] = a["budget"]
    return AgentSpec(a["name"], tuple(sorted(params.items())), a["label"] or a["name"])


# ------------------------------------------------------------------------------ helpers

def _err(source: str, key: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {key}: {msg}")


def _checked(source: str, check, *args: Any) -> Any:
    """`check(*args)` of `base.schema`, its error naming the config's file."""
    try:
        return check(*args)
    except ValueError as e:
        raise ConfigError(f"{source}: {e}") from None


def _check_keys(data: dict, known: tuple[str, ...], source: str, prefix: str) -> None:
    _checked(source, check_keys, data, known, prefix)


def _mapping(value: Any, source: str, key: str) -> dict:
    return _checked(source, check_mapping, value, key)


def _int(value: Any, source: str, key: str, lo: int | None = None,
         hi: int = MAX_SEED) -> int:
    """A whole number in lo..hi (None: -hi..hi), else an error naming the file and key."""
    return _checked(source, check_count, value, key, -hi if lo is None else lo, hi)


def _number(value: Any, source: str, key: str) -> float:
    return _checked(source, check_number, value, key)


def _seeds(game: Any, value: Any, source: str, key: str) -> list[int]:
    """A level set name (of the game) or an explicit list of level seeds."""
    if isinstance(value, str):
        try:
            return game.level_set(value)
        except ValueError as e:
            raise _err(source, key, str(e)) from None
    if isinstance(value, list) and value:
        seeds = [_int(v, source, f"{key}[{i}]") for i, v in enumerate(value)]
        if len(set(seeds)) != len(seeds):
            raise _err(source, key, "a level is listed twice")
        return seeds
    raise _err(source, key, f"a level set name or a non-empty list of level seeds expected, "
                            f"got {short(value)}")


# ------------------------------------------------------------------------------ sections

def _levels(game: Any, data: Any, source: str) -> tuple[list[int], list[int]]:
    """Either a pool split reproducibly (set, train count/fraction, split_seed), or explicit
    train and held-out sets. The two never overlap (the reference validated on a training
    level). Default: the game's default level set, 5 levels (at most all) for training."""
    d = (_mapping(data, source, "levels") if data is not None
         else {"set": game.default_levels})
    _check_keys(d, LEVEL_KEYS, source, "levels")
    if "set" in d:
        if "held_out" in d:
            raise _err(source, "levels.held_out", "give either set (+ train count and "
                                                  "split_seed) or explicit train and held_out")
        pool = _seeds(game, d["set"], source, "levels.set")
        train = d.get("train", min(5, len(pool)))
        if isinstance(train, bool) or not isinstance(train, (int, float)):
            raise _err(source, "levels.train", "with levels.set, a count (int) or a fraction "
                                               f"(float) of the set, got {short(train)}")
        if isinstance(train, int):
            if not 1 <= train <= len(pool):
                raise _err(source, "levels.train", f"must be in 1..{len(pool)}, got {train}")
            held = len(pool) - train
        else:
            if not 0.0 < train <= 1.0:
                raise _err(source, "levels.train", f"a fraction in (0, 1], got {train}")
            held = 1.0 - float(train)
        split_seed = _int(d.get("split_seed", 0), source, "levels.split_seed", 0)
        tr, ho = split(pool, held, split_seed)
        if not tr:
            raise _err(source, "levels.train", "leaves no training level")
        return tr, ho
    if "split_seed" in d:
        raise _err(source, "levels.split_seed", "only with levels.set")
    if "train" not in d:
        raise _err(source, "levels.train", "missing (or give levels.set)")
    tr = _seeds(game, d["train"], source, "levels.train")
    ho = _seeds(game, d["held_out"], source, "levels.held_out") if d.get("held_out") else []
    both = sorted(set(tr) & set(ho))
    if both:
        raise _err(source, "levels.held_out", f"levels {both} are also training levels")
    return tr, ho


def _agent(data: Any, source: str, key: str, keys: tuple[str, ...],
           default_name: str) -> dict[str, Any]:
    if data is None:
        data = {"name": default_name}
    if isinstance(data, str):
        try:
            name, params = split_spec(data)
        except ValueError as e:
            raise _err(source, key, str(e)) from None
        data = {"name": name, "budget": params.pop("budget", None), "params": params}
    d = _mapping(data, source, key)
    _check_keys(d, keys, source, key)
    name = d.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise _err(source, f"{key}.name", f"an agent name expected, got {short(name)}")
    params = dict(_mapping(d.get("params"), source, f"{key}.params"))
    for reserved in ("seed", "budget"):
        if reserved in params:
            raise _err(source, f"{key}.params.{reserved}",
                       "set by the run" if reserved == "seed" else f"use {key}.budget")
    budget = d.get("budget")
    if budget is not None:
        budget = _int(budget, source, f"{key}.budget", 1, MAX_BUDGET)
    label = _checked(source, check_name, str(d.get("label") or name), f"{key}.label")
    out = {"name": name, "label": label, "budget": budget, "params": params}
    if "genome_mapping" in keys:  # (the name is checked with the game, in `_genome`)
        out["genome_mapping"] = d.get("genome_mapping", "weights")
    return out


def _layout_names(game: str, layout: Any, source: str) -> tuple[str, ...]:
    """The scripts a layout (a name or a list of script names) gives, in genome order."""
    if not (isinstance(layout, str) or (isinstance(layout, list) and layout
                                        and all(isinstance(n, str) for n in layout))):
        raise _err(source, "layout", f"a layout name or a list of script names expected, "
                                     f"got {short(layout)}")
    try:
        return resolve_layout(game, layout)
    except ValueError as e:
        raise _err(source, "layout", str(e)) from None


def _check_builds(a: dict[str, Any], extra: dict[str, Any], source: str, key: str,
                  game: str) -> None:
    """An unknown name, parameter or bad value of the agent as the run will build it stops
    the run before it starts."""
    params = dict(a["params"])
    if a["budget"] is not None:
        params["budget"] = a["budget"]
    params.update(extra)
    try:
        validate_agent(a["name"], params, game)
    except ValueError as e:
        raise _err(source, key, str(e)) from None


def _features(game: str, data: Any, source: str) -> list[Feature]:
    FEATURES = features_of(game)
    if data is None:
        data = list(FEATURES)[:2]
    if not isinstance(data, list) or not data:
        raise _err(source, "features", "a non-empty list of feature names (or mappings with "
                                       f"name, range, width|bins) expected; known: "
                                       f"{', '.join(FEATURES)}")
    out: list[Feature] = []
    for i, item in enumerate(data):
        key = f"features[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        d = _mapping(item, source, key)
        _check_keys(d, FEATURE_KEYS, source, key)
        name = d.get("name")
        if name not in FEATURES:
            raise _err(source, f"{key}.name", f"unknown feature {short(name)} for {game}; known: "
                                              f"{', '.join(FEATURES)}")
        f = FEATURES[name]
        lo = hi = width = bins = None
        if "range" in d:
            r = d["range"]
            if not (isinstance(r, list) and len(r) == 2):
                raise _err(source, f"{key}.range", f"[lo, hi] expected, got {short(r)}")
            lo, hi = (_number(v, source, f"{key}.range") for v in r)
        if "width" in d and "bins" in d:
            raise _err(source, f"{key}.bins", "give width or bins, not both")
        if "width" in d:
            width = _number(d["width"], source, f"{key}.width")
        if "bins" in d:
            bins = _int(d["bins"], source, f"{key}.bins", 1, MAX_BINS)
        try:
            f = f.with_range(lo, hi, width, bins)
        except ValueError as e:
            raise _err(source, key, str(e)) from None
        if f.bins > MAX_BINS:
            raise _err(source, key, f"{f.bins} bins; widen the bins")
        out.append(f)
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        raise _err(source, "features", f"a feature is listed twice: {names}")
    cells = int(np.prod([f.bins for f in out]))
    if cells > MAX_CELLS:
        raise _err(source, "features", f"{cells} cells in the grid; at most {MAX_CELLS}")
    return out


def _emitter(data: Any, source: str) -> dict[str, Any]:
    """`kind` (default `paper`) and every parameter of that kind, checked by its class
    (`qd.emitters.register_emitter`): the kind's defaults under the given values."""
    d = dict(_mapping(data, source, "emitter")) if data is not None else {}
    kind = d.pop("kind", "paper")
    try:
        params = emitter_params(kind, d, "emitter")
    except ValueError as e:
        raise ConfigError(f"{source}: {e}") from None
    return {"kind": kind, **params}


def _pipeline(data: Any, emitter: dict[str, Any], source: str) -> dict[str, Any]:
    """`lag`: how many batches are in flight (default 1: every batch is asked after the one
    before it is told). An emitter that learns from each batch before its next ask (CMA-ME)
    needs lag 1."""
    d = _mapping(data, source, "pipeline")
    _check_keys(d, PIPELINE_KEYS, source, "pipeline")
    lag = _int(d.get("lag", 1), source, "pipeline.lag", 1, MAX_COUNT)
    if lag > 1 and not getattr(emitter_class(emitter["kind"]), "pipelined", True):
        raise _err(source, "pipeline.lag", f"emitter {emitter['kind']} learns from every batch "
                                           f"before it asks the next one; it needs lag 1")
    return {"lag": lag}


def _validate_key(data: Any, source: str) -> dict[str, Any] | None:
    """`validate`: absent, null or false (the run ends with evolution), true (validate every
    elite with the defaults) or {games, levels, control, null_baseline, delta, margin}: the
    final elites are replayed on held-out levels, beside the control genome (and with
    `null_baseline` the fixed genomes of the null baseline), and the styles counted at the
    minimum effect `delta` (per-game standard deviations) with the non-inferiority `margin`
    (docs/styles.md)."""
    if data is None or data is False:
        return None
    if data is True:
        data = {}
    d = _mapping(data, source, "validate")
    if None in d:
        raise _err(source, "validate.null", "YAML reads the key `null` as no key at all: "
                                            "write null_baseline: true")
    if "null" in d:  # its former name (run directories written before the rename)
        if "null_baseline" in d:
            raise _err(source, "validate.null", "the former name of null_baseline, given "
                                                "beside it: keep null_baseline only")
        d = {("null_baseline" if k == "null" else k): v for k, v in d.items()}
    _check_keys(d, VALIDATE_KEYS, source, "validate")
    games = d.get("games")
    if games is not None:
        games = _int(games, source, "validate.games", 1, MAX_GAMES)
    levels = d.get("levels", "held_out")
    if isinstance(levels, list):
        levels = [_int(x, source, "validate.levels", 0) for x in levels]
    elif not isinstance(levels, str):
        raise _err(source, "validate.levels", f"a level set name (held_out, train, all, or a set "
                                              f"of the game) or a list of seeds expected, got "
                                              f"{short(levels)}")
    flags = {}
    for key, default in (("control", True), ("null_baseline", False)):
        flags[key] = d.get(key, default)
        if not isinstance(flags[key], bool):
            raise _err(source, f"validate.{key}", f"true or false expected, got "
                                                  f"{short(flags[key])}")
    bounds = {}
    for key, default, hi in (("delta", DELTA, 10.0), ("margin", MARGIN, 1.0)):
        bounds[key] = _number(d.get(key, default), source, f"validate.{key}")
        if not 0 <= bounds[key] <= hi:
            raise _err(source, f"validate.{key}", f"a number in [0, {hi:g}] expected, got "
                                                  f"{short(d.get(key))}")
    return {"games": games, "levels": levels, **flags, **bounds}


# ------------------------------------------------------------------------------ entry points

def _run_name(data: dict, source: str, name: str | None) -> str:
    """The run's name: a plain name (no path separators), `name` or "run" when not given."""
    run_name = data.get("name", name or "run")
    if not isinstance(run_name, str) or not run_name or "/" in run_name or "\\" in run_name \
            or run_name in (".", ".."):
        raise _err(source, "name", f"a plain name (no path separators) expected, got {short(run_name)}")
    _checked(source, check_name, run_name, "name")
    return run_name


def _game(data: dict, source: str) -> tuple[str, Any, dict[str, Any]]:
    """(the game's name, the game, its options), each checked."""
    if "game" not in data:
        raise _err(source, "game", "missing: name the game (e.g. tribes)")
    game = data["game"]
    try:
        g = get_game(game)
    except ValueError as e:  # (it names the field: "game: unknown game ...")
        raise ConfigError(f"{source}: {e}") from None
    options = dict(_mapping(data.get("options"), source, "options"))
    try:
        check_game_options(g, options)
    except ValueError as e:
        raise ConfigError(f"{source}: {e}") from None
    return game, g, options


def _genome(data: dict, game: str, agent: dict[str, Any], source: str
            ) -> tuple[str | None, tuple[str, ...]]:
    """(layout, genome names): the scripts the layout names, or the genes a genome mapping
    fixes, then (persona) the evaluator's terms; checked against a resolved config's
    `genome_scripts`, and the agent built with a sample genome."""
    layout = data.get("layout")
    mapping = agent["genome_mapping"]
    found = MAPPINGS.find(mapping, game) if isinstance(mapping, str) else None
    if found is None:
        raise _err(source, "agent.genome_mapping",
                   MAPPINGS.unknown(mapping, f" for game {short(game)}", MAPPINGS.names(game)))
    genes, persona = found.genes, found.terms
    takes_weights = accepts(agent["name"], "weights", game)
    if genes is not None:  # the mapping fixes the genome: no scripts are involved
        if layout is not None:
            raise _err(source, "layout", f"genome mapping {mapping} fixes the genome "
                                         f"({', '.join(genes)}); leave layout out")
        names: tuple[str, ...] = tuple(genes)
    elif persona and not takes_weights:
        if layout is not None:
            raise _err(source, "layout", f"agent {agent['name']} takes no script weights; "
                                         f"genome mapping {mapping} evolves its evaluation "
                                         f"terms only: leave layout out")
        names = ()
    else:
        if layout is None:
            try:
                layout = default_layout(game) or "all"
            except ValueError as e:
                raise _err(source, "layout", str(e)) from None
        names = tuple(_layout_names(game, layout, source))
    if persona:
        names = (*names, *_persona_terms(game, agent, source))
    if not names:
        raise _err(source, "layout", "names no script to evolve")
    recorded = data.get(GENOME_SCRIPTS)
    if recorded is not None:
        if not (isinstance(recorded, list) and all(isinstance(n, str) for n in recorded)):
            raise _err(source, GENOME_SCRIPTS, f"a list of script names expected, got "
                                               f"{short(recorded)}")
        if list(recorded) != list(names):
            raise _err(source, GENOME_SCRIPTS, f"{recorded} are not the scripts layout "
                                               f"{short(layout)} names now: {list(names)} "
                                               f"(the weight columns would be misread)")
    return layout, names


def _persona_terms(game: str, agent: dict[str, Any], source: str) -> list[str]:
    """The `term:<name>` genes of the agent's evaluator (a persona mapping); the evaluator
    spec becomes a mapping the genome's terms are merged into."""
    evaluator = agent["params"].get("evaluator")
    named = evaluator.get("name") if isinstance(evaluator, dict) else evaluator
    if isinstance(evaluator, str):  # the mapping adds the terms to the name
        agent["params"]["evaluator"] = evaluator = {"name": evaluator}
    try:
        terms = term_genes(game, evaluator)
    except ValueError as e:
        raise _err(source, "agent.params.evaluator", str(e)) from None
    if not terms:
        raise _err(source, "agent.genome_mapping",
                   f"{agent['genome_mapping']} evolves the evaluation terms of the agent's "
                   f"evaluator, and {short(named) if named else 'the default evaluator'} of "
                   f"{game} declares none")
    return list(terms)


def _opponent(data: dict, agent: dict[str, Any], game: str, source: str) -> dict[str, Any]:
    """The opponent, checked; at the agent's budget when it takes one and names none."""
    opponent = _agent(data.get("opponent"), source, "opponent", OPPONENT_KEYS, DEFAULT_OPPONENT)
    if opponent["budget"] is None and agent["budget"] is not None \
            and accepts(opponent["name"], "budget", game):
        opponent["budget"] = agent["budget"]  # "at the same budget"
    _check_builds(opponent, {}, source, "opponent", game)
    if opponent["label"] == agent["label"]:
        opponent["label"] = opponent["label"] + "-opponent"
    return opponent


def config_from_dict(data: Any, source: str = "config", name: str | None = None) -> RunConfig:
    """Validate a config mapping and resolve its defaults; errors (ConfigError) name the key.

    Args:
        data: the config mapping (as read from YAML; a resolved config reads back to the
            same run).
        source: where it came from, named in errors (a file name).
        name: the run's name when the mapping gives none.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a mapping of keys expected")
    if "genome" in data:  # a config (or a run directory's config.yaml) from before the rename
        raise _err(source, "genome", GENOME_RENAMED)
    _check_keys(data, TOP_KEYS, source, "")
    run_name = _run_name(data, source, name)
    game, g, options = _game(data, source)
    train, held_out = _levels(g, data.get("levels"), source)
    agent = _agent(data.get("agent"), source, "agent", AGENT_KEYS, DEFAULT_AGENT)
    layout, genome_names = _genome(data, game, agent, source)
    sample = mapping_of(agent["genome_mapping"], game).fn(genome_names,
                                                        np.full(len(genome_names), 0.5))
    _check_builds(agent, sample, source, "agent", game)

    opponent = _opponent(data, agent, game, source)

    repetitions = _int(data.get("repetitions", 4), source, "repetitions", 1, MAX_REPETITIONS)
    features = _features(game, data.get("features"), source)
    emitter = _emitter(data.get("emitter"), source)
    evaluations = _int(data.get("evaluations", len(genome_names)
                                + emitter["initial_random"] + 500), source, "evaluations", 1,
                       MAX_EVALUATIONS)
    pipeline = _pipeline(data.get("pipeline"), emitter, source)
    max_games = data.get("max_games")
    if max_games is not None:
        max_games = _int(max_games, source, "max_games", 1, MAX_TOTAL_GAMES)
    try:
        noise = noise_params(data.get("noise"))
    except ValueError as e:
        raise ConfigError(f"{source}: {e}") from None
    validation = _validate_key(data.get("validate"), source)
    if validation is not None and validation["levels"] in ("held_out", "train") \
            and not (held_out if validation["levels"] == "held_out" else train):
        raise _err(source, "validate.levels", f"the config holds no "
                                              f"{validation['levels'].replace('_', '-')} levels "
                                              f"(levels.train takes them all); give a level set")
    seed = data.get("seed")
    seed = secrets.randbits(63) if seed is None else _int(seed, source, "seed", 0)
    return RunConfig(name=run_name, game=game, options=options, train_levels=train,
                     held_out_levels=held_out, agent=agent, layout=layout,
                     genome_names=tuple(genome_names), opponent=opponent,
                     repetitions=repetitions, features=features, emitter=emitter,
                     evaluations=evaluations, seed=seed, pipeline=pipeline, noise=noise,
                     max_games=max_games, validation=validation, source=source)


def read_yaml(path: str | Path) -> Any:
    """A YAML file's content; a syntax error names the file, the line and the column."""
    return files.read_yaml(path, ConfigError)


def load_config(path: str | Path, seed: int | None = None) -> RunConfig:
    """Read and validate a YAML run config (the run's name defaults to the file's stem).

    Args:
        path: the YAML file.
        seed: the seed of a config that gives none (default: a fresh random one).
    """
    data = read_yaml(path)
    if isinstance(data, dict) and data.get("seed") is None and seed is not None:
        data = {**data, "seed": seed}
    return config_from_dict(data, source=str(path), name=Path(path).stem)


def dump_config(config: RunConfig) -> str:
    """The resolved config as YAML, written out in full: no anchors or aliases (a value
    shared by two keys is written twice), so it reads back under `base.files.read_yaml`'s
    limits.

    Args:
        config: the validated config.
    """
    import yaml

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return yaml.dump(config.to_dict(), Dumper=Dumper, sort_keys=False, default_flow_style=None)
