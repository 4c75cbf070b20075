"""What each Tribes action does to the state (legality is in actions.py).

`APPLY[kind](state, action)` applies one legal action in place. Where the reference engine
has a bug that the project fixes (docs/tribes-differences.md), the fixed rule is the default and
`options.reference_bugs` selects the reference behaviour, so that recorded reference games
replay exactly.
"""

from __future__ import annotations

from games.tribes import constants as K
from games.tribes.actions import (
    ACTION_NAMES,
    ATTACK,
    BUILD,
    BUILD_ROAD,
    BURN_FOREST,
    CAPTURE,
    CLEAR_FOREST,
    CONVERT,
    DESTROY,
    DISBAND,
    END_TURN,
    EXAMINE,
    GATHER_COST,
    GROW_FOREST,
    HEAL_OTHERS,
    LEVEL_UP,
    MAKE_VETERAN,
    MOVE,
    RECOVER,
    RESEARCH_TECH,
    RESOURCE_GATHERING,
    SPAWN,
    UPGRADE_BOAT,
    UPGRADE_SHIP,
    city_tiles,
)
from games.tribes.combat import attack_outcome
from games.tribes.javarandom import java_shuffle
from games.tribes.pieces import City


class Forced:
    """Outcomes to impose instead of the drawn ones (replaying a recorded game).

    The draws are still made, so the generator stays in step with the recorded game; what
    was drawn is kept in `drawn_bonus` / `drawn_tech` (a replay can check that the engine's
    own draw agreed with the record)."""

    def __init__(self) -> None:
        self.ruins_bonus: int | None = None
        self.ruins_tech: int | None = None
        self.drawn_bonus: int | None = None
        self.drawn_tech: int | None = None


EXPLORER_STEPS = 15  # steps of an explorer's random walk; each step tries up to 3 * 15 neighbours


def launch_explorer(s, pos: int, tid: int) -> None:
    """The explorer (ruins or level-up EXPLORER): a random walk from `pos` that would reveal
    tiles. Vision is always full, so it has no effect, but it consumes the generator's draws
    exactly as the reference does: each of the 15 steps draws one of the tile's in-board
    neighbours (row-major order) until it finds one the tribe could enter, at most 45 times."""
    rng = s.rng
    tribe = s.tribes[tid]
    terrain, nbrs = s.terrain, s._nbrs
    climbing, sailing, navigation = (tribe.has(K.CLIMBING), tribe.has(K.SAILING),
                                     tribe.has(K.NAVIGATION))
    cur = pos
    for _ in range(EXPLORER_STEPS):
        for _ in range(EXPLORER_STEPS * 3):
            around = nbrs[cur]
            nxt = around[rng.next_int(len(around))]
            ter = terrain[nxt]
            if ((ter == K.MOUNTAIN and not climbing) or (ter == K.SHALLOW and not sailing)
                    or (ter == K.DEEP and not navigation)):
                continue
            cur = nxt
            break


def _after_action(s) -> None:
    s.check_game_over()


# ------------------------------------------------------------------------------- unit actions
def move(s, a) -> None:
    uid, dest = a[1], a[2]
    u = s.unit_w(uid)
    nxt = K.AFTER_MOVE[u.type][u.status]
    ter = s.terrain[dest]
    naval = K.UNIT_IS_NAVAL[u.type]
    if not naval and K.IS_WATER[ter]:  # embark on a port
        s.replace_unit(u, K.BOAT, dest, K.FINISHED)
    elif naval and not K.IS_WATER[ter]:  # disembark
        s.replace_unit(u, u.base, dest, K.FINISHED)
    else:
        s._move_unit(uid, dest)
        u.status = nxt
    s.event(u.tribe, "moves")
    _after_action(s)


