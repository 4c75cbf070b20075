"""The run's checkpoint and partial batch: data from which a run is rebuilt, never code.

`checkpoint.jsonl` is a data log (`base.datalog.DataLog`: one JSON value per line behind
a checksum). Its header holds the format, its version and the resolved config; then one line
per told batch, appended (and made durable) once the batch's tables are written:

    batch, first      the batch's number and its first evaluation's index
    genomes, replays  what the emitter and the noise method asked (checked on resume)
    rows              each genome's and replay's game rows (`qd.archive.game_table`): all
                      the archive, the emitter and the noise method were told
    games, metrics    the batch's rows of games.csv and metrics.csv
    elapsed           wall seconds of the run's completed batches
    files             each table's size, rows and SHA-256 once the batch was written

The run state (archive, emitter, generators, noise method, batches in flight) is not stored:
it is a pure function of the config and of what each batch was told, so a resumed run starts
from a fresh state and tells it the checkpoint's batches again (`qd.run.replay`), checking
that every batch asks the genomes the checkpoint holds. individuals.csv and elites.csv are
rebuilt by the same replay, games.csv and metrics.csv from the lines' rows, so a damaged or
deleted table is rebuilt byte for byte; `qd.rundir.check_table` tells a damaged table from
the recorded digests.

`partial.jsonl` holds the finished games of the batches in flight: a header, then one line
per game (batch, index, the digest of its spec, its record without the spec), each reused
only for a game planned with the same spec.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from base.datalog import DataLog, LogError, read_log
from base.files import open_own
from play.journal import plain, record_data, record_from, spec_digest
from play.runner import GameRecord, GameSpec
from qd.rundir import (
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    LEGACY_CHECKPOINT,
)

PARTIAL_FORMAT = "playstyles-partial"
PARTIAL_VERSION = 3

class CheckpointError(ValueError):
    """A checkpoint that cannot be read."""


# ------------------------------------------------------------------------------ batches

@dataclass
class Told:
    """One checkpointed batch: what was asked, what it was told, and what it wrote."""

    batch: int
    first: int
    genomes: np.ndarray
    replays: list  # (candidate id, replay number, genome)
    rows: list[np.ndarray]
    elapsed: float
    games: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        """The checkpoint line."""
        return {"batch": self.batch, "first": self.first, "genomes": plain(self.genomes),
                "replays": plain(self.replays), "rows": plain(self.rows),
                "elapsed": self.elapsed, "games": plain(self.games),
                "metrics": plain(self.metrics), "files": self.files}

    @staticmethod
    def of(entry: Any, dim: int) -> "Told":
        """A checkpoint line read back.

        Args:
            entry: the line's value.
            dim: the genome's length.

        Raises:
            ValueError: the line is not a batch of this run.
        """
        if not isinstance(entry, dict):
            raise ValueError("not a batch")
        genomes = _matrix(entry.get("genomes"), dim)
        replays = entry.get("replays")
        rows = entry.get("rows")
        if not isinstance(replays, list) or not isinstance(rows, list) \
                or len(rows) != len(genomes) + len(replays):
            raise ValueError("not a batch")
        reps = []
        for r in replays:
            if not (isinstance(r, list) and len(r) == 3 and _is_int(r[0]) and _is_int(r[1])):
                raise ValueError("not a replay")
            reps.append((r[0], r[1], _matrix([r[2]], dim)[0]))
        told = Told(_int(entry.get("batch")), _int(entry.get("first")), genomes, reps,
                    [np.asarray(r, dtype=float) if r else np.zeros((0, 0)) for r in rows],
                    float(entry.get("elapsed")), entry.get("games"), entry.get("metrics"),
                    entry.get("files"))
        if not (isinstance(told.games, list) and all(isinstance(g, dict) for g in told.games)
                and isinstance(told.metrics, dict) and isinstance(told.files, dict)
                and math.isfinite(told.elapsed)) \
                or any(r.ndim != 2 for r in told.rows if r.size):
            raise ValueError("not a batch")
        return told


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x: Any) -> int:
    if not _is_int(x) or x < 0:
        raise ValueError("not a count")
    return x


def _matrix(x: Any, dim: int) -> np.ndarray:
    if not isinstance(x, list):
        raise ValueError("not genomes")
    a = np.asarray(x, dtype=float).reshape(len(x), dim) if x else np.empty((0, dim))
    if not np.isfinite(a).all():
        raise ValueError("not genomes")
    return a


# ------------------------------------------------------------------------------ the file

def _remedy(run_dir: Path) -> str:
    return (f"restore it from a copy, or start the run again in another directory (its "
            f"config is {run_dir / 'config.yaml'})")


def read_checkpoint(run_dir: Path) -> tuple[dict[str, Any], list[Any], int | None]:
    """A run's checkpoint: its header (with the run's resolved config), its batches' lines
    (for `told_batches`), and the line where reading stopped early (a torn or damaged line:
    the batches after it are played again), or None.

    Args:
        run_dir: the run directory.

    Raises:
        CheckpointError: no checkpoint, an old pickle, or not a checkpoint of this version.
    """
    path = run_dir / CHECKPOINT
    if not path.exists():
        if (run_dir / LEGACY_CHECKPOINT).exists():
            raise CheckpointError(
                f"{run_dir / LEGACY_CHECKPOINT}: a checkpoint written as a pickle by an older "
                f"version of playstyles; pickles can run code when read, so it is not read: "
                f"finish the run with the version that started it, or start it again")
        raise CheckpointError(f"{path}: not found; the run cannot continue without it: "
                              f"{_remedy(run_dir)}")
    try:
        header, entries, stopped = read_log(path, CHECKPOINT_FORMAT, (CHECKPOINT_VERSION,),
                                            "a checkpoint", _remedy(run_dir))
    except LogError as e:
        raise CheckpointError(str(e)) from None
    if header is None or not isinstance(header.get("config"), dict):
        raise CheckpointError(f"{path}: empty or without the run's config; {_remedy(run_dir)}")
    return header, entries, stopped


def told_batches(entries: Sequence[Any], dim: int, stopped: int | None = None
                 ) -> tuple[list[Told], int | None]:
    """The batches of a checkpoint's lines, up to the first that is not one.

    Args:
        entries: the lines after the header (`read_checkpoint`).
        dim: the genome's length.
        stopped: the line where reading stopped early, if it did.

    Returns:
        (batches, line): the batches, and the 1-based line where they stopped early (None if
        every line was read and is a batch).
    """
    told = []
    for k, entry in enumerate(entries):
        try:
            told.append(Told.of(entry, dim))
        except (TypeError, ValueError, OverflowError):
            return told, k + 2  # (the header is line 1)
    return told, stopped


class CheckpointLog(DataLog):
    """checkpoint.jsonl while the run plays: the header, then one durable line per batch."""

    def start(self, config: Mapping[str, Any], told: Sequence[Told] = ()) -> None:
        """Write the header (and the batches kept), and keep appending.

        Args:
            config: the resolved config.
            told: the batches already told.
        """
        self.rewrite({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
                      "config": plain(config)}, [t.data() for t in told])

    def told(self, batch: Told) -> None:
        """A batch is told and its tables are written."""
        if self.fh is None:
            self.fh = open_own(self.path)
        self.add(batch.data(), sync=True)


def read_partial(path: Path, first_batch: int) -> dict[int, dict[int, tuple[str, Any]]]:
    """Games already finished of batches >= first_batch, by batch and index: (spec digest,
    record data), for `partial_record`. A file of an older version is not read (its games
    are played again).

    Args:
        path: partial.jsonl.
        first_batch: the first batch not yet told.
    """
    try:
        _, entries, _ = read_log(path, PARTIAL_FORMAT, (PARTIAL_VERSION,),
                                 "a partial batch", "its games are played again")
    except LogError:
        return {}
    out: dict[int, dict[int, tuple[str, Any]]] = {}
    for e in entries:
        if isinstance(e, dict) and _is_int(e.get("b")) and _is_int(e.get("i")) \
                and e["b"] >= first_batch:
            out.setdefault(e["b"], {})[e["i"]] = (e.get("spec"), e.get("record"))
    return out


def partial_records(kept: Mapping[int, tuple[str, Any]], specs: Sequence[GameSpec]
                    ) -> dict[int, GameRecord]:
    """The kept games whose spec is the one planned now at their index, as records.

    Args:
        kept: index -> (spec digest, record data), from `read_partial`.
        specs: the batch's games as planned now.
    """
    out = {}
    for i, (key, data) in kept.items():
        if 0 <= i < len(specs) and key == spec_digest(specs[i]):
            try:
                out[i] = record_from(data, specs[i])
            except ValueError:
                continue
    return out


class PartialLog(DataLog):
    """partial.jsonl while the run plays: every finished game of the batches in flight."""

    def rewrite_games(self, games: Mapping[int, Mapping[int, Any]]) -> None:
        """Replace the file (atomically) by these games (records, or kept entries from
        `read_partial`), and keep appending to it."""
        self.rewrite({"format": PARTIAL_FORMAT, "version": PARTIAL_VERSION},
                     [_partial_entry(b, i, games[b][i]) for b in sorted(games)
                      for i in sorted(games[b])])

    def game(self, batch: int, index: int, record: GameRecord) -> None:
        """A game of a batch in flight finished."""
        self.add(_partial_entry(batch, index, record))


def _partial_entry(batch: int, index: int, game: GameRecord | tuple[str, Any]
                   ) -> dict[str, Any]:
    if isinstance(game, GameRecord):
        return {"b": batch, "i": index, "spec": spec_digest(game.spec),
                "record": record_data(game)}
    return {"b": batch, "i": index, "spec": game[0], "record": game[1]}


# ------------------------------------------------------------------------------ tables

class TableDigests:
    """Each table's size, rows and running SHA-256 as the run writes it, so every checkpoint
    line records them without reading the tables again.

    Args:
        run_dir: the run directory.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.state: dict[str, list] = {}

    def load(self, name: str, size: int | None = None) -> None:
        """Start from the file as it is (its first `size` bytes)."""
        path = self.run_dir / name
        h = hashlib.sha256()
        rows = 0
        n = 0
        if path.exists():
            with open(path, "rb") as fh:
                while size is None or n < size:
                    chunk = fh.read(1 << 20 if size is None else min(1 << 20, size - n))
                    if not chunk:
                        break
                    h.update(chunk)
                    rows += chunk.count(b"\n")
                    n += len(chunk)
        self.state[name] = [n, max(0, rows - 1), h]

    def appended(self, name: str, data: bytes) -> None:
        """Rows were appended to the table."""
        s = self.state[name]
        s[0] += len(data)
        s[1] += data.count(b"\n")
        s[2].update(data)

    def written(self, name: str, data: bytes) -> None:
        """The table was written whole."""
        self.state[name] = [len(data), max(0, data.count(b"\n") - 1), hashlib.sha256(data)]

    def files(self) -> dict[str, dict[str, Any]]:
        """What a checkpoint line records."""
        return {name: {"bytes": s[0], "rows": s[1], "sha256": s[2].hexdigest()}
                for name, s in self.state.items()}
