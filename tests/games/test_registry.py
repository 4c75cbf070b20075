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
