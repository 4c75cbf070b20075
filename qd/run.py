"""The evolution run: config -> batches of genomes -> games on Ray -> archive -> run directory.

A batch is the unit of determinism and of checkpointing: the emitter is asked for a batch of
genomes, their games are played (one Ray task per game), their features and quality go into
the archive in one `tell`, and the run's state is written atomically. Batches are told
strictly in order. With `pipeline.lag` L (default 1), batch k + L is asked from the archive as
it stands after batch k is told, and its games are submitted at once, so the games of L
batches are in flight together and the cluster stays busy while the last games of a batch
finish; the sequence of asks and tells is fixed by the config, never by timing.

The state after batch k depends only on the config (seed included), never on the number of
workers, the order games finish, or whether the run was interrupted. The checkpoint after
batch k holds the state after batch k was told and the batches that followed were asked,
with those in-flight batches' genomes, so a resumed run plays exactly the same batches; the
games they had already finished are taken from `partial.jsonl` (keyed by batch, each checked
against the digest of its spec) instead of being played again (a game is a pure function of
its spec).

Faults end the run with a `RunError` that says how to continue: Ctrl-C (`RunInterrupted`,
after the partial file is flushed and Ray is shut down), a game lost after Ray's retries, a
run file that cannot be written (a full disk: the message names the file). Worker and node
deaths that Ray's retries absorbed are counted in metrics.csv (`retries`, `workers_alive`,
`nodes_alive`) and run.log.

The run directory's files and columns are named in `qd.rundir` (its schema). The checkpoint
(`qd.checkpoint`) is data: what every batch asked and was told. The state after batch k is a
pure function of the config and of those batches, so `replay` rebuilds it (and the tables)
from a fresh state; no object is ever unpickled.
"""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pandas as pd

from play.journal import Interrupted
from play.parallel import (
    TASK_RETRIES,
    GameLost,
    PluginFailed,
    check_address,
    check_playable,
    cluster_size,
    ray_session,
)
from play.runner import GameRecord, run_game
from playstyles.files import atomic_write, check_folder, claim_folder, open_own, refuse_link
from qd.checkpoint import (
    CheckpointError,
    CheckpointLog,
    PartialLog,
    TableDigests,
    Told,
    partial_records,
    read_checkpoint,
    read_partial,
    told_batches,
)
from qd.config import RunConfig, dump_config, load_config, read_yaml
from qd.evolution import (
    Evolution,
    InFlight,
    ReplayMismatch,
    RunState,
    game_rows,
    games_asked,
    genome_rows,
)
from qd.genome_games import BatchGames, game_seconds, worker_count
from qd.noise import PLAIN, noise_params
from qd.rundir import (
    CHECKED_TABLES,
    CHECKPOINT,
    CONFIG,
    ELITES,
    GAMES,
    INDIVIDUALS,
    LOG,
    METRIC_COLUMNS,
    METRICS,
    OCCUPIED,
    OWN_FILES,
    PARTIAL,
    RESUMED_KEYS,
    VALIDATION_JOURNAL,
    VALIDATION_SUMMARY,
    RunFiles,
    config_diff,
    config_problem,
    event_count_prefixes,
    table_problem,
)
from qd.validation import SUMMARY_VERSION, validate

_after_game: Callable[[int, GameRecord], None] | None = None
"""Test hook: called after each new game of a batch is stored (e.g. to simulate a kill)."""


class RunError(RuntimeError):
    """A run that cannot start or continue (occupied directory, bad checkpoint, a run file
    that cannot be written, a lost game, ...); the message says what to do."""


class RunInterrupted(RunError, Interrupted):
    """The run was interrupted (Ctrl-C, KeyboardInterrupt) after `batches` completed batches;
    the partial file is flushed and Ray is shut down, and `--resume` continues the run."""

    def __init__(self, message: str, batches: int) -> None:
        super().__init__(message)
        self.batches = batches


@dataclass
class RunResult:
    run_dir: Path
    batches: int
    evaluations: int
    games: int
    complete: bool
    stats: dict[str, float] = field(default_factory=dict)
    validation: dict[str, Any] | None = None  # validation_summary.json, when the config validates
    notes: list[str] = field(default_factory=list)  # what resuming repaired (tables rebuilt)


# ------------------------------------------------------------------------------ files

