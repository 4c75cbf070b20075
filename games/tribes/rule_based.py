"""A hand-written Tribes player in the spirit of the reference's rule-based `SimpleAgent`.

Every legal action gets a priority (about 0..5.5; fractions order near-ties); the agent picks
uniformly, with its own seeded numpy Generator, among the actions with the top priority.
END_TURN is 0.5, so anything scored below it is never played. R = the reference's rule.

  capture, examine ruins, make veteran: 5 (R)
  level-up: workshop 5 / explorer 0; resources 5 / walls 3 (swapped to 4 / 5 if threatened);
    border growth 5 if >= 3 tiles to claim, else 3, pop growth 4; super unit 5 / park 4 at
    the front (threatened, or an enemy city within 5), else park 5 / super unit 4
    (R: border growth, workshop, resources, super unit 5, the rest 0)
  research, R's order: org/climb/mine/fish/hunt/whale 4.6; farm/aqua/ride/forest/archery/
    sail/shields/chivalry 4.3; the rest 4.0; +0.3 if it unlocks a resource/terrain in our
    territory, -0.4 for a resource tech with nothing to use it on
  gathering 4.7, 5 if it completes a level-up; whales 5 (R: a formula on production)
  build by real benefit (R: ~1 for every building, 0 below 8 stars): population buildings
    3.6 + min(1, 2.5 * pop / cost), + 0.3 if it completes a level-up (adjacent producers
    counted); a port 4.8 when no village / enemy city is reachable by land; customs house
    3.5 + 0.5 * production; temples 3; monuments 5; -0.5 if it covers a gatherable resource
  spawn (R: a similar table): threatened city (an enemy land unit within its move + 1 of
    the centre): defender 5.5, swordsman 5.4, knight 5.3, warrior 5.2, archer 5.1,
    rider/catapult 4; army short (units < max(cities + 1, largest enemy army)): knight 4.3,
    swordsman 4.2, rider 4.1, archer 4.05, warrior 4, catapult 3.8, defender 3.5; else 3
  attack by the real combat formula (R: HP/ATK/DEF comparisons): kill 5; no retaliation
    4.5; more damage dealt than taken 4 (+0.5 near our cities); equal 1; worse or deadly 0
  convert 5 for strong targets, 4 otherwise (R); heal others 2 + damaged neighbours, cap 5
  recover: 1 if a stronger enemy can reach us, 4.2 at <= 50% HP, else 2 (R: 4 / 3 / 1)
  moves, the best rule that applies (R: the first rule that fires):
    hold: a land unit on a village / enemy city / ruins it cannot take yet stays (0)
    guard: onto the empty centre of a threatened own city 4.5, towards it (<= 3 away) 3.5
    flee a stronger enemy that can reach us, unless on an own city centre: 4 + 0.1 * gain
    chase a weaker enemy within 4 tiles: 3 (4 if it is near our cities) + 0.1 * gain
    approach villages 4.5, enemy cities and ruins 3.5 (+0.1 per tile gained, max 0.4, +0.1
      onto it) by path distance (R: 5 / 4 within RANGE only)
    dropped: R's "next to fog" rule, which tests *visible* tiles and gives almost every
      move 3, so R's units wander
    -1.5 if a stronger enemy can reach the destination; leaving the centre of a city that
      wants to spawn 1, entering it -0.5
  roads next to own roads / city centres: 3 on the line between the capital and an own city
    not yet connected, else 1 (R: 3-4 next to the network)
  clear forest 1.5 at 0 stars (R: 3); burn forest 2 with farming and < 2 farms; grow forest
    1.5 with forestry and < 2 forests / huts; upgrade boat / ship 3
  disband, destroy -2 (R); END_TURN 0.5 (R: -1, with useless moves at 0 played first)
  savings: an action below 4 that costs stars is dropped (0.2) if it would leave fewer
    stars than the cheapest wanted (>= 4) technology costs (R: "< 8 stars" gates)

Also unlike R: no allegiance / diplomacy scaling; full observation (no fog tests); path
distances (a step costs 1, a mountain without CLIMBING 3, water 20) come from a Dijkstra map
per target set, cached across decisions; enemy positions, threatened cities and per-unit
threat lists are computed once per decision (about 0.1-0.3 ms per decision, 11x11).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any

import numpy as np

from games.tribes import actions as A
from games.tribes import constants as K
from games.tribes.combat import attack_outcome

END_TURN_VALUE = 0.5
SAVED = 0.2  # value of a low-priority spend that would break the savings for research

# research order of the reference (tier of priority)
_RESEARCH_BASE = [4.0] * K.NUM_TECHS
for _t in (K.ORGANIZATION, K.CLIMBING, K.MINING, K.FISHING, K.HUNTING, K.WHALING):
    _RESEARCH_BASE[_t] = 4.6
for _t in (K.FARMING, K.AQUATISM, K.RIDING, K.FORESTRY, K.ARCHERY, K.SAILING, K.SHIELDS,
           K.CHIVALRY):
    _RESEARCH_BASE[_t] = 4.3
# techs whose worth depends on something in our territory: tech -> feature index
(_F_FRUIT, _F_ANIMAL, _F_FISH, _F_WHALES, _F_CROPS, _F_ORE, _F_FOREST, _F_SHALLOW,
 _F_MOUNTAIN) = range(9)
_TECH_FEATURES = {
    K.ORGANIZATION: (_F_FRUIT, _F_CROPS), K.HUNTING: (_F_ANIMAL, _F_FOREST),
    K.FISHING: (_F_FISH, _F_WHALES, _F_SHALLOW), K.WHALING: (_F_WHALES,), K.FARMING: (_F_CROPS,),
    K.MINING: (_F_ORE,), K.CLIMBING: (_F_ORE, _F_MOUNTAIN), K.FORESTRY: (_F_FOREST,),
    K.SAILING: (_F_SHALLOW,),
}
_RESOURCE_TECHS = frozenset((K.ORGANIZATION, K.HUNTING, K.FISHING, K.WHALING, K.FARMING,
                             K.MINING, K.FORESTRY))

_SPAWN_THREAT = {K.DEFENDER: 5.5, K.SWORDMAN: 5.4, K.KNIGHT: 5.3, K.WARRIOR: 5.2, K.ARCHER: 5.1,
                 K.RIDER: 4.0, K.CATAPULT: 4.0, K.MIND_BENDER: 2.0}
_SPAWN_NEED = {K.KNIGHT: 4.3, K.SWORDMAN: 4.2, K.RIDER: 4.1, K.ARCHER: 4.05, K.WARRIOR: 4.0,
               K.CATAPULT: 3.8, K.DEFENDER: 3.5, K.MIND_BENDER: 2.5}
_STRONG_CONVERT = frozenset((K.BATTLESHIP, K.SUPERUNIT, K.SWORDMAN, K.KNIGHT, K.CATAPULT))
_GATHERABLE = frozenset(A.GATHER_TECH)

# --------------------------------------------------------------------------- geometry caches
_CHEB: dict[int, tuple[tuple[int, ...], ...]] = {}


def _cheb_table(n: int) -> tuple[tuple[int, ...], ...]:
    """Chebyshev (8-neighbour step) distance between every pair of tiles of an n x n board."""
    t = _CHEB.get(n)
    if t is None:
        xs = [(i // n, i % n) for i in range(n * n)]
        t = tuple(tuple(max(abs(ax - bx), abs(ay - by)) for bx, by in xs) for ax, ay in xs)
        _CHEB[n] = t
    return t


_INF = 10 ** 6


def _path_distances(terrain, nbrs, sources, climbing: bool) -> tuple[int, ...]:
    """Land path distance from every tile to the nearest source: 1 per step onto land,
    3 onto a mountain without CLIMBING, 20 onto water (crossing needs a port and boats)."""
    cost = []
    for t in terrain:
        if t == K.MOUNTAIN:
            cost.append(1 if climbing else 3)
        elif t == K.SHALLOW or t == K.DEEP:
            cost.append(20)
        else:
            cost.append(1)
    dist = [_INF] * len(terrain)
    heap = []
    for s in sources:
        dist[s] = 0
        heap.append((0, s))
    heap.sort()
    while heap:
        d, b = heappop(heap)
        if d > dist[b]:
            continue
        nd = d + cost[b]  # stepping from a neighbour onto b costs cost[b]
        for a in nbrs[b]:
            if nd < dist[a]:
                dist[a] = nd
                heappush(heap, (nd, a))
    return tuple(dist)


# --------------------------------------------------------------------------- per-decision view
class _View:
    """What the rules need about one state, computed once per decision (lazily where cheap)."""

    def __init__(self, agent: "RuleBasedAgent", s) -> None:
        self.s = s
        self.me = me = s.current
        self.tribe = tribe = s.tribes[me]
        self.stars = tribe.stars
        n = s.size
        self.dist = _cheb_table(n)
        units, unit_at, cities = s.units, s.unit_at, s.cities
        self.enemies = [u for u in units.values() if u.tribe != me and unit_at[u.pos] == u.id]
        self.own_cities = [cities[c] for c in tribe.cities]
        self.n_units = len(s.tribe_units(me))
        # the army we want: one unit per city plus one, and at least as many as any enemy
        n_enemy = {}
        for e in self.enemies:
            n_enemy[e.tribe] = n_enemy.get(e.tribe, 0) + 1
        self.army_target = max([len(tribe.cities) + 1, *n_enemy.values()])
        d = self.dist
        # own cities with an enemy land unit that could stand on the centre next turn
        self.threatened = {}
        for c in self.own_cities:
            row = d[c.pos]
            self.threatened[c.id] = any(row[e.pos] <= K.UNIT_MOV[e.type] + 1
                                        for e in self.enemies if not K.UNIT_IS_NAVAL[e.type])
        self.guard_posts = [c.pos for c in self.own_cities
                            if self.threatened[c.id] and not unit_at[c.pos]]
        self._agent = agent
        self.plans: dict = {}
        self.spawn_wish: dict = {}
        self._naval_targets = None
        self._maps = None
        self._pairs: dict = {}
        self._reserve = None
        self._features = None

    # distance maps to villages / enemy cities / ruins (cached in the agent by content)
    def maps(self):
        if self._maps is None:
            s, me = self.s, self.me
            terrain, unit_at, units = s.terrain, s.unit_at, s.units

            def free(i):  # not already held by one of our units
                o = unit_at[i]
                return not o or units[o].tribe != me

            villages = tuple(i for i, t in enumerate(terrain) if t == K.VILLAGE and free(i))
            ecities = tuple(c.pos for c in s.cities.values() if c.tribe != me and free(c.pos))
            ruins = tuple(i for i, r in enumerate(s.resource) if r == K.RUINS and free(i))
            self._maps = tuple(self._agent._distance_map(s, src, self.tribe.has(K.CLIMBING))
                               for src in (villages, ecities, ruins))
        return self._maps

    def naval_targets(self) -> list[tuple[int, float]]:
        """(tile, value) of villages, ruins and enemy city centres, for boats."""
        if self._naval_targets is None:
            s, me = self.s, self.me
            out = []
            resource = s.resource
            for i, t in enumerate(s.terrain):
                if t == K.VILLAGE:
                    out.append((i, 4.5))
                elif resource[i] == K.RUINS:
                    out.append((i, 3.5))
            for c in s.cities.values():
                if c.tribe != me:
                    out.append((c.pos, 3.5))
            self._naval_targets = out
        return self._naval_targets

    def relation(self, u, e) -> tuple[bool, bool]:
        """(e is weaker than u, e is stronger than u) by the real combat formula, both ways."""
        key = (u.id, e.id)
        r = self._pairs.get(key)
        if r is None:
            s = self.s
            if K.UNIT_ATK[u.type] > 0:
                ours = attack_outcome(s, u, e)[0]
            else:
                ours = 0
            theirs = attack_outcome(s, e, u)[0] if K.UNIT_ATK[e.type] > 0 else 0
            weaker = ours >= e.hp or ours > theirs
            stronger = theirs > 0 and (theirs >= u.hp or theirs > ours)
            r = (weaker, stronger)
            self._pairs[key] = r
        return r

    def reserve(self) -> int:
        """Stars to keep for the cheapest technology we want (value >= 4), 0 if none left."""
        if self._reserve is None:
            s, tribe = self.s, self.tribe
            best = 0
            for tech in range(K.NUM_TECHS):
                if s.can_research(tribe, tech) and self.research_value(tech) >= 4.0:
                    c = s.research_cost(tribe, tech)
                    if not best or c < best:
                        best = c
            self._reserve = best
        return self._reserve

    def features(self) -> list[int]:
        """Counts of what our territory holds that technologies make useful."""
        if self._features is None:
            s, me = self.s, self.me
            f = [0] * 9
            tc, cities, terrain, resource, building = (s.tile_city, s.cities, s.terrain,
                                                       s.resource, s.building)
            for i, c in enumerate(tc):
                if not c or cities[c].tribe != me:
                    continue
                r, t = resource[i], terrain[i]
                if r == K.FRUIT:
                    f[_F_FRUIT] += 1
                elif r == K.ANIMAL:
                    f[_F_ANIMAL] += 1
                elif r == K.FISH:
                    f[_F_FISH] += 1
                elif r == K.WHALES:
                    f[_F_WHALES] += 1
                elif r == K.CROPS:
                    f[_F_CROPS] += 1
                elif r == K.ORE:
                    f[_F_ORE] += 1
                if t == K.FOREST and not building[i]:
                    f[_F_FOREST] += 1
                elif t == K.SHALLOW and not building[i]:
                    f[_F_SHALLOW] += 1
                elif t == K.MOUNTAIN:
                    f[_F_MOUNTAIN] += 1
            self._features = f
        return self._features

    def research_value(self, tech: int) -> float:
        v = _RESEARCH_BASE[tech]
        feats = _TECH_FEATURES.get(tech)
        if feats:
            f = self.features()
            if any(f[i] for i in feats):
                v += 0.3
            elif tech in _RESOURCE_TECHS:
                v -= 0.4
        return v


# --------------------------------------------------------------------------- the agent
class RuleBasedAgent:
    """Scores every legal action with a hand-made priority and plays one of the best."""

    name = "rule_based"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._map_cache: dict = {}

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed}

    def act(self, state):
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        values = self.evaluate(state, actions)
        best = max(values)
        top = [a for a, v in zip(actions, values) if v >= best - 1e-9]
        if len(top) == 1:
            return top[0]
        return top[int(self.rng.integers(len(top)))]

    def evaluate(self, state, actions=None) -> list[float]:
        """The priority of each action (default: every legal action, in order)."""
        if actions is None:
            actions = state.legal_actions()
        v = _View(self, state)
        return [_EVAL[a[0]](v, a) for a in actions]

    def scored(self, state) -> list[tuple[float, str]]:
        """(priority, description) of every legal action, best first (for debugging)."""
        acts = state.legal_actions()
        return sorted(((x, state.describe(a)) for a, x in zip(acts, self.evaluate(state, acts))),
                      reverse=True)

    def _distance_map(self, s, sources, climbing: bool):
        if not sources:
            return None
        key = (s.size, bytes(s.terrain), climbing, sources)
        m = self._map_cache.get(key)
        if m is None:
            if len(self._map_cache) > 256:
                self._map_cache.clear()
            m = _path_distances(s.terrain, s._nbrs, sources, climbing)
            self._map_cache[key] = m
        return m


# --------------------------------------------------------------------------- rules per kind
def _savings(v: _View, value: float, cost: int) -> float:
    """Low-priority spends must not eat the stars saved for a wanted technology."""
    if value < 4.0 and cost > 0 and v.stars - cost < v.reserve():
        return min(value, SAVED)
    return value


def _level_up(v: _View, a) -> float:
    cid, bonus = a[1], a[2]
    threatened = v.threatened.get(cid, False)
    if bonus == K.WORKSHOP:
        return 5.0
    if bonus == K.EXPLORER:
        return 0.0
    if bonus == K.RESOURCES:
        return 4.0 if threatened else 5.0
    if bonus == K.CITY_WALL:
        return 5.0 if threatened else 3.0
    if bonus == K.BORDER_GROWTH:
        s = v.s
        c = s.cities[cid]
        tc = s.tile_city
        free = sum(1 for i in s.radius(c.pos, 2) if not tc[i])
        return 5.0 if free >= 3 else 3.0
    if bonus == K.POP_GROWTH:
        return 4.0
    # a super unit at the front (threatened, or an enemy city within 5), else the park's score
    front = threatened or _enemy_city_within(v, v.s.cities[cid].pos, 5)
    if bonus == K.SUPERUNIT_BONUS:
        return 5.0 if front else 4.0
    return 4.0 if front else 5.0  # PARK


def _enemy_city_within(v: _View, pos: int, r: int) -> bool:
    row = v.dist[pos]
    return any(row[c.pos] <= r for c in v.s.cities.values() if c.tribe != v.me)


def _city_progress(c, gain: int) -> float:
    """Bonus when `gain` population completes the city's next level-up."""
    return 1.0 if gain >= c.pop_need - c.pop else 0.0


