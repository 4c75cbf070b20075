"""Portfolio scripts and portfolios: the domain knowledge Portfolio MCTS searches over.

* `script`: the game-neutral script protocol, the per-game registry and the per-state context
  (a game's plug-in registers its scripts, e.g. `games/tribes/scripts.py`);
* `portfolio`: portfolios as data (table, weights, layout) and the assignment generator.
"""

from agents.portfolio.portfolio import (
                                        ACTION,
                                        ACTOR,
                                        SCRIPT,
                                        VALUE,
                                        WEIGHT,
                                        Portfolio,
                                        actor_assignments,
                                        default_table,
                                        portfolio,
                                        produce_assignments,
)
from agents.portfolio.script import (
                                        DEFAULT_VALUE,
                                        ScriptContext,
                                        make_context,
                                        register_portfolio,
                                        register_script,
                                        register_wrapper,
                                        script,
                                        scripts_of,
)

__all__ = ["ACTION", "ACTOR", "SCRIPT", "VALUE", "WEIGHT", "Portfolio", "actor_assignments",
           "default_table", "portfolio", "produce_assignments", "DEFAULT_VALUE", "ScriptContext",
           "make_context", "register_script", "register_portfolio", "register_wrapper", "script",
           "scripts_of"]
