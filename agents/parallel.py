"""Playing many games in parallel: one Ray task per game.

One game per task lets long and short games balance across workers. A local Ray is started
by default; an address (or RAY_ADDRESS) joins a cluster, and the job ships the project's code
to it (`code_env`). Results come back in completion order with their index, so callers that
need determinism order them by index, never by arrival.
A task whose worker dies is retried by Ray; a game is a pure function of its spec, so a
retry neither loses nor double-counts it. `workers=0` plays in this process (no Ray).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterable, Iterator, Sequence

from agents.runner import GameRecord, GameSpec, run_game

TASK_RETRIES = 3


def ensure_ray(address: str | None, workers: int | None):
    """Start a local Ray with `workers` CPUs, or join the cluster at `address` / RAY_ADDRESS,
    unless Ray is already running in this process."""
    import ray
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        kwargs = {"include_dashboard": False, "log_to_driver": False,
                  "configure_logging": False}
        if address:
            ray.init(address=address, runtime_env=code_env(), **kwargs)
        else:
            # "local": a new Ray of our own even where `ray start` left one running
            ray.init(address="local", num_cpus=workers or os.cpu_count(), **kwargs)
    return ray


SHIPPED_PACKAGES = ("games", "agents", "qd", "plots", "playstyles")
"""The project's packages, sent to a cluster with the job."""


def code_env() -> dict:
    """A Ray runtime environment that ships this project's code to the cluster, so its nodes
    need only Python, Ray and numpy, not the project installed; a copy installed on a node is
    shadowed, so every node runs exactly the driver's code."""
    import importlib
    return {"py_modules": [importlib.import_module(n) for n in SHIPPED_PACKAGES],
            "excludes": ["__pycache__", "*.pyc"]}


_remote_cache: dict = {}


def _remote_run(ray):
    if "run" not in _remote_cache:
        _remote_cache["run"] = ray.remote(max_retries=TASK_RETRIES, num_cpus=1)(run_game)
    return _remote_cache["run"]


def run_games(specs: Sequence[GameSpec], address: str | None = None, workers: int | None = None,
              ) -> Iterator[tuple[int, GameRecord]]:
    """Yield (index, record) for every spec as games finish."""
    if workers == 0 and not address:
        for i, spec in enumerate(specs):
            yield i, run_game(spec)
        return
    ray = ensure_ray(address, workers)
    remote = _remote_run(ray)
    pending = {remote.remote(spec): i for i, spec in enumerate(specs)}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            yield i, ray.get(ref)


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


def progress(iterable: Iterable, total: int, desc: str, enabled: bool = True):
    """A progress bar on stderr (tqdm), or the iterable itself when disabled."""
    if not enabled:
        return iterable
    from tqdm import tqdm
    return tqdm(iterable, total=total, desc=desc, unit="game", dynamic_ncols=True)