def _gather(v: _View, a) -> float:
    s = v.s
    if s.resource[a[2]] == K.WHALES:
        return 5.0
    return 4.7 + 0.3 * _city_progress(s.cities[a[1]], 1)


def _build(v: _View, a) -> float:
    s = v.s
    cid, tile, b = a[1], a[2], a[3]
    c = s.cities[cid]
    cost = K.BUILDING_COST[b]
    if K.IS_MONUMENT[b]:
        return 5.0
    if b in K.TEMPLES:
        val = 3.0
    elif b == K.CUSTOMS_HOUSE:
        ports = sum(1 for j in s._nbrs[tile] if s.building[j] == K.PORT)
        val = 3.5 + min(1.0, 0.5 * 2 * ports)
    else:
        building = s.building
        if b in K.PRODUCER:
            base, per = K.PRODUCER[b]
            pop = per * sum(1 for j in s._nbrs[tile] if building[j] == base)
        else:
            pop = K.BUILDING_POP.get(b, 0)
            prod = K.BASE_OF.get(b)
            if prod is not None and prod != K.CUSTOMS_HOUSE:
                pop += K.PRODUCER[prod][1] * sum(1 for j in s._nbrs[tile] if building[j] == prod)
        if pop <= 0:
            return 0.0
        val = 3.6 + min(1.0, 2.5 * pop / cost) + 0.3 * _city_progress(c, pop)
        if b == K.PORT and _isolated(v, c.pos):
            val = max(val, 4.8)
    res = s.resource[tile]
    if res in _GATHERABLE and v.tribe.has(A.GATHER_TECH[res]):
        val -= 0.5
    return _savings(v, val, cost)


