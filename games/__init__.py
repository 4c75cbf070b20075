"""Games behind one forward-model protocol, and games by name.

The public surface: the protocol (`GameState`, `Game`, `BaseGame`, `IllegalAction` and the
helpers `ends_turn`, `is_pass`, `results`, `outcome`, `group_by_player`), the registry (`get_game`,
`game_names`, `register_game`, `register_family`, `register_plugin`), level sets (`level_set`,
`split`) and the conformance check (`check_game`); `games.new_game` writes the starter
package of a new game (`playstyles new-game`). Each game is a plug-in package below this
one (`games/tribes/`, `games/openspiel/`, `games/tribolo/`), imported by the registry on first use.
"""

import base.compiled  # noqa: F401  (first: it picks compiled or source modules)
from games.api import (
    BaseGame,
    Game,
    GameState,
    IllegalAction,
    ends_turn,
    group_by_player,
    is_pass,
    outcome,
    results,
)
from games.levels import level_set, split
from games.registry import game_names, get_game, register_family, register_game, register_plugin


def check_game(*args, **kwargs):
    """`games.conformance.check_game` (imported on first use)."""
    from games.conformance import check_game as check
    return check(*args, **kwargs)


__all__ = ["BaseGame", "Game", "GameState", "IllegalAction", "check_game", "ends_turn",
           "game_names", "get_game", "group_by_player", "is_pass", "level_set", "outcome",
           "register_family", "register_game", "register_plugin", "results", "split"]
