# Cython declarations for tree.py (read only when `pip install -e .` compiles it): the node
# as an extension type with C statistics, and the hot loops typed.
cimport cython
cimport libc.math as libm

cdef class TreeNode:
    cdef public object state
    cdef public TreeNode parent
    cdef public long depth, n
    cdef public double total, lo, hi
    cdef public bint opponent
    cdef public object chooser, mover

cpdef backup(TreeNode node, double value)

@cython.locals(v=double)
cpdef backup_each(TreeNode node, values)

@cython.locals(lo=double, span=double, spread=bint, log_n=double, flip=bint, above=double,
               below=double, best=list, ch=TreeNode, n=long, q=double, u=double)
cpdef TreeNode select_uct(TreeNode node, children, double c, rng, bint bias=*)
