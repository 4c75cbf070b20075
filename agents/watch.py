"""Watching play-styles: play a shown (and optionally recorded) game, or replay a record.

These are the functions behind `playstyles play` and `playstyles replay`: a designer watches
a style turn by turn in the terminal, plays against it, or renders board images.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from agents.runner import play_game
from agents.specs import parse_agent_spec
from games.api import ends_turn
from games.recording import load_record, make_record, replay, save_record
from games.registry import get_game


def play_shown(game_name: str, level: Any, seed: int, options: dict[str, Any],
               players: list[str], watch: bool = False, ascii_only: bool = False,
               record: str | Path | None = None, say: Callable[[str], None] = print):
    """Play one game between agents given as `name[:k=v,...]` specs; show the final board
    (or every round with `watch`), and write a replayable record if asked.

    Args:
        game_name: the registered game.
        level: a level as the game takes it (Tribes: a seed or a CSV file); None: the first
            level of the game's default level set.
        seed: the game seed; agents are seeded from it.
        options: game options.
        players: one agent spec per player.
        watch: show the board after every round, not only at the end.
        ascii_only: ASCII symbols only.
        record: write a replayable record there.
        say: where the text goes.
    """
    game = get_game(game_name)
    if level is None:
        level = game.level_set(game.default_levels)[0]
    level = game.level(level, **options)
    state = game.new_state(level, seed, **options)
    agents = [parse_agent_spec(spec, seed=seed * 2 + 1 + i, game=game_name)
              for i, spec in enumerate(players)]
    if len(agents) != state.num_players:
        raise ValueError(f"players: {len(agents)} agents for a {state.num_players}-player level")
    actions: list = []
    shown_round = [state.tick]
    if watch:
        say(game.render(state, ascii_only=ascii_only))

    def on_turn_end(s) -> None:
        if watch and (s.tick != shown_round[0] or s.is_terminal()):
            shown_round[0] = s.tick
            say("")
            say(game.render(s, ascii_only=ascii_only))

    play_game(state, agents, on_turn_end=on_turn_end, on_action=actions.append)
    if not watch:
        say(game.render(state, ascii_only=ascii_only))
    ranking = state.ranking()
    say("")
    say(f"winner: player {ranking[0]} ({players[ranking[0]]}, {state.player_name(ranking[0])}) "
        f"after {state.tick} rounds; scores {state.scores()}")
    if record is not None:
        save_record(make_record(game_name, game.level_text(level), seed, options, players,
                                [game.action_to_data(a) for a in actions]), record)
        say(f"record written to {record} ({len(actions)} actions)")
    return state


def replay_shown(path: str | Path, every: str = "turn", ascii_only: bool = False,
                 images: str | Path | None = None, say: Callable[[str], None] = print) -> int:
    """Show a recorded game after every turn (or every action), and/or write one board image
    per turn into `images`. Returns the number of actions replayed."""
    record = load_record(path)
    game = get_game(record["game"])
    if every not in ("turn", "action"):
        raise ValueError(f"every: 'turn' or 'action', got {every!r}")
    image_dir = Path(images) if images is not None else None
    if image_dir is not None:
        image_dir.mkdir(parents=True, exist_ok=True)
    n = 0
    turn_start = True  # the yielded state is the start of a turn: show it
    for state, action in replay(record, source=str(path)):
        if turn_start or every == "action" or action is None:
            say(game.render(state, ascii_only=ascii_only))
            say("")
            if image_dir is not None and (turn_start or action is None):
                game.render_image(state, image_dir / f"frame_{n:05d}.png")
        if action is None:
            break
        if every == "action":
            say(f"[{n}] round {state.tick}, player {state.current_player}: {state.describe(action)}")
        turn_start = ends_turn(state, action)
        n += 1
    return n
