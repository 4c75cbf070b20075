"""Commands that resume: the games a command has finished, kept as they arrive.

A tournament, a ladder or a validation plans all its games up front, each with its own
seeds. As each game finishes, its record is appended (and flushed) to a journal file in the
output directory. After Ctrl-C or a crash, the same command with `--resume` plays only the
games that are missing. A game is reused only if the game planned now at its place is exactly
the one it played (game, level, options, agents and their parameters, seeds, seats), so an
argument changed between the two invocations replays what it changed. The journal is removed
once the command's results are written.

The file format is a log of pickles (`RecordLog`, also used for evolution's partial batch):
a header, then one entry per game; a torn last entry (a kill in the middle of a write) is
ignored when the log is read.
"""

from __future__ import annotations

import pickle
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from agents.runner import GameRecord, GameSpec

JOURNAL_FORMAT = 1


class Interrupted(RuntimeError):
    """A command stopped by Ctrl-C after keeping what it finished; the message says how much
    and how to continue."""


def read_log(path: str | Path) -> Iterator[Any]:
    """The objects of a pickle log in order (the header first); stops quietly at the end of
    the file or at a torn or unreadable entry."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb") as fh:
        while True:
            try:
                item = pickle.load(fh)
            except Exception:  # noqa: BLE001 - end of file, or a torn last entry
                return
            yield item


class RecordLog:
    """An append-only log of pickles: every `add` is flushed at once, so a killed process
    loses at most the entry it was writing."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.fh = None
        self.entries = 0

    def rewrite(self, header: Any, items: Iterable[Any] = ()) -> None:
        """Replace the file (atomically) by the header and these entries, and keep appending
        to it."""
        from agents.files import atomic_write
        self.close()
        chunks = [pickle.dumps(item, protocol=5) for item in items]
        atomic_write(self.path, pickle.dumps(header, protocol=5) + b"".join(chunks))
        self.entries = len(chunks)
        self.fh = open(self.path, "ab")

    def add(self, item: Any) -> None:
        pickle.dump(item, self.fh, protocol=5)
        self.fh.flush()
        self.entries += 1

    def close(self) -> None:
        if self.fh is not None:
            try:
                self.fh.close()
            except OSError:
                pass
            self.fh = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


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
            `resume` is true and there is none.
    """

    def __init__(self, path: str | Path, specs: Sequence[GameSpec], command: str,
                 resume: bool = False) -> None:
        self.path = Path(path)
        self.specs = list(specs)
        self.command = command
        self.done: dict[int, GameRecord] = {}
        here = self.path.parent
        if self.path.exists() and not resume:
            n = sum(1 for _ in read_log(self.path)) - 1
            if n > 0:  # (a command stopped before its first game left nothing to keep)
                raise ValueError(f"{here}/ holds an interrupted {command} ({n} games played); "
                                 f"continue it with --resume, or delete {self.path} to start again")
        if resume and not self.path.exists():
            raise ValueError(f"--resume: {here}/ holds no interrupted {command} "
                             f"({self.path.name} not found)")
        if resume:
            self.done = self._read()
        self.log = RecordLog(self.path)
        self._write(lambda: self.log.rewrite(
            {"format": JOURNAL_FORMAT, "command": command, "games": len(self.specs)},
            sorted(self.done.items())))

    def _read(self) -> dict[int, GameRecord]:
        items = read_log(self.path)
        header = next(items, None)
        if not (isinstance(header, dict) and header.get("format") == JOURNAL_FORMAT):
            raise ValueError(f"{self.path}: not a game journal of this version; delete it to "
                             f"start again")
        done = {}
        for entry in items:
            if not (isinstance(entry, tuple) and len(entry) == 2):
                continue
            i, rec = entry
            if isinstance(i, int) and 0 <= i < len(self.specs) and isinstance(rec, GameRecord) \
                    and _same(rec.spec, self.specs[i]):
                done[i] = rec
        return done

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
        self._write(lambda: self.log.add((index, record)))

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


def _same(a: GameSpec, b: GameSpec) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # parameters that do not compare to a bool (arrays)
        return repr(a) == repr(b)


def play_missing(journal: GameJournal, address: str | None = None, workers: int | None = None,
                 show_progress: bool = True, on_game=None) -> list[tuple[int, GameRecord]]:
    """Play the journal's missing games (on Ray unless workers == 0), keeping each as it
    finishes; returns (index, record) of all planned games in plan order.

    Args:
        journal: the command's journal.
        address: a Ray cluster to join (default: a local Ray).
        workers: local worker processes; 0 plays in this process.
        show_progress: a progress bar on the terminal (it starts at the games reused).
        on_game: called with the number of finished games after each new one.
    """
    from agents.parallel import run_games
    todo = journal.missing
    bar = None
    if show_progress:
        from tqdm import tqdm
        bar = tqdm(total=len(journal.specs), initial=len(journal.done), desc=journal.command,
                   unit="game", dynamic_ncols=True)
    try:
        for k, rec in run_games([journal.specs[i] for i in todo], address=address,
                                workers=workers):
            journal.add(todo[k], rec)
            if bar is not None:
                bar.update(1)
            if on_game is not None:
                on_game(len(journal.done))
    finally:
        if bar is not None:
            bar.close()
    return journal.records()
