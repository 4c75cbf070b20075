"""Noise-aware MAP-Elites: replacements decided under uncertainty, not on one estimate.

A genome's win rate and features come from a few games, and plain MAP-Elites keeps whichever
estimate was luckiest: an elite is the maximum of many noisy draws, so evolved win rates are
optimistic and elites sit in cells their style does not really reach. A config chooses how the
run deals with it (`noise: {method: ...}`):

* `none` (plain MAP-Elites, the paper's and the reference's rule): one estimate per genome,
  replaced on a higher one.
* `reevaluate` (in the spirit of Archive-Sampling): every batch also replays `per_batch`
  elites (those with the fewest games first) on fresh seeds. All the games of a genome are
  pooled; its quality and features are the pooled estimates, and its cell follows the pooled
  features. A cell goes to the candidate with the highest lower confidence bound on its win
  rate (Wilson 95%), so an elite that stays good over many games is not displaced by one lucky
  newcomer, and a lucky elite loses its cell as its replays come in.
* `adaptive` (adaptive sampling, after Justesen, Risi and Mouret 2019): a challenger that lands
  on an occupied cell is played again, together with the incumbent, until the difference of
  their win rates is clear (its Agresti-Caffo 95% interval excludes zero) or the challenger has
  had `max_rounds` evaluations; then the point estimates decide. A challenger on an empty cell
  takes it at once.
* `reestimate` (after the corrected archives of Flageat and Cully): plain MAP-Elites while the
  run evolves; when evolution has finished, one closing batch replays every elite `replays`
  times on fresh seeds, and each elite's quality and features become those of the fresh games
  alone, so elites.csv no longer carries the winner's curse of selection. Every elite keeps
  the cell evolution found for it: nothing is chosen on the fresh games.
  With `max_games`, evolution stops early enough to leave the closing games inside it.

Replays run in the same batches as new genomes (their games follow the batch's new genomes
in the batch's game list), with seeds from (run seed, the genome's first evaluation, game,
replay number), so a run stays a function of its config and seed whatever the number of
workers. A new method is one subclass of `NoiseMethod` registered with `@register_noise`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np

from base.limits import MAX_GAMES, short
from base.schema import Field, check_mapping, count, field_error, read_section
from base.stats import Z95, wilson_interval
from games.registry import Registry
from qd.archive import band, evaluate_rows, objective

NOISE_METHODS = Registry("noise method")
"""Noise methods a config may name (`noise.method`) -> their classes; `none` is the plain
loop and has no class."""

PLAIN = "none"
DEFAULT = "reestimate"
"""The method of a config that names none: the one with the smallest gap between evolved and
held-out win rates at equal games (docs/qd.md, "Noisy estimates")."""


def register_noise(cls: type["NoiseMethod"]) -> type["NoiseMethod"]:
    """Class decorator: make a `NoiseMethod` subclass a config `noise.method` (its `name`)."""
    if not (isinstance(cls, type) and issubclass(cls, NoiseMethod)) or not cls.name:
        raise TypeError(f"register_noise: a NoiseMethod subclass with a name expected, got {short(cls)}")
    NOISE_METHODS.add(cls.name, cls)
    return cls


def noise_params(given: Any, where: str = "noise") -> dict[str, Any]:
    """`method` (default `reestimate`) and every parameter of that method (its `params`),
    checked; a bad value raises ValueError naming the key.

    Args:
        given: the config's `noise` mapping (None: the default method).
        where: its key path.
    """
    d = check_mapping(given, where)
    method = d.get("method", DEFAULT)
    if method == PLAIN:
        return read_section(d, (Field("method", default=PLAIN),), where)
    if not isinstance(method, str) or method not in NOISE_METHODS:
        raise field_error(f"{where}.method",
                          NOISE_METHODS.unknown(method, "", [PLAIN, *NOISE_METHODS]))
    return read_section(d, (Field("method", default=method), *NOISE_METHODS[method].params),
                        where)


def make_noise(params: Mapping[str, Any], players: int = 2) -> "NoiseMethod | None":
    """The method object of resolved `noise` parameters; None for plain MAP-Elites.

    Args:
        params: `method` and its parameters (`noise_params`).
        players: players of the game (how finely first place can be shared).
    """
    d = dict(params)
    method = d.pop("method", PLAIN)
    if method == PLAIN:
        return None
    out = NOISE_METHODS[method](**d)
    out.players = int(players)
    return out


@dataclass
class Candidate:
    """A genome whose games are pooled: an elite, or a challenger waiting for more games.

    Args:
        id: the evaluation index of its first evaluation (elites.csv `evaluation`).
        batch: the batch of its first evaluation.
        genome: the genome.
        rows: one row per game: won, score, then every kept feature's value (NaN where
            undefined), as `qd.archive.game_table` makes them.
        replays: replays asked so far (each one a new set of seeds).
        in_flight: replays asked whose games are not in yet.
        settled_games: its games when its cell was last decided.
    """

    id: int
    batch: int
    genome: np.ndarray
    rows: np.ndarray
    replays: int = 0
    in_flight: int = 0
    settled_games: int = 0

    @property
    def games(self) -> int:
        return int(len(self.rows))

    @property
    def wins(self) -> float:
        return float(self.rows[:, 0].sum())


WAITING = 3
"""Status of a new genome that is waiting for more games (individuals.csv `waiting`)."""


class NoiseMethod:
    """How a run replays genomes and decides its cells (see the module text).

    The run asks `ask()` for the genomes to play again in each new batch and gives each
    finished batch to `tell()`, which pools the games, decides every cell, rebuilds the archive
    and returns the new genomes' statuses (0 rejected, 1 replaced an elite, 2 took an empty
    cell, 3 waiting for more games). Subclasses choose what to replay (`replays`), the number
    cells are decided by (`objective`) and which challengers compete now (`settle`).
    """

    name: ClassVar[str] = ""
    params: ClassVar[tuple[Field, ...]] = ()
    """The method's parameters (`base.schema.Field`s: name, check, default), taken by its
    constructor as keyword arguments."""
    players: int = 2  # players of the game (set by `make_noise`)
    closed: bool = False  # the closing batch was asked (no genome is asked after it)

    def __init__(self) -> None:
        self.candidates: dict[int, Candidate] = {}  # elites and waiting challengers, by id
        self.waiting: dict[int, int] = {}  # challenger id -> the elite id it has to beat

    # ---------------------------------------------------------------- what subclasses decide
    def replays(self, elites: list[int]) -> list[int]:
        """Ids of the candidates to replay in the next batch (elites: the archive's ids)."""
        raise NotImplementedError

    def objective(self, c: Candidate, mean_score: float) -> float:
        """The number a cell is decided by (the highest keeps it): by default the pooled win
        rate with the mean score as tie-breaker, as in `qd.archive.objective`."""
        return objective(c.wins, c.games, mean_score, self.players)

    def settle(self, contenders: list[Candidate], place) -> list[Candidate]:
        """The challengers that compete for cells now; `place(c)` is the id of the elite in
        c's cell (None when empty). Default: all of them."""
        return contenders

    def reserve(self, elites: int, games_per_replay: int) -> int:
        """Games the run keeps back from evolution for the method's closing replays, with
        `elites` elites in the archive now (counted against `max_games`)."""
        return 0

    def closing(self, elites: list[int]) -> list[tuple[int, int, np.ndarray]]:
        """The replays of the batch that closes the run, once evolution has finished (asked
        once; empty when the method has none): (candidate id, replay number, genome)."""
        return []

    @property
    def pending(self) -> bool:
        """Whether the method still has closing replays to ask."""
        return False

    # ---------------------------------------------------------------- the shared machinery
    def ask(self, elites: list[int]) -> list[tuple[int, int, np.ndarray]]:
        """(candidate id, replay number, genome) of every replay of the next batch."""
        return self._replay(self.replays(elites))

    def _replay(self, ids: list[int]) -> list[tuple[int, int, np.ndarray]]:
        """Count a replay of each id (an id may come more than once)."""
        out = []
        for cid in ids:
            c = self.candidates[cid]
            c.replays += 1
            c.in_flight += 1
            out.append((cid, c.replays, c.genome))
        return out

    def tell(self, archive, batch: int, first: int, genomes: np.ndarray,
             rows: list[np.ndarray], replayed: list[tuple[int, np.ndarray]],
             features, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Pool a finished batch into the candidates, decide every cell and rebuild the
        archive (`qd.archive.EliteArchive`).

        Args:
            archive: the run's archive.
            batch: the batch's number.
            first: the evaluation index of its first new genome.
            genomes: its new genomes.
            rows: each new genome's game rows.
            replayed: (candidate id, game rows) of each replay in the batch.
            features: the grid's features.
            names: the kept features' names (the rows' columns after won and score).

        Returns:
            Each new genome's status and value (the objective it entered with, else 0).
        """
        for cid, r in replayed:
            c = self.candidates.get(cid)
            if c is not None:
                c.rows = np.concatenate([c.rows, r])
                c.in_flight -= 1
        new = [Candidate(first + k, batch, np.asarray(g, dtype=float), r)
               for k, (g, r) in enumerate(zip(genomes, rows))]
        for c in new:
            self.candidates[c.id] = c
        cache: dict[int, Any] = {}

        def ev(c: Candidate):
            if c.id not in cache:
                cache[c.id] = evaluate_rows(c.genome, c.rows, features, names, self.players)
            return cache[c.id]

        def place(c: Candidate) -> int | None:
            found = archive.occupant(ev(c).measures)
            return None if found is None else found[0]

        again = [self.candidates[w] for w in sorted(self.waiting) if w in self.candidates
                 and self.candidates[w].in_flight == 0
                 and self.candidates[w].games > self.candidates[w].settled_games]
        before = {c.id: place(c) for c in new}
        contenders = self.settle(again + new, place)
        for c in again + new:
            c.settled_games = c.games
        elites = [self.candidates[i] for i in archive.ids() if i in self.candidates]
        seen = {c.id for c in elites}
        entries = elites + [c for c in contenders if c.id not in seen]
        archive.rebuild([(ev(c), self.objective(c, ev(c).mean_score), c.batch, c.id)
                         for c in entries])
        now = set(archive.ids())
        keep = now | set(self.waiting)
        self.candidates = {i: c for i, c in self.candidates.items()
                           if i in keep or c.in_flight > 0}
        status = np.array([(2 if before[c.id] is None else 1) if c.id in now
                           else WAITING if c.id in self.waiting else 0 for c in new], int)
        value = np.array([self.objective(c, ev(c).mean_score) if c.id in now else 0.0
                          for c in new], float)
        return status, value


@register_noise
class Reevaluate(NoiseMethod):
    """Replay `per_batch` elites per batch, fewest games first (ties: the oldest); a cell
    goes to the highest Wilson 95% lower bound on the win rate (score breaks ties)."""

    name = "reevaluate"
    params = (Field("per_batch", count(1, MAX_GAMES), 4),)

    def __init__(self, per_batch: int = 4) -> None:
        super().__init__()
        self.per_batch = int(per_batch)

    def replays(self, elites: list[int]) -> list[int]:
        free = [i for i in elites if self.candidates[i].in_flight == 0]
        return sorted(free, key=lambda i: (self.candidates[i].games, i))[:self.per_batch]

    def objective(self, c: Candidate, mean_score: float) -> float:
        low, _ = wilson_interval(c.wins, c.games)
        return low + 1e-6 * band(mean_score)


@register_noise
class Adaptive(NoiseMethod):
    """A challenger on an occupied cell is replayed with the incumbent until the difference of
    their win rates is clear (Agresti-Caffo 95% interval) or it had `max_rounds` evaluations."""

    name = "adaptive"
    params = (Field("max_rounds", count(1, MAX_GAMES), 4),)

    def __init__(self, max_rounds: int = 4) -> None:
        super().__init__()
        self.max_rounds = int(max_rounds)

    def replays(self, elites: list[int]) -> list[int]:
        out: list[int] = []
        for cid, inc in sorted(self.waiting.items()):
            c = self.candidates.get(cid)
            if c is None or c.in_flight or c.games > c.settled_games:
                continue  # its last replay is not in yet, or not decided on yet
            out.append(cid)
            i = self.candidates.get(inc)
            if i is not None and not i.in_flight and inc not in out:
                out.append(inc)
        return out

    def settle(self, contenders: list[Candidate], place) -> list[Candidate]:
        ready = []
        for c in contenders:
            inc = place(c)
            if inc is None or inc == c.id or inc not in self.candidates:
                self.waiting.pop(c.id, None)
                ready.append(c)
                continue
            d = difference(c, self.candidates[inc])
            if d == 0 and 1 + c.replays < self.max_rounds:
                self.waiting[c.id] = inc  # undecided: both are played again
                continue
            self.waiting.pop(c.id, None)
            if d >= 0:  # clearly better, or out of rounds: the point estimates decide
                ready.append(c)
        return ready


def difference(a: Candidate, b: Candidate, z: float = Z95) -> int:
    """+1 when a's win rate is clearly higher than b's, -1 clearly lower, 0 undecided: the
    Agresti-Caffo 95% interval (one win and one loss added to each side) of the difference."""
    na, nb = a.games + 2, b.games + 2
    pa, pb = (a.wins + 1) / na, (b.wins + 1) / nb
    half = z * math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    if pa - pb - half > 0:
        return 1
    if pa - pb + half < 0:
        return -1
    return 0


@register_noise
class Reestimate(NoiseMethod):
    """Plain MAP-Elites while the run evolves; then every elite is replayed `replays` times
    on fresh seeds (each replay plays the genome's games again), and its quality and feature
    estimates become those of the fresh games alone. The closing replays run as the run's
    last batch.

    Every elite keeps its cell: its position stays where evolution found it (elites.csv's
    `measure_*` columns), while its win rate and feature means (`*_mean`, `*_se`) are the
    fresh estimates. Nothing is chosen on the fresh games, so they stay unbiased; moving
    elites by their fresh features and dropping those that meet would choose on them (the
    features and the wins of a game go together) and make the survivors' win rates
    optimistic again. `objective` in elites.csv is the evolved one that won the cell."""

    name = "reestimate"
    params = (Field("replays", count(1, MAX_GAMES), 2),)

    def __init__(self, replays: int = 2) -> None:
        super().__init__()
        self.replays_each = int(replays)

    def replays(self, elites: list[int]) -> list[int]:
        return []

    def reserve(self, elites: int, games_per_replay: int) -> int:
        return 0 if self.closed else elites * self.replays_each * games_per_replay

    @property
    def pending(self) -> bool:
        return not self.closed

    def closing(self, elites: list[int]) -> list[tuple[int, int, np.ndarray]]:
        if self.closed:
            return []
        self.closed = True
        return self._replay([i for i in sorted(elites) for _ in range(self.replays_each)])

    def tell(self, archive, batch: int, first: int, genomes: np.ndarray,
             rows: list[np.ndarray], replayed: list[tuple[int, np.ndarray]],
             features, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        if not replayed:
            return super().tell(archive, batch, first, genomes, rows, replayed, features, names)
        fresh: dict[int, list[np.ndarray]] = {}
        for cid, r in replayed:
            fresh.setdefault(cid, []).append(r)
        entries = []
        for i in archive.ids():
            c = self.candidates[i]
            evolved = evaluate_rows(c.genome, c.rows, features, names, self.players)
            c.rows = np.concatenate(fresh[i])
            c.in_flight = 0
            ev = evaluate_rows(c.genome, c.rows, features, names, self.players)
            ev.measures = evolved.measures  # the cell evolution found
            entries.append((ev, evolved.objective, c.batch, c.id))
        archive.rebuild(entries)
        return np.zeros(len(genomes), int), np.zeros(len(genomes))
