"""A Tribolo position behind the `games.api.GameState` protocol.

Players are 0 blue, 1 red, 2 green, which is also the turn cycle. An action is the
destination cell ``(x, y)``. After every move (and at set-up) the player to move is the first
of the next player, the one after, and the mover itself who has a legal move; a player
without one is skipped (logged as a ``skipped`` event), and the game is over when nobody
has one. `current_player` is then -1. Every move logs the events the behaviour features read
(`events()`).

The state keeps the bitboards of the three players and the walls, the scores (cell counts,
kept incrementally as the original does), and the legal-move set of the player to move,
which finding that player required anyway; the list of actions is built from it on demand.
"""

from __future__ import annotations

from games.api import IllegalAction, group_by_player, log_add, log_to_list
from games.tribolo.board import (
    BIT,
    COORDS,
    FULL,
    HEIGHT,
    NEIGHBOURS,
    PLAYER_NAMES,
    WIDTH,
    anchored_axes,
    bit_index,
    cells_of,
    flips,
    jump_lines,
    moves_of,
)

NO_PLAYER = -1


class TriboloState:
    __slots__ = ("bb", "walls", "score", "to_move", "plies", "tick", "_moves", "_legal", "_log")

    game_name = "tribolo"
    num_players = 3
    multi_action_turns = False

    def __init__(self, bb: list[int], walls: int, first: int) -> None:
        """A start position: `bb` the cells of blue, red and green, `walls` the walls;
        `first` is the first candidate to move (the original's drawn player's successor)."""
        self.bb = list(bb)
        self.walls = walls
        self.score = [b.bit_count() for b in self.bb]
        self.plies = 0
        self.tick = 0
        self._legal: list | None = None
        self._log = None
        self.to_move = NO_PLAYER
        self._moves = 0
        self._find_mover((first + 2) % 3, log=False)

    # -- basics -----------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """The player to move; -1 once the game is over."""
        return self.to_move

    def copy(self) -> "TriboloState":
        c = TriboloState.__new__(TriboloState)
        c.bb = self.bb[:]
        c.score = self.score[:]
        c.walls = self.walls
        c.to_move = self.to_move
        c.plies = self.plies
        c.tick = self.tick
        c._moves = self._moves
        c._legal = self._legal  # shared, never mutated
        c._log = self._log  # persistent log: shared history
        return c

    def reseed(self, seed: int) -> None:
        """Tribolo has no random outcomes after the set-up."""

    def is_terminal(self) -> bool:
        return self.to_move < 0

    @property
    def empty(self) -> int:
        b = self.bb
        return FULL & ~(b[0] | b[1] | b[2] | self.walls)

    def moves_bits(self, player: int) -> int:
        """The destinations where `player` has a jump on this board, as a bit set
        (whoever is to move)."""
        if player == self.to_move:
            return self._moves
        b = self.bb
        return moves_of(b[player], b[(player + 1) % 3], b[(player + 2) % 3], self.empty)

    def legal_count(self, player: int) -> int:
        """Number of legal moves (distinct destinations) `player` has on this board."""
        return self.moves_bits(player).bit_count()

    def legal_moves_of(self, player: int) -> list[tuple[int, int]]:
        return cells_of(self.moves_bits(player))

    # -- actions ------------------------------------------------------------------------
    def legal_actions(self) -> list[tuple[int, int]]:
        """The destinations of the player to move in (x, y) order (a cached list shared
        with copies: do not modify it); empty once the game is over."""
        legal = self._legal
        if legal is None:
            legal = []
            m = self._moves
            while m:
                low = m & -m
                legal.append(COORDS[low.bit_length() - 1])
                m ^= low
            self._legal = legal
        return legal

    def actions_by_actor(self):
        return group_by_player(self)

    def _bit(self, action) -> int:
        try:
            bit = BIT[action]
        except (KeyError, TypeError):
            bit = 0
        if not bit & self._moves:
            if self.to_move < 0:
                raise IllegalAction(f"tribolo: {action!r}: the game is over")
            raise IllegalAction(f"tribolo: {action!r} is not a legal move of "
                                f"{PLAYER_NAMES[self.to_move]}")
        return bit

    def apply(self, action) -> None:
        bit = self._bit(action)
        p = self.to_move
        b = self.bb
        o1, o2 = (p + 1) % 3, (p + 2) % 3
        f = flips(b[p], b[o1], b[o2], bit)
        n1 = (b[o1] & f).bit_count()
        n2 = (b[o2] & f).bit_count()
        b[p] |= f | bit
        if n1:
            b[o1] &= ~f
        if n2:
            b[o2] &= ~f
        s = self.score
        tick = self.tick
        # the events, as `games.api.log_add` nodes built inline (apply is the hot path)
        log = (self._log, tick, p, "moves", 1)
        log = (log, tick, p, "converted", n1 + n2)
        log = (log, tick, p, "choices", self._moves.bit_count())
        s1, s2 = s[o1], s[o2]
        if (n1 and s1 >= s2) or (n2 and s2 >= s1):
            log = (log, tick, p, "leader_hit", 1)
        if n1 + n2 > 1 and (NEIGHBOURS[bit.bit_length() - 1] & f).bit_count() > 1:  # lines_fired
            log = (log, tick, p, "multi_line", 1)
        if bit & anchored_axes(self.walls)[1]:
            log = (log, tick, p, "edge", 1)
        self._log = log
        s[p] += n1 + n2 + 1
        s[o1] -= n1
        s[o2] -= n2
        self.plies += 1
        self.tick = self.plies // 3
        self._find_mover(p)

    def _find_mover(self, last: int, log: bool = True) -> None:
        """The player to move after `last`: the next, the one after, or `last` itself, the
        first with a legal move; nobody (game over) when none has one."""
        b = self.bb
        empty = FULL & ~(b[0] | b[1] | b[2] | self.walls)
        self._legal = None
        for k in (1, 2, 3):
            q = (last + k) % 3
            m = moves_of(b[q], b[(q + 1) % 3], b[(q + 2) % 3], empty) if empty else 0
            if m:
                self.to_move = q
                self._moves = m
                if log:
                    for j in range(1, k):  # the players passed over are skipped
                        self._log = log_add(self._log, self.tick, (last + j) % 3, "skipped", 1)
                return
        self.to_move = NO_PLAYER
        self._moves = 0

    # -- look-ahead helpers (for the AI) ------------------------------------------------------
    def move_gains(self) -> list[tuple[tuple[int, int], int, int, int]]:
        """For every legal move of the player to move: (move, change of blue's, red's and
        green's scores), without building the next states (the original's cheap last ply)."""
        p = self.to_move
        if p < 0:
            return []
        b = self.bb
        me, x1, x2 = b[p], b[(p + 1) % 3], b[(p + 2) % 3]
        out = []
        m = self._moves
        while m:
            low = m & -m
            m ^= low
            f = flips(me, x1, x2, low)
            d = [0, 0, 0]
            n1 = (x1 & f).bit_count()
            n2 = (x2 & f).bit_count()
            d[p] = n1 + n2 + 1
            d[(p + 1) % 3] = -n1
            d[(p + 2) % 3] = -n2
            out.append((COORDS[low.bit_length() - 1], d[0], d[1], d[2]))
        return out

    def jumps(self, action) -> list[tuple[int, list[tuple[int, int]]]]:
        """The lines `action` converts for the player to move: (opponent jumped over,
        converted cells from the destination outwards), in the original's scan order."""
        bit = self._bit(action)
        p = self.to_move
        b = self.bb
        o = ((p + 1) % 3, (p + 2) % 3)
        return [(o[which - 1], cells) for which, cells in jump_lines(b[p], b[o[0]], b[o[1]], bit)]

    # -- results --------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Cells owned by blue, red and green."""
        return [float(v) for v in self.score]

    def winner(self) -> int | None:
        """The single player with the most cells once the game is over; None while it runs
        and when two or three players share the most cells."""
        if self.to_move >= 0:
            return None
        s = self.score
        best = max(s)
        top = [p for p in range(3) if s[p] == best]
        return top[0] if len(top) == 1 else None

    def ranking(self) -> list[int]:
        """Players by cells, most first; equal scores in turn order (blue, red, green)."""
        s = self.score
        return sorted(range(3), key=lambda p: (-s[p], p))

    def results(self) -> list[float]:
        """Each player's share of first place: 1 for a single winner, 1/k to each of k
        players sharing the most cells, 0 for the others (meaningful once the game is
        over; the shares sum to 1)."""
        s = self.score
        best = max(s)
        top = [p for p in range(3) if s[p] == best]
        return [1.0 / len(top) if p in top else 0.0 for p in range(3)]

    def summary(self, player: int) -> dict[str, float]:
        t = {"moves": 0.0, "converted": 0.0, "skipped": 0.0}
        for _, p, name, value in log_to_list(self._log):
            if p == player:
                t[name] = t.get(name, 0.0) + value
        return {"score": float(self.score[player]), "share": self.score[player] / max(1, sum(self.score)),
                **t}

    def player_name(self, player: int) -> str:
        return PLAYER_NAMES[player]

    def events(self) -> list[tuple[int, int, str, float]]:
        """(round, player, event, value). Per move: ``moves`` (1), ``converted`` (cells taken
        from the opponents), ``choices`` (the mover's legal moves), and, only when true,
        ``leader_hit`` (1: it takes a cell from the opponent with the most cells before the
        move, or from either when they are level), ``multi_line`` (1: it fires two or more
        lines) and ``edge`` (1: its destination is an edge cell, anchored on 3 or 4 axes,
        `board.anchored_axes`). Per skipped turn: ``skipped``."""
        return log_to_list(self._log)

    def action_type_name(self, action) -> str:
        return "JUMP"

    def describe(self, action) -> str:
        try:
            lines = self.jumps(action)
        except IllegalAction:
            return f"{action}"
        x, y = action
        over = ", ".join(f"{len(c)} {PLAYER_NAMES[o]}" for o, c in lines)
        return f"({x},{y}) takes {over}"

    # -- views --------------------------------------------------------------------------
    def cell(self, x: int, y: int) -> str:
        i = 1 << bit_index(x, y)
        if self.walls & i:
            return "#"
        for p, letter in enumerate("BRG"):
            if self.bb[p] & i:
                return letter
        return "."

    def rows(self) -> list[str]:
        """The board as the vectors and level files write it: rows y = 0..10 of '.#BRG'."""
        return ["".join(self.cell(x, y) for x in range(WIDTH)) for y in range(HEIGHT)]

    def __str__(self) -> str:
        who = PLAYER_NAMES[self.to_move] if self.to_move >= 0 else "nobody (over)"
        return "\n".join(self.rows()) + f"\nto move: {who}; scores {self.score}"

    def __repr__(self) -> str:
        return f"<TriboloState ply={self.plies} to_move={self.to_move} scores={self.score}>"
