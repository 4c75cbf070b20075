"""Units, cities and tribes: small `__slots__` objects shared copy-on-write between a state
and its copies (see `games.tribes.state`); `clone` makes a state's own copy on first write.
And the fields of a state (`StateFields`).

`pieces.pxd` declares these classes for the compiled modules (`base.compiled`): there they are
extension types, whose fields code that knows an object's type reads directly."""

from __future__ import annotations


class Unit:
    __slots__ = ("id", "tribe", "type", "pos", "hp", "max_hp", "kills", "veteran", "status",
                 "home", "base", "tok")

    def clone(self, tok: object) -> "Unit":
        u = Unit.__new__(Unit)
        u.id, u.tribe, u.type, u.pos = self.id, self.tribe, self.type, self.pos
        u.hp, u.max_hp, u.kills, u.veteran = self.hp, self.max_hp, self.kills, self.veteran
        u.status, u.home, u.base = self.status, self.home, self.base
        u.tok = tok
        return u


class City:
    __slots__ = ("id", "tribe", "pos", "level", "pop", "pop_need", "prod_bonus", "capital", "walls",
                 "bound", "worth", "units", "temples", "tok")

    def clone(self, tok: object) -> "City":
        c = City.__new__(City)
        c.id, c.tribe, c.pos, c.level = self.id, self.tribe, self.pos, self.level
        c.pop, c.pop_need, c.prod_bonus = self.pop, self.pop_need, self.prod_bonus
        c.capital, c.walls, c.bound, c.worth = self.capital, self.walls, self.bound, self.worth
        c.units = self.units[:]
        c.temples = {t: v[:] for t, v in self.temples.items()} if self.temples else {}
        c.tok = tok
        return c

    def production(self) -> int:
        if self.pop >= 0:
            return self.level + self.prod_bonus + (1 if self.capital else 0)
        return self.pop


class Tribe:
    __slots__ = ("id", "key", "stars", "score", "techs", "kills", "cities", "extra_units",
                 "capital", "monuments", "pacifist", "connected", "result", "tok")

    def clone(self, tok: object) -> "Tribe":
        t = Tribe.__new__(Tribe)
        t.id, t.key, t.stars = self.id, self.key, self.stars
        t.score, t.techs, t.kills = self.score, self.techs, self.kills
        t.cities, t.extra_units = self.cities[:], self.extra_units[:]
        t.capital, t.monuments, t.pacifist = self.capital, self.monuments[:], self.pacifist
        t.connected, t.result = self.connected[:], self.result
        t.tok = tok
        return t

    def has(self, tech: int) -> bool:
        return (self.techs >> tech) & 1 == 1

    def n_techs(self) -> int:
        return self.techs.bit_count()


BOARD_LISTS = {"terrain": 1, "resource": 2, "building": 4, "tile_city": 8, "road": 16}
"""The board lists shared copy-on-write (`StateFields.board_w`), each with its bit of `_own`;
`unit_at`, written by almost every action, is copied with the position."""


class StateFields:
    """The fields of a Tribes position, `games.tribes.state.TribesState` (which adds the
    methods): declared here, with the pieces, so that every compiled module can know a
    position's type without importing the state module."""

    __slots__ = ("_tok", "size", "options", "terrain", "resource", "building", "unit_at",
                 "tile_city", "road", "_nbrs", "_rad", "units", "cities", "tribes", "next_id",
                 "tick", "current", "game_over", "final_ranking", "log", "rng", "forced",
                 "_legal", "_by_actor", "_zoc", "_reach", "_lists", "_carry", "_own_water",
                 "_city_tiles", "capitals", "_own")

    # copy-on-write accessors (see `games.tribes.state`) ----------------------------------
    def board_w(self, name: str) -> list:
        """The board list `name` (one of `BOARD_LISTS`) to write into: a copy shares them
        with its position until one of the two writes (`_own` has a bit per list this
        position owns). Every write to these lists goes through here."""
        bit = BOARD_LISTS[name]
        lst = getattr(self, name)
        if not self._own & bit:
            lst = lst[:]
            setattr(self, name, lst)
            self._own |= bit
        return lst

    def unit_w(self, uid: int) -> Unit:
        u = self.units[uid]
        if u.tok is not self._tok:
            u = u.clone(self._tok)
            self.units[uid] = u
        return u

    def city_w(self, cid: int) -> City:
        c = self.cities[cid]
        if c.tok is not self._tok:
            c = c.clone(self._tok)
            self.cities[cid] = c
        return c

    def tribe_w(self, tid: int) -> Tribe:
        t = self.tribes[tid]
        if t.tok is not self._tok:
            t = t.clone(self._tok)
            self.tribes[tid] = t
        return t
