"""Playing whole games between agents: everything above a single decision.

`play.runner` (game specs and records, one game from its spec), `play.game_pool` (games as Ray
tasks), `play.ray_session` (starting or joining Ray), `play.shipping` (the code the workers
get), `play.watchdog` (the local Ray's watchdog process), `play.journal` (the finished games a
command keeps as they arrive),
`play.tournament` and `play.ladder` (round robins, ratings, difficulty ladders),
`play.presets` (agents as data for a game), `play.specs` (agent specs as text, parsed at the
edge), `play.selfplay` and `play.train_evaluator` (positions from self-play, a learned
evaluator trained on them) and `play.watch` (a game shown on the terminal).

This package sits above `agents` and `games` and below `qd`: the agents know nothing of whole
games, tournaments or files.
"""
