"""Relay, a tiny test game with multi-action turns, where the best turn needs two actions in
a given order.

Two players alternate turns for `rounds` rounds (default 3). In a turn the mover may play
each of its actions once, in any order, and ends the turn with "pass":

* "arm" (kind PREPARE, actor 0): -1 point, and arms the next "fire" of the turn;
* "fire" (kind STRIKE, actor 0): +1 point, or +10 when "arm" came before it this turn;
* "jab", "poke" (kind STRIKE, actor 1) and "feint" (kind PREPARE, actor 1): +1 point each.

So the best turn plays "arm" before "fire" (12 points with the three others); a player that
only looks one action ahead never arms first (it costs a point): it fires unarmed and makes at
most 4. The player with more points at the end wins. There is no chance. The default
evaluator, "points", is the change in the points difference between the decision's state and
the leaf. Registered as "relay" by the tests' conftest.py.
"""

from __future__ import annotations

from games.api import BaseGame, IllegalAction, log_add, log_to_list

PREPARE, STRIKE, TURN = 0, 1, 2
ACTIONS = {"arm": (PREPARE, 0), "fire": (STRIKE, 0), "jab": (STRIKE, 1), "poke": (STRIKE, 1),
           "feint": (PREPARE, 1)}
"""Every action but the pass: name -> (kind, actor)."""

PASS = "pass"


class RelayState:
    game_name = "relay"
    num_players = 2
    multi_action_turns = True

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.points = [0, 0]
        self.current_player = 0
        self.tick = 0
        self.played: tuple[str, ...] = ()  # this turn's actions
        self.log = None

    def copy(self) -> "RelayState":
        c = RelayState.__new__(RelayState)
        c.__dict__.update(self.__dict__)
        c.points = self.points[:]
        return c

    def reseed(self, seed: int) -> None:
        """Relay has no random outcomes."""

    def is_terminal(self) -> bool:
        return self.tick >= self.rounds

    def legal_actions(self) -> list[str]:
        if self.is_terminal():
            return []
        return [a for a in ACTIONS if a not in self.played] + [PASS]

    def actions_by_actor(self):
        out: dict = {}
        for a in self.legal_actions():
            kind, actor = ACTIONS.get(a, (TURN, "turn"))
            out.setdefault(actor, {}).setdefault(kind, []).append(a)
        return out

    def ends_turn(self, action) -> bool:
        return action == PASS

    def apply(self, action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"relay: {action!r} is not legal (played {self.played})")
        p = self.current_player
        if action == PASS:
            self.played = ()
            self.current_player = 1 - p
            if p == 1:
                self.tick += 1
            return
        gain = {"arm": -1, "fire": 10 if "arm" in self.played else 1}.get(action, 1)
        self.points[p] += gain
        self.played = self.played + (action,)
        self.log = log_add(self.log, self.tick, p, "points", gain)

    def winner(self) -> int | None:
        if not self.is_terminal() or self.points[0] == self.points[1]:
            return None
        return 0 if self.points[0] > self.points[1] else 1

    def ranking(self) -> list[int]:
        return [0, 1] if self.points[0] >= self.points[1] else [1, 0]

    def scores(self) -> list[float]:
        return [float(x) for x in self.points]

    def summary(self, player: int) -> dict[str, float]:
        return {"score": float(self.points[player])}

    def player_name(self, player: int) -> str:
        return ("first", "second")[player]

    def events(self):
        return log_to_list(self.log)

    def action_type_name(self, action) -> str:
        return action.upper()

    def describe(self, action) -> str:
        return action

    def __str__(self) -> str:
        return f"points {self.points}; player {self.current_player}; played {self.played}"


class Relay(BaseGame):
    name = "relay"
    option_names = ("rounds",)

    def new_state(self, level, seed: int, **options) -> RelayState:
        self.check_options(options)
        return RelayState(int(options.get("rounds", 3)))

    def round_limit_options(self, rounds: int):
        return {"rounds": rounds}


class PointsDifference:
    """The change in (own points - opponent's points) from the decision's state to the leaf."""

    def evaluate(self, root, leaf, player: int) -> float:
        def diff(s):
            return s.points[player] - s.points[1 - player]
        return float(diff(leaf) - diff(root))


def register() -> None:
    from agents.evaluators import register_evaluator
    from games.registry import register_game
    register_game("relay", Relay)
    register_evaluator("relay", "points", PointsDifference, default=True)

