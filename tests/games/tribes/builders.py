"""Helpers to build hand-made Tribes positions for rule tests.

A position is a small level (CSV text) plus edits made through the state's own helpers:
units placed with `create_unit`, techs, stars, terrain, resources, buildings and roads.
Positions are given as `(x, y)` = (row, column), as in the rules document; the tile index
is `x * size + y`.

Every editing helper invalidates the state's cached legal actions, so the next
`legal_actions()` reflects the edit. `act` finds the expected action among the legal ones
and applies it, or fails with a message that lists what *was* legal for that actor.
"""

from __future__ import annotations

from typing import Iterable

from games.tribes import actions as A
from games.tribes import constants as K
from games.tribes.level import Level
from games.tribes.state import TribesOptions, TribesState, new_game

ANY = object()

DEFAULT_CAPITALS = {(1, 1): 0, (6, 6): 1}


# ------------------------------------------------------------------------------ levels and games
def board(size: int = 8, cells: dict | None = None, capitals: dict | None = None,
          fill: str = ".:") -> str:
    """CSV text of a `size` x `size` level: every cell `fill`, then the `cells` overrides
    ({(x, y): 'f:'}) and the capitals ({(x, y): tribe_key}, default Xin-Xi at (1, 1) and
    Imperius at (6, 6))."""
    capitals = DEFAULT_CAPITALS if capitals is None else capitals
    grid = [[fill] * size for _ in range(size)]
    for (x, y), cell in (cells or {}).items():
        grid[x][y] = cell
    for (x, y), key in capitals.items():
        grid[x][y] = f"c:{key}"
    return "".join(",".join(row) + "\n" for row in grid)


def level(text: str | Iterable[str]) -> Level:
    """A Level from CSV text or a list of CSV rows."""
    if not isinstance(text, str):
        text = "\n".join(text) + "\n"
    return Level.from_csv(text, source="<test level>")


def game(csv: str | Level | None = None, seed: int = 0, *, mode: str = K.CAPITALS,
         max_rounds: int | None = None, reference_bugs: bool = False, **board_kw) -> TribesState:
    """A new game on a level (CSV text, a Level, or `board(**board_kw)`)."""
    if csv is None:
        csv = board(**board_kw)
    lv = csv if isinstance(csv, Level) else level(csv)
    return new_game(lv, seed, TribesOptions(mode=mode, max_rounds=max_rounds,
                                            reference_bugs=reference_bugs))


# ------------------------------------------------------------------------------ coordinates
def idx(s: TribesState, xy) -> int:
    """Tile index of (x, y); an int is taken to be an index already."""
    if isinstance(xy, int):
        return xy
    x, y = xy
    assert 0 <= x < s.size and 0 <= y < s.size, f"{xy} is off the {s.size}x{s.size} board"
    return x * s.size + y


def xy(s: TribesState, i: int) -> tuple[int, int]:
    return divmod(i, s.size)


def refresh(s: TribesState) -> None:
    """Forget cached legal actions after a direct edit."""
    s.invalidate()


# ------------------------------------------------------------------------------ names
def _code(names: tuple, value, what: str) -> int:
    if isinstance(value, int):
        return value
    key = value.strip().upper()
    if key not in names:
        raise ValueError(f"unknown {what} {value!r}; known: {', '.join(names)}")
    return names.index(key)


def unit_type(t) -> int:
    return _code(K.UNIT_NAMES, t, "unit type")


def tech(t) -> int:
    return _code(K.TECH_NAMES, t, "tech")


def status(t) -> int:
    return _code(K.STATUS_NAMES, t, "status")


def kind(t) -> int:
    return _code(A.ACTION_NAMES, t, "action kind")


def building(t) -> int:
    return _code(K.BUILDING_NAMES, t, "building")


def bonus(t) -> int:
    return _code(K.BONUS_NAMES, t, "level-up bonus")


def terrain_code(t) -> int:
    if isinstance(t, str) and len(t) == 1:
        return K.TERRAIN_OF_CHAR[t]
    aliases = {"SHALLOW": "SHALLOW_WATER", "DEEP": "DEEP_WATER"}
    if isinstance(t, str):
        t = aliases.get(t.upper(), t)
    return _code(K.TERRAIN_NAMES, t, "terrain")


