"""The local Ray's watchdog: a small process that kills every process of a local Ray when the
driver that started it dies, even by SIGKILL, so a killed driver leaves nothing behind and no
game keeps playing.

`start` runs this file as a process of its own (`python -I .../play/watchdog.py PID...`, in a
new session, so Ctrl-C at the terminal does not reach it; it imports nothing but the standard
library). It reads a pipe whose only writer is the driver; end of file (the driver shut Ray
down, or died) makes it kill every process of that Ray it has seen: the roots it was given
and their descendants, re-scanned twice a second, each known by its start time so that a
reused pid is never killed. Linux only (it reads /proc). The Ray session
(`play.ray_session`) starts it with a local Ray and stops it at shutdown.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

SCAN_SECONDS = 0.5
"""How often the watchdog looks for new processes of the Ray it watches."""


def process_table() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, start time) of every process /proc shows."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        rest = data[data.rindex(b")") + 2:].split()
        out[int(name)] = (int(rest[1]), rest[19])  # parent, start time
    return out


def snapshot(roots: list[int], known: dict[int, bytes]) -> dict[int, tuple[int, bytes]]:
    """Add to `known` (pid -> start time) the roots and every descendant of a known process
    still running; returns the process table it read."""
    procs = process_table()
    for pid in roots:
        if pid in procs:
            known.setdefault(pid, procs[pid][1])
    children: dict[int, list[int]] = {}
    for pid, (parent, start) in procs.items():
        children.setdefault(parent, []).append(pid)
    todo = [p for p in known if p in procs and procs[p][1] == known[p]]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in known and child != os.getpid():
                known[child] = procs[child][1]
                todo.append(child)
    return procs


def watch(roots: list[int], pipe: int = 0) -> None:
    """Follow the processes of `roots` until `pipe` reaches its end, then kill every one of
    them still running (the same pid with the same start time)."""
    known: dict[int, bytes] = {}
    snapshot(roots, known)
    while True:
        readable, _, _ = select.select([pipe], [], [], SCAN_SECONDS)
        if readable and not os.read(pipe, 4096):
            break  # the driver closed its end: it shut Ray down, or it died
        snapshot(roots, known)
    procs = snapshot(roots, known)
    for pid, start in known.items():
        if pid in procs and procs[pid][1] == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def main(argv: list[str]) -> None:
    """The watchdog process: the roots' pids as arguments, the driver's pipe as stdin."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch([int(p) for p in argv])


# ------------------------------------------------------------------ in the driver

_running: dict = {}


def start(pids: list[int]) -> None:
    """Start the watchdog of the local Ray just started, whose processes are `pids` (its GCS,
    raylet, monitors), stopping the one running before; nothing when there are none or this
    is not Linux. The pipe's write end is not inherited by later children (close-on-exec), so
    this process is its only writer."""
    stop()
    if not pids or not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
        return
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), *map(str, pids)],
                                stdin=read_end, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        os.close(write_end)
        return
    finally:
        os.close(read_end)
    _running.update(proc=proc, fd=write_end)


def stop(timeout: float = 5.0) -> None:
    """Close the watchdog's pipe (Ray is shut down by now: it kills what is left, if
    anything) and wait for it to exit."""
    fd, proc = _running.pop("fd", None), _running.pop("proc", None)
    if fd is not None:
        os.close(fd)
    if proc is not None:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