def _isolated(v: _View, pos: int) -> bool:
    """No village or enemy city can be reached from `pos` without crossing water."""
    m_village, m_city = v.maps()[:2]
    return all(m is None or m[pos] >= 20 for m in (m_village, m_city))


def _clear_forest(v: _View, a) -> float:
    return 1.5 if v.stars == 0 else 0.0


def _burn_forest(v: _View, a) -> float:
    s = v.s
    if not v.tribe.has(K.FARMING):
        return 0.0
    farms = sum(1 for i in A.city_tiles(s, a[1]) if s.building[i] == K.FARM)
    return _savings(v, 2.0, 5) if farms < 2 else 0.0


def _grow_forest(v: _View, a) -> float:
    s = v.s
    if not v.tribe.has(K.FORESTRY):
        return 0.0
    n = sum(1 for i in A.city_tiles(s, a[1])
            if s.terrain[i] == K.FOREST or s.building[i] == K.LUMBER_HUT)
    return _savings(v, 1.5, 5) if n < 2 else 0.0


def _destroy(v: _View, a) -> float:
    return -2.0


def _spawn(v: _View, a) -> float:
    cid, ut = a[1], a[2]
    if v.threatened.get(cid, False):
        return _SPAWN_THREAT.get(ut, 3.0)
    if v.n_units < v.army_target:
        return _savings(v, _SPAWN_NEED.get(ut, 3.0), K.UNIT_COST[ut])
    return _savings(v, 2.0 if ut == K.MIND_BENDER else 3.0, K.UNIT_COST[ut])


