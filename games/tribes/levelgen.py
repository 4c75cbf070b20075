"""The Tribes level generator, reproducing the reference maps exactly.

Experiments in the literature name their maps by level seed, so the same seed must give
the same map here, byte for byte. That fixes everything below: Java's random generator,
the order of every draw, the order in which ring tiles are listed, the iteration order of
the reference's hash map over capital candidates, and three bugs of the reference
generator that are kept on purpose (land accumulates over smoothing passes, the coast
erodes into shallow water instead of the ocean becoming shallow, and the "no adjacent
ruins" marking uses the wrong tile).

Steps, in draw order: seed land, smooth, place capitals, grow tribe influence, forest and
mountains, shallow water, village sites, villages and resources, ruins, tribe fix-ups.
"""

from __future__ import annotations

from typing import Iterable

from .javarandom import JavaRandom
from .level import TRIBE_NAMES, Level, tribe_key

__all__ = ["generate_level", "DEFAULT_SIZE", "BASE_PROB", "TRIBE_MULT", "default_size"]

DEFAULT_SIZE: dict[int, int] = {2: 11, 3: 14, 4: 16, 5: 18, 6: 20, 7: 22, 8: 24}
"""Map size by number of tribes."""

SMOOTHING = 3
RELIEF = 4
INITIAL_LAND = 0.5
LAND_COEFFICIENT = (0.5 + RELIEF) / 9
BORDER_EXPANSION = 1 / 3.0

BASE_PROB: dict[str, float] = {
    "FOREST": 0.4, "MOUNTAIN": 0.15, "FRUIT": 0.5, "CROPS": 0.5,
    "ANIMAL": 0.5, "FISH": 0.5, "WHALES": 0.4, "ORE": 0.5,
}
"""Base probability of each terrain feature or resource."""

_MULT_COLUMNS = ("FOREST", "MOUNTAIN", "FRUIT", "CROPS", "ANIMAL", "FISH", "WHALES", "ORE")
_MULT_ROWS: dict[str, tuple[float, ...]] = {
    #            forest mount fruit crops animal fish whales ore
    "XIN_XI":   (1.0,  1.5,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0),
    "IMPERIUS": (1.0,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0),
    "BARDUR":   (1.0,  1.0,  1.5,  0.1,  2.0,  1.0,  1.0,  1.0),
    "OUMAJI":   (0.1,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0),
    "KICKOO":   (1.0,  0.5,  1.0,  1.0,  1.0,  1.5,  1.0,  1.0),
    "HOODRICK": (1.5,  0.5,  1.0,  1.0,  1.0,  1.0,  1.0,  1.0),
    "LUXIDOOR": (1.0,  1.0,  2.0,  1.0,  0.5,  1.0,  1.0,  1.0),
    "VENGIR":   (1.0,  1.0,  0.1,  1.0,  0.1,  0.1,  1.0,  2.0),
    "ZEBASI":   (0.5,  0.5,  0.5,  1.0,  1.0,  1.0,  1.0,  1.0),
    "AI_MO":    (1.0,  1.5,  1.0,  0.1,  1.0,  1.0,  1.0,  1.0),
    "QUETZALI": (1.0,  1.0,  2.0,  0.1,  1.0,  1.0,  1.0,  0.1),
    "YADAKK":   (0.5,  0.5,  1.5,  1.0,  1.0,  1.0,  1.0,  1.0),
}
TRIBE_MULT: dict[str, tuple[float, ...]] = {
    f: tuple(_MULT_ROWS[name][i] for name in TRIBE_NAMES) for i, f in enumerate(_MULT_COLUMNS)
}
"""Feature -> multiplier per tribe key, applied on tiles under that tribe's influence."""

IMPERIUS = 1
BARDUR = 2

_PLAIN, _SHALLOW, _DEEP, _MOUNTAIN, _VILLAGE, _CITY, _FOREST = ".sdmvcf"


def default_size(n_tribes: int) -> int:
    """The reference map size for a number of tribes (2..8)."""
    try:
        return DEFAULT_SIZE[n_tribes]
    except KeyError:
        raise ValueError(f"no default map size for {n_tribes} tribes (supported: 2..8)") from None


