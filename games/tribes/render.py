"""A readable terminal rendering of a Tribes position.

Each tile is a fixed-width cell: terrain, then what stands on it. A legend under the board
names every symbol, so the board can be read without knowing the code.
"""

from __future__ import annotations

from games.tribes import constants as K

TERRAIN_SYMBOL = {K.PLAIN: ".", K.SHALLOW: "~", K.DEEP: "≈", K.MOUNTAIN: "^", K.VILLAGE: "v",
                  K.CITY: "C", K.FOREST: "♣"}
RESOURCE_SYMBOL = {K.FISH: "h", K.FRUIT: "f", K.ANIMAL: "a", K.WHALES: "w", K.ORE: "o",
                   K.CROPS: "c", K.RUINS: "r"}
UNIT_SYMBOL = ("W", "R", "D", "S", "A", "C", "K", "M", "b", "s", "B", "G")
BUILDING_SYMBOL = {K.FARM: "F", K.WINDMILL: "W", K.LUMBER_HUT: "L", K.SAWMILL: "S", K.MINE: "M",
                   K.FORGE: "G", K.PORT: "P", K.CUSTOMS_HOUSE: "$", K.TEMPLE: "T",
                   K.WATER_TEMPLE: "T", K.MOUNTAIN_TEMPLE: "T", K.FOREST_TEMPLE: "T"}
ASCII_TERRAIN = {K.PLAIN: ".", K.SHALLOW: "s", K.DEEP: "d", K.MOUNTAIN: "m", K.VILLAGE: "v",
                 K.CITY: "c", K.FOREST: "f"}


def cell(s, i: int, ascii_only: bool = False) -> str:
    """Nine characters: territory owner, terrain, resource or building, road, then the unit
    (type, owner:HP) or, on a city centre, the city (owner and level)."""
    ter = s.terrain[i]
    t = (ASCII_TERRAIN if ascii_only else TERRAIN_SYMBOL)[ter]
    b = s.building[i]
    if b:
        extra = BUILDING_SYMBOL.get(b, "*")  # '*' is a monument
    else:
        extra = RESOURCE_SYMBOL.get(s.resource[i], " ")
    road = "=" if s.road[i] else " "
    uid = s.unit_at[i]
    if uid:
        u = s.units[uid]
        occ = f"{UNIT_SYMBOL[u.type]}{u.tribe}:{u.hp:<2}"
    elif ter == K.CITY and s.tile_city[i]:
        c = s.cities[s.tile_city[i]]
        occ = f"c{c.tribe} L{c.level}"
    else:
        occ = ""
    own = s.tile_city[i]
    owner = str(s.cities[own].tribe) if own else " "
    return f"{owner}{t}{extra}{road}{occ:<5} "


def render(s, ascii_only: bool = False) -> str:
    n = s.size
    lines = []
    header = "    " + "".join(f"{j:<10}" for j in range(n))
    lines.append(f"round {s.tick}, tribe {s.current} to play"
                 + (" (game over)" if s.game_over else ""))
    lines.append(header.rstrip())
    for x in range(n):
        row = "".join(cell(s, x * n + y, ascii_only) for y in range(n))
        lines.append(f"{x:>2}  {row}".rstrip())
    lines.append("")
    for t in s.tribes:
        status = {0: "", 1: " WIN", -1: " LOSS"}[t.result]
        techs = ", ".join(K.TECH_NAMES[i].lower() for i in range(K.NUM_TECHS) if t.has(i))
        lines.append(f"tribe {t.id} {K.TRIBE_NAMES[t.key]}: stars {t.stars}, score {t.score}, "
                     f"cities {len(t.cities)}, production {s.production(t.id)}, "
                     f"kills {t.kills}{status}; techs: {techs}")
    lines.append("")
    lines.append("cell = territory owner, terrain, resource or building, road '=', then a unit "
                 "<type><tribe>:<hp> or a city c<tribe> L<level>")
    terrain_legend = ASCII_TERRAIN if ascii_only else TERRAIN_SYMBOL
    lines.append("terrain: " + " ".join(f"{terrain_legend[k]}={K.TERRAIN_NAMES[k].lower()}"
                                        for k in terrain_legend))
    lines.append("units: " + " ".join(f"{sym}={K.UNIT_NAMES[k].lower()}"
                                      for k, sym in enumerate(UNIT_SYMBOL)))
    lines.append("resources: h=fish f=fruit a=animal w=whales o=ore c=crops r=ruins; "
                 "buildings: F=farm W=windmill L=lumber hut S=sawmill M=mine G=forge P=port "
                 "$=customs house T=temple *=monument")
    return "\n".join(lines)
