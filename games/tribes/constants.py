"""Tribes rule tables: terrain, resources, units, techs, buildings, level-up bonuses, tribes.

Everything is a small int so that the board is a handful of flat int lists (cheap to copy)
and the hot paths compare ints, not enum members. Names are kept in tuples, in the
reference engine's order, for rendering, traces and configs.
"""

from __future__ import annotations

# --- terrain -----------------------------------------------------------------------------
PLAIN, SHALLOW, DEEP, MOUNTAIN, VILLAGE, CITY, FOREST = range(7)
TERRAIN_NAMES = ("PLAIN", "SHALLOW_WATER", "DEEP_WATER", "MOUNTAIN", "VILLAGE", "CITY", "FOREST")
TERRAIN_CHARS = ".sdmvcf"
TERRAIN_OF_CHAR = {c: i for i, c in enumerate(TERRAIN_CHARS)}
IS_WATER = (False, True, True, False, False, False, False)

# --- resources (0 = none) -------------------------------------------------------------------
NO_RESOURCE, FISH, FRUIT, ANIMAL, WHALES, ORE, CROPS, RUINS = range(8)
RESOURCE_NAMES = ("NONE", "FISH", "FRUIT", "ANIMAL", "WHALES", "ORE", "CROPS", "RUINS")
RESOURCE_CHARS = "-hfawocr"
RESOURCE_OF_CHAR = {c: i for i, c in enumerate(RESOURCE_CHARS) if i}

# --- technologies, in the reference engine's order ----------------------------------------------
TECH_NAMES = (
    "CLIMBING", "FISHING", "HUNTING", "ORGANIZATION", "RIDING", "ARCHERY", "FARMING", "FORESTRY",
    "FREE_SPIRIT", "MEDITATION", "MINING", "ROADS", "SAILING", "SHIELDS", "WHALING", "AQUATISM",
    "CHIVALRY", "CONSTRUCTION", "MATHEMATICS", "NAVIGATION", "SMITHERY", "SPIRITUALISM", "TRADE",
    "PHILOSOPHY",
)
(CLIMBING, FISHING, HUNTING, ORGANIZATION, RIDING, ARCHERY, FARMING, FORESTRY, FREE_SPIRIT,
 MEDITATION, MINING, ROADS, SAILING, SHIELDS, WHALING, AQUATISM, CHIVALRY, CONSTRUCTION,
 MATHEMATICS, NAVIGATION, SMITHERY, SPIRITUALISM, TRADE, PHILOSOPHY) = range(24)
TECH_OF_NAME = {n: i for i, n in enumerate(TECH_NAMES)}
NUM_TECHS = len(TECH_NAMES)
ALL_TECHS_MASK = (1 << NUM_TECHS) - 1
_TECH_PARENT = {
    MEDITATION: CLIMBING, PHILOSOPHY: MEDITATION, MINING: CLIMBING, SMITHERY: MINING,
    WHALING: FISHING, AQUATISM: WHALING, SAILING: FISHING, NAVIGATION: SAILING,
    ARCHERY: HUNTING, SPIRITUALISM: ARCHERY, FORESTRY: HUNTING, MATHEMATICS: FORESTRY,
    FARMING: ORGANIZATION, CONSTRUCTION: FARMING, SHIELDS: ORGANIZATION,
    ROADS: RIDING, TRADE: ROADS, FREE_SPIRIT: RIDING, CHIVALRY: FREE_SPIRIT,
}
TECH_PARENT = tuple(_TECH_PARENT.get(t, -1) for t in range(NUM_TECHS))


def _tier(t: int) -> int:
    return 1 if TECH_PARENT[t] < 0 else 1 + _tier(TECH_PARENT[t])


TECH_TIER = tuple(_tier(t) for t in range(NUM_TECHS))

# --- units -----------------------------------------------------------------------------------
UNIT_NAMES = ("WARRIOR", "RIDER", "DEFENDER", "SWORDMAN", "ARCHER", "CATAPULT", "KNIGHT",
              "MIND_BENDER", "BOAT", "SHIP", "BATTLESHIP", "SUPERUNIT")
