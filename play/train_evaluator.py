"""Training a learned evaluator: self-play positions in, a versioned model file out.

`playstyles train-evaluator CONFIG` reads a YAML config (`load_train_config`), plays the
self-play games (`play.selfplay`), splits them by level into training and held-out games
(every game of a level lands on one side, so no position of a held-out game, nor of its
level, is seen in training), fits a fully connected network with scikit-learn's
`MLPClassifier` (Adam, log loss, the viewer's win as the positive class) and writes the model
file of `agents.learned` with the held-out accuracy overall, by game phase (round buckets)
and by whether the viewer is to move, next to the accuracy of a baseline that predicts the
current score leader wins; every interval is a percentile bootstrap over the held-out games
(`INTERVAL`), since positions of one game are not independent.

Config keys: those of a tournament config for the games (`game`, `agents`, `pairings`,
`levels`, `repetitions`, `options`, `budget`, `seed`; pairings default to every agent against
itself) and `encoding`, `views`, `hidden`, `activation`, `epochs`, `learning_rate`,
`batch_size`, `l2`, `held_out`, `output` (see `TrainConfig`).
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.encodings import get_encoding
from agents.learned import ACTIVATIONS, Model
from base.files import read_yaml, save_npz
from base.limits import (
    MAX_BATCH,
    MAX_EPOCHS,
    MAX_LAYER_SIZE,
    MAX_LAYERS,
    MAX_SEED,
    short,
)
from base.progress import Progress
from base.schema import (
    OMIT,
    Field,
    check_text,
    count,
    errors_in,
    field_error,
    number,
    one_of,
    read_section,
)
from base.stats import cluster_bootstrap, wilson_interval
from base.version import __version__
from games.levels import split
from play.selfplay import VIEWS, Samples, generate_samples, plan_fingerprint
from play.tournament import (
    CONFIG_FIELDS,
    TournamentConfig,
    level_seeds,
    parse_agent,
    plan,
    read_config,
)

PHASES = ((0, 9), (10, 19), (20, 29), (30, 39), (40, None))
"""Round buckets of the accuracy by game phase (both ends included; None: no end)."""

@dataclass
class TrainConfig:
    """What to play and how to train.

    Args:
        games: the self-play games, as a tournament (agents, pairings, levels, repetitions
            with alternating seats, options, budget, seed).
        encoding: the game's encoding (None: its default).
        views: "all" (every player's view of each turn start) or "mover" (the player to move
            only, as Prismata).
        hidden: hidden layer sizes (Prismata: 512, 512).
        activation: of the hidden layers: relu, tanh, logistic or identity.
        epochs: at most this many passes over the training positions (Adam stops earlier when
            the training loss stops improving for 10 passes).
        learning_rate: Adam's initial step size.
        batch_size: positions per Adam step.
        l2: the L2 penalty on the weights.
        held_out: the share (a float in (0, 1)) or the number (an int) of levels whose games
            are held out for the accuracy.
        output: the model file to write.
        data: the config as given (kept in the model file).
    """

    games: TournamentConfig
    encoding: str | None = None
    views: str = "all"
    hidden: tuple[int, ...] = (512, 512)
    activation: str = "relu"
    epochs: int = 200
    learning_rate: float = 1e-3
    batch_size: int = 256
    l2: float = 1e-4
    held_out: float | int = 0.2
    output: str = "learned.npz"
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return self.games.seed


def _hidden(value: Any, field: str) -> tuple[int, ...]:
    """Hidden layer sizes: a list (or one size) of 1 to `MAX_LAYERS` layers."""
    hidden = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if not (isinstance(hidden, list) and 1 <= len(hidden) <= MAX_LAYERS
            and all(isinstance(h, int) and not isinstance(h, bool)
                    and 1 <= h <= MAX_LAYER_SIZE for h in hidden)):
        raise field_error(field, f"a list of layer sizes (1 to {MAX_LAYERS} layers of 1 to "
                                 f"{MAX_LAYER_SIZE}) expected, got {short(value)}")
    return tuple(hidden)


def _held_out(value: Any, field: str) -> float | int:
    """The share (a float in (0, 1)) or the number (an int) of levels held out."""
    if (isinstance(value, float) and 0 < value < 1) or \
            (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_SEED):
        return value
    raise field_error(field, f"a share in (0, 1) or a number of levels >= 1 expected, got "
                             f"{short(value)}")


TRAIN_FIELDS = (
    Field("encoding"), Field("views", one_of(VIEWS), TrainConfig.views),
    Field("hidden", _hidden, TrainConfig.hidden),
    Field("activation", one_of(ACTIVATIONS), TrainConfig.activation),
    Field("epochs", count(1, MAX_EPOCHS), TrainConfig.epochs),
    Field("learning_rate", number(positive=True), TrainConfig.learning_rate),
    Field("batch_size", count(1, MAX_BATCH), TrainConfig.batch_size),
    Field("l2", number(lo=0), TrainConfig.l2), Field("held_out", _held_out, TrainConfig.held_out),
    Field("output", check_text, TrainConfig.output))
"""The training's keys (the defaults are `TrainConfig`'s)."""
GAME_KEYS = tuple(f.name for f in CONFIG_FIELDS if f.name != "controls")
"""The keys of the self-play games: a tournament config's (`play.tournament.CONFIG_FIELDS`)
but its controls."""
FIELDS = tuple(sorted((*TRAIN_FIELDS, *(Field(k, default=OMIT) for k in GAME_KEYS)),
                      key=lambda f: f.name))


def train_config_from_dict(data: Any, source: str = "config") -> TrainConfig:
    """Validate a train-evaluator config mapping; every error names the file and the key.

    Args:
        data: the config mapping (as read from YAML).
        source: where it came from, named in errors (a file name).
    """
    with errors_in(source):
        return _read_train(data)


def _read_train(data: Any) -> TrainConfig:
    """`train_config_from_dict` (errors name the key; the caller puts the file in front)."""
    if not isinstance(data, dict):
        raise field_error("", "a mapping of keys expected")
    d = read_section(data, FIELDS)
    games = {k: d[k] for k in GAME_KEYS if k in d}
    if "game" in games and isinstance(games.get("agents"), list) and not games.get("pairings"):
        labels = [parse_agent(a, f"agents[{i}]", games["game"]).display()
                  for i, a in enumerate(games["agents"])]
        games["pairings"] = [[a, a] for a in labels]  # self-play
    if not games.get("agents"):
        raise field_error("agents", "must list at least one agent (self-play)")
    tournament = read_config(games)
    if d["encoding"] is None:
        encoding = get_encoding(tournament.game).name  # (its error names the key)
    else:
        with errors_in("encoding"):
            encoding = get_encoding(tournament.game, str(d["encoding"])).name
    cfg = TrainConfig(games=tournament, data=dict(data),
                      **{**{f.name: d[f.name] for f in TRAIN_FIELDS}, "encoding": encoding})
    levels = level_seeds(tournament.game, tournament.levels)
    with errors_in("held_out"):
        train, held = split(levels, cfg.held_out, cfg.seed)
    if not train or not held:
        raise field_error("held_out", f"{short(cfg.held_out)} of {len(levels)} levels leaves "
                                      f"{len(train)} for training and {len(held)} held out; "
                                      f"both need one")
    return cfg


def load_train_config(path: str | Path) -> TrainConfig:
    """Read and validate a train-evaluator YAML file (errors name the file)."""
    data = read_yaml(path)
    return train_config_from_dict(data, source=str(path))


@dataclass
class TrainResult:
    """A trained model, where it was written, and what was measured."""

    model: Model
    path: Path
    summary: dict[str, Any]


INTERVAL = "bootstrap over games"
"""How the accuracy intervals are made: a percentile bootstrap that resamples held-out games,
each with all its positions (`base.stats.cluster_bootstrap`, 2000 resamples, a fixed seed).
Positions of one game are not independent, so an interval over positions would be too narrow."""


def _ci(lo: float, hi: float) -> list[float]:
    """An interval rounded for a summary ((0, 1) when there was nothing to resample)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return [0.0, 1.0]
    return [round(lo, 4), round(hi, 4)]


