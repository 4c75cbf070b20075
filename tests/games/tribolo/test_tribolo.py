"""Tribolo: the rules replayed against every public conformance vector (recorded by running
the original implementation), the digest's worked examples, the protocol's conformance
check, levels, rendering, human play, and the original AI's strategy choice and root values.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.conformance import CountingState, check_agents
from agents.registry import make_agent
from base.limits import MAX_BUDGET
from games.conformance import check_game
from games.registry import get_game
from games.tribolo.ai import TriboloAI, select_strategy
from games.tribolo.board import HEIGHT, PLAYER_NAMES, WIDTH
from games.tribolo.game import state_from_level
from games.tribolo.level import TriboloLevel, generate_level, parse_level
from play.watch import play_shown

DATA = Path(__file__).resolve().parent / "data"
PLAYER = {n: i for i, n in enumerate(PLAYER_NAMES)}


def _vectors() -> list[dict]:
    with gzip.open(DATA / "tribolo-vectors.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]


VECTORS = _vectors()


def _start(v: dict):
    """The state of a vector's state object (the first candidate is its player to move)."""
    return state_from_level(TriboloLevel(tuple(v["board"]), PLAYER[v["to_move"]]))


def _disagreements(s, v: dict) -> list[str]:
    out = []
    if s.rows() != v["board"]:
        out.append("board")
    if s.score != [v["scores"][n] for n in PLAYER_NAMES]:
        out.append(f"scores {s.score}")
    to_move = PLAYER_NAMES[s.current_player] if s.current_player >= 0 else None
    if to_move != v["to_move"]:
        out.append(f"to_move {to_move}")
    if [list(a) for a in s.legal_actions()] != v["legal_moves"]:
        out.append("legal_moves")
    if [s.legal_count(p) for p in range(3)] != [v["legal_counts"][n] for n in PLAYER_NAMES]:
        out.append("legal_counts")
    return out


def _embedded(fragment: list[str], first: int = 0):
    """A digest fragment in the top-left corner of an otherwise empty board."""
    rows = [r.ljust(WIDTH, ".") for r in fragment] + ["." * WIDTH] * (HEIGHT - len(fragment))
    return state_from_level(TriboloLevel(tuple(rows), first))


# ------------------------------------------------------------------------------ rules

def test_every_public_vector_replays_without_disagreement():
    assert len(VECTORS) == 11
    moves = 0
    problems = []
    for g in VECTORS:
        s = _start(g["initial"])
        problems += [(g["seed"], "initial", d) for d in _disagreements(s, g["initial"])]
        for m in g["moves"]:
            move = tuple(m["move"])
            if PLAYER_NAMES[s.current_player] != m["player"]:
                problems.append((g["seed"], m["ply"], "player"))
            want = sorted((PLAYER[j["over"]], [tuple(c) for c in j["cells"]]) for j in m["jumps"])
            if sorted(s.jumps(move)) != want:
                problems.append((g["seed"], m["ply"], "jumps"))
            s.apply(move)
            moves += 1
            problems += [(g["seed"], m["ply"], d) for d in _disagreements(s, m["after"])]
        assert s.is_terminal()
        assert s.score == [g["final_scores"][n] for n in PLAYER_NAMES]
        top = [PLAYER_NAMES[p] for p in range(3) if s.results()[p] > 0]
        assert sorted(top) == sorted(g["top_scorers"])
    assert not problems, problems[:10]
    assert moves == sum(len(g["moves"]) for g in VECTORS) > 1000


def test_the_digest_examples():
    ex = json.loads((DATA / "examples.json").read_text())
    for e in ex["examples"]:
        s = _embedded(e["board_fragment"], PLAYER[e["player"]])
        for name, moves in e["legal"].items():
            assert s.legal_moves_of(PLAYER[name]) == [tuple(m) for m in moves], (e["name"], name)
        move = tuple(e["move"])
        if not e["is_legal"]:
            assert move not in s.legal_moves_of(PLAYER[e["player"]]), e["name"]
            continue
        assert s.current_player == PLAYER[e["player"]], e["name"]
        before = list(s.score)
        assert sorted(s.jumps(move)) == sorted((PLAYER[j["over"]], [tuple(c) for c in j["cells"]])
                                               for j in e["jumps"]), e["name"]
        s.apply(move)
        assert s.rows()[:len(e["after"])] == [r.ljust(WIDTH, ".") for r in e["after"]], e["name"]
        delta = [s.score[p] - before[p] for p in range(3)]
        assert delta == [e["score_delta"][n] for n in PLAYER_NAMES], e["name"]


