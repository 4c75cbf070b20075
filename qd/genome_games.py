"""A genome's games: which games an individual plays, and playing a whole batch at once.

The games and their results make up a genome's evaluation (`qd.archive.evaluate_games` turns
them into quality and features); this module only decides and plays them.

An individual (a genome) becomes an agent spec through a genome mapping (default: the evolved
scripts' weights as the agent's `weights` parameter, a dict script name -> weight). It plays
every training level `repetitions` times against the opponent, its seat moving on by one from
game to game (alternating in a two-player game; in a game of n players the opponent's agent
takes every other seat, each with its own seed, and the genome takes seat g mod n in game g;
in a one-player game the genome plays alone and the opponent is never seated).
Seeds come from the run seed, the individual's index in the run and the game's index within the
individual, so a game is the same whoever plays it, whenever, in whatever order.

A batch of individuals is submitted as one list of games (one Ray task each, through a
`play.game_pool.GamePool`) so that long and short games balance over the workers; a run may
keep several batches in flight (`BatchGames`). Results are stored by batch and index, never
by arrival.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from agents.evaluators import evaluation_terms
from agents.portfolio.portfolio import DEFAULT_WEIGHT
from games.registry import Registry
from play.game_pool import GamePool
from play.ray_session import ensure_ray
from play.runner import AgentSpec, GameRecord, GameSpec

# ------------------------------------------------------------------ genome -> agent parameters

MappingFn = Callable[[Sequence[str], np.ndarray], dict[str, Any]]
"""(genome names, genome) -> the agent's parameters."""

TERM = "term:"
"""The genome name of an evaluation term's gene: ``term:<term>``."""
PERSONA_RANGE = 5.0
"""``persona``: a term's gene g in [0, 1] multiplies its weight by PERSONA_RANGE ** (2g - 1)
(1/5 at 0, 1 at the control's 0.5, 5 at 1)."""

CONTROL_WEIGHT = DEFAULT_WEIGHT
"""The control genome of the `weights` mapping: every evolved script at the portfolio's
default weight, as an agent given no weights."""


@dataclass(frozen=True)
class GenomeMapping:
    """A genome mapping, all it says in one record.

    Args:
        fn: (genome names, genome) -> the agent's parameters.
        genes: None (the genome is the weights of the scripts the config's `layout` names),
            or the names of the genome's values, in order, when the mapping fixes them itself
            (e.g. the cost weights of a planner); the config then takes no `layout`.
        control: with `genes`, the control genome: the values that give the agent's default
            behaviour (the baseline every style is compared with).
        terms: the genome is the weights of the layout's scripts (when the agent takes
            `weights`; none otherwise) followed by one gene per evaluation term of the agent's
            evaluator (`agents.evaluators.evaluation_terms`), named ``term:<term>``; the
            control is all 0.5.
    """

    fn: MappingFn
    genes: tuple[str, ...] | None = None
    control: tuple[float, ...] | None = None
    terms: bool = False


MAPPINGS = Registry("genome mapping")
"""Genome mappings a config may name (`agent.genome_mapping`), per game (or ``*``) ->
their `GenomeMapping`."""


def register_mapping(game: str, name: str, fn: MappingFn, genes: Sequence[str] | None = None,
                     control: Sequence[float] | None = None, terms: bool = False
                     ) -> GenomeMapping:
    """Register a genome mapping (the fields are `GenomeMapping`'s).

    Args:
        game: the game (or family) it is for; ``*`` for every game.
        name: its name in configs (`agent.genome_mapping`).
        fn, genes, terms: as `GenomeMapping`'s.
        control: with `genes`, the control genome; default all 0.5.
    """
    if terms and genes is not None:
        raise ValueError(f"mapping {name}: genes or terms, not both")
    values = None
    if genes is not None:
        values = [CONTROL_WEIGHT] * len(genes) if control is None else list(control)
        if len(values) != len(genes):
            raise ValueError(f"mapping {name}: control: one value per gene ({len(genes)}), "
                             f"got {len(values)}")
    mapping = GenomeMapping(fn, None if genes is None else tuple(genes),
                            None if values is None else tuple(float(v) for v in values),
                            bool(terms))
    MAPPINGS.add(name, mapping, game=game)
    return mapping


def mapping_of(name: str, game: str) -> GenomeMapping:
    """The genome mapping `name` of `game`; an unknown name is one error listing the known
    ones."""
    return MAPPINGS.get(name, game)


ZERO = "zero"
"""The all-zero genome's label among the fixed genomes."""


