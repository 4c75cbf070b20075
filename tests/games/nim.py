"""Nim, the tiny test game: everything a game plug-in brings, in one file.

Two players take turns removing one or more stones from one heap; whoever takes the last
stone wins. A level is a set-up seed: level L starts with 3 heaps of 1-5 stones drawn from
L. The file shows each part of the plug-in API once: the state and the game
(`games.api`), a heuristic evaluator, portfolio scripts with a layout, a rule-based
player, two behaviour features with their words, and the registration (`register` at the
bottom, which the tests' conftest.py names as the plug-in module of "nim").
"""

from __future__ import annotations

import random

import numpy as np

from games.api import BaseGame, IllegalAction, group_by_player, log_add, log_to_list

HEAPS, MAX_STONES = 3, 5


class NimState:
    game_name = "nim"
    num_players = 2

    def __init__(self, heaps: list[int]) -> None:
        self.heaps = heaps
        self.current_player = 0
        self.tick = 0
        self.moves = 0
        self.last_mover: int | None = None
        self.log = None

    def copy(self) -> "NimState":
        c = NimState.__new__(NimState)
        c.__dict__.update(self.__dict__)
        c.heaps = self.heaps[:]
        return c

    def reseed(self, seed: int) -> None:
        """Nim has no random outcomes."""

    def is_terminal(self) -> bool:
        return not any(self.heaps)

    def legal_actions(self) -> list[tuple[int, int]]:
        if self.is_terminal():
            return []
        return [(h, k) for h, n in enumerate(self.heaps) for k in range(1, n + 1)]

    def actions_by_actor(self):
        return group_by_player(self)

    def apply(self, action) -> None:
        if not (isinstance(action, tuple) and len(action) == 2
                and action in self.legal_actions()):
            raise IllegalAction(f"nim: {action!r} is not legal with heaps {self.heaps}")
        h, k = action
        p = self.current_player
        self.heaps[h] -= k
        self.log = log_add(self.log, self.tick, p, "stones", k)
        self.log = log_add(self.log, self.tick, p, "moves", 1)
        self.last_mover = p
        self.moves += 1
        self.current_player = 1 - p
        self.tick = self.moves // 2

    def winner(self) -> int | None:
        return self.last_mover if self.is_terminal() else None

    def ranking(self) -> list[int]:
        w = self.winner()
        return [w, 1 - w] if w is not None else [0, 1]

    def scores(self) -> list[float]:
        w = self.winner()
        return [float(w == p) for p in range(2)] if w is not None else [0.0, 0.0]

    def summary(self, player: int) -> dict[str, float]:
        return {"score": self.scores()[player], "stones_left": float(sum(self.heaps))}

    def player_name(self, player: int) -> str:
        return ("first", "second")[player]

    def events(self):
        return log_to_list(self.log)

    def action_type_name(self, action) -> str:
        return "TAKE"

    def describe(self, action) -> str:
        return f"take {action[1]} from heap {action[0]}"

    def __str__(self) -> str:
        return "heaps " + " ".join(map(str, self.heaps)) + f"; player {self.current_player}"


class Nim(BaseGame):
    name = "nim"

    def new_state(self, level, seed: int, **options) -> NimState:
        self.check_options(options)
        rng = random.Random(int(level))
        return NimState([rng.randint(1, MAX_STONES) for _ in range(HEAPS)])


# ------------------------------------------------------------------------------ knowledge

def nim_sum(heaps) -> int:
    x = 0
    for n in heaps:
        x ^= n
    return x


def winning_move(heaps) -> tuple[int, int] | None:
    """The move that leaves a nim-sum of 0, if there is one."""
    x = nim_sum(heaps)
    for h, n in enumerate(heaps):
        if x and n ^ x < n:
            return (h, n - (n ^ x))
    return None


class NimSumHeuristic:
    """1 for the player who would leave the opponent a zero nim-sum, else 0 (relative)."""

    def evaluate(self, root, leaf, player: int) -> float:
        if leaf.is_terminal():
            return 0.0
        mover_wins = nim_sum(leaf.heaps) != 0
        return 1.0 if mover_wins == (leaf.current_player == player) else -1.0


class NimPlayer:
    """The rule-based player: the nim-sum move when there is one, else one stone."""

    name = "rule_based"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, state):
        move = winning_move(state.heaps)
        if move is not None:
            return move
        acts = [a for a in state.legal_actions() if a[1] == 1]
        return acts[int(self.rng.integers(len(acts)))]

    def params(self) -> dict:
        return {"seed": self.seed}


def take_one(ctx, actor, actions):
    """One stone from the largest heap."""
    best = max(actions, key=lambda a: (ctx.state.heaps[a[0]], -a[1]))
    h = best[0]
    return (h, 1), 0.3


def take_all(ctx, actor, actions):
    """The whole largest heap."""
    h = max(range(HEAPS), key=lambda i: ctx.state.heaps[i])
    return (h, ctx.state.heaps[h]), 0.6


def nim_sum_script(ctx, actor, actions):
    """The winning move, when there is one."""
    move = winning_move(ctx.state.heaps)
    return (move, 1.0) if move is not None else None


def stones_per_move(g) -> float:
    """Feature: stones taken per move (a `qd.features.PlayerGame` from the player's side)."""
    return g.count("stones") / max(1.0, g.count("moves"))


def moves(g) -> float:
    """Feature: moves made in the game."""
    return g.count("moves")


def register() -> None:
    from agents.evaluators import register_evaluator
    from agents.portfolio.script import register_layout, register_portfolio, register_script
    from agents.registry import register_agent
    from games.registry import register_game
    from qd.features import register_feature

    register_game("nim", Nim)
    register_evaluator("nim", "nim_sum", NimSumHeuristic)
    register_agent("nim", "rule_based", NimPlayer)
    register_portfolio("nim", type_order=("TAKE",), action_kinds={"TAKE": 0})
    for name, fn in (("TakeOne", take_one), ("TakeAll", take_all), ("NimSum", nim_sum_script)):
        register_script("nim", name, "TAKE", fn)
    register_layout("nim", "paper", ("TakeOne", "TakeAll", "NimSum"))
    register_feature("nim", "stones_per_move", 1, 5, 1, "stones taken per move",
                     words=("careful", "measured", "greedy"))(stones_per_move)
    register_feature("nim", "moves", 0, 10, 2, "moves made per game",
                     words=("few moves", "some moves", "many moves"))(moves)

