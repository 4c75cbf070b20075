"""Data logs: files of JSON lines, each behind a checksum, that carry data and never code.

A data log is written by appending lines (a killed process loses at most the line it was
writing) and read line by line:

    <first 16 hex digits of the SHA-256 of the JSON text> TAB <JSON text> NEWLINE

Its first line is a header naming the format and its version. Reading stops at the first
line that is torn (no newline: the writer was killed) or damaged (its checksum fails), so
nothing after a damaged line is trusted. A file that begins like a pickle is refused
without being unpickled (unpickling runs code). Game journals, the evolution checkpoint and
its partial batch are data logs.

The file format lives here whole: the writer (`DataLog`, every entry flushed as it is added)
and the readers (`read_log`, `log_header`, `last_entry`). This module is light (the standard
library and `base.files` only), so that any layer can write and read a log.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Sequence

from base.files import atomic_write, open_own

MAX_LINE_BYTES = 256 * 2**20
"""The longest line a data log may hold (a checkpoint's batch of thousands of games fits)."""
MAX_LOG_BYTES = 64 * 2**30
"""The largest data log read (checked before reading)."""

PICKLE_MARK = 0x80
"""The first byte of a pickle of protocol 2 or later."""


class LogError(ValueError):
    """A data log that cannot be read as one (wrong format, an old pickle, too large)."""


def encode_line(value: Any) -> bytes:
    """One line of a data log: the checksum of the JSON text, a tab, the text, a newline.

    Args:
        value: JSON data (`plain`).
    """
    text = json.dumps(value, separators=(",", ":")).encode()
    return hashlib.sha256(text).hexdigest()[:16].encode() + b"\t" + text + b"\n"


def decode_line(line: bytes) -> Any:
    """The value of a line; ValueError for a torn, damaged or unparsable one."""
    if not line.endswith(b"\n"):
        raise ValueError("torn line")
    check, sep, text = line[:-1].partition(b"\t")
    if not sep or hashlib.sha256(text).hexdigest()[:16].encode() != check:
        raise ValueError("checksum")
    try:
        return json.loads(text)
    except (RecursionError, UnicodeDecodeError) as e:
        raise ValueError(str(e)) from None


class DataLog:
    """An append-only data log: every `add` is flushed at once, so a killed process loses at
    most the line it was writing.

    Args:
        path: the file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.fh = None
        self.entries = 0

    def rewrite(self, header: Any, items: Sequence[Any] = ()) -> None:
        """Replace the file (atomically) by the header and these entries, and keep appending
        to it.

        Args:
            header: the header (names the format and version).
            items: the entries.
        """
        self.close()
        atomic_write(self.path, b"".join(encode_line(v) for v in (header, *items)))
        self.entries = len(items)
        self.fh = open_own(self.path)

    def add(self, item: Any, sync: bool = False) -> None:
        """Append an entry and flush it.

        Args:
            item: the entry (JSON data).
            sync: also make it durable (fsync) before returning.
        """
        line = encode_line(item)
        size = self.fh.tell()
        try:
            self.fh.write(line)
            self.fh.flush()
            if sync:
                os.fsync(self.fh.fileno())
        except BaseException:
            try:  # no torn line is left behind
                self.fh.truncate(size)
            except OSError:
                pass
            raise
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



def read_log(path: str | Path, fmt: str, versions: Sequence[int], what: str,
             remedy: str) -> tuple[dict[str, Any] | None, list[Any], int | None]:
    """A data log's header and entries, in order. Reading stops at the first line that is
    torn (the process was killed while writing it), damaged (its checksum fails) or too
    long; what follows is not trusted.

    Args:
        path: the log.
        fmt: the format the header must name.
        versions: the versions of that format this code reads.
        what: what the file is, for messages ("the checkpoint", "a game journal").
        remedy: what the user can do when the file is not readable (ends the message).

    Returns:
        (header, entries, line): the header (None for a missing or empty file), the
        entries, and the 1-based line where reading stopped early (None if it read all).

    Raises:
        LogError: the file is a pickle, too large, or not a log of this format and version.
    """
    path = Path(path)
    if not path.exists():
        return None, [], None
    size = path.stat().st_size
    if size > MAX_LOG_BYTES:
        raise LogError(f"{path}: {size} bytes, more than {what} may hold "
                       f"({MAX_LOG_BYTES} bytes); {remedy}")
    entries: list[Any] = []
    with open(path, "rb") as fh:
        first = fh.read(1)
        if not first:
            return None, [], None
        if first[0] == PICKLE_MARK:
            raise LogError(f"{path}: written as a pickle by an older version of playstyles; "
                           f"pickles can run code when read, so it is not read; {remedy}")
        fh.seek(0)
        header = None
        number = 0
        while True:
            line = fh.readline(MAX_LINE_BYTES + 1)
            if not line:
                return header, entries, None
            number += 1
            try:
                value = decode_line(line)
            except ValueError:
                if header is None:
                    raise LogError(f"{path}: not {what} (line 1 is not a data log header); "
                                   f"{remedy}") from None
                return header, entries, number
            if header is None:
                if not (isinstance(value, dict) and value.get("format") == fmt):
                    raise LogError(f"{path}: not {what} (its header names no {fmt} "
                                   f"format); {remedy}")
                if value.get("version") not in versions:
                    raise LogError(f"{path}: {what} of format version "
                                   f"{str(value.get('version'))[:20]}, this version of "
                                   f"playstyles reads {', '.join(map(str, versions))}; "
                                   f"{remedy}")
                header = value
            else:
                entries.append(value)


MAX_HEADER_BYTES = 64 * 2**10
"""The longest header line `log_header` reads (a header names a format, a version and a few
settings)."""


def log_header(path: str | Path, fmt: str) -> dict[str, Any] | None:
    """The header of a data log whose header names `fmt` (None: absent, not a regular file,
    not a data log of that format), reading its first line only (at most
    `MAX_HEADER_BYTES`): how a command recognizes a log it wrote by its content.

    Args:
        path: the log.
        fmt: the format the header must name.
    """
    path = Path(path)
    try:
        if not path.is_file():  # (a FIFO is not opened)
            return None
        with open(path, "rb") as fh:
            header = decode_line(fh.readline(MAX_HEADER_BYTES + 1))
    except (OSError, ValueError):
        return None
    return header if isinstance(header, dict) and header.get("format") == fmt else None


def last_entry(path: str | Path, fmt: str, versions: Sequence[int]) -> Any:
    """The last whole, undamaged line of a data log whose header names `fmt` in one of
    `versions` (None when there is none, or the file is not such a log), read from the end
    of the file: a long log is not read whole.

    Args:
        path: the log.
        fmt: the format the header must name.
        versions: the versions of that format read.
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.readline(MAX_LINE_BYTES + 1)
            try:
                header = decode_line(head)
            except ValueError:
                return None
            if not (isinstance(header, dict) and header.get("format") == fmt
                    and header.get("version") in versions):
                return None
            end = fh.seek(0, 2)
            start = len(head)
            tail = b""
            pos = end
            while pos > start and len(tail) <= 2 * MAX_LINE_BYTES:
                step = min(1 << 20, pos - start)
                pos -= step
                fh.seek(pos)
                tail = fh.read(step) + tail
                lines = tail.split(b"\n")
                # lines[0] may be cut; the complete lines are lines[1:-1] (or all if at start)
                whole = lines if pos == start else lines[1:]
                for line in reversed(whole[:-1]):
                    try:
                        return decode_line(line + b"\n")
                    except ValueError:
                        continue
            return None
    except OSError:
        return None
