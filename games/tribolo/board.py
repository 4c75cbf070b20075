"""Tribolo's board as bitboards: one Python int per player, one for the walls.

Layout: column-major, as the original stores its board (`board[x][y]`). Cell (x, y) is bit
``x * STRIDE + y`` with ``STRIDE = HEIGHT + 1``: every column has one spare *guard* bit
(y = 11) that never belongs to any set, so a step that leaves the board vertically or
diagonally lands on a guard bit (or beyond bit 191, or below bit 0) and is dropped by the
next AND with a player's, or the empty cells', set. No shift needs a mask of its own.

Ascending bit order is therefore (x, y) order, the order in which legal moves are listed.

A direction (dx, dy) is the shift ``dx * STRIDE + dy``. Move generation floods from a
player's cells over each opponent separately (a line holds one opponent only), the way
Othello bitboards are generated, with a loop instead of an unrolled fixed count because
lines run up to 14 cells on a 16-wide board.
"""

from __future__ import annotations

WIDTH, HEIGHT = 16, 11
STRIDE = HEIGHT + 1
CELLS = WIDTH * HEIGHT

BLUE, RED, GREEN = 0, 1, 2
PLAYERS = (BLUE, RED, GREEN)
PLAYER_NAMES = ("blue", "red", "green")
PLAYER_LETTERS = ("B", "R", "G")
EMPTY_CHAR, WALL_CHAR = ".", "#"

DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, 1), (1, 1), (-1, -1), (1, -1))
"""The 8 directions (dx, dy) in the order the original scans them."""

SHIFTS = tuple(dx * STRIDE + dy for dx, dy in DIRECTIONS)
"""Bit shift of one step in each direction (positive: towards higher bits)."""

_POSITIVE = (1, STRIDE - 1, STRIDE, STRIDE + 1)
"""One shift amount per axis; each is used both ways (<< and >>), 8 directions in all."""


def bit_index(x: int, y: int) -> int:
    return x * STRIDE + y


