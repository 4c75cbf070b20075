"""The behaviour features of Navy Defense: how the Navy ship protects, read from the event log.

Each is one per-game function registered for the game "navy" (see `qd.features`), with the
words that name a low, middle and high value. They read the step events the game logs
(`games.navy.state`), all snapshots: ``navy_cell``, ``centre_distance`` (one per step),
``cargo_distance`` (while a cargo ship is left), ``navy_moved``, ``cargo_damage`` and
``sub_seen`` (in the steps where the ship moved, a cargo ship took damage, the sonar block
holds a sub after the step). *Evidence* of a sub is a sub in the sonar block after a step or damage
to a cargo ship; a step is the round number the events carry (0-based).
"""

from __future__ import annotations

import math

from qd.features import FeatureTable, PlayerGame

GAME = "navy"
FEATURES = FeatureTable(GAME)
"""The game's behaviour features (registered by its plug-in)."""


def _mean_series(g: PlayerGame, name: str) -> float:
    s = g.series.get(name)
    return float(sum(v for _, v in s) / len(s)) if s else math.nan


def steps_of(g: PlayerGame) -> int:
    """The steps played (one ``navy_cell`` per step)."""
    return len(g.series.get("navy_cell", ()))


def first_evidence(g: PlayerGame) -> int | None:
    """The first step that gave evidence of a sub (None: no evidence in the game)."""
    steps = [r for r, v in g.series.get("sub_seen", ()) if v > 0]
    steps += [r for r, v in g.series.get("cargo_damage", ()) if v > 0]
    return min(steps) if steps else None


def move_rounds(g: PlayerGame) -> list[int]:
    """The steps in which the Navy ship moved."""
    return [r for r, v in g.series.get("navy_moved", ()) if v > 0]


@FEATURES.feature("cargo_distance", 0, 6, 0.5,
                  "mean Manhattan distance of the Navy ship to the nearest live cargo ship at the "
                  "end of a step",
                  words=("shadows the cargo", "stays near the cargo", "ranges far from the cargo"))
def _cargo_distance(g: PlayerGame) -> float:
    return _mean_series(g, "cargo_distance")


@FEATURES.feature("centre_distance", 0, 6, 0.5,
                  "mean Manhattan distance of the Navy ship to the board's centre at the end of a step",
                  words=("holds the centre", "between centre and edge", "keeps to the edges"))
def _centre_distance(g: PlayerGame) -> float:
    return _mean_series(g, "centre_distance")


@FEATURES.feature("moving", 0, 1, 0.1, "share of the steps in which the Navy ship moved",
                  words=("mostly waits", "moves often", "always on the move"))
def _moving(g: PlayerGame) -> float:
    steps = steps_of(g)
    return len(move_rounds(g)) / steps if steps else math.nan


@FEATURES.feature("cells_visited", 1, 25, 2,
                  "distinct cells the Navy ship ended a step on (the area it covered)",
                  words=("holds one spot", "covers a patch", "covers much of the sea"))
def _cells_visited(g: PlayerGame) -> float:
    cells = {v for _, v in g.series.get("navy_cell", ())}
    return float(len(cells)) if cells else math.nan


@FEATURES.feature("reaction", 0, 10, 1,
                  "steps from the first evidence of a sub (a sub in the sonar block after a step, or "
                  "a cargo ship hit) to the Navy ship's first move after it (0: it moves in the next "
                  "step; the steps left when it never moves again); undefined without evidence",
                  missing="hi", words=("reacts at once", "reacts after a while", "slow to react"))
def _reaction(g: PlayerGame) -> float:
    first = first_evidence(g)
    if first is None:
        return math.nan
    later = [r for r in move_rounds(g) if r > first]
    return float(min(later) - first - 1) if later else float(steps_of(g) - first - 1)


@FEATURES.feature("idle_before_evidence", 0, 1, 0.1,
                  "share of the steps before the first evidence of a sub in which the Navy ship "
                  "stayed (1 in a game without evidence only if it never moved)",
                  words=("patrols before any sign", "half patrols, half waits", "waits for a sign"))
def _idle_before(g: PlayerGame) -> float:
    first = first_evidence(g)
    end = steps_of(g) if first is None else first + 1
    if end <= 0:
        return math.nan
    moved = sum(1 for r in move_rounds(g) if r < end)
    return 1.0 - moved / end
