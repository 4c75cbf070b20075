# Cython declarations for script.py (read only when `pip install -e .` compiles it): the
# context as an extension type (it keeps an instance dict for the `lazy` facts and for
# whatever a game's subclass adds), `lazy` as an extension type (its `__get__` the type's
# slot, not a method found and called through Python), and the tie-breaking picks as C
# functions for the compiled scripts.
cimport cython

cdef class ScriptContext:
    cdef public object state, rng
    cdef dict __dict__
    cpdef random(self)

cdef class lazy:
    cdef public object fn, name
    cdef dict __dict__

cpdef tuple pick_max(ctx, items, scores)

cpdef tuple pick_min(ctx, items, scores)

@cython.locals(first=Py_ssize_t, count=Py_ssize_t, i=Py_ssize_t, ties=list)
cpdef tuple _pick_extreme(ctx, items, scores, bint lowest)
