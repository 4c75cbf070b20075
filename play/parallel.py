"""Playing many games in parallel: one Ray task per game.

One game per task lets long and short games balance across workers. A local Ray is started
by default; an address (or RAY_ADDRESS) joins a cluster, and the job ships the project's code
to it (`code_env`). Results come back in completion order with their index (and, in a
`GamePool`, the key they were submitted under), so callers that need determinism order them
by index, never by arrival. A pool may hold the games of several batches at once.

A task whose worker dies is retried by Ray (`TASK_RETRIES` times); a game is a pure function
of its spec, so a retry neither loses nor double-counts it, and the pool reports how many
attempts each game took. A game still lost after the retries raises `GameLost`; an exception
raised by game or agent code is not retried: it comes back as `PluginFailed`, the plug-in's
own frames and error (none of Ray's), ending with the check to run. `workers=0` plays in this process
(no Ray).

A pool plays `run_game` unless given another function of the spec (`play`, e.g. one that
records the positions of the game as well): every game is still one task, seeded by its spec.

A local Ray started here is watched by a small watchdog process: when this process dies, even
by SIGKILL, the watchdog kills every process of that Ray (its raylet, GCS, agents and workers),
so a killed driver leaves nothing behind and no game keeps playing.

Plug-ins from outside the project (`games.registry.register_plugin`, an entry point, or
``PLAYSTYLES_PLUGINS``) reach the workers too (`worker_code`): a local Ray inherits this
process's environment, so the plug-ins' names and the directories they are imported from go
into the environment its processes start with (no runtime environment: the workers Ray starts
in advance stay usable, and the start is no slower); a cluster gets each plug-in's top-level
package shipped with the job, next to the project's packages (`code_env`). What cannot reach
the workers is refused before the first game, with what to do instead: a game registered with
`register_game` alone (not by a plug-in), and, on a cluster, a plug-in that cannot be shipped
(one file outside a package, a package with compiled extensions) and is not installed
(`check_playable`, called by the commands before they write anything; `GamePool.submit` for
every other caller).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import traceback
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator, NamedTuple, Sequence

import games.registry as registry
from games.registry import (
    PLUGINS_ENV,
    family_of,
    games_without_plugin,
    load_plugin,
    outside_plugins,
    plugin_module,
)
from play.runner import GameSpec, run_game
from playstyles.limits import CONNECT_TIMEOUT

TASK_RETRIES = 3


class GameLost(RuntimeError):
    """A game whose task failed outside the game's code (its worker or node died more often
    than Ray retries, its object was lost, the code could not be shipped, ...)."""

    def __init__(self, key: Hashable, index: int, cause: BaseException) -> None:
        self.key, self.index, self.cause = key, index, cause
        super().__init__(f"game {index} ({key}) was lost: {type(cause).__name__}: {cause}")


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_FRAMEWORK = ("agents", "games", "play", "playstyles", "qd", "ray")
"""Packages whose frames a plug-in's error leaves out (the framework's and Ray's own)."""


def _framework_dirs() -> tuple[str, ...]:
    dirs = []
    for name in _FRAMEWORK:
        spec = importlib.util.find_spec(name)
        for d in (spec.submodule_search_locations or []) if spec else []:
            dirs.append(os.path.join(os.path.realpath(d), ""))
    return tuple(dirs)


class PluginFailed(RuntimeError):
    """A game's plug-in (its game, agent or script code) raised while a game played, on a Ray
    worker or in the trial game before a run: the plug-in's own frames (`frames`, none of
    the framework's or Ray's, no terminal colour codes) and its error as one line ending with
    what to run (`playstyles check --game GAME`)."""

    def __init__(self, game: str, error: str, frames: str = "") -> None:
        self.game, self.error, self.frames = game, error, frames
        super().__init__(f"{error}; run playstyles check --game {game}")

    def __reduce__(self):  # (back from a Ray worker as itself)
        return type(self), (self.game, self.error, self.frames)

    @classmethod
    def of(cls, game: str, e: BaseException) -> "PluginFailed":
        """The plug-in's part of `e` and of the exceptions that caused it."""
        chain, seen = [], set()
        while e is not None and id(e) not in seen:
            seen.add(id(e))
            chain.append(e)
            e = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
        ours = _framework_dirs()
        lines = []
        for ex in reversed(chain):  # the first cause first, as Python prints a chain
            frames = [f for f in traceback.extract_tb(ex.__traceback__)
                      if not os.path.realpath(f.filename).startswith(ours)]
            if frames:
                lines += traceback.format_list(frames)
                lines.append(f"{type(ex).__name__}: {ex}\n")
        error = f"{type(chain[0]).__name__}: {chain[0]}"
        return cls(game, _ANSI.sub("", error), _ANSI.sub("", "".join(lines)).rstrip())


