"""The Tribolo portfolio scripts: six cheap move proposals, one per play-style.

Scripts follow `agents.portfolio.script`: `fn(ctx, actor, actions) -> (action, value) | None`.
Tribolo has one actor, the player to move, and one action type, ``JUMP`` (a move, the
destination cell); `actions` are the mover's legal moves. Scripts read the bitboards only
(never copy or apply a state: a forward-model call would count against the search budget)
and share what `TriboloContext` computes once per position: for every legal move its
destination bit and the cells it converts from each opponent.

Each value is a fixed, monotone normalisation of the script's own criterion, so the move a
script picks is also the one with the highest value it could report. Ties are broken at
random with the caller's generator. The scripts: MostCells (greedy), Mobility,
EdgesCorners (positional), BlockLeader, FollowAlly (the alliance against the leader) and
MultiLine; each docstring states what it picks and its value, and docs/tribolo.md has the
table.
"""

from __future__ import annotations

from agents.portfolio.script import (
    ScriptContext,
    ScriptTable,
    lazy,
    pick_max,
)
from games.tribolo.board import BIT, NEIGHBOURS, anchored_axes, flips, moves_of

GAME = "tribolo"
SCRIPTS = ScriptTable()
"""The game's portfolio scripts, in order (registered by its plug-in)."""
JUMP = "JUMP"
"""The one action type (`TriboloState.action_type_name`)."""

GAIN_HALF = 3.0
"""Cells converted for a value of 1/2 (MostCells, BlockLeader, FollowAlly): a good jump;
random players convert about 2 cells per move (median over games 2.0)."""
MOBILITY_HALF = 10.0
"""Own legal moves for a value of 1/2 (Mobility): about what a player has at its moves (the
median in the original's recorded games; 10.7 for random players)."""


class TriboloContext(ScriptContext):
    """Per-position facts for the Tribolo scripts, each computed on first use and shared.

    Args:
        state: the position (the mover is `state.to_move`).
        rng: the caller's generator, for ties.
    """

    def __init__(self, state, rng) -> None:
        super().__init__(state, rng)
        self.me = me = state.to_move
        self.o1, self.o2 = (me + 1) % 3, (me + 2) % 3
        self._for = None
        self._facts: list[tuple[int, int, int, int]] = []

    def facts(self, actions) -> list[tuple[int, int, int, int]]:
        """For each of `actions`, in their order: (destination bit, converted cells, how many
        of them were the next player's, how many the other's). Computed once per list.

        Args:
            actions: the mover's legal moves, as the scripts receive them.
        """
        if self._for is not actions:
            b = self.state.bb
            me, x1, x2 = b[self.me], b[self.o1], b[self.o2]
            out = []
            for a in actions:
                bit = BIT[a]
                f = flips(me, x1, x2, bit)
                out.append((bit, f, (x1 & f).bit_count(), (x2 & f).bit_count()))
            self._for, self._facts = actions, out
        return self._facts

    @lazy
    def leaders(self) -> tuple[bool, bool]:
        """Whether each opponent (the next player, the other) has the most cells among the
        two: both when they are level."""
        s = self.state.score
        s1, s2 = s[self.o1], s[self.o2]
        return s1 >= s2, s2 >= s1

    @lazy
    def anchors(self) -> tuple[tuple[int, ...], int]:
        """`board.anchored_axes` of the walls: anchored axes per cell, and the edge cells."""
        return anchored_axes(self.state.walls)




def _best(ctx: TriboloContext, actions, keys: list, floor=None):
    """The action with the largest key (random among ties) and that key; None when no key
    exceeds `floor`."""
    a, k = pick_max(ctx, actions, keys)
    if floor is not None and not k > floor:
        return None
    return a, k


@SCRIPTS.script("BlockLeader", JUMP)
def block_leader(ctx: TriboloContext, actor, actions):
    """The move taking the most cells, n, from the leading opponent (the opponent with the
    most cells; either when they are level), then the most cells in all; nothing when no
    move takes any; v = n / (n + 3)."""
    t1, t2 = ctx.leaders
    keys = [(n1 * t1 + n2 * t2, n1 + n2) for _, _, n1, n2 in ctx.facts(actions)]
    got = _best(ctx, actions, keys, (0, 1 << 30))
    if got is None:
        return None
    a, (n, _) = got
    return a, n / (n + GAIN_HALF)