class _WriteFailed(Exception):
    """A run file could not be written (turned into a RunError that names the batch)."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: {error.strerror or error}")
        self.path, self.error = path, error


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Writes to `path` inside the block: an OSError becomes `_WriteFailed` naming the
    file, and the atomic writer's temporary file is removed (space is scarce)."""
    try:
        yield
    except OSError as e:
        Path(f"{path}.tmp").unlink(missing_ok=True)
        raise _WriteFailed(Path(path), e) from e


def _write(path: Path, data: str | bytes) -> None:
    with _writing(path):
        atomic_write(path, data)


def _append_csv(path: Path, frame: pd.DataFrame, fill_zero: Sequence[str] = (),
                digests: TableDigests | None = None) -> None:
    """Append rows; if they bring new columns, rewrite the file with the union of columns
    (absent counts become 0). A failed append is cut off again.

    Args:
        path: the table.
        frame: the rows.
        fill_zero: columns (or column prefixes) whose absent values are 0.
        digests: the run's table digests, told what was written.
    """
    if frame.empty:
        return
    if not path.exists() or path.stat().st_size == 0:
        _write_table(path, frame.to_csv(index=False).encode(), digests)
        return
    header = pd.read_csv(path, nrows=0).columns.tolist()
    if set(frame.columns) <= set(header):
        frame = frame.reindex(columns=header)
        zero = [c for c in header if c in fill_zero or c.startswith(tuple(fill_zero))]
        frame[zero] = frame[zero].fillna(0)
        data = frame.to_csv(index=False, header=False).encode()
        size = path.stat().st_size
        with _writing(path):
            try:
                with open_own(path) as fh:
                    fh.write(data)
            except BaseException:
                with open_own(path, "r+b") as fh:  # no torn row is left behind
                    fh.truncate(size)
                raise
        if digests is not None:
            digests.appended(path.name, data)
        return
    old = pd.read_csv(path)
    both = pd.concat([old, frame], ignore_index=True)
    zero = [c for c in both.columns if c.startswith(tuple(fill_zero))]
    both[zero] = both[zero].fillna(0)
    _write_table(path, both.to_csv(index=False).encode(), digests)


def _write_table(path: Path, data: bytes, digests: TableDigests | None = None) -> None:
    """Write a whole table (atomically) and tell the digests."""
    _write(path, data)
    if digests is not None:
        digests.written(path.name, data)


# ------------------------------------------------------------------------------ rows

# ------------------------------------------------------------------------------ the run

def _run_dir(config_path: Path, config_name: str, out: str | Path | None) -> Path:
    if out is not None:
        return Path(out)
    here = config_path.parent
    if config_path.name == CONFIG and (here / CHECKPOINT).exists():
        return here  # resuming from the run directory's own config
    return Path("runs") / config_name


class _LogFile(logging.FileHandler):
    """run.log, appended to without following a symbolic link (`open_own`)."""

    def _open(self):
        return open_own(self.baseFilename, self.mode, encoding=self.encoding,
                        errors=self.errors)


def _logger(run_dir: Path) -> logging.Logger:
    log = logging.getLogger(f"playstyles.qd.{run_dir.resolve()}")
    log.setLevel(logging.INFO)
    log.propagate = False
    for h in list(log.handlers):
        log.removeHandler(h)
        h.close()
    h = _LogFile(run_dir / LOG)
    h.handleError = lambda record: None  # a full disk must not also print tracebacks
    h.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(h)
    return log


EVOLVE = "evolve"
"""The command, as a run directory's marker names it (`playstyles.files`)."""


def _occupied(run_dir: Path) -> bool:
    """Whether `run_dir` holds a run (`OCCUPIED`)."""
    return any((run_dir / name).exists() for name in OCCUPIED)


