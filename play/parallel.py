"""Playing many games in parallel: one Ray task per game.

One game per task lets long and short games balance across workers. A local Ray is started
by default; an address (or RAY_ADDRESS) joins a cluster, and the job ships the project's code
to it (`code_env`). Results come back in completion order with their index (and, in a
`GamePool`, the key they were submitted under), so callers that need determinism order them
by index, never by arrival. A pool may hold the games of several batches at once.

A task whose worker dies is retried by Ray (`TASK_RETRIES` times); a game is a pure function
of its spec, so a retry neither loses nor double-counts it, and the pool reports how many
attempts each game took. A game still lost after the retries raises `GameLost`; an exception
raised by game or agent code is not retried and propagates. `workers=0` plays in this process
(no Ray).

A pool plays `run_game` unless given another function of the spec (`play`, e.g. one that
records the positions of the game as well): every game is still one task, seeded by its spec.

A local Ray started here is watched by a small watchdog process: when this process dies, even
by SIGKILL, the watchdog kills every process of that Ray (its raylet, GCS, agents and workers),
so a killed driver leaves nothing behind and no game keeps playing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterable, Iterator, NamedTuple, Sequence

from play.runner import GameSpec, run_game
from playstyles.limits import CONNECT_TIMEOUT

TASK_RETRIES = 3


class GameLost(RuntimeError):
    """A game whose task failed outside the game's code (its worker or node died more often
    than Ray retries, its object was lost, the code could not be shipped, ...)."""

    def __init__(self, key: Hashable, index: int, cause: BaseException) -> None:
        self.key, self.index, self.cause = key, index, cause
        super().__init__(f"game {index} ({key}) was lost: {type(cause).__name__}: {cause}")


def ensure_ray(address: str | None, workers: int | None):
    """Start a local Ray with `workers` CPUs, or join the cluster at `address` / RAY_ADDRESS,
    unless Ray is already running in this process. A local Ray gets a watchdog that kills
    its processes if this process dies."""
    import ray
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        kwargs = {"include_dashboard": False, "log_to_driver": False,
                  "configure_logging": False}
        if address:
            check_address(address)
            try:
                ray.init(address=address, runtime_env=code_env(), **kwargs)
            except ConnectionError as e:
                raise ConnectionError(join_failure(address, e)) from e
        else:
            # "local": a new Ray of our own even where `ray start` left one running
            _reread_auth_mode()
            ray.init(address="local", num_cpus=workers or os.cpu_count(), **kwargs)
            _start_watchdog()
    return ray


RAY_PORT = 6379
"""The port of a Ray head's GCS when an address gives none."""

RAY_CLIENT_PORT = 10001
"""The port of a Ray client server (`ray://HOST`) when an address gives none."""


def address_endpoint(address: str) -> tuple[str, int] | None:
    """The host and TCP port a Ray address names (`HOST:PORT`, `HOST`, `ray://HOST:PORT`,
    `[IPv6]:PORT`); None for the addresses Ray resolves itself (`auto`, `local`).

    Args:
        address: a Ray cluster address as given to `--address` or RAY_ADDRESS.
    """
    text = address.strip()
    if text.lower() in ("auto", "local", ""):
        return None
    port = RAY_PORT
    scheme, sep, rest = text.partition("://")
    if sep:
        port = RAY_CLIENT_PORT if scheme == "ray" else port
        text = rest
    text = text.split("/", 1)[0]
    if text.startswith("["):  # [IPv6]:PORT
        host, _, tail = text[1:].partition("]")
        tail = tail.lstrip(":")
    else:
        host, _, tail = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if tail:
        try:
            port = int(tail)
        except ValueError:
            raise ConnectionError(f"--address {address}: the port {tail!r} is not a "
                                  f"number") from None
        if not 0 < port < 65536:
            raise ConnectionError(f"--address {address}: the port {port} is not in 1..65535")
    if not host:
        raise ConnectionError(f"--address {address}: no host (expected HOST:PORT)")
    return host, port


