"""Recording, replaying and playing by hand."""

from __future__ import annotations

import io
import json

import pytest

from agents.human import HumanAgent
from games.recording import RecordError, load_record, replay
from games.registry import get_game
from play.watch import play_shown, replay_shown


def test_record_replays_to_the_same_end(tmp_path):
    path = tmp_path / "game.json"
    lines = []
    final = play_shown("tribes", 5, 3, {"max_rounds": 6}, ["rule_based", "random"], record=path,
                       say=lines.append)
    record = load_record(path)
    assert record["players"] == ["rule_based", "random"]
    states = list(replay(record))
    end, none = states[-1]
    assert none is None
    assert end.scores() == final.scores() and end.tick == final.tick
    assert len(states) - 1 == len(record["actions"])
    shown = []
    assert replay_shown(path, say=shown.append) == len(record["actions"])
    assert sum("round " in s for s in shown) >= 7  # a board per turn start and the end


def test_replay_writes_board_images(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "game.json"
    play_shown("tribes", 7, 1, {"max_rounds": 2}, ["random", "random"], record=path, say=lambda s: None)
    replay_shown(path, images=tmp_path / "frames", say=lambda s: None)
    frames = sorted((tmp_path / "frames").glob("*.png"))
    assert len(frames) >= 4
    assert all(f.stat().st_size > 1000 for f in frames)


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.update(format="other/9"), "format"),
    (lambda r: r.pop("seed"), "seed"),
    (lambda r: r.update(level="x:,y:"), "level"),
])
def test_malformed_records_name_the_field(tmp_path, edit, message):
    path = tmp_path / "game.json"
    play_shown("tribes", 5, 3, {"max_rounds": 1}, ["random", "random"], record=path, say=lambda s: None)
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError) as e:
        list(replay(load_record(path), source=str(path)))
    assert message in str(e.value)


def test_an_illegal_recorded_action_is_named_by_index(tmp_path):
    path = tmp_path / "game.json"
    play_shown("tribes", 5, 3, {"max_rounds": 1}, ["random", "random"], record=path, say=lambda s: None)
    record = json.loads(path.read_text())
    record["actions"][0] = [8, 999, 0, -1]  # a move of a unit that does not exist
    path.write_text(json.dumps(record))
    with pytest.raises(RecordError, match=r"actions\[0\]"):
        list(replay(load_record(path), source=str(path)))


def test_human_picks_by_number_and_by_text():
    state = get_game("tribes").new_state(5, 1)
    actions = state.legal_actions()
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO("abc\n999\n2\n"), stdout=out)
    assert human.act(state) == actions[2]
    assert "type a number" in out.getvalue()
    research = [a for a in actions if state.action_type_name(a) == "RESEARCH_TECH"][0]
    text = state.describe(research).split()[-1]  # the tech name
    human = HumanAgent(stdin=io.StringIO(text + "\n"), stdout=io.StringIO())
    assert human.act(state) == research
