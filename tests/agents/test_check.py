"""`playstyles check`: every conformance check of a game's plug-in in one report, each fault
named (the script, the position, the rule), the plug-in's own errors with their traceback."""

from __future__ import annotations

import numpy as np
import pytest

from agents.check import check_scripts, run_checks
from agents.conformance import check_agents
from agents.portfolio import Portfolio, produce_assignments
from agents.portfolio.script import SCRIPTS, ScriptError, register_script, scripts_of
from games import registry
from games.api import IllegalAction
from games.registry import get_game, register_game
from playstyles.cli import main
from tests.games.nim import Nim, NimState


def test_a_sound_plugin_passes(capsys):
    assert main(["check", "--game", "nim", "--games", "3", "--positions", "10"]) == 0
    out = capsys.readouterr().out
    assert "game: ok (3 games" in out and "scripts: ok (3 scripts" in out
    assert "agents: ok" in out and out.rstrip().endswith("nim: every check passed")


@pytest.fixture
def broken_scripts():
    """Three scripts of Nim that break the rules: one raises, one answers an action it was
    not given, one a value outside [0, 1]."""
    def raises(ctx, actor, actions):
        raise ZeroDivisionError("a bug in the user's script")

    def illegal(ctx, actor, actions):
        return (99, 7), 0.5

    def too_sure(ctx, actor, actions):
        return actions[0], 3.0

    names = {"Raises": raises, "Illegal": illegal, "TooSure": too_sure}
    for name, fn in names.items():
        register_script("nim", name, "TAKE", fn)
    yield names
    for name in names:
        SCRIPTS.pop(name, "nim")


def test_each_broken_script_is_named(broken_scripts, capsys):
    check = check_scripts("nim", positions=5)
    assert not check.ok and len(check.failures) == 3
    text = "\n".join(check.failures)
    assert "script Raises at position 0 (seed 0, level 0, actor" in text \
        and "ZeroDivisionError: a bug in the user" \
        in text and "Traceback" in text and "raise ZeroDivisionError" in text
    assert "script Illegal at position 0" in text and "(99, 7), which is not one of" in text
    assert "script TooSure at position 0" in text and "the value 3.0, outside [0, 1]" in text
    assert main(["check", "--game", "nim", "--games", "2", "--positions", "5"]) == 1
    out = capsys.readouterr().out
    assert "scripts: FAILED" in out and "check(s) failed: scripts" in out


@pytest.mark.parametrize("name, problem", [
    ("Raises", "raised ZeroDivisionError: a bug in the user's script"),
    ("Illegal", "answered the action (99, 7), which is not one of the"),
    ("TooSure", "answered the value 3.0, outside [0, 1]")])
def test_the_portfolio_checks_each_answer_in_play(broken_scripts, name, problem):
    game = get_game("nim")
    state = game.new_state(game.level_set(game.default_levels)[0], 0)
    only = Portfolio("nim", {"TAKE": [name]}, layout=[name])
    with pytest.raises(ScriptError) as e:
        produce_assignments(state, only, np.random.default_rng(0))
    assert f"portfolio script {name!r} (turn 0, actor" in str(e.value) and problem in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError) == (name == "Raises")
    # the sound scripts alone still play
    sound = Portfolio("nim", {"TAKE": [n for n in scripts_of("nim") if n not in broken_scripts]})
    assert produce_assignments(state, sound, np.random.default_rng(0))


