# Cython declarations for pmcts.py (read only when `pip install -e .` compiles it).
cimport cython
from agents.tree cimport TreeNode

cdef class _PNode(TreeNode):
    cdef public object assignment
    cdef public double h
    cdef public object assignments
    cdef public list unexpanded, children
    cdef public object pruner

@cython.locals(actors=list, ends=list, total=Py_ssize_t, made=dict, j=Py_ssize_t,
               i=Py_ssize_t, lst=list, off=Py_ssize_t)
cpdef sample_assignment(state, pf, counts, rng, ctx=*)

@cython.locals(actors=list, ends=list, total=Py_ssize_t, bound=Py_ssize_t,
               k=Py_ssize_t, m=object)
cpdef tuple _bounds(by_actor, counts)