def accuracy(correct: np.ndarray, games: np.ndarray | None = None) -> dict[str, Any]:
    """Share of correct predictions with its 95% interval and the sample sizes.

    Args:
        correct: per position, whether the prediction was right.
        games: per position, its game: the interval is then a percentile bootstrap over
            games (`INTERVAL`) and the number of games is given; None: Wilson's interval
            over positions (for positions that do not carry their game).
    """
    correct = np.asarray(correct, dtype=float)
    n = int(len(correct))
    if games is None:
        k = float(np.sum(correct))
        lo, hi = wilson_interval(k, n)
        return {"n": n, "accuracy": round(k / n, 4) if n else None,
                "ci95": [round(lo, 4), round(hi, 4)], "interval": "Wilson over positions"}
    b = cluster_bootstrap(correct, games)
    return {"n": n, "games": b.clusters, "accuracy": round(b.mean, 4) if n else None,
            "ci95": _ci(b.low, b.high), "interval": INTERVAL}


def difference(correct: np.ndarray, other: np.ndarray, games: np.ndarray) -> dict[str, Any]:
    """Accuracy of one predictor minus another's on the same positions, with the 95% interval
    of a bootstrap over games (paired: a drawn game brings both predictions of each of its
    positions).

    Args:
        correct: per position, whether the first predictor was right.
        other: per position, whether the second one was.
        games: per position, its game.
    """
    d = np.asarray(correct, dtype=float) - np.asarray(other, dtype=float)
    b = cluster_bootstrap(d, games)
    return {"n": b.n, "games": b.clusters,
            "difference": round(b.mean, 4) if b.n else None,
            "ci95": [round(b.low, 4), round(b.high, 4)] if np.isfinite(b.low) else [-1.0, 1.0],
            "interval": INTERVAL}