def _near_own_city(v: _View, pos: int, r: int = 2) -> bool:
    row = v.dist[pos]
    return any(row[c.pos] <= r for c in v.own_cities)


def _attack(v: _View, a) -> float:
    s = v.s
    u = s.units[a[1]]
    e = s.units[a[2]]
    dmg, ret = attack_outcome(s, u, e)
    bonus = 0.5 if _near_own_city(v, e.pos) else 0.0
    if dmg >= e.hp:
        return 5.0
    if v.dist[u.pos][e.pos] > K.UNIT_RANGE[e.type]:
        ret = 0
    if ret >= u.hp:
        return 0.0
    if ret == 0 and dmg > 0:
        return 4.5
    if dmg > ret:
        return 4.0 + bonus
    if dmg == ret:
        return 1.0
    return 0.0


def _convert(v: _View, a) -> float:
    return 5.0 if v.s.units[a[2]].type in _STRONG_CONVERT else 4.0


def _heal(v: _View, a) -> float:
    s = v.s
    u = s.units[a[1]]
    n = 0
    for t in s._nbrs[u.pos]:
        o = s.unit_at[t]
        if o:
            w = s.units[o]
            if w.tribe == v.me and w.hp < w.max_hp:
                n += 1
    return min(5.0, 2.0 + n)


