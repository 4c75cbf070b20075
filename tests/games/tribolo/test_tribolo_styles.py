"""Tribolo play-styles: the portfolio scripts (legal proposals with values in [0, 1], each
script's pick on a hand-built board and against a brute-force reading of its definition),
the `styles` layout, the events the engine logs and the behaviour features read from them,
and Portfolio MCTS playing the game (budget counted exactly, same seed same game)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.conformance import check_agents
from agents.portfolio import portfolio
from agents.portfolio.script import default_layout, make_context, scripts_of
from agents.registry import make_agent
from games.registry import get_game
from games.tribolo.board import BIT, anchored_axes
from games.tribolo.game import state_from_level
from games.tribolo.level import TriboloLevel
from games.tribolo.scripts import STYLES_LAYOUT
from play.runner import play_game
from playstyles.cli import main
from qd.features import PlayerGame, features_of

GAME = "tribolo"
SCRIPTS = scripts_of(GAME)

# Blue to move; red leads (20 cells) before green (10) and blue (9). Blue's six moves each
# suit one script: (6,0) takes 5 green (most cells), (4,2) 3 red and 1 green (most from the
# leader), (3,4) 2 red and no green (the alliance against red), (15,0) a corner, (2,8) three
# lines of one cell, (10,4) opens (7,4) over the two red cells beside it (mobility).
BOARD = (
    "BGGGGG.......BG.",
    "................",
    "BRRR.GB.........",
    "................",
    "BRR.....RR.GB...",
    "................",
    "..B.............",
    "..R.............",
    "BG.GB.......RRRR",
    "............RRRR",
    "............RRRR",
)
PICKS = {"MostCells": ((6, 0), 5 / 8), "BlockLeader": ((4, 2), 3 / 6),
         "FollowAlly": ((3, 4), 2 / 5), "EdgesCorners": ((15, 0), (4 + 1 / 2) / 5),
         "MultiLine": ((2, 8), 2 / 3), "Mobility": ((10, 4), 6 / 16)}


def board(rows, first: int = 0):
    return state_from_level(TriboloLevel(tuple(rows), first))


def propose(state, name: str, seed: int = 0):
    ctx = make_context(GAME, state, np.random.default_rng(seed))
    return SCRIPTS[name].fn(ctx, state.current_player, list(state.legal_actions()))


def positions(games: int = 6, every: int = 5, seed: int = 3):
    """Every `every`-th position of seeded random games (none terminal)."""
    rng = np.random.default_rng(seed)
    out = []
    for level in range(games):
        s = get_game(GAME).new_state(level, 0)
        k = 0
        while not s.is_terminal():
            if k % every == 0:
                out.append(s.copy())
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
            k += 1
    return out


# ------------------------------------------------------------------------------ scripts

def test_the_portfolio_is_the_six_scripts_and_their_layout():
    assert list(SCRIPTS) == list(STYLES_LAYOUT)
    assert default_layout(GAME) == "styles" and default_layout("tribes") == "paper"
    pf = portfolio(GAME)
    assert pf.layout == STYLES_LAYOUT and dict(pf.table) == {"JUMP": STYLES_LAYOUT}
    assert pf.with_genome([1, 0, 0, 0, 0, 0]).weights["BlockLeader"] == 1.0


def test_each_script_picks_what_its_definition_says_on_a_hand_built_board():
    s = board(BOARD)
    assert s.current_player == 0 and s.score == [9, 20, 10]
    assert sorted(s.legal_actions()) == sorted(a for a, _ in PICKS.values())
    for name, (move, value) in PICKS.items():
        for seed in range(3):
            a, v = propose(s, name, seed)
            assert a == move, name
            assert v == pytest.approx(value), name


def test_scripts_decline_when_their_style_has_nothing_to_offer():
    # blue leads and its only move fires one line from an interior cell into green
    s = board(("................",
               "..BBBBGG.G......",
               "................",
               "................",
               "................",
               "................",
               "................",
               "................",
               "................",
               "................",
               "................"))
    assert s.legal_actions() == [(8, 1)]
    for name in ("FollowAlly", "MultiLine", "EdgesCorners"):
        assert propose(s, name) is None, name
    assert propose(s, "BlockLeader") == ((8, 1), 2 / 5)  # green is the leading opponent


def _by_definition(state, name: str):
    """The set of moves a script may pick and their value, from its docstring's definition
    computed on copies of the state (independent of the scripts' bitboard shortcuts)."""
    me = state.current_player
    o1, o2 = (me + 1) % 3, (me + 2) % 3
    sc = state.score
    counts, edges = anchored_axes(state.walls)
    keys = {}
    for a in state.legal_actions():
        lines = state.jumps(a)
        taken = {o1: 0, o2: 0}
        for o, cells in lines:
            taken[o] += len(cells)
        total = taken[o1] + taken[o2]
        if name == "MostCells":
            keys[a] = (total, total / (total + 3))
        elif name == "Mobility":
            c = state.copy()
            c.apply(a)
            m = c.legal_count(me)
            keys[a] = (m, m / (m + 10))
        elif name == "EdgesCorners":
            n = counts[BIT[a].bit_length() - 1]
            e = sum(1 for _, cells in lines for cell in cells if BIT[cell] & edges)
            if (n, e) != (0, 0):
                keys[a] = ((n, e), (n + e / (e + 1)) / 5)
        elif name == "BlockLeader":
            n = (taken[o1] if sc[o1] >= sc[o2] else 0) + (taken[o2] if sc[o2] >= sc[o1] else 0)
            if n:
                keys[a] = ((n, total), n / (n + 3))
        elif name == "FollowAlly":
            lead = [o for o in (o1, o2) if sc[o] > sc[me] and sc[o] > sc[o1 + o2 - o]]
            if lead:
                ally = o1 + o2 - lead[0]
                n = taken[lead[0]]
                if n and not taken[ally]:
                    keys[a] = (n, n / (n + 3))
        elif name == "MultiLine":
            if len(lines) > 1:
                keys[a] = ((len(lines), total), 1 - 1 / len(lines))
    if not keys:
        return set(), None
    best = max(k for k, _ in keys.values())
    picks = {a for a, (k, _) in keys.items() if k == best}
    return picks, next(v for k, v in keys.values() if k == best)


@pytest.mark.parametrize("name", list(STYLES_LAYOUT))
def test_every_script_proposes_a_best_legal_move_with_a_value_in_0_1(name):
    proposed = 0
    for i, s in enumerate(positions()):
        got = propose(s, name, seed=i)
        picks, value = _by_definition(s, name)
        if got is None:
            assert not picks, (name, i)
            continue
        proposed += 1
        a, v = got
        assert a in s.legal_actions()
        assert isinstance(v, float) and 0.0 <= v <= 1.0
        assert a in picks and v == pytest.approx(value), (name, i, a, picks)
    assert proposed >= 20


def test_anchored_axes():
    s = board(BOARD)
    counts, edges = anchored_axes(s.walls)
    at = {c: counts[BIT[c].bit_length() - 1] for c in ((0, 0), (15, 10), (6, 0), (0, 5), (5, 5))}
    assert at == {(0, 0): 4, (15, 10): 4, (6, 0): 3, (0, 5): 3, (5, 5): 0}
    walled = board(["................", ".....#..........", *["." * 16] * 9])
    wc, we = anchored_axes(walled.walls)
    # (5,2) below a wall: the vertical axis; (4,2) and (6,2): one diagonal each
    assert [wc[BIT[c].bit_length() - 1] for c in ((5, 2), (4, 2), (6, 2), (5, 4))] == [1, 1, 1, 0]
    assert not we & BIT[(5, 2)] and we & BIT[(3, 0)]


# ------------------------------------------------------------------------------ events and features

def test_moves_log_the_events_the_features_read():
    s = board(BOARD)
    s.apply((2, 8))  # 3 lines, 1 red (the leader): choices 6
    assert [e for e in s.events() if e[1] == 0] == [
        (0, 0, "moves", 1), (0, 0, "converted", 3), (0, 0, "choices", 6),
        (0, 0, "leader_hit", 1), (0, 0, "multi_line", 1)]
    s = board(BOARD)
    s.apply((6, 0))  # 5 green only, on the top border
    assert [e[2] for e in s.events() if e[1] == 0] == ["moves", "converted", "choices", "edge"]
    s = board(BOARD)
    s.apply((15, 0))  # a corner, one green cell
    assert [e[2:] for e in s.events() if e[1] == 0] == [("moves", 1), ("converted", 1), ("choices", 6),
                                           ("edge", 1)]


def test_a_level_score_counts_either_opponent_as_the_leader():
    s = board(("BGG.RR..........", "BBBBB...........", *["." * 16] * 9))
    assert s.score == [6, 2, 2] and s.legal_actions() == [(3, 0)]
    s.apply((3, 0))  # takes green only; red and green are level
    assert "leader_hit" in [e[2] for e in s.events()]


def test_features_on_a_hand_made_event_log():
    events = [(0, 0, "moves", 1), (0, 0, "converted", 3), (0, 0, "choices", 6),
              (0, 0, "leader_hit", 1), (0, 0, "multi_line", 1),
              (0, 1, "moves", 1), (0, 1, "converted", 1), (0, 1, "choices", 2),
              (1, 0, "moves", 1), (1, 0, "converted", 1), (1, 0, "choices", 10),
              (1, 0, "edge", 1), (1, 1, "skipped", 1),
              (2, 0, "moves", 1), (2, 0, "converted", 4), (2, 0, "choices", 8),
              (2, 0, "leader_hit", 1), (2, 0, "edge", 1)]
    g = PlayerGame.from_events(events, 0, winner=0, rounds=2, summary={"share": 0.4})
    f = features_of(GAME)
    values = {n: f[n].fn(g) for n in ("leader_hits", "mobility", "multi_line", "edge_moves",
                                       "gain", "cell_share")}
    assert values == {"leader_hits": 2 / 3, "mobility": 8.0, "multi_line": 1 / 3,
                      "edge_moves": 2 / 3, "gain": 8 / 3, "cell_share": 0.4}
    idle = PlayerGame.from_events([(0, 2, "skipped", 1)], 2, winner=0, rounds=0)
    assert math.isnan(f["leader_hits"].fn(idle)) and math.isnan(f["mobility"].fn(idle))


# ------------------------------------------------------------------------------ Portfolio MCTS

def test_portfolio_mcts_plays_tribolo_and_spends_its_budget_exactly():
    report = check_agents(GAME, budget=25, names=["pmcts", "pmcts_b", "pmcts_pu"])
    assert report.decisions == {"pmcts": 3, "pmcts_b": 3, "pmcts_pu": 3} and not report.refused


def _game(seed: int, weights=None):
    s = get_game(GAME).new_state(2, 0)
    agents = [make_agent("pmcts_pu", game=GAME, seed=seed, budget=20, horizon=4,
                         weights=weights)]
    agents += [make_agent("random", game=GAME, seed=seed + k) for k in (1, 2)]
    play_game(s, agents)
    return s.events()


def test_pmcts_pu_with_a_seed_plays_the_same_game():
    w = {"EdgesCorners": 1.0, "MostCells": 0.0}
    assert _game(5, w) == _game(5, w)
    assert _game(5, w) != _game(6, w)


def test_pmcts_pu_weights_by_name_or_genome_and_bad_names_are_refused():
    a = make_agent("pmcts_pu", game=GAME, budget=10, weights=[1, 0, 0.5, 0.5, 0.5, 0.25])
    b = make_agent("pmcts_pu", game=GAME, budget=10, weights={"BlockLeader": 1, "FollowAlly": 0,
                                                  "MostCells": 0.25})
    s = get_game(GAME).new_state(0, 0)
    a.act(s.copy())
    b.act(s.copy())
    assert a.portfolio == b.portfolio
    with pytest.raises(ValueError, match="Greedy"):
        make_agent("pmcts_pu", game=GAME, weights={"Greedy": 1})


def test_play_from_the_command_line(capsys):
    code = main(["play", "--game", GAME, "--p1", "pmcts_pu:budget=20,horizon=4",
                 "--p2", "random", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "game over" in out
