"""The Tribes game state: flat board arrays plus copy-on-write units, cities and tribes.

Search copies a state thousands of times per decision and then changes only a few objects,
so `copy()` copies `unit_at` and the id->object dicts, and shares every Unit, City and
Tribe. An object is cloned the first time a state writes to it (`unit_w`, `city_w`, `tribe_w`):
each state holds a private token, and an object belongs to the state whose token it carries.
The other board lists (terrain, resources, buildings, territory, roads), which few actions
change, are shared the same way: a state writes into one only through `board_w`, which copies
it first unless the state owns it (a bit of `_own` per list).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.api import IllegalAction, log_add, log_to_list
from games.tribes import actions as A
from games.tribes import constants as K
from games.tribes.actions import (
    ACTION_NAMES,
    ATTACK,
    CARRY_LISTS,
    DESTROY,
    END_TURN,
    UNIT_ON_TILE,
    group_by_actor,
    is_legal,
    list_actions,
    lists_of,
    near_units,
    reshaped_tile,
    spending_key,
)
from games.tribes.actions import describe as describe_action
from games.tribes.javarandom import JavaRandom, java_shuffle
from games.tribes.pieces import City, StateFields, Tribe, Unit
from games.tribes.rules import APPLY


@dataclass(frozen=True)
class TribesOptions:
    """Game options; the defaults are the standard research setup."""

    mode: str = K.CAPITALS
    max_rounds: int | None = None  # None: 50 in capitals mode, 30 in score mode
    reference_bugs: bool = False  # reproduce the reference engine's bugs (trace conformance)

    def rounds(self) -> int:
        return self.max_rounds if self.max_rounds is not None else K.DEFAULT_ROUNDS[self.mode]


INCOMPLETE, WIN, LOSS = K.INCOMPLETE, K.WIN, K.LOSS
_NOBODY: frozenset[int] = frozenset()
_CITY, _PORT = K.CITY, K.PORT


class TribesState(StateFields):
    """One Tribes position. Implements `games.api.GameState`."""

    game_name = "tribes"
    multi_action_turns = True  # a turn is many actions, ended by End Turn

    # rule helpers and action application live in rules.py and actions.py; the methods
    # here are the shared vocabulary those modules are written in.

    __slots__ = ()  # the fields are `StateFields`

    def __init__(self) -> None:  # use new_game() or copy()
        self._tok = object()
        self._own = 0

    # ---------------------------------------------------------------- copying
    def copy(self) -> "TribesState":
        s = TribesState.__new__(TribesState)
        s._tok = object()
        self._tok = object()  # both sides now share every object: clone before writing
        s._own = self._own = 0  # and the board lists but `unit_at` (`board_w`)
        s.size, s.options, s._nbrs, s._rad = self.size, self.options, self._nbrs, self._rad
        s.terrain, s.resource, s.building = self.terrain, self.resource, self.building
        s.tile_city, s.road = self.tile_city, self.road
        s.unit_at = self.unit_at[:]
        s.units = self.units.copy()
        s.cities = self.cities.copy()
        s.tribes = self.tribes[:]
        s.rng = self.rng.copy()
        s.next_id, s.tick, s.current, s.capitals = self.next_id, self.tick, self.current, self.capitals
        s.game_over, s.final_ranking, s.log, s.forced = (self.game_over, self.final_ranking,
                                                         self.log, self.forced)
        # the caches describe the same position, and apply() replaces them instead of
        # mutating them, so the copy can share them (search lists actions right after copying)
        s._legal, s._by_actor, s._zoc, s._reach = self._legal, self._by_actor, self._zoc, self._reach
        s._lists, s._carry = self._lists, self._carry
        s._own_water, s._city_tiles = self._own_water, self._city_tiles
        return s

    def reseed(self, seed: int) -> None:
        self.rng = JavaRandom(seed)

    # ---------------------------------------------------------------- protocol
    @property
    def current_player(self) -> int:
        return self.current

    @property
    def num_players(self) -> int:
        return len(self.tribes)

    def is_terminal(self) -> bool:
        return self.game_over

    def invalidate(self) -> None:
        """Forget cached legal actions; needed only after editing a position by hand (write
        into its board lists through `board_w`, which keeps its copies apart)."""
        self._legal = None
        self._by_actor = None
        self._zoc = {}
        self._reach = {}
        self._lists = {}
        self._carry = None
        self.owners_changed()

    def zoc_tiles(self, tid: int) -> set[int]:
        """Tiles next to a unit that is not `tid`'s (zone of control), cached per position."""
        z = self._zoc.get(tid)
        if z is None:
            z = set()
            nbrs, unit_at = self._nbrs, self.unit_at
            for oid, o in self.units.items():
                if o.tribe != tid and unit_at[o.pos] == oid:
                    z.update(nbrs[o.pos])
            self._zoc[tid] = z
        return z

    def legal_actions(self):
        """The legal actions (a cached list shared with copies: do not modify it)."""
        if self._legal is None:
            self._legal = list_actions(self)
        return self._legal

    def actions_by_actor(self):
        if self._by_actor is None:
            self._by_actor = group_by_actor(self)
        return self._by_actor

    def ends_turn(self, action) -> bool:
        return action[0] == END_TURN

    def apply(self, action) -> None:
        if not is_legal(self, action):
            raise IllegalAction(f"tribes: {action!r} is not legal in round {self.tick} for "
                                f"player {self.current} ({len(self.legal_actions())} legal actions)")
        self._legal = None
        self._by_actor = None
        kind = action[0]
        lists = self._lists
        if lists is None:
            lists = lists_of(self)
        self._lists = {}
        # what the carried caches need to know of the position before the action: where the
        # acting unit stood, which building is destroyed (only a port changes movement), the
        # units whose movement may read a tile whose terrain or road changes
        if kind in UNIT_ON_TILE:
            before = self.units[action[1]].pos
        elif kind == DESTROY:
            before = self.building[action[2]]
        else:
            before = -1
        reshaped = reshaped_tile(action, before)
        near = near_units(self, reshaped) if reshaped >= 0 else _NOBODY
        carry = kind in CARRY_LISTS
        if carry:
            # what the mover's own units can reach depends only on the map, on the other
            # tribes' units and on the unit itself (checked when an entry is used): these
            # actions move, add or remove only the mover's own units (which its units pass
            # through) and change the map only on a reshaped tile (`near` is recomputed); an
            # attack that kills is undone below. The other tribes' entries may depend on the
            # mover's units, and the zone of control of the mover's units on the others' units
            tid = self.current
            zoc = self._zoc.get(tid)
            self._zoc = {tid: zoc} if zoc is not None else {}
            self._reach = {uid: e for uid, e in self._reach.items()
                           if e[0] == tid and uid not in near}
        else:
            self._zoc = {}
            self._reach = {}
        carry = carry and bool(lists)
        spending = spending_key(self.tribes[self.current]) if carry else None
        APPLY[kind](self, action)
        if kind == ATTACK and not (action[1] in self.units and action[2] in self.units):
            # a unit died: tiles freed, zones of control gone (kept above for the common case)
            self._zoc = {}
            self._reach = {}
            carry = False
        if carry and not self.game_over:
            # worked out when this position is first listed (`actions.lists_of`): a search
            # evaluates many positions it never lists
            self._lists = None
            self._carry = (action, lists, before, near, spending)

    def winner(self) -> int | None:
        if not self.game_over:
            return None
        return self.final_ranking[0]

    def ranking(self) -> list[int]:
        if self.game_over:
            return list(self.final_ranking)
        return self._rank(random_ties=False)

    def scores(self) -> list[float]:
        return [t.score for t in self.tribes]

    def summary(self, player: int) -> dict[str, float]:
        """Named end-of-game figures of one player (the columns of result tables)."""
        t = self.tribes[player]
        return {"score": t.score, "techs": t.n_techs(), "techs_pct": 100 * t.n_techs() / K.NUM_TECHS,
                "cities": len(t.cities), "production": self.production(player),
                "units": len(self.tribe_units(player)), "kills": t.kills,
                "tiles": self.tiles_owned(player), "stars": t.stars}

    def player_name(self, player: int) -> str:
        """The side a player controls (its tribe)."""
        return K.TRIBE_NAMES[self.tribes[player].key]

    def events(self):
        return log_to_list(self.log)

    def action_type_name(self, action) -> str:
        return ACTION_NAMES[action[0]]

    def describe(self, action) -> str:
        return describe_action(self, action)

    # ---------------------------------------------------------------- geometry
    def xy(self, idx: int) -> tuple[int, int]:
        return divmod(idx, self.size)

    def neighbours(self, idx: int) -> tuple[int, ...]:
        return self._nbrs[idx]

    def radius(self, idx: int, r: int) -> tuple[int, ...]:
        """The tiles within Chebyshev distance r, in row-major order (tables cached per size)."""
        if r < len(self._rad):
            return self._rad[r][idx]
        return _radius_tiles(self.size, idx, r)

    # ---------------------------------------------------------------- queries
    def tile_tribe(self, idx: int) -> int:
        """Tribe owning the territory of a tile, or -1 if neutral."""
        c = self.tile_city[idx]
        return self.cities[c].tribe if c else -1

    def is_friendly_or_neutral(self, idx: int, tribe: int) -> bool:
        c = self.tile_city[idx]
        return not c or self.cities[c].tribe == tribe

    def tribe_units(self, tid: int) -> list[int]:
        t = self.tribes[tid]
        out = []
        for cid in t.cities:
            out.extend(self.cities[cid].units)
        out.extend(t.extra_units)
        return out

    def production(self, tid: int) -> int:
        return sum(self.cities[c].production() for c in self.tribes[tid].cities)

    def tiles_owned(self, tid: int) -> int:
        """The number of tiles in the territory of `tid`'s cities."""
        cities = self.cities
        n = 0
        for c in self.tile_city:
            if c:
                city = cities[c]
                if city.tribe == tid:
                    n += 1
        return n

    def research_cost(self, tribe: Tribe, tech: int) -> int:
        return A.research_cost(tribe.techs, len(tribe.cities), tech)

    def can_research(self, tribe: Tribe, tech: int) -> bool:
        if tribe.has(tech):
            return False
        p = K.TECH_PARENT[tech]
        return p < 0 or tribe.has(p)

    def owns_original_capital(self, tid: int) -> bool:
        cap = self.tribes[tid].capital
        return cap in self.cities and self.cities[cap].tribe == tid

    # ---------------------------------------------------------------- bookkeeping helpers
    def event(self, player: int, name: str, value: float = 1) -> None:
        self.log = log_add(self.log, self.tick, player, name, value)

    def add_score(self, tid: int, v: int) -> None:
        if v:
            t = self.tribe_w(tid)  # (not `self.tribe_w(tid).score += v`: Cython 3.1 fails on it)
            t.score += v

    def add_stars(self, tid: int, v: int) -> None:
        t = self.tribe_w(tid)
        t.stars += v
        if v > 0 and t.stars >= 100:
            self.make_available(tid, K.EMPERORS_TOMB)

    def make_available(self, tid: int, monument: int) -> None:
        i = K.MONUMENTS.index(monument)
        t = self.tribes[tid]
        if t.monuments[i] == K.UNAVAILABLE:
            self.tribe_w(tid).monuments[i] = K.AVAILABLE

    def add_pop(self, cid: int, v: int, score_tribe: int | None = None) -> None:
        """Population change: +5 score per population (to the city's owner unless
        `score_tribe` is given), also counted in the city's worth. Population never goes
        below -level."""
        if not v:
            return
        c = self.city_w(cid)
        new = max(-c.level, c.pop + v)
        d = new - c.pop
        c.pop = new
        c.worth += 5 * d
        self.add_score(c.tribe if score_tribe is None else score_tribe, 5 * d)

    def add_worth_points(self, cid: int, v: int) -> None:
        c = self.city_w(cid)
        c.worth += v
        self.add_score(c.tribe, v)

    def claim(self, cid: int, r: int) -> None:
        """A city claims the unowned tiles within radius r: +20 score and worth each."""
        tc = self.board_w("tile_city")
        n = 0
        for i in self.radius(self.cities[cid].pos, r):
            if not tc[i]:
                tc[i] = cid
                n += 1
        if n:
            self.owners_changed()
            self.add_worth_points(cid, 20 * n)

    def new_id(self) -> int:
        i = self.next_id
        self.next_id = i + 1
        return i

    def create_unit(self, utype: int, tribe: int, pos: int, home: int, hp: int | None = None,
                    max_hp: int | None = None, kills: int = 0, veteran: bool = False,
                    status: int = K.FINISHED, base: int = -1, register: bool = True) -> Unit:
        """A new unit on `pos` (which must be free), registered with its home city or as an
        extra unit (home 0) unless `register` is False (the reference's orphan)."""
        u = Unit.__new__(Unit)
        u.id = self.new_id()
        u.tribe, u.type, u.pos = tribe, utype, pos
        u.hp = K.UNIT_HP[utype] if hp is None else hp
        u.max_hp = u.hp if max_hp is None else max_hp
        u.kills, u.veteran, u.status, u.home, u.base = kills, veteran, status, home, base
        u.tok = self._tok
        self.units[u.id] = u
        self.unit_at[pos] = u.id
        if register:
            if home:
                self.city_w(home).units.append(u.id)
            else:
                self.tribe_w(tribe).extra_units.append(u.id)
        return u

    def unregister(self, u: Unit) -> bool:
        """Detach a unit from its home city or its tribe's extra units (False: it was
        registered nowhere, the reference's orphan)."""
        if u.home and u.home in self.cities and u.id in self.cities[u.home].units:
            self.city_w(u.home).units.remove(u.id)
            return True
        if u.id in self.tribes[u.tribe].extra_units:
            self.tribe_w(u.tribe).extra_units.remove(u.id)
            return True
        return False

    def remove_unit(self, uid: int, lose_points: bool) -> None:
        u = self.units.pop(uid)
        # the tile is cleared even if it refers to another unit (only possible after the
        # reference's ghost-unit bug, B14), as the reference does
        self.unit_at[u.pos] = 0
        self.unregister(u)
        if lose_points:
            self.add_score(u.tribe, -K.UNIT_POINTS[u.type])

    def replace_unit(self, u: Unit, new_type: int, pos: int, status: int) -> Unit:
        """Embark, disembark or upgrade: a new unit (new id) that keeps HP, kills and
        veteran flag, with the same home."""
        if new_type in (K.BOAT, K.SHIP, K.BATTLESHIP):
            base = u.base if K.UNIT_IS_NAVAL[u.type] else u.type
        else:
            base = -1
        self.units.pop(u.id)
        self.unit_at[u.pos] = 0
        home = u.home
        registered = self.unregister(u)
        # as in the reference, the new unit goes to the end of its city's (or the tribe's) list
        return self.create_unit(new_type, u.tribe, pos, home, u.hp, u.max_hp, u.kills,
                                u.veteran, status, base, register=registered)

    def push(self, uid: int) -> bool:
        """Push a unit off its tile (a Super Unit appears there). False: it found no tile
        and was killed (its owner loses its points)."""
        u = self.units[uid]
        n = self.size
        x, y = divmod(u.pos, n)
        tribe = self.tribes[u.tribe]
        naval = K.UNIT_IS_NAVAL[u.type]
        for dx, dy in K.PUSH_OFFSETS:
            i, j = x + dx, y + dy
            if not (0 <= i < n and 0 <= j < n):
                continue
            t = i * n + j
            if self.unit_at[t]:
                continue
            ter = self.terrain[t]
            if ter == K.MOUNTAIN and not tribe.has(K.CLIMBING):
                continue
            if K.IS_WATER[ter]:
                if naval:
                    if self.options.reference_bugs:
                        # reference bug: the push "succeeds" without moving the unit
                        self.unit_w(uid).status = K.PUSHED
                        return True
                    if ter == K.DEEP and not tribe.has(K.NAVIGATION):
                        continue
                    self._move_unit(uid, t)
                    self.unit_w(uid).status = K.PUSHED
                    return True
                if self.building[t] == K.PORT and self.tile_tribe(t) == u.tribe:
                    # embarks: the new boat is FINISHED (the reference marks the replaced
                    # unit PUSHED, not the boat), so it starts its next turn FRESH
                    self.replace_unit(u, K.BOAT, t, K.FINISHED)
                    return True
                continue
            if naval and not self.options.reference_bugs:
                continue  # a boat is pushed along the water, never onto land
            self._move_unit(uid, t)
            self.unit_w(uid).status = K.PUSHED
            return True
        self.remove_unit(uid, lose_points=True)
        self.event(u.tribe, "units_lost")
        return False

    def _move_unit(self, uid: int, dest: int) -> None:
        u = self.unit_w(uid)
        self.unit_at[u.pos] = 0  # unconditionally, as the reference (see remove_unit)
        u.pos = dest
        self.unit_at[dest] = uid

    # ---------------------------------------------------------------- trade network
    def update_networks(self, new_road: int | None = None) -> None:
        """Recompute every tribe's trade network (a new road skips the tribes whose
        connections it cannot change: the result is the same, only cheaper)."""
        for t in self.tribes:
            if t.result != LOSS and (new_road is None or self.road_may_connect(new_road, t.id)):
                self._update_network(t.id)

    def _update_network(self, tid: int) -> None:
        """The reference's bookkeeping: cities keep the order in which they joined the
        network; a city that drops out (path broken, or no longer owned) loses 1 population
        at once (the score change goes to this tribe even if the city is now an enemy's);
        the capital gains the net number of joined minus dropped cities; a city that joins
        gains 1 population only during its owner's turn."""
        tribe = self.tribes[tid]
        old = tribe.connected
        if not self.owns_original_capital(tid):
            if old:
                self.tribe_w(tid).connected = []
            return
        cap = tribe.capital
        reach = self._connected_cities(tid, self.cities[cap].pos)
        conn = None  # a private copy of the list once something changes
        added: list[int] = []
        lost = 0
        for c in tribe.cities:
            if c == cap:
                continue
            now = c in reach
            if c in old:
                if not now:
                    if conn is None:
                        conn = old[:]
                    conn.remove(c)
                    self.add_pop(c, -1, tid)
                    lost += 1
            elif now:
                if conn is None:
                    conn = old[:]
                conn.append(c)
                added.append(c)
        cities = self.cities
        for c in (conn if conn is not None else old)[:]:
            if cities[c].tribe != tid:
                if conn is None:
                    conn = old[:]
                conn.remove(c)
                self.add_pop(c, -1, tid)
                lost += 1
        if conn is None:
            return
        self.add_pop(cap, len(added) - lost, tid)
        self.tribe_w(tid).connected = conn
        if len(conn) >= 5:
            self.make_available(tid, K.GRAND_BAZAR)
        if tid == self.current:
            for c in added:
                self.add_pop(c, 1, tid)

    def _is_net(self, i: int, tid: int) -> bool:
        """A network tile of `tid`: its city centres, its ports, roads on neutral or own land."""
        c = self.tile_city[i]
        o = self.cities[c].tribe if c else -1
        if self.terrain[i] == _CITY or self.building[i] == _PORT:
            return o == tid
        return self.road[i] and (o == -1 or o == tid)

    def road_may_connect(self, tile: int, tid: int) -> bool:
        """Whether a new road on `tile` can change which of `tid`'s cities are connected:
        a path through it enters and leaves by two network neighbours."""
        if not self._is_net(tile, tid):
            return False
        n = 0
        for j in self._nbrs[tile]:
            if self._is_net(j, tid):
                n += 1
                if n == 2:
                    return True
        return False

    def _connected_cities(self, tid: int, start: int) -> set[int]:
        """The cities of `tid` joined to the tile `start` through its network (`_is_net`,
        written out here: this search runs after every port and network road)."""
        terrain, building, nbrs, tc = self.terrain, self.building, self._nbrs, self.tile_city
        road, cities = self.road, self.cities
        seen = {start}
        stack = [start]
        found: set[int] = set()
        while stack:
            i = stack.pop()
            if terrain[i] == _CITY:
                found.add(tc[i])
            for j in nbrs[i]:
                if j in seen:
                    continue
                c = tc[j]
                o = cities[c].tribe if c else -1
                if terrain[j] == _CITY or building[j] == _PORT:
                    if o != tid:
                        continue
                elif not road[j] or (o != -1 and o != tid):
                    continue
                seen.add(j)
                stack.append(j)
            if building[i] == _PORT:
                for j in self._ports_within(i, tid):
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
        return found

    def _ports_within(self, start: int, tid: int, steps: int = 4) -> list[int]:
        """Own ports reachable from a port by a water path of at most `steps` steps over
        neutral or own water.

        Which water a path may cross depends on who owns the tiles, not on the ports, so the
        own water tiles such paths reach are kept (`_own_water`, shared with copies) until
        tiles or cities change owner (`owners_changed`); the ports among them are read now."""
        key = (start, tid, steps)
        own = self._own_water.get(key)
        if own is None:
            own = self._own_water[key] = self._own_water_within(start, tid, steps)
        building = self.building
        return [j for j in own if building[j] == _PORT]

    def _own_water_within(self, start: int, tid: int, steps: int) -> tuple[int, ...]:
        """The water tiles of `tid` other than `start` reached from it by a path of at most
        `steps` steps over neutral or own water."""
        terrain, tc, cities, nbrs = self.terrain, self.tile_city, self.cities, self._nbrs
        is_water = K.IS_WATER
        frontier = [start]
        seen = {start}
        out = []
        for _ in range(steps):
            nxt = []
            for i in frontier:
                for j in nbrs[i]:
                    if j in seen or not is_water[terrain[j]]:
                        continue
                    c = tc[j]
                    o = cities[c].tribe if c else -1
                    if o != -1 and o != tid:
                        continue
                    seen.add(j)
                    if o == tid:
                        out.append(j)
                    nxt.append(j)
            frontier = nxt
        return tuple(out)

    def owners_changed(self) -> None:
        """Tiles or cities changed owner (a border grew, a village or city was captured):
        forget the water paths between ports (`_ports_within`) and the cities' tiles
        (`actions.city_tiles`) found so far."""
        self._own_water = {}
        self._city_tiles = {}

    # ---------------------------------------------------------------- turns
    def start_turn(self) -> None:
        tid = self.current
        t = self.tribe_w(tid)
        if self.tick == 0:
            t.stars = K.START_STARS
        else:
            income = 0
            unit_at, units = self.unit_at, self.units
            for cid in t.cities:
                c = self.cities[cid]
                occ = unit_at[c.pos]
                if occ and units[occ].tribe != tid:
                    continue
                income += c.production()
            if income > 0:
                self.add_stars(tid, income)
        for cid in t.cities:
            c = self.cities[cid]
            if c.temples:
                for tile, (lvl, left) in list(c.temples.items()):
                    if lvl >= 5:
                        continue
                    cw = self.city_w(cid)
                    left -= 1
                    if left == 0:
                        lvl += 1
                        cw.temples[tile] = [lvl, 3]
                        self.add_worth_points(cid, K.TEMPLE_POINTS[lvl])
                    else:
                        cw.temples[tile] = [lvl, left]
        for uid in self.tribe_units(tid):
            u = self.units[uid]
            st = K.MOVED if u.status == K.PUSHED else K.FRESH
            if u.status != st:
                self.unit_w(uid).status = st
        if t.has(K.MEDITATION):
            t.pacifist += 1
            if t.pacifist == 5:
                # the reference sets it AVAILABLE even when already BUILT, so a tribe that
                # stays peaceful another 5 turns can build a second Altar of Peace
                t.monuments[K.MONUMENTS.index(K.ALTAR_OF_PEACE)] = K.AVAILABLE

    def end_turn(self) -> None:
        tid = self.current
        own = self.tile_tribe
        for uid in self.tribe_units(tid):
            u = self.units[uid]
            if u.status == K.FRESH and 0 < u.hp < u.max_hp:
                self.recover(uid, own(u.pos) == tid)
        t = self.tribes[tid]
        self.event(tid, "techs", t.n_techs())
        self.event(tid, "tiles", self.tiles_owned(tid))
        self.event(tid, "cities", len(t.cities))
        self.event(tid, "production", self.production(tid))
        self.event(tid, "score", t.score)
        self.event(tid, "stars", t.stars)

    def recover(self, uid: int, own_territory: bool) -> None:
        u = self.unit_w(uid)
        u.hp = min(u.max_hp, u.hp + (4 if own_territory else 2))
        u.status = K.FINISHED

    def next_turn(self) -> None:
        """End the current tribe's turn and start the next living tribe's (a new round after
        the last tribe; the game ends when the round counter passes the limit)."""
        self.end_turn()
        if self.check_game_over():
            return
        n = len(self.tribes)
        nxt = self.current
        while True:
            nxt += 1
            if nxt >= n:
                nxt = 0
                self.tick += 1
                if self.tick > self.options.rounds():
                    self.finish()
                    return
            if self.tribes[nxt].result != LOSS:
                break
        self.current = nxt
        self.start_turn()

    # ---------------------------------------------------------------- game end
    def check_game_over(self) -> bool:
        if self.game_over:
            return True
        if self.options.mode == K.CAPITALS and len(self.capitals) > 1:
            # over when every capital still standing has one owner
            cities = self.cities
            owner = -1
            for c in self.capitals:
                if c in cities:
                    o = cities[c].tribe
                    if owner == -1:
                        owner = o
                    elif o != owner:
                        break
            else:
                if owner != -1:
                    self.finish(winner=owner)
                    return True
        alive = []
        for t in self.tribes:
            if t.result != LOSS:
                alive.append(t.id)
        if len(alive) <= 1:
            self.finish(winner=alive[0] if alive else None)
            return True
        return False

    def _rank(self, random_ties: bool) -> list[int]:
        def key(t: Tribe):
            return (t.result == WIN, t.score, t.n_techs(), len(t.cities), self.production(t.id))

        order = sorted(self.tribes, key=key, reverse=True)
        if random_ties:
            # a full tie on every criterion is broken by the game's generator
            i = 0
            while i < len(order):
                j = i
                while j + 1 < len(order) and key(order[j + 1]) == key(order[i]):
                    j += 1
                if j > i:
                    block = order[i:j + 1]
                    java_shuffle(block, self.rng)
                    order[i:j + 1] = block
                i = j + 1
        return [t.id for t in order]

    def finish(self, winner: int | None = None) -> None:
        if winner is not None:
            self.tribe_w(winner).result = WIN
        ranking = self._rank(random_ties=True)
        for pos, tid in enumerate(ranking):
            self.tribe_w(tid).result = WIN if pos == 0 else LOSS
        self.final_ranking = tuple(ranking)
        self.game_over = True




