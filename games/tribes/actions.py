"""Tribes actions and their legality: which actions the current tribe may take.

An action is a plain tuple `(kind, actor, target, extra)`: cheap to build and hash, and its
first two fields give the portfolio grouping (action type, actor) directly. The actor is a unit
or city id, or 0 for the tribe itself (only the current tribe acts). `target` is a tile index,
a unit id, a tech, a unit type or a level-up bonus, depending on the kind; `extra` is the
building for BUILD and -1 otherwise.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from heapq import heappop, heappush

from games.sequences import contains
from games.tribes import constants as K

ACTION_NAMES = (
    "LEVEL_UP", "BUILD", "RESOURCE_GATHERING", "CLEAR_FOREST", "BURN_FOREST", "GROW_FOREST",
    "DESTROY", "SPAWN",
    "MOVE", "ATTACK", "CAPTURE", "CONVERT", "HEAL_OTHERS", "RECOVER", "EXAMINE", "DISBAND",
    "MAKE_VETERAN", "UPGRADE_BOAT", "UPGRADE_SHIP",
    "RESEARCH_TECH", "BUILD_ROAD", "END_TURN",
)
(LEVEL_UP, BUILD, RESOURCE_GATHERING, CLEAR_FOREST, BURN_FOREST, GROW_FOREST, DESTROY, SPAWN,
 MOVE, ATTACK, CAPTURE, CONVERT, HEAL_OTHERS, RECOVER, EXAMINE, DISBAND, MAKE_VETERAN,
 UPGRADE_BOAT, UPGRADE_SHIP, RESEARCH_TECH, BUILD_ROAD, END_TURN) = range(len(ACTION_NAMES))
ACTION_OF_NAME = {n: i for i, n in enumerate(ACTION_NAMES)}
CITY_ACTIONS = frozenset(range(LEVEL_UP, SPAWN + 1))
UNIT_ACTIONS = frozenset(range(MOVE, UPGRADE_SHIP + 1))
TRIBE_ACTIONS = frozenset((RESEARCH_TECH, BUILD_ROAD, END_TURN))
TRIBE_ACTOR = 0

GATHER_TECH = {K.FISH: K.FISHING, K.FRUIT: K.ORGANIZATION, K.ANIMAL: K.HUNTING, K.WHALES: K.WHALING}
GATHER_COST = {K.FISH: 2, K.FRUIT: 2, K.ANIMAL: 2, K.WHALES: 0}


def end_turn() -> tuple:
    return (END_TURN, TRIBE_ACTOR, -1, -1)


# ------------------------------------------------------------------------------- movement
_MOUNTAIN, _SHALLOW, _DEEP, _CITY, _FOREST, _PORT = (K.MOUNTAIN, K.SHALLOW, K.DEEP, K.CITY, K.FOREST,
                                                  K.PORT)
_IS_WATER = K.IS_WATER
_MIND_BENDER = K.MIND_BENDER
_IS_NAVAL = K.UNIT_IS_NAVAL
_NO_TILES: frozenset[int] = frozenset()


def reachable(s, uid: int) -> dict[int, float]:
    """Tiles a unit can reach this turn with the least movement spent (Dijkstra over
    8-neighbour steps with the reference's step rules, including the `floor` overshoot).

    The result is cached in the state (shared with copies and with later positions while it
    stays valid, `TribesState.apply`): do not modify it. This is the hot spot of action
    listing, hence the local names."""
    u = s.units[uid]
    tid = u.tribe
    techs = s.tribes[tid].techs & _MOVE_TECHS  # the only technologies movement reads
    e = s._reach.get(uid)
    if e is not None and e[1] == u.pos and e[2] == u.type and e[3] == techs and e[0] == tid:
        return e[4]
    out, stepped = _reachable(s, u, tid, techs)
    s._reach[uid] = (tid, u.pos, u.type, techs, out, stepped)
    return out


_CLIMBING, _SAILING, _NAVIGATION = K.CLIMBING, K.SAILING, K.NAVIGATION
_ROADS, _FREE_SPIRIT, _CONSTRUCTION = K.ROADS, K.FREE_SPIRIT, K.CONSTRUCTION
_FORESTRY, _CHIVALRY, _SPIRITUALISM = K.FORESTRY, K.CHIVALRY, K.SPIRITUALISM
_MOVE_TECHS = 1 << _CLIMBING | 1 << _SAILING | 1 << _NAVIGATION
_UNIT_MOV = tuple(float(m) for m in K.UNIT_MOV)
_LAND_ENTRY = tuple(tuple(tuple(
    0 if t == K.DEEP or t == K.MOUNTAIN and not climbing or t == K.SHALLOW and not sailing
    else 3 if t == K.SHALLOW else 2 if t in (K.MOUNTAIN, K.FOREST) else 1
    for t in range(len(K.TERRAIN_NAMES))) for sailing in (0, 1)) for climbing in (0, 1))
"""_LAND_ENTRY[climbing][sailing][terrain]: how a land unit enters a tile: 0 never, 1 for a
move, 2 for all its moves, 3 for all its moves and only onto a port (no port is built on deep
water)."""
_NAVAL_ENTRY = tuple(tuple(tuple(tuple(
    not (t == K.MOUNTAIN and not climbing or t == K.SHALLOW and not sailing
         or t == K.DEEP and not navigation)
    for t in range(len(K.TERRAIN_NAMES))) for navigation in (0, 1)) for sailing in (0, 1))
    for climbing in (0, 1))
"""_NAVAL_ENTRY[climbing][sailing][navigation][terrain]: whether a boat may enter a tile."""


# One function on purpose (the reference's movement rules, branch by branch, in its order;
# split, the order that decides ties would be hard to see): exempt from the size checks.
def _reachable(s, u, tid: int, techs: int,  # noqa: C901 (see above)
               shortcuts: bool = True) -> tuple[dict[int, float], list[int]]:
    """(`reachable`, the tiles the search stepped from: the only tiles whose neighbours'
    terrain, road, port and zone of control it read), by Dijkstra's search, or by a
    shortcut for land units of one move and for boats that finds the same tiles with the
    same costs in the same order (`shortcuts=False`: Dijkstra's search for every unit)."""
    ut = u.type
    mov = _UNIT_MOV[ut]
    naval = _IS_NAVAL[ut]
    climbing = techs >> _CLIMBING & 1
    sailing = techs >> _SAILING & 1
    mind_bender = ut == _MIND_BENDER
    terrain, unit_at, units, building, road = s.terrain, s.unit_at, s.units, s.building, s.road
    tile_city, cities, nbrs = s.tile_city, s.cities, s._nbrs

    start = u.pos
    if mov == 1.0 and not naval and shortcuts:
        # the common case, a land unit of one move: a first step spends the whole turn, or
        # half of it along a road (then one more step is left); Dijkstra's order is the first
        # ring in neighbour order, then the second ring from the half-step tiles in tile order
        enter = _LAND_ENTRY[climbing][sailing]
        along = road[start] or terrain[start] == _CITY
        if along:
            ca = tile_city[start]
            along = not ca or cities[ca].tribe == tid
        zoc = s.zoc_tiles(tid) if along else _NO_TILES  # off a road every step costs it all
        best = {start: 0.0}
        stepped = [start]
        spent = 0.0
        ring = (start,)
        while True:
            halves = []
            for a in ring:
                if spent:
                    stepped.append(a)
                    ca = tile_city[a]  # reached along a road or into a city
                    along = not ca or cities[ca].tribe == tid
                for b in nbrs[a]:
                    occ = unit_at[b]
                    if occ and units[occ].tribe != tid:
                        continue
                    tb = terrain[b]
                    e = enter[tb]
                    if not e or e == 3 and building[b] != _PORT:
                        continue
                    if mind_bender and tb == _CITY:
                        cb = tile_city[b]
                        if cb and cities[cb].tribe != tid:
                            continue
                    if b in zoc or along and (road[b] or tb == _CITY):
                        ns = spent + 0.5 if spent or b not in zoc else 1.0
                    else:
                        ns = spent + (1.0 if e == 1 or not spent else 0.5)
                    if ns < best.get(b, 2.0):
                        best[b] = ns
                        if ns == 0.5:
                            halves.append(b)
            if not halves or spent:
                break
            spent = 0.5
            ring = halves  # in tile order, as the neighbour tables are
        del best[start]
        return best, stepped
    if naval and shortcuts:
        # a boat spends one move per water tile and all its moves to land or into a zone of
        # control: a search by whole moves, each step's tiles in tile order, is Dijkstra's
        enter = _NAVAL_ENTRY[climbing][sailing][techs >> _NAVIGATION & 1]
        zoc = s.zoc_tiles(tid)
        is_water = _IS_WATER
        best = {start: 0.0}
        stepped = []
        spent = 0.0
        ring = [start]
        while ring:
            nxt = []
            for a in ring:
                stepped.append(a)
                for b in nbrs[a]:
                    occ = unit_at[b]
                    if occ and units[occ].tribe != tid:
                        continue
                    tb = terrain[b]
                    if not enter[tb]:
                        continue
                    ns = spent + 1.0 if is_water[tb] and b not in zoc else mov
                    if ns < best.get(b, 1e9):
                        best[b] = ns
                        if ns < mov:
                            nxt.append(b)
            spent += 1.0
            nxt.sort()
            ring = nxt
        del best[start]
        return best, stepped
    navigation = techs >> _NAVIGATION & 1
    zoc = s.zoc_tiles(tid)
    is_water = _IS_WATER
    best = {start: 0.0}
    heap = [(0.0, start)]
    stepped = []
    while heap:
        spent, a = heappop(heap)
        if spent > best[a] or spent == mov:
            continue
        stepped.append(a)
        a_road = road[a] or terrain[a] == _CITY
        if a_road:
            ca = tile_city[a]
            a_road = not ca or cities[ca].tribe == tid
        rest = mov - spent if spent < mov else mov
        for b in nbrs[a]:
            occ = unit_at[b]
            if occ and units[occ].tribe != tid:
                continue
            tb = terrain[b]
            if tb == _MOUNTAIN:
                if not climbing:
                    continue
            elif tb == _SHALLOW:
                if not sailing:
                    continue
            elif tb == _DEEP:
                if not navigation:
                    continue
            elif mind_bender and tb == _CITY:
                cb = tile_city[b]
                if cb and cities[cb].tribe != tid:
                    continue
            if naval:
                cost = 1.0 if is_water[tb] else rest
            else:
                if is_water[tb]:
                    if building[b] != _PORT:
                        continue
                    cost = rest
                elif tb == _FOREST or tb == _MOUNTAIN:
                    cost = rest
                else:
                    cost = 1.0
                if a_road and (road[b] or tb == _CITY):
                    cost = cost / 2 if cost > 1.0 else 0.5
            if b in zoc:
                cost = rest
                if spent + cost > mov:
                    continue
            elif int(spent + cost) > mov:
                continue
            ns = spent + cost
            if ns < best.get(b, 1e9):
                best[b] = ns
                heappush(heap, (ns, b))
    del best[start]
    return best, stepped


def move_destinations(s, uid: int) -> list[int]:
    unit_at = s.unit_at
    return [t for t in reachable(s, uid) if not unit_at[t]]


# ------------------------------------------------------------------------------- listing
def list_actions(s) -> list[tuple]:
    """Every legal action of the current tribe (empty once the game is over).

    Each actor's actions are kept in `s._lists` (actor id -> [its actions in listing order,
    the same grouped by kind or None until asked for]), which later positions inherit while
    they stay valid (`TribesState.apply`, `lists_of`)."""
    if s.game_over:
        return []
    blocking = level_up_city(s)
    if blocking:  # level-up blocks everything else
        return level_up_actions(s, blocking)
    out: list[tuple] = []
    for e in _entries(s):
        out += e[0]
    return out


def _entries(s, actors: list | None = None) -> list:
    """The entries of `s._lists` of every actor with actions, in listing order (cities,
    units on their tiles, the tribe), listing those the position does not have yet; their
    actors are appended to `actors` if given. The game must not be over and no level-up may
    be pending."""
    tid = s.current
    tribe = s.tribes[tid]
    lists = lists_of(s)
    out = []
    candidates = None
    for cid in tribe.cities:
        e = lists.get(cid)
        if e is None:  # as `actor_entry` (written out: the listing's inner loop)
            if candidates is None:
                candidates = tribe_buildings(tribe)
            acts = []
            city_actions(s, cid, acts, candidates)
            e = lists[cid] = [acts, None]
        if e[0]:
            out.append(e)
            if actors is not None:
                actors.append(cid)
    unit_at, units, cities = s.unit_at, s.units, s.cities
    every_unit = s.options.reference_bugs
    for group in [cities[cid].units for cid in tribe.cities] + [tribe.extra_units]:
        for uid in group:  # `TribesState.tribe_units`, in its order
            u = units[uid]
            if every_unit or unit_at[u.pos] == uid:
                e = lists.get(uid)
                if e is None:
                    acts = []
                    unit_actions(s, uid, acts)
                    e = lists[uid] = [acts, None]
                if e[0]:
                    out.append(e)
                    if actors is not None:
                        actors.append(uid)
    e = lists.get(TRIBE_ACTOR)
    if e is None:
        e = actor_entry(s, TRIBE_ACTOR)
    out.append(e)
    if actors is not None:
        actors.append(TRIBE_ACTOR)
    return out


def lists_of(s) -> dict:
    """`s._lists`, worked out first if the last action left it pending: `TribesState.apply`
    keeps what `lists_kept` needs (`s._carry`) and calls nothing until the position is listed
    or played on (neither changes the position before this runs).

    Args:
        s: the position.
    """
    lists = s._lists
    if lists is None:
        action, before_lists, before, near, spending = s._carry
        lists = s._lists = lists_kept(s, action=action, lists=before_lists, before=before,
                                      near=near, spending=spending)
        s._carry = None
    return lists


def level_up_city(s) -> int:
    """The first city of the current tribe that must level up (its level-up blocks every
    other action), or 0."""
    cities = s.cities
    for cid in s.tribes[s.current].cities:
        c = cities[cid]
        if c.pop >= c.pop_need:
            return cid
    return 0


def level_up_actions(s, cid: int) -> list[tuple]:
    """The level-up choices of a city that must level up."""
    return [(LEVEL_UP, cid, b, -1) for b in K.level_up_bonuses(s.cities[cid].level)]


def actor_entry(s, actor: int, candidates: list[int] | None = None) -> list:
    """One actor's entry of `s._lists` ([its actions, grouped by kind or None]), listed now
    if the position does not have it yet. The actor must be one `list_actions` lists (a city
    or a unit on its tile of the current tribe, or the tribe), and no level-up may be pending.

    Args:
        s: the position.
        actor: the actor's id (`TRIBE_ACTOR` for the tribe).
        candidates: the tribe's affordable building types (`tribe_buildings`), for a city.
    """
    lists = lists_of(s)
    e = lists.get(actor)
    if e is None:
        acts: list = []
        if actor == TRIBE_ACTOR:
            tribe_actions(s, acts)
        elif actor in s.cities:
            city_actions(s, actor, acts, candidates)
        else:
            unit_actions(s, actor, acts)
        e = lists[actor] = [acts, None]
    return e


def _grouped(e: list) -> dict:
    """An entry's actions grouped by kind (computed once per entry)."""
    g = e[1]
    if g is None:
        g = e[1] = {}
        last = None
        for a in e[0]:  # an actor's actions mostly come in runs of one kind
            k = a[0]
            if k != last:
                lst = g.get(k)
                if lst is None:
                    lst = g[k] = []
                last = k
            lst.append(a)
    return g


def group_by_actor(s) -> dict:
    """The legal actions grouped actor -> kind -> actions, in listing order (shared between
    positions with `s._lists`: do not modify). Lists no more than `list_actions` would, and
    does not build the flat list.

    Args:
        s: the position.
    """
    if s.game_over:
        return {}
    blocking = level_up_city(s)
    if blocking:
        return {blocking: {LEVEL_UP: level_up_actions(s, blocking)}}
    actors: list = []
    entries = _entries(s, actors)
    return {actor: e[1] if e[1] is not None else _grouped(e)
            for actor, e in zip(actors, entries)}


# ------------------------------------------------------------------------------- one actor
def _is_actor(s, actor: int) -> bool:
    """Whether `list_actions` lists `actor`'s actions (when no level-up is pending)."""
    if actor == TRIBE_ACTOR:
        return True
    tribe = s.tribes[s.current]
    if actor in s.cities:
        return actor in tribe.cities
    u = s.units.get(actor)
    return (u is not None and u.tribe == s.current
            and (s.options.reference_bugs or s.unit_at[u.pos] == actor))


def actor_groups(s, actor: int) -> dict:
    """One actor's legal actions grouped by kind, equal to `group_by_actor(s).get(actor, {})`,
    listing only that actor (shared with `s._lists`: do not modify).

    Args:
        s: the position.
        actor: a unit or city id, or `TRIBE_ACTOR`.
    """
    if s.game_over:
        return {}
    blocking = level_up_city(s)
    if blocking:
        return {LEVEL_UP: level_up_actions(s, blocking)} if actor == blocking else {}
    if not _is_actor(s, actor):
        return {}
    return _grouped(actor_entry(s, actor))


def is_legal(s, action: tuple) -> bool:
    """Whether `action` is legal, listing only its actor's actions when the position's legal
    actions are not listed yet.

    Args:
        s: the position.
        action: any action tuple.
    """
    legal = s._legal
    if legal is not None:
        return contains(action, legal)
    if s.game_over:
        return False
    blocking = level_up_city(s)
    if blocking:
        return contains(action, level_up_actions(s, blocking))
    if not isinstance(action, tuple) or len(action) != 4:
        return False
    actor = action[1]
    try:
        if not _is_actor(s, actor):
            return False
    except TypeError:  # an unhashable actor
        return False
    return contains(action, actor_entry(s, actor)[0])


def actor_kinds(s) -> list[tuple[int, tuple]]:
    """The actors `list_actions` may list, each with the kinds of action it may have (a
    superset, found without listing: a unit's type, status and tile, a city's room for units,
    the tribe's technologies and stars), in listing order; shared tuples, cheap to hash.

    Args:
        s: the position.
    """
    if s.game_over:
        return []
    blocking = level_up_city(s)
    if blocking:
        return [(blocking, _LEVEL_UP_KINDS)]
    tid = s.current
    tribe = s.tribes[tid]
    techs, stars = tribe.techs, tribe.stars
    cities, unit_at = s.cities, s.unit_at
    city_key = (bool(techs >> K.FORESTRY & 1), bool(techs >> K.CONSTRUCTION & 1),
                stars >= 5 and bool(techs >> K.CHIVALRY & 1),
                stars >= 5 and bool(techs >> K.SPIRITUALISM & 1))
    out = []
    for cid in tribe.cities:
        c = cities[cid]
        out.append((cid, _CITY_KINDS[(len(c.units) < c.level + 1 and not unit_at[c.pos],)
                                     + city_key]))
    units, every_unit = s.units, s.options.reference_bugs
    terrain, resource = s.terrain, s.resource
    free_spirit = bool(techs >> K.FREE_SPIRIT & 1)
    for uid in s.tribe_units(tid):
        u = units[uid]
        pos = u.pos
        if every_unit or unit_at[pos] == uid:
            st = u.status
            if st == K.FRESH:
                key = (u.type, st, u.kills >= 3 and not u.veteran, 0 < u.hp < u.max_hp,
                       terrain[pos] in _CAPTURABLE, resource[pos] == K.RUINS, free_spirit)
            else:
                key = (u.type, st, u.kills >= 3 and not u.veteran)
            kinds = _UNIT_KINDS.get(key)
            if kinds is None:
                kinds = _UNIT_KINDS[key] = _unit_kinds(*key)
            if kinds:
                out.append((uid, kinds))
    out.append((TRIBE_ACTOR, _TRIBE_KINDS[bool(techs >> K.ROADS & 1) and stars >= 2]))
    return out


_LEVEL_UP_KINDS = (LEVEL_UP,)
_CAPTURABLE = frozenset((K.VILLAGE, K.CITY))
_TRIBE_KINDS = {False: (RESEARCH_TECH, END_TURN), True: (RESEARCH_TECH, BUILD_ROAD, END_TURN)}


def _city_kinds(spawn: bool, forestry: bool, destroy: bool, burn: bool, grow: bool) -> tuple:
    flags = ((SPAWN, spawn), (BUILD, True), (RESOURCE_GATHERING, True), (CLEAR_FOREST, forestry),
             (BURN_FOREST, burn), (GROW_FOREST, grow), (DESTROY, destroy))
    return tuple(kind for kind, on in flags if on)


_CITY_KINDS = {key: _city_kinds(*key) for key in
               [(a, b, c, d, e) for a in (False, True) for b in (False, True)
                for c in (False, True) for d in (False, True) for e in (False, True)]}
_UNIT_KINDS: dict[tuple, tuple] = {}


def _unit_kinds(ut: int, st: int, veteran: bool, hurt: bool = False, capture: bool = False,
                ruins: bool = False, disband: bool = False) -> tuple:
    """The kinds `unit_actions` may list for a unit of type `ut` in status `st` (the rest as
    in `actor_kinds`)."""
    out = []
    if ut == K.BOAT:
        out.append(UPGRADE_BOAT)
    elif ut == K.SHIP:
        out.append(UPGRADE_SHIP)
    if st == K.FINISHED:
        return tuple(out)
    if veteran and ut != K.SUPERUNIT:
        out.append(MAKE_VETERAN)
    if st == K.PUSHED:
        return tuple(out)
    if K.AFTER_MOVE[ut][st] != K.NO:
        out.append(MOVE)
    if K.AFTER_ATTACK[ut][st] != K.NO and ut != K.MIND_BENDER:
        out.append(ATTACK)
    if st == K.FRESH:
        if capture and not K.UNIT_IS_NAVAL[ut]:
            out.append(CAPTURE)
        if ruins:
            out.append(EXAMINE)
        if hurt:
            out.append(RECOVER)
        if disband:
            out.append(DISBAND)
        if ut == K.MIND_BENDER:
            out += (CONVERT, HEAL_OTHERS)
    return tuple(out)


CARRY_LISTS = frozenset((
    MOVE, SPAWN, RESEARCH_TECH, RESOURCE_GATHERING, DESTROY, BUILD, BUILD_ROAD, CLEAR_FOREST,
    BURN_FOREST, GROW_FOREST, DISBAND, RECOVER, HEAL_OTHERS, MAKE_VETERAN, UPGRADE_BOAT,
    UPGRADE_SHIP, ATTACK))
"""Actions after which some actors' actions are carried over to the new position
(`lists_kept`), and the mover's units keep what they can reach (`TribesState.apply`), but
for the units near a reshaped tile and after an attack that kills; after any other action
everything is listed again. A unit that moved, was replaced or whose tribe learnt a technology
of movement is recomputed anyway, since its reach entry records its tribe, position, type and
the tribe's technologies of movement."""

UNIT_ON_TILE = frozenset((MOVE, DISBAND, RECOVER, HEAL_OTHERS, MAKE_VETERAN, UPGRADE_BOAT,
                          UPGRADE_SHIP, ATTACK))
"""Actions whose `before` (`lists_kept`) is the acting unit's tile."""

_UPGRADABLE = frozenset((K.BOAT, K.SHIP))
_UNIT_LIST_TECHS = frozenset((K.CLIMBING, K.SAILING, K.NAVIGATION, K.FREE_SPIRIT))
_RESHAPING = frozenset((BUILD_ROAD, CLEAR_FOREST, BURN_FOREST, GROW_FOREST))
_KEEPS_CITIES = frozenset((RECOVER, HEAL_OTHERS, MAKE_VETERAN, ATTACK))


def reshaped_tile(action: tuple, before: int) -> int:
    """The tile whose terrain, road, resource or port `action` changes (a road, a forest
    cleared, burnt or grown, a building: a Lumber Hut clears the forest, building takes the
    tile's resource, even ruins, and a port lets land units embark; a port destroyed), or -1.

    Args:
        action: the action about to be applied.
        before: the building it destroys (DESTROY), else anything.
    """
    kind = action[0]
    if kind in _RESHAPING or kind == BUILD or kind == DESTROY and before == _PORT:
        return action[2]
    return -1


def near_units(s, tile: int) -> set[int]:
    """The units whose movement or tile may read `tile`: on it, or whose reach search
    stepped from it or from a tile next to it (`s._reach`; a search reads the terrain, road,
    port and zone of control of a tile only when it steps onto it from a neighbour, and
    the road of a tile it steps from). A unit that cannot move has no reach and reads only
    its own tile (its resource, for one).

    Args:
        s: the position before the tile changes.
        tile: the tile.
    """
    near = {tile, *s._nbrs[tile]}
    occ = s.unit_at[tile]
    out = {occ} if occ else set()
    for v, e in s._reach.items():
        if not near.isdisjoint(e[5]):  # the tiles its search stepped from
            out.add(v)
    if s.options.reference_bugs:  # units may share a tile
        for v, u in s.units.items():
            if u.pos in near:
                out.add(v)
    return out


_PRICES = tuple(sorted(
    {K.UNIT_COST[ut] for ut in (*K.SPAWNABLE, K.SHIP, K.BATTLESHIP)} | set(GATHER_COST.values())
    | set(K.BUILDING_COST.values()) | {5}))
"""Every price the actions of cities, boats and ships compare a tribe's stars with (units,
upgrades, gathering, buildings, burning and growing forests)."""
_TILE_OF_CITY = frozenset((RESOURCE_GATHERING, CLEAR_FOREST, BURN_FOREST, GROW_FOREST))


def spending_key(tribe) -> tuple:
    """What the actions of a tribe's cities and of its boats and ships read of the tribe:
    its technologies, its monuments and which prices (`_PRICES`) its stars pay. Equal keys,
    equal readings.

    Args:
        tribe: the tribe.
    """
    return (tribe.techs, tuple(tribe.monuments), bisect_right(_PRICES, tribe.stars))


def lists_kept(s, action: tuple, lists: dict, before: int, near: set[int],
               spending: tuple) -> dict:
    """The actors' actions of the position before `action` (`lists`, see `list_actions`)
    that are still valid now that it has been applied.

    What a listing reads and these actions change:
    * a unit coming or going (MOVE, SPAWN, DISBAND, an upgrade's new unit): which tiles are
      free (`touched_by`); a unit's health or status (RECOVER, HEAL_OTHERS, MAKE_VETERAN, an
      ATTACK that kills nobody): its own actions and healing by its neighbours (the enemy's
      health is read by nobody; after an ATTACK that kills nothing is carried over);
    * stars (SPAWN, DISBAND, upgrades, RESOURCE_GATHERING, RESEARCH_TECH, BUILD, BUILD_ROAD,
      the forest actions) and technologies: read by the tribe, and by every city and by
      boats and ships only through `spending_key` (kept when it is unchanged, except after
      DISBAND, which also changes a city's number of units); the technologies of movement
      and of disbanding are read by every unit;
    * a building (BUILD, DESTROY): read by the cities owning it or a tile next to it (a
      producer needs its base next to it), and by units only to embark at a port (a port
      is a `reshaped_tile`); a port also changes the trade network, which the cities read
      only through the monuments it makes available (`spending_key`);
    * a terrain, road or resource change (`reshaped_tile`): read by the units of `near`, and
      by the tribe's roads and the owning city (both re-listed since stars changed too).
    Nothing else changes: the mover's units are no obstacle to their own tribe.

    Args:
        s: the position after `action`.
        action: the action just applied (one of `CARRY_LISTS`).
        lists: `s._lists` of the position before it.
        before: the acting unit's tile (`UNIT_ON_TILE`), the destroyed building (DESTROY),
            else -1.
        near: `near_units` of the reshaped tile before the action (empty if none).
        spending: `spending_key` of the acting tribe before the action.
    """
    kind = action[0]
    if kind == MOVE:
        changed = touched_by(s, tiles=(before, action[2]))
        changed.add(action[1])
        return {k: v for k, v in lists.items() if k not in changed}
    if kind == DESTROY:
        changed = _cities_near(s, action[2])
        if before == _PORT:  # land units may embark there no more; the trade network changed
            changed.update(near)
            if spending_key(s.tribes[s.current]) != spending:
                changed.update(s.cities)
        return {k: v for k, v in lists.items() if k not in changed}
    if kind in _KEEPS_CITIES:
        tiles = (before,) + s._nbrs[before] if kind == HEAL_OTHERS else (before,)
        changed = touched_by(s, tiles=tiles, moved=False)
        return {k: v for k, v in lists.items() if k not in changed}
    if kind == RESEARCH_TECH and action[2] in _UNIT_LIST_TECHS:
        return {}
    if kind == SPAWN:
        changed = touched_by(s, tiles=(s.cities[action[1]].pos,))
    elif kind in UNIT_ON_TILE:
        changed = touched_by(s, tiles=(before,))
    else:
        changed = near
    units = s.units
    if kind == DISBAND or spending_key(s.tribes[s.current]) != spending:
        upgradable = _UPGRADABLE
        return {k: v for k, v in lists.items()
                if k in units and k not in changed and units[k].type not in upgradable}
    # the cities read the same: only those whose tiles changed are listed again
    changed = set(changed)
    changed.add(TRIBE_ACTOR)
    if kind == BUILD:
        changed |= _cities_near(s, action[2])
    elif kind in _TILE_OF_CITY:
        changed.add(action[1])
    cities = s.cities
    return {k: v for k, v in lists.items() if k not in changed and (k in units or k in cities)}


def _cities_near(s, tile: int) -> set[int]:
    """The cities owning `tile` or a tile next to it: those whose listing reads the tile's
    building (a producer needs its base next to it)."""
    tc = s.tile_city
    out = {tc[j] for j in s._nbrs[tile]}
    out.add(tc[tile])
    out.discard(0)  # unowned; 0 is also the tribe's own actor, which reads no building
    return out


def touched_by(s, tiles: tuple, moved: bool = True) -> set[int]:
    """The actors whose actions change when own units come or go on `tiles`, or change
    their health: a unit on one, a Mind Bender next to one (healing others depends on the
    neighbours' health; no other unit reads its neighbours), a city on one (it spawns only
    on a free tile) and, when units came or went, every unit that can reach one of them
    (its destinations skip occupied tiles).

    Args:
        s: the position, with own units already come or gone.
        tiles: the tiles concerned.
        moved: whether units came or went (else only their health or status changed).
    """
    changed = set()
    unit_at, nbrs, tile_city, units = s.unit_at, s._nbrs, s.tile_city, s.units
    for t in tiles:
        if unit_at[t]:
            changed.add(unit_at[t])
        c = tile_city[t]
        if c and s.cities[c].pos == t:
            changed.add(c)
        for b in nbrs[t]:
            o = unit_at[b]
            if o and units[o].type == _MIND_BENDER:
                changed.add(o)
    if not moved:
        return changed
    for v, e in s._reach.items():
        reach = e[4]
        for t in tiles:
            if t in reach:
                changed.add(v)
                break
    if s.options.reference_bugs:  # units may share a tile
        for v, u in s.units.items():
            if u.pos in tiles:
                changed.add(v)
    return changed


def tribe_actions(s, out: list) -> None:
    tid = s.current
    tribe = s.tribes[tid]
    stars = tribe.stars
    techs = tribe.techs
    out += _research(techs, len(tribe.cities), stars)
    if techs >> _ROADS & 1 and stars >= 2:
        terrain, road, unit_at, units = s.terrain, s.road, s.unit_at, s.units
        tile_city, cities = s.tile_city, s.cities
        for i in range(len(terrain)):
            if road[i]:
                continue
            ter = terrain[i]
            if ter != _PLAIN and ter != _FOREST and ter != _VILLAGE:  # roads go on these only
                continue
            c = tile_city[i]
            if c and cities[c].tribe != tid:
                continue
            occ = unit_at[i]
            if occ and units[occ].tribe != tid:
                continue
            out.append((BUILD_ROAD, TRIBE_ACTOR, i, -1))
    out.append((END_TURN, TRIBE_ACTOR, -1, -1))


def research_cost(techs: int, n_cities: int, tech: int) -> int:
    """Stars a tribe with these technologies and cities pays to research `tech`."""
    cost = 4 + K.TECH_TIER[tech] * n_cities
    return int(cost * 0.2) if techs >> K.PHILOSOPHY & 1 else cost


@lru_cache(maxsize=4096)
def _research(techs: int, n_cities: int, stars: int) -> tuple[tuple, ...]:
    """The research actions of a tribe with these technologies, cities and stars."""
    out = []
    for tech in range(K.NUM_TECHS):
        if techs >> tech & 1:
            continue
        p = K.TECH_PARENT[tech]
        if p >= 0 and not techs >> p & 1:
            continue
        if stars >= research_cost(techs, n_cities, tech):
            out.append((RESEARCH_TECH, TRIBE_ACTOR, tech, -1))
    return tuple(out)


def city_tiles(s, cid: int) -> tuple[int, ...]:
    """The tiles a city owns within its radius, in row-major order (kept per position in
    `s._city_tiles` until tiles change owner, `TribesState.owners_changed`)."""
    c = s.cities[cid]
    key = (cid, 2 if c.level >= 4 or c.bound >= 2 else 1)
    tiles = s._city_tiles.get(key)
    if tiles is None:
        tc = s.tile_city
        tiles = s._city_tiles[key] = tuple([i for i in s.radius(c.pos, key[1]) if tc[i] == cid])
    return tiles


def city_actions(s, cid: int, out: list, candidates: list[int] | None = None) -> None:
    """A city's actions; `candidates` are the building types its tribe may build anywhere
    (computed once per listing by `tribe_buildings`)."""
    c = s.cities[cid]
    tribe = s.tribes[c.tribe]
    stars = tribe.stars
    techs = tribe.techs
    terrain, resource, building, nbrs = s.terrain, s.resource, s.building, s._nbrs
    tiles = city_tiles(s, cid)
    if len(c.units) < c.level + 1 and not s.unit_at[c.pos]:
        for ut in _spawnable(techs, stars if stars < _TOP_SPAWN else _TOP_SPAWN):
            out.append((SPAWN, cid, ut, -1))
    if candidates is None:
        candidates = tribe_buildings(tribe)
    if candidates:
        present = {building[i] for i in tiles}
        candidates = {b for b in candidates if b not in present or b not in _UNIQUE}
    fit = _FIT
    destroy = techs >> _CONSTRUCTION & 1
    forestry = techs >> _FORESTRY & 1
    burn = techs >> _CHIVALRY & 1 and stars >= 5
    grow = techs >> _SPIRITUALISM & 1 and stars >= 5
    for i in tiles:
        ter, res, b = terrain[i], resource[i], building[i]
        if res:
            tech = _GATHER_TECH.get(res)
            if tech is not None and techs >> tech & 1 and stars >= GATHER_COST[res]:
                out.append((RESOURCE_GATHERING, cid, i, -1))
        if ter == _FOREST:
            if forestry:
                out.append((CLEAR_FOREST, cid, i, -1))
            if burn:
                out.append((BURN_FOREST, cid, i, -1))
        elif ter == _PLAIN and grow:
            out.append((GROW_FOREST, cid, i, -1))
        if b:
            if destroy:
                out.append((DESTROY, cid, i, -1))
            continue
        if not candidates:
            continue
        for bt in fit[ter][res]:
            if bt not in candidates:
                continue
            base = _BASE_NEEDED.get(bt)
            if base is not None and not _next_to(building, nbrs[i], base):
                continue
            out.append((BUILD, cid, i, bt))


def _next_to(building: list, tiles: tuple, b: int) -> bool:
    """Whether building `b` stands on one of `tiles`."""
    for j in tiles:
        if building[j] == b:
            return True
    return False


_UNIT_TECH, _UNIT_COST = K.UNIT_TECH, K.UNIT_COST
_GATHER_TECH = GATHER_TECH
_UNIQUE = K.UNIQUE_PER_CITY
_B_TERRAIN, _B_RESOURCE = K.BUILDING_TERRAIN, K.BUILDING_RESOURCE
_BASE_NEEDED = {p: base for p, (base, _) in K.PRODUCER.items()}
_PLAIN = K.PLAIN
_FIT = tuple(tuple(tuple(bt for bt in range(1, len(K.BUILDING_NAMES))
                         if ter in _B_TERRAIN[bt] and _B_RESOURCE.get(bt, res) == res)
                   for res in range(len(K.RESOURCE_NAMES)))
             for ter in range(len(K.TERRAIN_NAMES)))
"""_FIT[terrain][resource]: the building types that terrain and resource allow, in type
order (affordability, technologies and one-per-city are checked per listing)."""


_TOP_SPAWN = max(_UNIT_COST[ut] for ut in K.SPAWNABLE)


@lru_cache(maxsize=4096)
def _spawnable(techs: int, stars: int) -> tuple[int, ...]:
    """The unit types a tribe with these technologies and stars (capped at the dearest
    unit's cost) can spawn, in `K.SPAWNABLE` order."""
    return tuple(ut for ut in K.SPAWNABLE
                 if (_UNIT_TECH[ut] < 0 or techs >> _UNIT_TECH[ut] & 1) and stars >= _UNIT_COST[ut])


def tribe_buildings(tribe) -> tuple[int, ...]:
    """Building types a tribe can afford, knows the tech for and (monuments) has available;
    terrain, tile and one-per-city rules are checked per city and tile."""
    return _buildings_of(spending_key(tribe))


@lru_cache(maxsize=4096)
def _buildings_of(key: tuple) -> tuple[int, ...]:
    """`tribe_buildings` of a tribe with this `spending_key`: its stars pay every price up to
    `_PRICES[level - 1]` (the prices include 0, so level >= 1)."""
    techs, monuments, level = key
    top = _PRICES[level - 1]
    out = []
    for bt in range(1, len(K.BUILDING_NAMES)):
        if K.BUILDING_COST[bt] > top:
            continue
        tech = K.BUILDING_TECH[bt]
        if tech >= 0 and not techs >> tech & 1:
            continue
        if K.IS_MONUMENT[bt] and monuments[K.MONUMENTS.index(bt)] != K.AVAILABLE:
            continue
        out.append(bt)
    return tuple(out)


def unit_actions(s, uid: int, out: list) -> None:
    u = s.units[uid]
    tid = u.tribe
    tribe = s.tribes[tid]
    st = u.status
    ut = u.type
    # upgrades are offered in any status
    if ut == _BOAT:
        if tribe.techs >> _SAILING & 1 and tribe.stars >= _SHIP_COST:
            out.append((UPGRADE_BOAT, uid, -1, -1))
    elif ut == _SHIP:
        if tribe.techs >> _NAVIGATION & 1 and tribe.stars >= _BATTLESHIP_COST:
            out.append((UPGRADE_SHIP, uid, -1, -1))
    if st == _FINISHED:
        return
    if u.kills >= 3 and not u.veteran and ut != _SUPERUNIT:
        out.append((MAKE_VETERAN, uid, -1, -1))
    if st == _PUSHED:
        return
    units, unit_at = s.units, s.unit_at
    if _AFTER_MOVE[ut][st] != _NO:
        out += [(MOVE, uid, t, -1) for t in reachable(s, uid) if not unit_at[t]]
    if _AFTER_ATTACK[ut][st] != _NO and ut != _MIND_BENDER:
        for t in s._rad[_UNIT_RANGE[ut]][u.pos]:  # ranges 1-3: `TribesState.radius`'s tables
            occ = unit_at[t]
            if occ and units[occ].tribe != tid:
                out.append((ATTACK, uid, occ, -1))
    if st == _FRESH:
        pos = u.pos
        ter = s.terrain[pos]
        if ter == _VILLAGE and not _IS_NAVAL[ut]:
            out.append((CAPTURE, uid, pos, -1))
        elif ter == _CITY:
            cid = s.tile_city[pos]
            if cid and s.cities[cid].tribe != tid and not _IS_NAVAL[ut]:
                out.append((CAPTURE, uid, pos, -1))
        if s.resource[pos] == _RUINS and tribe.cities:
            out.append((EXAMINE, uid, pos, -1))
        if 0 < u.hp < u.max_hp:
            out.append((RECOVER, uid, -1, -1))
        if tribe.techs >> _FREE_SPIRIT & 1:
            out.append((DISBAND, uid, -1, -1))
        if ut == _MIND_BENDER:
            heal = False
            for t in s._nbrs[pos]:
                occ = unit_at[t]
                if occ:
                    o = units[occ]
                    if o.tribe != tid:
                        out.append((CONVERT, uid, occ, -1))
                    elif o.hp < o.max_hp:
                        heal = True
            if heal:
                out.append((HEAL_OTHERS, uid, -1, -1))


_BOAT, _SHIP, _SUPERUNIT, _VILLAGE, _RUINS = K.BOAT, K.SHIP, K.SUPERUNIT, K.VILLAGE, K.RUINS
_SHIP_COST, _BATTLESHIP_COST = K.UNIT_COST[K.SHIP], K.UNIT_COST[K.BATTLESHIP]
_FINISHED, _PUSHED, _FRESH, _NO = K.FINISHED, K.PUSHED, K.FRESH, K.NO
_AFTER_MOVE, _AFTER_ATTACK, _UNIT_RANGE = K.AFTER_MOVE, K.AFTER_ATTACK, K.UNIT_RANGE


def describe(s, a: tuple) -> str:
    kind, actor, target, extra = a
    name = ACTION_NAMES[kind]
    xy = s.xy
    if kind in UNIT_ACTIONS:
        u = s.units.get(actor)
        who = f"{K.UNIT_NAMES[u.type].lower()}#{actor}@{xy(u.pos)}" if u else f"unit#{actor}"
        if kind == MOVE:
            return f"{name} {who} -> {xy(target)}"
        if kind in (ATTACK, CONVERT):
            o = s.units.get(target)
            if o is None:
                return f"{name} {who}"
            return f"{name} {who} -> {K.UNIT_NAMES[o.type].lower()}#{target}@{xy(o.pos)}"
        return f"{name} {who}"
    if kind in CITY_ACTIONS:
        c = s.cities.get(actor)
        who = f"city#{actor}@{xy(c.pos)}" if c else f"city#{actor}"
        if kind == LEVEL_UP:
            return f"{name} {who} {K.BONUS_NAMES[target]}"
        if kind == SPAWN:
            return f"{name} {who} {K.UNIT_NAMES[target]}"
        if kind == BUILD:
            return f"{name} {who} {K.BUILDING_NAMES[extra]} at {xy(target)}"
        return f"{name} {who} at {xy(target)}"
    if kind == RESEARCH_TECH:
        return f"{name} {K.TECH_NAMES[target]}"
    if kind == BUILD_ROAD:
        return f"{name} at {xy(target)}"
    return name