def _ring(center: int, radius: int, n: int) -> list[int]:
    """Tiles at Chebyshev distance ``radius`` from ``center``, in the reference's order.

    The order (part of the top row, part of the bottom row walking back, then the left
    and right columns) decides which neighbour a random index picks. ``center`` may be
    negative: the ruin-dispersion bug passes a small value, not a tile, and the reference
    splits it into row and column with truncating division.
    """
    row = int(center / n) if center < 0 else center // n
    col = center - row * n
    out: list[int] = []
    i = row - radius
    if 0 <= i < n:
        out.extend(i * n + j for j in range(col - radius, col + radius) if 0 <= j < n)
    i = row + radius
    if 0 <= i < n:
        out.extend(i * n + j for j in range(col + radius, col - radius, -1) if 0 <= j < n)
    j = col - radius
    if 0 <= j < n:
        out.extend(i * n + j for i in range(row + radius, row - radius, -1) if 0 <= i < n)
    j = col + radius
    if 0 <= j < n:
        out.extend(i * n + j for i in range(row - radius, row + radius) if 0 <= i < n)
    return out


def _cross(center: int, n: int) -> list[int]:
    """The 4-neighbours in the order left, right, up, down."""
    row, col = divmod(center, n)
    out = []
    if col > 0:
        out.append(center - 1)
    if col < n - 1:
        out.append(center + 1)
    if row > 0:
        out.append(center - n)
    if row < n - 1:
        out.append(center + n)
    return out


class _IntHashMapOrder:
    """Iteration order of a Java ``HashMap<Integer, ?>`` after inserting keys in order.

    Small non-negative Integer keys hash to themselves, so a bucket is ``key mod
    capacity`` and the map iterates buckets in index order, each along its node chain.
    Chains keep insertion order, except that a chain reaching 9 nodes either doubles the
    table (while it is smaller than 64) or becomes a red-black tree whose root is moved
    to the front of the chain. The capacity starts at 16 and doubles past 3/4 load.
    Trees only occur on boards larger than any default size, but are modelled so the
    order stays exact there too.
    """

    __slots__ = ("cap", "size", "bins", "trees")

    def __init__(self) -> None:
        self.cap = 16
        self.size = 0
        self.bins: dict[int, list[int]] = {}  # bucket -> chain order
        self.trees: dict[int, dict[int, list]] = {}  # bucket -> node -> [left, right, parent, red]

    def put(self, key: int) -> None:
        b = key & (self.cap - 1)
        chain = self.bins.setdefault(b, [])
        if key in chain:
            return
        tree = self.trees.get(b)
        if tree is not None:
            parent = self._bst_insert(tree, self._root(tree), key)
            chain.insert(chain.index(parent) + 1, key)
            self._front(chain, self._balance(tree, key))
        else:
            chain.append(key)
            if len(chain) >= 9:
                if self.cap < 64:
                    self._resize()
                else:
                    self.trees[b] = self._treeify(chain)
        self.size += 1
        if self.size > self.cap * 3 // 4:
            self._resize()

    def order(self) -> list[int]:
        return [k for b in sorted(self.bins) for k in self.bins[b]]

    # --- internals -------------------------------------------------------------------
    def _resize(self) -> None:
        old, cap = self.cap, self.cap * 2
        bins: dict[int, list[int]] = {}
        trees: dict[int, dict[int, list]] = {}
        for b, chain in self.bins.items():
            lo = [k for k in chain if not k & old]
            hi = [k for k in chain if k & old]
            for idx, part, other in ((b, lo, hi), (b + old, hi, lo)):
                if not part:
                    continue
                bins[idx] = part
                if b in self.trees and len(part) > 6:
                    # a tree split in two is rebuilt; an unsplit one is kept as it is
                    trees[idx] = self._treeify(part) if other else self.trees[b]
        self.cap, self.bins, self.trees = cap, bins, trees

    @staticmethod
    def _root(tree: dict[int, list]) -> int:
        return next(k for k, node in tree.items() if node[2] is None)

    @staticmethod
    def _bst_insert(tree: dict[int, list], root: int, key: int) -> int:
        p = root
        while True:
            side = 0 if key < p else 1
            nxt = tree[p][side]
            if nxt is None:
                tree[p][side] = key
                tree[key] = [None, None, p, True]
                return p
            p = nxt

    def _treeify(self, chain: list[int]) -> dict[int, list]:
        tree: dict[int, list] = {chain[0]: [None, None, None, False]}
        root = chain[0]
        for k in chain[1:]:
            self._bst_insert(tree, root, k)
            root = self._balance(tree, k)
        self._front(chain, root)
        return tree

    @staticmethod
    def _front(chain: list[int], root: int) -> None:
        if chain[0] != root:
            chain.remove(root)
            chain.insert(0, root)

    @staticmethod
    def _rotate(tree: dict[int, list], p: int, side: int) -> None:
        """Move ``p`` down to become its child's ``side`` child (0: rotate left, 1: right)."""
        other = 1 - side
        c = tree[p][other]
        inner = tree[c][side]
        tree[p][other] = inner
        if inner is not None:
            tree[inner][2] = p
        pp = tree[p][2]
        tree[c][2] = pp
        if pp is None:
            tree[c][3] = False
        elif tree[pp][0] == p:
            tree[pp][0] = c
        else:
            tree[pp][1] = c
        tree[c][side] = p
        tree[p][2] = c

    def _balance(self, tree: dict[int, list], x: int) -> int:
        """Red-black fix-up after inserting ``x``; returns the root."""
        while True:
            xp = tree[x][2]
            if xp is None:
                tree[x][3] = False
                return x
            xpp = tree[xp][2]
            if not tree[xp][3] or xpp is None:
                return self._root(tree)
            side = 0 if tree[xpp][0] == xp else 1  # which child of the grandparent
            uncle = tree[xpp][1 - side]
            if uncle is not None and tree[uncle][3]:
                tree[uncle][3] = tree[xp][3] = False
                tree[xpp][3] = True
                x = xpp
                continue
            if tree[xp][1 - side] == x:
                self._rotate(tree, xp, side)
                x = xp
                xp = tree[x][2]
                xpp = tree[xp][2]
            tree[xp][3] = False
            tree[xpp][3] = True
            self._rotate(tree, xpp, 1 - side)