def phase_name(lo: int, hi: int | None) -> str:
    """The name of a round bucket of `PHASES` ("0-9", "40+")."""
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


def accuracy_tables(value: np.ndarray, label: np.ndarray, rounds: np.ndarray,
                    to_move: np.ndarray, score_lead: np.ndarray, games: np.ndarray
                    ) -> dict[str, Any]:
    """The accuracy of the sign of a model's values against the results (draws left out):
    overall, by phase (`PHASES`) and by whether the viewer moves, each beside the baseline
    "the current score leader wins" (a tie predicts a loss) and the model's accuracy minus
    the baseline's; every interval a bootstrap over games (`INTERVAL`); plus the Brier score.

    Args:
        value: per position, the model's value 2p - 1.
        label: per position, the result from the viewer: +1, -1, 0 (a draw).
        rounds: per position, its round.
        to_move: per position, whether the viewer is to move.
        score_lead: per position, the viewer's score minus the best other's.
        games: per position, its game.
    """
    value, label = np.asarray(value, dtype=float), np.asarray(label)
    decided = label != 0
    v, y, g = value[decided], label[decided], np.asarray(games)[decided]
    rnd, mover = np.asarray(rounds)[decided], np.asarray(to_move, dtype=bool)[decided]
    if not len(y):
        return {"overall": accuracy(np.zeros(0), np.zeros(0))}
    correct = np.sign(v) == y
    baseline = np.where(np.asarray(score_lead)[decided] > 0, 1, -1) == y

    def entry(m: np.ndarray) -> dict[str, Any]:
        return {**accuracy(correct[m], g[m]), "score_leader": accuracy(baseline[m], g[m]),
                "vs_score_leader": difference(correct[m], baseline[m], g[m])}

    every = np.ones(len(y), dtype=bool)
    overall = entry(every)
    out: dict[str, Any] = {
        "overall": {k: x for k, x in overall.items()
                    if k not in ("score_leader", "vs_score_leader")},
        "score_leader": overall["score_leader"], "vs_score_leader": overall["vs_score_leader"],
        "brier": round(float(np.mean(((v - y) / 2) ** 2)), 4)}
    phases = {}
    for lo, hi in PHASES:
        m = (rnd >= lo) & (rnd <= hi if hi is not None else True)
        if m.any():
            phases[phase_name(lo, hi)] = entry(m)
    out["by_phase"] = phases
    out["by_view"] = {name: entry(m) for name, m in (("to_move", mover), ("waiting", ~mover))
                      if m.any()}
    return out


def evaluate_model(model: Model, samples: Samples) -> dict[str, Any]:
    """`accuracy_tables` of the model on `samples` (its values from the numpy forward pass the
    evaluator uses; intervals a bootstrap over the samples' games)."""
    decided = samples.label != 0
    s = samples.rows(decided)
    if not len(s):
        return {"overall": accuracy(np.zeros(0), np.zeros(0))}
    return accuracy_tables(model.values(s.matrix()), s.label, s.round, s.to_move,
                           s.score_lead, s.game)


def data_summary(samples: Samples, games: list[int]) -> dict[str, Any]:
    """Games, positions, the first seat's win share and the rounds of a set of games."""
    chosen = [samples.games[g] for g in games]
    rounds = [g["rounds"] for g in chosen]
    rows = np.isin(samples.game, games)
    return {"games": len(chosen), "samples": int(rows.sum()),
            "first_seat_wins": round(float(np.mean([g["winner"] == 0 for g in chosen])), 4),
            "draws": int(sum(g["winner"] < 0 for g in chosen)),
            "rounds": {"mean": round(float(np.mean(rounds)), 2), "min": int(min(rounds)),
                       "max": int(max(rounds))}}


