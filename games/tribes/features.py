"""The behaviour features of Tribes: what a play-style does, read from the game's event log.

Each is one per-game function registered for the game "tribes" (see `qd.features`), with the
words that name a low, middle and high value in exported styles. The events they read are
logged by the engine (`games/tribes/rules.py`): counts such as `attacks`, `kills`,
`spawn_<unit>`, and the end-of-turn snapshots in `games.tribes.game.SNAPSHOT_EVENTS`.
"""

from __future__ import annotations

import math

from games.tribes import constants as K
from qd.features import FeatureTable, PlayerGame, slope

GAME = "tribes"
FEATURES = FeatureTable(GAME)
"""The game's behaviour features (registered by its plug-in)."""
MONUMENT_NAMES = tuple(K.BUILDING_NAMES[b] for b in K.MONUMENTS)


@FEATURES.feature("attacks", 0, 20, 2, "attack actions per game",
                  words=('few attacks', 'some attacks', 'many attacks'))
def _attacks(g: PlayerGame) -> float:
    return g.count("attacks")


@FEATURES.feature("ranged_minus_melee", -5, 5, 1,
                  "archers + catapults minus swordsmen + knights spawned, per game",
                  words=('melee army', 'mixed army', 'ranged support'))
def _ranged_minus_melee(g: PlayerGame) -> float:
    return (g.count("spawn_archer", "spawn_catapult")
            - g.count("spawn_swordman", "spawn_knight"))


@FEATURES.feature("defender_spawns", 0, 10, 1, "defenders spawned per game",
                  words=('few defenders', 'some defenders', 'many defenders'))
def _defender_spawns(g: PlayerGame) -> float:
    return g.count("spawn_defender")


@FEATURES.feature("win_turn", 0, 50, 5,
                  "round of victory (the last round the player acted, 0-based) over won games; "
                  "a genome that never won sits at the top of the range (slower than any win)",
                  missing="hi", words=('wins fast', 'wins mid-game', 'wins late'))
def _win_turn(g: PlayerGame) -> float:
    return float(g.last_round) if g.won else math.nan


@FEATURES.feature("research_slope", 0, 2, 0.2,
                  "least-squares slope of technologies owned per round (end-of-turn snapshots)",
                  words=('slow research', 'steady research', 'fast research'))
def _research_slope(g: PlayerGame) -> float:
    return slope(g.series.get("techs", ()))


@FEATURES.feature("tile_slope", 0, 2, 0.2,
                  "least-squares slope of tiles owned per round (end-of-turn snapshots)",
                  words=('slow expansion', 'steady expansion', 'fast expansion'))
def _tile_slope(g: PlayerGame) -> float:
    return slope(g.series.get("tiles", ()))


@FEATURES.feature("production", 0, 30, 3, "final production",
                  words=('low production', 'medium production', 'high production'))
def _production(g: PlayerGame) -> float:
    return g.final("production")


@FEATURES.feature("cities", 0, 10, 1, "cities owned at the end",
                  words=('few cities', 'some cities', 'many cities'))
def _cities(g: PlayerGame) -> float:
    return g.final("cities")


@FEATURES.feature("kills", 0, 20, 2, "enemy units killed per game",
                  words=('few kills', 'some kills', 'many kills'))
def _kills(g: PlayerGame) -> float:
    return g.count("kills")


@FEATURES.feature("captures", 0, 10, 1, "capture actions (villages and cities) per game",
                  words=('few captures', 'some captures', 'many captures'))
def _captures(g: PlayerGame) -> float:
    return g.count("captures")


@FEATURES.feature("buildings", 0, 40, 4, "buildings built per game",
                  words=('few buildings', 'some buildings', 'many buildings'))
def _buildings(g: PlayerGame) -> float:
    return g.count("buildings")


@FEATURES.feature("score", 0, 12000, 1000, "final score",
                  words=('low score', 'medium score', 'high score'))
def _score(g: PlayerGame) -> float:
    return g.final("score")


# What a person watching the board sees a research branch lead to (measured: one-hot research
# genomes move these more than any count above; docs/qd.md, "Styles you can see").
@FEATURES.feature("forestry", 0, 10, 1,
                  "forest work per game: forests cleared, burnt or grown, lumber huts and sawmills built",
                  words=('leaves the forests', 'some forest work', 'works the forests'))
def _forestry(g: PlayerGame) -> float:
    return g.count("forest_actions", "build_lumber_hut", "build_sawmill")


@FEATURES.feature("mining", 0, 6, 1, "mines and forges built per game",
                  words=('no mining', 'some mining', 'mines and forges'))
def _mining(g: PlayerGame) -> float:
    return g.count("build_mine", "build_forge")


@FEATURES.feature("ports", 0, 5, 1, "ports built per game",
                  words=('stays ashore', 'a port', 'builds ports'))
def _ports(g: PlayerGame) -> float:
    return g.count("build_port")


@FEATURES.feature("farming", 0, 6, 1, "farms and windmills built per game",
                  words=('no farms', 'some farms', 'farms and windmills'))
def _farming(g: PlayerGame) -> float:
    return g.count("build_farm", "build_windmill")


@FEATURES.feature("monuments", 0, 4, 1, "monuments built per game",
                  words=('no monuments', 'a monument', 'monuments'))
def _monuments(g: PlayerGame) -> float:
    return g.count(*(f"build_{n.lower()}" for n in MONUMENT_NAMES))


@FEATURES.feature("defender_share", 0, 1, 0.25,
                  "share of defenders among the units spawned; undefined when none was spawned",
                  words=('few defenders', 'some defenders', 'a defensive army'))
def _defender_share(g: PlayerGame) -> float:
    spawned = g.count(*(f"spawn_{n.lower()}" for n in K.UNIT_NAMES))
    return g.count("spawn_defender") / spawned if spawned else math.nan
