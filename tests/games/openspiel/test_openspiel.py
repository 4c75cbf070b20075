"""The OpenSpiel plug-in: any turn-based pyspiel game through the `games.api` protocol."""

from __future__ import annotations

import pickle
import random
import sys

import pytest

pytest.importorskip("pyspiel")

from games.api import GameState, IllegalAction, ends_turn, is_pass, outcome
from games.openspiel.game import OpenSpielGame, OpenSpielState
from games.registry import get_game

DRAW = [0, 1, 2, 4, 3, 5, 7, 6, 8]   # X O X / X O O / O X X
X_WINS = [0, 3, 1, 4, 2]              # X takes the top row


def play_random(state, rng: random.Random, limit: int = 10_000) -> list[int]:
    moves = []
    while not state.is_terminal() and len(moves) < limit:
        legal = state.legal_actions()
        assert legal, "a running game has legal actions"
        a = rng.choice(legal)
        state.apply(a)
        moves.append(a)
    return moves


def history(state: OpenSpielState) -> list[int]:
    """Every action of the game so far, chance outcomes included."""
    return list(state.spiel_state.history())


def test_random_tic_tac_toe_games_play_to_the_end():
    game = get_game("openspiel:tic_tac_toe")
    assert game.name == "openspiel:tic_tac_toe"
    assert get_game("openspiel:tic_tac_toe") is game
    rng = random.Random(1)
    for seed in range(30):
        s = game.new_state(0, seed)
        assert isinstance(s, GameState)
        assert s.game_name == "openspiel:tic_tac_toe" and s.num_players == 2
        assert s.tick == 0 and s.current_player == 0 and not s.multi_action_turns
        moves = play_random(s, rng)
        assert s.is_terminal() and 5 <= len(moves) <= 9
        assert s.legal_actions() == []
        assert s.tick == len(moves) // 2
        assert sorted(s.ranking()) == [0, 1]
        assert s.scores() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
        w = s.winner()
        assert w == (None if s.scores() == [0.0, 0.0] else s.ranking()[0])
        ev = s.events()
        assert len(ev) == len(moves) and all(e[2] == "moves" and e[3] == 1 for e in ev)
        assert [e[1] for e in ev] == [i % 2 for i in range(len(moves))]
        assert [e[0] for e in ev] == [i // 2 for i in range(len(moves))]
        assert s.summary(0)["moves"] + s.summary(1)["moves"] == len(moves)


def test_protocol_helpers_and_text():
    game = get_game("openspiel:tic_tac_toe")
    s = game.new_state(3, 0)
    assert ends_turn(s, 4) and not is_pass(s, 4)
    assert s.action_type_name(4) == "MOVE"
    assert s.describe(4) == "x(1,1)"
    assert s.actions_by_actor() == {0: {0: list(range(9))}}
    assert s.player_name(1) == "player 1"
    assert game.render(s) == str(s) == str(s.spiel_state)
    assert game.render(s, ascii_only=True) == str(s)
    assert game.action_from_data(game.action_to_data(4)) == 4
    assert game.option_names == () and game.default_levels == "range:0-9"
    with pytest.raises(ValueError, match="unknown game option"):
        game.new_state(0, 0, size=3)


def test_copy_is_independent():
    s = get_game("openspiel:connect_four").new_state(0, 7)
    for a in (3, 3, 2):
        s.apply(a)
    text, legal, tick, ev = str(s), list(s.legal_actions()), s.tick, s.events()
    c = s.copy()
    assert str(c) == text and c.legal_actions() == legal and c.tick == tick
    play_random(c, random.Random(0))
    assert c.is_terminal()
    assert str(s) == text and s.legal_actions() == legal and s.tick == tick
    assert s.events() == ev and not s.is_terminal() and s.current_player == 1
    s.apply(0)                            # the original still plays on
    assert str(s) != text


@pytest.mark.parametrize("name", ["openspiel:kuhn_poker", "openspiel:pig(winscore=20)"])
def test_same_seed_same_chance_outcomes(name):
    game = get_game(name)
    assert game.spiel_game.get_type().chance_mode.name == "EXPLICIT_STOCHASTIC"

    def run(seed):
        s = game.new_state(0, seed)
        play_random(s, random.Random(99))
        return history(s), s.scores()

    runs = {seed: run(seed) for seed in range(8)}
    assert all(run(seed) == runs[seed] for seed in range(8))
    assert len({tuple(h) for h, _ in runs.values()}) > 1   # the seed matters


def test_initial_chance_nodes_are_resolved():
    s = get_game("openspiel:kuhn_poker").new_state(0, 5)
    assert not s.spiel_state.is_chance_node() and s.current_player == 0
    assert len(history(s)) == 2           # both cards dealt
    assert s.tick == 0 and s.events() == []


def test_copies_keep_and_reseed_replaces_the_generator():
    game = get_game("openspiel:pig(winscore=20)")
    s = game.new_state(0, 11)
    a, b = s.copy(), s.copy()
    for st in (a, b):
        play_random(st, random.Random(3))
    assert history(a) == history(b)
    outcomes = set()
    for seed in range(10):
        c = s.copy()
        c.reseed(seed)
        play_random(c, random.Random(3))
        outcomes.add(tuple(history(c)))
    assert len(outcomes) > 1


def test_illegal_action_raises_and_leaves_the_state():
    s = get_game("openspiel:tic_tac_toe").new_state(0, 0)
    s.apply(DRAW[0])
    text = str(s)
    for bad in (DRAW[0], 9, -1, "1", None, 1.5):
        with pytest.raises(IllegalAction, match="8 legal actions"):
            s.apply(bad)
    assert str(s) == text and s.current_player == 1 and len(s.events()) == 1
    for a in DRAW[1:]:
        s.apply(a)
    assert s.is_terminal()
    with pytest.raises(IllegalAction, match="is over"):
        s.apply(0)


def test_draw_and_win():
    game = get_game("openspiel:tic_tac_toe")
    s = game.new_state(0, 0)
    for i, a in enumerate(DRAW):
        assert s.winner() is None
        assert s.current_player == i % 2
        s.apply(a)
    assert s.is_terminal() and s.winner() is None
    assert s.scores() == [0.0, 0.0] and s.ranking() == [0, 1]
    assert outcome(s, 0) == outcome(s, 1) == 0.5
    assert s.tick == 4 and s.summary(0) == {"score": 0.0, "moves": 5.0}

    s = game.new_state(0, 0)
    for a in X_WINS:
        s.apply(a)
    assert s.is_terminal() and s.winner() == 0 and s.ranking() == [0, 1]
    assert outcome(s, 0) == 1.0 and outcome(s, 1) == 0.0
    assert s.summary(1) == {"score": -1.0, "moves": 2.0}


def test_parameters_and_pickling():
    game = get_game("openspiel:breakthrough(rows=6,columns=6)")
    assert game.name == "openspiel:breakthrough(rows=6,columns=6)"
    s = game.new_state(0, 0)
    assert s.game_name == game.name and str(s).count("\n") >= 6
    play_random(s, random.Random(0), limit=5)
    g2 = pickle.loads(pickle.dumps(game))
    assert g2.name == game.name
    s2 = pickle.loads(pickle.dumps(s))
    assert str(s2) == str(s) and s2.tick == s.tick and s2.events() == s.events()


def test_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown OpenSpiel game 'tic_tak_toe'.*tic_tac_toe"):
        get_game("openspiel:tic_tak_toe")
    with pytest.raises(ValueError, match="unknown OpenSpiel game 'no_such_game'"):
        OpenSpielGame("no_such_game")
    with pytest.raises(ValueError, match="cannot load"):
        get_game("openspiel:breakthrough(rowz=6)")
    with pytest.raises(ValueError, match="game name expected"):
        get_game("openspiel:")


@pytest.mark.parametrize("name", ["matrix_rps", "goofspiel"])
def test_simultaneous_games_are_refused(name):
    with pytest.raises(ValueError, match="simultaneous-move game.*turn_based_simultaneous_game"):
        get_game(f"openspiel:{name}")


def test_mean_field_games_are_refused():
    with pytest.raises(ValueError, match="mean-field game"):
        get_game("openspiel:mfg_garnet")


def test_turn_based_wrapper_of_a_simultaneous_game_plays():
    s = get_game("openspiel:turn_based_simultaneous_game(game=matrix_rps())").new_state(0, 0)
    play_random(s, random.Random(0))
    assert s.is_terminal() and s.tick == 1


def test_missing_pyspiel_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(ValueError, match=r'openspiel extra: pip install -e "\.\[openspiel\]"'):
        OpenSpielGame("tic_tac_toe")