def test_play_names_the_failing_script_and_the_agent_check_fails(broken_scripts, capsys):
    assert main(["play", "--game", "nim", "--p1", "pmcts_pu:budget=20", "--p2", "random"]) == 2
    err = capsys.readouterr().err
    assert "playstyles: error: portfolio script 'Raises'" in err
    assert 'raise ZeroDivisionError("a bug in the user' in err  # the script's own traceback
    report = check_agents("nim", budget=20, names=["pmcts_pu", "random"], strict=False)
    assert "pmcts_pu" in report.failed and "pmcts_pu" not in report.refused
    assert report.decisions.get("random") and "random" not in report.failed
    with pytest.raises(AssertionError, match="a script failed in pmcts_pu: portfolio script"):
        check_agents("nim", budget=20, names=["pmcts_pu"])
    agents = {c.name: c for c in run_checks("nim", games=1, positions=5)}["agents"]
    assert not agents.ok and any(f.startswith("agent pmcts_pu failed because of a script")
                                 and "(at position 0: seed 0, level 0)" in f
                                 for f in agents.failures)


class LeakyState(NimState):
    """Nim with one fault (`fault`): a refused action that changes the heaps, or a hidden
    counter, or a hidden counter kept under a private name that only `digest()` shows; or a
    copy that shares its hidden history with its original."""

    game_name = "nim_leaky"
    fault = "heaps"

    def apply(self, action) -> None:
        if action not in self.legal_actions():
            if self.fault == "heaps":
                self.heaps[0] += 1
            elif self.fault == "hidden":
                self.refusals += 1
            elif self.fault == "digest":
                self._refusals += 1
            raise IllegalAction(f"{action!r} is not legal")
        super().apply(action)
        self.history.append(action)

    def copy(self) -> "LeakyState":
        c = NimState.copy(self)
        c.__class__ = type(self)
        if self.fault != "shared_copy":
            c.history = list(self.history)
        return c


class DigestState(LeakyState):
    def digest(self):
        return self.heaps, self.refusals, self._refusals


FAULTS = {"heaps": "the refused action", "hidden": "the refused action",
          "digest": "the refused action", "shared_copy": "changed the original's hidden state"}


@pytest.fixture(params=list(FAULTS))
def leaky(request):
    state_class = type(f"{request.param}_state", (DigestState if request.param == "digest"
                                                  else LeakyState,), {"fault": request.param})

    class Leaky(Nim):
        name = "nim_leaky"

        def new_state(self, level, seed: int, **options):
            s = super().new_state(level, seed, **options)
            out = state_class.__new__(state_class)
            out.__dict__.update(s.__dict__, refusals=0, _refusals=0, history=[])
            return out

    register_game("nim_leaky", Leaky)
    yield request.param
    registry._GAMES.pop("nim_leaky")  # (no other test sees the broken game)
    registry._INSTANCES.pop("nim_leaky", None)


def test_a_game_that_changes_its_state_on_a_refused_action_fails(leaky):
    checks = {c.name: c for c in run_checks("nim_leaky", games=2, positions=5)}
    assert not checks["game"].ok
    failure = checks["game"].failures[0]
    assert FAULTS[leaky] in failure and "nim_leaky: seed 0" in failure
    if leaky != "shared_copy":
        assert "changed the state" in failure
    assert f"(the first difference: {WHERE[leaky]}" in failure, failure  # what changed


WHERE = {"heaps": "state.heaps[0]: ", "hidden": "state.refusals: 0 -> 1",
         "digest": "state (its digest()): ([4, 4, 1], 0, 0) -> ([4, 4, 1], 0, 1)",
         "shared_copy": "state.history: 0 items -> 1"}


def test_the_first_difference_of_two_snapshots_is_an_attribute_path():
    from games.conformance import first_difference, state_digest

    class Unit:
        pass

    class State:
        def __init__(self):
            self.heaps, self.units, self.log = [3, 4], {"a": Unit(), "b": 2}, None
            self.units["a"].hp, self.board, self._cache = 5, np.zeros(3), {}
            for i in range(3):  # a linked event log (previous, round, name)
                self.log = (self.log, i, "ev")

    s = State()
    before = state_digest(s)
    assert first_difference(before, state_digest(s)) is None
    s._cache["x"] = 1  # a cache: not part of the state
    assert first_difference(before, state_digest(s)) is None
    for change, where in ((lambda: setattr(s.units["a"], "hp", 6), "state.units['a'].hp: 5 -> 6"),
                          (lambda: s.heaps.append(1), "state.heaps: 2 items -> 3"),
                          (lambda: s.board.fill(1), "state.board: <array> -> <array>"),
                          (lambda: setattr(s, "log", (s.log[0], 2, "other")),
                           "state.log[2][1]: 'ev' -> 'other'")):
        s = State()
        change()
        assert first_difference(before, state_digest(s)) == where


