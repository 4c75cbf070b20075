# Cython declarations for evaluators.py (read only when `pip install -e .` compiles it).
cimport cython
from games.tribes.pieces cimport City, Tribe

@cython.locals(t=Tribe, c=City, cities=dict)
cpdef tuple tribe_features(state, tid)

cdef class TribesDiffHeuristic:
    cdef public object weights, _root
    cdef public bint _deciding
    cdef public list _root_features

    @cython.locals(n=Py_ssize_t, own=double, others=double, tid=Py_ssize_t, a=tuple, b=tuple,
                   s=double, weights=tuple, k=Py_ssize_t, value=double, root_features=list)
    cpdef double evaluate(self, root, leaf, Py_ssize_t player) except? -1.0