def resource_code(t) -> int:
    if t is None:
        return K.NO_RESOURCE
    if isinstance(t, str) and len(t) == 1:
        return K.RESOURCE_OF_CHAR[t]
    return _code(K.RESOURCE_NAMES, t, "resource")


# ------------------------------------------------------------------------------ units
def unit_at(s: TribesState, pos):
    """The unit on a tile, or None."""
    uid = s.unit_at[idx(s, pos)]
    return s.units[uid] if uid else None


def unit(s: TribesState, uid: int):
    return s.units[uid]


def clear(s: TribesState, pos) -> None:
    """Remove the unit on a tile, if any, without any score change."""
    uid = s.unit_at[idx(s, pos)]
    if uid:
        s.remove_unit(uid, lose_points=False)
    refresh(s)


def place(s: TribesState, utype, tribe: int, pos, hp: int | None = None, *,
          max_hp: int | None = None, state: str | int = "FRESH", home: int | str = 0,
          kills: int = 0, veteran: bool = False, base=None, replace: bool = False):
    """Create a unit of `tribe` on `pos` and return it.

    `state` is its turn status (FRESH by default, so it can act this turn); `home` is a city
    id, "capital" for the tribe's capital, or 0 for an extra unit; `base` is the remembered
    land type of a naval unit (Warrior by default). No score is awarded."""
    i = idx(s, pos)
    if s.unit_at[i]:
        if not replace:
            raise AssertionError(f"tile {xy(s, i)} already holds unit #{s.unit_at[i]}")
        clear(s, i)
    ut = unit_type(utype)
    if home == "capital":
        home = s.tribes[tribe].capital
    if base is None:
        b = K.WARRIOR if K.UNIT_IS_NAVAL[ut] else -1
    else:
        b = unit_type(base)
    mhp = max_hp if max_hp is not None else K.UNIT_HP[ut]
    u = s.create_unit(ut, tribe, i, home, hp=mhp if hp is None else hp, max_hp=mhp,
                      kills=kills, veteran=veteran, status=status(state), base=b)
    refresh(s)
    return u


def set_unit(s: TribesState, uid: int, **fields):
    """Set fields of a unit (`status` may be a name)."""
    u = s.unit_w(uid)
    for k, v in fields.items():
        if k == "status":
            v = status(v)
        setattr(u, k, v)
    refresh(s)
    return u


# ------------------------------------------------------------------------------ tribes
def give_tech(s: TribesState, tribe: int, *names) -> None:
    t = s.tribe_w(tribe)
    for n in names:
        t.techs |= 1 << tech(n)
    refresh(s)


def remove_tech(s: TribesState, tribe: int, *names) -> None:
    t = s.tribe_w(tribe)
    for n in names:
        t.techs &= ~(1 << tech(n))
    refresh(s)


def has_tech(s: TribesState, tribe: int, name) -> bool:
    return s.tribes[tribe].has(tech(name))


def set_stars(s: TribesState, tribe: int, n: int) -> None:
    s.tribe_w(tribe).stars = n
    refresh(s)


def stars(s: TribesState, tribe: int) -> int:
    return s.tribes[tribe].stars


def score(s: TribesState, tribe: int) -> int:
    return s.tribes[tribe].score


# ------------------------------------------------------------------------------ cities
def capital(s: TribesState, tribe: int):
    return s.cities[s.tribes[tribe].capital]


def city_at(s: TribesState, pos):
    cid = s.tile_city[idx(s, pos)]
    c = s.cities.get(cid) if cid else None
    assert c is not None and c.pos == idx(s, pos), f"no city centre at {pos}"
    return c


def set_city(s: TribesState, cid: int, **fields):
    """Set fields of a city directly (no score change), e.g. pop=2, level=3, walls=True.
    Setting `level` also sets `pop_need` to the rule value (level + 1; 2 at level 1)
    unless `pop_need` is given."""
    c = s.city_w(cid)
    if "level" in fields and "pop_need" not in fields:
        fields["pop_need"] = 2 if fields["level"] == 1 else fields["level"] + 1
    for k, v in fields.items():
        setattr(c, k, v)
    refresh(s)
    return c


# ------------------------------------------------------------------------------ tiles
def set_terrain(s: TribesState, pos, terrain) -> None:
    s.board_w("terrain")[idx(s, pos)] = terrain_code(terrain)
    refresh(s)


