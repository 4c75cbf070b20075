"""Fixed-seed games between search agents, reduced to a compact digest.

The digest of a game is the SHA-256 of its actions (their `repr`, one per line) with the number
of actions, the final round, the scores and the winner. `game_records.json` holds the digests
recorded before any speed work; `test_game_records.py` replays the games and compares, so a
change that alters any agent's choices, the engine's outcomes or the order in which random
numbers are drawn shows up as a different digest.

Regenerate (only when a change of games is intended):

    python -m tests.games.tribes.game_records > tests/games/tribes/data/game_records.json
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS
from play.specs import parse_agent_spec

RECORDS = Path(__file__).with_name("data") / "game_records.json"

GAMES = (
    # (name, level index in the paper set, game seed, rounds, budget, agent specs by seat)
    ("mcts-pmcts_pu", 0, 11, 5, 150, ("mcts", "pmcts_pu")),
    ("pmcts_pu-mcts_norollouts", 1, 12, 5, 150, ("pmcts_pu", "mcts:rollouts=false")),
    ("mcts_charged-rhea", 2, 13, 5, 150, ("mcts:charge_selection=true", "rhea")),
    ("pmcts_random-mcts_prioritized", 3, 14, 5, 150,
     ("pmcts_b:rollouts=random", "mcts:prioritize_root=true")),
    ("mcts-pmcts_pu_long", 4, 15, 12, 100, ("mcts", "pmcts_pu")),
    ("rule_based-osla", 5, 16, 25, 100, ("rule_based", "osla")),
)


def play(level: int, seed: int, rounds: int, budget: int, specs: tuple[str, ...]) -> dict:
    """One game's digest.

    Args:
        level: index into the paper level set.
        seed: the game's seed (the agents get seed + 100 * seat).
        rounds: the round limit.
        budget: forward-model calls per decision.
        specs: agent specs, one per seat.
    """
    state = get_game("tribes").new_state(PAPER_SEEDS[level], seed, max_rounds=rounds)
    agents = [parse_agent_spec(s, seed=seed + 100 * i, game="tribes", budget=budget)
              for i, s in enumerate(specs)]
    h = hashlib.sha256()
    n = 0
    while not state.is_terminal():
        a = agents[state.current_player].act(state)
        h.update(repr(a).encode())
        h.update(b"\n")
        state.apply(a)
        n += 1
    return {"actions": n, "sha256": h.hexdigest(), "tick": state.tick,
            "scores": [float(x) for x in state.scores()], "winner": state.winner()}


def record_all() -> dict[str, dict]:
    """The digests of every game in `GAMES`, by name."""
    return {name: play(level=lv, seed=sd, rounds=r, budget=b, specs=sp)
            for name, lv, sd, r, b, sp in GAMES}


if __name__ == "__main__":
    print(json.dumps(record_all(), indent=1))
