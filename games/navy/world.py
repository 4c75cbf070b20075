"""The geometry of a Navy Defense board, computed once per board size and shared: cells,
moves, sonar blocks, cargo routes, and shortest paths that keep out of a sonar block.

A cell is an int ``y * width + x`` (x the column, y the row, row 0 at the top). North is
y - 1. Everything here is immutable and cached by board size, so states only hold ints.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

ACTIONS = ("STAY", "N", "E", "S", "W")
"""The Navy ship's actions, in the order `legal_actions` lists them (STAY first)."""
STEP = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
DIRECTION_NAMES = {"STAY": "stay", "N": "north", "E": "east", "S": "south", "W": "west"}
FAR = 1 << 20
"""The distance of a cell that cannot be reached."""


class Board:
    """The cached geometry of a width x height board."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        n = width * height
        self.cells = n
        self.xy = [(i % width, i // width) for i in range(n)]
        # moves of the Navy ship: (action, destination), STAY first
        self.moves: list[tuple[tuple[str, int], ...]] = []
        # orthogonal neighbours; a sub's attack reach (own cell and the neighbours)
        self.neighbours: list[tuple[int, ...]] = []
        self.reach: list[tuple[int, ...]] = []
        for i in range(n):
            x, y = self.xy[i]
            mv = [("STAY", i)]
            for a in ("N", "E", "S", "W"):
                dx, dy = STEP[a]
                if 0 <= x + dx < width and 0 <= y + dy < height:
                    mv.append((a, (y + dy) * width + x + dx))
            self.moves.append(tuple(mv))
            self.neighbours.append(tuple(d for _, d in mv[1:]))
            self.reach.append((i,) + self.neighbours[i])
        # the sonar block of a ship on cell i: Chebyshev distance <= 1, as a bit set
        self.block: list[int] = []
        for i in range(n):
            x, y = self.xy[i]
            bits = 0
            for j in range(n):
                u, v = self.xy[j]
                if abs(u - x) <= 1 and abs(v - y) <= 1:
                    bits |= 1 << j
            self.block.append(bits)
        # Manhattan distance of every cell to the board's centre (fractional on even sides)
        cx, cy = (width - 1) / 2, (height - 1) / 2
        self.centre = [abs(x - cx) + abs(y - cy) for x, y in self.xy]
        self.manhattan = [[abs(x - u) + abs(y - v) for u, v in self.xy] for x, y in self.xy]
        self._dist: dict[int, list[list[int]]] = {}
        self._near: dict[int, list[list[int]]] = {}
        # the destination of each of the Navy ship's actions, by cell
        self.move_to: list[dict[str, int]] = [dict(mv) for mv in self.moves]

    def ring(self, cell: int) -> int:
        """The ring index of a cell: its distance to the nearest edge."""
        x, y = self.xy[cell]
        return min(x, y, self.width - 1 - x, self.height - 1 - y)

    def route(self, cell: int, direction: str) -> tuple[int, ...]:
        """The cells a ship starting on `cell` visits, starting with `cell`, going round the
        rectangle of its ring clockwise (``cw``: east along the top, south on the right, as
        the board is drawn) or counter-clockwise (``ccw``). A ring of one cell (the centre
        of an odd board) is that cell alone."""
        k = self.ring(cell)
        x0, y0, x1, y1 = k, k, self.width - 1 - k, self.height - 1 - k
        w = self.width
        if x0 == x1 or y0 == y1:  # a ring without inside: a line (or one cell), walked back and forth
            line = [y * w + x for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]
            cycle = line + line[-2:0:-1]
        else:
            cycle = [y0 * w + x for x in range(x0, x1 + 1)]
            cycle += [y * w + x1 for y in range(y0 + 1, y1 + 1)]
            cycle += [y1 * w + x for x in range(x1 - 1, x0 - 1, -1)]
            cycle += [y * w + x0 for y in range(y1 - 1, y0, -1)]
        if direction == "ccw":
            cycle = cycle[::-1]
        i = cycle.index(cell)
        return tuple(cycle[i:] + cycle[:i])

    def distances(self, navy: int) -> list[list[int]]:
        """`distances(navy)[a][b]`: the fewest orthogonal steps from a to b through cells
        outside the sonar block of a ship on `navy` (-1: no ship, no block); `FAR` when a
        or b is in the block or b cannot be reached."""
        table = self._dist.get(navy)
        if table is None:
            blocked = self.block[navy] if navy >= 0 else 0
            table = []
            for a in range(self.cells):
                d = [FAR] * self.cells
                if not blocked >> a & 1:
                    d[a] = 0
                    todo = deque([a])
                    while todo:
                        u = todo.popleft()
                        for v in self.neighbours[u]:
                            if d[v] == FAR and not blocked >> v & 1:
                                d[v] = d[u] + 1
                                todo.append(v)
                table.append(d)
            self._dist[navy] = table
        return table

    def reach_distances(self, navy: int) -> list[list[int]]:
        """`reach_distances(navy)[a][p]`: the fewest steps from a, outside the sonar block
        of a ship on `navy`, to the nearest cell within a sub's reach of p (p itself or an
        orthogonal neighbour); `FAR` when none can be reached. How soon a sub can strike a
        ship on p: the subs' interception reads it once per step of a route."""
        table = self._near.get(navy)
        if table is None:
            reach = self.reach
            table = [[min(row[x] for x in reach[p]) for p in range(self.cells)]
                     for row in self.distances(navy)]
            self._near[navy] = table
        return table


@lru_cache(maxsize=None)
def board(width: int, height: int) -> Board:
    """The shared geometry of a board size."""
    return Board(width, height)


MASK = (1 << 64) - 1


def pick(options, seed: int, t: int, who: int, salt: int = 0):
    """One of `options`, uniformly, decided by (seed, time step, vessel, purpose) alone: every
    branch of a search in the same world meets the same luck (common random numbers)."""
    if len(options) == 1:
        return options[0]
    z = (seed * 0x9E3779B97F4A7C15 + t * 0xBF58476D1CE4E5B9 + who * 0x94D049BB133111EB
         + salt * 0x2545F4914F6CDD1D) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return options[z % len(options)]