def attack(s, a) -> None:
    uid, tid_unit = a[1], a[2]
    att = s.unit_w(uid)
    tgt = s.units[tid_unit]
    me = att.tribe
    damage, retaliation = attack_outcome(s, att, tgt)
    att.status = K.AFTER_ATTACK[att.type][att.status]
    tribe = s.tribe_w(me)
    tribe.pacifist = 0
    s.event(me, "attacks")
    if tgt.hp <= damage:
        att.kills += 1
        tribe.kills += 1
        if tribe.kills >= 10:
            s.make_available(me, K.GATE_OF_POWER)
        dest = tgt.pos
        s.remove_unit(tid_unit, lose_points=True)
        s.event(me, "kills")
        s.event(tgt.tribe, "units_lost")
        if K.UNIT_ADVANCES[att.type]:
            _advance(s, att, dest)
        if att.type == K.KNIGHT and att.id in s.units:
            s.unit_w(att.id).status = K.ATTACKED
    else:
        s.unit_w(tid_unit).hp = tgt.hp - damage
        dist = max(abs(a1 - b1) for a1, b1 in zip(s.xy(att.pos), s.xy(tgt.pos)))
        if dist <= K.UNIT_RANGE[tgt.type] and retaliation > 0:
            att.hp -= retaliation
            if att.hp <= 0:
                t2 = s.tribe_w(tgt.tribe)
                tw = s.unit_w(tid_unit)
                tw.kills += 1
                if tw.type == K.KNIGHT:  # a Knight's kill always sets it ATTACKED
                    tw.status = K.ATTACKED
                t2.kills += 1
                if t2.kills >= 10:
                    s.make_available(tgt.tribe, K.GATE_OF_POWER)
                s.remove_unit(uid, lose_points=True)
                s.event(tgt.tribe, "kills")
                s.event(me, "units_lost")
    _after_action(s)


def _advance(s, att, dest: int) -> None:
    """A melee attacker moves into the tile of the unit it killed, if a pushed unit could."""
    ter = s.terrain[dest]
    if ter == K.MOUNTAIN and not s.tribes[att.tribe].has(K.CLIMBING):
        return
    if K.IS_WATER[ter]:
        if s.building[dest] == K.PORT and s.tile_tribe(dest) == att.tribe:
            s.replace_unit(att, K.BOAT, dest, K.FINISHED)  # a new unit, FINISHED
        return
    s._move_unit(att.id, dest)


def capture(s, a) -> None:
    uid, pos = a[1], a[2]
    u = s.unit_w(uid)
    me = u.tribe
    u.status = K.FINISHED
    if s.terrain[pos] == K.VILLAGE:
        _capture_village(s, u, pos)
    else:
        _capture_city(s, u, s.tile_city[pos])
    s.event(me, "captures")
    s.update_networks()
    _after_action(s)


def _capture_village(s, u, pos: int) -> None:
    me = u.tribe
    c = City.__new__(City)
    c.id = s.new_id()
    c.tribe, c.pos, c.level, c.pop, c.pop_need, c.prod_bonus = me, pos, 1, 0, 2, 0
    c.capital, c.walls, c.bound, c.worth, c.units, c.temples, c.tok = False, False, 1, 0, [], {}, s._tok
    s.cities[c.id] = c
    s.tribe_w(me).cities.append(c.id)
    s.board_w("terrain")[pos] = K.CITY
    s.board_w("road")[pos] = False  # a city centre is part of the network, but not a road
    if s.tile_city[pos] and s.tile_city[pos] != c.id:
        s.board_w("tile_city")[pos] = 0
    s.claim(c.id, 1)
    if s.tile_city[pos] != c.id:
        s.board_w("tile_city")[pos] = c.id
    s.add_score(me, 100)
    _rehome_one_into(s, u, c.id)
    s.event(me, "villages_captured")


def _capture_city(s, u, cid: int) -> None:
    me = u.tribe
    c = s.city_w(cid)
    prev = c.tribe
    s.add_score(me, c.worth)
    s.add_score(prev, -c.worth)
    c.tribe = me
    s.owners_changed()  # its tiles too
    ptribe = s.tribe_w(prev)
    ptribe.cities.remove(cid)
    s.tribe_w(me).cities.append(cid)
    if s.options.reference_bugs:
        _reapply_buildings_on_capture(s, cid)
    # the previous owner's units supported by this city are re-homed
    displaced = c.units[:]
    c.units = []
    _rehome_displaced(s, prev, displaced)
    _rehome_one_into(s, u, cid)
    s.event(me, "cities_captured")
    if not ptribe.cities:
        _eliminate(s, prev)


