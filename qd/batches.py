"""The batches in flight: their games on Ray, and partial.jsonl, which keeps each finished
game until its batch is told.

`BatchesInFlight` plays the games of the batches the evolution asked (`qd.evolution.InFlight`,
one Ray task per game: `qd.genome_games.BatchGames`) and appends every game to partial.jsonl
as it arrives. A batch started again after a restart takes the games the file kept (each
checked against the digest of its spec: `qd.checkpoint.partial_records`) instead of playing
them again. Once a batch is told, the file is compacted when most of its entries belong to
told batches, and removed when nothing is in flight. It also measures what the run's metrics
need: the CPUs alive, the game seconds finished and the seconds spent waiting on games.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterable, Sequence

from play.ray_session import cluster_size
from play.runner import GameRecord
from qd.checkpoint import PartialLog, partial_records, read_partial
from qd.evolution import InFlight
from qd.genome_games import BatchGames, BatchTiming, Plan, game_seconds, worker_count
from qd.recorder import writing


class BatchesInFlight:
    """The games of the batches in flight, kept in partial.jsonl as they finish.

    Args:
        plan: the run's games (`qd.config.RunConfig.plan`).
        path: partial.jsonl.
        told: batches told so far (the file's games of earlier batches are dropped).
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: CPUs of a local Ray (default: all); 0 plays in-process without Ray.
        games: the games played (their plug-ins reach the workers).
    """

    def __init__(self, plan: Plan, path: Path, told: int, address: str | None,
                 workers: int | None, games: Iterable[str]) -> None:
        self.plan = plan
        self.in_process = workers == 0 and not address
        self.workers = worker_count(address, workers, games)
        self.games = BatchGames(address, workers, games)
        self.log = PartialLog(path)
        self.carried = read_partial(path, told)  # games finished before a restart
        self.busy = self.waited = 0.0  # game seconds finished, seconds waited (`spent`)

    def alive(self) -> tuple[int, int]:
        """CPUs and nodes alive."""
        return (self.workers, 1) if self.in_process else cluster_size()

    def open(self) -> None:
        """Start partial.jsonl again with the games it kept (no torn entry, nothing told)."""
        with writing(self.log.path):
            self.log.rewrite_games(self.carried)

    def start(self, batches: Sequence[InFlight]) -> int:
        """Submit the games of the batches not yet started; the games they take from
        partial.jsonl instead."""
        reused = 0
        for b in batches:
            if b.index not in self.games.batches:
                specs = b.games(self.plan)
                kept = partial_records(self.carried.pop(b.index, {}), specs)
                reused += self.games.start(b.index, specs, kept).timing.reused
        return reused

    def complete(self, index: int) -> bool:
        """Whether every game of batch `index` (started) has finished."""
        return self.games.batches[index].complete

    def next(self) -> tuple[int, GameRecord]:
        """The next game to finish (whichever batch it belongs to), kept in partial.jsonl:
        its index in its batch and its record.

        Raises:
            play.game_pool.GameLost: its task failed after Ray's retries.
        """
        t0 = time.perf_counter()
        batch, i, rec = self.games.wait()
        self.waited += time.perf_counter() - t0
        self.busy += game_seconds(rec)
        with writing(self.log.path):
            self.log.game(batch.index, i, rec)
        return i, rec

    def finish(self, index: int) -> tuple[list[GameRecord], BatchTiming]:
        """A complete batch's records in spec order, and how they were played."""
        return self.games.finish(index)

    def spent(self) -> tuple[float, float]:
        """Game seconds finished and seconds waited on games since the last call."""
        out = (self.busy, self.waited)
        self.busy = self.waited = 0.0
        return out

    def told(self, in_flight: bool) -> None:
        """A batch was told: partial.jsonl goes when nothing is in flight, else it is
        rewritten with the games of the batches in flight once the entries of told batches
        outnumber them.

        Args:
            in_flight: whether batches are still in flight (asked, not told).
        """
        if not in_flight:
            self.log.remove()
            return
        live = {k: b.done() for k, b in self.games.batches.items()}
        live.update(self.carried)
        n_live = sum(len(v) for v in live.values())
        if self.log.entries - n_live > n_live:
            with writing(self.log.path):
                self.log.rewrite_games(live)

    def close(self) -> None:
        """Drop the games still in flight and close partial.jsonl."""
        self.games.cancel()
        self.log.close()
