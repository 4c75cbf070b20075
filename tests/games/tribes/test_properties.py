"""Property tests: random games over many seeds, with the engine's invariants checked after
every action."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.registry import get_game
from games.tribes import actions as A
from games.tribes import constants as K

GAME = get_game("tribes")


def signature(s) -> tuple:
    """Everything observable about a state, to compare states for equality."""
    units = tuple(sorted((u.id, u.tribe, u.type, u.pos, u.hp, u.max_hp, u.kills, u.veteran,
                          u.status, u.home, u.base) for u in s.units.values()))
    cities = tuple(sorted((c.id, c.tribe, c.pos, c.level, c.pop, c.pop_need, c.prod_bonus,
                           c.capital, c.walls, c.bound, c.worth, tuple(c.units),
                           tuple(sorted((k, tuple(v)) for k, v in c.temples.items())))
                          for c in s.cities.values()))
    tribes = tuple((t.id, t.stars, t.score, t.techs, t.kills, tuple(t.cities),
                    tuple(t.extra_units), tuple(t.monuments), t.pacifist, tuple(t.connected),
                    t.result) for t in s.tribes)
    board = (tuple(s.terrain), tuple(s.resource), tuple(s.building), tuple(s.unit_at),
             tuple(s.tile_city), tuple(s.road))
    return (s.tick, s.current, s.game_over, units, cities, tribes, board)


def check_invariants(s) -> None:
    for t in s.tribes:
        assert t.stars >= 0, f"tribe {t.id} has negative stars {t.stars}"
    seen_tiles = {}
    for uid, u in s.units.items():
        assert 0 < u.hp <= u.max_hp, f"unit {uid} hp {u.hp}/{u.max_hp}"
        assert u.pos not in seen_tiles, f"units {uid} and {seen_tiles[u.pos]} share tile {u.pos}"
        seen_tiles[u.pos] = uid
        assert s.unit_at[u.pos] == uid, f"tile {u.pos} does not point at unit {uid}"
        assert s.tribes[u.tribe].cities, f"unit {uid} of an eliminated tribe"
        if u.home:
            assert uid in s.cities[u.home].units, f"unit {uid} missing from its city {u.home}"
            assert s.cities[u.home].tribe == u.tribe, f"unit {uid} homed in a foreign city"
        else:
            assert uid in s.tribes[u.tribe].extra_units, f"unit {uid} registered nowhere"
        assert (u.base >= 0) == K.UNIT_IS_NAVAL[u.type], f"unit {uid} naval base {u.base}"
    assert sum(1 for x in s.unit_at if x) == len(s.units), "a tile points at a missing unit"
    for cid, c in s.cities.items():
        assert cid in s.tribes[c.tribe].cities, f"city {cid} missing from its tribe"
        assert s.tile_city[c.pos] == cid and s.terrain[c.pos] == K.CITY
        assert c.pop >= -c.level
        assert len(c.units) == len(set(c.units))
        for uid in c.units:
            assert s.units[uid].home == cid
    for c in s.tile_city:
        assert c == 0 or c in s.cities


def random_game(seed: int, max_actions: int, check_every: int = 1, copy_every: int = 0,
                max_rounds: int = 12):
    level_seed = 1_000 + seed
    s = GAME.new_state(level_seed, seed, max_rounds=max_rounds)
    rng = np.random.default_rng(seed)
    trail = []
    for step in range(max_actions):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        assert acts, "no legal action in a running game"
        assert len(set(acts)) == len(acts), "duplicate legal actions"
        if copy_every and step % copy_every == 0:
            before = signature(s)
            c = s.copy()
            crng = np.random.default_rng(seed + step)
            for _ in range(10):
                if c.is_terminal():
                    break
                ca = c.legal_actions()
                c.apply(ca[int(crng.integers(len(ca)))])
            assert signature(s) == before, "applying actions to a copy changed the original"
        a = acts[int(rng.integers(len(acts)))]
        trail.append(a)
        s.apply(a)
        if step % check_every == 0:
            check_invariants(s)
    return s, trail


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_random_games_keep_invariants(seed):
    s, trail = random_game(seed, max_actions=600, copy_every=37, max_rounds=25)
    assert len(trail) > 0


def test_many_steps_across_seeds():
    """A few thousand random steps in total, every legal action applied without error."""
    total = 0
    for seed in range(12):
        s, trail = random_game(seed, max_actions=1500, max_rounds=50)
        total += len(trail)
    assert total > 3000, f"only {total} steps"


def test_same_seed_same_game():
    s1, t1 = random_game(7, max_actions=500)
    s2, t2 = random_game(7, max_actions=500)
    assert t1 == t2
    assert signature(s1) == signature(s2)
    s3, t3 = random_game(8, max_actions=500)
    assert t3 != t1


def test_original_unchanged_by_copy_after_every_action_kind():
    """Each action kind that occurs is applied once to a copy; the original never changes."""
    seen = set()
    for seed in range(6):
        s = GAME.new_state(2_000 + seed, seed, max_rounds=20)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            acts = s.legal_actions()
            for a in acts:
                if a[0] not in seen:
                    seen.add(a[0])
                    before = signature(s)
                    c = s.copy()
                    c.apply(a)
                    assert signature(s) == before, f"{s.describe(a)} on a copy changed the original"
                    assert signature(c) != before or a[0] == 21
            s.apply(acts[int(rng.integers(len(acts)))])
    assert len(seen) >= 10


def test_full_games_end_with_a_ranking():
    for seed in range(3):
        s = GAME.new_state(3_000 + seed, seed, max_rounds=15)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
        assert s.tick <= 16
        assert sorted(s.ranking()) == [0, 1]
        assert s.winner() == s.ranking()[0]
        assert [t.result for t in s.tribes].count(1) == 1


def test_other_tribes_sizes_and_modes_keep_invariants():
    """3 and 4 tribes, other starting tribes (Luxidoor's walled capital), score mode."""
    setups = [(("XIN_XI", "IMPERIUS", "BARDUR"), "score", 14),
              (("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR"), "capitals", 16),
              (("ZEBASI", "AI_MO", "QUETZALI", "YADAKK"), "score", 16),
              (("KICKOO", "LUXIDOOR"), "capitals", 11)]
    for k, (tribes, mode, size) in enumerate(setups):
        s = GAME.new_state(400 + k, k, tribes=tribes, mode=mode, max_rounds=15)
        assert s.size == size and s.num_players == len(tribes)
        assert sorted(K.TRIBE_NAMES[t.key] for t in s.tribes) == sorted(tribes)
        rng = np.random.default_rng(k)
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply(acts[int(rng.integers(len(acts)))])
            check_invariants(s)
        assert sorted(s.ranking()) == list(range(len(tribes)))
        assert s.tick <= 16


def _enrich(s) -> None:
    """Every tribe gets every technology and at least 40 stars (so every unit type and
    building can occur)."""
    for t in range(len(s.tribes)):
        tw = s.tribe_w(t)
        tw.techs = K.ALL_TECHS_MASK
        tw.stars = max(tw.stars, 40)
    s.invalidate()


def _listing(s) -> tuple:
    """The legal actions of `s` and their grouping by actor and kind, in order."""
    return s.legal_actions(), [(actor, list(kinds.items()))
                               for actor, kinds in s.actions_by_actor().items()]


def _fresh_actions(s) -> tuple:
    """`_listing` from scratch (no cache carried over from earlier positions)."""
    c = s.copy()
    c.invalidate()
    return _listing(c)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       tribes=st.sampled_from([None, ("XIN_XI", "IMPERIUS", "BARDUR"),
                               ("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR")]),
       rich=st.booleans())
