"""JavaRandom must reproduce java.util.Random bit for bit.

Expected values were produced with OpenJDK 17's java.util.Random.
"""

from __future__ import annotations

import struct

import pytest

from games.tribes.javarandom import JavaRandom, java_shuffle


def test_initial_scramble() -> None:
    assert JavaRandom(0).seed == 0x5DEECE66D
    assert JavaRandom(0x5DEECE66D).seed == 0


def test_next_int_unbounded() -> None:
    assert JavaRandom(42).next_int() == -1170105035
    r = JavaRandom(0)
    assert [r.next_int() for _ in range(5)] == [
        -1155484576, -723955400, 1033096058, -1690734402, -1557280266]


def test_next_int_bounded_small() -> None:
    r = JavaRandom(42)
    assert [r.nextInt(10) for _ in range(10)] == [0, 3, 8, 4, 0, 5, 5, 8, 9, 3]


def test_next_int_power_of_two_and_large_bounds() -> None:
    r = JavaRandom(1590191438878)
    got = ([r.next_int(16) for _ in range(6)]
           + [r.next_int(1_000_000_007) for _ in range(6)]
           + [r.next_int(1 << 30) for _ in range(6)]
           + [r.next_int(2**31 - 1) for _ in range(6)])
    assert got == [
        13, 5, 9, 1, 12, 0,
        267454530, 701697699, 272503568, 646009545, 76702721, 880790147,
        566697357, 649093837, 210135476, 551920820, 280154518, 192909877,
        1715364605, 1066434306, 683395632, 1238044090, 915451287, 995469851,
    ]


def test_next_int_rejection_loop_consumes_extra_draws() -> None:
    # a bound just above 2**30 rejects about half of the raw draws
    r = JavaRandom(5)
    got = [r.next_int((1 << 30) + 1) for _ in range(20)]
    assert got == [
        379250092, 189533474, 1049914506, 991787854, 963357722, 918177321, 596500747,
        742486560, 470823978, 993050215, 683051165, 476744808, 697491356, 52213402,
        943745180, 680254647, 843695715, 429409129, 608057707, 532200946,
    ]
    assert r.calls > 20  # some draws were rejected and redrawn
    assert r.next_int() == 258361087  # the state after the loop matches Java's


def test_next_int_rejects_bad_bounds() -> None:
    with pytest.raises(ValueError):
        JavaRandom(1).next_int(0)
    with pytest.raises(ValueError):
        JavaRandom(1).next_int(-5)


def test_next_double() -> None:
    r = JavaRandom(42)
    assert [r.nextDouble() for _ in range(5)] == [
        0.7275636800328681, 0.6832234717598454, 0.30871945533265976,
        0.27707849007413665, 0.6655489517945736]


def test_next_long_negative_seed() -> None:
    r = JavaRandom(-7)
    assert [r.next_long() for _ in range(5)] == [
        4964420944606563203, -6028743012628894217, -8826958116857042465,
        -2732364192705608872, 1581709715777812225]


def test_seed_wraps_like_a_java_long() -> None:
    # only the low 48 bits survive the scramble: Long.MIN_VALUE acts like 0
    assert JavaRandom(-(2**63)).next_int() == -1155484576
    assert JavaRandom(2**64 + 42).next_int() == -1170105035


def test_next_boolean_and_float() -> None:
    r = JavaRandom(123456789)
    assert [r.next_boolean() for _ in range(8)] == [
        True, True, False, False, False, False, True, False]
    r = JavaRandom(99)
    as_f32 = [struct.unpack("f", struct.pack("f", r.next_float()))[0] for _ in range(4)]
    java = [struct.unpack("f", struct.pack("f", v))[0]
            for v in (0.7224575, 0.38950163, 0.34725404, 0.7103304)]
    assert as_f32 == java


def test_calls_count_basic_steps() -> None:
    r = JavaRandom(3)
    r.next_double()
    assert r.calls == 2
    r.next_int(8)
    r.next_boolean()
    assert r.calls == 4
    r.next_long()
    assert r.calls == 6


def test_copy_is_independent_and_identical() -> None:
    r = JavaRandom(11)
    r.next_int()
    c = r.copy()
    assert c.seed == r.seed and c.calls == r.calls
    a = [r.next_int(100) for _ in range(10)]
    assert c.seed != r.seed  # advancing the original did not move the copy
    assert [c.next_int(100) for _ in range(10)] == a


def test_java_shuffle_matches_collections_shuffle() -> None:
    lst = list(range(10))
    java_shuffle(lst, JavaRandom(7))
    assert lst == [0, 1, 9, 3, 7, 4, 8, 5, 2, 6]


def test_java_shuffle_draw_count() -> None:
    r = JavaRandom(1)
    java_shuffle(list(range(6)), r)
    assert r.calls >= 5  # one bounded draw per position 5..1
    r = JavaRandom(1)
    java_shuffle([1], r)
    assert r.calls == 0
