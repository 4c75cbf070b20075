"""The behaviour features of Tribes: what a play-style does, read from the game's event log.

Each is one per-game function registered for the game "tribes" (see `qd.features`), with the
words that name a low, middle and high value in exported styles. The events they read are
logged by the engine (`games/tribes/rules.py`): counts such as `attacks`, `kills`,
`spawn_<unit>`, and the end-of-turn snapshots in `games.tribes.game.SNAPSHOT_EVENTS`.
"""

from __future__ import annotations

import math

from qd.features import FeatureTable, PlayerGame, slope

GAME = "tribes"
FEATURES = FeatureTable()
"""The game's behaviour features (registered by its plug-in)."""


@FEATURES.feature("attacks", 0, 20, 2, "attack actions per game",
          game=GAME, words=('few attacks', 'some attacks', 'many attacks'))
def _attacks(g: PlayerGame) -> float:
    return g.count("attacks")


@FEATURES.feature("ranged_minus_melee", -5, 5, 1,
          "archers + catapults minus swordsmen + knights spawned, per game",
          game=GAME, words=('melee army', 'mixed army', 'ranged support'))
def _ranged_minus_melee(g: PlayerGame) -> float:
    return (g.count("spawn_archer", "spawn_catapult")
            - g.count("spawn_swordman", "spawn_knight"))


@FEATURES.feature("defender_spawns", 0, 10, 1, "defenders spawned per game",
          game=GAME, words=('few defenders', 'some defenders', 'many defenders'))
def _defender_spawns(g: PlayerGame) -> float:
    return g.count("spawn_defender")


@FEATURES.feature("win_turn", 0, 50, 5,
          "round of victory (the last round the player acted, 0-based) over won games; "
          "a genome that never won sits at the top of the range (slower than any win)",
          missing="hi",
          game=GAME, words=('wins fast', 'wins mid-game', 'wins late'))
def _win_turn(g: PlayerGame) -> float:
    return float(g.last_round) if g.won else math.nan


@FEATURES.feature("research_slope", 0, 2, 0.2,
          "least-squares slope of technologies owned per round (end-of-turn snapshots)",
          game=GAME, words=('slow research', 'steady research', 'fast research'))
def _research_slope(g: PlayerGame) -> float:
    return slope(g.series.get("techs", ()))


@FEATURES.feature("tile_slope", 0, 2, 0.2,
          "least-squares slope of tiles owned per round (end-of-turn snapshots)",
          game=GAME, words=('slow expansion', 'steady expansion', 'fast expansion'))
def _tile_slope(g: PlayerGame) -> float:
    return slope(g.series.get("tiles", ()))


@FEATURES.feature("production", 0, 30, 3, "final production",
          game=GAME, words=('low production', 'medium production', 'high production'))
def _production(g: PlayerGame) -> float:
    return g.final("production")


@FEATURES.feature("cities", 0, 10, 1, "cities owned at the end",
          game=GAME, words=('few cities', 'some cities', 'many cities'))
def _cities(g: PlayerGame) -> float:
    return g.final("cities")


@FEATURES.feature("kills", 0, 20, 2, "enemy units killed per game",
          game=GAME, words=('few kills', 'some kills', 'many kills'))
def _kills(g: PlayerGame) -> float:
    return g.count("kills")


@FEATURES.feature("captures", 0, 10, 1, "capture actions (villages and cities) per game",
          game=GAME, words=('few captures', 'some captures', 'many captures'))
def _captures(g: PlayerGame) -> float:
    return g.count("captures")


@FEATURES.feature("buildings", 0, 40, 4, "buildings built per game",
          game=GAME, words=('few buildings', 'some buildings', 'many buildings'))
def _buildings(g: PlayerGame) -> float:
    return g.count("buildings")


@FEATURES.feature("score", 0, 12000, 1000, "final score",
          game=GAME, words=('low score', 'medium score', 'high score'))
def _score(g: PlayerGame) -> float:
    return g.final("score")