def test_cached_listing_equals_listing_from_scratch(seed, tribes, rich):
    """Caches carried from one position to the next (what a unit can reach, each actor's
    actions) never change the legal actions: after every random action, also on copies that
    branch off and come back to the original, the listing equals one made from scratch.
    `rich`: every tribe gets every technology and stars now and then (so every unit type and
    building occurs)."""
    options = {"tribes": tribes} if tribes else {}
    s = GAME.new_state(5_000 + seed % 1000, seed, max_rounds=20, **options)
    rng = np.random.default_rng(seed)
    for step in range(700):
        if s.is_terminal():
            break
        if rich and step % 50 == 0:
            _enrich(s)
        acts = s.legal_actions()
        assert _listing(s) == _fresh_actions(s), f"step {step}: cached listing differs"
        if step % 23 == 0:
            c = s.copy()
            for _ in range(8):
                if c.is_terminal():
                    break
                ca = c.legal_actions()
                c.apply(ca[int(rng.integers(len(ca)))])
                assert c.is_terminal() or _listing(c) == _fresh_actions(c)
            assert _listing(s) == _fresh_actions(s)
        s.apply(acts[int(rng.integers(len(acts)))])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       tribes=st.sampled_from([None, ("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR")]),
       rich=st.booleans())
def test_one_actor_listing_equals_listing_from_scratch(seed, tribes, rich):
    """Listing only some actors (`actor_groups`, and `apply`'s legality check, which lists
    only the mover) leaves positions partly listed, and later positions carry over only
    what was listed: every actor's actions still equal a listing from scratch, every actor
    with actions is among `actor_kinds` with each of its kinds, and `is_legal` agrees with
    the full listing, also for actions of other tribes' units and of other positions."""
    options = {"tribes": tribes} if tribes else {}
    s = GAME.new_state(6_000 + seed % 1000, seed, max_rounds=20, **options)
    rng = np.random.default_rng(seed)
    seen: list = []  # actions of earlier positions, some illegal now
    for step in range(400):
        if s.is_terminal():
            break
        if rich and step % 50 == 0:
            _enrich(s)
        c = s.copy()
        c.invalidate()
        legal = c.legal_actions()
        fresh = c.actions_by_actor()
        kinds = dict(A.actor_kinds(s))
        for actor, groups in fresh.items():
            assert actor in kinds and set(groups) <= set(kinds[actor]), (step, actor)
        for actor in kinds:  # a random half of the actors, listed alone
            if rng.random() < 0.5:
                assert A.actor_groups(s, actor) == fresh.get(actor, {}), (step, actor)
        for a in seen[-30:]:
            assert A.is_legal(s, a) == (a in legal), (step, a)
        for i in rng.integers(len(legal), size=3):
            assert A.is_legal(s, legal[i]), (step, legal[i])
        for u, unit in s.units.items():  # another tribe's units never act
            if unit.tribe != s.current:
                assert not any(A.is_legal(s, (A.MOVE, u, t, -1)) for t in s._nbrs[unit.pos])
        assert s._legal is None  # nothing above listed the whole position
        a = legal[int(rng.integers(len(legal)))]
        seen.append(a)
        s.apply(a)


