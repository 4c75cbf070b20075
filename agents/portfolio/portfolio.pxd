# Cython declarations for portfolio.py (read only when `pip install -e .` compiles it).
cimport cython
from games.sequences cimport contains

@cython.locals(rank=dict, by_kind=dict, kind_order=dict, key=tuple, kinds=list, seen=list,
               ok=bint, x=double)
cpdef list actor_assignments(actor, types, portfolio, ctx, list out)
