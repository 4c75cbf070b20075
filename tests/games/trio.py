"""Trio, a tiny three-player test game: a fixed game tree with one payoff per player.

A state is a node of the tree. Players move in turn 0, 1, 2, 0, ... by depth: player 0
chooses at the root, player 1 below it, and so on. A leaf is a tuple of payoffs, one per
player; nobody wins (the game has no single winner), so its evaluator `payoff` (each
player's own payoff at a leaf, 0 elsewhere) is the whole result. Level L is the tree
`TREES[L]`.

Tree 0 is the case where the two opponents' interests differ: after player 0's move "A",
player 1 prefers "x" (3 points rather than 1), which also gives player 0 its best payoff
(6), while "y" would suit player 2 (9) and leave player 0 nothing. After "B" player 0 gets
3 whatever happens. Each player maximising its own payoff (max^n), "A" is worth 6 to player
0 and "B" 3; treating both opponents as one adversary (paranoid), "A" is worth 0 and "B" 3.
"""

from __future__ import annotations

from games.api import BaseGame, IllegalAction, group_by_player

TREES = (
    {"A": {"x": (6, 3, 1), "y": (0, 1, 9)},
     "B": {"x": (3, 3, 3), "y": (4, 2, 4)}},
)


class TrioState:
    game_name = "trio"
    num_players = 3

    def __init__(self, tree) -> None:
        self.node = tree
        self.depth = 0
        self.tick = 0

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal() else self.depth % 3

    def copy(self) -> "TrioState":
        c = TrioState.__new__(TrioState)
        c.__dict__.update(self.__dict__)
        return c

    def reseed(self, seed: int) -> None:
        """Trio has no random outcomes."""

    def is_terminal(self) -> bool:
        return isinstance(self.node, tuple)

    def legal_actions(self) -> list[str]:
        return [] if self.is_terminal() else sorted(self.node)

    def actions_by_actor(self):
        return group_by_player(self)

    def apply(self, action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"trio: {action!r} is not legal here")
        self.node = self.node[action]
        self.depth += 1
        self.tick = self.depth // 3

    def winner(self) -> int | None:
        return None

    def scores(self) -> list[float]:
        return [float(v) for v in self.node] if self.is_terminal() else [0.0] * 3

    def ranking(self) -> list[int]:
        s = self.scores()
        return sorted(range(3), key=lambda p: -s[p])

    def summary(self, player: int) -> dict[str, float]:
        return {"score": self.scores()[player]}

    def player_name(self, player: int) -> str:
        return str(player)

    def events(self):
        return []

    def action_type_name(self, action) -> str:
        return "CHOOSE"

    def describe(self, action) -> str:
        return f"choose {action}"


class Payoff:
    """A player's own payoff at a leaf, 0 before the end."""

    def evaluate(self, root, leaf, player: int) -> float:
        return float(leaf.node[player]) if leaf.is_terminal() else 0.0


class Trio(BaseGame):
    name = "trio"
    default_levels = "range:0-0"

    def new_state(self, level, seed: int, **options) -> TrioState:
        self.check_options(options)
        return TrioState(TREES[int(level)])


def register() -> None:
    from agents.evaluators import register_evaluator
    from games.registry import register_game

    register_game("trio", Trio)
    register_evaluator("trio", "payoff", Payoff, default=True)

