"""The evolution run: config -> batches of genomes -> games on Ray -> archive -> run directory.

A batch is the unit of determinism and of checkpointing: the scheduler asks for a batch of
genomes, all their games are played at once (one Ray task per game), their features and
quality go into the archive in one `tell`, and the run's state is written atomically. The
state after batch k depends only on the config (seed included), never on the number of
workers, the order games finish, or whether the run was interrupted: a batch that was being
played when the driver died is asked for again (the emitters' generators are restored from the
checkpoint, so it is the same batch), and the games it had already finished are taken from
`partial.pkl` instead of being played again (a game is a pure function of its spec).

The run directory's files and columns are named in `qd.rundir` (its schema); the checkpoint
holds the scheduler, the archive, the emitter and archive generators and the counters.
"""

from __future__ import annotations

import logging
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
from ribs.schedulers import Scheduler

from agents.files import atomic_write
from agents.runner import GameRecord
from qd.archive import EliteArchive, Evaluation, evaluate_games
from qd.config import RunConfig, dump_config, load_config, read_yaml
from qd.emitters import make_emitter
from qd.features import PlayerGame, features_of
from qd.games import genome_side, play, worker_count
from qd.rundir import (
    BATCH_TABLES,
    CHECKPOINT,
    CONFIG,
    ELITES,
    GAME_SIDES,
    GAMES,
    GENOME_SCRIPTS,
    INDIVIDUALS,
    LOG,
    METRIC_COLUMNS,
    METRICS,
    OCCUPIED,
    PARTIAL,
    STATUS,
    event_count_prefixes,
    mean_column,
    measure_column,
    side_prefix,
    std_column,
)

CHECKPOINT_VERSION = 1

_after_game: Callable[[int, GameRecord], None] | None = None
"""Test hook: called after each new game of a batch is stored (e.g. to simulate a kill)."""


class RunError(RuntimeError):
    """A run that cannot start or continue (occupied directory, bad checkpoint, ...)."""


@dataclass
class RunState:
    """Everything needed to continue a run; pickled whole into the checkpoint."""

    version: int
    config: dict[str, Any]
    archive: EliteArchive
    scheduler: Scheduler
    batch: int = 0  # batches completed
    evaluations: int = 0
    games: int = 0
    elapsed: float = 0.0  # wall seconds spent in completed batches

    @property
    def emitter(self):
        return self.scheduler.emitters[0]


@dataclass
class RunResult:
    run_dir: Path
    batches: int
    evaluations: int
    games: int
    complete: bool
    stats: dict[str, float] = field(default_factory=dict)


def new_state(config: RunConfig) -> RunState:
    """A fresh run: empty archive and emitter, seeded from the run seed."""
    archive_seed, emitter_seed = (int(s) for s in
                                  np.random.SeedSequence(config.seed).generate_state(2))
    archive = EliteArchive(config.features, config.genome_names, seed=archive_seed,
                           stats=list(features_of(config.game).values()))
    e = dict(config.emitter)
    emitter = make_emitter(archive.grid, e.pop("kind"), seed=emitter_seed, **e)
    scheduler = Scheduler(archive.grid, [emitter], add_mode="batch")
    return RunState(CHECKPOINT_VERSION, config.to_dict(), archive, scheduler)


# ------------------------------------------------------------------------------ files


def _append_csv(path: Path, frame: pd.DataFrame, fill_zero: Sequence[str] = ()) -> None:
    """Append rows; if they bring new columns, rewrite the file with the union of columns
    (absent counts become 0)."""
    if frame.empty:
        return
    if not path.exists() or path.stat().st_size == 0:
        atomic_write(path, frame.to_csv(index=False))
        return
    header = pd.read_csv(path, nrows=0).columns.tolist()
    if set(frame.columns) <= set(header):
        frame = frame.reindex(columns=header)
        zero = [c for c in header if c in fill_zero or c.startswith(tuple(fill_zero))]
        frame[zero] = frame[zero].fillna(0)
        with open(path, "a") as fh:
            frame.to_csv(fh, index=False, header=False)
        return
    old = pd.read_csv(path)
    both = pd.concat([old, frame], ignore_index=True)
    zero = [c for c in both.columns if c.startswith(tuple(fill_zero))]
    both[zero] = both[zero].fillna(0)
    atomic_write(path, both.to_csv(index=False))


