"""The behaviour features of Tribolo: what a play-style does, read from the game's event log.

Each is one per-game function registered for the game "tribolo" (see `qd.features`), with the
words that name a low, middle and high value. The events they read are logged by every move
(`TriboloState.events`): ``moves``, ``converted``, ``choices`` (the mover's legal moves),
``leader_hit``, ``multi_line`` and ``edge`` (each 1, logged only when true). Shares are over
the player's own moves and undefined (NaN) in a game where it made none. Ranges and bin widths
fit what random, scripted and searching players produce (docs/tribolo.md, "Play-styles").
"""

from __future__ import annotations

import math

from qd.features import FeatureTable, PlayerGame

GAME = "tribolo"
FEATURES = FeatureTable(GAME)
"""The game's behaviour features (registered by its plug-in)."""


def _per_move(g: PlayerGame, name: str) -> float:
    """An event's total over the player's moves (NaN without a move)."""
    moves = g.count("moves")
    return g.count(name) / moves if moves else math.nan


@FEATURES.feature("leader_hits", 0.3, 1, 0.07,
                  "share of own moves that take cells from the leading opponent (the opponent with "
                  "the most cells before the move; either when they are level)",
                  words=("spreads its attacks", "hits the leader often",
                            "always hits the leader"))
def _leader_hits(g: PlayerGame) -> float:
    return _per_move(g, "leader_hit")


@FEATURES.feature("mobility", 4, 24, 2, "mean number of legal moves the player had at its own moves",
                  words=("cramped", "some choice", "keeps its options open"))
def _mobility(g: PlayerGame) -> float:
    return _per_move(g, "choices")


@FEATURES.feature("multi_line", 0, 0.9, 0.09, "share of own moves that fire two or more lines",
                  words=("single lines", "some multi-line jumps", "many multi-line jumps"))
def _multi_line(g: PlayerGame) -> float:
    return _per_move(g, "multi_line")


@FEATURES.feature("edge_moves", 0.1, 0.6, 0.05,
                  "share of own moves to edge cells (anchored on 3 or 4 axes: the border, corners, "
                  "cells against walls)", words=("plays inside", "some edge moves", "holds the edges"))
def _edge_moves(g: PlayerGame) -> float:
    return _per_move(g, "edge")


@FEATURES.feature("gain", 1, 4.5, 0.35, "mean cells converted per own move",
                  words=("small jumps", "medium jumps", "greedy jumps"))
def _gain(g: PlayerGame) -> float:
    return _per_move(g, "converted")


@FEATURES.feature("cell_share", 0, 0.7, 0.07, "share of the owned cells the player holds at the end",
                  words=("few cells", "a fair share", "dominates the board"))
def _cell_share(g: PlayerGame) -> float:
    return g.final("share")