def check_address(address: str, timeout: float | None = None) -> None:
    """Fail within `timeout` seconds, with a ConnectionError naming the address, when
    nothing answers at a Ray cluster's address (a TCP connection to its host and port);
    otherwise return at once. Ray itself retries an address that does not answer for over
    a minute, so `ensure_ray` calls this before joining, and a command can call it before it
    writes anything.

    Args:
        address: a Ray cluster address (`HOST:PORT`, `ray://HOST:PORT`; `auto` and
            `local` are not probed).
        timeout: seconds to wait (default `playstyles.limits.CONNECT_TIMEOUT`).
    """
    import socket
    import threading

    endpoint = address_endpoint(address)
    if endpoint is None:
        return
    wait = CONNECT_TIMEOUT if timeout is None else timeout
    host, port = endpoint
    failure: list[str] = ["no answer"]

    def probe() -> None:  # in a thread: a host name lookup has no timeout of its own
        try:
            with socket.create_connection((host, port), timeout=wait):
                failure.clear()
        except OSError as e:
            failure[0] = e.strerror or str(e) or type(e).__name__

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(wait + 0.5)
    if failure:
        raise ConnectionError(f"could not join the Ray cluster at {address}: nothing "
                              f"answers at {host}:{port} within {wait:g} s ({failure[0]})")