def set_resource(s: TribesState, pos, resource) -> None:
    s.board_w("resource")[idx(s, pos)] = resource_code(resource)
    refresh(s)


def set_building(s: TribesState, pos, b) -> None:
    """Put a building on a tile with no effect (no population, no score)."""
    s.board_w("building")[idx(s, pos)] = building(b) if b else K.NO_BUILDING
    refresh(s)


def add_road(s: TribesState, *positions) -> None:
    for p in positions:
        s.board_w("road")[idx(s, p)] = True
    refresh(s)


def owner(s: TribesState, pos) -> int:
    """Tribe owning the territory of a tile, or -1."""
    return s.tile_tribe(idx(s, pos))


# ------------------------------------------------------------------------------ actions
def legal(s: TribesState, k=ANY, actor=ANY, target=ANY, extra=ANY) -> list[tuple]:
    """The legal actions matching the given fields (names or ints; positions for tiles)."""
    out = []
    kk = ANY if k is ANY else kind(k)
    for a in s.legal_actions():
        if kk is not ANY and a[0] != kk:
            continue
        if actor is not ANY and a[1] != actor:
            continue
        if target is not ANY and a[2] != _target(s, a[0], target):
            continue
        if extra is not ANY and a[3] != _extra(a[0], extra):
            continue
        out.append(a)
    return out


def _target(s, k: int, target):
    if isinstance(target, tuple):
        return idx(s, target)
    if isinstance(target, str):
        if k == A.RESEARCH_TECH:
            return tech(target)
        if k == A.SPAWN:
            return unit_type(target)
        if k == A.LEVEL_UP:
            return bonus(target)
    return target


def _extra(k: int, extra):
    if isinstance(extra, str) and k == A.BUILD:
        return building(extra)
    return extra


def is_legal(s: TribesState, k, actor=ANY, target=ANY, extra=ANY) -> bool:
    return bool(legal(s, k, actor, target, extra))


def find(s: TribesState, k, actor=ANY, target=ANY, extra=ANY) -> tuple:
    """The unique legal action matching; fails clearly if there is none (or several)."""
    found = legal(s, k, actor, target, extra)
    if len(found) == 1:
        return found[0]
    want = f"{A.ACTION_NAMES[kind(k)]} actor={_show(actor)} target={_show(target)} extra={_show(extra)}"
    if not found:
        mine = [s.describe(a) for a in s.legal_actions() if actor is ANY or a[1] == actor]
        raise AssertionError(
            f"expected a legal {want} (tribe {s.current}, round {s.tick}); legal actions"
            f"{'' if actor is ANY else ' of that actor'}: {mine or 'none'}")
    raise AssertionError(f"several legal actions match {want}: {[s.describe(a) for a in found]}")


def _show(v) -> str:
    return "*" if v is ANY else repr(v)


def act(s: TribesState, k, actor=ANY, target=ANY, extra=ANY) -> tuple:
    """Apply the legal action matching the fields (failing clearly if it is not legal)."""
    a = find(s, k, actor, target, extra)
    s.apply(a)
    return a


def move(s: TribesState, uid: int, pos) -> tuple:
    return act(s, "MOVE", uid, idx(s, pos))


def attack(s: TribesState, uid: int, target_uid: int) -> tuple:
    return act(s, "ATTACK", uid, target_uid)


def move_targets(s: TribesState, uid: int) -> set[tuple[int, int]]:
    """Destinations of the unit's legal MOVE actions, as (x, y)."""
    return {xy(s, a[2]) for a in legal(s, "MOVE", uid)}


def attack_targets(s: TribesState, uid: int) -> set[int]:
    return {a[2] for a in legal(s, "ATTACK", uid)}


def reach(s: TribesState, uid: int) -> dict[tuple[int, int], float]:
    """Movement spent to reach each tile this turn, by (x, y) (occupied tiles included)."""
    return {xy(s, t): c for t, c in A.reachable(s, uid).items()}


def end_turn(s: TribesState) -> None:
    act(s, "END_TURN")


def play_until_turn_of(s: TribesState, tribe: int) -> None:
    """End turns (at least one) until it is `tribe`'s turn again."""
    end_turn(s)
    while s.current != tribe and not s.game_over:
        end_turn(s)