def _ports_within_by_search(s, start: int, tid: int, steps: int = 4) -> set[int]:
    """`TribesState._ports_within` written as the plain breadth-first search over neutral or
    own water (the rule), without the water tiles kept between positions."""
    frontier, seen, out = [start], {start}, set()
    for _ in range(steps):
        nxt = []
        for i in frontier:
            for j in s._nbrs[i]:
                if j in seen or not K.IS_WATER[s.terrain[j]]:
                    continue
                o = s.tile_tribe(j)
                if o not in (-1, tid):
                    continue
                seen.add(j)
                if o == tid and s.building[j] == K.PORT:
                    out.add(j)
                nxt.append(j)
        frontier = nxt
    return out


def _connected_by_search(s, tid: int, start: int) -> set[int]:
    """`TribesState._connected_cities` written with `_is_net` and the plain port search."""
    seen, stack, found = {start}, [start], set()
    while stack:
        i = stack.pop()
        if s.terrain[i] == K.CITY:
            found.add(s.tile_city[i])
        nxt = [j for j in s._nbrs[i] if s._is_net(j, tid)]
        if s.building[i] == K.PORT:
            nxt += _ports_within_by_search(s, i, tid)
        for j in nxt:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return found


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       tribes=st.sampled_from([None, ("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR")]))
def test_trade_network_search_equals_plain_search(seed, tribes):
    """The own water tiles kept for the port-to-port search until owners change (shared by
    copies, `_ports_within`) give the ports and connected cities the plain search gives,
    after every action of random games where every tribe has every technology (so ports are
    built and destroyed, borders grow over water and cities are captured), also on copies
    that go on alone."""
    options = {"tribes": tribes} if tribes else {}
    s = GAME.new_state(7_000 + seed % 1000, seed, max_rounds=25, **options)
    rng = np.random.default_rng(seed)
    checked = 0
    for step in range(600):
        if s.is_terminal():
            break
        if step % 40 == 0:
            _enrich(s)
        ports = [i for i, b in enumerate(s.building) if b == K.PORT]
        for t in s.tribes:
            for p in ports:
                got = s._ports_within(p, t.id)
                assert len(got) == len(set(got)) and set(got) == _ports_within_by_search(s, p, t.id)
                checked += bool(got)
            if s.owns_original_capital(t.id):
                cap = s.cities[t.capital].pos
                assert s._connected_cities(t.id, cap) == _connected_by_search(s, t.id, cap)
        acts = s.legal_actions()
        builds = [a for a in acts if a[0] == A.BUILD and a[3] == K.PORT]
        pick = builds if builds and rng.random() < 0.5 else acts
        s.apply(pick[int(rng.integers(len(pick)))])
        if step % 17 == 0:
            s = s.copy()


