# Cython declarations for mcts.py (read only when `pip install -e .` compiles it).
from agents.tree cimport TreeNode

cdef class _Node(TreeNode):
    cdef public object action
    cdef public list children
    cdef public object untried, proven