def test_skip_then_the_end_with_a_tie():
    """Digest example (f): red has no cell left and is skipped; then nobody can move, blue and
    green share first place."""
    steps = json.loads((DATA / "examples.json").read_text())["pass_and_end"]
    s = _embedded(steps[0]["board"], PLAYER[steps[0]["to_move"]])
    assert s.legal_actions() == [tuple(m) for m in steps[0]["legal"]]
    for step in steps[1:]:
        assert PLAYER_NAMES[s.current_player] == step["played_by"]
        s.apply(tuple(step["move"]))
        assert s.rows()[:4] == [r.ljust(WIDTH, ".") for r in step["board"]]
        to_move = PLAYER_NAMES[s.current_player] if s.current_player >= 0 else None
        assert to_move == step["to_move"]
    assert s.is_terminal() and s.legal_actions() == []
    assert s.score == [3, 0, 3]
    assert s.winner() is None
    assert s.ranking() == [0, 2, 1]  # equal scores in turn order
    assert s.results() == [0.5, 0.0, 0.5]
    assert [e for e in s.events() if e[2] == "skipped"] == [(0, 1, "skipped", 1)]


def test_invariants_over_random_games():
    game = get_game("tribolo")
    rng = np.random.default_rng(0)
    for level in range(8):
        s = game.new_state(level, 0)
        walls = s.walls
        assert s.score == [12, 12, 12] and walls.bit_count() == 12
        plies = 0
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
            plies += 1
            assert sum(s.score) == 36 + plies
            assert s.score == [b.bit_count() for b in s.bb]
            assert s.walls == walls
        assert plies <= 128
        assert s.winner() is None or s.winner() == s.ranking()[0]
        assert sum(s.results()) == pytest.approx(1.0)


def test_conformance():
    report = check_game("tribolo", seeds=range(6))
    assert report.games == 6 and report.actions > 6 * 100
    assert report.draws + sum(report.wins.values()) == 6


def test_every_agent_plays_it_and_spends_its_budget_exactly():
    report = check_agents("tribolo", budget=25)
    for name in ("random", "osla", "mc", "mcts", "rhea", "atree", "tribolo_ai", "tribolo_maxn"):
        assert report.decisions.get(name) == 3, (name, report)


def test_illegal_moves_are_refused_with_the_player_named():
    s = get_game("tribolo").new_state(1, 0)
    occupied = next((x, y) for x in range(WIDTH) for y in range(HEIGHT) if s.cell(x, y) != ".")
    for bad in (occupied, (99, 0), "a1", [0, 0]):
        with pytest.raises(ValueError, match=f"not a legal move of {PLAYER_NAMES[s.current_player]}"):
            s.apply(bad)


# ------------------------------------------------------------------------------ levels

def test_seeded_set_up():
    a, b = generate_level(7), generate_level(7)
    assert a == b and generate_level(8) != a
    text = "".join(a.rows)
    assert [text.count(c) for c in "BRG#."] == [12, 12, 12, 12, 128]
    firsts = {generate_level(k).first for k in range(30)}
    assert firsts == {0, 1, 2}
    s = get_game("tribolo").new_state(7, 0)
    assert s.rows() == list(a.rows)


def test_level_files_round_trip_and_bad_files_name_the_line(tmp_path):
    game = get_game("tribolo")
    level = game.level(3)
    path = tmp_path / "l.txt"
    path.write_text("; a level\n" + game.level_text(level))
    assert game.level(str(path)) == level
    assert game.level_from_text(game.level_text(level)) == level
    rows = list(level.rows)
    bad = {
        "first: pink\n" + "\n".join(rows): "line 1: first: unknown player 'pink'",
        "size: 3\n" + "\n".join(rows): "line 1: unknown field 'size'",
        "\n".join(rows[:10]): "11 board rows of 16 cells expected, got 10",
        "\n".join(rows[:4] + [rows[4][:15]] + rows[5:]): r"line 5 \(row y=4\): 16 cells expected, got 15",
        "\n".join(rows[:2] + ["x" + rows[2][1:]] + rows[3:]): r"line 3 \(row y=2\): unknown cell 'x' at x=0",
        "\n".join(rows) + "\n" + rows[0]: "line 12: more than 11 board rows",
    }
    for text, message in bad.items():
        with pytest.raises(ValueError, match=message):
            parse_level(text, source="bad.txt")
    with pytest.raises(ValueError, match="neither a level seed"):
        game.level(str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="unknown game option 'mode'"):
        game.new_state(0, 0, mode="score")


