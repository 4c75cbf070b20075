"""Commands that resume: the games a command has finished, kept as they arrive.

A tournament, a ladder or a validation plans all its games up front, each with its own
seeds. As each game finishes, its record is appended (and flushed) to a journal file in the
output directory. After Ctrl-C or a crash, the same command with `--resume` plays only the
games that are missing. A game is reused only if the game planned now at its place is exactly
the one it played (game, level, options, agents and their parameters, seeds, seats), so an
argument changed between the two invocations replays what it changed. The journal is removed
once the command's results are written.

The file format is a data log (`base.datalog.DataLog`, also used for evolution's
checkpoint and partial batch), never code: one JSON value per line, each line prefixed by a
checksum of its text,

    <first 16 hex digits of the SHA-256 of the JSON text> TAB <JSON text> NEWLINE

the first line a header naming the format and its version. A game's entry holds its index,
the digest of its planned spec (`spec_digest`) and its record without the spec
(`record_data`); read back, the record is rebuilt against the spec planned now. A torn last
line (a kill in the middle of a write) or a line whose checksum fails ends the log: what
follows it is played again. A file that is not a log of this format is refused, and a file
written as a pickle by an older version is never read (unpickling can run code).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from base.datalog import DataLog, log_header, read_log
from base.progress import Progress
from play.game_pool import run_games
from play.runner import GameRecord, GameSpec

JOURNAL_FORMAT = "playstyles-journal"
JOURNAL_VERSION = 2
"""2: a data log; version 1 was a pickle log and is refused."""


def journal_command(path: str | Path) -> str | None:
    """The command whose game journal `path` is, from its header (None: no journal), read
    without reading the games: how a command recognizes its interrupted work.

    Args:
        path: the file.
    """
    header = log_header(path, JOURNAL_FORMAT)
    command = header.get("command") if header is not None else None
    return command if isinstance(command, str) else None

class Interrupted(RuntimeError):
    """A command stopped by Ctrl-C after keeping what it finished; the message says how much
    and how to continue."""


# ------------------------------------------------------------------------------ data

def plain(obj: Any, finite: bool = False) -> Any:
    """`obj` as JSON data: numbers, strings, booleans, None, lists and string-keyed dicts
    (a dataclass becomes a dict of its fields, a tuple a list, a numpy array a list of its
    values, a numpy scalar its Python value). Anything else becomes its type name and repr,
    which keeps a digest deterministic for level objects that define a repr.

    Args:
        obj: the value.
        finite: NaN and infinities become None (strict JSON, e.g. a preset file).
    """
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, np.generic):
        obj = obj.item()
        if not isinstance(obj, float):
            return obj
    if isinstance(obj, float):
        return None if finite and not math.isfinite(obj) else obj
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist(), finite)
    if isinstance(obj, (list, tuple)):
        return [plain(v, finite) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): plain(v, finite) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name), finite) for f in dataclasses.fields(obj)}
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    return f"{type(obj).__qualname__}:{obj!r}"


def digest(obj: Any) -> str:
    """A short, deterministic digest of a value's data (`plain`): equal data, equal digest.

    Args:
        obj: the value.
    """
    text = json.dumps(plain(obj), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def spec_digest(spec: GameSpec) -> str:
    """The digest of a game's spec: a kept game is reused only for a spec of the same
    digest. The data digested keeps a key `budget` at None, as specs had before a budget
    was only ever an agent's parameter: a game kept then (of an evolution, a validation, a
    tournament without a table-wide budget) keeps its digest.

    Args:
        spec: the game's spec.
    """
    return digest({**plain(spec), "budget": None})


RECORD_FIELDS = ("winner", "ranking", "rounds", "summaries", "sides", "events", "decisions",
                 "think_seconds", "seconds", "cpu_seconds", "results")


def record_data(record: GameRecord) -> dict[str, Any]:
    """A game's record as JSON data, without its spec (`record_from` takes the spec).

    Args:
        record: the record.
    """
    return {name: plain(getattr(record, name)) for name in RECORD_FIELDS}


def record_from(data: Any, spec: GameSpec) -> GameRecord:
    """The record `record_data` gave, for `spec`.

    Args:
        data: the record's data.
        spec: the game's spec (the one its digest was kept for).

    Raises:
        ValueError: the data is not a record's.
    """
    if not isinstance(data, dict) or set(data) != set(RECORD_FIELDS):
        raise ValueError("not a game record")
    n = len(spec.agents)
    winner, rounds = data["winner"], data["rounds"]
    lists = ("ranking", "summaries", "sides", "events", "decisions", "think_seconds", "results")
    if not (winner is None or _is_int(winner)) or not _is_int(rounds) \
            or not all(isinstance(data[k], list) for k in lists) \
            or not all(isinstance(s, dict) for s in data["summaries"]) \
            or not all(isinstance(e, list) for e in data["events"]) \
            or not all(_is_number(data[k]) for k in ("seconds", "cpu_seconds")) \
            or len(data["summaries"]) != n or len(data["sides"]) != n:
        raise ValueError("not a game record of this game")
    return GameRecord(
        spec=spec, winner=winner, ranking=list(data["ranking"]), rounds=rounds,
        summaries=[dict(s) for s in data["summaries"]], sides=list(data["sides"]),
        events=[tuple(e) for e in data["events"]], decisions=list(data["decisions"]),
        think_seconds=list(data["think_seconds"]), seconds=float(data["seconds"]),
        cpu_seconds=float(data["cpu_seconds"]), results=list(data["results"]))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# ------------------------------------------------------------------------------ journals

class GameJournal:
    """The finished games of one command's planned games, kept in `path`.

    Args:
        path: the journal file (in the command's output directory).
        specs: every game the command plans, in order.
        command: what the command is called in messages ("tournament", "ladder", ...).
        resume: continue the journal in `path`; without it, a journal left there by an
            interrupted command is an error (nothing already played is thrown away), unless
            that command finished no game.

    Raises:
        ValueError: an interrupted command's journal is there and `resume` is false, or
            `resume` is true and there is none, or the file is not a journal of this version.
    """

    def __init__(self, path: str | Path, specs: Sequence[GameSpec], command: str,
                 resume: bool = False) -> None:
        self.path = Path(path)
        self.specs = list(specs)
        self.command = command
        self.done: dict[int, GameRecord] = {}
        here = self.path.parent
        if self.path.exists() and not resume:
            n = len(self._entries())
            if n > 0:  # (a command stopped before its first game left nothing to keep)
                raise ValueError(f"{here}/ holds an interrupted {command} ({n} games played); "
                                 f"continue it with --resume, or delete {self.path} to start again")
        if resume and not self.path.exists():
            raise ValueError(f"--resume: {here}/ holds no interrupted {command} "
                             f"({self.path.name} not found)")
        if resume:
            self.done = self._read()
        self.log = DataLog(self.path)
        self._write(lambda: self.log.rewrite(
            {"format": JOURNAL_FORMAT, "version": JOURNAL_VERSION, "command": command,
             "games": len(self.specs)},
            [self._entry(i, rec) for i, rec in sorted(self.done.items())]))

    def _entries(self) -> list[Any]:
        return read_log(self.path, JOURNAL_FORMAT, (JOURNAL_VERSION,), "a game journal",
                        "delete it to play its games again")[1]

    def _read(self) -> dict[int, GameRecord]:
        done = {}
        for entry in self._entries():
            if not isinstance(entry, dict):
                continue
            i = entry.get("i")
            if _is_int(i) and 0 <= i < len(self.specs) \
                    and entry.get("spec") == spec_digest(self.specs[i]):
                try:
                    done[i] = record_from(entry.get("record"), self.specs[i])
                except ValueError:  # a damaged entry: the game is played again
                    continue
        return done

    def _entry(self, index: int, record: GameRecord) -> dict[str, Any]:
        return {"i": index, "spec": spec_digest(self.specs[index]),
                "record": record_data(record)}

    def _write(self, action) -> None:
        try:
            action()
        except OSError as e:
            Path(f"{self.path}.tmp").unlink(missing_ok=True)
            self.log.close()
            raise OSError(e.errno, f"cannot write {self.path}: {e.strerror or e}; the games "
                                   f"before it are kept: continue with --resume") from None

    @property
    def missing(self) -> list[int]:
        """Indices of the planned games not played yet."""
        return [i for i in range(len(self.specs)) if i not in self.done]

    def add(self, index: int, record: GameRecord) -> None:
        """Keep a finished game (flushed to the file at once)."""
        self.done[index] = record
        self._write(lambda: self.log.add(self._entry(index, record)))

    def records(self) -> list[tuple[int, GameRecord]]:
        """(index, record) of every finished game, in plan order."""
        return sorted(self.done.items())

    def finish(self) -> None:
        """The command's results are written: the journal goes."""
        self.log.remove()

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Ctrl-C inside the block becomes `Interrupted`, saying how many games are kept and
        how to continue; the journal file is closed either way."""
        try:
            yield
        except KeyboardInterrupt:
            raise Interrupted(
                f"{self.path.parent}: {self.command} interrupted after {len(self.done)} of "
                f"{len(self.specs)} games; continue with --resume") from None
        finally:
            self.log.close()


def play_missing(journal: GameJournal, address: str | None = None, workers: int | None = None,
                 progress: Progress | None = None, on_game=None) -> list[tuple[int, GameRecord]]:
    """Play the journal's missing games (on Ray unless workers == 0), keeping each as it
    finishes; returns (index, record) of all planned games in plan order.

    Args:
        journal: the command's journal.
        address: a Ray cluster to join (default: a local Ray).
        workers: local worker processes; 0 plays in this process.
        progress: told how many games are done (`base.progress`; the CLI draws bars),
            starting at the games reused.
        on_game: called with the number of finished games after each new one.
    """
    todo = journal.missing
    step = journal.command
    if progress is not None:
        progress(step, len(journal.done), len(journal.specs))
    for k, rec in run_games([journal.specs[i] for i in todo], address=address,
                            workers=workers):
        journal.add(todo[k], rec)
        if progress is not None:
            progress(step, len(journal.done), len(journal.specs))
        if on_game is not None:
            on_game(len(journal.done))
    return journal.records()