class PluginUnreachable(ValueError):
    """A game the Ray workers could not play: its plug-in cannot reach them (the message says
    what to do instead). Raised before the first game."""


class ShipFailed(ConnectionError):
    """The job could not join the cluster because Ray could not pack or upload its code
    (`ship_failure` says why and what was being shipped)."""


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
            _start_watchdog()
        _job.update(code=code, job=_job_id(ray))
    return ray


def _job_id(ray) -> str | None:
    try:
        return ray.get_runtime_context().get_job_id()
    except Exception:  # noqa: BLE001 - not connected
        return None


def _join(ray, address: str, code: "WorkerCode", kwargs: dict) -> None:
    """Join the cluster at `address` with a job that ships the code (`code_env`); Ray's
    failures become one message each (a refused token: `join_failure`; the code could not be
    packed or uploaded: `ship_failure`)."""
    try:
        ray.init(address=address, runtime_env=code_env(code), **kwargs)
    except ConnectionError as e:
        raise ConnectionError(join_failure(address, e)) from e
    except Exception as e:  # noqa: BLE001 - only Ray's packaging errors are rephrased
        if not _from_packaging(ray, e):
            raise
        if ray.is_initialized():
            ray.shutdown()
        raise ShipFailed(ship_failure(address, code, e)) from None


def _from_packaging(ray, error: BaseException) -> bool:
    """Whether `error` came from packing or uploading the job's runtime environment."""
    if isinstance(error, ray.exceptions.RuntimeEnvSetupError):
        return True
    tb = error.__traceback__
    while tb is not None:
        if f"{os.sep}runtime_env{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


def ship_failure(address: str, code: "WorkerCode", error: BaseException) -> str:
    """What to tell a user whose job could not ship its code to the cluster at `address`:
    Ray's reason (its own lines, without the package's bytes) and what was being shipped."""
    lines = [ln.strip() for ln in str(error).splitlines()]
    reason = " ".join(ln for ln in lines if ln and not ln.startswith("- ")
                      and ln != "Failed to set up runtime environment.").rstrip(".")
    shipped = "the project's packages" + "".join(
        f", the plug-in package {Path(d).name} ({d})" for d in code.modules)
    return (f"could not ship the code to the Ray cluster at {address}: "
            f"{reason or type(error).__name__}; it was shipping {shipped}; nothing was played")


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


def code_env(code: "WorkerCode | None" = None) -> dict:
    """A Ray runtime environment that ships this project's code to the cluster, so its nodes
    need only Python, Ray and numpy, not the project installed; a copy installed on a node is
    shadowed, so every node runs exactly the driver's code. With `code` (`worker_code` for a
    cluster), the outside plug-ins' packages are shipped too and the workers get their names
    (``PLAYSTYLES_PLUGINS``)."""
    env: dict[str, Any] = {
        "py_modules": [importlib.import_module(n) for n in SHIPPED_PACKAGES],
        "excludes": ["__pycache__", "*.pyc"]}
    if code is not None:
        env["py_modules"] += code.modules
        if code.plugins:
            env["env_vars"] = {PLUGINS_ENV: json.dumps(code.plugins, sort_keys=True)}
    return env


# ------------------------------------------------------------------ plug-ins on the workers

_job: dict = {}  # "code": the WorkerCode of the Ray this module started or joined


@dataclass
class WorkerCode:
    """What a Ray job gives its workers beyond the project's packages (`worker_code`).

    Attributes:
        cluster: for a cluster (else a local Ray).
        plugins: plug-in name -> module, the workers' ``PLAYSTYLES_PLUGINS``.
        paths: (a local Ray) directories the plug-ins are imported from, put in front of the
            workers' PYTHONPATH.
        modules: (a cluster) the plug-ins' top-level package directories, shipped with the job.
        refused: game or plug-in name -> why its games cannot be played on the workers.
    """

    cluster: bool
    plugins: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)

    def environ(self) -> dict[str, str]:
        """The environment variables a local Ray's processes start with: the plug-ins'
        names, and their directories in front of PYTHONPATH (empty: nothing to add)."""
        out: dict[str, str] = {}
        if self.plugins:
            out[PLUGINS_ENV] = json.dumps(self.plugins, sort_keys=True)
        old = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        new = [p for p in self.paths if p not in old]
        if new:
            out["PYTHONPATH"] = os.pathsep.join(new + old)
        return out

    def problem(self, game: str) -> str | None:
        """Why the workers cannot play `game` (None: they can, as far as this process can
        tell: a game nobody knows is left to the game lookup's own error).

        Args:
            game: a game name.
        """
        fam = family_of(game)
        if fam in self.refused:
            return self.refused[fam]
        module = plugin_module(fam)
        if module is None:
            return _unplugged(fam) if fam in games_without_plugin() else None
        if self.plugins.get(fam) == module or registry.SHIPPED_PLUGINS.get(fam) == module:
            return None
        if not self.cluster and fam not in registry.PLUGINS:
            return None  # an entry point: the local workers see the same installation
        return (f"the plug-in {fam!r} (module {module}) was not given to the Ray workers: they "
                f"get the plug-ins registered{', and loaded,' if self.cluster else ''} when "
                f"Ray starts; register it (and look the game up) before the first game, or "
                f"shut Ray down first (play.parallel.shutdown)")

    def refuse(self, games: Iterable[str]) -> None:
        """Raise `PluginUnreachable` for the first of `games` the workers cannot play."""
        for game in games:
            why = self.problem(game)
            if why:
                raise PluginUnreachable(why)


