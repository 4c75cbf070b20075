"""The game pool: many games played in parallel, one Ray task per game.

One game per task lets long and short games balance across workers. Results come back in
completion order with their index (and, in a `GamePool`, the key they were submitted under),
so callers that need determinism order them by index, never by arrival. A pool may hold the
games of several batches at once; `run_games` plays one list of games.

A task whose worker dies is retried by Ray (`TASK_RETRIES` times); a game is a pure function
of its spec, so a retry neither loses nor double-counts it, and the pool reports how many
attempts each game took. A game still lost after the retries raises `GameLost`; an exception
raised by game or agent code is not retried: it comes back as `PluginFailed`, the plug-in's
own frames and error (none of Ray's), ending with the check to run. `workers=0` plays in this
process (no Ray).

A pool plays `run_game` unless given another function of the spec (`play`, e.g. one that
records the positions of the game as well): every game is still one task, seeded by its spec.
It starts or joins Ray through the Ray session (`play.ray_session.ensure_ray`) and refuses,
before the first game, a game whose plug-in the workers do not have (`play.shipping`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import traceback
from collections import deque
from typing import Any, Callable, Hashable, Iterable, Iterator, NamedTuple, Sequence

from play.ray_session import ensure_ray, job_code, remote_function
from play.runner import GameSpec, run_game
from play.shipping import PluginUnreachable

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
    return remote_function(ray, play_counted, max_retries=TASK_RETRIES, num_cpus=1)


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
        code = job_code(self.ray)
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