(WARRIOR, RIDER, DEFENDER, SWORDMAN, ARCHER, CATAPULT, KNIGHT, MIND_BENDER, BOAT, SHIP,
 BATTLESHIP, SUPERUNIT) = range(12)
UNIT_OF_NAME = {n: i for i, n in enumerate(UNIT_NAMES)}
#                  WAR RID DEF SWO ARC CAT KNI MIN BOA SHI BAT SUP
UNIT_COST =       (2,  3,  3,  5,  3,  8,  8,  5,  0,  5,  15, 10)
UNIT_HP =         (10, 10, 15, 15, 10, 10, 15, 10, 10, 10, 10, 40)
UNIT_ATK =        (2,  2,  1,  3,  2,  4,  4,  0,  1,  2,  4,  5)
UNIT_DEF =        (2,  1,  3,  3,  1,  0,  1,  1,  1,  2,  3,  4)
UNIT_MOV =        (1,  2,  1,  1,  1,  1,  3,  1,  2,  3,  3,  1)
UNIT_RANGE =      (1,  1,  1,  1,  2,  3,  1,  1,  2,  2,  2,  1)
UNIT_POINTS =     (10, 15, 15, 25, 15, 40, 40, 25, 0,  0,  0,  50)
UNIT_TECH =       (-1, RIDING, SHIELDS, SMITHERY, ARCHERY, MATHEMATICS, CHIVALRY, PHILOSOPHY,
                   SAILING, SAILING, NAVIGATION, -1)
UNIT_CAN_FORTIFY = (True, True, True, True, True, False, True, False, False, False, False, False)
UNIT_IS_NAVAL = (False,) * 8 + (True, True, True, False)
# melee units advance into the tile of a unit they kill
UNIT_ADVANCES = (True, True, True, True, False, False, True, False, False, False, False, True)
SPAWNABLE = (WARRIOR, RIDER, DEFENDER, SWORDMAN, ARCHER, CATAPULT, KNIGHT, MIND_BENDER)

# --- unit turn statuses and the per-type transition tables -------------------------------------
FRESH, MOVED, ATTACKED, MOVED_AND_ATTACKED, PUSHED, FINISHED = range(6)
STATUS_NAMES = ("FRESH", "MOVED", "ATTACKED", "MOVED_AND_ATTACKED", "PUSHED", "FINISHED")
NO = -1
# transition tables indexed by status -> resulting status, or NO if not allowed
_DASH_MOVE = (MOVED, NO, NO, NO, NO, NO)
_DASH_ATTACK = (FINISHED, FINISHED, NO, NO, NO, NO)
_ONE_MOVE = (FINISHED, NO, NO, NO, NO, NO)
_ONE_ATTACK = (FINISHED, NO, NO, NO, NO, NO)
# A Rider that attacked first gets one move only: the reference's move from ATTACKED sets
# MOVED_AND_ATTACKED and then FINISHED in the same call (attack-move-move never happens).
_RIDER_MOVE = (MOVED, NO, FINISHED, FINISHED, NO, NO)
_RIDER_ATTACK = (ATTACKED, MOVED_AND_ATTACKED, NO, NO, NO, NO)
_KNIGHT_ATTACK = (FINISHED, FINISHED, FINISHED, NO, NO, NO)
_SUPER_MOVE = (FINISHED, NO, NO, NO, NO, NO)
_SUPER_ATTACK = (FINISHED, FINISHED, NO, NO, NO, NO)
# The super unit's "can" checks follow the dash group but every transition ends in FINISHED,
# so after a move (FINISHED) it cannot attack: move OR attack.
AFTER_MOVE = (_DASH_MOVE, _RIDER_MOVE, _ONE_MOVE, _DASH_MOVE, _DASH_MOVE, _ONE_MOVE, _DASH_MOVE,
              _ONE_MOVE, _DASH_MOVE, _DASH_MOVE, _DASH_MOVE, _SUPER_MOVE)
AFTER_ATTACK = (_DASH_ATTACK, _RIDER_ATTACK, _ONE_ATTACK, _DASH_ATTACK, _DASH_ATTACK, _ONE_ATTACK,
                _KNIGHT_ATTACK, _ONE_ATTACK, _DASH_ATTACK, _DASH_ATTACK, _DASH_ATTACK,
                _SUPER_ATTACK)

