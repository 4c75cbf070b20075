"""Training positions from self-play: encoded turn starts labelled with who won the game.

As in Prismata's learned evaluation, agents play games and every position where a player
begins its turn is kept (the state before its first action), encoded from a player's view by
the game's registered encoding (`agents.encodings`) and labelled, once the game is over, with
the result from that view: +1 won, -1 lost, 0 a draw (no single winner).

`views="mover"` keeps only the view of the player about to move (the source's sample);
`views="all"` (the default) keeps the same position from every player's view. Search
evaluates leaves for the searching player whoever is to move there (e.g. right after its own
turn ended), so the network has to know positions seen by the player who waits too; the
encoding carries whether the viewer is to move.

The games are a tournament plan (`play.tournament.plan`: every pairing on every level,
seats alternating with the repetition, all seeds from one seed) played by the usual pool
(`play.game_pool`, one Ray task per game): the same seed gives the same positions whatever
the number of workers, since samples are put in game order.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.encodings import get_encoding
from base.files import load_json, npz_json, read_npz, save_npz
from base.progress import Progress, counted
from games.api import results
from play.game_pool import run_games
from play.runner import GameSpec, new_state, play_game

VIEWS = ("all", "mover")


@dataclass
class Samples:
    """Encoded positions, one row each, with their labels (rows grouped by game).

    Args:
        indptr: row i's ones are ``indices[indptr[i]:indptr[i + 1]]`` (a CSR layout).
        indices: positions of the ones.
        length: the encoding's length (columns).
        label: +1 / -1 / 0, the result from the row's viewer.
        game: the index of the game (in the plan) each row comes from.
        round: the game round of the position.
        viewer: the player whose view the row is.
        to_move: whether the viewer is the player to move.
        score_lead: the viewer's score minus the best other player's score (a baseline
            predictor: "the leader wins").
        games: per game of the plan: its level, winner (-1: none), rounds played.
    """

    indptr: np.ndarray
    indices: np.ndarray
    length: int
    label: np.ndarray
    game: np.ndarray
    round: np.ndarray
    viewer: np.ndarray
    to_move: np.ndarray
    score_lead: np.ndarray
    games: list[dict[str, Any]]

    def __len__(self) -> int:
        return len(self.label)

    def rows(self, mask: np.ndarray) -> "Samples":
        """The rows where `mask` is True (same games list)."""
        keep = np.flatnonzero(mask)
        starts, ends = self.indptr[keep], self.indptr[keep + 1]
        sizes = ends - starts
        indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        indices = (np.concatenate([self.indices[s:e] for s, e in zip(starts, ends)])
                   if len(keep) else np.zeros(0, np.int32))
        return Samples(indptr, indices, self.length, self.label[keep], self.game[keep],
                       self.round[keep], self.viewer[keep], self.to_move[keep],
                       self.score_lead[keep], self.games)

    def save(self, path: str | Path, fingerprint: str) -> Path:
        """Write the samples to one ``.npz`` with the fingerprint of the games they come from
        (`plan_fingerprint`), so that training again can reuse them."""
        meta = {"fingerprint": fingerprint, "length": self.length, "games": self.games}
        return save_npz(path, meta=np.array(json.dumps(meta)), indptr=self.indptr,
                        indices=self.indices, label=self.label, game=self.game,
                        round=self.round, viewer=self.viewer, to_move=self.to_move,
                        score_lead=self.score_lead)

    @staticmethod
    def recognize(path: str | Path) -> bool:
        """Whether `path` is a samples file (`save` wrote it), of whatever games.

        Args:
            path: the file.
        """
        meta = npz_json(path, "meta")
        return isinstance(meta, dict) and "fingerprint" in meta

    @staticmethod
    def load(path: str | Path, fingerprint: str) -> "Samples":
        """Samples saved by `save`; refused (one error naming the file) when they come from
        other games, another encoding or other views than `fingerprint` says."""
        try:
            arrays = read_npz(path)
            meta = load_json(str(arrays.pop("meta")), f"{path}: meta")
        except KeyError as e:
            raise ValueError(f"{path}: not a samples file: {e} missing") from None
        if not isinstance(meta, dict) or meta.get("fingerprint") != fingerprint:
            raise ValueError(f"{path}: fingerprint: these samples come from other games, another "
                             f"encoding or other views than the config's; delete the file or "
                             f"name another")
        return Samples(length=int(meta["length"]), games=meta["games"], **arrays)

    def matrix(self):
        """The rows as a scipy CSR matrix of 0/1 (float32), for training."""
        from scipy.sparse import csr_matrix
        data = np.ones(len(self.indices), dtype=np.float32)
        return csr_matrix((data, self.indices, self.indptr), shape=(len(self), self.length))


@dataclass(frozen=True)
class Sampler:
    """What one self-play task does: play the game of a spec and return its encoded turn
    starts (a picklable callable for `play.game_pool`).

    Args:
        encoding: the game's encoding name (None: its default).
        views: "all" (every player's view of each turn start) or "mover".
    """

    encoding: str | None = None
    views: str = "all"

    def __call__(self, spec: GameSpec) -> dict[str, Any]:
        return sample_game(spec, encoding=self.encoding, views=self.views)


def sample_game(spec: GameSpec, encoding: str | None = None, views: str = "all") -> dict[str, Any]:
    """Play the game of `spec` and return its turn starts, encoded, with the result.

    Args:
        spec: the game (level, seeds, agents, options).
        encoding: the game's encoding name (None: its default).
        views: "all" or "mover" (see the module text).

    Returns: a dict with ``rows`` (per sample: round, viewer, to_move, score lead, positions
    of the ones), ``results`` (each player's share of first place), ``winner`` and ``rounds``.
    """
    if views not in VIEWS:
        raise ValueError(f"views: {views!r} is not one of {VIEWS}")
    enc = get_encoding(spec.game, encoding)
    state = new_state(spec)
    agents = [a.build(seed, spec.game) for a, seed in zip(spec.agents, spec.agent_seeds)]
    rows: list[tuple[int, int, bool, float, np.ndarray]] = []

    def take(s) -> None:
        if s.is_terminal():
            return
        scores = s.scores()
        players = range(s.num_players) if views == "all" else (s.current_player,)
        rnd = int(s.tick)  # the round, as game records count it
        for p in players:
            lead = scores[p] - max((x for q, x in enumerate(scores) if q != p), default=0.0)
            rows.append((rnd, p, p == s.current_player, float(lead), enc.indices(s, p)))

    take(state)
    play_game(state, agents, on_turn_end=take)
    return {"rows": rows, "results": results(state), "winner": state.winner(),
            "rounds": int(state.tick)}


def plan_fingerprint(specs: Sequence[GameSpec], encoding: str, version: int, views: str,
                     budget: int | None = None) -> str:
    """A digest of the games (levels, seeds, agents, options, budget), the encoding and its
    version and the views: samples are reused only for exactly the same.

    Args:
        specs: the games.
        encoding: the encoding's name.
        version: the encoding's version.
        views: "all" or "mover".
        budget: a budget given for every agent of the games (a config's `budget`), digested
            apart from `specs`, whose agents are then those of the config as given: a plan
            digests as it did when games carried such a budget beside their agents.
    """
    text = repr([(s.game, s.level, s.seed, s.agents, s.agent_seeds, s.options, budget)
                 for s in specs]) + f"|{encoding}|{version}|{views}"
    return hashlib.sha256(text.encode()).hexdigest()


def label_of(share: float) -> int:
    """+1 for a sole winner's share (1), -1 for a loser's (0), 0 for a shared first place."""
    return 1 if share >= 1.0 else -1 if share <= 0.0 else 0


def generate_samples(specs: Sequence[GameSpec], encoding: str | None = None, views: str = "all",
                     address: str | None = None, workers: int | None = None,
                     progress: Progress | None = None) -> Samples:
    """Play every game of `specs` (in parallel) and collect their encoded turn starts.

    Args:
        specs: the games, e.g. `play.tournament.plan` of a self-play config.
        encoding: the game's encoding name (None: its default).
        views: "all" or "mover".
        address: a Ray cluster to join (default: RAY_ADDRESS, else a local Ray).
        workers: local worker processes (0: play in this process).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
    """
    if not specs:
        raise ValueError("games: no game to play")
    if views not in VIEWS:
        raise ValueError(f"views: {views!r} is not one of {VIEWS}")
    enc = get_encoding(specs[0].game, encoding)
    out: list[dict[str, Any] | None] = [None] * len(specs)
    done = run_games(specs, address=address, workers=workers,
                     play=Sampler(encoding=enc.name, views=views))
    for i, game in counted(done, len(specs), "self-play", progress):
        out[i] = game
    indptr, indices, label, game_of, rnd, viewer, to_move, lead = [0], [], [], [], [], [], [], []
    games = []
    for g, (spec, game) in enumerate(zip(specs, out)):
        games.append({"level": spec.level, "winner": -1 if game["winner"] is None
                      else int(game["winner"]), "rounds": game["rounds"]})
        for r, p, m, sl, idx in game["rows"]:
            indices.append(idx)
            indptr.append(indptr[-1] + len(idx))
            label.append(label_of(game["results"][p]))
            game_of.append(g)
            rnd.append(r)
            viewer.append(p)
            to_move.append(m)
            lead.append(sl)
    return Samples(
        indptr=np.asarray(indptr, dtype=np.int64),
        indices=np.concatenate(indices).astype(np.int32) if indices else np.zeros(0, np.int32),
        length=enc.length, label=np.asarray(label, dtype=np.int8),
        game=np.asarray(game_of, dtype=np.int32), round=np.asarray(rnd, dtype=np.int32),
        viewer=np.asarray(viewer, dtype=np.int8), to_move=np.asarray(to_move, dtype=bool),
        score_lead=np.asarray(lead, dtype=np.float64), games=games)