def fixed_genomes(names: Sequence[str], pairs: bool = False) -> list[tuple[str, np.ndarray]]:
    """The fixed genomes a probe plays and a null baseline counts (no evolution): the
    all-zero genome (`zero`), then one one-hot genome per gene (`<gene>=1`), then, with
    `pairs`, every genome with two genes at 1 (`<gene>=1+<gene>=1`, in gene order). Pairs
    show what mixing two genes adds to what either shows alone: a tighter bound on the
    styles evolution can find than the one-hot genomes give.

    Args:
        names: the genome's names, in order.
        pairs: add the two-gene genomes.
    """
    out = [(ZERO, np.zeros(len(names)))]
    for size in (1, 2) if pairs else (1,):
        for genes in itertools.combinations(range(len(names)), size):
            genome = np.zeros(len(names))
            genome[list(genes)] = 1.0
            out.append(("+".join(f"{names[i]}=1" for i in genes), genome))
    return out


def control_genome(game: str, mapping: str, names: Sequence[str]) -> np.ndarray:
    """The control genome of a run: the genome whose agent plays with its default settings
    (the `weights` mapping: every evolved script at the default weight; a mapping with genes:
    the control it registered). Styles are compared with it on the same games.

    Args:
        game: the run's game.
        mapping: the run's genome mapping.
        names: the genome's names, in order.
    """
    control = mapping_of(mapping, game).control
    if control is not None:
        return np.array(control, dtype=float)
    return np.full(len(names), CONTROL_WEIGHT, dtype=float)


def term_genes(game: str, evaluator: Any) -> tuple[str, ...]:
    """The genome names of the evaluation terms of an agent's evaluator (``term:<term>``, in
    the evaluator's order; none when it declares none).

    Args:
        game: the game.
        evaluator: the agent's `evaluator` parameter (None: the game's default).
    """
    return tuple(TERM + t for t in evaluation_terms(game, evaluator))


def persona_multiplier(gene: float) -> float:
    """The multiplier of a term's weight for its gene (`PERSONA_RANGE`)."""
    return float(PERSONA_RANGE ** (2.0 * float(gene) - 1.0))


def _persona(names: Sequence[str], genome: np.ndarray) -> dict[str, Any]:
    """Portfolio agents with a reweighted evaluator: the scripts' weights by name (`weights`,
    when the genome holds scripts) and each evaluation term's multiplier (`evaluator:
    {terms: ...}`, `persona_multiplier`)."""
    out: dict[str, Any] = {}
    weights = {n: float(v) for n, v in zip(names, genome) if not n.startswith(TERM)}
    terms = {n[len(TERM):]: persona_multiplier(v) for n, v in zip(names, genome)
             if n.startswith(TERM)}
    if weights:
        out["weights"] = weights
    if terms:
        out["evaluator"] = {"terms": terms}
    return out


def _weights(names: Sequence[str], genome: np.ndarray) -> dict[str, Any]:
    """Portfolio agents (pmcts_pu): the evolved scripts' weights by name."""
    return {"weights": {n: float(v) for n, v in zip(names, genome)}}


def _ignore(names: Sequence[str], genome: np.ndarray) -> dict[str, Any]:
    """No parameter depends on the genome: for testing the machinery with any agent."""
    return {}


def _exploration(names: Sequence[str], genome: np.ndarray) -> dict[str, Any]:
    """Any tree search with an exploration constant `c` (MCTS, P-MCTS), in any game: one
    gene, c = 2 sqrt(2) x gene, so the control 0.5 is the usual sqrt(2)."""
    return {"c": float(2 * np.sqrt(2) * genome[0])}


register_mapping("*", "weights", _weights)
register_mapping("*", "none", _ignore)
register_mapping("*", "exploration", _exploration, genes=("exploration",), control=[0.5])
register_mapping("*", "persona", _persona, terms=True)


# ------------------------------------------------------------------ the games of an individual