# ------------------------------------------------------------------------------ features

@pytest.fixture
def nim_feature():
    """Register a feature of Nim for one test: `nim_feature(fn, lo, hi)`."""
    from qd.features import FEATURES, register_feature
    added = []

    def add(fn, lo=0, hi=10, name="probe"):
        register_feature("nim", name, lo, hi, 1, "a feature under test")(fn)
        added.append(name)
    yield add
    for name in added:
        FEATURES.pop(name, "nim")


def _features(games: int = 6):
    return {c.name: c for c in run_checks("nim", games=games, positions=5)}["features"]


def test_the_sound_features_pass_and_every_game_features_give_notes_only():
    check = _features()
    assert check.ok, check.failures
    assert "features on 6 random games" in check.done


@pytest.mark.parametrize("fn, lo, hi, needle", [
    (lambda g: float("nan"), 0, 10, "undefined (NaN) in every game from every seat (seeds 0 "
                                    "to 5): each elite would sit at its missing value (lo)"),
    (lambda g: g.count("no_such_event"), 0, 10, "0 in every game from every seat (seeds 0 to "
                                                "5): it separates no play-style"),
    (lambda g: 20.0 + g.count("take"), 0, 10, "values outside its range [0, 10], e.g."),
    (lambda g: 1 / 0, 0, 10, "raised ZeroDivisionError: division by zero at seed 0 (level 0, "
                             "seat 0)"),
    (lambda g: "many", 0, 10, "returned 'many', not a number, at seed 0"),
    (lambda g: float("inf"), 0, 10, "returned inf at seed 0"),
])
def test_a_broken_feature_fails_naming_it_and_a_seed(nim_feature, fn, lo, hi, needle):
    nim_feature(fn, lo, hi)
    check = _features()
    assert not check.ok
    assert any(f.startswith("feature probe: ") and needle in f for f in check.failures), \
        check.failures


def test_a_feature_is_failed_by_range_only_when_every_value_is_outside(nim_feature):
    nim_feature(lambda g: float(g.won) * 20, 0, 10)  # the winners' 20 are outside; 0 is not
    check = _features()
    assert check.ok, check.failures
    assert any(n.startswith("feature probe: ") and "values outside its range [0, 10], e.g. 20"
               in n and "at seed" in n for n in check.notes), check.notes


def test_a_constant_feature_over_few_games_is_a_note(nim_feature):
    nim_feature(lambda g: 3.0)
    check = _features(games=3)
    assert check.ok
    assert any("feature probe: 3 in every game from every seat (seeds 0 to 2), over 3 games "
               "only" in n for n in check.notes), check.notes


def test_the_command_fails_on_a_nan_feature(nim_feature, capsys):
    nim_feature(lambda g: float("nan"))
    assert main(["check", "--game", "nim", "--games", "5", "--positions", "5"]) == 1
    out = capsys.readouterr().out
    assert "features: FAILED" in out and "feature probe: undefined (NaN)" in out
    assert out.rstrip().endswith("nim: 1 check(s) failed: features")


@pytest.mark.parametrize("name", ["Othello", "Nim"])
def test_an_unknown_game_is_one_error_naming_the_known_ones(name, capsys):
    assert main(["check", "--game", name]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"playstyles: error: game: unknown game {name!r}; known: " in err and "tribes" in err
    with pytest.raises(ValueError, match="unknown game"):
        run_checks(name)
