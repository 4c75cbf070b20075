"""Playing games between agents: the loop every tool (CLI, tournaments, evolution) shares.

A game is described by a `GameSpec` (plain data: game name, level, seed, options and one agent
spec per player, each with its parameters, its forward-model budget among them) so that it
can be shipped to a Ray worker, logged, and replayed; playing it gives a `GameRecord` with
the result and the per-turn statistics log from which behaviour features are computed.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from agents.registry import accepts, make_agent_from
from games.api import GameState, ends_turn, results, totals
from games.registry import get_game


@dataclass(frozen=True)
class AgentSpec:
    """An agent as data: a registered name plus its parameters, and a label for tables."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    @staticmethod
    def of(name: str, label: str = "", **params: Any) -> "AgentSpec":
        return AgentSpec(name, tuple(sorted(params.items())), label or name)

    def build(self, seed: int, game: str | None = None):
        """The agent, seeded with `seed`, for `game` (given to agents that take one)."""
        return make_agent_from(self.name, {**dict(self.params), "seed": seed}, game)

    def display(self) -> str:
        return self.label or self.name

    def at_budget(self, budget: int | None, game: str | None = None) -> "AgentSpec":
        """This agent with `budget` forward-model calls per decision, when it takes a budget
        (the budget replaces one it names); itself when it takes none or `budget` is None.
        How a budget given for a whole table of agents (a tournament's `budget`, `--budget`)
        becomes each agent's parameter, once, where the config is read.

        Args:
            budget: forward-model calls per decision (checked by the caller).
            game: the game played (for agents registered for one game).
        """
        if budget is None or not accepts(self.name, "budget", game):
            return self
        params = {**dict(self.params), "budget": budget}
        return AgentSpec(self.name, tuple(sorted(params.items())), self.label)


@dataclass(frozen=True)
class GameSpec:
    game: str
    level: Any  # a level seed, a level file path, or a game-specific level object
    seed: int
    agents: tuple[AgentSpec, ...]  # one per player, in turn order
    agent_seeds: tuple[int, ...]
    options: tuple[tuple[str, Any], ...] = ()
    tag: Any = None  # caller's bookkeeping (e.g. pairing and repetition), returned in the record


@dataclass
class GameRecord:
    spec: GameSpec
    winner: int | None
    ranking: list[int]
    rounds: int
    summaries: list[dict[str, float]]  # per player, from state.summary()
    sides: list[str]  # what each player controlled (e.g. its tribe)
    events: list[tuple[int, int, str, float]] = field(repr=False)
    decisions: list[int] = field(default_factory=list)  # decisions asked of each player
    think_seconds: list[float] = field(default_factory=list)  # time spent in each agent
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of the process while it played the game
    results: list[float] = field(default_factory=list)  # each player's share of first place

    def result(self, player: int) -> float:
        """`player`'s share of first place (`games.api.results`); from the winner for a
        record written before records kept the shares."""
        own = getattr(self, "results", None)
        if own:
            return float(own[player])
        n = len(self.spec.agents)
        return 1.0 / n if self.winner is None else float(self.winner == player)

    def event_totals(self, player: int) -> dict[str, float]:
        return totals(self.events, player)

    def player_columns(self, p: int, prefix: str, digits: int = 3) -> dict[str, Any]:
        """One player's table columns: agent, side, seed, end figures, decisions, thinking
        time, and the totals of every counted event (`<prefix>n_<event>`)."""
        row: dict[str, Any] = {f"{prefix}agent": self.spec.agents[p].display(),
                               f"{prefix}side": self.sides[p], f"{prefix}seed": self.spec.agent_seeds[p]}
        for key, value in self.summaries[p].items():
            row[f"{prefix}{key}"] = value
        row[f"{prefix}decisions"] = self.decisions[p] if self.decisions else 0
        row[f"{prefix}think_s"] = round(self.think_seconds[p], digits) if self.think_seconds else 0.0
        snapshots = get_game(self.spec.game).snapshot_events
        for key, value in sorted(self.event_totals(p).items()):
            if key not in snapshots:
                row[f"{prefix}n_{key}"] = value
        return row


def play_game(state: GameState, agents: Sequence,
              on_turn_end: Callable[[GameState], None] | None = None,
              max_actions: int = 1_000_000, timing: list | None = None,
              on_action: Callable[[object], None] | None = None) -> GameState:
    """Let `agents[p]` choose for player p until the game ends (the state is mutated).

    A decision with a single legal action (e.g. a turn where only the pass is left) is taken
    without asking the agent, as in the reference game loop. `on_turn_end` sees the state
    after every action that ends a turn (`games.api.ends_turn`) and at the end. `timing`, if
    given, receives per player [decisions, seconds spent deciding]; `on_action` sees every
    action before it is applied.
    """
    n = 0
    clock = time.perf_counter
    while not state.is_terminal():
        actions = state.legal_actions()
        player = state.current_player
        if len(actions) == 1:
            action = actions[0]
        else:
            t0 = clock()
            action = agents[player].act(state)
            if timing is not None:
                timing[player][0] += 1
                timing[player][1] += clock() - t0
        turn_over = on_turn_end is not None and ends_turn(state, action)
        if on_action is not None:
            on_action(action)
        state.apply(action)
        n += 1
        if n >= max_actions:
            raise RuntimeError(f"game did not end within {max_actions} actions")
        if on_turn_end is not None and (turn_over or state.is_terminal()):
            on_turn_end(state)
    return state


_startup_frozen = False


def freeze_startup_objects() -> None:
    """Once per process, before its first game: move every object alive now (the modules,
    the registries, the configs; startup) to the collector's permanent generation
    (`gc.freeze`), so that the full collections games trigger do not walk them again and
    again. They live as long as the process anyway; nothing is collected that would have
    been, but for garbage left over from startup itself, which stays."""
    global _startup_frozen
    if not _startup_frozen:
        _startup_frozen = True
        gc.freeze()


def new_state(spec: GameSpec) -> GameState:
    return get_game(spec.game).new_state(spec.level, spec.seed, **dict(spec.options))


def run_game(spec: GameSpec, on_action: Callable[[object], None] | None = None) -> GameRecord:
    """Play one game from its spec (deterministic: same spec, same record).

    Args:
        spec: the game.
        on_action: sees every action before it is applied (e.g. to keep them, so that the
            game can be replayed position by position: `qd.versus`); it changes nothing.
    """
    freeze_startup_objects()
    t0 = time.perf_counter()
    c0 = time.process_time()
    state = new_state(spec)
    if len(spec.agents) != state.num_players:
        raise ValueError(f"agents: {len(spec.agents)} given for a {state.num_players}-player game")
    agents = [a.build(seed, spec.game) for a, seed in zip(spec.agents, spec.agent_seeds)]
    timing = [[0, 0.0] for _ in agents]
    play_game(state, agents, timing=timing, on_action=on_action)
    players = range(state.num_players)
    return GameRecord(
        spec=spec, winner=state.winner(), ranking=state.ranking(), results=results(state),
        rounds=state.tick, summaries=[state.summary(p) for p in players],
        sides=[state.player_name(p) for p in players], events=state.events(),
        decisions=[t[0] for t in timing], think_seconds=[t[1] for t in timing],
        seconds=time.perf_counter() - t0, cpu_seconds=time.process_time() - c0)
