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
from base.schema import (
    OMIT,
    Field,
    check_bool,
    check_count,
    check_mapping,
    check_name,
    check_number,
    count,
    errors_in,
    field_error,
    number,
    optional,
    read_section,
    section,
)
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


# ------------------------------------------------------------------------------ the keys

def _run_name(value: Any, field: str) -> str:
    """The run's name: a plain name (no path separators)."""
    if not isinstance(value, str) or not value or "/" in value or "\\" in value \
            or value in (".", ".."):
        raise field_error(field, f"a plain name (no path separators) expected, got {short(value)}")
    return check_name(value, field)


def _agent_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise field_error(field, f"an agent name expected, got {short(value)}")
    return value


def _pair(value: Any, field: str) -> list[float]:
    """[lo, hi], two numbers."""
    if not (isinstance(value, list) and len(value) == 2):
        raise field_error(field, f"[lo, hi] expected, got {short(value)}")
    return [check_number(v, field) for v in value]


def _validation_levels(value: Any, field: str) -> str | list[int]:
    """A level set name (held_out, train, all, or a set of the game) or a list of seeds."""
    if isinstance(value, list):
        return [check_count(x, field) for x in value]
    if not isinstance(value, str):
        raise field_error(field, f"a level set name (held_out, train, all, or a set of the game) "
                                 f"or a list of seeds expected, got {short(value)}")
    return value


def _agent_fields(name: str) -> tuple[Field, ...]:
    """The keys of an agent: its name (default `name`), label, budget and parameters."""
    return (Field("name", _agent_name, name), Field("label"),
            Field("budget", optional(count(1, MAX_BUDGET))), Field("params", check_mapping, {}))


RUN_FIELDS = (
    Field("name", _run_name, OMIT),  # (default: the file's stem, checked the same way)
    Field("game", default=OMIT), Field("options", check_mapping, {}), Field("levels"),
    Field("agent"), Field("layout"), Field(GENOME_SCRIPTS), Field("opponent"),
    Field("repetitions", count(1, MAX_REPETITIONS), 4), Field("features"),
    Field("emitter", check_mapping, {}),
    Field("evaluations", count(1, MAX_EVALUATIONS), OMIT),  # (default: from the genome)
    Field("max_games", optional(count(1, MAX_TOTAL_GAMES))),
    Field("pipeline", section((Field("lag", count(1, MAX_COUNT), 1),)), {"lag": 1}),
    Field("noise"), Field("validate"), Field("seed", optional(count(0, MAX_SEED))))
"""A run config's keys (each section's below; docs/qd.md, "The config")."""
LEVEL_FIELDS = (Field("set", default=OMIT), Field("train", default=OMIT),
                Field("split_seed", count(0, MAX_SEED), OMIT), Field("held_out", default=OMIT))
AGENT_FIELDS = (*_agent_fields(DEFAULT_AGENT), Field("genome_mapping", default="weights"))
OPPONENT_FIELDS = _agent_fields(DEFAULT_OPPONENT)
FEATURE_FIELDS = (Field("name"), Field("range", _pair, OMIT), Field("width", number(), OMIT),
                  Field("bins", count(1, MAX_BINS), OMIT))
VALIDATE_FIELDS = (Field("games", optional(count(1, MAX_GAMES))),
                   Field("levels", _validation_levels, "held_out"),
                   Field("control", check_bool, True), Field("null_baseline", check_bool, False),
                   Field("delta", number(lo=0, hi=10.0), DELTA),
                   Field("margin", number(lo=0, hi=1.0), MARGIN))
AGENT_KEYS = tuple(f.name for f in AGENT_FIELDS)
OPPONENT_KEYS = tuple(f.name for f in OPPONENT_FIELDS)


def _seeds(game: Any, value: Any, key: str) -> list[int]:
    """A level set name (of the game) or an explicit list of level seeds."""
    if isinstance(value, str):
        with errors_in(key):
            return game.level_set(value)
    if isinstance(value, list) and value:
        seeds = [check_count(v, f"{key}[{i}]", -MAX_SEED) for i, v in enumerate(value)]
        if len(set(seeds)) != len(seeds):
            raise field_error(key, "a level is listed twice")
        return seeds
    raise field_error(key, f"a level set name or a non-empty list of level seeds expected, "
                           f"got {short(value)}")


