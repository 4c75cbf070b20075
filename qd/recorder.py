"""The run directory while evolution plays: its tables, each batch's metrics, the checkpoint
and run.log.

`Recorder` turns what a told batch gives (its games' records, its evaluations and their
statuses: data from `qd.evolution`) into the rows of games.csv, individuals.csv, elites.csv
and metrics.csv, appends them, and then writes the batch's checkpoint line, which records the
tables' digests (`qd.checkpoint.TableDigests`): a batch is recorded once its checkpoint line is
written. The recorder keeps the run's clock (`elapsed_seconds`: wall seconds spent in the
batches told). Resuming, it brings the tables back to what the checkpoint recorded
(`Recorder.restore`). A run file that cannot be written raises `WriteFailed` naming the file;
the run (`qd.run`) says how to continue.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd

from base.files import atomic_write, open_own
from play.journal import plain
from play.runner import GameRecord
from qd.checkpoint import CheckpointLog, TableDigests, Told
from qd.config import RunConfig, dump_config
from qd.evolution import Evolution, Outcome
from qd.genome_games import BatchTiming, credit, genome_side
from qd.rundir import (
    CHECKED_TABLES,
    CHECKPOINT,
    CONFIG,
    ELITES,
    GAMES,
    INDIVIDUALS,
    LOG,
    METRIC_COLUMNS,
    METRICS,
    STATUS,
    event_count_prefixes,
    game_sides,
    mean_column,
    measure_column,
    side_prefix,
    std_column,
    table_problem,
)

# ------------------------------------------------------------------------------ files


class WriteFailed(Exception):
    """A run file could not be written (the run turns it into an error that names the
    batch)."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: {error.strerror or error}")
        self.path, self.error = path, error


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Writes to `path` inside the block: an OSError becomes `WriteFailed` naming the
    file, and the atomic writer's temporary file is removed (space is scarce)."""
    try:
        yield
    except OSError as e:
        Path(f"{path}.tmp").unlink(missing_ok=True)
        raise WriteFailed(Path(path), e) from e


def write(path: Path, data: str | bytes) -> None:
    """Write a whole file atomically (`writing`)."""
    with writing(path):
        atomic_write(path, data)


def append_csv(path: Path, frame: pd.DataFrame, fill_zero: Sequence[str] = (),
               digests: TableDigests | None = None) -> None:
    """Append rows; if they bring new columns, rewrite the file with the union of columns
    (absent counts become 0). A failed append is cut off again.

    Args:
        path: the table.
        frame: the rows.
        fill_zero: columns (or column prefixes) whose absent values are 0.
        digests: the run's table digests, told what was written.
    """
    if frame.empty:
        return
    if not path.exists() or path.stat().st_size == 0:
        write_table(path, frame.to_csv(index=False).encode(), digests)
        return
    header = pd.read_csv(path, nrows=0).columns.tolist()
    if set(frame.columns) <= set(header):
        frame = frame.reindex(columns=header)
        zero = [c for c in header if c in fill_zero or c.startswith(tuple(fill_zero))]
        frame[zero] = frame[zero].fillna(0)
        data = frame.to_csv(index=False, header=False).encode()
        size = path.stat().st_size
        with writing(path):
            try:
                with open_own(path) as fh:
                    fh.write(data)
            except BaseException:
                with open_own(path, "r+b") as fh:  # no torn row is left behind
                    fh.truncate(size)
                raise
        if digests is not None:
            digests.appended(path.name, data)
        return
    old = pd.read_csv(path)
    both = pd.concat([old, frame], ignore_index=True)
    zero = [c for c in both.columns if c.startswith(tuple(fill_zero))]
    both[zero] = both[zero].fillna(0)
    write_table(path, both.to_csv(index=False).encode(), digests)


def write_table(path: Path, data: bytes, digests: TableDigests | None = None) -> None:
    """Write a whole table (atomically) and tell the digests."""
    write(path, data)
    if digests is not None:
        digests.written(path.name, data)