# --- buildings (0 = none) -----------------------------------------------------------------------
BUILDING_NAMES = (
    "NONE", "FARM", "WINDMILL", "LUMBER_HUT", "SAWMILL", "MINE", "FORGE", "PORT", "CUSTOMS_HOUSE",
    "TEMPLE", "WATER_TEMPLE", "MOUNTAIN_TEMPLE", "FOREST_TEMPLE",
    "ALTAR_OF_PEACE", "EMPERORS_TOMB", "EYE_OF_GOD", "GATE_OF_POWER", "GRAND_BAZAR",
    "PARK_OF_FORTUNE", "TOWER_OF_WISDOM",
)
(NO_BUILDING, FARM, WINDMILL, LUMBER_HUT, SAWMILL, MINE, FORGE, PORT, CUSTOMS_HOUSE, TEMPLE,
 WATER_TEMPLE, MOUNTAIN_TEMPLE, FOREST_TEMPLE, ALTAR_OF_PEACE, EMPERORS_TOMB, EYE_OF_GOD,
 GATE_OF_POWER, GRAND_BAZAR, PARK_OF_FORTUNE, TOWER_OF_WISDOM) = range(20)
BUILDING_OF_NAME = {n: i for i, n in enumerate(BUILDING_NAMES) if i}
TEMPLES = frozenset((TEMPLE, WATER_TEMPLE, MOUNTAIN_TEMPLE, FOREST_TEMPLE))
MONUMENTS = (ALTAR_OF_PEACE, EMPERORS_TOMB, EYE_OF_GOD, GATE_OF_POWER, GRAND_BAZAR,
             PARK_OF_FORTUNE, TOWER_OF_WISDOM)
IS_MONUMENT = tuple(b in MONUMENTS for b in range(len(BUILDING_NAMES)))
BUILDING_COST = {FARM: 5, WINDMILL: 5, LUMBER_HUT: 2, SAWMILL: 5, MINE: 5, FORGE: 5, PORT: 10,
                 CUSTOMS_HOUSE: 5, TEMPLE: 20, WATER_TEMPLE: 20, MOUNTAIN_TEMPLE: 20,
                 FOREST_TEMPLE: 15, **{m: 0 for m in MONUMENTS}}
BUILDING_TECH = {FARM: FARMING, WINDMILL: CONSTRUCTION, LUMBER_HUT: FORESTRY, SAWMILL: MATHEMATICS,
                 MINE: MINING, FORGE: SMITHERY, PORT: SAILING, CUSTOMS_HOUSE: TRADE,
                 TEMPLE: FREE_SPIRIT, WATER_TEMPLE: AQUATISM, MOUNTAIN_TEMPLE: MEDITATION,
                 FOREST_TEMPLE: SPIRITUALISM, ALTAR_OF_PEACE: MEDITATION, EMPERORS_TOMB: TRADE,
                 EYE_OF_GOD: NAVIGATION, GATE_OF_POWER: -1, GRAND_BAZAR: ROADS,
                 PARK_OF_FORTUNE: -1, TOWER_OF_WISDOM: PHILOSOPHY}
_MONUMENT_TERRAIN = frozenset((PLAIN, SHALLOW))
BUILDING_TERRAIN = {FARM: frozenset((PLAIN,)), WINDMILL: frozenset((PLAIN,)),
                    LUMBER_HUT: frozenset((FOREST,)), SAWMILL: frozenset((PLAIN,)),
                    MINE: frozenset((MOUNTAIN,)), FORGE: frozenset((PLAIN,)),
                    PORT: frozenset((SHALLOW,)), CUSTOMS_HOUSE: frozenset((PLAIN,)),
                    TEMPLE: frozenset((PLAIN,)), WATER_TEMPLE: frozenset((SHALLOW, DEEP)),
                    MOUNTAIN_TEMPLE: frozenset((MOUNTAIN,)), FOREST_TEMPLE: frozenset((FOREST,)),
                    **{m: _MONUMENT_TERRAIN for m in MONUMENTS}}