def test_port_paths_open_when_the_city_owning_the_water_between_is_captured():
    """Tribe 0's ports at (2, 2) and (1, 6) are joined only through (2, 5), water of a
    tribe-1 city: no path while tribe 1 owns it, a path once tribe 0 captures the city, on the
    same position whose earlier answer was kept (a copy from before still says no path)."""
    from tests.games.tribes.builders import act, board, clear, game, idx, place, set_building

    water = {(2, 2): "s:", (2, 3): "s:", (2, 4): "s:", (2, 5): "s:", (1, 6): "s:"}
    s = game(board(cells={**water, (0, 7): "v:", (3, 6): "v:"}), mode=K.SCORE)
    act(s, "CAPTURE", place(s, "WARRIOR", 0, (0, 7)).id)
    act(s, "END_TURN")
    act(s, "CAPTURE", place(s, "WARRIOR", 1, (3, 6)).id)
    act(s, "END_TURN")
    set_building(s, (2, 2), "PORT")
    set_building(s, (1, 6), "PORT")
    clear(s, (3, 6))
    w = place(s, "WARRIOR", 0, (3, 6))
    assert s.tile_tribe(idx(s, (2, 5))) == 1 and s.tile_tribe(idx(s, (1, 6))) == 0
    assert s._ports_within(idx(s, (2, 2)), 0) == []
    before = s.copy()
    act(s, "CAPTURE", w.id)
    assert s.tile_tribe(idx(s, (2, 5))) == 0
    assert s._ports_within(idx(s, (2, 2)), 0) == [idx(s, (1, 6))]
    assert before._ports_within(idx(s, (2, 2)), 0) == []


def test_carried_listing_after_destroying_a_base_next_to_another_city():
    """Destroying a Lumber Hut re-lists the neighbouring city whose Sawmill needed it, not
    only the city that owned the hut."""
    from tests.games.tribes.builders import act, game, idx, place, set_building, set_terrain

    s = game(mode=K.SCORE)
    set_terrain(s, (1, 4), "VILLAGE")
    act(s, "CAPTURE", place(s, "WARRIOR", 0, (1, 4)).id)
    _enrich(s)
    set_building(s, (1, 2), "LUMBER_HUT")
    second = s.tile_city[idx(s, (1, 3))]
    assert second != s.tile_city[idx(s, (1, 2))]
    sawmill = (A.BUILD, second, idx(s, (1, 3)), K.SAWMILL)
    assert sawmill in s.legal_actions()
    act(s, "DESTROY", s.tile_city[idx(s, (1, 2))], idx(s, (1, 2)))
    assert _listing(s) == _fresh_actions(s)
    assert sawmill not in s.legal_actions()


