"""The conformance check on a spread of OpenSpiel games through the `openspiel:` family:
chance (dice, cards), imperfect information played with full states, one player, three or
more players' worth of bookkeeping, long games, draws. Each plays 3 random games under the
protocol's invariants, and every search agent decides in 3 of its positions."""

from __future__ import annotations

import pytest

from agents.conformance import check_agents
from games.conformance import check_game

pytest.importorskip("pyspiel")

GAMES = ["kuhn_poker", "leduc_poker", "pig(winscore=20)", "breakthrough(rows=5,columns=5)",
         "hex(board_size=5)", "othello", "dots_and_boxes", "nim", "liars_dice", "clobber",
         "checkers", "oware", "mancala", "backgammon", "blackjack", "2048", "tiny_hanabi",
         "chess", "go(board_size=7)", "dark_hex(board_size=3)", "phantom_ttt"]


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_game_conforms(game):
    name = f"openspiel:{game}"
    report = check_game(name, seeds=range(3))
    assert report.games == 3
    agents = check_agents(name, budget=25)
    assert {"random", "osla", "mc", "mcts", "rhea", "atree", "turn_rollout",
            "hillclimb"} <= set(agents.decisions)
    assert set(agents.refused) == {"pmcts", "pmcts_b", "pmcts_pu", "hps"}  # no scripts: refused
