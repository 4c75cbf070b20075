# cython: language_level=3
"""The compiled part of `agents.draw` (built by `pip install -e .` where numpy's random C API
and a C compiler are at hand; `agents.draw` checks it and otherwise uses Python)."""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t
from numpy.random cimport bitgen_t
from numpy.random.c_distributions cimport random_bounded_uint64, random_interval


def randbelow(rng, n):
    """`int(rng.integers(n))`, drawn by the function `Generator.integers` itself calls for one
    integer (`random_bounded_uint64` on the generator's bit generator), without its argument
    handling. Bounds it does not take (below 1, beyond 2**63) go to `rng.integers`."""
    if not 0 < n < 0x7FFFFFFFFFFFFFFF:
        return int(rng.integers(n))
    cdef long long m = n
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule,
                                                           "BitGenerator")
    return <long long> random_bounded_uint64(bg, 0, <uint64_t> (m - 1), 0, False)


def permutation(rng, n):
    """`rng.permutation(n).tolist()`, drawn as `Generator.shuffle` draws it for a 1-d array
    (from the last position down to the second, a swap with `random_interval(i)`), into a
    list. Bounds it does not take (below 0) go to `rng.permutation`."""
    if n < 0:
        return rng.permutation(n).tolist()
    cdef Py_ssize_t m = n, i, j
    cdef list out = list(range(m))
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule,
                                                           "BitGenerator")
    for i in range(m - 1, 0, -1):
        j = <Py_ssize_t> random_interval(bg, <uint64_t> i)
        out[i], out[j] = out[j], out[i]
    return out


def uniform(rng):
    """`rng.random()`: the generator's bit generator's next double, as `Generator.random`
    draws one float."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule,
                                                           "BitGenerator")
    return bg.next_double(bg.state)