def _drop_batches(path: Path, first: int) -> None:
    """Remove rows of batches >= first (written before a checkpoint that never came)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    frame = pd.read_csv(path)
    if "batch" in frame and (frame["batch"] >= first).any():
        atomic_write(path, frame[frame["batch"] < first].to_csv(index=False))


def _load_checkpoint(path: Path) -> RunState:
    try:
        with open(path, "rb") as fh:
            state = pickle.load(fh)
    except Exception as e:  # noqa: BLE001 - any failure to read means the same thing
        raise RunError(f"{path}: the checkpoint is corrupt or unreadable ({type(e).__name__}: "
                       f"{e}); restore it, or start a new run in another directory") from None
    if not isinstance(state, RunState) or getattr(state, "version", None) != CHECKPOINT_VERSION:
        raise RunError(f"{path}: not a checkpoint of this version of playstyles "
                       f"(expected version {CHECKPOINT_VERSION})")
    return state


def _diff(a: Any, b: Any, prefix: str = "") -> list[str]:
    """Key paths where two resolved configs differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            out += _diff(a.get(k), b.get(k), f"{prefix}.{k}" if prefix else str(k))
        return out
    return [] if a == b else [prefix or "(config)"]


def _read_partial(path: Path, batch: int) -> dict[int, GameRecord]:
    """Games already finished in an interrupted attempt at `batch` (a torn last entry is
    ignored)."""
    done: dict[int, GameRecord] = {}
    if not path.exists():
        return done
    try:
        with open(path, "rb") as fh:
            header = pickle.load(fh)
            if not isinstance(header, dict) or header.get("batch") != batch:
                return {}
            while True:
                i, rec = pickle.load(fh)
                done[int(i)] = rec
    except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
        pass
    return done


# ------------------------------------------------------------------------------ rows

def _game_rows(batch: int, first_eval: int, gpi: int, records: Sequence[GameRecord]
               ) -> pd.DataFrame:
    rows = []
    for k, (rec, seat) in enumerate(genome_side(records)):
        spec = rec.spec
        me = side_prefix("genome")
        row: dict[str, Any] = {
            "batch": batch, "evaluation": first_eval + k // gpi, "game": k % gpi,
            "level": spec.level, "game_seed": spec.seed, f"{me}seat": seat,
            "rounds": rec.rounds, "winner": rec.winner, f"{me}won": int(rec.winner == seat),
            "seconds": round(rec.seconds, 4)}
        for who, p in zip(GAME_SIDES, (seat, 1 - seat)):
            row.update(rec.player_columns(p, side_prefix(who), digits=4))
        rows.append(row)
    return pd.DataFrame(rows)


def _individual_rows(batch: int, first_eval: int, names: Sequence[str],
                     evals: Sequence[Evaluation], status: np.ndarray, features) -> pd.DataFrame:
    rows = []
    for k, e in enumerate(evals):
        row: dict[str, Any] = {"batch": batch, "evaluation": first_eval + k,
                               "status": STATUS[int(status[k])]}
        row.update({n: float(v) for n, v in zip(names, e.genome)})
        row.update({"win_rate": e.win_rate, "wins": e.wins, "games": e.games,
                    "mean_score": e.mean_score})
        for f, m in zip(features, e.measures):
            row[measure_column(f.name)] = float(m)
        for n in e.feature_mean:
            row[mean_column(n)] = e.feature_mean[n]
            row[std_column(n)] = e.feature_std[n]
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ the run

def _run_dir(config_path: Path, config_name: str, out: str | Path | None) -> Path:
    if out is not None:
        return Path(out)
    here = config_path.parent
    if config_path.name == CONFIG and (here / CHECKPOINT).exists():
        return here  # resuming from the run directory's own config
    return Path("runs") / config_name