def _rehome_displaced(s, prev: int, displaced: list[int]) -> None:
    """The previous owner's units supported by a captured city move, the city's LAST unit
    first, to the previous owner's capital while it has room (if it still holds it), then
    to its other cities in random order; whatever is left becomes extra units, in order."""
    if not displaced:
        return
    ptribe = s.tribes[prev]
    queue = list(displaced)

    def fill(cid: int) -> None:
        c = s.cities[cid]
        while queue and len(c.units) < c.level + 1:
            uid = queue.pop()
            s.city_w(cid).units.append(uid)
            s.unit_w(uid).home = cid
            c = s.cities[cid]

    if s.owns_original_capital(prev):
        fill(ptribe.capital)
    if queue:
        others = [c for c in ptribe.cities if c != ptribe.capital]
        java_shuffle(others, s.rng)
        for cid in others:
            fill(cid)
    for uid in queue:
        s.unit_w(uid).home = 0
        s.tribe_w(prev).extra_units.append(uid)


def _rehome_one_into(s, capturer, cid: int) -> None:
    """One of the capturer's units moves its home to the newly gained city. The intended rule
    re-homes the capturing unit; the reference takes the last unit of the capital's list, or
    if the capital is not held or has no units, the last unit of the first city with units
    in a random order of the other cities (B16)."""
    me = capturer.tribe
    if s.options.reference_bugs:
        tribe = s.tribes[me]
        uid = None
        cap = tribe.capital
        if s.owns_original_capital(me) and s.cities[cap].units:
            uid = s.cities[cap].units[-1]
        else:
            others = [c for c in tribe.cities if c != cap]
            java_shuffle(others, s.rng)
            for c in others:
                if s.cities[c].units:
                    uid = s.cities[c].units[-1]
                    break
        if uid is None:
            return
    else:
        uid = capturer.id
    u = s.units[uid]
    s.unregister(u)
    s.unit_w(uid).home = cid
    s.city_w(cid).units.append(uid)


def _eliminate(s, tid: int) -> None:
    t = s.tribe_w(tid)
    t.result = K.LOSS
    for uid in s.tribe_units(tid):
        s.remove_unit(uid, lose_points=False)
    for uid in [i for i, u in s.units.items() if u.tribe == tid]:  # e.g. orphans
        s.remove_unit(uid, lose_points=False)
    t.extra_units = []
    t.connected = []


def _reapply_buildings_on_capture(s, cid: int) -> None:
    """The reference re-applies the adjacency part of every building's effect for the new
    owner, then removes it for the base buildings (double counting, plus temple/monument
    points for the capturer)."""
    tiles = city_tiles(s, cid)
    c = s.cities[cid]
    for i in tiles:
        b = s.building[i]
        if not b:
            continue
        if b in K.BASE_OF:
            _base_adjacency(s, cid, i, b, +1)
        elif b in K.PRODUCER:
            _producer_adjacency(s, cid, i, b, +1)
        elif b in K.TEMPLES:
            s.add_score(c.tribe, 100)
        elif K.IS_MONUMENT[b]:
            s.add_score(c.tribe, K.MONUMENT_POINTS)
    for i in tiles:
        b = s.building[i]
        if b in K.BASE_OF:
            _base_adjacency(s, cid, i, b, -1)


def recover(s, a) -> None:
    uid = a[1]
    u = s.units[uid]
    s.recover(uid, s.tile_tribe(u.pos) == u.tribe)
    s.event(u.tribe, "recovers")
    _after_action(s)


def heal_others(s, a) -> None:
    uid = a[1]
    u = s.unit_w(uid)
    for t in s._nbrs[u.pos]:
        occ = s.unit_at[t]
        if occ:
            o = s.units[occ]
            if o.tribe == u.tribe and o.hp < o.max_hp:
                s.unit_w(occ).hp = min(o.max_hp, o.hp + 4)
    u.status = K.FINISHED
    s.event(u.tribe, "heals")
    _after_action(s)


