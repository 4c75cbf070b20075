"""What code reaches the Ray workers: the project's packages and the outside plug-ins.

A cluster gets the project's packages shipped with the job (`code_env`, a Ray runtime
environment), so its nodes need only Python, Ray and numpy, not the project installed.

Plug-ins from outside the project (`games.registry.register_plugin`, an entry point, or
``PLAYSTYLES_PLUGINS``) reach the workers too (`worker_code`): a local Ray inherits the
driver's environment, so the plug-ins' names and the directories they are imported from go
into the environment its processes start with (no runtime environment: the workers Ray starts
in advance stay usable, and the start is no slower); a cluster gets each plug-in's top-level
package shipped with the job, next to the project's packages (`code_env`). What cannot reach
the workers is refused before the first game, with what to do instead (`PluginUnreachable`):
a game registered with `register_game` alone (not by a plug-in), and, on a cluster, a plug-in
that cannot be shipped (one file outside a package, a package with compiled extensions) and
is not installed. The Ray session (`play.ray_session`) starts or joins Ray with what this
module says; the game pool (`play.game_pool`) refuses a game the workers cannot play.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import games.registry as registry
from games.registry import (
    PLUGINS_ENV,
    family_of,
    games_without_plugin,
    load_plugin,
    outside_plugins,
    plugin_module,
)


class PluginUnreachable(ValueError):
    """A game the Ray workers could not play: its plug-in cannot reach them (the message says
    what to do instead). Raised before the first game."""


class ShipFailed(ConnectionError):
    """The job could not join the cluster because Ray could not pack or upload its code
    (`ship_failure` says why and what was being shipped)."""


def from_packaging(ray, error: BaseException) -> bool:
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


SHIPPED_PACKAGES = ("base", "games", "agents", "play", "qd", "plots", "playstyles")
"""The project's packages, sent to a cluster with the job."""


def code_env(code: "WorkerCode | None" = None) -> dict:
    """A Ray runtime environment that ships this project's code to the cluster, so its nodes
    need only Python, Ray and numpy, not the project installed; a copy installed on a node is
    shadowed, so every node runs exactly the driver's code. With `code` (`worker_code` for a
    cluster), the outside plug-ins' packages are shipped too and the workers get their names
    (``PLAYSTYLES_PLUGINS``)."""
    env: dict[str, Any] = {
        "py_modules": [importlib.import_module(n) for n in SHIPPED_PACKAGES],
        # the compiled modules' C source stays behind; the modules themselves travel (a node
        # whose Python has another ABI tag ignores them and runs the same source)
        "excludes": ["__pycache__", "*.pyc", "*.c"]}
    if code is not None:
        env["py_modules"] += code.modules
        if code.plugins:
            env["env_vars"] = {PLUGINS_ENV: json.dumps(code.plugins, sort_keys=True)}
    return env


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
                f"shut Ray down first (play.ray_session.shutdown)")

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
