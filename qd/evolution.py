"""The evolution as a pure ask/tell object: no file, no Ray, no clock.

`Evolution` holds the run state (the archive, the emitter and its generators, the noise
method, the counters and the batches in flight) and does what pyribs' scheduler does for one
emitter, with batches in flight: `ask` asks batches until `pipeline.lag` are in flight, `tell`
gives the batch at the front its games' rows (`qd.archive.game_table`: one row per game), and
the archive, the emitter and the noise method learn from them. The state after batch k is a
pure function of the config and of the rows each batch was told, which is how a run resumes
(`Evolution.replay`). The run (`qd.run`) plays the games, and its recorder
(`qd.recorder`) owns the run directory's files; this module returns data only: what telling a
batch gave (`Outcome`: the evaluations and their statuses), never a row of a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from ribs.schedulers import Scheduler

from play.runner import GameRecord, GameSpec
from qd.archive import EliteArchive, Evaluation, evaluate_rows, game_table
from qd.checkpoint import Told
from qd.config import RunConfig
from qd.emitters import make_emitter
from qd.features import PlayerGame, features_of
from qd.genome_games import Plan, genome_side
from qd.noise import make_noise


class ReplayMismatch(ValueError):
    """A checkpoint's batch that this code asks differently (another version of the code, or
    an edited checkpoint)."""


@dataclass
class InFlight:
    """A batch that was asked and not yet told: its number, its first evaluation's index,
    its genomes, and whether they are initial individuals."""

    index: int
    first: int
    genomes: np.ndarray
    initial: bool
    replays: list = field(default_factory=list)  # (candidate id, replay number, genome)

    def games(self, plan: Plan) -> list[GameSpec]:
        """Its games: each genome's (`Plan.games`), then each replay's."""
        specs = [s for k, g in enumerate(self.genomes) for s in plan.games(g, self.first + k)]
        return specs + [s for cid, r, g in self.replays for s in plan.games(g, cid, replay=r)]


@dataclass
class Outcome:
    """What telling a batch gave: the batch, the game rows it was told (one array per genome,
    then per replay), its genomes' evaluations and their statuses (0 rejected, 1 improved,
    2 new cell, 3 waiting)."""

    batch: InFlight
    rows: list[np.ndarray]
    evaluations: list[Evaluation]
    status: np.ndarray


@dataclass
class RunState:
    """Everything needed to continue a run; rebuilt from the checkpoint by `replay`."""

    archive: EliteArchive
    scheduler: Scheduler
    batch: int = 0  # batches completed (told)
    evaluations: int = 0  # evaluations told
    games: int = 0
    in_flight: list[InFlight] = field(default_factory=list)  # asked, not told, in order
    noise: Any = None  # the run's qd.noise.NoiseMethod (None: plain MAP-Elites)

    @property
    def emitter(self):
        return self.scheduler.emitters[0]

    @property
    def asked(self) -> int:
        """Evaluations asked so far (told or in flight)."""
        return self.evaluations + sum(len(b.genomes) for b in self.in_flight)


def new_state(config: RunConfig) -> RunState:
    """A fresh run: empty archive and emitter, seeded from the run seed."""
    archive_seed, emitter_seed = (int(s) for s in
                                  np.random.SeedSequence(config.seed).generate_state(2))
    players = config.players
    archive = EliteArchive(config.features, config.genome_names, seed=archive_seed,
                           stats=list(features_of(config.game).values()), players=players)
    e = dict(config.emitter)
    emitter = make_emitter(archive.grid, e.pop("kind"), seed=emitter_seed, **e)
    scheduler = Scheduler(archive.grid, [emitter], add_mode="batch")
    return RunState(archive, scheduler,
                    noise=make_noise(config.noise, players=players))


def _ask(state: RunState) -> np.ndarray:
    """The emitter's next batch. The scheduler's own ask/tell pairs one ask with the next
    tell; with batches in flight a tell follows later asks, so the run does what the
    scheduler does for its one emitter (in batch mode) itself."""
    return np.asarray(state.emitter.ask())


def _tell_batch(state: RunState, front: InFlight, rows: Sequence[np.ndarray]) -> Outcome:
    """Tell the archive, the emitter and the noise method the batch at the front (each
    genome's and replay's game rows, in order) and count it as done; what it gave. The run
    and `replay` both tell through here.

    Args:
        state: the run state (changed).
        front: the batch in flight at the front.
        rows: the game rows (`qd.archive.game_table`) of each of its genomes and replays.
    """
    archive = state.archive
    names = archive.stat_names
    evals = [evaluate_rows(g, r, archive.features, names, archive.players)
             for g, r in zip(front.genomes, rows)]
    fields = archive.fields(evals, front.index, front.first)
    objective = np.array([e.objective for e in evals])
    measures = np.array([e.measures for e in evals]).reshape(len(evals), len(archive.features))
    noise = state.noise
    if noise is None:
        status = _tell(state, front.genomes, objective, measures, fields)
    else:
        n = len(front.genomes)
        replayed = [(cid, r) for (cid, _, _), r in zip(replays_of(front), rows[n:])]
        status, value = noise.tell(archive, front.index, front.first, front.genomes,
                                   rows[:n], replayed, archive.features, names)
        if n:  # (the closing batch has replays only)
            state.emitter.tell(front.genomes, objective, measures,
                               {"status": np.minimum(status, 2) * (status < 3),
                                "value": value}, **fields)
    state.in_flight.pop(0)
    state.batch = front.index + 1
    state.evaluations += len(evals)
    state.games += sum(len(r) for r in rows)
    return Outcome(front, list(rows), evals, status)


def _tell(state: RunState, solutions: np.ndarray, objective: np.ndarray,
          measures: np.ndarray, fields: dict[str, Any]) -> np.ndarray:
    """Insert a batch into the archive and give the emitter the results; the statuses
    (0 rejected, 1 improved, 2 new cell)."""
    data = {"objective": np.asarray(objective), "measures": np.asarray(measures),
            **{k: np.asarray(v) for k, v in fields.items()}, "solution": solutions}
    add_info = state.scheduler.archive.add(**data)
    state.emitter.tell(**data, add_info=add_info)
    return np.asarray(state.emitter.last_add_info["status"])


def _finished(state: RunState, config: RunConfig) -> bool:
    """Evolution is over (every evaluation asked, or the games of `max_games`) and the noise
    method's closing batch, if it has one, was asked (with nothing in flight: played)."""
    noise = state.noise
    return _evolution_over(state, config) and not (noise is not None and noise.pending)