# ------------------------------------------------------------------------------ sections

def _levels(game: Any, data: Any) -> tuple[list[int], list[int]]:
    """Either a pool split reproducibly (set, train count/fraction, split_seed), or explicit
    train and held-out sets. The two never overlap (the reference validated on a training
    level). Default: the game's default level set, 5 levels (at most all) for training."""
    d = read_section({"set": game.default_levels} if data is None else data, LEVEL_FIELDS,
                     "levels")
    if "set" in d:
        if "held_out" in d:
            raise field_error("levels.held_out", "give either set (+ train count and "
                                                 "split_seed) or explicit train and held_out")
        pool = _seeds(game, d["set"], "levels.set")
        train = d.get("train", min(5, len(pool)))
        if isinstance(train, bool) or not isinstance(train, (int, float)):
            raise field_error("levels.train", "with levels.set, a count (int) or a fraction "
                                              f"(float) of the set, got {short(train)}")
        if isinstance(train, int):
            if not 1 <= train <= len(pool):
                raise field_error("levels.train", f"must be in 1..{len(pool)}, got {train}")
            held = len(pool) - train
        else:
            if not 0.0 < train <= 1.0:
                raise field_error("levels.train", f"a fraction in (0, 1], got {train}")
            held = 1.0 - float(train)
        tr, ho = split(pool, held, d.get("split_seed", 0))
        if not tr:
            raise field_error("levels.train", "leaves no training level")
        return tr, ho
    if "split_seed" in d:
        raise field_error("levels.split_seed", "only with levels.set")
    if "train" not in d:
        raise field_error("levels.train", "missing (or give levels.set)")
    tr = _seeds(game, d["train"], "levels.train")
    ho = _seeds(game, d["held_out"], "levels.held_out") if d.get("held_out") else []
    both = sorted(set(tr) & set(ho))
    if both:
        raise field_error("levels.held_out", f"levels {both} are also training levels")
    return tr, ho


def _agent(data: Any, key: str, fields: tuple[Field, ...]) -> dict[str, Any]:
    """An agent: a spec string (`mcts:budget=500`) or a mapping of `fields`."""
    if isinstance(data, str):
        with errors_in(key):
            name, params = split_spec(data)
        data = {"name": name, "budget": params.pop("budget", None), "params": params}
    d = read_section(data, fields, key)
    for reserved in ("seed", "budget"):
        if reserved in d["params"]:
            raise field_error(f"{key}.params.{reserved}",
                              "set by the run" if reserved == "seed" else f"use {key}.budget")
    d["label"] = check_name(str(d["label"] or d["name"]), f"{key}.label")
    return d  # (the genome mapping's name is checked with the game, in `_genome`)


def _layout_names(game: str, layout: Any) -> tuple[str, ...]:
    """The scripts a layout (a name or a list of script names) gives, in genome order."""
    if not (isinstance(layout, str) or (isinstance(layout, list) and layout
                                        and all(isinstance(n, str) for n in layout))):
        raise field_error("layout", f"a layout name or a list of script names expected, "
                                    f"got {short(layout)}")
    with errors_in("layout"):
        return resolve_layout(game, layout)


def _check_builds(a: dict[str, Any], extra: dict[str, Any], key: str, game: str) -> None:
    """An unknown name, parameter or bad value of the agent as the run will build it stops
    the run before it starts."""
    params = dict(a["params"])
    if a["budget"] is not None:
        params["budget"] = a["budget"]
    params.update(extra)
    with errors_in(key):
        validate_agent(a["name"], params, game)


def _features(game: str, data: Any) -> list[Feature]:
    FEATURES = features_of(game)
    if data is None:
        data = list(FEATURES)[:2]
    if not isinstance(data, list) or not data:
        raise field_error("features", "a non-empty list of feature names (or mappings with "
                                      f"name, range, width|bins) expected; known: "
                                      f"{', '.join(FEATURES)}")
    out: list[Feature] = []
    for i, item in enumerate(data):
        key = f"features[{i}]"
        d = read_section({"name": item} if isinstance(item, str) else item, FEATURE_FIELDS, key)
        if d["name"] not in FEATURES:
            raise field_error(f"{key}.name", f"unknown feature {short(d['name'])} for {game}; "
                                             f"known: {', '.join(FEATURES)}")
        if "width" in d and "bins" in d:
            raise field_error(f"{key}.bins", "give width or bins, not both")
        lo, hi = d.get("range", (None, None))
        with errors_in(key):
            f = FEATURES[d["name"]].with_range(lo, hi, d.get("width"), d.get("bins"))
        if f.bins > MAX_BINS:
            raise field_error(key, f"{f.bins} bins; widen the bins")
        out.append(f)
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        raise field_error("features", f"a feature is listed twice: {names}")
    cells = int(np.prod([f.bins for f in out]))
    if cells > MAX_CELLS:
        raise field_error("features", f"{cells} cells in the grid; at most {MAX_CELLS}")
    return out


