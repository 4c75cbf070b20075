# Cython declarations for state.py (read only when `pip install -e .` compiles it).
from games.tribes.pieces cimport City, StateFields, Tribe, Unit

cdef class TribesState(StateFields):
    pass