def test_carried_listing_after_healing_reaches_a_mind_bender_two_tiles_away():
    """A Mind Bender that heals its neighbours changes the actions of another Mind Bender
    next to a healed unit (it has nobody left to heal)."""
    from tests.games.tribes.builders import act, game, place

    s = game(mode=K.SCORE)
    healer = place(s, "MIND_BENDER", 0, (3, 2))
    place(s, "WARRIOR", 0, (3, 3), hp=K.UNIT_HP[K.WARRIOR] - 2)
    other = place(s, "MIND_BENDER", 0, (3, 4))
    assert (A.HEAL_OTHERS, other.id, -1, -1) in s.legal_actions()
    act(s, "HEAL_OTHERS", healer.id)
    assert _listing(s) == _fresh_actions(s)
    assert (A.HEAL_OTHERS, other.id, -1, -1) not in s.legal_actions()


def _stale_reach(s) -> list:
    """The entries of `s._reach` that a unit would use (its key matches) but that differ
    from its reach worked out from scratch."""
    fresh = s.copy()
    fresh.invalidate()
    bad = []
    for uid, e in s._reach.items():
        u = s.units.get(uid)
        if u is None or e[0] != u.tribe or e[1] != u.pos or e[2] != u.type:
            continue
        techs = s.tribes[u.tribe].techs & A._MOVE_TECHS
        if e[3] == techs and A._reachable(fresh, u, u.tribe, techs)[0] != e[4]:
            bad.append(uid)
    return bad


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       tribes=st.sampled_from([None, ("XIN_XI", "IMPERIUS", "BARDUR"),
                               ("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR")]),
       end_turn=st.sampled_from([0.1, 0.3]), rich=st.booleans())
def test_carried_reach_equals_reach_from_scratch(seed, tribes, end_turn, rich):
    """In games of short turns (End Turn drawn with probability `end_turn`, moves preferred
    to the other actions), every reach entry a position carries that a unit would use equals
    the unit's reach worked out from scratch, and the listing equals one made from scratch.
    `rich`: as in `test_cached_listing_equals_listing_from_scratch`."""
    options = {"tribes": tribes} if tribes else {}
    s = GAME.new_state(7_000 + seed % 1000, seed, max_rounds=30, **options)
    rng = np.random.default_rng(seed)
    for step in range(600):
        if s.is_terminal():
            break
        if rich and step % 100 == 0:
            _enrich(s)
        acts = s.legal_actions()
        assert not _stale_reach(s), f"step {step}: a kept reach entry is stale"
        assert _listing(s) == _fresh_actions(s), f"step {step}: cached listing differs"
        if rng.random() < end_turn and acts[-1][0] == A.END_TURN:
            a = acts[-1]
        else:
            moves = [a for a in acts if a[0] == A.MOVE]
            pool = moves if moves and rng.random() < 0.7 else acts
            a = pool[int(rng.integers(len(pool)))]
        s.apply(a)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       tribes=st.sampled_from([None, ("OUMAJI", "HOODRICK", "LUXIDOOR", "VENGIR")]))
def test_reach_shortcuts_equal_dijkstra(seed, tribes):
    """`_reachable`'s shortcuts for land units of one move (off a road, and along roads and
    through cities) and for boats find the tiles, costs and order Dijkstra's search finds
    (`shortcuts=False`), for every unit of every tribe after every action of random games
    where roads are built often and every tribe has every technology now and then, and step
    from no tile Dijkstra does not."""
    options = {"tribes": tribes} if tribes else {}
    s = GAME.new_state(8_000 + seed % 1000, seed, max_rounds=25, **options)
    rng = np.random.default_rng(seed)
    for step in range(500):
        if s.is_terminal():
            break
        if step % 60 == 0:
            _enrich(s)
        for u in s.units.values():
            techs = s.tribes[u.tribe].techs & A._MOVE_TECHS
            got, stepped = A._reachable(s, u, u.tribe, techs)
            want, want_stepped = A._reachable(s, u, u.tribe, techs, shortcuts=False)
            assert list(got.items()) == list(want.items()), f"step {step}: unit {u.id}"
            assert set(stepped) <= set(want_stepped)
        acts = s.legal_actions()
        pool = [a for a in acts if a[0] == A.BUILD_ROAD]
        if not pool or rng.random() < 0.5:
            pool = acts
        s.apply(pool[int(rng.integers(len(pool)))])
