"""A bit-exact re-implementation of ``java.util.Random``.

The reference Tribes maps (the published level seeds) and the reference game's random
draws (ruins, explorers, re-homing) come from Java's 48-bit linear congruential
generator. Reproducing them byte for byte needs the same generator, including Java's
signed 32-bit results and the exact rejection loop of ``nextInt(bound)``.

The whole state is one Python int (``seed``), so copying a generator for tree search is
two attribute reads. ``calls`` counts steps of the basic generator (``next(bits)``),
which is the unit in which the reference game traces report RNG usage.
"""

from __future__ import annotations

from typing import MutableSequence, TypeVar

__all__ = ["JavaRandom", "java_shuffle"]

_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK = (1 << 48) - 1
_DOUBLE_UNIT = 1.0 / (1 << 53)  # exactly 2**-53
_FLOAT_UNIT = 1.0 / (1 << 24)
_INT_MIN = -(1 << 31)
_TWO_31 = 1 << 31
_TWO_32 = 1 << 32
_TWO_63 = 1 << 63
_TWO_64 = 1 << 64

T = TypeVar("T")


def _to_int32(v: int) -> int:
    """Wrap an integer to Java ``int`` (two's complement, 32 bits)."""
    v &= 0xFFFFFFFF
    return v - _TWO_32 if v >= _TWO_31 else v


def _to_int64(v: int) -> int:
    """Wrap an integer to Java ``long`` (two's complement, 64 bits)."""
    v &= 0xFFFFFFFFFFFFFFFF
    return v - _TWO_64 if v >= _TWO_63 else v


class JavaRandom:
    """``java.util.Random`` with identical output for identical seeds.

    Methods use Python names; the Java spellings (``nextInt``, ``nextDouble``, ...) are
    aliases so that code transcribed from the rules reads naturally.
    """

    __slots__ = ("seed", "calls")

    def __init__(self, seed: int = 0) -> None:
        self.seed = 0
        self.calls = 0
        self.set_seed(seed)

    # --- state -----------------------------------------------------------------------------
    def set_seed(self, seed: int) -> None:
        """Java ``setSeed``: any Java long (wrapped to 64 bits) scrambled into 48 bits."""
        self.seed = (_to_int64(seed) ^ _MULTIPLIER) & _MASK

    def copy(self) -> JavaRandom:
        """An independent generator in the same state (same future draws, same count)."""
        r = JavaRandom.__new__(JavaRandom)
        r.seed = self.seed
        r.calls = self.calls
        return r

    def __repr__(self) -> str:
        return f"JavaRandom(state=0x{self.seed:012x}, calls={self.calls})"

    # --- core step -------------------------------------------------------------------------
    def next(self, bits: int) -> int:
        """Advance the LCG once and return its top ``bits`` bits as a Java ``int``."""
        self.seed = s = (self.seed * _MULTIPLIER + _ADDEND) & _MASK
        self.calls += 1
        r = s >> (48 - bits)
        # only a 32-bit draw can have the sign bit set
        return r - _TWO_32 if r >= _TWO_31 else r

    # --- derived draws ---------------------------------------------------------------------
    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any Java int) or ``nextInt(bound)`` (uniform in ``[0, bound)``)."""
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError(f"bound must be positive, got {bound}")
        if bound >= _TWO_31:
            raise ValueError(f"bound must fit a Java int, got {bound}")
        if bound & -bound == bound:  # power of two: take the high bits
            return (bound * self.next(31)) >> 31
        limit = _TWO_31 - bound  # bits - val + (bound - 1) overflows exactly when val-base > this
        while True:
            bits = self.next(31)
            val = bits % bound
            if bits - val <= limit:
                return val

    def next_long(self) -> int:
        """``nextLong()``: two 32-bit draws combined with Java's signed arithmetic."""
        hi = self.next(32)
        lo = self.next(32)
        return _to_int64((hi << 32) + lo)

    def next_boolean(self) -> bool:
        """``nextBoolean()``: one 1-bit draw."""
        return self.next(1) != 0

    def next_double(self) -> float:
        """``nextDouble()``: 53 random bits (26 + 27) scaled to ``[0, 1)``."""
        return ((self.next(26) << 27) + self.next(27)) * _DOUBLE_UNIT

    def next_float(self) -> float:
        """``nextFloat()``: 24 random bits scaled to ``[0, 1)`` (exact in a double)."""
        return self.next(24) * _FLOAT_UNIT

    # Java spellings
    nextInt = next_int
    nextLong = next_long
    nextBoolean = next_boolean
    nextDouble = next_double
    nextFloat = next_float
    setSeed = set_seed


def java_shuffle(lst: MutableSequence[T], rng: JavaRandom) -> None:
    """Shuffle ``lst`` in place exactly as ``Collections.shuffle(list, rnd)`` does.

    Walks from the last index down to 1, swapping each element with a uniformly drawn
    earlier-or-same position; the order of draws matters for reproducing reference games.
    """
    for i in range(len(lst) - 1, 0, -1):
        j = rng.next_int(i + 1)
        lst[i], lst[j] = lst[j], lst[i]