COORDS: tuple[tuple[int, int] | None, ...] = tuple(
    (i // STRIDE, i % STRIDE) if i % STRIDE < HEIGHT else None for i in range(WIDTH * STRIDE))
"""Bit index -> (x, y) (None for guard bits)."""

BIT: dict[tuple[int, int], int] = {(x, y): 1 << bit_index(x, y)
                                   for x in range(WIDTH) for y in range(HEIGHT)}
"""(x, y) -> its single-bit mask: the legality check of an action is one dict lookup."""

FULL = 0
for _b in BIT.values():
    FULL |= _b
del _b


_PACK = 256
"""Where the second opponent's copy of the board starts in `moves_of`'s packed ints: past the
board's 192 bits by more than the longest shift, so the two copies never meet."""
_LOW = (1 << _PACK) - 1


def moves_of(me: int, opp1: int, opp2: int, empty: int) -> int:
    """The set of empty cells where the owner of `me` has a jump: from one of its cells,
    one or more cells of a single opponent in a row, then the empty destination.

    Both opponents are flooded at once: opp2's board is packed above opp1's (bits from
    `_PACK` on), `me` and `empty` copied into both halves; a shift that leaves one half lands
    on bits no set of the other half holds, so the halves stay apart.

    Args:
        me: the player's cells.
        opp1, opp2: each opponent's cells.
        empty: the empty cells.
    """
    o = opp1 | (opp2 << _PACK)
    if not o:
        return 0
    mm = me | (me << _PACK)
    e = empty | (empty << _PACK)
    m = 0
    for s in _POSITIVE:
        x = (mm << s) & o
        while x:
            x <<= s
            m |= x & e
            x &= o
        x = (mm >> s) & o
        while x:
            x >>= s
            m |= x & e
            x &= o
    return (m | (m >> _PACK)) & _LOW


def flips(me: int, opp1: int, opp2: int, dest: int) -> int:
    """Every cell converted when the owner of `me` plays the single-bit `dest`: in each
    direction, a run of one opponent's cells closed by one of `me`'s cells (the
    destination itself not included). 0 when `dest` is no jump.

    Args:
        me: the mover's cells.
        opp1, opp2: each opponent's cells.
        dest: the destination, one bit.
    """
    both = opp1 | opp2
    f = 0
    for s in _POSITIVE:
        c = (dest << s) & both
        if c:
            o = opp1 if c & opp1 else opp2
            line = 0
            while c & o:
                line |= c
                c <<= s
            if c & me:
                f |= line
        c = (dest >> s) & both
        if c:
            o = opp1 if c & opp1 else opp2
            line = 0
            while c & o:
                line |= c
                c >>= s
            if c & me:
                f |= line
    return f


def jump_lines(me: int, opp1: int, opp2: int, dest: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """The firing lines of a move, direction by direction in the original's scan order:
    (which of opp1 / opp2 was jumped over: 1 or 2, converted cells from the destination
    outwards)."""
    out = []
    for s in SHIFTS:
        step = (lambda b, s=s: b << s) if s > 0 else (lambda b, s=s: b >> -s)
        c = step(dest)
        o, which = (opp1, 1) if c & opp1 else (opp2, 2) if c & opp2 else (0, 0)
        if not o:
            continue
        cells = []
        while c & o:
            cells.append(COORDS[c.bit_length() - 1])
            c = step(c)
        if c & me:
            out.append((which, cells))
    return out


AXES = ((0, 1), (1, -1), (1, 0), (1, 1))
"""The 4 axes a line can run along (each with its opposite direction)."""

NEIGHBOURS: tuple[int, ...] = tuple(
    sum(BIT[(c[0] + dx, c[1] + dy)] for dx, dy in DIRECTIONS if (c[0] + dx, c[1] + dy) in BIT)
    if c is not None else 0 for c in COORDS)
"""Bit index -> the set of its (up to 8) neighbouring cells."""


def lines_fired(index: int, converted: int) -> int:
    """How many lines (directions) a move to the cell of bit `index` fires, given the cells it
    converts: every firing line starts with the destination's neighbour in its direction,
    and only that line can convert that neighbour.

    Args:
        index: the destination's bit index.
        converted: the cells the move converts (`flips`).
    """
    return (NEIGHBOURS[index] & converted).bit_count()


_ANCHORS: dict[int, tuple[tuple[int, ...], int]] = {}
_ANCHOR_CACHE_LIMIT = 256


def anchored_axes(walls: int) -> tuple[tuple[int, ...], int]:
    """For a wall layout: (bit index -> the number of axes, 0-4, along which the cell's
    neighbour on at least one side is a wall or off the board; the set of *edge* cells,
    anchored on 3 or 4 axes). No line can pass through a cell along an anchored axis (a
    converted cell lies strictly between the destination and the mover's closing cell),
    so a cell anchored on all 4 axes, a corner for instance, can never be taken back; a
    cell of the board's border is anchored on 3. Cached per wall layout.

    Args:
        walls: the walls.
    """
    got = _ANCHORS.get(walls)
    if got is not None:
        return got

    def blocked(x: int, y: int) -> bool:
        b = BIT.get((x, y))
        return b is None or bool(b & walls)

    counts = [0] * len(COORDS)
    edges = 0
    for (x, y), b in BIT.items():
        n = sum(1 for dx, dy in AXES if blocked(x + dx, y + dy) or blocked(x - dx, y - dy))
        counts[b.bit_length() - 1] = n
        if n >= 3:
            edges |= b
    if len(_ANCHORS) >= _ANCHOR_CACHE_LIMIT:
        _ANCHORS.clear()
    got = _ANCHORS[walls] = (tuple(counts), edges)
    return got


def cells_of(bits: int) -> list[tuple[int, int]]:
    """The (x, y) cells of a set, in (x, y) order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(COORDS[low.bit_length() - 1])
        bits ^= low
    return out


def bits_of(cells) -> int:
    b = 0
    for c in cells:
        b |= BIT[tuple(c)]
    return b