def _prepare(config_path: str | Path, out, resume: bool
             ) -> tuple[RunConfig, Path, tuple[list[Any], int | None] | None]:
    """Validate the config and the run directory; when resuming, read the checkpoint and
    return its batches' lines and the line where it stopped early (for `told_batches`)."""
    config_path = Path(config_path)
    raw = read_yaml(config_path)
    name = raw.get("name") if isinstance(raw, dict) else None
    run_dir = _run_dir(config_path, name if isinstance(name, str) and name else
                       config_path.stem, out)
    occupied = _occupied(run_dir)
    if occupied and not resume:
        raise RunError(f"{run_dir} already holds a run; continue it with --resume, or give "
                       f"another directory with --out")
    if resume and not occupied:
        raise RunError(f"{run_dir}: nothing to resume (no {' or '.join(OCCUPIED)})")
    if not occupied:  # a folder of other files is no place for a run
        try:
            check_folder(run_dir, command=EVOLVE)
        except ValueError as e:
            raise RunError(f"{e} with --out") from None
    else:  # a run file that is a link: refused before anything is written
        for name in OWN_FILES:
            try:
                refuse_link(run_dir / name)
            except ValueError as e:
                raise RunError(str(e)) from None
    kept = previous = None
    if resume:
        try:
            header, entries, stopped = read_checkpoint(run_dir)
        except CheckpointError as e:
            raise RunError(str(e)) from None
        previous, kept = header["config"], (entries, stopped)
        problem = config_problem(run_dir, previous)  # the run's own copy, read by later steps
        if problem is not None:
            raise RunError(problem)
    config = load_config(config_path, seed=previous.get("seed") if previous else None)
    if previous is not None:
        if isinstance(raw, dict) and "noise" not in raw:
            # a config that names no noise method resumes with the one its run started with
            config.noise = noise_params(previous.get("noise", {"method": PLAIN}))
        now = config.to_dict()
        # how the run is validated does not change the run
        diff = config_diff({k: v for k, v in previous.items() if k not in RESUMED_KEYS},
                           {k: v for k, v in now.items() if k not in RESUMED_KEYS})
        if diff:
            raise RunError(f"{run_dir} holds a run of a different config (differs in: "
                           f"{', '.join(diff)}); resume with the config it was started with "
                           f"({run_dir / CONFIG})")
    return config, run_dir, kept


def _trial_game(config: RunConfig) -> None:
    """One game of the control genome against the opponent, in this process, before anything
    is written: a plug-in that raises stops the run here (`PluginFailed`, its own frames), not
    on a worker after the run directory was started."""
    plan = config.plan()
    spec = plan.games(plan.control(), 0)[0]
    try:
        run_game(spec)
    except Exception as e:  # noqa: BLE001 - the plug-in's error, named as such
        raise PluginFailed.of(config.game, e) from None


def evolve(config_path: str | Path, out: str | Path | None = None, address: str | None = None,
           resume: bool = False, workers: int | None = None, *, show_progress: bool = True,
           max_batches: int | None = None) -> RunResult:
    """Run (or, with `resume`, continue) the evolution described by a YAML config.

    Args:
        config_path: the YAML run config (or a run directory's own config.yaml).
        out: the run directory (default runs/<name>).
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        resume: continue the run in `out` from its last checkpoint.
        workers: CPUs of the local Ray (default: all); 0 plays in-process without Ray.
        show_progress: a progress bar on the terminal.
        max_batches: stop after that many batches (the run can be resumed).

    Raises:
        RunInterrupted: on Ctrl-C (KeyboardInterrupt), once the finished games are in
            partial.jsonl and Ray is shut down; the message says how many batches completed.
        RunError: the run cannot start or continue (the message says why and what to do).
    """
    config, run_dir, kept = _prepare(config_path, out, resume)
    cluster = address or os.environ.get("RAY_ADDRESS")
    check_playable([config.game], address, workers)  # (a game the workers cannot play)
    if cluster and workers != 0:  # a cluster that does not answer: nothing is written
        check_address(cluster)
    _trial_game(config)
    claim_folder(run_dir, command=EVOLVE, resume=resume, ours=_occupied)
    checkpoint = CheckpointLog(run_dir / CHECKPOINT)
    digests = TableDigests(run_dir)
    notes: list[str] = []
    try:
        if kept is None:
            evo = Evolution(config)
            state = evo.state
            with _writing(checkpoint.path):
                checkpoint.start(config.to_dict())
            for name in CHECKED_TABLES:
                digests.load(name)
        else:
            told, stopped = told_batches(kept[0], len(config.genome_names), kept[1])
            try:
                evo, individuals = Evolution.replay(config, told)
            except ReplayMismatch as e:
                raise RunError(f"{run_dir / CHECKPOINT}: {e}") from None
            state = evo.state
            if stopped is not None:
                notes.append(f"{run_dir / CHECKPOINT}: line {stopped} is torn or damaged; the "
                             f"run continues after batch {state.batch - 1} (the batches after "
                             f"it are played again)" if told else
                             f"{run_dir / CHECKPOINT}: line {stopped} is torn or damaged; the "
                             f"run starts again from its first batch")
            notes += _restore_tables(run_dir, state, told, individuals, digests)
            with _writing(checkpoint.path):
                checkpoint.start(config.to_dict(), told)
        if not (run_dir / CONFIG).exists():
            _write(run_dir / CONFIG, dump_config(config))
    except _WriteFailed as e:
        checkpoint.close()
        raise RunError(f"cannot write {e}; nothing was played; free space and start again"
                       f"{' with --resume' if resume else ''}") from None
    saved = state.batch
    log = _logger(run_dir)
    log.info("%s %s: %d of %d evaluations done, %d batches", "resumed" if resume else "started",
             config.name, state.evaluations, config.evaluations, state.batch)
    for note in notes:
        log.info("%s", note)

    try:
        with ray_session():  # Ray is shut down before any exception leaves the block
            result = _loop(evo, run_dir, address, workers, show_progress, max_batches, log,
                           checkpoint, digests)
    except KeyboardInterrupt:  # while Ray was starting, before the loop
        log.info("interrupted before batch %d", saved)
        raise _interrupted(run_dir, saved, evo.state, config) from None
    finally:
        checkpoint.close()
        for h in list(log.handlers):
            log.removeHandler(h)
            h.close()
    result.notes = notes
    if result.complete and config.validation is not None:
        result.validation = _validate_elites(config, run_dir, address, workers, show_progress)
    return result


