# Cython declarations for script.py (read only when `pip install -e .` compiles it): the
# context as an extension type (it keeps an instance dict for the `lazy` facts and for
# whatever a game's subclass adds), and the tie-breaking picks as C functions for the
# compiled scripts.
cimport cython

cdef class ScriptContext:
    cdef public object state, rng
    cdef dict __dict__
    cpdef random(self)

@cython.locals(i=Py_ssize_t, ties=list)
cpdef tuple pick_max(ctx, items, scores)

@cython.locals(i=Py_ssize_t, ties=list)
cpdef tuple pick_min(ctx, items, scores)