def _hashmap_order(keys: list[int]) -> list[int]:
    """The order in which a Java HashMap filled with ``keys`` (in order) iterates them."""
    m = _IntHashMapOrder()
    for k in keys:
        m.put(k)
    return m.order()


def _random_int(rng: JavaRandom, lo: int, hi: int) -> int:
    """``floor(lo + nextDouble() * (hi - lo))``: the generator's way to draw an index."""
    return int(lo + rng.next_double() * (hi - lo))  # operand is >= 0, so int() == floor


# One function on purpose (the reference generator's steps in its order: every random draw
# must come in the same sequence to give the same maps): exempt from the size checks.
def generate_level(  # noqa: C901 (see above)
    seed: int,
    tribes: Iterable[str | int] = ("XIN_XI", "IMPERIUS"),
    size: int | None = None,
) -> Level:
    """The reference map for a level seed and tribes (names or keys, in config order).

    ``size`` defaults to the reference size for the number of tribes (2 -> 11, ...).
    The same arguments always give the same ``Level``.
    """
    keys = [tribe_key(t) for t in tribes]
    if not keys:
        raise ValueError("at least one tribe is needed")
    if len(set(keys)) != len(keys):
        raise ValueError(f"tribes must be distinct, got {[TRIBE_NAMES[k] for k in keys]}")
    n = default_size(len(keys)) if size is None else int(size)
    if n < 5:
        raise ValueError(f"map size {n} is too small (capitals need rows/columns 2..N-3)")
    nn = n * n
    rng = JavaRandom(seed)
    rand_int = _random_int

    terrain = [_DEEP] * nn
    resource = [""] * nn
    spaced: set[int] = set()

    # 1-2. random land seeds: count up to ceil(N^2 * initial land); repeats still draw
    turned = 0
    while turned < nn * INITIAL_LAND:
        k = rand_int(rng, 0, nn)
        if terrain[k] == _DEEP:
            terrain[k] = _PLAIN
            turned += 1

    # 3. smoothing; the set of tiles that ever qualified keeps growing (reference quirk)
    disks = [_ring(c, 1, n) + [c] for c in range(nn)]
    ground: set[int] = set()
    for _ in range(SMOOTHING):
        for c in range(nn):
            d = disks[c]
            water = sum(1 for t in d if terrain[t] == _DEEP)
            if water / len(d) <= LAND_COEFFICIENT:
                ground.add(c)
        terrain = [_PLAIN if c in ground else _DEEP for c in range(nn)]

    # 4. capitals: farthest (Chebyshev) from those already placed, ties by a random index
    inner = range(2, n - 2)
    cand = [r * n + c for r in inner for c in inner if terrain[r * n + c] == _PLAIN]
    cand = _hashmap_order(cand)
    capital_cells: list[int] = []
    for key in keys:
        values = []
        for k in cand:
            v = n
            kr, kc = divmod(k, n)
            for cap in capital_cells:
                cr, cc = divmod(cap, n)
                v = min(v, max(abs(kr - cr), abs(kc - cc)))
            values.append(v)
        best = max(values, default=0)
        at_best = [k for k, v in zip(cand, values) if v == best]
        pick = at_best[rand_int(rng, 0, len(at_best))] if at_best else None
        if pick is None or pick in capital_cells:
            raise ValueError(f"seed {seed}: the {n}x{n} map has no land tile left for the "
                             f"capital of {TRIBE_NAMES[key]}")
        capital_cells.append(pick)
    for cell in capital_cells:
        terrain[cell] = _CITY

    # 5. tribe influence: round-robin random growth from each capital
    rings1 = [_ring(c, 1, n) for c in range(nn)]
    owner: list[int | None] = [None] * nn
    done = [False] * nn
    for cell in capital_cells:
        done[cell] = True
    n_done = len(capital_cells)
    active = [[cell] for cell in capital_cells]
    while n_done != nn:
        for i, key in enumerate(keys):
            act = active[i]
            if not act:
                continue
            idx = rand_int(rng, 0, len(act))
            nbrs = rings1[act[idx]]
            valid = [t for t in nbrs if not done[t] and terrain[t] != _DEEP]
            if not valid:
                valid = [t for t in nbrs if not done[t]]
            if valid:
                t = valid[rand_int(rng, 0, len(valid))]
                owner[t] = key
                act.append(t)
                done[t] = True
                n_done += 1
            else:
                del act[idx]

    def prob(feature: str, tile: int) -> float:
        o = owner[tile]
        return BASE_PROB[feature] * (1.0 if o is None else TRIBE_MULT[feature][o])

    # 6. forest and mountains
    for c in range(nn):
        if terrain[c] == _PLAIN:
            r = rng.next_double()
            if r < prob("FOREST", c):
                terrain[c] = _FOREST
            elif r > 1 - prob("MOUNTAIN", c):
                terrain[c] = _MOUNTAIN

    # 7. village map: -1 deep water, mountain or board edge; 0 free
    vmap = [0] * nn
    for c in range(nn):
        row, col = divmod(c, n)
        if terrain[c] in (_DEEP, _MOUNTAIN) or row in (0, n - 1) or col in (0, n - 1):
            vmap[c] = -1

    # 8. the first land cross-neighbour of each deep tile erodes into shallow water (quirk)
    for c in range(nn):
        if terrain[c] == _DEEP:
            for t in _cross(c, n):
                if terrain[t] in (_PLAIN, _FOREST, _MOUNTAIN):
                    terrain[t] = _SHALLOW
                    break

    # 9. village sites: 3 at a site, >= 2 on its ring 1, >= 1 on its ring 2
    def mark(site: int) -> None:
        vmap[site] = 3
        for t in rings1[site]:
            if vmap[t] < 2:
                vmap[t] = 2
        for t in _ring(site, 2, n):
            if vmap[t] < 1:
                vmap[t] = 1

    for cell in capital_cells:
        mark(cell)
    start = 0
    while True:
        try:
            start = vmap.index(0, start)
        except ValueError:
            break
        mark(start)

    # 10. villages and resources; proc draws only within distance 2 of a site
    third = BORDER_EXPANSION

    def proc(tile: int, p: float) -> bool:
        v = vmap[tile]
        if v == 2:
            return rng.next_double() < p
        if v == 1:
            return rng.next_double() < p * third
        return False

    for c in range(nn):
        t = terrain[c]
        if t == _PLAIN:
            fruit = prob("FRUIT", c)
            crop = prob("CROPS", c)
            if vmap[c] == 3:
                terrain[c] = _VILLAGE
            elif proc(c, fruit * (1 - crop / 2)):
                resource[c] = "f"
            elif proc(c, crop * (1 - fruit / 2)):
                resource[c] = "c"
        elif t == _FOREST:
            if vmap[c] == 3:
                terrain[c] = _VILLAGE
                spaced.add(c)  # the reference writes this village's empty resource as ' '
            elif proc(c, prob("ANIMAL", c)):
                resource[c] = "a"
        elif t == _SHALLOW:
            if proc(c, prob("FISH", c)):
                resource[c] = "h"
        elif t == _DEEP:
            if proc(c, prob("WHALES", c)):
                resource[c] = "w"
        elif t == _MOUNTAIN:
            if proc(c, prob("ORE", c)):
                resource[c] = "o"

    # 11. ruins: round(N^2/40) placements, at most a third of them in deep water
    n_ruins = int(nn / 40.0 + 0.5)
    n_water_ruins = int(n_ruins / 3.0 + 0.5)
    placed = water_placed = 0
    while placed < n_ruins:
        cands = [c for c in range(nn) if -1 <= vmap[c] <= 1]
        if not any(terrain[c] != _SHALLOW and (water_placed < n_water_ruins
                                               or terrain[c] != _DEEP) for c in cands):
            raise ValueError(f"seed {seed}: no tile can take a ruin (the reference would loop)")
        ruin = cands[rand_int(rng, 0, len(cands))]
        t = terrain[ruin]
        if t != _SHALLOW and (water_placed < n_water_ruins or t != _DEEP):
            resource[ruin] = "r"
            spaced.discard(ruin)
            if t == _DEEP:
                water_placed += 1
            # the dispersion marking rings the ruin's map *value*, not the ruin (kept bug)
            for t2 in _ring(vmap[ruin], 1, n):
                if vmap[t2] < 2:
                    vmap[t2] = 2
            placed += 1

    # 12. tribe fix-ups around capitals, in capital placement order
    for cell, key in zip(capital_cells, keys):
        if key == IMPERIUS:
            _ensure_two(rng, terrain, resource, spaced, cell, _PLAIN, "f", n)
        elif key == BARDUR:
            _ensure_two(rng, terrain, resource, spaced, cell, _FOREST, "a", n)

    capitals = tuple(sorted(zip(capital_cells, keys)))
    return Level(n, tuple(terrain), tuple(resource), capitals, frozenset(spaced))


def _ensure_two(rng: JavaRandom, terrain: list[str], resource: list[str], spaced: set[int],
                capital: int, ter: str, res: str, n: int) -> None:
    """Force terrain+resource onto random neighbours until two neighbours hold ``res``."""
    ring = _ring(capital, 1, n)
    while sum(1 for t in ring if resource[t] == res) < 2:
        t = ring[_random_int(rng, 0, 8)]
        if terrain[t] == _CITY:
            raise ValueError(f"capitals on tiles {capital} and {t} are adjacent and the "
                             f"reference fix-up would overwrite one; no valid map")
        terrain[t] = ter
        resource[t] = res
        spaced.discard(t)
        for u in _cross(t, n):
            if terrain[u] == _DEEP:
                terrain[u] = _SHALLOW