def _restore_tables(run_dir: Path, state: RunState, told: Sequence[Told],
                    individuals: Sequence[pd.DataFrame], digests: TableDigests) -> list[str]:
    """Bring the tables to what the checkpoint recorded: rows of a batch that was never
    checkpointed are cut off, a damaged or missing table is rebuilt from the checkpoint's
    batches, and elites.csv is written from the archive. Returns a note per rebuilt table."""
    recorded = told[-1].files if told else {}
    players = state.archive.players
    frames = {GAMES: lambda t, k: pd.DataFrame(t.games),
              INDIVIDUALS: lambda t, k: individuals[k],
              METRICS: lambda t, k: pd.DataFrame([t.metrics], columns=METRIC_COLUMNS)}
    notes = []
    for name, frame_of in frames.items():
        path = run_dir / name
        want = recorded.get(name)
        problem = table_problem(run_dir, name, want) if isinstance(want, dict) else None
        if problem is None and isinstance(want, dict):
            with _writing(path):
                with open_own(path, "r+b") as fh:  # rows written after the last checkpoint
                    fh.truncate(want["bytes"])
            digests.load(name, want["bytes"])
            continue
        with _writing(path):
            path.unlink(missing_ok=True)
        digests.load(name)
        for k, t in enumerate(told):
            _append_csv(path, frame_of(t, k), fill_zero=event_count_prefixes(players)
                        if name == GAMES else (), digests=digests)
        if problem is not None:
            again = table_problem(run_dir, name, want)
            notes.append(f"{problem}; rebuilt from the checkpoint"
                         f"{'' if again is None else ' (its rows differ from those recorded)'}")
    _write_table(run_dir / ELITES, state.archive.frame().to_csv(index=False).encode(), digests)
    return notes


def _validate_elites(config: RunConfig, run_dir: Path, address, workers,
                     show_progress: bool) -> dict[str, Any]:
    """The config's `validate` step once evolution has finished: every elite replayed on the
    held-out levels beside the control (`qd.validation.validate`). A validation already
    written with the same settings is kept, and so is one written by `playstyles validate`
    (evolve does not overwrite what it did not write); an interrupted one continues from its
    journal (`evolve --resume`)."""
    v = config.validation
    run = RunFiles(run_dir)
    old = run.validation_summary if run.has(VALIDATION_SUMMARY) else None
    if old and old.get("distinct_styles") is not None and \
            ("settings" not in old or (old["settings"] == v
                                       and old.get("version") == SUMMARY_VERSION)):
        return old
    summary = validate(run_dir, levels=v["levels"], games=v["games"], workers=workers,
                       address=address, show_progress=show_progress, control=v["control"],
                       null=v["null_baseline"], delta=v["delta"], margin=v["margin"],
                       resume=(run_dir / VALIDATION_JOURNAL).exists()).summary
    summary["settings"] = dict(v)
    atomic_write(run_dir / VALIDATION_SUMMARY, json.dumps(summary, indent=2) + "\n")
    return summary


