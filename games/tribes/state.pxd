# Cython declarations for state.py (read only when `pip install -e .` compiles it).
cimport cython
from games.tribes.actions cimport is_legal, lists_of, near_units, spending_key
from games.tribes.pieces cimport City, StateFields, Tribe, Unit

cdef class TribesState(StateFields):

    cpdef TribesState copy(self)
    cpdef apply(self, action)
    cpdef event(self, player, name, value=*)
    cpdef _move_unit(self, uid, dest)
    @cython.locals(cities=dict, t=Tribe, alive=list)
    cpdef bint check_game_over(self) except? -1
    @cython.locals(cities=dict, c=object, n=Py_ssize_t, city=City)
    cpdef tiles_owned(self, tid)