def _evolution_over(state: RunState, config: RunConfig) -> bool:
    """No more genomes are asked: every evaluation was asked, the games asked reach
    `max_games` (less what the noise method keeps back for its closing replays), or the
    closing batch was asked."""
    noise = state.noise
    if state.asked >= config.evaluations or (noise is not None and noise.closed):
        return True
    if config.max_games is None:
        return False
    reserve = noise.reserve(len(state.archive.ids()), games_per_genome(config)) \
        if noise is not None else 0
    return games_asked(state, config) + reserve >= config.max_games


def games_per_genome(config: RunConfig) -> int:
    """The games of one evaluation or replay: training levels x repetitions."""
    return len(config.train_levels) * config.repetitions


def games_asked(state: RunState, config: RunConfig) -> int:
    """Games played and in flight, replays included."""
    gpi = games_per_genome(config)
    return state.games + sum((len(b.genomes) + len(replays_of(b))) * gpi for b in state.in_flight)


def replays_of(b: InFlight) -> list:
    """The replays of a batch in flight."""
    return b.replays


def genome_rows(archive: EliteArchive, records: Sequence[GameRecord]) -> np.ndarray:
    """One genome's game rows (`qd.archive.game_table`) from its records."""
    games = [PlayerGame.from_record(rec, seat) for rec, seat in genome_side(records)]
    return game_table(games, archive.stats_features)