def fit(config: TrainConfig, samples: Samples) -> Model:
    """Fit the network on `samples` (a draw counts once as a win and once as a loss, i.e.
    a target of one half) and return it as a `Model` (metadata still to be filled)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier
    x = samples.matrix()
    y = samples.label.astype(np.int64)
    draws = np.flatnonzero(y == 0)
    if len(draws):
        from scipy.sparse import vstack
        x = vstack([x[y != 0], x[draws], x[draws]]).tocsr()
        y = np.concatenate([y[y != 0], np.ones(len(draws), np.int64),
                            -np.ones(len(draws), np.int64)])
    if len(set(y.tolist())) < 2:
        raise ValueError("games: every training position has the same result; play more games")
    clf = MLPClassifier(hidden_layer_sizes=config.hidden, activation=config.activation,
                        solver="adam", alpha=config.l2, batch_size=min(config.batch_size, len(y)),
                        learning_rate_init=config.learning_rate, max_iter=config.epochs,
                        shuffle=True, random_state=config.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(x, y)
    if list(clf.classes_) != [-1, 1]:
        raise ValueError(f"classes: expected [-1, 1], got {list(clf.classes_)}")
    model = Model(clf.coefs_, clf.intercepts_, {"activation": config.activation})
    model.metadata["fit"] = {"iterations": int(clf.n_iter_), "final_loss": round(float(clf.loss_), 5)}
    return model


def self_play(config: TrainConfig, samples: str | Path | None = None,
              address: str | None = None, workers: int | None = None,
              progress: Progress | None = None) -> Samples:
    """The config's self-play positions: played now, or read from `samples` when that file
    holds exactly these games' positions (when it does not exist yet, they are played and
    written there).

    Args:
        config: the validated config.
        samples: a samples file to reuse or write (None: play, keep nothing).
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: local worker processes (0: play in this process).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
    """
    fingerprint = samples_fingerprint(config)
    if samples is not None and Path(samples).exists():
        return Samples.load(samples, fingerprint)
    out = generate_samples(plan(config.games), encoding=config.encoding, views=config.views,
                           address=address, workers=workers, progress=progress)
    if samples is not None:
        out.save(samples, fingerprint)
    return out


def samples_fingerprint(config: TrainConfig) -> str:
    """The fingerprint of the config's self-play positions (`play.selfplay.plan_fingerprint`).
    A config's `budget` is digested apart from the agents, whose games are planned from the
    config without it, so that samples written when games carried that budget beside their
    agents are still recognised.

    Args:
        config: the validated config.
    """
    enc = get_encoding(config.games.game, config.encoding)
    budget = config.data.get("budget")
    games = config.games if budget is None else \
        train_config_from_dict({**config.data, "budget": None}).games
    return plan_fingerprint(plan(games), enc.name, enc.version, config.views, budget)


def save_model(model: Model, path: str | Path) -> Path:
    """Write a model file (atomically: a reader never sees half a file); the model's metadata
    becomes what the file holds.

    Args:
        model: the trained model.
        path: the model file.
    """
    arrays = model.arrays()
    path = save_npz(path, **arrays)
    model.metadata = json.loads(str(arrays["metadata"]))
    return path


def train_evaluator(config: TrainConfig, output: str | Path | None = None,
                    address: str | None = None, workers: int | None = None,
                    progress: Progress | None = None, samples: str | Path | None = None
                    ) -> TrainResult:
    """Play the self-play games (or reuse their saved positions), train the network and
    write the model file.

    Args:
        config: the validated config.
        output: the model file (default: the config's `output`).
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: local worker processes (0: play in this process).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        samples: a samples file: reused when it holds these games' positions, else written
            after playing them (None: play, keep nothing).
    """
    games = config.games
    enc = get_encoding(games.game, config.encoding)
    t0 = time.perf_counter()
    saved = samples
    reused = saved is not None and Path(saved).exists()
    samples = self_play(config, samples=saved, address=address, workers=workers,
                        progress=progress)
    play_s = time.perf_counter() - t0
    train_levels, held_levels = split(level_seeds(games.game, games.levels), config.held_out,
                                      config.seed)
    held_set = set(held_levels)
    held_games = [i for i, g in enumerate(samples.games) if g["level"] in held_set]
    train_games = [i for i, g in enumerate(samples.games) if g["level"] not in held_set]
    in_held = np.isin(samples.game, held_games)
    train_rows, held_rows = samples.rows(~in_held), samples.rows(in_held)
    t1 = time.perf_counter()
    model = fit(config, train_rows)
    fit_s = time.perf_counter() - t1
    model.metadata.update({
        "game": games.game,
        "encoding": {"name": enc.name, "version": enc.version, "length": enc.length},
        "value": "2p - 1, p the probability that the viewer wins",
        "seed": config.seed,
        "config": config.data,
        "data": {"views": config.views, "agents": [a.display() for a in games.agents],
                 "train": data_summary(samples, train_games),
                 "held_out": data_summary(samples, held_games),
                 "held_out_levels": [str(x) for x in held_levels]},
        "train_accuracy": evaluate_model(model, train_rows)["overall"],
        "held_out": evaluate_model(model, held_rows),
        "seconds": {"self_play": round(play_s, 1), "fit": round(fit_s, 1),
                    "samples_reused": reused},
    })
    try:
        model.metadata["playstyles"] = __version__
    except ImportError:  # pragma: no cover - the package is always there
        pass
    path = save_model(model, output or config.output)
    return TrainResult(model=model, path=path, summary=model.metadata)


def _fmt(x: Any, signed: bool = False) -> str:
    if not isinstance(x, (int, float)):
        return "" if x is None else str(x)
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def accuracy_table(h: dict[str, Any]) -> list[str]:
    """The Markdown table of `accuracy_tables` (or of an older model's metadata, whose
    intervals are Wilson's over positions): rows overall, by phase and by view; columns the
    positions, the games, the model's accuracy, the score leader's, the difference, each
    with its 95% interval."""

    def span(a: Any, signed: bool = False) -> str:
        if not isinstance(a, dict) or "ci95" not in a:
            return ""
        lo, hi = a["ci95"]
        return f"{_fmt(lo, signed)} to {_fmt(hi, signed)}" if signed else f"{lo:.3f}-{hi:.3f}"

    def row(name: str, a: dict[str, Any], base: Any, diff: Any) -> str:
        b = base.get("accuracy") if isinstance(base, dict) else base
        d = diff.get("difference") if isinstance(diff, dict) else None
        acc = "-" if a.get("accuracy") is None else f"{a['accuracy']:.3f}"
        return (f"| {name} | {a['n']} | {a.get('games', '')} | {acc} | {span(a)} | {_fmt(b)} "
                f"| {span(base)} | {_fmt(d, True)} | {span(diff, True)} |")

    how = h["overall"].get("interval", "Wilson over positions")
    lines = [f"| held-out positions | positions | games | accuracy | 95% ({how}) | score leader "
             f"| 95% | model - leader | 95% |",
             "|---|---|---|---|---|---|---|---|---|",
             row("all", h["overall"], h.get("score_leader"), h.get("vs_score_leader"))]
    for name, a in h.get("by_phase", {}).items():
        lines.append(row(f"rounds {name}", a, a.get("score_leader"), a.get("vs_score_leader")))
    for name, a in h.get("by_view", {}).items():
        lines.append(row(f"viewer {name.replace('_', ' ')}", a, a.get("score_leader"),
                         a.get("vs_score_leader")))
    return lines


def to_markdown(meta: dict[str, Any]) -> str:
    """The held-out accuracy of a model's metadata as Markdown tables."""
    h = meta["held_out"]
    tr, ho = meta["data"]["train"], meta["data"]["held_out"]
    lines = [
        f"Model: game {meta['game']}, encoding {meta['encoding']['name']} "
        f"v{meta['encoding']['version']} ({meta['encoding']['length']} inputs), layers "
        f"{meta['layers']}, {meta['activation']}; {meta['fit']['iterations']} epochs, seed "
        f"{meta['seed']}.",
        f"Data ({meta['data']['views']} views; agents: {', '.join(meta['data']['agents'])}): "
        f"training {tr['games']} games / {tr['samples']} positions, held out {ho['games']} games "
        f"/ {ho['samples']} positions (levels {', '.join(meta['data']['held_out_levels'])}); "
        f"rounds per game {tr['rounds']['mean']} on average (training), first seat won "
        f"{tr['first_seat_wins']:.3f} of training games.",
        f"Training accuracy {meta['train_accuracy']['accuracy']:.3f}; held-out Brier score "
        f"{h['brier']}.",
        "",
        *accuracy_table(h),
    ]
    return "\n".join(lines) + "\n"