BUILDING_RESOURCE = {FARM: CROPS, MINE: ORE}
# producer building -> (base building it feeds on, population per adjacent base)
PRODUCER = {WINDMILL: (FARM, 1), SAWMILL: (LUMBER_HUT, 1), FORGE: (MINE, 2),
            CUSTOMS_HOUSE: (PORT, 2)}
BASE_OF = {FARM: WINDMILL, LUMBER_HUT: SAWMILL, MINE: FORGE, PORT: CUSTOMS_HOUSE}
UNIQUE_PER_CITY = frozenset(PRODUCER)
# own population from a building
BUILDING_POP = {FARM: 2, LUMBER_HUT: 1, MINE: 2, PORT: 2, TEMPLE: 1, WATER_TEMPLE: 1,
                MOUNTAIN_TEMPLE: 1, FOREST_TEMPLE: 1, **{m: 3 for m in MONUMENTS}}
TEMPLE_POINTS = (0, 100, 50, 50, 50, 150)  # points for reaching level i
MONUMENT_POINTS = 400
# monument status
UNAVAILABLE, AVAILABLE, BUILT = range(3)
MONUMENT_STATUS_NAMES = ("UNAVAILABLE", "AVAILABLE", "BUILT")

# --- level-up bonuses ------------------------------------------------------------------------------
BONUS_NAMES = ("WORKSHOP", "EXPLORER", "CITY_WALL", "RESOURCES", "POP_GROWTH", "BORDER_GROWTH",
               "PARK", "SUPERUNIT")
WORKSHOP, EXPLORER, CITY_WALL, RESOURCES, POP_GROWTH, BORDER_GROWTH, PARK, SUPERUNIT_BONUS = range(8)
BONUS_OF_NAME = {n: i for i, n in enumerate(BONUS_NAMES)}


def level_up_bonuses(level: int) -> tuple[int, int]:
    """The two choices offered to a city levelling up *from* `level`."""
    if level == 1:
        return (WORKSHOP, EXPLORER)
    if level == 2:
        return (CITY_WALL, RESOURCES)
    if level == 3:
        return (POP_GROWTH, BORDER_GROWTH)
    return (PARK, SUPERUNIT_BONUS)


def level_up_points(level_reached: int) -> int:
    return {2: 40, 3: 35, 4: 30}.get(level_reached, 25)


# ruins outcomes, in the reference draw order
RUINS_BONUS_NAMES = ("SUPERUNIT", "RESEARCH", "POP_GROWTH", "EXPLORER", "RESOURCES")
RUINS_SUPERUNIT, RUINS_RESEARCH, RUINS_POP_GROWTH, RUINS_EXPLORER, RUINS_RESOURCES = range(5)

# --- tribes ------------------------------------------------------------------------------------------
INCOMPLETE, WIN, LOSS = 0, 1, -1
"""A tribe's result."""

from games.tribes.level import TRIBE_NAMES  # noqa: E402,F401  (defined once, with the level format)

LUXIDOOR = 6
TRIBE_START_TECH = (CLIMBING, ORGANIZATION, HUNTING, RIDING, FISHING, ARCHERY, -1, SMITHERY,
                    FARMING, MEDITATION, SHIELDS, ROADS)
TRIBE_START_UNIT = (WARRIOR, WARRIOR, WARRIOR, RIDER, WARRIOR, ARCHER, WARRIOR, SWORDMAN, WARRIOR,
                    WARRIOR, DEFENDER, WARRIOR)

# --- modes and results -----------------------------------------------------------------------------
CAPITALS, SCORE = "capitals", "score"
DEFAULT_ROUNDS = {CAPITALS: 50, SCORE: 30}
DEFAULT_MAP_SIZE = {2: 11, 3: 14, 4: 16, 5: 18, 6: 20, 7: 22, 8: 24}
START_STARS = 5

# 8-neighbourhood offsets in (dx, dy); push order for displaced units
PUSH_OFFSETS = ((0, 1), (-1, 0), (0, -1), (1, 0), (-1, 1), (-1, -1), (1, -1), (1, 1))