@SCRIPTS.script("FollowAlly", JUMP)
def follow_ally(ctx: TriboloContext, actor, actions):
    """The alliance against the leader (the original AI's allied strategy, with the leader in
    place of blue): when one opponent has more cells than each of the two others, the mover
    and the third player are allies; the move taking the most cells, n, from the leader
    among those taking none from the ally; nothing when the mover leads or shares the lead,
    or when every move takes the ally's cells; v = n / (n + 3)."""
    s = ctx.state.score
    me, o1, o2 = s[ctx.me], s[ctx.o1], s[ctx.o2]
    if o1 > o2 and o1 > me:
        keys = [n1 if not n2 else 0 for _, _, n1, n2 in ctx.facts(actions)]
    elif o2 > o1 and o2 > me:
        keys = [n2 if not n1 else 0 for _, _, n1, n2 in ctx.facts(actions)]
    else:
        return None
    got = _best(ctx, actions, keys, 0)
    if got is None:
        return None
    a, n = got
    return a, n / (n + GAIN_HALF)


@SCRIPTS.script("EdgesCorners", JUMP)
def edges_corners(ctx: TriboloContext, actor, actions):
    """Positional: the destination anchored on the most axes, a (0-4: corners 4, the border
    3, cells against walls; a cell anchored on all 4 can never be taken back), then the most
    edge cells (anchored on 3 or 4 axes) converted, e; nothing when both are 0;
    v = (a + e / (e + 1)) / 5."""
    counts, edges = ctx.anchors
    keys = [(counts[bit.bit_length() - 1], (f & edges).bit_count())
            for bit, f, _, _ in ctx.facts(actions)]
    got = _best(ctx, actions, keys, (0, 0))
    if got is None:
        return None
    a, (n, e) = got
    return a, (n + e / (e + 1.0)) / 5.0


@SCRIPTS.script("MultiLine", JUMP)
def multi_line(ctx: TriboloContext, actor, actions):
    """The move firing the most lines, k (directions; every firing line converts the
    destination's neighbour in its direction), then the most cells; nothing when no move
    fires two; v = 1 - 1 / k."""
    keys = [((NEIGHBOURS[bit.bit_length() - 1] & f).bit_count(), n1 + n2)
            for bit, f, n1, n2 in ctx.facts(actions)]
    got = _best(ctx, actions, keys, (1, 1 << 30))
    if got is None:
        return None
    a, (k, _) = got
    return a, 1.0 - 1.0 / k


@SCRIPTS.script("Mobility", JUMP)
def mobility(ctx: TriboloContext, actor, actions):
    """The move after which the mover has the most legal moves, m, on the board as it then
    stands (whoever moves next); v = m / (m + 10)."""
    s = ctx.state
    b = s.bb
    me, x1, x2 = b[ctx.me], b[ctx.o1], b[ctx.o2]
    empty = s.empty
    m = [moves_of(me | f | bit, x1 & ~f, x2 & ~f, empty & ~bit).bit_count()
         for bit, f, _, _ in ctx.facts(actions)]
    a, best = pick_max(ctx, actions, m)
    return a, best / (best + MOBILITY_HALF)


@SCRIPTS.script("MostCells", JUMP)
def most_cells(ctx: TriboloContext, actor, actions):
    """Greedy: the move converting the most cells, c; v = c / (c + 3)."""
    c = [n1 + n2 for _, _, n1, n2 in ctx.facts(actions)]
    a, best = pick_max(ctx, actions, c)
    return a, best / (best + GAIN_HALF)


STYLES_LAYOUT = ("BlockLeader", "FollowAlly", "EdgesCorners", "MultiLine", "Mobility",
                 "MostCells")
"""Tribolo's default layout: the weights of all six scripts, in this order, form the genome."""
