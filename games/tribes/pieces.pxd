# Cython declarations for pieces.py (read only when `pip install -e .` compiles it): the
# pieces as extension types, so that compiled code that knows an object's type reads its
# fields directly. Every field keeps Python semantics (`object`, or a list / dict).
cimport cython

cdef class Unit:
    cdef public object id, tribe, type, pos, hp, max_hp, kills, veteran, status, home, base, tok
    @cython.locals(u=Unit)
    cpdef Unit clone(self, tok)

cdef class City:
    cdef public object id, tribe, pos, level, pop, pop_need, prod_bonus, capital, walls, bound, worth
    cdef public list units
    cdef public dict temples
    cdef public object tok
    @cython.locals(c=City)
    cpdef City clone(self, tok)

cdef class Tribe:
    cdef public object id, key, stars, score, techs, kills
    cdef public list cities, extra_units
    cdef public object capital
    cdef public list monuments
    cdef public object pacifist
    cdef public list connected
    cdef public object result, tok
    @cython.locals(t=Tribe)
    cpdef Tribe clone(self, tok)

cdef class StateFields:
    cdef public object _tok, size, options
    cdef public list terrain, resource, building, unit_at, tile_city, road
    cdef public tuple _nbrs, _rad
    cdef public dict units, cities
    cdef public list tribes
    cdef public object next_id, tick, current, game_over, final_ranking, log, rng, forced
    cdef public object _legal, _by_actor
    cdef public dict _zoc, _reach
    cdef public object _lists, _carry
    cdef public dict _own_water, _city_tiles
    cdef public object capitals, _own
    cpdef list board_w(self, name)
    @cython.locals(u=Unit)
    cpdef Unit unit_w(self, uid)
    @cython.locals(c=City)
    cpdef City city_w(self, cid)
    @cython.locals(t=Tribe)
    cpdef Tribe tribe_w(self, tid)
