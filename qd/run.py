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

The run is three pieces and a loop that connects them: the evolution (`qd.evolution`, pure
ask/tell), the batches in flight (`qd.batches.BatchesInFlight`: their games on Ray and
partial.jsonl) and the recorder (`qd.recorder.Recorder`: the tables, the metrics, the
checkpoint and run.log). Progress reaches the caller through callbacks (`progress`,
`on_game`, `on_batch`); the command line draws the bar.

The run directory's files and columns are named in `qd.rundir` (its schema). The checkpoint
(`qd.checkpoint`) is data: what every batch asked and was told. The state after batch k is a
pure function of the config and of those batches, so `replay` rebuilds it (and the tables)
from a fresh state; no object is ever unpickled.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from base.files import atomic_write, check_folder, claim_folder, refuse_link
from base.progress import Progress
from play.game_pool import TASK_RETRIES, GameLost, PluginFailed
from play.journal import Interrupted
from play.ray_session import check_address, check_playable, cluster_size, ray_session
from play.runner import GameRecord, run_game
from qd.batches import BatchesInFlight
from qd.checkpoint import CheckpointError, read_checkpoint, told_batches
from qd.config import RunConfig, load_config, read_yaml
from qd.evolution import Evolution, ReplayMismatch, RunState, games_asked
from qd.noise import PLAIN, noise_params
from qd.recorder import Recorder, WriteFailed
from qd.rundir import (
    CHECKPOINT,
    CONFIG,
    OCCUPIED,
    OWN_FILES,
    PARTIAL,
    RESUMED_KEYS,
    VALIDATION_JOURNAL,
    VALIDATION_SUMMARY,
    RunFiles,
    config_diff,
    config_problem,
)
from qd.validation import SUMMARY_VERSION, validate

OnGame = Callable[[int, GameRecord], None]
"""on_game(index in its batch, record): a game the run played (not one it reused)."""
OnBatch = Callable[[dict[str, Any]], None]
"""on_batch(metrics): a batch was recorded (its row of metrics.csv)."""


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


# ------------------------------------------------------------------------------ the run

def _run_dir(config_path: Path, config_name: str, out: str | Path | None) -> Path:
    if out is not None:
        return Path(out)
    here = config_path.parent
    if config_path.name == CONFIG and (here / CHECKPOINT).exists():
        return here  # resuming from the run directory's own config
    return Path("runs") / config_name


