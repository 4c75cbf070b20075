# Cython declarations for scripts.py (read only when `pip install -e .` compiles it): the
# context and the board geometry as extension types (the `lazy` facts stay in the context's
# instance dict), and the move scripts' and the unit facts' hot helpers typed.
cimport cython
from agents.portfolio.script cimport ScriptContext, pick_max, pick_min
from games.tribes.pieces cimport Unit

cdef class _Board:
    cdef public object n, last
    cdef public list row, col, cheb
    cdef public object cheb_np
    cdef public dict within

cdef class TribesContext(ScriptContext):
    cdef public object me
    cdef public _Board board
    cdef public dict _enemy_count, _moves, _builds, _tile_value, _site, _company, _city_b
    cpdef _actor_caches(self)
    cpdef fact(self, name)
    @cython.locals(known=tuple, own=list, unit_at=list, i=Py_ssize_t, n=Py_ssize_t, mine=set,
                   cnt=list, nbrs=tuple)
    cpdef bint _moved(self, dict d, q) except? -1
    @cython.locals(m=tuple, dests=list, row=list, longest=long, step=long, t=Py_ssize_t)
    cpdef tuple moves(self, actor, actions)
    @cython.locals(tc=list, building=list)
    cpdef city_buildings(self, cid)
    @cython.locals(c=list, building=list, owner=list, me=Py_ssize_t, terrain=list,
                   resource=list, j=Py_ssize_t, b=Py_ssize_t, pb=Py_ssize_t, o=Py_ssize_t)
    cpdef list site_counts(self, Py_ssize_t p)
    @cython.locals(producer=Py_ssize_t, building=list, terrain=list, owner=list,
                   me=Py_ssize_t, tc=list, nbrs=tuple, j=Py_ssize_t, q=Py_ssize_t,
                   n=Py_ssize_t, b=Py_ssize_t, o=Py_ssize_t)
    cpdef double base_synergy(self, Py_ssize_t p, base) except? -1
    cpdef double base_value(self, Py_ssize_t p, base) except? -1
    @cython.locals(c=list, best=double, v=double)
    cpdef double support_value(self, Py_ssize_t p) except? -1
    @cython.locals(v=double, b=Py_ssize_t)
    cpdef double economic_value(self, Py_ssize_t p) except? -1
    @cython.locals(cnt=list, within=list, board=_Board, key=tuple, p=Py_ssize_t,
                   t=Py_ssize_t)
    cpdef list enemy_count(self, r)

@cython.locals(unit_at=list, own=list, enemy=list, u=Unit, p=Py_ssize_t)
cpdef tuple _unit_tiles(s, me)

@cython.locals(cnt=list, p=Py_ssize_t, j=Py_ssize_t, row=tuple)
cpdef list _adjacent(list positions, tuple nbrs, Py_ssize_t n)

@cython.locals(i=Py_ssize_t, x=long, out=list)
cpdef list _indices(list seq, long value)

@cython.locals(m=tuple, field=list, r=tuple)
cpdef _head_for(TribesContext ctx, actor, actions, targets_name, field_name, water)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, count=Py_ssize_t,
               first=Py_ssize_t, j=Py_ssize_t, best=long, v=long)
cpdef tuple _best_move(ScriptContext ctx, actions, list values, list dests, bint lowest,
                       long bar)

@cython.locals(c=tuple, m=tuple, adj=list, row=list, ns=list, t=Py_ssize_t)
cpdef tuple _company(TribesContext ctx, actor, actions)

cpdef list _base_values(TribesContext ctx, actions, base)

cpdef list _idle_values(TribesContext ctx, actions)

@cython.locals(building=list, scores=list, p=Py_ssize_t, loss=double)
cpdef list _grow_values(TribesContext ctx, actions)
