"""The 57 Tribes scripts of the paper's portfolio, each doing what its name promises.

Scripts follow `agents.portfolio.script`: `fn(ctx, actor, actions) -> (action, value) | None`
with `ctx` a `TribesContext`. They read the state only (never copy or apply: a forward-model
call would count against the search budget) and share the per-state facts the context computes
lazily, once: who owns each tile, own and enemy unit positions, Chebyshev distance fields to the
tiles a move script heads for, enemy counts within each attack range, build-site scores.

Values are in [0, 1] and are meant to be compared across actors and scripts (they feed the
pruning rank and progressive bias of P-MCTS), so each is a fixed, monotone normalisation of the
script's own criterion: the candidate a script picks is also the one with the highest value it
could have reported. The normalisations are stated on each script; docs/portfolio.md has the
table and the differences from the reference scripts.

Where the reference scripts are broken (dead scripts, zero-damage attack scoring, base
buildings dropping their best site, unreachable move thresholds, constant values), the intended
behaviour is implemented instead.
"""

from __future__ import annotations

import math

import numpy as np

from agents.portfolio.script import (
    DEFAULT_VALUE,
    ScriptContext,
    ScriptTable,
    lazy,
    pick_max,
    pick_min,
)
from games.tribes import actions as A
from games.tribes import constants as K
from games.tribes.combat import attack_outcome, round_half_up
from games.tribes.pieces import BOARD_LISTS

GAME = "tribes"
SCRIPTS = ScriptTable()
"""The game's portfolio scripts, in order (registered by its plug-in)."""

TYPE_ORDER = (
    "BUILD", "BURN_FOREST", "CLEAR_FOREST", "DESTROY", "GROW_FOREST", "LEVEL_UP",
    "RESOURCE_GATHERING", "SPAWN", "BUILD_ROAD", "END_TURN", "RESEARCH_TECH", "ATTACK", "CAPTURE",
    "CONVERT", "DISBAND", "EXAMINE", "HEAL_OTHERS", "MAKE_VETERAN", "MOVE", "RECOVER",
    "UPGRADE_BOAT", "UPGRADE_SHIP",
)
"""Action types in the reference portfolio's order (its enum order, section 2.2)."""

HP_SCALE = 40.0
"""The largest HP a unit can have (the Super Unit's): scale of HP-based values."""
ATK_SCALE = float(max(K.UNIT_ATK))
DEF_SCALE = float(max(K.UNIT_DEF))
_SITE_SCALE = 4.0
"""A site with this many adjacent partner buildings (or twice as many potential partner
sites) scores 1: 4 farms around a windmill is already an excellent windmill."""

SUPPORT = (K.CUSTOMS_HOUSE, K.SAWMILL, K.WINDMILL, K.FORGE)
BASES = (K.FARM, K.MINE, K.LUMBER_HUT, K.PORT)
_NB = len(K.BUILDING_NAMES)
_PLAIN, _BASE_OF = K.PLAIN, K.BASE_OF
_BASE_OF_PRODUCER = {prod: base for prod, (base, _) in K.PRODUCER.items()}


def _base_at(terrain: int, resource: int) -> int:
    """The base building an empty tile could take (terrain and resource rules), or 0."""
    for b in BASES:
        if terrain in K.BUILDING_TERRAIN[b]:
            need = K.BUILDING_RESOURCE.get(b)
            if need is None or resource == need:
                return b
    return 0


_BASE_AT = [[_base_at(t, r) for r in range(len(K.RESOURCE_NAMES))]
            for t in range(len(K.TERRAIN_NAMES))]