def worker_code(cluster: bool, games: Iterable[str] = (), address: str = "") -> WorkerCode:
    """What this process's outside plug-ins need on the workers of a local Ray or a cluster.

    Every plug-in `games.registry.outside_plugins` names goes to a local Ray (name and import
    directory); a cluster gets the ones loaded here (the games this process uses: those of
    `games` are loaded first), each as its top-level package, shipped with the job. A
    plug-in on a cluster that is one file outside a package, a namespace package spread over
    several directories, or a package holding compiled extensions cannot be shipped: when it
    is installed (a distribution in this environment), the nodes are expected to have it
    installed too and it is not shipped; otherwise it is refused (`WorkerCode.refused`, with
    what to install where). A game registered with `register_game` alone is refused for both.

    Args:
        cluster: for a cluster (else a local Ray).
        games: the games that will be played.
        address: the cluster's address (for the messages).
    """
    for game in games:
        load_plugin(game)
    code = WorkerCode(cluster)
    for name in games_without_plugin():
        code.refused[name] = _unplugged(name)
    for name, module in outside_plugins(loaded_only=cluster).items():
        top = module.split(".")[0]
        if top in SHIPPED_PACKAGES:
            code.plugins[name] = module  # shipped with the project's own packages
            continue
        place = _Place.find(top)
        if not cluster:
            code.plugins[name] = module
            for d in (place.parents if place else ()):
                if d not in code.paths and not _is_site_dir(d):
                    code.paths.append(d)
            continue
        why = place.unshippable() if place else "cannot be found in this process"
        if why is None:
            code.plugins[name] = module
            if place.dirs[0] not in code.modules:
                code.modules.append(place.dirs[0])
        elif place is not None and place.installed():
            code.plugins[name] = module  # taken from each node's own installation
        else:
            at = f" at {address}" if address else ""
            where = place.file if place and place.file else ", ".join(place.dirs) if place \
                else "?"
            code.refused[name] = (
                f"the plug-in {name!r} (module {module}, {where}) {why}, so it cannot be "
                f"shipped to the Ray cluster{at}: " + _install_hint(top, why))
    return code


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


def _unplugged(name: str) -> str:
    return (f"the game {name!r} was registered in this process only (register_game or "
            f"register_family, not by a plug-in), so Ray workers, which are other processes, "
            f"cannot build it by name: make it a plug-in, a module whose register() function "
            f"registers the game, named with games.registry.register_plugin({name!r}, "
            f"'package.module') or by an entry point {name} = package.module in the group "
            f"'playstyles.games'; or play in this process (--workers 0)")


_INSTALLED = ("pip install it on every node of the cluster and on this machine (an installed "
              "plug-in is not shipped: each node imports its own installation)")


def _install_hint(top: str, why: str) -> str:
    """What to do with a plug-in that cannot be shipped (`_Place.unshippable` says why)."""
    if why.startswith("is one file"):
        return (f"put it in a package (a directory with an __init__.py, registered as "
                f"'PACKAGE.{top}'), which the job ships, or make it installable and "
                + _INSTALLED)
    if why.startswith("holds compiled"):
        return _INSTALLED
    return "put its modules in one package directory, which the job ships, or " + _INSTALLED


