"""The one registry type behind every per-game registry: a game's part is found under the
game, then its family, then every game; defaults; one error with the known names."""

from __future__ import annotations

import pytest

from agents.evaluators import EVALUATORS
from agents.registry import AGENTS
from games.registry import Registry


def test_a_part_is_found_under_the_game_its_family_then_every_game():
    reg = Registry("widget")
    reg.add("plain", "every game's")
    reg.add("plain", "the family's", game="fam")
    reg.add("own", "the game's", game="fam:one")
    reg.add("round", "every game's", default=True)
    reg.add("square", "the family's", game="fam", default=True)
    assert reg.find("plain", "fam:one") == "the family's"
    assert reg.find("plain", "other") == "every game's"
    assert reg.find("own", "fam:one") == "the game's" and reg.find("own", "fam:two") is None
    assert reg.names("fam:one") == ["own", "plain", "round", "square"]
    assert reg.names("other") == ["plain", "round"]
    assert reg.default("fam:one") == "square" and reg.default("other") == "round"
    assert list(reg.of("fam:one").values())[:2] == ["the game's", "the family's"]
    assert reg.owners("plain") == ["*", "fam"]


def test_an_unknown_part_is_one_error_naming_the_known_and_the_closest():
    reg = Registry("widget")
    reg.add("circle", 1)
    reg.add("square", 2)
    with pytest.raises(ValueError, match=r"^unknown widget 'sqare' for game 'nim'; known: "
                                         r"circle, square; did you mean 'square'\?$"):
        reg.get("sqare", "nim")
    with pytest.raises(ValueError, match=r"known: circle, square$"):  # nothing close
        reg.get("hexagon", "nim")


def test_the_project_registries_share_the_type():
    assert isinstance(AGENTS, Registry) and isinstance(EVALUATORS, Registry)
    with pytest.raises(ValueError, match="unknown agent 'mtcs' for game 'nim'.*did you mean "
                                         "'mcts'"):
        AGENTS.get("mtcs", "nim")


@pytest.fixture
def fresh_plugins(monkeypatch):
    """The plug-in tables of the game registry, restored after the test."""
    import games.registry as r
    monkeypatch.setattr(r, "PLUGINS", dict(r.PLUGINS))
    monkeypatch.setattr(r, "_REGISTERED", set(r._REGISTERED))
    monkeypatch.setattr(r, "_FROM_ENV", [])
    monkeypatch.setattr(r, "_LOADED", set(r._LOADED))
    return r


def test_plugins_from_the_environment_and_the_ones_other_processes_need(fresh_plugins,
                                                                          monkeypatch):
    r = fresh_plugins
    r._LOADED.discard("tribes")  # (as if no test had played it yet)
    r.register_plugin("mine", "mine.plugin")
    monkeypatch.setenv(r.PLUGINS_ENV, '{"theirs": "theirs.plugin", "mine": "other.plugin", '
                                      '"tribes": "forked.plugin"}')
    assert r.plugin_module("theirs:variant") == "theirs.plugin"
    assert r.plugin_module("mine") == "mine.plugin"  # register_plugin wins
    assert r.plugin_module("tribes") == "forked.plugin"  # the environment overrides a shipped
    outside = r.outside_plugins()  # (and the tests' own games, from conftest.py)
    assert {k: outside[k] for k in ("mine", "theirs", "tribes")} == {
        "mine": "mine.plugin", "theirs": "theirs.plugin", "tribes": "forked.plugin"}
    assert "navy" not in outside and "openspiel" not in outside  # shipped, unchanged
    assert not {"mine", "theirs", "tribes"} & set(r.outside_plugins(loaded_only=True))
    assert "theirs" in r.game_names()


def test_a_malformed_plugin_variable_is_one_error_naming_it(fresh_plugins, monkeypatch):
    r = fresh_plugins
    monkeypatch.setenv(r.PLUGINS_ENV, '["outgame"]')
    for _ in range(2):  # (every lookup, until it is fixed)
        with pytest.raises(ValueError, match=r"^game: PLAYSTYLES_PLUGINS must be a JSON object "
                                             r"of game names and plug-in modules"):
            r.plugin_module("outgame")
    monkeypatch.setenv(r.PLUGINS_ENV, '{"g": "' + "m" * 20_000 + '"}')
    with pytest.raises(ValueError, match=r"^game: PLAYSTYLES_PLUGINS holds 20009 characters, "
                                         r"more than 10000"):
        r.plugin_module("outgame")


def test_a_game_registered_outside_a_plugin_is_known_as_such(fresh_plugins):
    r = fresh_plugins
    r.get_game("nim")  # (registered by its plug-in)
    r.register_game("adhoc_only_here", object)
    try:
        assert r.games_without_plugin() == ["adhoc_only_here"]
        assert r.plugin_module("adhoc_only_here") is None
    finally:
        r._GAMES.pop("adhoc_only_here")
