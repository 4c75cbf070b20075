"""The Tribes state encoding `counts`: a position as one-hot counts, seen from one tribe.

In the spirit of Prismata's learned evaluation (the player to move plus one-hot counts of
every unit type and resource of each player), with what Tribes adds: the round and the rounds
left (a game that reaches the round limit is decided by score), tribe identities, techs,
buildings, score, territory and three cheap spatial counts.

The vector is seen from the *viewer*, the tribe whose value is asked for: a header, then the
viewer's block, then the opponents' block. Putting the viewer first (rather than the seats in
their fixed order, as the source does) lets one network serve both seats with the same
weights: a feature means "mine" or "theirs" wherever the tribe sits, and the seat is kept as a
flag of its own (moving first is an advantage). The opponents' block sums the counts of every
other living or dead tribe (a multi-hot of their tribe identities), so the vector has the same
length for two, three or four tribes, and for two tribes it is exactly the other tribe's.

Every count is one-hot over CAP + 1 positions (0..CAP, larger values clipped to CAP); values
with a larger range are bucketed first (stars by 2, score by 250, territory by 3 tiles).

Header: viewer to move (1) · viewer's seat (4) · number of opponents (4) · round (31, capped
at 30) · rounds left before the limit (21, capped at 20). The caps are low on purpose: games
are played with different round limits (10 to 50), and a model trained on short games then
still knows every round slot of a longer game ("30 or later", "20 or more left"); how near
the limit is matters only when it is near.
Block (own, then opponents): tribe identity (12) · units by type (12 x 41) · cities (41) ·
sum of city levels (41) · production (41) · stars / 2 (41) · researched techs (24 flags) ·
buildings by type, monuments excluded (12 x 41) · monuments built (7 flags) · score / 250 (41)
· territory tiles / 3 (41) · kills (41) · owns its original capital (1) · shortest Chebyshev
distance from its units to an opposing original capital (21, capped at 20; +1 "none") · its
units standing in opposing territory (41) · opposing units next to or in its cities (41).
"""

from __future__ import annotations

from games.tribes import constants as K

NAME = "counts"
VERSION = 1
CAP = 40
"""Counts are one-hot over 0..CAP; larger counts are clipped to CAP."""
ROUND_CAP = 30
ROUNDS_LEFT_CAP = 20
DISTANCE_CAP = 20
STAR_BUCKET, SCORE_BUCKET, TILE_BUCKET = 2, 250, 3
MAX_TRIBES = 4

_C = CAP + 1
_N_UNITS = len(K.UNIT_NAMES)
_N_TRIBES = len(K.TRIBE_NAMES)
_PLAIN_BUILDINGS = tuple(b for b in range(1, len(K.BUILDING_NAMES)) if not K.IS_MONUMENT[b])
_BUILDING_SLOT = {b: i for i, b in enumerate(_PLAIN_BUILDINGS)}

HEADER_FIELDS = (("to_move", 1), ("seat", MAX_TRIBES), ("opponents", MAX_TRIBES),
                 ("round", ROUND_CAP + 1), ("rounds_left", ROUNDS_LEFT_CAP + 1))
BLOCK_FIELDS = (
    ("tribe", _N_TRIBES),
    *((f"units_{n.lower()}", _C) for n in K.UNIT_NAMES),
    ("cities", _C), ("city_levels", _C), ("production", _C), ("stars", _C),
    ("techs", K.NUM_TECHS),
    *((f"buildings_{K.BUILDING_NAMES[b].lower()}", _C) for b in _PLAIN_BUILDINGS),
    ("monuments", len(K.MONUMENTS)),
    ("score", _C), ("territory", _C), ("kills", _C), ("owns_capital", 1),
    ("capital_distance", DISTANCE_CAP + 2), ("units_in_enemy_land", _C), ("threats", _C),
)
FIELDS = (HEADER_FIELDS + tuple((f"own_{n}", w) for n, w in BLOCK_FIELDS)
          + tuple((f"opp_{n}", w) for n, w in BLOCK_FIELDS))


def _offsets(fields) -> dict[str, int]:
    out, at = {}, 0
    for name, width in fields:
        out[name] = at
        at += width
    return out


_H = _offsets(HEADER_FIELDS)
_B = _offsets(BLOCK_FIELDS)
HEADER_LENGTH = sum(w for _, w in HEADER_FIELDS)
BLOCK_LENGTH = sum(w for _, w in BLOCK_FIELDS)
LENGTH = HEADER_LENGTH + 2 * BLOCK_LENGTH


def _clip(v: int, cap: int = CAP) -> int:
    return 0 if v < 0 else cap if v > cap else v


class _Side:
    """The raw counts of one side (a tribe, or all the viewer's opponents together)."""

    __slots__ = ("tribes", "units", "cities", "levels", "production", "stars", "techs",
                 "buildings", "monuments", "score", "tiles", "kills", "owns_capital",
                 "distance", "intruders", "threats")

    def __init__(self) -> None:
        self.tribes: list[int] = []
        self.units = [0] * _N_UNITS
        self.cities = self.levels = self.production = self.stars = 0
        self.techs = 0
        self.buildings = [0] * len(_PLAIN_BUILDINGS)
        self.monuments = [False] * len(K.MONUMENTS)
        self.score = self.tiles = self.kills = 0
        self.owns_capital = False
        self.distance = -1  # -1: none
        self.intruders = self.threats = 0