def _reachers(v: _View, u, pos: int):
    """Enemy units that could attack a unit of ours standing on `pos` next turn."""
    row = v.dist[pos]
    for e in v.enemies:
        if row[e.pos] <= K.UNIT_MOV[e.type] + K.UNIT_RANGE[e.type]:
            yield e


def _recover(v: _View, a) -> float:
    u = v.s.units[a[1]]
    for e in _reachers(v, u, u.pos):
        if v.relation(u, e)[1]:
            return 1.0
    return 4.2 if u.hp * 2 <= u.max_hp else 2.0


def _capture(v: _View, a) -> float:
    return 5.0


def _disband(v: _View, a) -> float:
    return -2.0


def _upgrade(v: _View, a) -> float:
    cost = K.UNIT_COST[K.SHIP if a[0] == A.UPGRADE_BOAT else K.BATTLESHIP]
    return _savings(v, 3.0, cost)


def _research(v: _View, a) -> float:
    tech = a[2]
    val = v.research_value(tech)
    return _savings(v, val, v.s.research_cost(v.tribe, tech))


def _road(v: _View, a) -> float:
    s = v.s
    t = a[2]
    me = v.me
    tc, cities, road = s.tile_city, s.cities, s.road
    touches = False
    for j in s._nbrs[t]:
        if road[j]:
            o = tc[j]
            if not o or cities[o].tribe == me:
                touches = True
                break
        c = tc[j]
        if c and cities[c].pos == j and cities[c].tribe == me:
            touches = True
            break
    if not touches:
        return 0.0
    val = 1.0
    tribe = v.tribe
    if tribe.capital in cities and cities[tribe.capital].tribe == me:
        cap = cities[tribe.capital].pos
        d = v.dist
        for c in v.own_cities:
            if c.id != tribe.capital and c.id not in tribe.connected:
                if d[cap][t] + d[t][c.pos] <= d[cap][c.pos]:
                    val = 3.0
                    break
    return _savings(v, val, 2)