def replay(config: RunConfig, told: Sequence[Told]) -> tuple[RunState, list[Outcome]]:
    """The run state after the checkpoint's batches: a fresh state told every batch again,
    in order, exactly as the run told it, each batch checked to ask the genomes (and
    replays) the checkpoint holds. Also what telling each batch gave.

    Args:
        config: the run's config.
        told: the checkpoint's batches (`qd.checkpoint.told_batches`).

    Raises:
        ReplayMismatch: a batch asks other genomes now than the checkpoint holds (the code
            that asks or tells changed since the run started, or the checkpoint was edited).
    """
    state = new_state(config)
    lag = int(config.pipeline.get("lag", 1))
    _fill(state, config, lag)
    outcomes = []
    for t in told:
        front = state.in_flight[0] if state.in_flight else None
        if front is None or (front.index, front.first) != (t.batch, t.first) \
                or not np.array_equal(front.genomes, t.genomes) \
                or not _same_replays(replays_of(front), t.replays):
            raise ReplayMismatch(f"batch {t.batch} was asked other genomes than this code "
                           f"asks from the batches before it: the run was started by another "
                           f"version of playstyles (resume it with that version) or the file "
                           f"was edited")
        outcomes.append(_tell_batch(state, front, t.rows))
        _fill(state, config, lag)
    return state, outcomes


def _same_replays(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(
        int(x[0]) == int(y[0]) and int(x[1]) == int(y[1]) and np.array_equal(x[2], y[2])
        for x, y in zip(a, b))


def _fill(state: RunState, config: RunConfig, lag: int) -> list[InFlight]:
    """Ask batches until `lag` are in flight. A search batch is never asked while initial
    individuals are in flight (the search starts from their elites), and nothing is asked
    past the evaluations. Depends only on the state, so a resumed run asks the same."""
    new = []
    emitter = state.emitter
    noise = state.noise
    while len(state.in_flight) < lag:
        asked = state.asked
        if _evolution_over(state, config):
            break
        initial = getattr(emitter, "initial_left", 0) > 0
        if not initial and any(b.initial for b in state.in_flight):
            break
        emitter.limit = config.evaluations - asked
        genomes = _ask(state)
        if len(genomes) == 0:
            break
        replays = noise.ask(state.archive.ids()) if noise is not None else []
        b = InFlight(state.batch + len(state.in_flight), asked, genomes, initial, replays)
        state.in_flight.append(b)
        new.append(b)
    if noise is not None and noise.pending and not state.in_flight \
            and _evolution_over(state, config):
        replays = noise.closing(state.archive.ids())  # the run's closing batch
        if replays:
            b = InFlight(state.batch, state.asked,
                         np.empty((0, len(config.genome_names))), False, replays)
            state.in_flight.append(b)
            new.append(b)
    return new


class Evolution:
    """The evolution of one run config as an ask/tell object (no I/O).

    Args:
        config: the run config.
        state: the state to continue from (default: a fresh one, seeded from the config).
    """

    def __init__(self, config: RunConfig, state: RunState | None = None) -> None:
        self.config = config
        self.state = state if state is not None else new_state(config)
        self.lag = int(config.pipeline.get("lag", 1))

    def ask(self) -> list[InFlight]:
        """Ask batches until `pipeline.lag` are in flight (or evolution is over); the new
        ones, in order."""
        return _fill(self.state, self.config, self.lag)

    @property
    def front(self) -> InFlight | None:
        """The batch in flight that is told next."""
        return self.state.in_flight[0] if self.state.in_flight else None

    def tell(self, rows: Sequence[np.ndarray]) -> Outcome:
        """Tell the batch at the front its rows (one array per genome, then per replay);
        what it gave."""
        return _tell_batch(self.state, self.front, rows)

    def tell_games(self, records: Sequence[GameRecord]) -> Outcome:
        """Tell the batch at the front its games' records (in the order of
        `InFlight.games`); what it gave."""
        gpi = games_per_genome(self.config)
        front = self.front
        return self.tell([genome_rows(self.state.archive, records[k * gpi:(k + 1) * gpi])
                          for k in range(len(front.genomes) + len(front.replays))])

    @property
    def finished(self) -> bool:
        """Nothing is in flight and nothing more will be asked."""
        return not self.state.in_flight and _finished(self.state, self.config)

    @classmethod
    def replay(cls, config: RunConfig, told: Sequence[Told]
               ) -> tuple["Evolution", list[Outcome]]:
        """The evolution after a checkpoint's batches (`replay`), and what telling each
        of them gave."""
        state, outcomes = replay(config, told)
        return cls(config, state), outcomes