# ------------------------------------------------------------------------------ showing and playing

def test_text_and_image_rendering(tmp_path):
    game = get_game("tribolo")
    s = game.new_state(2, 0)
    text = game.render(s, ascii_only=True)
    legal = s.legal_actions()
    board = text.splitlines()[1:1 + HEIGHT]
    assert sum(row.count("*") for row in board) == len(legal) and text.isascii()
    assert f"{PLAYER_NAMES[s.current_player]} to move ({len(legal)} moves" in text
    assert "blue (B) 12, red (R) 12, green (G) 12" in game.render(s)
    game.render_image(s, tmp_path / "b.png")
    assert (tmp_path / "b.png").stat().st_size > 1000


def test_human_play_against_two_agents(monkeypatch):
    """The human is blue, random red; the last agent given plays green too."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 200))
    out: list[str] = []
    s = play_shown("tribolo", 4, 0, {}, ["human", "random"], say=out.append)
    assert s.is_terminal()
    assert out[0] == "green: random (the last agent given plays the other players)"
    assert out[-1].startswith("winner: player" if s.winner() is not None
                              else "no single winner: first place shared by")


# ------------------------------------------------------------------------------ the original AI

AI_MOVES = [(g, i) for g in VECTORS for i, m in enumerate(g["moves"]) if "ai" in m]


def _before(g: dict, i: int):
    return _start(g["moves"][i - 1]["after"] if i else g["initial"])


def test_the_ai_reproduces_every_strategy_choice_and_root_value():
    assert len(AI_MOVES) == 84
    strategies = set()
    for g, i in AI_MOVES:
        rec = g["moves"][i]["ai"]
        s = _before(g, i)
        ai = TriboloAI(seed=i)
        strategy, values = ai.analyse(s)
        strategies.add(strategy)
        assert strategy == rec["strategy"], (g["seed"], i)
        assert values == {tuple(m): v for m, v in rec["root_values"]}, (g["seed"], i)
        assert values[ai.act(s)] == rec["best_value"]
    assert strategies == {"ally_ai_scores", "own_score_late", "own_choices", "own_score"}


def test_the_ai_counts_every_state_it_builds():
    g, i = AI_MOVES[5]
    s = _before(g, i)
    c = CountingState(s.copy())
    ai = make_agent("tribolo_ai", game="tribolo")
    ai.act(c)
    expected = 0
    for m in s.legal_actions():  # one call per root move and per move below it (depth 1)
        child = s.copy()
        child.apply(m)
        expected += 1 + len(child.legal_actions())
    assert c.counter.n == ai.last_budget.used == expected
    small = TriboloAI(budget=expected // 2)
    assert small.act(s) in s.legal_actions()
    assert small.last_budget.used <= expected // 2
    assert 0 < len(small.last_values) < len(s.legal_actions())


def test_paranoid_alpha_beta_finds_the_same_best_value_with_fewer_calls():
    calls = {"minimax": 0, "paranoid": 0}
    for depth in (1, 2):
        for g, i in AI_MOVES[::25]:
            s = _before(g, i)
            best = {}
            for search in calls:
                ai = TriboloAI(seed=1, depth=depth, search=search)
                _, values = ai.analyse(s)
                best[search] = max(values.values())
                chosen = ai.act(s)
                assert values[chosen] == best[search]
                calls[search] += ai.last_budget.used
            assert best["paranoid"] == best["minimax"], (g["seed"], i, depth)
    assert calls["paranoid"] < calls["minimax"], calls


def test_strategy_selection_thresholds():
    s = get_game("tribolo").new_state(0, 0)
    s.score = [10, 10, 10]  # both others below 1.1 x blue (strictly)
    assert select_strategy(s).name == "ally_ai_scores"
    s.score = [10, 11, 10]
    assert select_strategy(s).name != "ally_ai_scores"
    assert select_strategy(s, against=None).name in ("own_choices", "own_score")
    s.score = [40, 70, 47]  # 176 - 157 = 19 < 20
    assert select_strategy(s).name == "own_score_late"
    s.score = [40, 70, 46]
    few = s.legal_count(s.current_player) < 5
    assert select_strategy(s).name == ("own_choices" if few else "own_score")


def test_paranoid_plays_the_same_game_as_minimax():
    """Same seed, same set of best moves, same choice: a whole game is identical, and the
    alpha-beta searches built fewer states."""
    from play.runner import play_game
    games = {}
    for search in ("minimax", "paranoid"):
        ai = TriboloAI(seed=3, search=search)
        used = [0]
        real_act = ai.act

        def act(state, real_act=real_act, ai=ai, used=used):
            a = real_act(state)
            used[0] += ai.last_budget.used
            return a

        ai.act = act
        agents = [make_agent("random", seed=1), ai, make_agent("random", seed=2)]
        actions: list = []
        play_game(get_game("tribolo").new_state(5, 0), agents, on_action=actions.append)
        games[search] = (actions, used[0])
    assert games["paranoid"][0] == games["minimax"][0]
    assert games["paranoid"][1] < games["minimax"][1]


def test_bad_ai_parameters_fail_before_anything_runs():
    from agents.registry import validate_agent
    for params, message in (({"search": "alphabeta"}, "search: one of minimax, paranoid"),
                            ({"against": "pink"}, "against: one of blue, red, green, none"),
                            ({"depth": -1}, "depth: a whole number >= 0"),
                            ({"iterative": "yes"}, "iterative: expected true or false"),
                            ({"iterative": True}, "depth: iterative deepening without a budget"),
                            ({"budget": 0}, "budget: must be a whole number")):
        with pytest.raises(ValueError, match=message):
            validate_agent("tribolo_ai", params, "tribolo")
        with pytest.raises(ValueError, match=message):
            make_agent("tribolo_ai", game="tribolo", **params)
    assert make_agent("tribolo_ai", game="tribolo", against="none").params()["against"] == "none"


def test_iterative_deepening_to_depth_1_is_the_fixed_depth_search():
    for g, i in AI_MOVES[::12]:
        s = _before(g, i)
        for search in ("minimax", "paranoid"):
            fixed = TriboloAI(seed=i, search=search)
            deepened = TriboloAI(seed=i, search=search, iterative=True, depth=1)
            assert deepened.analyse(s) == fixed.analyse(s), (g["seed"], i, search)
            assert deepened.last_budget.used == fixed.last_budget.used
            assert deepened.last_depth == fixed.last_depth == 1
            assert deepened.act(s) == fixed.act(s)


def test_iterative_deepening_never_overspends_and_goes_deeper_with_more_budget():
    s = _before(*AI_MOVES[10])
    for search in ("minimax", "paranoid"):
        depths = []
        for budget in (5, 100, 1000, 12000):
            ai = TriboloAI(seed=0, budget=budget, search=search, iterative=True)
            c = CountingState(s.copy())
            assert ai.act(c) in s.legal_actions()
            assert c.counter.n == ai.last_budget.used <= budget
            depths.append(ai.last_depth)
            if ai.last_depth >= 1:  # the values are those of a full search at that depth
                full = TriboloAI(seed=0, depth=ai.last_depth, search=search)
                _, values = full.analyse(s)
                best = max(values.values()) if ai._maximizing else min(values.values())
                assert {m for m, v in ai.last_values.items() if v == best} \
                    == {m for m, v in values.items() if v == best}
                if search == "minimax":
                    assert ai.last_values == values
        assert depths == sorted(depths) and depths[0] == -1 and depths[-1] >= 3, depths
        assert depths[1] >= 1 and depths[-1] > depths[1], depths


def test_iterative_deepening_stops_where_the_game_ends():
    row = "BGR".ljust(WIDTH, ".")  # green takes (3, 0), then blue (4, 0): over
    s = get_game("tribolo").new_state({"board": [row] + ["." * WIDTH] * (HEIGHT - 1)}, 0)
    for search in ("minimax", "paranoid"):
        ai = TriboloAI(budget=10 ** 6, search=search, iterative=True)
        assert ai.act(s) == (3, 0)
        assert ai.last_depth == 1 and ai.last_budget.used == 2


def test_levels_from_vector_states_and_unusual_starts():
    game = get_game("tribolo")
    g = VECTORS[0]
    s = game.new_state({"board": g["initial"]["board"], "to_move": g["initial"]["to_move"]}, 0)
    assert _disagreements(s, g["initial"]) == []
    with pytest.raises(ValueError, match="level: boards: unknown key .*did you mean 'board'"):
        game.level({"boards": []})
    with pytest.raises(ValueError, match="board: line 1 \\(row y=0\\): 16 cells expected"):
        game.level({"board": ["."] * HEIGHT})
    def board(first_row: str) -> list[str]:
        return [first_row.ljust(WIDTH, ".")] + ["." * WIDTH] * (HEIGHT - 1)

    # nobody can move: over at once, a three-way tie
    s = game.new_state({"board": board("B.R.G")}, 0)
    assert s.is_terminal() and s.legal_actions() == [] and s.winner() is None
    assert s.results() == [pytest.approx(1 / 3)] * 3 and s.current_player == -1
    # blue (the first candidate) and red cannot move: green starts, then blue takes all
    s = game.new_state({"board": board("BGR"), "first": "blue"}, 0)
    assert s.current_player == 2 and s.legal_actions() == [(3, 0)]
    s.apply((3, 0))
    assert s.current_player == 0 and s.legal_actions() == [(4, 0)]
    s.apply((4, 0))
    assert s.is_terminal() and s.rows()[0].startswith("BBBBB.")
    assert s.winner() == 0 and s.ranking() == [0, 1, 2] and s.results() == [1.0, 0.0, 0.0]
    # blue owns nothing and is skipped; after red's move nobody can move
    s = game.new_state({"board": board("RG")}, 0)
    assert s.current_player == 1 and s.legal_actions() == [(2, 0)]
    s.apply((2, 0))
    assert s.is_terminal() and s.winner() == 1 and s.ranking() == [1, 0, 2]


def _two_player_position(seed: int, moves: int):
    """A set-up without green (its cells emptied), after random moves: max^n's shallow
    pruning bites when one player can gain nothing."""
    lv = generate_level(seed)
    s = state_from_level(TriboloLevel(tuple(r.replace("G", ".") for r in lv.rows), 0))
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        acts = s.legal_actions()
        s.apply(acts[int(rng.integers(len(acts)))])
    assert not s.is_terminal() and s.score[2] == 0
    return s


def test_maxn_shallow_pruning_keeps_the_choice_and_builds_fewer_states():
    from games.tribolo.maxn import MaxnAgent
    positions = [_two_player_position(0, 30), _two_player_position(1, 30)]
    positions += [_before(g, i) for g, i in AI_MOVES[::30]]  # three players: rarely cut
    saved = 0
    for s in positions:
        out = {}
        for prune in (True, False):
            agent = MaxnAgent(seed=4, budget=MAX_BUDGET, max_depth=2, prune=prune)
            c = CountingState(s.copy())
            move = agent.act(c)
            assert c.counter.n == agent.last_budget.used and agent.last_depth == 2
            out[prune] = (move, agent.last_values[move], agent.last_budget.used)
        assert out[True][:2] == out[False][:2]
        assert out[True][2] <= out[False][2]
        saved += out[False][2] - out[True][2]
    assert saved > 0


def test_maxn_deepens_with_the_budget_and_never_overspends():
    from games.tribolo.maxn import MaxnAgent
    s = _before(*AI_MOVES[10])
    depths = []
    for budget in (3, 50, 400, 4000):
        agent = MaxnAgent(seed=0, budget=budget)
        assert agent.act(s) in s.legal_actions()
        assert agent.last_budget.used <= budget
        depths.append(agent.last_depth)
    assert depths == sorted(depths) and depths[0] == -1 and depths[-1] >= 2
    # the choice at a finished depth is the best for the mover among the root values
    p = s.current_player
    move = agent.act(s)
    values = agent.last_values
    assert values[move][p] == max(v[p] for v in values.values())


def test_a_human_picks_a_move_by_its_cell():
    from agents.human import HumanAgent
    s = get_game("tribolo").new_state(2, 0)
    move = s.legal_actions()[-1]
    text = f"({move[0]},{move[1]})"
    human = HumanAgent(stdin=io.StringIO(text + "\n"), stdout=io.StringIO())
    assert human.act(s) == move
    assert s.describe(move).startswith(text + " takes ")


def test_play_names_a_shared_first_place(monkeypatch):
    """A game that ends with first place shared says so instead of naming a winner."""
    import games.tribolo.state as st
    monkeypatch.setattr(st.TriboloState, "winner", lambda self: None)
    monkeypatch.setattr(st.TriboloState, "results", lambda self: [0.5, 0.5, 0.0])
    out: list[str] = []
    play_shown("tribolo", 4, 0, {}, ["random", "random", "random"], say=out.append)
    assert out[-1].startswith("no single winner: first place shared by player 0 (random, blue), "
                              "player 1 (random, red)")