def _end_turn(v: _View, a) -> float:
    return END_TURN_VALUE


class _UnitPlan:
    """What the move rules need about one of our units, computed once per decision."""

    __slots__ = ("hold", "naval", "own_centre", "flee_from", "weak_near", "weak_at_home",
                 "danger")

    def __init__(self, v: _View, u) -> None:
        s = v.s
        p = u.pos
        me = v.me
        terrain = s.terrain
        self.naval = naval = K.UNIT_IS_NAVAL[u.type]
        tp = terrain[p]
        cid = s.tile_city[p]
        centre = tp == K.CITY and cid and s.cities[cid].pos == p
        # stay on a village / enemy city / ruins until the unit can take it next turn
        self.hold = s.resource[p] == K.RUINS or (not naval and (
            tp == K.VILLAGE or (centre and s.cities[cid].tribe != me)))
        self.own_centre = cid if centre and s.cities[cid].tribe == me else 0
        dp = v.dist[p]
        reach_me = K.UNIT_MOV[u.type] + 1
        mind_bender = u.type == K.MIND_BENDER
        self.flee_from = []  # stronger enemies that can hit us where we stand
        self.weak_near = []  # weaker enemies within 4 tiles
        self.danger = []  # (position, reach) of stronger enemies near enough to matter
        self.weak_at_home = False
        if self.hold:
            return
        for e in v.enemies:
            ep = e.pos
            de = dp[ep]
            ereach = K.UNIT_MOV[e.type] + K.UNIT_RANGE[e.type]
            if de > reach_me + ereach and de > 4:
                continue
            if mind_bender:
                weaker, stronger = de <= 4, False
            else:
                weaker, stronger = v.relation(u, e)
            if stronger:
                self.danger.append((ep, ereach))
                if de <= ereach:
                    self.flee_from.append(ep)
            elif weaker and de <= 4:
                self.weak_near.append(ep)
                if _near_own_city(v, ep):
                    self.weak_at_home = True