def _emitter(data: dict[str, Any]) -> dict[str, Any]:
    """`kind` (default `paper`) and every parameter of that kind, checked by its class
    (`qd.emitters.register_emitter`): the kind's defaults under the given values."""
    kind = data.get("kind", "paper")
    return {"kind": kind, **emitter_params(kind, data, "emitter")}


def _pipeline(pipeline: dict[str, Any], emitter: dict[str, Any]) -> dict[str, Any]:
    """`lag`: how many batches are in flight (default 1: every batch is asked after the one
    before it is told). An emitter that learns from each batch before its next ask (CMA-ME)
    needs lag 1."""
    if pipeline["lag"] > 1 and not getattr(emitter_class(emitter["kind"]), "pipelined", True):
        raise field_error("pipeline.lag", f"emitter {emitter['kind']} learns from every batch "
                                          f"before it asks the next one; it needs lag 1")
    return pipeline


def _validate_key(data: Any) -> dict[str, Any] | None:
    """`validate`: absent, null or false (the run ends with evolution), true (validate every
    elite with the defaults) or {games, levels, control, null_baseline, delta, margin}: the
    final elites are replayed on held-out levels, beside the control genome (and with
    `null_baseline` the fixed genomes of the null baseline), and the styles counted at the
    minimum effect `delta` (per-game standard deviations) with the non-inferiority `margin`
    (docs/styles.md)."""
    if data is None or data is False:
        return None
    d = check_mapping({} if data is True else data, "validate")
    if None in d:
        raise field_error("validate.null", "YAML reads the key `null` as no key at all: "
                                           "write null_baseline: true")
    if "null" in d:  # its former name (run directories written before the rename)
        if "null_baseline" in d:
            raise field_error("validate.null", "the former name of null_baseline, given "
                                               "beside it: keep null_baseline only")
        d = {("null_baseline" if k == "null" else k): v for k, v in d.items()}
    return read_section(d, VALIDATE_FIELDS, "validate")


# ------------------------------------------------------------------------------ entry points

def _game(d: dict[str, Any]) -> tuple[str, Any]:
    """(the game's name, the game), its options checked."""
    if "game" not in d:
        raise field_error("game", "missing: name the game (e.g. tribes)")
    g = get_game(d["game"])  # (it names the field: "game: unknown game ...")
    check_game_options(g, d["options"])
    return d["game"], g


