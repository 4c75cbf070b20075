# Cython declarations for sequences.py (read only when `pip install -e .` compiles it).
cpdef bint contains(x, seq) except? -1
