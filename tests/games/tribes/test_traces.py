"""Trace conformance: the 12 recorded reference games replay exactly on our engine.

See tests/games/tribes/trace_replay.py for what is compared. Runtime: about 3 s for all 12 games
in both modes (each game well under a second), so the test is not marked slow.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import pytest

from tests.games.tribes.trace_replay import (
    FIXED_BUG_TAGS,
    MAIN_GAMES,
    TRACES_DIR,
    Replayer,
    load_trace,
    trace_path,
)

pytestmark = pytest.mark.skipif(not TRACES_DIR.is_dir(),
                                reason=f"reference traces not found at {TRACES_DIR}")


@lru_cache(maxsize=None)
def _lines(game: str) -> tuple:
    return tuple(load_trace(trace_path(game)))


def _replay(game: str, reference_bugs: bool, lines=None):
    lines = list(lines if lines is not None else _lines(game))
    return Replayer(lines, game, reference_bugs=reference_bugs, check_cow=True).run()


@pytest.mark.parametrize("game", MAIN_GAMES)
def test_reference_bugs_mode_replays_whole_game(game):
    r = _replay(game, reference_bugs=True)
    assert r.mismatch is None, str(r.mismatch)
    assert r.finished, r.summary()
    result = _lines(game)[-1]
    assert result["t"] == "result"
    assert r.actions == result["n_actions"]
    assert r.rng_total == result["rng_total"]


@pytest.mark.parametrize("game", MAIN_GAMES)
def test_fixed_rules_mode_matches_until_first_fixed_bug(game):
    r = _replay(game, reference_bugs=False)
    assert r.mismatch is None, str(r.mismatch)
    flagged = [d for d in _lines(game)
               if any(f.get("tag", "").startswith(FIXED_BUG_TAGS) for f in d.get("flags", ()))]
    if flagged:
        assert r.stopped_at is not None and not r.finished, r.summary()
        assert r.actions == flagged[0]["i"]
    else:
        assert r.finished, r.summary()


def test_all_main_traces_present():
    assert all(trace_path(g).is_file() for g in MAIN_GAMES)


def test_first_disagreement_is_reported_precisely():
    """A corrupted trace is reported at the corrupted line, with field, expected and got."""
    lines = [copy.deepcopy(d) for d in _lines("g09")]
    k = next(n for n, d in enumerate(lines) if d["t"] == "action" and d["i"] == 40)
    good = lines[k]["check"][0]["score"]
    lines[k]["check"][0]["score"] = good + 5
    r = _replay("g09", reference_bugs=True, lines=lines)
    m = r.mismatch
    assert m is not None and not r.finished
    assert (m.line, m.index, m.field) == (k + 1, 40, "check tribe 0.score")
    assert (m.expected, m.got) == (good + 5, good)
    assert "g09 line" in str(m) and "#40" in str(m)