@dataclass(frozen=True)
class Plan:
    """Everything that decides which games an individual plays (from the run config)."""

    game: str
    levels: tuple[Any, ...]
    repetitions: int
    agent: AgentSpec  # the evolved agent without its genome parameters
    opponent: AgentSpec
    genome_names: tuple[str, ...]
    mapping: str
    options: tuple[tuple[str, Any], ...]
    seed: int
    players: int = 2  # seats at the game's table; the opponent takes all but the genome's

    @property
    def games_per_individual(self) -> int:
        return len(self.levels) * self.repetitions

    def control(self) -> np.ndarray:
        """The control genome (`control_genome`)."""
        return control_genome(self.game, self.mapping, self.genome_names)

    def agent_for(self, genome: np.ndarray) -> AgentSpec:
        """The agent that plays `genome`: the evolved agent's parameters with the mapping's
        (a mapping's value merged key by key into the agent's own mapping of that name, e.g.
        an evaluator's terms into ``{"name": ...}``)."""
        params = dict(self.agent.params)
        for k, v in mapping_of(self.mapping, self.game).fn(self.genome_names, genome).items():
            old = params.get(k)
            params[k] = {**old, **v} if isinstance(v, dict) and isinstance(old, dict) else v
        return AgentSpec(self.agent.name, tuple(sorted(params.items())), self.agent.label)

    def games(self, genome: np.ndarray, individual: int, replay: int = 0) -> list[GameSpec]:
        """The individual's games: level-major, the genome in seat g mod `players` in game g.
        Replay r > 0 (a noise-aware run playing the genome again) has seeds of its own, and
        its games' tags end with r."""
        me = self.agent_for(genome)
        out = []
        g = 0
        for level in self.levels:
            for _ in range(self.repetitions):
                key = (individual, g) if replay == 0 else (individual, g, replay)
                seat = g % self.players
                out.append(self.spec(me, key, level, seat,
                                     (individual, g, seat) + ((replay,) if replay else ())))
                g += 1
        return out

    def spec(self, me: AgentSpec, key: tuple, level: Any, seat: int, tag: tuple) -> GameSpec:
        """One game of `me` in `seat` against the opponent on `level`, with seeds from (run
        seed, `key`) (`seat_table`).

        Args:
            me: the evaluated agent.
            key: the game's spawn key.
            level: the level.
            seat: `me`'s seat.
            tag: the game's tag (the evaluated agent's number, the game, the seat, ...).
        """
        game_seed, agents, seeds = seat_table(self.seed, key, me, self.opponent, seat,
                                              self.players)
        return GameSpec(game=self.game, level=level, seed=game_seed, agents=agents,
                        agent_seeds=seeds, options=self.options, tag=tag)


def seat_table(seed: int, key: tuple, me: AgentSpec, opponent: AgentSpec, seat: int,
               players: int) -> tuple[int, tuple[AgentSpec, ...], tuple[int, ...]]:
    """One game's seed, agents and agent seeds: `me` in `seat`, `opponent` in every other seat.

    Args:
        seed: the run seed.
        key: the game's spawn key (who plays it, which game, which replay).
        me: the evaluated agent.
        opponent: the agent in the other seats.
        seat: `me`'s seat.
        players: seats at the table.

    Seeds come from `SeedSequence(seed, spawn_key=key)`: the game's, then `me`'s, then one per
    opponent seat in seat order (in a two-player game exactly the three words it always drew).
    """
    words = [int(x) for x in np.random.SeedSequence(seed, spawn_key=key)
             .generate_state(1 + players, np.uint32)]
    game_seed, s_me, s_opp = words[0], words[1], iter(words[2:])
    agents = tuple(me if p == seat else opponent for p in range(players))
    seeds = tuple(s_me if p == seat else next(s_opp) for p in range(players))
    return game_seed, agents, seeds


# ------------------------------------------------------------------ playing batches

@dataclass
class BatchTiming:
    wall: float = 0.0  # from the first submission to the last result
    game_seconds: float = 0.0  # sum of the games' own durations (measured in the workers)
    reused: int = 0  # games taken from a previous, interrupted attempt at this batch
    retries: int = 0  # extra attempts Ray made after a worker or node died


@dataclass
class PlayingBatch:
    """One batch's games while they are played: records in spec order (None until done)."""

    index: int
    specs: list[GameSpec]
    slots: list[GameRecord | None]
    left: int
    timing: BatchTiming = field(default_factory=BatchTiming)
    started: float = 0.0

    @property
    def complete(self) -> bool:
        return self.left == 0

    def done(self) -> dict[int, GameRecord]:
        """The games finished so far, by index."""
        return {i: r for i, r in enumerate(self.slots) if r is not None}