def _radius_tiles(n: int, idx: int, r: int) -> tuple[int, ...]:
    x, y = divmod(idx, n)
    return tuple(i * n + j for i in range(max(0, x - r), min(n, x + r + 1))
                 for j in range(max(0, y - r), min(n, y + r + 1)))


_RAD_CACHE: dict[int, tuple] = {}


def _neighbour_table(n: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for idx in range(n * n):
        x, y = divmod(idx, n)
        out.append(tuple(i * n + j for i in range(x - 1, x + 2) for j in range(y - 1, y + 2)
                         if 0 <= i < n and 0 <= j < n and (i, j) != (x, y)))
    return tuple(out)


_NBR_CACHE: dict[int, tuple] = {}


def new_game(level, seed: int, options: TribesOptions | None = None) -> TribesState:
    """Set up a game on a level (a `games.tribes.level.Level`): tribes in the order their
    capitals appear in a row-major scan, ids allocated as the reference does (each capital,
    then its starting unit), and the first tribe's turn started."""
    options = options or TribesOptions()
    s = TribesState()
    n = level.size
    s.size = n
    s.options = options
    s.terrain = [K.TERRAIN_OF_CHAR[c] for c in level.terrain]
    s.resource = [K.RESOURCE_OF_CHAR.get(r, 0) if r else 0 for r in level.resource]
    s.building = [0] * (n * n)
    s.unit_at = [0] * (n * n)
    s.tile_city = [0] * (n * n)
    s.road = [False] * (n * n)
    if n not in _NBR_CACHE:
        _NBR_CACHE[n] = _neighbour_table(n)
    s._nbrs = _NBR_CACHE[n]
    if n not in _RAD_CACHE:
        _RAD_CACHE[n] = tuple(tuple(_radius_tiles(n, i, r) for i in range(n * n)) for r in range(4))
    s._rad = _RAD_CACHE[n]
    s.units, s.cities, s.tribes = {}, {}, []
    s.next_id = 1
    s.tick = 0
    s.current = 0
    s.game_over = False
    s.final_ranking = ()
    s.log = None
    s.rng = JavaRandom(seed)
    s.forced = None  # rules.Forced outcomes when replaying a recorded game
    s._legal = None
    s._by_actor = None
    s._zoc = {}
    s._reach = {}  # unit id -> (tribe, position, type, techs, reachable tiles): actions.reachable
    s._lists = {}  # actor id -> [its legal actions, grouped by kind]: actions.list_actions
    s._carry = None  # what `actions.lists_of` needs while `_lists` is None
    s._own_water = {}  # (port, tribe, steps) -> own water reached: TribesState._ports_within
    s._city_tiles = {}  # (city, radius) -> the tiles it owns: actions.city_tiles
    capitals = []
    for tid, (pos, key) in enumerate(level.capitals):
        t = Tribe.__new__(Tribe)
        t.id, t.key, t.stars, t.score, t.kills = tid, key, K.START_STARS, 0, 0
        start_tech = K.TRIBE_START_TECH[key]
        t.techs = (1 << start_tech) if start_tech >= 0 else 0
        t.cities, t.extra_units, t.monuments = [], [], [K.UNAVAILABLE] * len(K.MONUMENTS)
        t.pacifist, t.connected, t.result, t.tok = 0, [], INCOMPLETE, s._tok
        s.tribes.append(t)
        if start_tech >= 0:
            t.score += 100 * K.TECH_TIER[start_tech]
        c = City.__new__(City)
        c.id = s.new_id()
        c.tribe, c.pos, c.level, c.pop, c.pop_need, c.prod_bonus = tid, pos, 1, 0, 2, 0
        c.capital, c.walls, c.bound, c.worth, c.units, c.temples, c.tok = True, False, 1, 0, [], {}, s._tok
        if key == K.LUXIDOOR:
            c.level, c.pop_need, c.walls = 3, 4, True
        s.cities[c.id] = c
        t.cities.append(c.id)
        t.capital = c.id
        s.board_w("terrain")[pos] = K.CITY
        s.board_w("resource")[pos] = 0
        s.board_w("road")[pos] = False
        t.score += 100
        utype = K.TRIBE_START_UNIT[key]
        s.create_unit(utype, tid, pos, c.id)
        t.score += K.UNIT_POINTS[utype]
        s.claim(c.id, 1)
        capitals.append(c.id)
    s.capitals = tuple(capitals)
    s.start_turn()
    return s