def _reread_auth_mode() -> None:
    """Make this process's Ray read `RAY_AUTH_MODE` and the token again before it starts a
    local Ray. Ray keeps what it read first in the process; when the variable changed since
    (a program that runs several commands, as the tests do), the driver would keep the old
    mode while the Ray processes it starts read the new one, and the driver could not connect
    to them (`InvalidAuthToken`). Uses Ray's own reset (private; skipped where absent)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    except Exception:  # noqa: BLE001 - a Ray without these: nothing was cached to reset
        pass


def join_failure(address: str, error: BaseException) -> str:
    """What to tell a user whose Ray could not join the cluster at `address`: when Ray's
    errors say the head refused the token, which authentication mode this process used and
    what to set (the README's "Ray and its token authentication")."""
    texts = []
    e: BaseException | None = error
    while e is not None and len(texts) < 10:
        texts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    if not any("InvalidAuthToken" in t or "AuthenticationError" in t for t in texts):
        return f"could not join the Ray cluster at {address}: {error}"
    mode = os.environ.get("RAY_AUTH_MODE") or "unset"
    return (f"could not join the Ray cluster at {address}: it uses token authentication and "
            f"refused this machine (RAY_AUTH_MODE is {mode} here). Set RAY_AUTH_MODE=token and "
            "the head's token (RAY_AUTH_TOKEN, or the file ~/.ray/auth_token copied from the "
            "head); see the README, \"Ray and its token authentication\"")


SHIPPED_PACKAGES = ("games", "agents", "play", "qd", "plots", "playstyles")
"""The project's packages, sent to a cluster with the job."""


def code_env() -> dict:
    """A Ray runtime environment that ships this project's code to the cluster, so its nodes
    need only Python, Ray and numpy, not the project installed; a copy installed on a node is
    shadowed, so every node runs exactly the driver's code."""
    import importlib
    return {"py_modules": [importlib.import_module(n) for n in SHIPPED_PACKAGES],
            "excludes": ["__pycache__", "*.pyc"]}


_remote_cache: dict = {}


def play_counted(spec: GameSpec, play: Callable[[GameSpec], Any] = run_game) -> tuple[Any, int]:
    """A game (`play(spec)`, by default its record) and the attempt that played it (0: the
    first; more when Ray retried the task after its worker or node died)."""
    return play(spec), _attempt_number()


def _attempt_number() -> int:
    try:
        import ray
        return int(ray._private.worker.global_worker.core_worker
                   .get_current_task_attempt_number())
    except Exception:  # noqa: BLE001 - not in a Ray task, or a Ray without this call
        return 0


def _remote_play(ray):
    if "play" not in _remote_cache:
        _remote_cache["play"] = ray.remote(max_retries=TASK_RETRIES, num_cpus=1)(play_counted)
    return _remote_cache["play"]


class Finished(NamedTuple):
    key: Hashable
    index: int
    record: Any  # a GameRecord, or what the pool's `play` returns
    attempt: int  # 0 unless Ray retried the game's task


class GamePool:
    """Games in flight, submitted under a key (e.g. a batch number) with an index each; `next`
    returns them one at a time as they finish, whichever key they belong to. Ray runs tasks
    roughly in submission order, so the games of an older key tend to finish first.

    Args:
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: CPUs of a local Ray (default: all); 0 plays in this process, one game per
            `next`, in submission order.
        play: what a task does with a spec (default `run_game`); a module-level function or
            another picklable callable.
    """

    def __init__(self, address: str | None = None, workers: int | None = None,
                 play: Callable[[GameSpec], Any] = run_game) -> None:
        self.local = workers == 0 and not address
        self.play = play
        self._queue: deque[tuple[Hashable, int, GameSpec]] = deque()
        self._pending: dict[Any, tuple[Hashable, int]] = {}
        self._ready: deque = deque()
        self.ray = None
        if not self.local:
            self.ray = ensure_ray(address, workers)
            self._remote = _remote_play(self.ray)

    def submit(self, key: Hashable, games: Iterable[tuple[int, GameSpec]]) -> int:
        """Queue games (index, spec) under `key`; returns how many."""
        n = 0
        for i, spec in games:
            if self.local:
                self._queue.append((key, i, spec))
            else:
                ref = self._remote.remote(spec) if self.play is run_game \
                    else self._remote.remote(spec, self.play)
                self._pending[ref] = (key, i)
            n += 1
        return n

    def __len__(self) -> int:
        """Games submitted and not yet returned by `next`."""
        return len(self._queue) + len(self._pending)

    def next(self) -> Finished:
        """The next finished game (blocks until one finishes).

        Raises:
            GameLost: the game's task failed outside the game's code after Ray's retries.
            LookupError: nothing is in flight.
        """
        if self.local:
            if not self._queue:
                raise LookupError("no game in flight")
            key, i, spec = self._queue.popleft()
            return Finished(key, i, self.play(spec), 0)
        ray = self.ray
        if not self._ready:
            if not self._pending:
                raise LookupError("no game in flight")
            refs = list(self._pending)
            done, rest = ray.wait(refs, num_returns=1)
            if rest:  # pick up everything else already finished in one call
                more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                done = done + more
            self._ready.extend(done)
        ref = self._ready.popleft()
        key, i = self._pending.pop(ref)
        try:
            record, attempt = ray.get(ref)
        except ray.exceptions.RayTaskError:
            raise  # the game's own code raised: retrying would raise again
        except ray.exceptions.RayError as e:
            raise GameLost(key, i, e) from e
        return Finished(key, i, record, int(attempt))

    def cancel(self) -> None:
        """Drop every game not yet returned. Running games are not cancelled one by one:
        `ray.cancel` of a task that is finishing at that moment can abort the driver in Ray
        2.x ("Tried to complete task that was not pending"); every caller shuts Ray down
        (or disconnects from the cluster) next, which stops the games this driver owns."""
        self._queue.clear()
        self._pending.clear()
        self._ready.clear()


def run_games(specs: Sequence[GameSpec], address: str | None = None, workers: int | None = None,
              play: Callable[[GameSpec], Any] = run_game) -> Iterator[tuple[int, Any]]:
    """Yield (index, record) for every spec as games finish (the record: what `play`
    returns, by default a `GameRecord`)."""
    pool = GamePool(address, workers, play)
    pool.submit(0, enumerate(specs))
    try:
        while len(pool):
            done = pool.next()
            yield done.index, done.record
    finally:
        pool.cancel()


def cluster_size() -> tuple[int, int]:
    """CPUs and nodes alive in the Ray cluster this process is connected to ((1, 1) when Ray
    is not running: games are played in this process)."""
    if not ray_running():
        return 1, 1
    import ray
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
    except Exception:  # noqa: BLE001 - the GCS is unreachable: report nothing alive
        return 0, 0
    cpus = sum(float(n.get("Resources", {}).get("CPU", 0)) for n in nodes)
    return int(cpus), len(nodes)


def ray_running() -> bool:
    try:
        import ray
    except ImportError:
        return False
    return ray.is_initialized()


@contextmanager
def ray_session():
    """Shut down on exit a local Ray that the block started; a Ray the caller already had
    keeps running."""
    before = ray_running()
    try:
        yield
    finally:
        if not before and ray_running():
            shutdown()


def shutdown() -> None:
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()
    _remote_cache.clear()
    _stop_watchdog()


def progress(iterable: Iterable, total: int, desc: str, enabled: bool = True):
    """A progress bar on stderr (tqdm), or the iterable itself when disabled."""
    if not enabled:
        return iterable
    from tqdm import tqdm
    return tqdm(iterable, total=total, desc=desc, unit="game", dynamic_ncols=True)


# ------------------------------------------------------------------ the local Ray's watchdog

_WATCHDOG = r"""
import os, select, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
roots = [int(p) for p in sys.argv[1:]]
known = {}  # pid -> start time (so that a reused pid is never killed)

def table():
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

def snapshot():
    procs = table()
    for pid in roots:
        if pid in procs:
            known.setdefault(pid, procs[pid][1])
    children = {}
    for pid, (parent, start) in procs.items():
        children.setdefault(parent, []).append(pid)
    todo = [p for p in known if p in procs and procs[p][1] == known[p]]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in known and child != os.getpid():
                known[child] = procs[child][1]
                todo.append(child)
    return procs

snapshot()
while True:
    readable, _, _ = select.select([0], [], [], 0.5)
    if readable and not os.read(0, 4096):
        break  # the driver closed its end: it shut Ray down, or it died
    snapshot()
procs = snapshot()
for pid, start in known.items():
    if pid in procs and procs[pid][1] == start:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""

_watchdog: dict = {}


def _ray_pids() -> list[int]:
    """The processes the local Ray started in this process (GCS, raylet, monitors)."""
    try:
        import ray
        node = ray._private.worker._global_node
        return [info.process.pid for infos in node.all_processes.values() for info in infos
                if info.process is not None]
    except Exception:  # noqa: BLE001 - another Ray version: no watchdog
        return []


def _start_watchdog() -> None:
    """Start the watchdog of the local Ray just started: it reads a pipe whose only writer is
    this process; end of file (this process shut Ray down, or died) makes it kill every
    process of that Ray it has seen (the roots and their descendants, re-scanned twice a
    second). Linux only (it reads /proc)."""
    _stop_watchdog()
    pids = _ray_pids()
    if not pids or not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
        return
    read_end, write_end = os.pipe()  # not inherited by later children (close-on-exec)
    try:
        proc = subprocess.Popen([sys.executable, "-c", _WATCHDOG, *map(str, pids)],
                                stdin=read_end, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        os.close(write_end)
        return
    finally:
        os.close(read_end)
    _watchdog.update(proc=proc, fd=write_end)


def _stop_watchdog(timeout: float = 5.0) -> None:
    """Close the watchdog's pipe (Ray is shut down by now: it kills what is left, if
    anything) and wait for it to exit."""
    fd, proc = _watchdog.pop("fd", None), _watchdog.pop("proc", None)
    if fd is not None:
        os.close(fd)
    if proc is not None:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