def convert(s, a) -> None:
    uid, target = a[1], a[2]
    u = s.unit_w(uid)
    o = s.units[target]
    s.unregister(o)
    ow = s.unit_w(target)
    ow.tribe = u.tribe
    ow.home = 0
    ow.status = K.FINISHED
    s.tribe_w(u.tribe).extra_units.append(target)
    u.status = K.FINISHED
    s.event(u.tribe, "conversions")
    _after_action(s)


def examine(s, a) -> None:
    uid, pos = a[1], a[2]
    u = s.units[uid]
    me = u.tribe
    tribe = s.tribes[me]
    s.board_w("resource")[pos] = K.NO_RESOURCE
    forced = s.forced
    bonus = s.rng.next_int(5)
    while bonus == K.RUINS_RESEARCH and tribe.techs == K.ALL_TECHS_MASK:
        bonus = s.rng.next_int(5)
    if forced is not None and forced.ruins_bonus is not None:
        forced.drawn_bonus = bonus
        bonus = forced.ruins_bonus
        forced.ruins_bonus = None
    s.event(me, "ruins_examined")
    if bonus == K.RUINS_SUPERUNIT:
        water = K.IS_WATER[s.terrain[pos]]
        s.push(uid)
        if water:
            hp = -1 if s.options.reference_bugs else K.UNIT_HP[K.WARRIOR]
            s.create_unit(K.BATTLESHIP, me, pos, 0, hp=hp, max_hp=hp, base=K.WARRIOR)
        else:
            s.create_unit(K.SUPERUNIT, me, pos, 0)
    elif bonus == K.RUINS_RESEARCH:
        options = [t for t in range(K.NUM_TECHS) if s.can_research(tribe, t)]
        tech = options[s.rng.next_int(len(options))]
        if forced is not None and forced.ruins_tech is not None:
            forced.drawn_tech = tech
            tech = forced.ruins_tech
            forced.ruins_tech = None
        s.tribe_w(me).techs |= 1 << tech
        s.event(me, "techs_from_ruins")
    elif bonus == K.RUINS_POP_GROWTH:
        cid = tribe.capital if s.owns_original_capital(me) else tribe.cities[0]
        s.add_pop(cid, 3)
    elif bonus == K.RUINS_RESOURCES:
        s.add_stars(me, 10)
    elif bonus == K.RUINS_EXPLORER:
        launch_explorer(s, pos, me)
    if uid in s.units:
        s.unit_w(uid).status = K.FINISHED
    _after_action(s)