# ------------------------------------------------------------------------------ geometry
class _Board:
    """Per board size: row/col of each tile, Chebyshev distances between all tiles, and the
    tiles within radius r of each tile (r = 1..3, the attack ranges)."""

    def __init__(self, n: int) -> None:
        N = n * n
        self.n = n
        self.last = max(1, n - 1)
        self.row = [i // n for i in range(N)]
        self.col = [i % n for i in range(N)]
        r = np.array(self.row)
        c = np.array(self.col)
        d = np.maximum(np.abs(r[:, None] - r[None, :]), np.abs(c[:, None] - c[None, :]))
        self.cheb_np = d.astype(np.int16)
        self.cheb = d.tolist()
        self.within = {k: [tuple(np.flatnonzero(d[i] <= k).tolist()) for i in range(N)]
                       for k in (1, 2, 3)}


_BOARDS: dict[int, _Board] = {}


def _board(n: int) -> _Board:
    b = _BOARDS.get(n)
    if b is None:
        b = _BOARDS[n] = _Board(n)
    return b


# ------------------------------------------------------------------------------ cached map facts
# Facts that depend only on the map (terrain, territory) or on a set of target tiles are keyed
# by their content and shared across states: consecutive states of a search almost always
# share them, and a content key cannot go stale.
_CACHE_LIMIT = 2048
"""Entries per cache before it is simply emptied (a search touches far fewer distinct maps;
the bound keeps a long-lived worker's memory within about 20 MB)."""
_FIELDS: dict = {}
_TERRAIN: dict = {}
_TERRITORY: dict = {}
_ENEMY_COUNT: dict = {}
_TERRAIN_LISTS: dict = {}
_TERRITORY_LISTS: dict = {}
_LUMBER_HUT = K.LUMBER_HUT
_TERRAIN_BIT = BOARD_LISTS["terrain"]
_TILE_CITY_BIT = BOARD_LISTS["tile_city"]
_EMPTY: frozenset = frozenset()


def _cached(cache: dict, key, make):
    v = cache.get(key)
    if v is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        v = cache[key] = make()
    return v


def _by_list(cache: dict, lst: list, key, make):
    """`make()`, cached by the identity of a board list that no position writes into again
    (and by `key`): a position writes in place only into a board list it owns
    (`StateFields.board_w`), and a list it shares with a copy is owned by neither. Skips
    the content key (`bytes` or `tuple` of the whole board) that `_cached` needs. The entry
    holds the list, so its identity stays its own while the entry lasts."""
    k = (id(lst), key)
    e = cache.get(k)
    if e is not None and e[0] is lst:
        return e[1]
    v = make()
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[k] = (lst, v)
    return v


def _unit_tiles(s, me: int) -> tuple[list[int], list[int]]:
    """(own unit positions, enemy unit positions) of the units standing on their tiles, in
    the units' order (`TribesContext._positions`)."""
    unit_at = s.unit_at
    own, enemy = [], []
    for uid, u in s.units.items():
        p = u.pos
        if unit_at[p] == uid:
            (own if u.tribe == me else enemy).append(p)
    return own, enemy


def _adjacent(positions: list[int], nbrs: tuple, n: int) -> list[int]:
    """Per tile of `n`, how many of `positions` are among its neighbours (`nbrs`)."""
    cnt = [0] * n
    for p in positions:
        row = nbrs[p]
        for j in row:
            cnt[j] += 1
    return cnt


def _indices(seq: list, value: int) -> list[int]:
    """Positions of the int `value` in a list of ints (compiled, a loop over C integers)."""
    out = []
    for i in range(len(seq)):
        x = seq[i]
        if x == value:
            out.append(i)
    return out


def _field(board: "_Board", targets: list[int]) -> list[int] | None:
    """Chebyshev distance from every tile to the nearest target (None if no target);
    `targets` sorted, so equal sets share one cache entry."""
    if not targets:
        return None
    if len(targets) == 1:
        return board.cheb[targets[0]]
    key = (board.n, tuple(targets))
    f = _FIELDS.get(key)
    if f is None:
        if len(_FIELDS) >= _CACHE_LIMIT:
            _FIELDS.clear()
        f = _FIELDS[key] = board.cheb_np[:, targets].min(axis=1).tolist()
    return f


class _TerrainFacts:
    """Villages and land tiles of one terrain layout."""

    def __init__(self, s) -> None:
        ter = s.terrain
        self.villages = tuple(_indices(ter, K.VILLAGE))
        self.land = frozenset(i for i, t in enumerate(ter) if not K.IS_WATER[t])
        self._land_field = False

    def land_field(self, board):
        if self._land_field is False:
            self._land_field = _field(board, sorted(self.land))
        return self._land_field


class _TerritoryFacts:
    """Owner of every tile and the own / enemy territory, for one tribe and one map of
    city borders."""

    def __init__(self, s, me: int) -> None:
        ct = {cid: c.tribe for cid, c in s.cities.items()}
        ct[0] = -1
        self.owner = owner = list(map(ct.__getitem__, s.tile_city))
        self.own_land = frozenset(_indices(owner, me))
        self.enemy_land = frozenset(i for i, o in enumerate(owner) if o >= 0 and o != me)
        self._own_field = self._enemy_field = False

    def own_field(self, board):
        if self._own_field is False:
            self._own_field = _field(board, sorted(self.own_land))
        return self._own_field

    def enemy_field(self, board):
        if self._enemy_field is False:
            self._enemy_field = _field(board, sorted(self.enemy_land))
        return self._enemy_field


# ------------------------------------------------------------------------------ context
class TribesContext(ScriptContext):
    """Per-state facts for the Tribes scripts, each computed on first use and then shared."""

    def __init__(self, state, rng) -> None:
        super().__init__(state, rng)
        self.me = state.current
        self.board = _board(state.size)
        self._enemy_count: dict = {}
        # kept per actor or per tile (whatever an action may change: `_actor_caches`)
        self._moves: dict = {}
        self._builds: dict = {}
        self._tile_value: dict = {}
        self._site: dict = {}
        self._company: dict = {}
        self._city_b: dict = {}

    def _actor_caches(self) -> None:
        """Empty the caches kept per actor or per tile (nothing keeps them but the context)."""
        for cache in (self._moves, self._builds, self._tile_value, self._site, self._company,
                      self._city_b):
            cache.clear()

    def ordered_actors(self, by_actor: dict) -> list:
        """Units first (in the state's order), then cities, then the tribe (actor 0)."""
        units = self.state.units
        us = [a for a in by_actor if a in units]
        rest = [a for a in by_actor if a not in units and a != A.TRIBE_ACTOR]
        if A.TRIBE_ACTOR in by_actor:
            rest.append(A.TRIBE_ACTOR)
        return us + rest

    def after(self, state, action) -> "TribesContext | None":
        """This context, for its state after one of the actions that leave the mover, the
        map's land and villages, the territory and the cities as they were
        (`_FORGET_AFTER`), with the facts the action may change forgotten, and every
        per-actor cache. Anything else: None (a new context)."""
        forget = _FORGET_AFTER.get(action[0])
        if forget is None or state.current != self.me or state.game_over:
            return None
        d = self.__dict__
        if action[0] != A.MOVE or not self._moved(d, action[2]):
            for name in forget:
                d.pop(name, None)
        if action[0] == A.ATTACK:
            self._enemy_count = {}
        self._actor_caches()
        return self

    def _moved(self, d: dict, q: int) -> bool:
        """After an own unit moved to tile q, bring the known own-unit facts that do not
        depend on the units' order up to date in place instead of forgetting them: its old
        tile is the one own position now empty. False (nothing changed) if where units
        stood is not known or units may share a tile."""
        known = d.get("_positions")
        if known is None or self.state.options.reference_bugs:
            return False
        own = known[0]
        unit_at = self.state.unit_at
        i = 0
        n = len(own)
        while i < n and unit_at[own[i]]:
            i += 1
        if i == n:
            return False
        p = own[i]
        # their order is the units' order, which a move may change (embarking replaces the
        # unit): listed again when asked for
        del d["_positions"]
        d.pop("own_positions", None)
        mine = d.get("own_set")
        if mine is not None:
            mine.discard(p)
            mine.add(q)
        cnt = d.get("adj_own")
        if cnt is not None:
            nbrs = self.state._nbrs
            for j in nbrs[p]:
                cnt[j] -= 1
            for j in nbrs[q]:
                cnt[j] += 1
        # a field of targets changes only if a target's tile was left or taken
        for field, targets in (("capture_field", "capture_targets"),
                               ("own_centre_field", "own_centres")):
            if field in d:
                t = d.get(targets)
                if t is None or p in t or q in t:
                    del d[field]
        return True

    def fact(self, name: str):
        """The `lazy` fact `name`: `getattr(self, name)`, read from the instance dict once
        it is known."""
        d = self.__dict__
        if name in d:
            return d[name]
        return getattr(self, name)

    # ---------------------------------------------------------------- map facts (cached)
    @lazy
    def _terrain(self) -> "_TerrainFacts":
        s = self.state

        def by_content():
            return _cached(_TERRAIN, bytes(s.terrain), lambda: _TerrainFacts(s))
        if s._own & _TERRAIN_BIT:
            return by_content()
        return _by_list(_TERRAIN_LISTS, s.terrain, None, by_content)

    @lazy
    def _territory(self) -> "_TerritoryFacts":
        s = self.state
        me = self.me
        cities = (tuple([c.tribe for c in s.cities.values()]), tuple(s.cities))

        def by_content():
            return _cached(_TERRITORY, (me, tuple(s.tile_city)) + cities,
                           lambda: _TerritoryFacts(s, me))
        if s._own & _TILE_CITY_BIT:
            return by_content()
        return _by_list(_TERRITORY_LISTS, s.tile_city, (me,) + cities, by_content)

    @lazy
    def owner(self) -> list[int]:
        """Tribe owning each tile's territory, -1 if neutral."""
        return self._territory.owner

    def city_buildings(self, cid: int):
        """The set of building types on a city's tiles (empty for no city)."""
        b = self._city_b.get(cid)
        if b is None:
            s = self.state
            c = s.cities.get(cid)
            if c is None:
                b = _EMPTY
            else:
                tc, building = s.tile_city, s.building
                b = {building[i] for i in self.board.within[2][c.pos] if tc[i] == cid}
            self._city_b[cid] = b
        return b

    # ---------------------------------------------------------------- units
    @lazy
    def _positions(self) -> tuple[list[int], list[int]]:
        """(own unit positions, enemy unit positions), in one pass over the units."""
        return _unit_tiles(self.state, self.me)

    @lazy
    def own_positions(self) -> list[int]:
        return self._positions[0]

    @lazy
    def enemy_positions(self) -> list[int]:
        return self._positions[1]

    @lazy
    def own_set(self) -> set[int]:
        return set(self._positions[0])

    @lazy
    def adj_own(self) -> list[int]:
        """Number of own units on the 8 neighbours of each tile."""
        return _adjacent(self._positions[0], self.state._nbrs, len(self.state.terrain))

    def enemy_count(self, r: int) -> list[int]:
        """Number of enemy units within Chebyshev distance r of each tile (shared across
        states: enemy units stand still during the player's own turn)."""
        cnt = self._enemy_count.get(r)
        if cnt is None:
            board = self.board
            key = (board.n, r, tuple(self._positions[1]))
            cnt = _ENEMY_COUNT.get(key)
            if cnt is None:
                cnt = [0] * (board.n * board.n)
                within = board.within[r]
                for p in key[2]:
                    for t in within[p]:
                        cnt[t] += 1
                if len(_ENEMY_COUNT) >= _CACHE_LIMIT:
                    _ENEMY_COUNT.clear()
                _ENEMY_COUNT[key] = cnt
            self._enemy_count[r] = cnt
        return cnt

    # ---------------------------------------------------------------- move targets and fields
    @lazy
    def capture_targets(self) -> set[int]:
        """Villages, ruins and enemy city centres."""
        s = self.state
        me = self.me
        out = set(self._terrain.villages)
        out.update(_indices(s.resource, K.RUINS))
        for c in s.cities.values():
            if c.tribe != me:
                out.add(c.pos)
        return out

    @lazy
    def capture_field(self):
        own = self.own_set
        return _field(self.board, sorted([i for i in self.capture_targets if i not in own]))

    @lazy
    def own_centres(self) -> set[int]:
        s = self.state
        return {s.cities[c].pos for c in s.tribes[self.me].cities}

    @lazy
    def own_centre_field(self):
        own = self.own_set
        return _field(self.board, sorted([i for i in self.own_centres if i not in own]))

    @lazy
    def own_land(self) -> frozenset:
        return self._territory.own_land

    @lazy
    def own_land_field(self):
        return self._territory.own_field(self.board)

    @lazy
    def enemy_land(self) -> frozenset:
        return self._territory.enemy_land

    @lazy
    def enemy_land_field(self):
        return self._territory.enemy_field(self.board)

    @lazy
    def land(self) -> frozenset:
        return self._terrain.land

    @lazy
    def land_field(self):
        return self._terrain.land_field(self.board)

    @lazy
    def own_ports(self) -> set[int]:
        ports = _indices(self.state.building, K.PORT)
        if not ports:
            return _EMPTY
        me, owner = self.me, self.owner
        return {i for i in ports if owner[i] == me}

    @lazy
    def own_port_field(self):
        return _field(self.board, sorted(self.own_ports))

    # ---------------------------------------------------------------- per-actor caches
    def moves(self, actor: int, actions) -> tuple:
        """(unit position, destinations, largest Chebyshev step among them, on water?)."""
        m = self._moves.get(actor)
        if m is None:
            pos = self.state.units[actor].pos
            dests = [a[2] for a in actions]
            row = self.board.cheb[pos]
            longest = 0
            for t in dests:
                step = row[t]
                if step > longest:
                    longest = step
            m = (pos, dests, longest, K.IS_WATER[self.state.terrain[pos]])
            self._moves[actor] = m
        return m

    def builds(self, actor: int, actions) -> dict[int, list]:
        """A city's BUILD actions grouped by building type."""
        g = self._builds.get(actor)
        if g is None:
            g = {}
            for a in actions:
                g.setdefault(a[3], []).append(a)
            self._builds[actor] = g
        return g

    # ---------------------------------------------------------------- build sites
    def site_counts(self, p: int) -> list[float]:
        """Per base building type: own neighbours of p holding it (1 each) or empty and able
        to take it later (0.5 each; terrain and resource only, tech ignored)."""
        c = self._site.get(p)
        if c is None:
            s = self.state
            building, owner, me = s.building, self.owner, self.me
            terrain, resource = s.terrain, s.resource
            c = [0.0] * _NB
            for j in s._nbrs[p]:
                o = owner[j]
                if o != me:
                    continue
                b = building[j]
                if b:
                    c[b] += 1.0
                else:
                    pb = _BASE_AT[terrain[j]][resource[j]]
                    if pb:
                        c[pb] += 0.5
            self._site[p] = c
        return c

    def producer_site(self, p: int, producer: int) -> float:
        """How good tile p is for `producer`: site_counts of its base building over 4, capped
        at 1 (4 adjacent farms make a perfect windmill site)."""
        return min(1.0, self.site_counts(p)[_BASE_OF_PRODUCER[producer]] / _SITE_SCALE)

    def base_synergy(self, p: int, base: int) -> float:
        """What a base building on p adds to its producer: 1 if an own producer is adjacent
        (it pays at once), else 0.25 per own empty plain neighbour whose city lacks that
        producer (where one could go later), up to 0.5."""
        producer = _BASE_OF[base]
        s = self.state
        building, terrain, owner, me, tc = s.building, s.terrain, self.owner, self.me, s.tile_city
        nbrs = s._nbrs[p]
        for j in nbrs:
            b = building[j]  # read into C integers where compiled: C comparisons
            if b == producer:
                o = owner[j]
                if o == me:
                    return 1.0
        n = 0
        for q in nbrs:
            o = owner[q]
            if o != me:
                continue
            b = building[q]
            if not b and terrain[q] == _PLAIN and producer not in self.city_buildings(tc[q]):
                n += 1
                if n == 2:
                    break
        return 0.25 * n

    def base_value(self, p: int, base: int) -> float:
        """Value of a base building on p: half from its own population (2 for farm, mine and
        port = 0.5; 1 for the lumber hut = 0.25), half from its producer synergy."""
        return 0.25 * K.BUILDING_POP[base] + 0.5 * self.base_synergy(p, base)

    def support_value(self, p: int) -> float:
        """Best producer site value of p over the producers its city does not have yet
        (0 unless p is an empty plain)."""
        s = self.state
        if s.terrain[p] != _PLAIN or s.building[p]:
            return 0.0
        have = self.city_buildings(s.tile_city[p])
        c = self.site_counts(p)
        best = 0.0
        for prod in SUPPORT:
            if prod not in have:
                v = c[_BASE_OF_PRODUCER[prod]]
                if v > best:
                    best = v
        return min(1.0, best / _SITE_SCALE)

    def economic_value(self, p: int) -> float:
        """The best economic use of tile p as it is: a producer site or a base building."""
        known = self._tile_value.get(p)
        if known is not None:
            return known
        v = self.support_value(p)
        s = self.state
        if not s.building[p]:
            b = _BASE_AT[s.terrain[p]][s.resource[p]]
            if b:
                v = max(v, self.base_value(p, b))
        self._tile_value[p] = v
        return v


_OWN_UNIT_FACTS = ("_positions", "own_positions", "own_set", "adj_own", "capture_field",
                   "own_centre_field")
_UNIT_FACTS = _OWN_UNIT_FACTS + ("enemy_positions",)
_PORT_FACTS = ("own_ports", "own_port_field")
_RUINS_FACTS = ("capture_targets", "capture_field")
_FORGET_AFTER = {
    **dict.fromkeys((A.MOVE, A.SPAWN, A.DISBAND, A.UPGRADE_BOAT, A.UPGRADE_SHIP),
                    _OWN_UNIT_FACTS),
    **dict.fromkeys((A.RECOVER, A.HEAL_OTHERS, A.MAKE_VETERAN, A.RESEARCH_TECH,
                     A.RESOURCE_GATHERING, A.BUILD_ROAD, A.CLEAR_FOREST), ()),
    # these replace the tile's resource, even ruins
    **dict.fromkeys((A.BURN_FOREST, A.GROW_FOREST), _RUINS_FACTS),
    A.BUILD: _PORT_FACTS + _RUINS_FACTS,
    A.ATTACK: _UNIT_FACTS,  # and the enemy counts: a unit may die, a killer moves
    A.DESTROY: _PORT_FACTS,
}
"""Action kind -> the facts of a `TribesContext` it may change (`TribesContext.after`):
where units stand, the own ports, the ruins. A forest cleared, burnt or grown or a Lumber
Hut turns forest and plain into each other, which are both land and neither a village; a
resource gathered is never ruins. Ending the turn, capturing, converting, examining ruins
and levelling up: a new context."""



# ------------------------------------------------------------------------------ wrappers
for _name, _type in (
        ("Capture", "CAPTURE"), ("Examine", "EXAMINE"), ("HealOthers", "HEAL_OTHERS"),
        ("MakeVeteran", "MAKE_VETERAN"), ("Recover", "RECOVER"), ("UpgradeBoat", "UPGRADE_BOAT"),
        ("UpgradeShip", "UPGRADE_SHIP"), ("EndTurn", "END_TURN"), ("Destroy", "DESTROY"),
        ("Disband", "DISBAND")):
    SCRIPTS.wrapper(_name, _type)


# ------------------------------------------------------------------------------ attack
@SCRIPTS.script("AttackClosest", "ATTACK")
def attack_closest(ctx, actor, actions):
    """The target at the smallest Euclidean distance; v = 1/d (adjacent = 1, two tiles = 0.5)."""
    s = ctx.state
    units, row, col = s.units, ctx.board.row, ctx.board.col
    p = units[actor].pos
    x, y = row[p], col[p]
    ds = []
    for a in actions:
        q = units[a[2]].pos
        ds.append(math.hypot(row[q] - x, col[q] - y))
    a, d = pick_min(ctx, actions, ds)
    return a, 1.0 / d if d >= 1 else 1.0


@SCRIPTS.script("AttackWeakest", "ATTACK")
def attack_weakest(ctx, actor, actions):
    """The target with the lowest current HP (then the lowest DEF); v = 1 - HP/40."""
    units = ctx.state.units
    keys = []
    for a in actions:
        t = units[a[2]]
        keys.append((t.hp, K.UNIT_DEF[t.type]))
    a, (hp, _) = pick_min(ctx, actions, keys)
    return a, max(0.0, 1.0 - hp / HP_SCALE)


@SCRIPTS.script("AttackMaxDamage", "ATTACK")
def attack_max_damage(ctx, actor, actions):
    """The target losing the most HP (combat arithmetic, no state copy), a kill ranking above
    any non-kill: score = HP removed + (M if killed), M = the attacker's largest possible
    damage round(4.5 ATK); v = score / 2M (kills in [0.5, 1], others below 0.5)."""
    s = ctx.state
    units = s.units
    att = units[actor]
    m = round_half_up(K.UNIT_ATK[att.type] * 4.5)
    if m <= 0:
        return actions[0], 0.0
    scores = []
    for a in actions:
        t = units[a[2]]
        dmg = attack_outcome(s, att, t)[0]
        scores.append(t.hp + m if dmg >= t.hp else dmg)
    a, sc = pick_max(ctx, actions, scores)
    return a, min(1.0, sc / (2 * m))


@SCRIPTS.script("AttackStrongest", "ATTACK")
def attack_strongest(ctx, actor, actions):
    """The target with the highest attack force ATK x HP/maxHP (a wounded knight threatens
    less than a fresh one); v = force / 5 (the Super Unit's ATK)."""
    units = ctx.state.units
    fs = []
    for a in actions:
        t = units[a[2]]
        fs.append(K.UNIT_ATK[t.type] * t.hp / t.max_hp)
    a, f = pick_max(ctx, actions, fs)
    return a, min(1.0, f / ATK_SCALE)


# ------------------------------------------------------------------------------ convert
@SCRIPTS.script("ConvertStrongest", "CONVERT")
def convert_strongest(ctx, actor, actions):
    """The enemy unit with the highest ATK; v = ATK / 5."""
    units = ctx.state.units
    a, f = pick_max(ctx, actions, [K.UNIT_ATK[units[a[2]].type] for a in actions])
    return a, f / ATK_SCALE


@SCRIPTS.script("ConvertHighestHP", "CONVERT")
def convert_highest_hp(ctx, actor, actions):
    """The enemy unit with the most current HP; v = HP / 40."""
    units = ctx.state.units
    a, hp = pick_max(ctx, actions, [units[a[2]].hp for a in actions])
    return a, min(1.0, hp / HP_SCALE)


@SCRIPTS.script("ConvertHighestDefence", "CONVERT")
def convert_highest_defence(ctx, actor, actions):
    """The enemy unit with the highest DEF; v = DEF / 4."""
    units = ctx.state.units
    a, d = pick_max(ctx, actions, [K.UNIT_DEF[units[a[2]].type] for a in actions])
    return a, d / DEF_SCALE


# ------------------------------------------------------------------------------ spawn
def _spawn_by(key, value):
    """A spawn script: the unit type maximising `key(type)` (random among exact ties),
    valued `value(type)` in [0, 1]."""
    keys = {t: key(t) for t in K.SPAWNABLE}  # worked out once; other types as asked

    def fn(ctx, actor, actions):
        a, _ = pick_max(ctx, actions, [keys[a[2]] if a[2] in keys else key(a[2])
                                       for a in actions])
        return a, value(a[2])
    return fn


_SPAWN_MAX = {name: max(tab[t] for t in K.SPAWNABLE) for name, tab in
              (("atk", K.UNIT_ATK), ("def", K.UNIT_DEF), ("mov", K.UNIT_MOV), ("hp", K.UNIT_HP),
               ("range", K.UNIT_RANGE))}
_SPAWN_MIN_COST = min(K.UNIT_COST[t] for t in K.SPAWNABLE)

_spawn_strongest = _spawn_by(lambda t: K.UNIT_ATK[t], lambda t: K.UNIT_ATK[t] / _SPAWN_MAX["atk"])
_spawn_strongest.__doc__ = "Highest ATK (catapult or knight at random); v = ATK / 4."
_spawn_defensive = _spawn_by(lambda t: (K.UNIT_DEF[t], K.UNIT_HP[t], -K.UNIT_COST[t]),
                             lambda t: K.UNIT_DEF[t] / _SPAWN_MAX["def"])
_spawn_defensive.__doc__ = "Highest DEF, then HP, then cheapest (the Defender); v = DEF / 3."
_spawn_cheapest = _spawn_by(lambda t: -K.UNIT_COST[t], lambda t: _SPAWN_MIN_COST / K.UNIT_COST[t])
_spawn_cheapest.__doc__ = "Lowest cost; v = 2 / cost (the Warrior = 1)."
_spawn_fastest = _spawn_by(lambda t: K.UNIT_MOV[t], lambda t: K.UNIT_MOV[t] / _SPAWN_MAX["mov"])
_spawn_fastest.__doc__ = "Highest movement; v = MOV / 3."
_spawn_max_hp = _spawn_by(lambda t: K.UNIT_HP[t], lambda t: K.UNIT_HP[t] / _SPAWN_MAX["hp"])
_spawn_max_hp.__doc__ = "Highest HP (random among the 15-HP types); v = HP / 15."


def _spawn_range(ctx, actor, actions):
    """Longest range among ranged types (catapult 3, archer 2); nothing if no ranged unit can
    be spawned; v = range / 3."""
    a, r = pick_max(ctx, actions, [K.UNIT_RANGE[a[2]] for a in actions])
    if r < 2:
        return None
    return a, r / _SPAWN_MAX["range"]


for _name, _fn in (("SpawnStrongest", _spawn_strongest), ("SpawnDefensive", _spawn_defensive),
                   ("SpawnCheapest", _spawn_cheapest), ("SpawnFastest", _spawn_fastest),
                   ("SpawnMaxHP", _spawn_max_hp), ("SpawnRange", _spawn_range)):
    SCRIPTS.script(_name, "SPAWN")(_fn)


# ------------------------------------------------------------------------------ build
def _bname(b: int) -> str:
    return K.BUILDING_NAMES[b].lower().replace("_", " ")


def _build_producer(producer: int):
    def fn(ctx, actor, actions):
        cands = ctx.builds(actor, actions).get(producer)
        if not cands:
            return None
        a, v = pick_max(ctx, cands, [ctx.producer_site(a[2], producer) for a in cands])
        return a, v
    fn.__doc__ = (f"The {_bname(producer)} site with the most own adjacent "
                  f"{_bname(K.PRODUCER[producer][0])}s (free sites for one count half); "
                  "v = that count / 4, capped at 1.")
    return fn


def _build_base(base: int):
    def fn(ctx, actor, actions):
        cands = ctx.builds(actor, actions).get(base)
        if not cands:
            return None
        a, v = pick_max(ctx, cands, _base_values(ctx, cands, base))
        return a, v
    fn.__doc__ = (f"The {_bname(base)} site that best feeds a {_bname(K.BASE_OF[base])}: "
                  f"v = 0.25 x own population + 0.5 x synergy, synergy = 1 next to an own "
                  f"{_bname(K.BASE_OF[base])}, else 0.25 per free site for one next to it "
                  "(up to 0.5).")
    return fn


def _build_idle(kinds: frozenset, low: float):
    def fn(ctx, actor, actions):
        g = ctx.builds(actor, actions)
        cands = [a for b, acts in g.items() if b in kinds for a in acts]
        if not cands:
            return None
        a, idle = pick_max(ctx, cands, _idle_values(ctx, cands))
        return a, low + 0.5 * idle
    return fn


def _base_values(ctx, actions, base: int) -> list[float]:
    """`base_value` of a base building on each action's tile."""
    return [ctx.base_value(a[2], base) for a in actions]


def _idle_values(ctx, actions) -> list[float]:
    """1 - `economic_value` of each action's tile."""
    return [1.0 - ctx.economic_value(a[2]) for a in actions]


for _name, _b in (("BuildCustomHouse", K.CUSTOMS_HOUSE), ("BuildSawmill", K.SAWMILL),
                  ("BuildWindmill", K.WINDMILL), ("BuildForge", K.FORGE)):
    SCRIPTS.script(_name, "BUILD")(_build_producer(_b))
for _name, _b in (("BuildFarm", K.FARM), ("BuildMine", K.MINE), ("BuildLumberHut", K.LUMBER_HUT),
                  ("BuildPort", K.PORT)):
    SCRIPTS.script(_name, "BUILD")(_build_base(_b))
_monument = _build_idle(frozenset(K.MONUMENTS), 0.5)
_monument.__doc__ = ("An available monument on the tile with the least economic use "
                     "(idle = 1 - its best producer or base-building value); v = 0.5 + idle/2 "
                     "(free, +3 population and +400 score: always worth doing).")
_temple = _build_idle(K.TEMPLES, 0.0)
_temple.__doc__ = ("A temple on the tile with the least economic use; v = idle / 2 (20 stars "
                   "for 1 population: a use for spare stars, not a priority).")
SCRIPTS.script("BuildMonument", "BUILD")(_monument)
SCRIPTS.script("BuildTemple", "BUILD")(_temple)


# ------------------------------------------------------------------------------ forests
def _clear_for(producer: int):
    def fn(ctx, actor, actions):
        if producer in ctx.city_buildings(actor):
            return None
        a, v = pick_max(ctx, actions, [ctx.producer_site(a[2], producer) for a in actions])
        if v <= 0:
            return None
        return a, v
    fn.__doc__ = (f"Clear the forest tile that becomes the best "
                  f"{_bname(producer)} site; nothing if the city has one or "
                  "no tile scores; v = the site score.")
    return fn


for _name, _b in (("ClearForestForCustom", K.CUSTOMS_HOUSE), ("ClearForestForForge", K.FORGE),
                  ("ClearForestForSawmill", K.SAWMILL), ("ClearForestForWindmill", K.WINDMILL)):
    SCRIPTS.script(_name, "CLEAR_FOREST")(_clear_for(_b))


@SCRIPTS.script("BurnForest", "BURN_FOREST")
def burn_forest(ctx, actor, actions):
    """Burn the forest whose farm (burning leaves crops) beats its lumber hut the most:
    score = base_value(farm) - base_value(lumber hut); v = (score + 1) / 2."""
    scores = [ctx.base_value(a[2], K.FARM) - ctx.base_value(a[2], K.LUMBER_HUT) for a in actions]
    a, sc = pick_max(ctx, actions, scores)
    return a, (sc + 1.0) / 2.0


@SCRIPTS.script("GrowForest", "GROW_FOREST")
def grow_forest(ctx, actor, actions):
    """Grow the forest where a lumber hut gains most over the plain's own use:
    score = base_value(lumber hut) - economic value as a plain (1 if built on);
    v = (score + 1) / 2."""
    a, sc = pick_max(ctx, actions, _grow_values(ctx, actions))
    return a, (sc + 1.0) / 2.0


def _grow_values(ctx, actions) -> list[float]:
    """GrowForest's score of each action's tile."""
    building = ctx.state.building
    scores = []
    for a in actions:
        p = a[2]
        loss = 1.0 if building[p] else ctx.economic_value(p)
        scores.append(ctx.base_value(p, _LUMBER_HUT) - loss)
    return scores


# ------------------------------------------------------------------------------ city
@SCRIPTS.script("ResourceGathering", "RESOURCE_GATHERING")
def resource_gathering(ctx, actor, actions):
    """Whales first (free, +10 stars; v = 1); otherwise the resource whose tile is then the
    best producer site; v = 0.5 + 0.5 x that site value."""
    s = ctx.state
    res = s.resource
    for a in actions:
        if res[a[2]] == K.WHALES:
            return a, 1.0
    a, v = pick_max(ctx, actions, [ctx.support_value(a[2]) for a in actions])
    return a, 0.5 + 0.5 * v


_GROWTH = (K.WORKSHOP, K.RESOURCES, K.POP_GROWTH, K.PARK)
_MILITARY = (K.CITY_WALL, K.BORDER_GROWTH, K.SUPERUNIT_BONUS)


@SCRIPTS.script("LevelUpGrowth", "LEVEL_UP")
def level_up_growth(ctx, actor, actions):
    """The economic bonus (workshop, resources, population growth, park); v = 1."""
    for a in actions:
        if a[2] in _GROWTH:
            return a, 1.0
    return None


@SCRIPTS.script("LevelUpMilitary", "LEVEL_UP")
def level_up_military(ctx, actor, actions):
    """The military bonus (city wall, border growth, super unit; v = 1), else the workshop
    (level 1 offers nothing military; v = 0.5)."""
    for a in actions:
        if a[2] in _MILITARY:
            return a, 1.0
    for a in actions:
        if a[2] == K.WORKSHOP:
            return a, DEFAULT_VALUE
    return None


# ------------------------------------------------------------------------------ tribe
_BRANCHES = {
    "Farms": (K.ORGANIZATION, K.FARMING, K.SHIELDS, K.CONSTRUCTION),
    "Naval": (K.FISHING, K.WHALING, K.SAILING, K.NAVIGATION, K.AQUATISM),
    "Mountains": (K.CLIMBING, K.MINING, K.MEDITATION, K.SMITHERY, K.PHILOSOPHY),
    "Range": (K.HUNTING, K.ARCHERY, K.FORESTRY, K.SPIRITUALISM, K.MATHEMATICS),
    "Roads": (K.RIDING, K.ROADS, K.FREE_SPIRIT, K.CHIVALRY, K.TRADE),
}
BRANCH_OF = [""] * K.NUM_TECHS
for _br, _techs in _BRANCHES.items():
    for _t in _techs:
        BRANCH_OF[_t] = _br


def _research(branch: str):
    def fn(ctx, actor, actions):
        cands = [a for a in actions if BRANCH_OF[a[2]] == branch]
        if not cands:
            return None
        a, tier = pick_min(ctx, cands, [K.TECH_TIER[a[2]] for a in cands])
        return a, (4 - tier) / 4.0
    fn.__doc__ = (f"The lowest-tier affordable tech of the {branch} branch (random among "
                  "equals); v = (4 - tier) / 4.")
    return fn


for _br in _BRANCHES:
    SCRIPTS.script("Research" + _br, "RESEARCH_TECH")(_research(_br))


@SCRIPTS.script("BuildRoad", "BUILD_ROAD")
def build_road(ctx, actor, actions):
    """Extend the capital's road network towards the nearest own city not yet connected:
    among road tiles adjacent to the network grown from the capital, the one closest
    (Chebyshev) to such a city; nothing if all are connected; v = 1 / distance."""
    s = ctx.state
    me = ctx.me
    tribe = s.tribes[me]
    cap = s.cities.get(tribe.capital)
    if cap is None or cap.tribe != me:
        return None
    connected = set(tribe.connected)
    loose = [s.cities[c].pos for c in tribe.cities if c != tribe.capital and c not in connected]
    if not loose:
        return None
    owner, terrain, building, road, nbrs = ctx.owner, s.terrain, s.building, s.road, s._nbrs
    seen = {cap.pos}
    stack = [cap.pos]
    while stack:
        i = stack.pop()
        for j in nbrs[i]:
            if j in seen:
                continue
            o = owner[j]
            if ((terrain[j] == K.CITY or building[j] == K.PORT) and o == me) or \
                    (road[j] and o in (-1, me)):
                seen.add(j)
                stack.append(j)
    cheb = ctx.board.cheb
    cands, ds = [], []
    for a in actions:
        t = a[2]
        if any(j in seen for j in nbrs[t]):
            row = cheb[t]
            cands.append(a)
            ds.append(min(row[p] for p in loose))
    if not cands:
        return None
    a, d = pick_min(ctx, cands, ds)
    return a, 1.0 / max(1, d)


# ------------------------------------------------------------------------------ move
def _towards(targets_name: str, field_name: str, water: bool | None, doc: str):
    """A move script heading for a set of target tiles (the context attributes named):
    the destination nearest (Chebyshev) to a target, random among equals. Nothing when there
    is no target, the unit already stands on one, or every move leads away; `water` True /
    False restricts the script to units on water / on land.
    v = 0.5 x (progress this turn / longest step) + 0.5 x (1 - remaining distance / (size-1))."""
    def fn(ctx, actor, actions):
        return _head_for(ctx, actor, actions, targets_name, field_name, water)
    fn.__doc__ = doc + _TOWARDS_VALUE
    return fn


def _head_for(ctx, actor, actions, targets_name, field_name, water):
    """What the `_towards` script of these facts answers."""
    m = ctx._moves.get(actor) or ctx.moves(actor, actions)
    if water is not None and m[3] != water:
        return None
    pos = m[0]
    if pos in ctx.fact(targets_name):
        return None
    field = ctx.fact(field_name)
    if field is None:
        return None
    d_cur = field[pos]
    r = _best_move(ctx, actions, field, m[1], True, d_cur + 1)
    if r is None:
        return None
    d = r[1]
    return r[0], 0.5 * (d_cur - d) / m[2] + 0.5 * (1.0 - d / ctx.board.last)


_TOWARDS_VALUE = (" The destination nearest (Chebyshev) to a target; nothing if on a target or "
                  "every move leads away; v = 0.5 x progress / longest step + 0.5 x "
                  "(1 - distance left / (size - 1)).")


for _name, _tgt_attr, _field_attr, _water, _doc in (
        ("MoveToCapture", "capture_targets", "capture_field", None,
         "Towards villages, ruins and enemy city centres not already held by an own unit."),
        ("MoveToOwnCityCentre", "own_centres", "own_centre_field", None,
         "Towards own city centres that no own unit garrisons."),
        ("MoveDefensively", "own_land", "own_land_field", None,
         "Back into own territory (nothing if already inside)."),
        ("MoveOffensively", "enemy_land", "enemy_land_field", None,
         "Into enemy territory (nothing if already inside)."),
        ("MoveToDisembark", "land", "land_field", True, "A unit on water heads for land."),
        ("MoveToEmbark", "own_ports", "own_port_field", False,
         "A unit on land heads for an own port.")):
    SCRIPTS.script(_name, "MOVE")(_towards(_tgt_attr, _field_attr, _water, _doc))


@SCRIPTS.script("MoveToAttackRange", "MOVE")
def move_to_attack_range(ctx, actor, actions):
    """The destination with the most enemy units within the unit's range (at least one);
    v = n / (n + 1)."""
    m = ctx._moves.get(actor) or ctx.moves(actor, actions)
    cnt = ctx.enemy_count(K.UNIT_RANGE[ctx.state.units[actor].type])
    r = _best_move(ctx, actions, cnt, m[1], False, 0)
    if r is None:
        return None
    n = r[1]
    return r[0], n / (n + 1.0)


def _best_move(ctx, actions, values, dests, lowest, bar):
    """(move, its value) for the move of lowest value (`lowest`) or highest, random among
    equals, if that value is strictly better than the int `bar`; else None. The value of
    `actions[i]` is the int `values[dests[i]]`, or `values[i]` where `dests` is None. One scan
    finds the best value, how often it occurs and where first; a random number is drawn only
    to choose among equals (the k-th of them for k = int(random x their number))."""
    n = len(actions)
    best = values[dests[0] if dests is not None else 0]
    count = 1
    first = 0
    for i in range(1, n):
        j = dests[i] if dests is not None else i
        v = values[j]
        if v < best if lowest else v > best:
            best = v
            count = 1
            first = i
        elif v == best:
            count += 1
    if best >= bar if lowest else best <= bar:
        return None
    if count > 1:
        k = int(ctx.random() * count)
        for i in range(first, n):
            j = dests[i] if dests is not None else i
            v = values[j]
            if v == best:
                if k == 0:
                    first = i
                    break
                k -= 1
    return actions[first], best


def _company(ctx, actor, actions) -> tuple[int, list[int]]:
    """(own units around the unit now, own units around each destination), the moving unit
    itself not counted; shared by MoveToConverge and MoveToDiverge."""
    c = ctx._company.get(actor)
    if c is None:
        m = ctx._moves.get(actor) or ctx.moves(actor, actions)
        adj = ctx.adj_own
        pos = m[0]
        row = ctx.board.cheb[pos]
        ns = []
        for t in m[1]:
            # the unit itself is one of the own units around a destination next to it
            ns.append(adj[t] - 1 if row[t] == 1 else adj[t])
        c = (adj[pos], ns)
        ctx._company[actor] = c
    return c


@SCRIPTS.script("MoveToConverge", "MOVE")
def move_to_converge(ctx, actor, actions):
    """The destination with the most own units around it, if more than around the unit now;
    v = n / (n + 1)."""
    now, ns = _company(ctx, actor, actions)
    r = _best_move(ctx, actions, ns, None, False, now)
    if r is None:
        return None
    n = r[1]
    return r[0], n / (n + 1.0)


@SCRIPTS.script("MoveToDiverge", "MOVE")
def move_to_diverge(ctx, actor, actions):
    """The destination with the fewest own units around it, if fewer than around the unit
    now; v = (neighbours now - neighbours there) / (neighbours now + 1)."""
    now, ns = _company(ctx, actor, actions)
    if now == 0:
        return None
    r = _best_move(ctx, actions, ns, None, True, now)
    if r is None:
        return None
    n = r[1]
    return r[0], (now - n) / (now + 1.0)


PAPER_LAYOUT = ("ResearchFarms", "ResearchNaval", "ResearchMountains", "ResearchRange",
                "ResearchRoads", "SpawnStrongest", "SpawnDefensive", "SpawnCheapest",
                "SpawnFastest", "SpawnMaxHP", "SpawnRange")
"""The paper's layout (the scripts whose weights evolve): the 5 Research then the 6 Spawn
scripts."""
REFERENCE_EXCLUDED = ("Destroy", "Disband")
"""The two wrappers the reference code leaves out (its portfolio has 55 scripts)."""


def clear_caches() -> None:
    """Forget every content-keyed cache (for cold-start measurements)."""
    for c in (_FIELDS, _TERRAIN, _TERRITORY, _ENEMY_COUNT, _TERRAIN_LISTS, _TERRITORY_LISTS):
        c.clear()
