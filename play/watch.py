"""Watching play-styles: play a shown (and optionally recorded) game, or replay a record.

These are the functions behind `playstyles play` and `playstyles replay`: a designer watches
a style turn by turn in the terminal, plays against it, or renders board images.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Callable

from agents.human import GameAbandoned
from base.files import claim_folder
from games.api import ends_turn, results
from games.recording import load_record, make_record, replay, save_record
from games.registry import get_game
from play.runner import play_game
from play.specs import parse_agent_spec

DEFAULT_PLAYER = "random"
"""The agent of a seat that no spec names (the command line's --p2 when not given)."""


def play_shown(game_name: str, level: Any, seed: int, options: dict[str, Any],
               players: list[str], watch: bool = False, ascii_only: bool = False,
               record: str | Path | None = None, say: Callable[[str], None] = print,
               delay: float = 0.0):
    """Play one game between agents given as `name[:k=v,...]` specs; show the final board
    (or every round with `watch`), and write a replayable record if asked.

    A game the human abandons (`quit`, Ctrl-D or Ctrl-C at the prompt; Ctrl-C at any time)
    ends cleanly: it says "game abandoned", the record (if asked) holds the actions played,
    and the unfinished state is returned (`is_terminal()` tells the two ends apart).

    Args:
        game_name: the registered game.
        level: a level as the game takes it (Tribes: a seed or a CSV file); None: the first
            level of the game's default level set.
        seed: the game seed; agents are seeded from it.
        options: game options.
        players: one agent spec per player; with fewer specs than players, the last one
            plays the remaining players too (each with its own agent and seed). None names
            no agent: `DEFAULT_PLAYER` takes the seat, and a game with fewer players (a
            one-player game) drops it.
        watch: show the board after every round, not only at the end.
        ascii_only: ASCII symbols only.
        record: write a replayable record there.
        say: where the text goes.
        delay: seconds to wait after each board shown while watching, but the last (the
            game's pace).
    """
    if delay < 0:
        raise ValueError(f"delay: must be >= 0 seconds, got {delay}")
    game = get_game(game_name)
    if level is None:
        level = game.level_set(game.default_levels)[0]
    level = game.level(level, **options)
    state = game.new_state(level, seed, **options)
    players = list(players)
    while len(players) > state.num_players and players[-1] is None:
        players.pop()  # a seat nobody named, which this game does not have
    players = [DEFAULT_PLAYER if p is None else p for p in players]
    if players and len(players) < state.num_players:  # e.g. two agents given, three players
        extra = [state.player_name(p) for p in range(len(players), state.num_players)]
        say(f"{', '.join(extra)}: {players[-1]} (the last agent given plays the other players)")
        players += [players[-1]] * (state.num_players - len(players))
    agents = [parse_agent_spec(spec, seed=seed * 2 + 1 + i, game=game_name)
              for i, spec in enumerate(players)]
    if len(agents) != state.num_players:
        raise ValueError(f"players: {len(agents)} agents for a {state.num_players}-player level")
    actions: list = []
    shown_round = [state.tick]
    humans = [p for p, spec in enumerate(players) if spec.partition(":")[0].strip() == "human"]

    def show(s) -> str:
        """Everything, unless a human plays: then what that human sees."""
        if humans:
            return game.render_view(s, humans[0], ascii_only=ascii_only)
        return game.render(s, ascii_only=ascii_only)

    def on_turn_end(s) -> None:
        if watch and (s.tick != shown_round[0] or s.is_terminal()):
            shown_round[0] = s.tick
            say("")
            say(show(s))
            if delay and not s.is_terminal():
                time.sleep(delay)

    abandoned = None
    try:
        if watch:
            say(show(state))
            if delay:
                time.sleep(delay)
        play_game(state, agents, on_turn_end=on_turn_end, on_action=actions.append)
    except GameAbandoned as e:
        abandoned = str(e)
    except KeyboardInterrupt:
        abandoned = "Ctrl-C"
    if abandoned is not None:
        say("")
        say(f"game abandoned in round {state.tick} ({abandoned}); scores {state.scores()}")
    else:
        if not watch:
            say(game.render(state, ascii_only=ascii_only))  # over: everything may be shown
        say("")
        w = state.winner()
        if state.num_players == 1:  # no one to beat: the figures are the result
            figures = ", ".join(f"{k} {v:g}" for k, v in state.summary(0).items())
            say(f"game over after {state.tick} rounds: {figures}")
        elif w is not None:
            say(f"winner: player {w} ({players[w]}, {state.player_name(w)}) after {state.tick} "
                f"rounds; scores {state.scores()}")
        else:  # a draw, or first place shared
            shares = results(state)
            top = [p for p, x in enumerate(shares) if x == max(shares)]
            say("no single winner: first place shared by " + ", ".join(
                f"player {p} ({players[p]}, {state.player_name(p)})" for p in top)
                + f" after {state.tick} rounds; scores {state.scores()}")
    if record is not None:
        save_record(make_record(game_name, game.level_text(level), seed, options, players,
                                [game.action_to_data(a) for a in actions]), record)
        say(f"record written to {record} ({len(actions)} actions"
            f"{'; the game was abandoned' if abandoned is not None else ''})")
    return state


FRAMES = "frame_[0-9][0-9][0-9][0-9][0-9]*.png"
"""The board images `replay --images` writes (`frame_00000.png`, ...)."""


def _frames_only(folder: Path) -> bool:
    """A folder of board images written by `replay_shown` before folders had markers."""
    return all(re.fullmatch(r"frame_\d{5}\.png", p.name) for p in folder.iterdir())


def replay_shown(path: str | Path, every: str = "turn", ascii_only: bool = False,
                 images: str | Path | None = None, say: Callable[[str], None] = print,
                 force: bool = False) -> int:
    """Show a recorded game after every turn (or every action), and/or write one board image
    per turn into `images` (and say how many, and where). Returns the number of actions
    replayed.

    `images` must be a new or empty directory, or hold the images of an earlier replay (then
    `force` overwrites them); any other non-empty directory is refused before anything is
    written (`base.files.claim_folder`)."""
    record = load_record(path)
    game = get_game(record["game"])
    if every not in ("turn", "action"):
        raise ValueError(f"every: 'turn' or 'action', got {every!r}")
    image_dir = Path(images) if images is not None else None
    if image_dir is not None:
        claim_folder(image_dir, command="replay --images", force=force, ours=_frames_only,
                     writes=(FRAMES,))
    n = 0
    images_written = 0
    turn_start = True  # the yielded state is the start of a turn: show it
    for state, action in replay(record, source=str(path)):
        if turn_start or every == "action" or action is None:
            say(game.render(state, ascii_only=ascii_only))
            say("")
            if image_dir is not None and (turn_start or action is None):
                game.render_image(state, image_dir / f"frame_{n:05d}.png")
                images_written += 1
        if action is None:
            break
        if every == "action":
            say(f"[{n}] round {state.tick}, player {state.current_player}: {state.describe(action)}")
        turn_start = ends_turn(state, action)
        n += 1
    if image_dir is not None:
        say(f"{images_written} board images written to {image_dir}/")
    return n