@dataclass
class _Place:
    """Where a top-level module or package is imported from."""

    top: str
    file: str | None  # a one-file module
    dirs: list[str]  # a package's directories (several: a namespace package)

    @staticmethod
    def find(top: str) -> "_Place | None":
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        if spec.submodule_search_locations is not None:
            return _Place(top, None, [str(Path(d).resolve())
                                      for d in spec.submodule_search_locations])
        if not spec.origin or not os.path.isfile(spec.origin):
            return None  # built in, frozen
        return _Place(top, str(Path(spec.origin).resolve()), [])

    @property
    def parents(self) -> list[str]:
        """The directories to put on a Python path to import it."""
        if self.file:
            return [str(Path(self.file).parent)]
        return list(dict.fromkeys(str(Path(d).parent) for d in self.dirs))

    def unshippable(self) -> str | None:
        """Why it cannot be shipped as a package directory (None: it can)."""
        if self.file:
            return "is one file outside a package"
        if len(self.dirs) != 1:
            return (f"is a namespace package spread over several directories "
                    f"({', '.join(self.dirs)})")
        compiled = _compiled_files(Path(self.dirs[0]))
        if compiled:
            more = f" and {len(compiled) - 1} more" if len(compiled) > 1 else ""
            return (f"holds compiled extensions ({compiled[0]}{more}), which a node of another "
                    f"platform or Python version could not load")
        return None

    def installed(self) -> bool:
        """Whether it comes from an installed distribution (or a site-packages directory)."""
        if any(_is_site_dir(d) for d in self.parents):
            return True
        try:
            from importlib.metadata import packages_distributions
            return bool(packages_distributions().get(self.top))
        except Exception:  # noqa: BLE001 - a broken installed package: not known installed
            return False


def _compiled_files(root: Path, limit: int = 10_000) -> list[str]:
    """Extension modules under a package directory (relative paths), scanning at most
    `limit` files."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found: list[str] = []
    for n, path in enumerate(root.rglob("*")):
        if n >= limit:
            break
        if path.name.endswith(suffixes) and "__pycache__" not in path.parts:
            found.append(str(Path(root.name) / path.relative_to(root)))
    return sorted(found)


def _is_site_dir(path: str) -> bool:
    """Whether `path` is one of this Python's installation directories (site-packages, the
    standard library): workers find what is there without help."""
    import site
    import sysconfig
    dirs = set(site.getsitepackages()) | {site.getusersitepackages()} | {
        v for k, v in sysconfig.get_paths().items() if k in ("purelib", "platlib", "stdlib",
                                                              "platstdlib")}
    target = os.path.realpath(path)
    return any(os.path.realpath(d) == target for d in dirs if d)


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


_remote_cache: dict = {}


def play_counted(spec: GameSpec, play: Callable[[GameSpec], Any] = run_game) -> tuple[Any, int]:
    """A game (`play(spec)`, by default its record) and the attempt that played it (0: the
    first; more when Ray retried the task after its worker or node died)."""
    try:
        record = play(spec)
    except Exception as e:  # noqa: BLE001 - the plug-in's error, without Ray's frames
        raise PluginFailed.of(spec.game, e) from None
    return record, _attempt_number()


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
        games: the games it will play, when known (`ensure_ray`: their plug-ins reach the
            workers even when nothing here looked them up yet).
    """

    def __init__(self, address: str | None = None, workers: int | None = None,
                 play: Callable[[GameSpec], Any] = run_game, games: Iterable[str] = ()) -> None:
        self.local = workers == 0 and not address
        self.play = play
        self._queue: deque[tuple[Hashable, int, GameSpec]] = deque()
        self._pending: dict[Any, tuple[Hashable, int]] = {}
        self._ready: deque = deque()
        self._playable: set[str] = set()
        self.ray = None
        if not self.local:
            self.ray = ensure_ray(address, workers, games)
            self._remote = _remote_play(self.ray)

    def submit(self, key: Hashable, games: Iterable[tuple[int, GameSpec]]) -> int:
        """Queue games (index, spec) under `key`; returns how many.

        Raises:
            PluginUnreachable: (Ray workers) a game whose plug-in the workers do not have,
                before any game of the call is submitted.
        """
        games = list(games)
        if not self.local:
            self._check([spec.game for _, spec in games])
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

    def _check(self, names: Iterable[str]) -> None:
        """Refuse the games the workers of the Ray this module started cannot play
        (`WorkerCode.problem`; a Ray started elsewhere is taken as it is)."""
        code = _job.get("code") if _job and _job.get("job") == _job_id(self.ray) else None
        for name in dict.fromkeys(names):
            if name in self._playable:
                continue
            why = code.problem(name) if code is not None else None
            if why:
                raise PluginUnreachable(why)
            self._playable.add(name)

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
        except ray.exceptions.RayTaskError as e:  # the game's own code raised: no retry
            cause = getattr(e, "cause", None)
            if isinstance(cause, PluginFailed):
                raise PluginFailed(cause.game, cause.error, cause.frames) from None
            raise
        except ray.exceptions.RuntimeEnvSetupError as e:  # a node could not set the code up
            cause = RuntimeError("the job's code could not be set up on a node of the Ray "
                                 "cluster: " + " ".join(
                                     ln.strip() for ln in str(e).splitlines()[:3] if ln.strip()))
            raise GameLost(key, i, cause) from e
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
    pool = GamePool(address, workers, play, games=dict.fromkeys(s.game for s in specs))
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
    _job.clear()
    _stop_watchdog()


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