class _LogFile(logging.FileHandler):
    """run.log, appended to without following a symbolic link (`open_own`)."""

    def _open(self):
        return open_own(self.baseFilename, self.mode, encoding=self.encoding,
                        errors=self.errors)


def _logger(run_dir: Path) -> logging.Logger:
    log = logging.getLogger(f"playstyles.qd.{run_dir.resolve()}")
    log.setLevel(logging.INFO)
    log.propagate = False
    for h in list(log.handlers):
        log.removeHandler(h)
        h.close()
    h = _LogFile(run_dir / LOG)
    h.handleError = lambda record: None  # a full disk must not also print tracebacks
    h.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(h)
    return log


# ------------------------------------------------------------------------------ rows

def game_rows(batch: int, gpi: int, records: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """A batch's rows of games.csv (one dict per game, as JSON data for the checkpoint).

    Args:
        batch: the batch.
        gpi: games per genome.
        records: its games, in spec order.
    """
    rows = []
    for k, (rec, seat) in enumerate(genome_side(records)):
        spec = rec.spec
        me = side_prefix("genome")
        n = len(spec.agents)
        row: dict[str, Any] = {
            "batch": batch, "evaluation": int(spec.tag[0]), "game": k % gpi,
            "replay": int(spec.tag[3]) if len(spec.tag) > 3 else 0,
            "level": spec.level if isinstance(spec.level, (int, str)) else str(spec.level),
            "game_seed": spec.seed, f"{me}seat": seat,
            "rounds": rec.rounds, "winner": rec.winner, f"{me}won": credit(rec, seat),
            "seconds": round(rec.seconds, 4)}
        for j, who in enumerate(game_sides(n)):
            row.update(rec.player_columns((seat + j) % n, side_prefix(who), digits=4))
        rows.append(row)
    return plain(rows)


def individual_rows(config: RunConfig, outcome: Outcome) -> pd.DataFrame:
    """A told batch's rows of individuals.csv (one per evaluation).

    Args:
        config: the run's config (the genome's names, the features).
        outcome: what telling the batch gave.
    """
    rows = []
    status: np.ndarray = outcome.status
    for k, e in enumerate(outcome.evaluations):
        row: dict[str, Any] = {"batch": outcome.batch.index,
                               "evaluation": outcome.batch.first + k,
                               "status": STATUS[int(status[k])]}
        row.update({n: float(v) for n, v in zip(config.genome_names, e.genome)})
        row.update({"win_rate": e.win_rate, "wins": e.wins, "games": e.games,
                    "mean_score": e.mean_score})
        for f, m in zip(config.features, e.measures):
            row[measure_column(f.name)] = float(m)
        for n in e.feature_mean:
            row[mean_column(n)] = e.feature_mean[n]
            row[std_column(n)] = e.feature_std[n]
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ the recorder

class Recorder:
    """The run directory's tables, metrics, checkpoint and log while the run plays.

    Args:
        run_dir: the run directory.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.checkpoint = CheckpointLog(run_dir / CHECKPOINT)
        self.digests = TableDigests(run_dir)
        self.log: logging.Logger | None = None
        self.elapsed = 0.0  # wall seconds spent in the batches told
        self.saved = 0  # batches checkpointed
        self.workers = 1  # CPUs that play games (`start_clock`)
        self.alive = (1, 1)  # CPUs and nodes alive at the last batch
        self._mark = time.perf_counter()

    def begin(self, config: RunConfig) -> None:
        """A fresh run: the checkpoint's header, empty tables, config.yaml."""
        with writing(self.checkpoint.path):
            self.checkpoint.start(config.to_dict())
        for name in CHECKED_TABLES:
            self.digests.load(name)
        self._config(config)

    def restore(self, evo: Evolution, told: Sequence[Told], outcomes: Sequence[Outcome]
                ) -> list[str]:
        """A resumed run: the tables brought to what the checkpoint recorded (`_restore`),
        the checkpoint rewritten with its batches, config.yaml; a note per rebuilt table.

        Args:
            evo: the evolution after the checkpoint's batches (`Evolution.replay`).
            told: the checkpoint's batches.
            outcomes: what telling each of them gave.
        """
        self.elapsed = told[-1].elapsed if told else 0.0
        self.saved = evo.state.batch
        notes = self._restore(evo, told, outcomes)
        with writing(self.checkpoint.path):
            self.checkpoint.start(evo.config.to_dict(), told)
        self._config(evo.config)
        return notes

    def _config(self, config: RunConfig) -> None:
        if not (self.run_dir / CONFIG).exists():
            write(self.run_dir / CONFIG, dump_config(config))

    def _restore(self, evo: Evolution, told: Sequence[Told], outcomes: Sequence[Outcome]
                 ) -> list[str]:
        """Bring the tables to what the checkpoint recorded: rows of a batch that was never
        checkpointed are cut off, a damaged or missing table is rebuilt from the checkpoint's
        batches, and elites.csv is written from the archive. Returns a note per rebuilt
        table."""
        recorded = told[-1].files if told else {}
        archive = evo.state.archive
        frames = {GAMES: lambda t, k: pd.DataFrame(t.games),
                  INDIVIDUALS: lambda t, k: individual_rows(evo.config, outcomes[k]),
                  METRICS: lambda t, k: pd.DataFrame([t.metrics], columns=METRIC_COLUMNS)}
        notes = []
        for name, frame_of in frames.items():
            path = self.run_dir / name
            want = recorded.get(name)
            problem = table_problem(self.run_dir, name, want) if isinstance(want, dict) \
                else None
            if problem is None and isinstance(want, dict):
                with writing(path):
                    with open_own(path, "r+b") as fh:  # rows written after the last checkpoint
                        fh.truncate(want["bytes"])
                self.digests.load(name, want["bytes"])
                continue
            with writing(path):
                path.unlink(missing_ok=True)
            self.digests.load(name)
            for k, t in enumerate(told):
                append_csv(path, frame_of(t, k), fill_zero=event_count_prefixes(
                    archive.players) if name == GAMES else (), digests=self.digests)
            if problem is not None:
                again = table_problem(self.run_dir, name, want)
                notes.append(f"{problem}; rebuilt from the checkpoint"
                             f"{'' if again is None else ' (its rows differ from those recorded)'}")
        self._elites(evo)
        return notes

    def _elites(self, evo: Evolution) -> None:
        write_table(self.run_dir / ELITES,
                    evo.state.archive.frame().to_csv(index=False).encode(), self.digests)

    def info(self, message: str, *args: Any) -> None:
        """A line of run.log (once it is open: `open_log`)."""
        if self.log is not None:
            self.log.info(message, *args)

    def open_log(self) -> None:
        """Start appending to run.log."""
        self.log = _logger(self.run_dir)

    def start_clock(self, workers: int, alive: tuple[int, int]) -> None:
        """The batches start: the clock of the first batch runs from now.

        Args:
            workers: CPUs that play games.
            alive: CPUs and nodes alive.
        """
        self.workers, self.alive = workers, alive
        self._mark = time.perf_counter()

    def record(self, evo: Evolution, outcome: Outcome, records: Sequence[GameRecord],
               timing: BatchTiming, alive: tuple[int, int], spent: tuple[float, float]
               ) -> dict[str, Any]:
        """Record a told batch: its rows of games.csv and individuals.csv, elites.csv, its
        row of metrics.csv, then its checkpoint line and run.log's lines; its metrics.

        Args:
            evo: the evolution, after the batch was told (and the next ones asked).
            outcome: what telling the batch gave.
            records: its games' records, in spec order.
            timing: how its games were played.
            alive: CPUs and nodes alive now.
            spent: game seconds finished and seconds waited on games since the last batch.
        """
        state, front = evo.state, outcome.batch
        stats = state.archive.stats()
        games = game_rows(front.index, evo.config.plan().games_per_individual, records)
        append_csv(self.run_dir / GAMES, pd.DataFrame(games),
                   fill_zero=event_count_prefixes(state.archive.players), digests=self.digests)
        append_csv(self.run_dir / INDIVIDUALS, individual_rows(evo.config, outcome),
                   digests=self.digests)
        self._elites(evo)
        now = time.perf_counter()
        wall = now - self._mark
        self.elapsed += wall
        metrics = self._metrics(evo, outcome, stats, timing, alive, spent, wall)
        self._mark = now
        append_csv(self.run_dir / METRICS, pd.DataFrame([metrics], columns=METRIC_COLUMNS),
                   digests=self.digests)
        with writing(self.checkpoint.path):
            self.checkpoint.told(Told(front.index, front.first, front.genomes, front.replays,
                                      outcome.rows, self.elapsed, games, metrics,
                                      self.digests.files()))
        self.saved = state.batch
        self._log_batch(evo, metrics, timing, alive, wall)
        return metrics

    def _metrics(self, evo: Evolution, outcome: Outcome, stats: dict[str, float],
                 timing: BatchTiming, alive: tuple[int, int], spent: tuple[float, float],
                 wall: float) -> dict[str, Any]:
        """A batch's row of metrics.csv."""
        state, status = evo.state, outcome.status
        busy, waited = spent
        cpus, nodes = alive
        return {
            "batch": outcome.batch.index, "evaluations": state.evaluations,
            "games": state.games, **stats, "new_cells": int((status == 2).sum()),
            "improved": int((status == 1).sum()), "batch_size": len(outcome.evaluations),
            "workers": self.workers, "game_seconds": round(timing.game_seconds, 3),
            "play_seconds": round(timing.wall, 3),
            "driver_seconds": round(max(0.0, wall - waited), 4),
            "wall_seconds": round(wall, 3),
            "cpu_utilisation": round(busy / (wall * max(1, cpus)), 4) if wall > 0 else 0.0,
            "reused_games": timing.reused, "elapsed_seconds": round(self.elapsed, 2),
            "workers_alive": cpus, "nodes_alive": nodes, "retries": timing.retries,
            "replays": len(outcome.batch.replays)}

    def _log_batch(self, evo: Evolution, metrics: dict[str, Any], timing: BatchTiming,
                   alive: tuple[int, int], wall: float) -> None:
        batch = metrics["batch"]
        self.info("batch %d: %d evaluations, %d games, %d cells (%d new), QD score %.2f, "
                  "best win rate %.2f, CPU use %.0f%%, %.1f s", batch,
                  evo.state.evaluations, evo.state.games, metrics["cells"],
                  metrics["new_cells"], metrics["qd_score"], metrics["best_win_rate"],
                  100 * metrics["cpu_utilisation"], wall)
        if timing.retries:
            self.info("batch %d: %d game attempts retried by Ray after a worker or node "
                      "died; no game lost", batch, timing.retries)
        if alive != self.alive:
            self.info("batch %d: the cluster now has %d CPUs on %d node(s) alive (was %d "
                      "on %d)", batch, alive[0], alive[1], self.alive[0], self.alive[1])
            self.alive = alive

    def finish(self, evo: Evolution) -> None:
        """The batches are over (the run finished or paused): elites.csv exists."""
        if not (self.run_dir / ELITES).exists():
            write(self.run_dir / ELITES, evo.state.archive.frame().to_csv(index=False))
        self.info("%s after %d batches, %d evaluations",
                  "finished" if evo.finished else "paused", evo.state.batch,
                  evo.state.evaluations)

    def close(self) -> None:
        """Close the checkpoint and run.log."""
        self.checkpoint.close()
        if self.log is not None:
            for h in list(self.log.handlers):
                self.log.removeHandler(h)
                h.close()

