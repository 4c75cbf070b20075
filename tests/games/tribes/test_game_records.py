"""Fixed-seed games between search agents reproduce the digests recorded before the speed
work (tests/games/tribes/game_records.py): same actions, same scores, same winner."""

from __future__ import annotations

import json

import pytest

from tests.games.tribes.game_records import GAMES, RECORDS, play

_RECORDED = json.loads(RECORDS.read_text())


@pytest.mark.parametrize("name,level,seed,rounds,budget,specs", GAMES, ids=[g[0] for g in GAMES])
def test_fixed_seed_game_reproduces_recorded_digest(name, level, seed, rounds, budget, specs):
    assert play(level=level, seed=seed, rounds=rounds, budget=budget, specs=specs) \
        == _RECORDED[name]


def test_every_recorded_game_is_played():
    assert sorted(_RECORDED) == sorted(g[0] for g in GAMES)
