# Cython declarations for rules.py (read only when `pip install -e .` compiles it).
cimport cython
from games.tribes.pieces cimport StateFields, Unit

@cython.locals(u=Unit)
cpdef move(StateFields s, tuple a)

cpdef _after_action(StateFields s)
