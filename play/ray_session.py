"""The Ray session: starting a local Ray or joining a cluster, and shutting it down.

A local Ray is started by default (`ensure_ray`); an address (or RAY_ADDRESS) joins a cluster,
whose job ships the project's code to it (`play.shipping.code_env`). Before joining, the
address is probed (`check_address`: Ray itself retries an address that does not answer for
over a minute), and a head that refuses this machine's token is explained (`join_failure`).
What the workers cannot play is refused before anything is written or played
(`check_playable`). A local Ray started here is watched by the watchdog (`play.watchdog`):
when this process dies, even by SIGKILL, it kills every process of that Ray. `ray_session`
shuts down on exit a Ray its block started; the game pool (`play.game_pool`) plays the games.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterable

from base.limits import CONNECT_TIMEOUT
from play import watchdog
from play.shipping import (
    ShipFailed,
    WorkerCode,
    code_env,
    from_packaging,
    ship_failure,
    worker_code,
)

_job: dict = {}  # "code": the WorkerCode of the Ray this module started or joined; "job": its id
_remotes: dict = {}  # function -> its Ray remote function in this session


def ensure_ray(address: str | None, workers: int | None, games: Iterable[str] = ()):
    """Start a local Ray with `workers` CPUs, or join the cluster at `address` / RAY_ADDRESS,
    unless Ray is already running in this process. A local Ray gets a watchdog that kills
    its processes if this process dies.

    The workers get this process's outside plug-ins (`worker_code`): the plug-ins of `games`
    are loaded first, so that a cluster gets them shipped even when nothing here looked the
    games up yet. A Ray already running is left as it is (whoever started it gave its workers
    what they need).

    Args:
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: CPUs of a local Ray (default: all).
        games: the games that will be played (their plug-ins must reach the workers).

    Raises:
        PluginUnreachable: a game of `games` cannot be played on the workers.
        ConnectionError: the cluster does not answer, or refused this machine.
        ShipFailed: the code could not be shipped to the cluster (Ray's reason, in one
            message).
    """
    import ray
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        kwargs = {"include_dashboard": False, "log_to_driver": False,
                  "configure_logging": False}
        games = list(games)
        code = worker_code(bool(address), games, address or "")
        code.refuse(games)
        if address:
            check_address(address)
            _join(ray, address, code, kwargs)
        else:
            # "local": a new Ray of our own even where `ray start` left one running
            _reread_auth_mode()
            with _environ(code.environ()):
                ray.init(address="local", num_cpus=workers or os.cpu_count(), **kwargs)
            watchdog.start(_ray_pids())
        _job.update(code=code, job=_job_id(ray))
    return ray


def _job_id(ray) -> str | None:
    try:
        return ray.get_runtime_context().get_job_id()
    except Exception:  # noqa: BLE001 - not connected
        return None


def job_code(ray) -> WorkerCode | None:
    """What `ensure_ray` gave the workers of the Ray it started or joined, while that Ray's job
    is the one running (None: a Ray started elsewhere, taken as it is)."""
    return _job.get("code") if _job and _job.get("job") == _job_id(ray) else None


def remote_function(ray, fn: Callable, **options: Any):
    """`fn` as a Ray remote function with `options` (`ray.remote`), made once a session
    (`shutdown` forgets it)."""
    if fn not in _remotes:
        _remotes[fn] = ray.remote(**options)(fn)
    return _remotes[fn]


def _join(ray, address: str, code: WorkerCode, kwargs: dict) -> None:
    """Join the cluster at `address` with a job that ships the code (`code_env`); Ray's
    failures become one message each (a refused token: `join_failure`; the code could not be
    packed or uploaded: `ship_failure`)."""
    try:
        ray.init(address=address, runtime_env=code_env(code), **kwargs)
    except ConnectionError as e:
        raise ConnectionError(join_failure(address, e)) from e
    except Exception as e:  # noqa: BLE001 - only Ray's packaging errors are rephrased
        if not from_packaging(ray, e):
            raise
        if ray.is_initialized():
            ray.shutdown()
        raise ShipFailed(ship_failure(address, code, e)) from None


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
        timeout: seconds to wait (default `base.limits.CONNECT_TIMEOUT`).
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


def check_playable(games: Iterable[str], address: str | None = None,
                   workers: int | None = None) -> None:
    """Refuse, before anything is written or played, the games that Ray workers could not
    play: a game registered with `register_game` alone, and on a cluster a plug-in that can
    be neither shipped nor found installed (`worker_code`). Nothing to check when the games
    are played in this process (`workers` 0 and no `address`).

    Args:
        games: the games the command will play.
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: CPUs of a local Ray; 0 plays in this process.

    Raises:
        PluginUnreachable: the first game the workers cannot play, saying what to do.
    """
    if workers == 0 and not address:
        return  # (as `GamePool`: in this process)
    cluster = address or os.environ.get("RAY_ADDRESS")
    games = list(games)
    worker_code(bool(cluster), games, cluster or "").refuse(games)


@contextmanager
def _environ(values: dict[str, str]):
    """Set environment variables for the block (a local Ray's processes inherit them), and
    put the old values back."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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
    _remotes.clear()
    _job.clear()
    watchdog.stop()


def _ray_pids() -> list[int]:
    """The processes the local Ray started in this process (GCS, raylet, monitors)."""
    try:
        import ray
        node = ray._private.worker._global_node
        return [info.process.pid for infos in node.all_processes.values() for info in infos
                if info.process is not None]
    except Exception:  # noqa: BLE001 - another Ray version: no watchdog
        return []
