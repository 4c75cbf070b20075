"""What the tests add to the registries, in one place (no test module registers at import).

* the tiny test game Nim (`tests/games/nim.py`), known to the game registry as "nim": a
  plug-in module named once, exactly as a game of another package would be;
* the three-player test game Trio (`tests/games/trio.py`), a fixed game tree with one payoff
  per player, known as "trio";
* the multi-action test game Relay (`tests/games/relay.py`), whose best turn needs two
  actions in a given order, known as "relay";
* the genome mapping `test_mcts_style` of the evolution-run tests (a genome that changes how
  MCTS plays, so that runs are fast and still have something to evolve).
"""

from __future__ import annotations

import pytest

from games.registry import register_plugin
from qd.genome_games import register_mapping

register_plugin("nim", "tests.games.nim")
register_plugin("trio", "tests.games.trio")
register_plugin("relay", "tests.games.relay")


def _mcts_style(names, genome):
    """A genome that changes how the test agent plays (exploration and depth)."""
    return {"c": round(0.2 + 2.0 * float(genome[0]), 3), "horizon": 1 + int(4 * genome[1])}


register_mapping("*", "test_mcts_style", _mcts_style)


@pytest.fixture
def no_ray():
    """Shut down the Ray a test started (tests that run games on Ray)."""
    yield
    from play.ray_session import shutdown
    shutdown()