def active(state, player: int) -> list[int]:
    """The positions of the ones of `state` seen from `player` (see the module text)."""
    n = len(state.tribes)
    if not 1 <= n <= MAX_TRIBES:
        raise ValueError(f"encoding {NAME!r}: at most {MAX_TRIBES} tribes, got {n}")
    sides = (_Side(), _Side())
    side_of = [0 if t == player else 1 for t in range(n)]
    _tally_tribes(state, sides, side_of)
    owner = _tally_tiles(state, sides, side_of)
    _tally_units(state, sides, side_of, owner)
    return _ones(state, player, n, sides)


def _tally_tribes(state, sides, side_of) -> None:
    """Each side's tribes, stars, score, kills, techs, cities, levels, production,
    monuments and original capital."""
    cities = state.cities
    for t in state.tribes:
        s = sides[side_of[t.id]]
        s.tribes.append(t.key)
        s.stars += t.stars
        s.score += t.score
        s.kills += t.kills
        s.techs |= t.techs
        s.cities += len(t.cities)
        for cid in t.cities:
            c = cities[cid]
            s.levels += c.level
            s.production += c.production()
        for i, m in enumerate(t.monuments):
            if m == K.BUILT:
                s.monuments[i] = True
        if state.owns_original_capital(t.id):
            s.owns_capital = True


def _tally_tiles(state, sides, side_of) -> list[int]:
    """Each side's territory and buildings; the side owning each tile (-1: none)."""
    cities = state.cities
    owner = [-1] * len(state.tile_city)
    building = state.building
    for i, c in enumerate(state.tile_city):
        if c:
            o = side_of[cities[c].tribe]
            owner[i] = o
            sides[o].tiles += 1
            b = building[i]
            if b and not K.IS_MONUMENT[b]:
                sides[o].buildings[_BUILDING_SLOT[b]] += 1
    return owner


def _tally_units(state, sides, side_of, owner) -> None:
    """Each side's units by type, their distance to the opposing original capitals, the
    units in the other side's land and the threats to its cities."""
    cities = state.cities
    size = state.size
    capitals = [[], []]
    for t in state.tribes:
        cap = cities.get(t.capital)
        if cap is not None:
            capitals[side_of[t.id]].append(divmod(cap.pos, size))
    city_near = [set(), set()]
    for c in cities.values():
        near = city_near[side_of[c.tribe]]
        near.update(state.radius(c.pos, 1))
    for u in state.units.values():
        o = side_of[u.tribe]
        s = sides[o]
        s.units[u.type] += 1
        x, y = divmod(u.pos, size)
        for cx, cy in capitals[1 - o]:
            d = max(abs(x - cx), abs(y - cy))
            if s.distance < 0 or d < s.distance:
                s.distance = d
        if owner[u.pos] == 1 - o:
            s.intruders += 1
        if u.pos in city_near[1 - o]:
            sides[1 - o].threats += 1


def _ones(state, player: int, n: int, sides) -> list[int]:
    """The ones of the header and of each side's block."""
    out = [_H["seat"] + player, _H["opponents"] + _clip(n - 1, MAX_TRIBES - 1),
           _H["round"] + _clip(state.tick, ROUND_CAP),
           _H["rounds_left"] + _clip(state.options.rounds() - state.tick, ROUNDS_LEFT_CAP)]
    if state.current == player and not state.game_over:
        out.append(_H["to_move"])
    for k, s in enumerate(sides):
        base = HEADER_LENGTH + k * BLOCK_LENGTH
        out.extend(base + _B["tribe"] + key for key in sorted(set(s.tribes)))
        for u, count in enumerate(s.units):
            out.append(base + _B[f"units_{K.UNIT_NAMES[u].lower()}"] + _clip(count))
        out.append(base + _B["cities"] + _clip(s.cities))
        out.append(base + _B["city_levels"] + _clip(s.levels))
        out.append(base + _B["production"] + _clip(s.production))
        out.append(base + _B["stars"] + _clip(s.stars // STAR_BUCKET))
        techs = s.techs
        out.extend(base + _B["techs"] + t for t in range(K.NUM_TECHS) if (techs >> t) & 1)
        for slot, count in enumerate(s.buildings):
            out.append(base + _BUILDING_OFFSETS[slot] + _clip(count))
        out.extend(base + _B["monuments"] + i for i, m in enumerate(s.monuments) if m)
        out.append(base + _B["score"] + _clip(s.score // SCORE_BUCKET))
        out.append(base + _B["territory"] + _clip(s.tiles // TILE_BUCKET))
        out.append(base + _B["kills"] + _clip(s.kills))
        if s.owns_capital:
            out.append(base + _B["owns_capital"])
        dist = DISTANCE_CAP + 1 if s.distance < 0 else _clip(s.distance, DISTANCE_CAP)
        out.append(base + _B["capital_distance"] + dist)
        out.append(base + _B["units_in_enemy_land"] + _clip(s.intruders))
        out.append(base + _B["threats"] + _clip(s.threats))
    return out


_BUILDING_OFFSETS = tuple(_B[f"buildings_{K.BUILDING_NAMES[b].lower()}"] for b in _PLAIN_BUILDINGS)