def _move(v: _View, a) -> float:
    s = v.s
    uid, q = a[1], a[2]
    u = s.units[uid]
    plan = v.plans.get(uid)
    if plan is None:
        plan = v.plans[uid] = _UnitPlan(v, u)
    if plan.hold:
        return 0.0
    p = u.pos
    d = v.dist
    dp, dq = d[p], d[q]
    val = 0.0
    # guard a threatened own city whose centre is empty
    for g in v.guard_posts:
        if q == g:
            val = 4.5
        elif dq[g] < dp[g] <= 3 and val < 3.5:
            val = 3.5
    if plan.flee_from and not plan.own_centre:
        before = min(dp[ep] for ep in plan.flee_from)
        after = min(dq[ep] for ep in plan.flee_from)
        if after > before:
            val = max(val, 4.0 + 0.1 * (after - before))
    if plan.weak_near:
        before = min(dp[ep] for ep in plan.weak_near)
        after = min(dq[ep] for ep in plan.weak_near)
        if after < before:
            val = max(val, (4.0 if plan.weak_at_home else 3.0) + 0.1 * (before - after))
    # approach villages, enemy cities and ruins by path distance (as the crow flies for boats)
    if plan.naval:
        for i, base in v.naval_targets():
            if dq[i] < dp[i] <= 8:
                val = max(val, base + min(0.4, 0.1 * (dp[i] - dq[i])))
    else:
        for m, base in zip(v.maps(), (4.5, 3.5, 3.5)):
            if m is not None:
                mp, mq = m[p], m[q]
                if mq < mp:
                    val = max(val, base + min(0.4, 0.1 * (mp - mq)) + (0.1 if mq == 0 else 0.0))
    # keep away from tiles a stronger enemy can hit next turn (own cities excepted)
    stronger_q = any(dq[ep] <= r for ep, r in plan.danger)
    me = v.me
    if stronger_q and not (s.terrain[q] == K.CITY and s.tile_tribe(q) == me):
        val -= 1.5
    # keep the centre of a city that wants to spawn free
    if plan.own_centre and val < 1.0 and not stronger_q and _wants_spawn(v, plan.own_centre):
        val = 1.0
    elif val > 0 and s.terrain[q] == K.CITY:
        cq = s.tile_city[q]
        if cq and s.cities[cq].pos == q and s.cities[cq].tribe == me and _wants_spawn(v, cq):
            val -= 0.5
    return val


def _wants_spawn(v: _View, cid: int) -> bool:
    """Would this city spawn a warrior now (room for a unit, and worth the stars)?"""
    r = v.spawn_wish.get(cid)
    if r is None:
        c = v.s.cities[cid]
        if len(c.units) >= c.level + 1 or v.stars < K.UNIT_COST[K.WARRIOR] \
                or v.threatened.get(cid, False):
            r = False
        else:
            r = _spawn(v, (A.SPAWN, cid, K.WARRIOR, -1)) > END_TURN_VALUE
        v.spawn_wish[cid] = r
    return r


_EVAL = [None] * len(A.ACTION_NAMES)
for _k, _f in ((A.LEVEL_UP, _level_up), (A.BUILD, _build), (A.RESOURCE_GATHERING, _gather),
               (A.CLEAR_FOREST, _clear_forest), (A.BURN_FOREST, _burn_forest),
               (A.GROW_FOREST, _grow_forest), (A.DESTROY, _destroy), (A.SPAWN, _spawn),
               (A.MOVE, _move), (A.ATTACK, _attack), (A.CAPTURE, _capture),
               (A.CONVERT, _convert), (A.HEAL_OTHERS, _heal), (A.RECOVER, _recover),
               (A.EXAMINE, _capture), (A.DISBAND, _disband), (A.MAKE_VETERAN, _capture),
               (A.UPGRADE_BOAT, _upgrade), (A.UPGRADE_SHIP, _upgrade),
               (A.RESEARCH_TECH, _research), (A.BUILD_ROAD, _road), (A.END_TURN, _end_turn)):
    _EVAL[_k] = _f
_EVAL = tuple(_EVAL)
