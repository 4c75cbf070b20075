"""`playstyles check`: every conformance check of a game's plug-in in one report, each fault
named (the script, the position, the rule), the plug-in's own errors with their traceback."""

from __future__ import annotations

import pytest

from agents.portfolio.script import SCRIPTS, register
from games import registry
from games.api import IllegalAction
from games.registry import register_game
from play.check import check_scripts, run_checks
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
        register("nim", name, "TAKE", fn)
    yield names
    for name in names:
        SCRIPTS.pop(name, "nim")


def test_each_broken_script_is_named(broken_scripts, capsys):
    check = check_scripts("nim", positions=5)
    assert not check.ok and len(check.failures) == 3
    text = "\n".join(check.failures)
    assert "script Raises at position 0" in text and "ZeroDivisionError: a bug in the user" \
        in text and "Traceback" in text and "raise ZeroDivisionError" in text
    assert "script Illegal at position 0" in text and "(99, 7), which is not one of" in text
    assert "script TooSure at position 0" in text and "the value 3.0, outside [0, 1]" in text
    assert main(["check", "--game", "nim", "--games", "2", "--positions", "5"]) == 1
    out = capsys.readouterr().out
    assert "scripts: FAILED" in out and "check(s) failed: scripts" in out


class LeakyState(NimState):
    """Changes the heaps before refusing an illegal action."""

    game_name = "nim_leaky"

    def apply(self, action) -> None:
        if action not in self.legal_actions():
            self.heaps[0] += 1
            raise IllegalAction(f"{action!r} is not legal")
        super().apply(action)

    def copy(self) -> "LeakyState":
        c = LeakyState.__new__(LeakyState)
        c.__dict__.update(super().copy().__dict__)
        return c


class Leaky(Nim):
    name = "nim_leaky"

    def new_state(self, level, seed: int, **options) -> LeakyState:
        s = super().new_state(level, seed, **options)
        out = LeakyState.__new__(LeakyState)
        out.__dict__.update(s.__dict__)
        return out


@pytest.fixture
def leaky():
    register_game("nim_leaky", Leaky)
    yield "nim_leaky"
    registry._GAMES.pop("nim_leaky")  # (no other test sees the broken game)
    registry._INSTANCES.pop("nim_leaky", None)


def test_a_game_that_changes_its_state_on_a_refused_action_fails(leaky):
    checks = {c.name: c for c in run_checks(leaky, games=2, positions=5)}
    assert not checks["game"].ok
    assert "changed the state" in checks["game"].failures[0]
    assert "nim_leaky: seed 0" in checks["game"].failures[0]