def disband(s, a) -> None:
    uid = a[1]
    u = s.units[uid]
    s.add_stars(u.tribe, K.UNIT_COST[u.type] // 2)
    s.remove_unit(uid, lose_points=True)
    s.event(u.tribe, "disbands")
    _after_action(s)


def make_veteran(s, a) -> None:
    u = s.unit_w(a[1])
    u.veteran = True
    u.max_hp += 5
    u.hp = u.max_hp
    _after_action(s)


def upgrade(s, a) -> None:
    u = s.units[a[1]]
    new_type = K.SHIP if u.type == K.BOAT else K.BATTLESHIP
    s.add_stars(u.tribe, -K.UNIT_COST[new_type])
    s.replace_unit(u, new_type, u.pos, u.status)
    s.event(u.tribe, "upgrades")
    _after_action(s)


# ------------------------------------------------------------------------------- city actions
def level_up(s, a) -> None:
    cid, bonus = a[1], a[2]
    c = s.city_w(cid)
    me = c.tribe
    c.pop -= c.pop_need
    c.level += 1
    c.pop_need = c.level + 1
    s.add_worth_points(cid, K.level_up_points(c.level))
    if c.level >= 5:
        s.make_available(me, K.PARK_OF_FORTUNE)
    if bonus == K.WORKSHOP:
        c.prod_bonus += 1
    elif bonus == K.CITY_WALL:
        c.walls = True
    elif bonus == K.RESOURCES:
        s.add_stars(me, 5)
    elif bonus == K.EXPLORER:
        launch_explorer(s, c.pos, me)
    elif bonus == K.POP_GROWTH:
        s.add_pop(cid, 3)
    elif bonus == K.BORDER_GROWTH:
        c.bound += 1
        s.claim(cid, c.bound)
    elif bonus == K.PARK:
        s.add_worth_points(cid, 250)
    elif bonus == K.SUPERUNIT_BONUS:
        occ = s.unit_at[c.pos]
        if occ:
            s.push(occ)
        c = s.cities[cid]
        full = len(c.units) >= c.level + 1
        if full and s.options.reference_bugs:
            s.create_unit(K.SUPERUNIT, me, c.pos, cid, register=False)  # the reference's orphan
        else:
            s.create_unit(K.SUPERUNIT, me, c.pos, 0 if full else cid)
    s.event(me, "level_ups")
    _after_action(s)


def spawn(s, a) -> None:
    cid, utype = a[1], a[2]
    c = s.cities[cid]
    s.add_stars(c.tribe, -K.UNIT_COST[utype])
    s.create_unit(utype, c.tribe, c.pos, cid)
    s.add_score(c.tribe, K.UNIT_POINTS[utype])
    s.event(c.tribe, "spawn_" + K.UNIT_NAMES[utype].lower())
    _after_action(s)


def resource_gathering(s, a) -> None:
    cid, tile = a[1], a[2]
    me = s.cities[cid].tribe
    res = s.resource[tile]
    s.board_w("resource")[tile] = K.NO_RESOURCE
    if res == K.WHALES:
        s.add_stars(me, 10)
    else:
        s.add_stars(me, -GATHER_COST[res])
        s.add_pop(cid, 1)
    s.event(me, "gathers")
    _after_action(s)


# forest action -> (terrain after, resource after or None to keep it, stars gained)
_FOREST_EFFECT = {CLEAR_FOREST: (K.PLAIN, None, 2), BURN_FOREST: (K.PLAIN, K.CROPS, -5),
                  GROW_FOREST: (K.FOREST, K.NO_RESOURCE, -5)}


def forest_action(s, a) -> None:
    """Clear (+2 stars, the resource stays: a reference quirk), burn (crops) or grow a forest."""
    me = s.cities[a[1]].tribe
    terrain, resource, stars = _FOREST_EFFECT[a[0]]
    s.board_w("terrain")[a[2]] = terrain
    if resource is not None:
        s.board_w("resource")[a[2]] = resource
    s.add_stars(me, stars)
    s.event(me, "forest_actions")
    _after_action(s)


def _recipient_scan(s, cid: int, tile: int, wanted: int, amount: int, production: bool) -> None:
    """The reference's adjacency bonus procedure: for each neighbour of `tile` holding
    `wanted`, `amount` goes to the city owning that neighbour if it is this tribe's (and that
    city then stays the recipient for the rest of the scan); a foreign one stops the scan."""
    me = s.cities[cid].tribe
    recipient = cid
    tc, building = s.tile_city, s.building
    for j in s._nbrs[tile]:
        if building[j] != wanted:
            continue
        oc = tc[j]
        if oc != cid:
            if oc and s.cities[oc].tribe == me:
                recipient = oc
            else:
                break
        if production:
            s.city_w(recipient).prod_bonus = max(0, s.cities[recipient].prod_bonus + amount)
        else:
            s.add_pop(recipient, amount)


def _base_adjacency(s, cid: int, tile: int, b: int, sign: int) -> None:
    producer = K.BASE_OF[b]
    _recipient_scan(s, cid, tile, producer, sign * K.PRODUCER[producer][1], producer == K.CUSTOMS_HOUSE)


def _producer_adjacency(s, cid: int, tile: int, b: int, sign: int) -> None:
    base, amount = K.PRODUCER[b]
    _recipient_scan(s, cid, tile, base, sign * amount, b == K.CUSTOMS_HOUSE)


def build(s, a) -> None:
    cid, tile, b = a[1], a[2], a[3]
    me = s.cities[cid].tribe
    s.add_stars(me, -K.BUILDING_COST[b])
    s.board_w("building")[tile] = b
    s.board_w("resource")[tile] = K.NO_RESOURCE
    if b in K.BASE_OF:
        s.add_pop(cid, K.BUILDING_POP[b])
        _base_adjacency(s, cid, tile, b, +1)
        if b == K.LUMBER_HUT:
            s.board_w("terrain")[tile] = K.PLAIN
        if b == K.PORT:
            s.update_networks()
    elif b in K.PRODUCER:
        _producer_adjacency(s, cid, tile, b, +1)
    elif b in K.TEMPLES:
        s.add_pop(cid, 1)
        s.add_score(me, K.TEMPLE_POINTS[1])
        s.city_w(cid).temples[tile] = [1, 3]
    else:  # monument
        s.add_pop(cid, 3)
        s.add_score(me, K.MONUMENT_POINTS)
        s.tribe_w(me).monuments[K.MONUMENTS.index(b)] = K.BUILT
    s.event(me, "buildings")
    s.event(me, "build_" + K.BUILDING_NAMES[b].lower())
    _after_action(s)


def destroy(s, a) -> None:
    cid, tile = a[1], a[2]
    me = s.cities[cid].tribe
    b = s.building[tile]
    s.board_w("building")[tile] = K.NO_BUILDING
    if b in K.BASE_OF:
        s.add_pop(cid, -K.BUILDING_POP[b])
        _base_adjacency(s, cid, tile, b, -1)
        if b == K.PORT:
            s.update_networks()
    elif b in K.PRODUCER:
        _producer_adjacency(s, cid, tile, b, -1)
    elif b in K.TEMPLES:
        lvl = s.cities[cid].temples.get(tile, [1, 3])[0]
        points = sum(K.TEMPLE_POINTS[1:lvl + 1])
        s.add_pop(cid, -1)
        # the reference adds the temple's points instead of removing them
        s.add_score(me, points if s.options.reference_bugs else -points)
        s.city_w(cid).temples.pop(tile, None)
    else:
        s.add_pop(cid, -3)
        s.add_score(me, -K.MONUMENT_POINTS)
    s.event(me, "destroys")
    _after_action(s)


# ------------------------------------------------------------------------------- tribe actions
def research(s, a) -> None:
    me = s.current
    tech = a[2]
    t = s.tribes[me]
    s.add_stars(me, -s.research_cost(t, tech))
    t = s.tribe_w(me)
    t.techs |= 1 << tech
    s.add_score(me, 100 * K.TECH_TIER[tech])
    if t.techs == K.ALL_TECHS_MASK:
        s.make_available(me, K.TOWER_OF_WISDOM)
    s.event(me, "research")
    _after_action(s)


def build_road(s, a) -> None:
    me = s.current
    s.add_stars(me, -2)
    s.board_w("road")[a[2]] = True
    s.event(me, "roads")
    s.update_networks(new_road=a[2])
    _after_action(s)


def end_turn(s, a) -> None:
    s.next_turn()


APPLY = [None] * len(ACTION_NAMES)
for _kind, _fn in ((MOVE, move), (ATTACK, attack), (CAPTURE, capture), (RECOVER, recover),
                   (HEAL_OTHERS, heal_others), (CONVERT, convert), (EXAMINE, examine),
                   (DISBAND, disband), (MAKE_VETERAN, make_veteran), (UPGRADE_BOAT, upgrade),
                   (UPGRADE_SHIP, upgrade), (LEVEL_UP, level_up), (SPAWN, spawn),
                   (RESOURCE_GATHERING, resource_gathering), (CLEAR_FOREST, forest_action),
                   (BURN_FOREST, forest_action), (GROW_FOREST, forest_action), (BUILD, build),
                   (DESTROY, destroy), (RESEARCH_TECH, research), (BUILD_ROAD, build_road),
                   (END_TURN, end_turn)):
    APPLY[_kind] = _fn
APPLY = tuple(APPLY)