EVOLVE = "evolve"
"""The command, as a run directory's marker names it (`base.files`)."""


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
           resume: bool = False, workers: int | None = None, *, max_batches: int | None = None,
           progress: Progress | None = None, on_game: OnGame | None = None,
           on_batch: OnBatch | None = None) -> RunResult:
    """Run (or, with `resume`, continue) the evolution described by a YAML config.

    Args:
        config_path: the YAML run config (or a run directory's own config.yaml).
        out: the run directory (default runs/<name>).
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        resume: continue the run in `out` from its last checkpoint.
        workers: CPUs of the local Ray (default: all); 0 plays in-process without Ray.
        max_batches: stop after that many batches (the run can be resumed).
        progress: told the games done out of the games the run plays (step: the run's name),
            then the validation's (`base.progress`; the CLI draws bars from it).
        on_game: called with each game the run plays (`OnGame`), once it is kept.
        on_batch: called with each batch's metrics once the batch is recorded (`OnBatch`).

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
    recorder = Recorder(run_dir)
    try:
        evo, notes = _begin(config, kept, recorder)
    except WriteFailed as e:
        recorder.close()
        raise RunError(f"cannot write {e}; nothing was played; free space and start again"
                       f"{' with --resume' if resume else ''}") from None
    recorder.open_log()
    recorder.info("%s %s: %d of %d evaluations done, %d batches",
                  "resumed" if resume else "started", config.name, evo.state.evaluations,
                  config.evaluations, evo.state.batch)
    for note in notes:
        recorder.info("%s", note)
    calls = _Callbacks(config.name, progress, on_game, on_batch)
    try:
        with ray_session():  # Ray is shut down before any exception leaves the block
            result = _loop(evo, recorder, address, workers, max_batches, calls)
    except KeyboardInterrupt:  # while Ray was starting, before the loop
        recorder.info("interrupted before batch %d", recorder.saved)
        raise _interrupted(run_dir, recorder.saved, evo.state, config) from None
    finally:
        recorder.close()
    result.notes = notes
    if result.complete and config.validation is not None:
        result.validation = _validate_elites(config, run_dir, address, workers, progress)
    return result


def _begin(config: RunConfig, kept: tuple[list[Any], int | None] | None, recorder: Recorder
           ) -> tuple[Evolution, list[str]]:
    """The evolution to continue, and the run directory ready for it: a fresh one, or the
    one the checkpoint's batches give (`Evolution.replay`) with the tables brought to what
    the checkpoint recorded; notes on what resuming repaired.

    Args:
        config: the run's config.
        kept: the checkpoint's batches' lines and the line where it stopped early (None: a
            fresh run).
        recorder: the run directory's recorder.
    """
    if kept is None:
        recorder.begin(config)
        return Evolution(config), []
    path = recorder.run_dir / CHECKPOINT
    told, stopped = told_batches(kept[0], len(config.genome_names), kept[1])
    try:
        evo, outcomes = Evolution.replay(config, told)
    except ReplayMismatch as e:
        raise RunError(f"{path}: {e}") from None
    notes = []
    if stopped is not None:
        notes.append(f"{path}: line {stopped} is torn or damaged; the run continues after "
                     f"batch {evo.state.batch - 1} (the batches after it are played again)"
                     if told else f"{path}: line {stopped} is torn or damaged; the run "
                     f"starts again from its first batch")
    notes += recorder.restore(evo, told, outcomes)
    return evo, notes


def _validate_elites(config: RunConfig, run_dir: Path, address, workers,
                     progress: Progress | None) -> dict[str, Any]:
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
                       address=address, progress=progress, control=v["control"],
                       null=v["null_baseline"], delta=v["delta"], margin=v["margin"],
                       resume=(run_dir / VALIDATION_JOURNAL).exists()).summary
    summary["settings"] = dict(v)
    atomic_write(run_dir / VALIDATION_SUMMARY, json.dumps(summary, indent=2) + "\n")
    return summary


@dataclass
class _Callbacks:
    """The run's callbacks, and the games `progress` was told: done (reused ones included)
    out of the games the run plays (which grows when a closing batch is asked)."""

    step: str
    progress: Progress | None
    on_game: OnGame | None
    on_batch: OnBatch | None
    done: int = 0
    total: int = 0

    def count(self, games: int = 0, total: int = 0) -> None:
        """`games` more are done; the run plays at least `total`."""
        grew = total > self.total
        self.done += games
        self.total = max(self.total, total)
        if self.progress is not None and (games or grew):
            self.progress(self.step, self.done, self.total)

    def game(self, index: int, record: GameRecord) -> None:
        """A game was played and kept."""
        self.count(1)
        if self.on_game is not None:
            self.on_game(index, record)

    def batch(self, metrics: dict[str, Any]) -> None:
        """A batch was recorded."""
        if self.on_batch is not None:
            self.on_batch(metrics)


def _loop(evo: Evolution, recorder: Recorder, address: str | None, workers: int | None,
          max_batches: int | None, calls: _Callbacks) -> RunResult:
    """Play the batches the evolution asks (`BatchesInFlight`), tell it their games, and
    record each (`Recorder`); the batch being played or recorded is the first one not
    checkpointed (`Recorder.saved`)."""
    config, state = evo.config, evo.state
    games = None if evo.finished else BatchesInFlight(
        config.plan(), recorder.run_dir / PARTIAL, state.batch, address, workers,
        [config.game])
    n_workers = games.workers if games is not None else 1
    alive = (n_workers, 1) if workers == 0 and not address else cluster_size()
    recorder.info("%d CPUs on %d node(s) play games; %d games per genome; pipeline lag %d "
                  "(batches in flight)", n_workers, alive[1],
                  config.plan().games_per_individual, evo.lag)
    total = config.evaluations * config.plan().games_per_individual \
        if config.max_games is None else config.max_games
    calls.count(min(state.games, total), total)
    recorder.start_clock(n_workers, alive)
    try:
        if games is not None:
            games.open()
            _play(evo, recorder, games, max_batches, calls)
    except WriteFailed as e:
        saved = recorder.saved
        recorder.info("stopped in batch %d (%s): cannot write %s", saved, _done(saved), e)
        raise RunError(f"cannot write {e}; the run stopped in batch {saved} and can be "
                       f"resumed from its last checkpoint ({_done(saved)}): free space, then "
                       f"continue with --resume") from None
    except KeyboardInterrupt:
        recorder.info("interrupted in batch %d (%s); the finished games of the batches in "
                      "flight are in %s", recorder.saved, _done(recorder.saved), PARTIAL)
        raise _interrupted(recorder.run_dir, recorder.saved, state, config) from None
    except BaseException as e:
        recorder.info("stopped in batch %d (%s): %s: %s", recorder.saved,
                      _done(recorder.saved), type(e).__name__, e)
        raise
    finally:
        if games is not None:
            games.close()
    recorder.finish(evo)
    return RunResult(recorder.run_dir, state.batch, state.evaluations, state.games,
                     evo.finished, state.archive.stats())


def _play(evo: Evolution, recorder: Recorder, games: BatchesInFlight,
          max_batches: int | None, calls: _Callbacks) -> None:
    """The batches, one after the other: the front batch's games are waited for, the
    evolution is told them and asks the next batch (whose games start before the tables are
    written), and the recorder records the batch."""
    state = evo.state
    evo.ask()
    calls.count(total=games_asked(state, evo.config))
    batches = 0
    while state.in_flight and (max_batches is None or batches < max_batches):
        calls.count(games.start(state.in_flight))
        front = state.in_flight[0].index
        while not games.complete(front):
            try:
                i, rec = games.next()
            except GameLost as e:
                raise RunError(
                    f"game {e.index} of batch {e.key} was lost after {TASK_RETRIES} retries "
                    f"({type(e.cause).__name__}: {e.cause}); {recorder.saved} batches are "
                    f"complete and the finished games of the batches in flight are kept in "
                    f"{PARTIAL}; continue with --resume") from e
            calls.game(i, rec)
        records, timing = games.finish(front)
        outcome = evo.tell_games(records)
        batches += 1
        asked = evo.ask()
        calls.count(total=games_asked(state, evo.config))
        if max_batches is None or batches < max_batches:
            calls.count(games.start(asked))
        metrics = recorder.record(evo, outcome, records, timing, games.alive(), games.spent())
        games.told(bool(state.in_flight))
        calls.batch(metrics)


def _interrupted(run_dir: Path, saved: int, state: RunState, config: RunConfig
                 ) -> RunInterrupted:
    evaluations = state.evaluations if saved == state.batch else None
    done = f", {evaluations} of {config.evaluations} evaluations" if evaluations is not None \
        else ""
    return RunInterrupted(f"{run_dir}: interrupted after {saved} completed batches{done}; "
                          f"continue with --resume", saved)


def _done(saved: int) -> str:
    return f"after batch {saved - 1}" if saved else "no batch complete"
