"""Tribes-specific knowledge for the game-neutral search agents: the difference heuristic and
the search hooks (root action groups, excluded random actions, turn identity). They are reached
through the registries in `agents.evaluation` and `agents.search` by the game name "tribes"."""