def _genome(data: dict, game: str, agent: dict[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """(layout, genome names): the scripts the layout names, or the genes a genome mapping
    fixes, then (persona) the evaluator's terms; checked against a resolved config's
    `genome_scripts`, and the agent built with a sample genome."""
    layout = data["layout"]
    mapping = agent["genome_mapping"]
    found = MAPPINGS.find(mapping, game) if isinstance(mapping, str) else None
    if found is None:
        raise field_error("agent.genome_mapping",
                          MAPPINGS.unknown(mapping, f" for game {short(game)}", MAPPINGS.names(game)))
    genes, persona = found.genes, found.terms
    takes_weights = accepts(agent["name"], "weights", game)
    if genes is not None:  # the mapping fixes the genome: no scripts are involved
        if layout is not None:
            raise field_error("layout", f"genome mapping {mapping} fixes the genome "
                                        f"({', '.join(genes)}); leave layout out")
        names: tuple[str, ...] = tuple(genes)
    elif persona and not takes_weights:
        if layout is not None:
            raise field_error("layout", f"agent {agent['name']} takes no script weights; "
                                        f"genome mapping {mapping} evolves its evaluation "
                                        f"terms only: leave layout out")
        names = ()
    else:
        if layout is None:
            with errors_in("layout"):
                layout = default_layout(game) or "all"
        names = tuple(_layout_names(game, layout))
    if persona:
        names = (*names, *_persona_terms(game, agent))
    if not names:
        raise field_error("layout", "names no script to evolve")
    recorded = data[GENOME_SCRIPTS]
    if recorded is not None:
        if not (isinstance(recorded, list) and all(isinstance(n, str) for n in recorded)):
            raise field_error(GENOME_SCRIPTS, f"a list of script names expected, got "
                                              f"{short(recorded)}")
        if list(recorded) != list(names):
            raise field_error(GENOME_SCRIPTS, f"{recorded} are not the scripts layout "
                                              f"{short(layout)} names now: {list(names)} "
                                              f"(the weight columns would be misread)")
    return layout, names


def _persona_terms(game: str, agent: dict[str, Any]) -> list[str]:
    """The `term:<name>` genes of the agent's evaluator (a persona mapping); the evaluator
    spec becomes a mapping the genome's terms are merged into."""
    evaluator = agent["params"].get("evaluator")
    named = evaluator.get("name") if isinstance(evaluator, dict) else evaluator
    if isinstance(evaluator, str):  # the mapping adds the terms to the name
        agent["params"]["evaluator"] = evaluator = {"name": evaluator}
    with errors_in("agent.params.evaluator"):
        terms = term_genes(game, evaluator)
    if not terms:
        raise field_error("agent.genome_mapping",
                          f"{agent['genome_mapping']} evolves the evaluation terms of the "
                          f"agent's evaluator, and "
                          f"{short(named) if named else 'the default evaluator'} of "
                          f"{game} declares none")
    return list(terms)


def _opponent(data: Any, agent: dict[str, Any], game: str) -> dict[str, Any]:
    """The opponent, checked; at the agent's budget when it takes one and names none."""
    opponent = _agent(data, "opponent", OPPONENT_FIELDS)
    if opponent["budget"] is None and agent["budget"] is not None \
            and accepts(opponent["name"], "budget", game):
        opponent["budget"] = agent["budget"]  # "at the same budget"
    _check_builds(opponent, {}, "opponent", game)
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
    with errors_in(source, ConfigError):
        return _read_run(data, source, name)


def _read_run(data: Any, source: str, name: str | None) -> RunConfig:
    """`config_from_dict` (errors name the key; the caller puts the file in front)."""
    if not isinstance(data, dict):
        raise field_error("", "a mapping of keys expected")
    if "genome" in data:  # a config (or a run directory's config.yaml) from before the rename
        raise field_error("genome", GENOME_RENAMED)
    d = read_section(data, RUN_FIELDS)
    run_name = d["name"] if "name" in d else _run_name(name or "run", "name")
    game, g = _game(d)
    train, held_out = _levels(g, d["levels"])
    agent = _agent(d["agent"], "agent", AGENT_FIELDS)
    layout, genome_names = _genome(d, game, agent)
    sample = mapping_of(agent["genome_mapping"], game).fn(genome_names,
                                                        np.full(len(genome_names), 0.5))
    _check_builds(agent, sample, "agent", game)
    opponent = _opponent(d["opponent"], agent, game)
    features = _features(game, d["features"])
    emitter = _emitter(d["emitter"])
    evaluations = d["evaluations"] if "evaluations" in d else check_count(
        len(genome_names) + emitter["initial_random"] + 500, "evaluations", 1, MAX_EVALUATIONS)
    pipeline = _pipeline(d["pipeline"], emitter)
    noise = noise_params(d["noise"])
    validation = _validate_key(d["validate"])
    if validation is not None and validation["levels"] in ("held_out", "train") \
            and not (held_out if validation["levels"] == "held_out" else train):
        raise field_error("validate.levels", f"the config holds no "
                                             f"{validation['levels'].replace('_', '-')} levels "
                                             f"(levels.train takes them all); give a level set")
    seed = secrets.randbits(63) if d["seed"] is None else d["seed"]
    return RunConfig(name=run_name, game=game, options=d["options"], train_levels=train,
                     held_out_levels=held_out, agent=agent, layout=layout,
                     genome_names=tuple(genome_names), opponent=opponent,
                     repetitions=d["repetitions"], features=features, emitter=emitter,
                     evaluations=evaluations, seed=seed, pipeline=pipeline, noise=noise,
                     max_games=d["max_games"], validation=validation, source=source)


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
