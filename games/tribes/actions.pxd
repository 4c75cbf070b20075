# Cython declarations for actions.py (read only when `pip install -e .` compiles it): the
# hot listing functions take a typed position and read its fields directly. Python callers
# see the same functions.
cimport cython
from games.sequences cimport contains
from games.tribes.pieces cimport City, StateFields, Tribe, Unit

# the module's private terrain, building, unit and status numbers as C integers: compared with
# typed locals in C (not visible to Python; nothing outside this module reads them)
cdef Py_ssize_t _MOUNTAIN, _SHALLOW, _DEEP, _CITY, _FOREST, _PORT, _MIND_BENDER, _PLAIN
cdef Py_ssize_t _BOAT, _SHIP, _SUPERUNIT, _VILLAGE, _RUINS, _FINISHED, _PUSHED, _FRESH, _NO

@cython.locals(u=Unit)
cpdef dict reachable(StateFields s, uid)

@cython.locals(ut=Py_ssize_t, mov=double, naval=bint, climbing=Py_ssize_t, sailing=Py_ssize_t,
               mind_bender=bint, terrain=list, unit_at=list, units=dict, building=list,
               road=list, tile_city=list, cities=dict, nbrs=tuple, start=Py_ssize_t,
               enter=tuple, along=bint, ca=Py_ssize_t, best=dict, stepped=list, spent=double,
               halves=list, a=Py_ssize_t, b=Py_ssize_t, occ=Py_ssize_t, tb=Py_ssize_t,
               e=Py_ssize_t, cb=Py_ssize_t, ns=double, nxt=list, heap=list, a_road=bint,
               rest=double, cost=double, is_water=tuple, navigation=Py_ssize_t)
cpdef tuple _reachable(StateFields s, Unit u, tid, techs, bint shortcuts=*)

cpdef list list_actions(StateFields s)

@cython.locals(tribe=Tribe, lists=dict, out=list, e=list, acts=list, unit_at=list, units=dict,
               cities=dict, every_unit=bint, group=list, u=Unit)
cpdef list _entries(StateFields s, list actors=*)

cpdef dict lists_of(StateFields s)

@cython.locals(cities=dict, c=City)
cpdef level_up_city(StateFields s)

@cython.locals(lists=dict, e=list, acts=list)
cpdef list actor_entry(StateFields s, actor, candidates=*)

@cython.locals(g=dict, lst=list, a=tuple)
cpdef dict _grouped(list e)

@cython.locals(actors=list, entries=list)
cpdef dict group_by_actor(StateFields s)

@cython.locals(tribe=Tribe, u=Unit)
cpdef bint _is_actor(StateFields s, actor) except? -1

cpdef bint is_legal(StateFields s, action) except? -1

@cython.locals(changed=set, unit_at=list, nbrs=tuple, tile_city=list, units=dict, c=object,
               t=Py_ssize_t, b=Py_ssize_t, o=Py_ssize_t, e=tuple, u=Unit, reach=dict)
cpdef set touched_by(StateFields s, tuple tiles, bint moved=*)

@cython.locals(tribe=Tribe, terrain=list, road=list, unit_at=list, units=dict, tile_city=list,
               cities=dict, i=Py_ssize_t, c=Py_ssize_t, occ=Py_ssize_t, ter=Py_ssize_t)
cpdef tribe_actions(StateFields s, list out)

@cython.locals(c=City, tiles=tuple, tc=list)
cpdef tuple city_tiles(StateFields s, cid)

@cython.locals(c=City, tribe=Tribe, terrain=list, resource=list, building=list, nbrs=tuple,
               tiles=tuple, i=Py_ssize_t, fit=tuple, ter=Py_ssize_t, res=Py_ssize_t,
               b=Py_ssize_t)
cpdef city_actions(StateFields s, cid, list out, candidates=*)

@cython.locals(u=Unit, tribe=Tribe, o=Unit, st=Py_ssize_t, ut=Py_ssize_t, units=dict,
               unit_at=list, t=Py_ssize_t, occ=Py_ssize_t, pos=Py_ssize_t, ter=Py_ssize_t,
               heal=bint)
cpdef unit_actions(StateFields s, uid, list out)

@cython.locals(tribe=Tribe)
cpdef tuple spending_key(tribe)

@cython.locals(j=Py_ssize_t)
cpdef bint _next_to(list building, tuple tiles, b) except? -1

@cython.locals(near=set, out=set, e=tuple, u=Unit)
cpdef set near_units(StateFields s, tile)

@cython.locals(units=dict, cities=dict)
cpdef dict lists_kept(StateFields s, tuple action, dict lists, before, near, spending)

@cython.locals(tc=list, out=set, j=Py_ssize_t)
cpdef set _cities_near(StateFields s, Py_ssize_t tile)