def _logger(run_dir: Path) -> logging.Logger:
    log = logging.getLogger(f"playstyles.qd.{run_dir.resolve()}")
    log.setLevel(logging.INFO)
    log.propagate = False
    for h in list(log.handlers):
        log.removeHandler(h)
        h.close()
    h = logging.FileHandler(run_dir / LOG)
    h.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(h)
    return log


def _prepare(config_path: str | Path, out, resume: bool) -> tuple[RunConfig, Path, RunState | None]:
    """Validate the config and the run directory; load the checkpoint when resuming."""
    config_path = Path(config_path)
    raw = read_yaml(config_path)
    name = raw.get("name") if isinstance(raw, dict) else None
    run_dir = _run_dir(config_path, name if isinstance(name, str) and name else
                       config_path.stem, out)
    ckpt = run_dir / CHECKPOINT
    cfg_file = run_dir / CONFIG
    occupied = any((run_dir / name).exists() for name in OCCUPIED)
    if occupied and not resume:
        raise RunError(f"{run_dir} already holds a run; continue it with --resume, or give "
                       f"another directory with --out")
    if resume and not occupied:
        raise RunError(f"{run_dir}: nothing to resume (no {' or '.join(OCCUPIED)})")
    state = _load_checkpoint(ckpt) if resume and ckpt.exists() else None
    previous = state.config if state is not None else (
        read_yaml(cfg_file) if resume else None)
    seed = previous.get("seed") if isinstance(previous, dict) else None
    config = load_config(config_path, seed=seed)
    if previous is not None:
        now = config.to_dict()
        if isinstance(previous, dict) and "genome" in previous and "layout" not in previous:
            # a run written before `genome` was renamed to `layout`
            previous = {("layout" if k == "genome" else k): v for k, v in previous.items()}
        if isinstance(previous, dict) and GENOME_SCRIPTS not in previous:
            now.pop(GENOME_SCRIPTS)  # a run written before config.yaml recorded the scripts
        diff = _diff(previous, now)
        if diff:
            raise RunError(f"{run_dir} holds a run of a different config (differs in: "
                           f"{', '.join(diff)}); resume with the config it was started with "
                           f"({cfg_file})")
    return config, run_dir, state


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
    """
    config, run_dir, state = _prepare(config_path, out, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    if state is None:
        state = new_state(config)
    if not (run_dir / CONFIG).exists():
        atomic_write(run_dir / CONFIG, dump_config(config))
    for name in BATCH_TABLES:
        _drop_batches(run_dir / name, state.batch)
    log = _logger(run_dir)
    log.info("%s %s: %d of %d evaluations done, %d batches", "resumed" if resume else "started",
             config.name, state.evaluations, config.evaluations, state.batch)

    from agents.parallel import ray_session
    try:
        with ray_session():
            return _loop(config, run_dir, state, address, workers, show_progress, max_batches, log)
    finally:
        for h in list(log.handlers):
            log.removeHandler(h)
            h.close()



def _loop(config: RunConfig, run_dir: Path, state: RunState, address, workers,
          show_progress: bool, max_batches: int | None, log: logging.Logger) -> RunResult:
    plan = config.plan()
    gpi = plan.games_per_individual
    n_workers = worker_count(address, workers) if state.evaluations < config.evaluations else 1
    log.info("%d CPUs play games; %d games per genome", n_workers, gpi)
    bar = None
    if show_progress:
        from tqdm import tqdm
        bar = tqdm(total=config.evaluations * gpi, initial=state.evaluations * gpi,
                   unit="game", desc=config.name, dynamic_ncols=True)
        _postfix(bar, state)
    partial = run_dir / PARTIAL
    batches = 0
    try:
        while state.evaluations < config.evaluations:
            if max_batches is not None and batches >= max_batches:
                break
            t_batch = time.perf_counter()
            state.emitter.limit = config.evaluations - state.evaluations
            genomes = state.scheduler.ask()
            first = state.evaluations
            specs = [s for k, g in enumerate(genomes) for s in plan.games(g, first + k)]
            done = _read_partial(partial, state.batch)
            if not done:
                with open(partial, "wb") as fh:
                    pickle.dump({"batch": state.batch, "evaluation": first}, fh)
            with open(partial, "ab") as fh:
                def stored(i: int, rec: GameRecord) -> None:
                    pickle.dump((i, rec), fh)
                    fh.flush()
                    if bar is not None:
                        bar.update(1)
                    if _after_game is not None:
                        _after_game(i, rec)
                if bar is not None and done:
                    bar.update(len(done))
                records, timing = play(specs, done, address=address, workers=workers,
                                       on_result=stored)
            t_driver = time.perf_counter()
            evals = []
            for k, g in enumerate(genomes):
                games = [PlayerGame.from_record(rec, seat)
                         for rec, seat in genome_side(records[k * gpi:(k + 1) * gpi])]
                evals.append(evaluate_games(g, games, state.archive.features,
                                            state.archive.stats_features))
            fields = state.archive.fields(evals, state.batch, first)
            objective = np.array([e.objective for e in evals])
            measures = np.stack([e.measures for e in evals])
            state.scheduler.tell(objective, measures, **fields)
            status = np.asarray(state.emitter.last_add_info["status"])
            state.evaluations += len(evals)
            state.games += len(records)
            stats = state.archive.stats()
            _append_csv(run_dir / GAMES, _game_rows(state.batch, first, gpi, records),
                        fill_zero=event_count_prefixes())
            _append_csv(run_dir / INDIVIDUALS,
                        _individual_rows(state.batch, first, config.genome_names, evals,
                                         status, config.features))
            atomic_write(run_dir / ELITES, state.archive.frame().to_csv(index=False))
            wall = time.perf_counter() - t_batch
            state.elapsed += wall
            driver = time.perf_counter() - t_driver
            metrics = {
                "batch": state.batch, "evaluations": state.evaluations, "games": state.games,
                **stats, "new_cells": int((status == 2).sum()),
                "improved": int((status == 1).sum()), "batch_size": len(evals),
                "workers": n_workers, "game_seconds": round(timing.game_seconds, 3),
                "play_seconds": round(timing.wall, 3), "driver_seconds": round(driver, 4),
                "wall_seconds": round(wall, 3),
                "cpu_utilisation": round(timing.game_seconds / (wall * n_workers), 4)
                if wall > 0 else 0.0,
                "reused_games": timing.reused, "elapsed_seconds": round(state.elapsed, 2)}
            state.batch += 1
            _append_csv(run_dir / METRICS, pd.DataFrame([metrics], columns=METRIC_COLUMNS))
            atomic_write(run_dir / CHECKPOINT, pickle.dumps(state, protocol=5))
            partial.unlink(missing_ok=True)
            batches += 1
            log.info("batch %d: %d evaluations, %d games, %d cells (%d new), QD score %.2f, "
                     "best win rate %.2f, CPU use %.0f%%, %.1f s", metrics["batch"],
                     state.evaluations, state.games, stats["cells"], metrics["new_cells"],
                     stats["qd_score"], stats["best_win_rate"],
                     100 * metrics["cpu_utilisation"], wall)
            if bar is not None:
                _postfix(bar, state)
    except BaseException as e:
        log.info("stopped in batch %d: %s: %s", state.batch, type(e).__name__, e)
        raise
    finally:
        if bar is not None:
            bar.close()
    if not (run_dir / ELITES).exists():
        atomic_write(run_dir / ELITES, state.archive.frame().to_csv(index=False))
    complete = state.evaluations >= config.evaluations
    log.info("%s after %d batches, %d evaluations", "finished" if complete else "paused",
             state.batch, state.evaluations)
    return RunResult(run_dir, state.batch, state.evaluations, state.games, complete,
                     state.archive.stats())



def _postfix(bar, state: RunState) -> None:
    s = state.archive.stats()
    bar.set_postfix_str(f"evals {state.evaluations}, elites {s['cells']}, "
                        f"QD {s['qd_score']:.2f}, best {s['best_win_rate']:.2f}", refresh=True)