class BatchGames:
    """The games of several batches in flight at once (one Ray task each), each result
    stored in its batch's slot by index, never by arrival.

    Args:
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: CPUs of a local Ray (default: all); 0 plays in-process without Ray.
        games: the games it will play (their plug-ins reach the workers: `GamePool`).
    """

    def __init__(self, address: str | None = None, workers: int | None = None,
                 games: Iterable[str] = ()) -> None:
        self.pool = GamePool(address, workers, games=games)
        self.batches: dict[int, PlayingBatch] = {}

    def start(self, index: int, specs: Sequence[GameSpec],
              done: dict[int, GameRecord] | None = None) -> PlayingBatch:
        """Take the games of `done` (index -> record) whose spec matches, submit the rest."""
        if index in self.batches:
            raise RuntimeError(f"batch {index} is already being played")
        b = PlayingBatch(index, list(specs), [None] * len(specs), len(specs),
                         started=time.perf_counter())
        for i, rec in (done or {}).items():
            if 0 <= i < len(specs) and rec.spec == specs[i]:
                b.slots[i] = rec
                b.timing.reused += 1
                b.left -= 1
        self.batches[index] = b
        self.pool.submit(index, ((i, s) for i, s in enumerate(specs) if b.slots[i] is None))
        if b.complete:
            b.timing.wall = 0.0
        return b

    def wait(self) -> tuple[PlayingBatch, int, GameRecord]:
        """The next game to finish, whichever batch it belongs to, stored in its slot.

        Raises:
            play.game_pool.GameLost: its task failed outside the game's code after Ray's
                retries (the key is the batch).
            RuntimeError: a game returned twice, or nothing in flight.
        """
        try:
            key, i, rec, attempt = self.pool.next()
        except LookupError:
            missing = {k: [i for i, s in enumerate(b.slots) if s is None][:5]
                       for k, b in self.batches.items() if not b.complete}
            raise RuntimeError(f"games {missing} never returned") from None
        b = self.batches[key]
        if b.slots[i] is not None:
            raise RuntimeError(f"game {i} of batch {key} was returned twice")
        b.slots[i] = rec
        b.left -= 1
        b.timing.game_seconds += game_seconds(rec)
        b.timing.retries += attempt
        if b.complete:
            b.timing.wall = time.perf_counter() - b.started
        return b, i, rec

    def finish(self, index: int) -> tuple[list[GameRecord], BatchTiming]:
        """A complete batch's records in spec order; the batch leaves the pool."""
        b = self.batches[index]
        if not b.complete:
            raise RuntimeError(f"batch {index} is not complete ({b.left} games left)")
        del self.batches[index]
        return b.slots, b.timing  # type: ignore[return-value]

    def cancel(self) -> None:
        """Drop every game still in flight."""
        self.pool.cancel()
        self.batches.clear()


def play(specs: Sequence[GameSpec], done: dict[int, GameRecord] | None = None,
         address: str | None = None, workers: int | None = None,
         on_result: Callable[[int, GameRecord], None] | None = None,
         ) -> tuple[list[GameRecord], BatchTiming]:
    """Play every spec not already in `done` (index -> record); records in spec order.

    `on_result(index, record)` is called as each new game arrives (for the partial-batch file
    and the progress count). A game that arrives twice or never is an error, not a silent fix.
    """
    games = BatchGames(address, workers, dict.fromkeys(s.game for s in specs))
    try:
        b = games.start(0, specs, done)
        while not b.complete:
            _, i, rec = games.wait()
            if on_result is not None:
                on_result(i, rec)
        return games.finish(0)
    finally:
        games.cancel()


def game_seconds(rec: GameRecord) -> float:
    """Time a worker spent on a game: its CPU time when the record carries one, else the
    game's wall time measured in the worker (equal on a worker that has its core to itself)."""
    cpu = getattr(rec, "cpu_seconds", None)
    return float(cpu) if cpu is not None else float(rec.seconds)


def genome_side(records: Iterable[GameRecord]) -> Iterator[tuple[GameRecord, int]]:
    """Each record with the seat the evolved genome took (from the spec's tag)."""
    for rec in records:
        yield rec, int(rec.spec.tag[2])


def credit(rec: GameRecord, player: int) -> float:
    """`player`'s share of first place in a game (1 a win, 1/k first place shared by k, 0
    otherwise), as an int when whole.

    Args:
        rec: the finished game.
        player: the seat.
    """
    return whole(rec.result(player))


def whole(x: float) -> int | float:
    """`x` as an int when it is a whole number (a count of wins without shared places),
    else as it is."""
    return int(x) if float(x).is_integer() else x


def worker_count(address: str | None, workers: int | None, games: Iterable[str] = ()) -> int:
    """CPUs that play games: 1 in-process, else what the Ray cluster offers (started or
    joined for `games`: `play.ray_session.ensure_ray`)."""
    if workers == 0 and not address:
        return 1
    ray = ensure_ray(address, workers, games)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