def _loop(evo: Evolution, run_dir: Path, address, workers, show_progress: bool,
          max_batches: int | None, log: logging.Logger, checkpoint: CheckpointLog,
          digests: TableDigests) -> RunResult:
    """Play the batches the evolution asks, tell it their games, and write the run
    directory's tables and checkpoint after each."""
    config, state, lag = evo.config, evo.state, evo.lag
    plan = config.plan()
    gpi = plan.games_per_individual
    busy_run = not evo.finished
    n_workers = worker_count(address, workers, [config.game]) if busy_run else 1
    alive = (n_workers, 1) if workers == 0 and not address else cluster_size()
    log.info("%d CPUs on %d node(s) play games; %d games per genome; pipeline lag %d (batches "
             "in flight)", n_workers, alive[1], gpi, lag)
    bar = None
    if show_progress:
        from tqdm import tqdm
        total = config.evaluations * gpi if config.max_games is None else config.max_games
        bar = tqdm(total=total, initial=min(state.games, total),
                   unit="game", desc=config.name, dynamic_ncols=True)
        _postfix(bar, state)
    games = BatchGames(address, workers, [config.game]) if busy_run else None
    partial = PartialLog(run_dir / PARTIAL)
    carried = read_partial(partial.path, state.batch)  # games finished before a restart
    batches = 0
    saved = state.batch
    current = state.batch  # the batch being waited for, told or written
    t_mark = time.perf_counter()
    busy = waited = 0.0  # game seconds finished, seconds blocked on games, since t_mark

    def start(bs: Sequence[InFlight]) -> None:
        for b in bs:
            if b.index not in games.batches:
                specs = [s for k, g in enumerate(b.genomes) for s in plan.games(g, b.first + k)]
                specs += [s for cid, r, g in b.replays for s in plan.games(g, cid, replay=r)]
                pb = games.start(b.index, specs,
                                 partial_records(carried.pop(b.index, {}), specs))
                if bar is not None and pb.timing.reused:
                    bar.update(pb.timing.reused)

    try:
        if games is not None:
            with _writing(partial.path):  # a clean file (no torn entry, nothing told)
                partial.rewrite_games(carried)
            evo.ask()
            _grow(bar, state, config)
        while state.in_flight:
            if max_batches is not None and batches >= max_batches:
                break
            start(state.in_flight)
            front = state.in_flight[0]
            current = front.index
            pb = games.batches[front.index]
            while not pb.complete:
                t0 = time.perf_counter()
                try:
                    got, i, rec = games.wait()
                except GameLost as e:
                    raise RunError(
                        f"game {e.index} of batch {e.key} was lost after {TASK_RETRIES} retries "
                        f"({type(e.cause).__name__}: {e.cause}); {saved} batches are complete "
                        f"and the finished games of the batches in flight are kept in "
                        f"{PARTIAL}; continue with --resume") from e
                waited += time.perf_counter() - t0
                busy += game_seconds(rec)
                with _writing(partial.path):
                    partial.game(got.index, i, rec)
                if bar is not None:
                    bar.update(1)
                if _after_game is not None:
                    _after_game(i, rec)
            records, timing = games.finish(front.index)
            rows = [genome_rows(state.archive, records[k * gpi:(k + 1) * gpi])
                    for k in range(len(front.genomes) + len(front.replays))]
            first = front.first
            evals, status = evo.tell(rows)
            batches += 1
            asked = evo.ask()
            _grow(bar, state, config)
            if max_batches is None or batches < max_batches:
                start(asked)  # the next batch's games start before the tables are written
            stats = state.archive.stats()
            games_rows = game_rows(front.index, gpi, records)
            _append_csv(run_dir / GAMES, pd.DataFrame(games_rows),
                        fill_zero=event_count_prefixes(state.archive.players), digests=digests)
            _append_csv(run_dir / INDIVIDUALS, evo.individual_rows(front, evals, status),
                        digests=digests)
            _write_table(run_dir / ELITES,
                         state.archive.frame().to_csv(index=False).encode(), digests)
            cpus, nodes = (n_workers, 1) if workers == 0 and not address else cluster_size()
            now = time.perf_counter()
            wall = now - t_mark
            state.elapsed += wall
            metrics = {
                "batch": front.index, "evaluations": state.evaluations, "games": state.games,
                **stats, "new_cells": int((status == 2).sum()),
                "improved": int((status == 1).sum()), "batch_size": len(evals),
                "workers": n_workers, "game_seconds": round(timing.game_seconds, 3),
                "play_seconds": round(timing.wall, 3),
                "driver_seconds": round(max(0.0, wall - waited), 4),
                "wall_seconds": round(wall, 3),
                "cpu_utilisation": round(busy / (wall * max(1, cpus)), 4) if wall > 0 else 0.0,
                "reused_games": timing.reused, "elapsed_seconds": round(state.elapsed, 2),
                "workers_alive": cpus, "nodes_alive": nodes, "retries": timing.retries,
                "replays": len(front.replays)}
            t_mark, busy, waited = now, 0.0, 0.0
            _append_csv(run_dir / METRICS, pd.DataFrame([metrics], columns=METRIC_COLUMNS),
                        digests=digests)
            with _writing(checkpoint.path):
                checkpoint.told(Told(front.index, first, front.genomes, front.replays, rows,
                                     state.elapsed, games_rows, metrics, digests.files()))
            saved = state.batch
            current = state.batch
            live = {k: b.done() for k, b in games.batches.items()}
            live.update(carried)
            n_live = sum(len(v) for v in live.values())
            if not state.in_flight:
                partial.remove()
            elif partial.entries - n_live > n_live:
                with _writing(partial.path):
                    partial.rewrite_games(live)
            log.info("batch %d: %d evaluations, %d games, %d cells (%d new), QD score %.2f, "
                     "best win rate %.2f, CPU use %.0f%%, %.1f s", front.index,
                     state.evaluations, state.games, stats["cells"], metrics["new_cells"],
                     stats["qd_score"], stats["best_win_rate"],
                     100 * metrics["cpu_utilisation"], wall)
            if timing.retries:
                log.info("batch %d: %d game attempts retried by Ray after a worker or node "
                         "died; no game lost", front.index, timing.retries)
            if (cpus, nodes) != alive:
                log.info("batch %d: the cluster now has %d CPUs on %d node(s) alive (was %d "
                         "on %d)", front.index, cpus, nodes, alive[0], alive[1])
                alive = (cpus, nodes)
            if bar is not None:
                _postfix(bar, state)
    except _WriteFailed as e:
        msg = (f"cannot write {e}; the run stopped in batch {current} and can be resumed "
               f"from its last checkpoint ({_done(saved)}): free space, then continue with "
               f"--resume")
        log.info("stopped in batch %d (%s): cannot write %s", current, _done(saved), e)
        raise RunError(msg) from None
    except KeyboardInterrupt:
        log.info("interrupted in batch %d (%s); the finished games of the batches in flight "
                 "are in %s", current, _done(saved), PARTIAL)
        raise _interrupted(run_dir, saved, state, config) from None
    except BaseException as e:
        log.info("stopped in batch %d (%s): %s: %s", current, _done(saved),
                 type(e).__name__, e)
        raise
    finally:
        if games is not None:
            games.cancel()
        partial.close()
        if bar is not None:
            bar.close()
    if not (run_dir / ELITES).exists():
        _write(run_dir / ELITES, state.archive.frame().to_csv(index=False))
    complete = evo.finished
    log.info("%s after %d batches, %d evaluations", "finished" if complete else "paused",
             state.batch, state.evaluations)
    return RunResult(run_dir, state.batch, state.evaluations, state.games, complete,
                     state.archive.stats())


def _interrupted(run_dir: Path, saved: int, state: RunState, config: RunConfig
                 ) -> RunInterrupted:
    evaluations = state.evaluations if saved == state.batch else None
    done = f", {evaluations} of {config.evaluations} evaluations" if evaluations is not None \
        else ""
    return RunInterrupted(f"{run_dir}: interrupted after {saved} completed batches{done}; "
                          f"continue with --resume", saved)


def _done(saved: int) -> str:
    return f"after batch {saved - 1}" if saved else "no batch complete"


def _grow(bar, state: RunState, config: RunConfig) -> None:
    """Count a closing batch's games in the progress bar's total once it is asked."""
    if bar is not None and bar.total is not None:
        asked = games_asked(state, config)
        if asked > bar.total:
            bar.total = asked
            bar.refresh()


def _postfix(bar, state: RunState) -> None:
    s = state.archive.stats()
    bar.set_postfix_str(f"evals {state.evaluations}, elites {s['cells']}, "
                        f"QD {s['qd_score']:.2f}, best {s['best_win_rate']:.2f}", refresh=True)
