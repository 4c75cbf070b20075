"""Rule tests on hand-built positions, with the exact numbers of the rules document
(the shared Tribes rules document, ../shared/reference/tribes-rules.md; section numbers are given as §n).

The default board (tests.games.tribes.builders.board) is 8x8 plain with Xin-Xi (tribe 0) at (1, 1)
and Imperius (tribe 1) at (6, 6): tribe 0 owns rows 0-2 x columns 0-2, tribe 1 owns rows 5-7
x columns 5-7, everything else is neutral. Positions are (row, column). The game starts in
round 0 with tribe 0 to move.
"""

from __future__ import annotations

import pytest

from games.tribes import constants as K
from games.tribes.combat import attack_outcome, round_half_up
from games.tribes.levelgen import generate_level
from games.tribes.state import LOSS, WIN, TribesOptions, new_game
from tests.games.tribes.builders import (
    act,
    add_road,
    attack,
    attack_targets,
    board,
    capital,
    city_at,
    clear,
    end_turn,
    find,
    game,
    give_tech,
    idx,
    is_legal,
    legal,
    move,
    move_targets,
    owner,
    place,
    play_until_turn_of,
    reach,
    remove_tech,
    set_building,
    set_city,
    set_stars,
    set_terrain,
    set_unit,
    unit_at,
)


def corridor(**kw):
    """A board whose row 3 is a corridor between two walls of mountains (rows 2 and 4).
    Tribe 0 loses CLIMBING, so the walls are impassable for it. Capitals are far away in the
    corners, so row 3 is neutral."""
    cells = {(r, c): "m:" for r in (2, 4) for c in range(8)}
    s = game(board(cells=cells, capitals={(0, 0): 0, (7, 7): 1}), **kw)
    remove_tech(s, 0, "CLIMBING")
    return s


def hp(s, uid):
    return s.units[uid].hp


def status_name(s, uid):
    return K.STATUS_NAMES[s.units[uid].status]


# ====================================================================== combat (§6)

def test_round_half_up_is_not_bankers_rounding():
    assert round_half_up(4.5) == 5
    assert round_half_up(2.5) == 3
    assert round_half_up(0.5) == 1
    assert round_half_up(9.35) == 9
    assert round_half_up(2.77) == 3


def test_warrior_attacks_warrior_5_and_5():
    """§6.2: forces 2 vs 2, round(4.5) = 5 both ways (Python's round would give 4)."""
    s = game()
    a = place(s, "WARRIOR", 0, (3, 3))
    d = place(s, "WARRIOR", 1, (3, 4))
    assert attack_outcome(s, s.units[a.id], s.units[d.id]) == (5, 5)
    attack(s, a.id, d.id)
    assert hp(s, d.id) == 5
    assert hp(s, a.id) == 5


def test_warrior_attacks_defender_in_own_city_without_walls_3_and_9():
    """§6.2 worked example: Defender force 3 x 1.5 = 4.5; damage 3, retaliation 9."""
    s = game()
    clear(s, (6, 6))
    d = place(s, "DEFENDER", 1, (6, 6), home="capital")
    a = place(s, "WARRIOR", 0, (5, 5))
    attack(s, a.id, d.id)
    assert hp(s, d.id) == 15 - 3
    assert hp(s, a.id) == 10 - 9


def test_catapult_kills_warrior_with_12_and_stays():
    """§6.2: Catapult 4 vs Warrior 2: damage round(4/6 x 18) = 12. Ranged: no advance."""
    s = game()
    c = place(s, "CATAPULT", 0, (3, 1))
    big = place(s, "WARRIOR", 1, (4, 4), hp=15, max_hp=15, veteran=True)  # distance 3
    w = place(s, "WARRIOR", 1, (3, 4))  # distance 3
    assert attack_outcome(s, s.units[c.id], s.units[w.id])[0] == 12
    # a veteran warrior (15/15, same force 2) survives with 15 - 12 = 3
    before1 = s.tribes[1].score
    attack(s, c.id, big.id)
    assert hp(s, big.id) == 3
    assert hp(s, c.id) == 10  # distance 3 > the warrior's range 1: no retaliation
    assert s.tribes[1].score == before1

    s = game()
    c = place(s, "CATAPULT", 0, (3, 1))
    w = place(s, "WARRIOR", 1, (3, 4))
    before1 = s.tribes[1].score
    attack(s, c.id, w.id)
    assert w.id not in s.units
    assert unit_at(s, (3, 4)) is None  # the catapult does not advance
    assert unit_at(s, (3, 1)).id == c.id
    assert s.units[c.id].kills == 1 and s.tribes[0].kills == 1
    assert s.tribes[1].score == before1 - 10  # §3.7: the owner loses the unit's points


def test_walls_multiply_defence_by_4():
    """§6.3: walls x4: Warrior vs Warrior in a walled city: 2 vs 8 -> damage round(1.8) = 2,
    retaliation round(7.2) = 7."""
    s = game()
    set_city(s, capital(s, 1).id, walls=True)
    d = unit_at(s, (6, 6))  # Imperius's starting warrior
    a = place(s, "WARRIOR", 0, (5, 5))
    attack(s, a.id, d.id)
    assert hp(s, d.id) == 8
    assert hp(s, a.id) == 3


@pytest.mark.parametrize("walls,damage,retaliation", [(False, 6, 2), (True, 3, 3)])
def test_walls_apply_to_units_that_cannot_fortify(walls, damage, retaliation):
    """§6.3: walls x4 apply to any unit type; without walls a Mind Bender (cannot fortify)
    gets x1. Warrior 2 vs Mind Bender 1 (x1) or 4 (x4)."""
    s = game()
    clear(s, (6, 6))
    set_city(s, capital(s, 1).id, walls=walls)
    d = place(s, "MIND_BENDER", 1, (6, 6), home="capital")
    a = place(s, "WARRIOR", 0, (5, 5))
    attack(s, a.id, d.id)
    assert hp(s, d.id) == 10 - damage
    assert hp(s, a.id) == 10 - retaliation


def test_no_city_bonus_in_an_enemy_city():
    """§6.3: a unit standing on an enemy city centre gets x1, even if that city has walls."""
    s = game()
    set_city(s, capital(s, 0).id, walls=True)
    clear(s, (1, 1))
    d = place(s, "WARRIOR", 1, (1, 1))
    a = place(s, "WARRIOR", 0, (1, 2))
    attack(s, a.id, d.id)
    assert (hp(s, d.id), hp(s, a.id)) == (5, 5)


@pytest.mark.parametrize("defender_techs,expected", [
    ((), (5, 5)),                    # no bonus
    (("HUNTING",), (5, 5)),          # HUNTING alone gives nothing
    (("HUNTING", "ARCHERY"), (6, 5)),  # x1.5: damage round(3.6) = 4, retaliation round(5.4) = 5
])
def test_forest_defence_needs_archery(defender_techs, expected):
    s = game()
    give_tech(s, 0, "HUNTING", "ARCHERY")  # the attacker's techs do not matter
    set_terrain(s, (3, 4), "FOREST")
    d = place(s, "WARRIOR", 1, (3, 4))
    give_tech(s, 1, *defender_techs)
    a = place(s, "WARRIOR", 0, (3, 3))
    attack(s, a.id, d.id)
    assert (hp(s, d.id), hp(s, a.id)) == expected


@pytest.mark.parametrize("defender_techs,expected", [
    (("CLIMBING",), (5, 5)),                 # [quirk] CLIMBING gives no mountain defence
    (("CLIMBING", "MEDITATION"), (6, 5)),    # MEDITATION gives x1.5
])
def test_mountain_defence_needs_meditation(defender_techs, expected):
    s = game()
    set_terrain(s, (3, 4), "MOUNTAIN")
    d = place(s, "WARRIOR", 1, (3, 4))
    give_tech(s, 1, *defender_techs)
    a = place(s, "WARRIOR", 0, (3, 3))
    attack(s, a.id, d.id)
    assert (hp(s, d.id), hp(s, a.id)) == expected


def test_damaged_attacker_uses_its_hp_and_dies_to_retaliation():
    """§6.2: Warrior at 5/10 (force 1) vs full Warrior (2): damage round(3) = 3, retaliation
    round(6) = 6 >= 5: the attacker dies, the defender gets the kill, its owner loses 10."""
    s = game()
    a = place(s, "WARRIOR", 0, (3, 3), hp=5)
    d = place(s, "WARRIOR", 1, (3, 4))
    before0 = s.tribes[0].score
    attack(s, a.id, d.id)
    assert hp(s, d.id) == 7
    assert a.id not in s.units and unit_at(s, (3, 3)) is None
    assert s.units[d.id].kills == 1 and s.tribes[1].kills == 1
    assert s.tribes[0].score == before0 - 10


def test_retaliation_only_within_the_defenders_range():
    """§6.2 step 3: an Archer at distance 2 takes no retaliation from a Warrior (range 1)."""
    s = game()
    ar = place(s, "ARCHER", 0, (3, 2))
    w = place(s, "WARRIOR", 1, (3, 4))
    attack(s, ar.id, w.id)
    assert hp(s, w.id) == 5  # 2 vs 2: damage 5
    assert hp(s, ar.id) == 10

    # the same attack from distance 1 is answered: 5
    s = game()
    ar = place(s, "ARCHER", 0, (3, 3))
    w = place(s, "WARRIOR", 1, (3, 4))
    attack(s, ar.id, w.id)
    assert (hp(s, w.id), hp(s, ar.id)) == (5, 5)

    # an Archer target (range 2) does answer at distance 2: 2 vs 1 -> 6 and round(1.5) = 2
    s = game()
    ar = place(s, "ARCHER", 0, (3, 2))
    ar2 = place(s, "ARCHER", 1, (3, 4))
    attack(s, ar.id, ar2.id)
    assert (hp(s, ar2.id), hp(s, ar.id)) == (4, 8)


def test_melee_attacker_advances_after_a_kill():
    """§6.2 step 2: a Warrior that kills moves into the target's tile and is FINISHED."""
    s = game()
    a = place(s, "WARRIOR", 0, (3, 3))
    d = place(s, "WARRIOR", 1, (3, 4), hp=5)  # 2 vs 1 -> damage 6 kills
    place(s, "WARRIOR", 1, (3, 5))
    attack(s, a.id, d.id)
    assert d.id not in s.units
    assert unit_at(s, (3, 4)).id == a.id
    assert unit_at(s, (3, 3)) is None
    assert hp(s, a.id) == 10  # a dead target does not retaliate
    assert status_name(s, a.id) == "FINISHED"
    assert legal(s, actor=a.id) == []  # a Warrior does not keep attacking


def test_ranged_attacker_does_not_advance_after_a_kill():
    s = game()
    ar = place(s, "ARCHER", 0, (3, 3))
    d = place(s, "WARRIOR", 1, (3, 4), hp=3)
    attack(s, ar.id, d.id)
    assert d.id not in s.units
    assert unit_at(s, (3, 4)) is None
    assert unit_at(s, (3, 3)).id == ar.id


def test_melee_attacker_does_not_advance_onto_a_mountain_without_climbing():
    """§6.2 step 2 / §2.8: the advance follows the push acceptance test."""
    s = game()
    remove_tech(s, 0, "CLIMBING")
    set_terrain(s, (3, 4), "MOUNTAIN")
    a = place(s, "WARRIOR", 0, (3, 3))
    d = place(s, "WARRIOR", 1, (3, 4), hp=1)
    attack(s, a.id, d.id)
    assert d.id not in s.units
    assert unit_at(s, (3, 3)).id == a.id
    assert unit_at(s, (3, 4)) is None


def test_knight_keeps_attacking_while_it_kills():
    """§5.2 persist: after each kill the Knight is ATTACKED and may attack again; it cannot
    move; a non-lethal attack finishes it. Knight 4 vs Defender 3: damage round(10.29) = 10,
    retaliation round(5.79) = 6."""
    s = game()
    kn = place(s, "KNIGHT", 0, (3, 1))
    w1 = place(s, "WARRIOR", 1, (3, 2), hp=1)
    w2 = place(s, "WARRIOR", 1, (3, 3), hp=1)
    df = place(s, "DEFENDER", 1, (2, 4))
    attack(s, kn.id, w1.id)
    assert unit_at(s, (3, 2)).id == kn.id
    assert status_name(s, kn.id) == "ATTACKED"
    assert legal(s, "MOVE", kn.id) == []
    attack(s, kn.id, w2.id)
    assert unit_at(s, (3, 3)).id == kn.id
    assert status_name(s, kn.id) == "ATTACKED"
    attack(s, kn.id, df.id)
    assert hp(s, df.id) == 5
    assert hp(s, kn.id) == 9
    assert status_name(s, kn.id) == "FINISHED"
    assert legal(s, actor=kn.id) == []
    assert s.units[kn.id].kills == 2


# ====================================================================== movement (§2.7)

def test_forest_ends_movement():
    s = corridor()
    kn = place(s, "KNIGHT", 0, (3, 0))
    set_terrain(s, (3, 2), "FOREST")
    r = reach(s, kn.id)
    assert r[(3, 1)] == 1.0
    assert r[(3, 2)] == 3.0  # the rest of the turn
    assert (3, 3) not in r
    # control: without the forest the Knight gets 3 tiles along the corridor
    set_terrain(s, (3, 2), "PLAIN")
    r = reach(s, kn.id)
    assert r[(3, 2)] == 2.0 and r[(3, 3)] == 3.0


def test_mountain_needs_climbing_and_ends_movement():
    s = corridor()
    kn = place(s, "KNIGHT", 0, (3, 3))
    assert (2, 3) not in move_targets(s, kn.id)
    assert (4, 3) not in move_targets(s, kn.id)
    give_tech(s, 0, "CLIMBING")
    targets = move_targets(s, kn.id)
    assert (2, 3) in targets and (4, 3) in targets
    r = reach(s, kn.id)
    assert r[(2, 3)] == 3.0
    # row 1 lies beyond the mountain wall: a Knight (MOV 3) cannot get past it
    assert not any(x == 1 for x, _ in r)


def test_road_halves_the_cost():
    s = game()
    w = place(s, "WARRIOR", 0, (3, 2))
    assert (3, 4) not in reach(s, w.id)
    add_road(s, (3, 2), (3, 3), (3, 4))
    r = reach(s, w.id)
    assert r[(3, 3)] == 0.5
    assert r[(3, 4)] == 1.0
    assert (3, 5) not in r
    assert (3, 4) in move_targets(s, w.id)


def test_road_overshoot_quirk_mov1():
    """§2.7 rule 7 [quirk]: MOV 1 takes a road step (0.5) then a plain step (1): 1.5."""
    s = game()
    w = place(s, "WARRIOR", 0, (3, 2))
    add_road(s, (3, 2), (3, 3))
    r = reach(s, w.id)
    assert r[(3, 4)] == 1.5
    assert (3, 4) in move_targets(s, w.id)
    assert (3, 5) not in r
    move(s, w.id, (3, 4))
    assert unit_at(s, (3, 4)).id == w.id


def test_road_overshoot_quirk_rider():
    """§2.7: a Rider (MOV 2) takes road, plain, plain for 0.5 + 1 + 1 = 2.5."""
    s = game()
    rd = place(s, "RIDER", 0, (3, 1))
    add_road(s, (3, 1), (3, 2))
    r = reach(s, rd.id)
    assert r[(3, 4)] == 2.5
    assert (3, 5) not in r


def test_city_centre_counts_as_road():
    """§2.7: the road bonus starts from a road or a city centre."""
    s = game()
    w = unit_at(s, (1, 1))  # starting warrior on its capital
    add_road(s, (1, 2))
    r = reach(s, w.id)
    assert r[(1, 2)] == 0.5
    assert r[(1, 3)] == 1.5  # overshoot from the road tile


def test_road_through_forest_keeps_moving():
    """§2.7 [quirk]: the road bonus also applies to forest steps."""
    s = game()
    w = place(s, "WARRIOR", 0, (3, 2))
    set_terrain(s, (3, 3), "FOREST")
    add_road(s, (3, 2), (3, 4))
    r = reach(s, w.id)
    assert r[(3, 3)] == 1.0 and (3, 4) not in r  # forest without a road stops the unit
    add_road(s, (3, 3))
    r = reach(s, w.id)
    assert r[(3, 3)] == 0.5
    assert r[(3, 4)] == 1.0


def test_road_bonus_needs_start_tile_neutral_or_own():
    """§2.7: A must be neutral or own territory; B's ownership is not checked [quirk]."""
    s = game()
    clear(s, (6, 6))  # no zone of control from Imperius's warrior
    w = place(s, "WARRIOR", 0, (4, 4))
    add_road(s, (4, 4), (5, 5))
    assert owner(s, (5, 5)) == 1
    assert reach(s, w.id)[(5, 5)] == 0.5  # into enemy territory: bonus applies
    s = game()
    clear(s, (6, 6))
    w = place(s, "WARRIOR", 0, (5, 5))  # road in enemy territory
    add_road(s, (5, 5), (4, 4))
    assert reach(s, w.id)[(4, 4)] == 1.0  # out of enemy territory: no bonus


def test_zone_of_control_stops_movement():
    """§2.7 rule 6: entering a tile next to an enemy costs the rest of the turn."""
    s = corridor()
    kn = place(s, "KNIGHT", 0, (3, 2))
    r = reach(s, kn.id)
    assert r[(3, 5)] == 3.0  # control, no enemy
    place(s, "WARRIOR", 1, (2, 4))  # on the mountain wall, next to (3, 3), (3, 4), (3, 5)
    r = reach(s, kn.id)
    assert r[(3, 3)] == 3.0
    assert (3, 4) not in r and (3, 5) not in r
    assert (3, 3) in move_targets(s, kn.id)


def test_zone_of_control_ignores_the_start_tile():
    s = corridor()
    kn = place(s, "KNIGHT", 0, (3, 3))
    place(s, "WARRIOR", 1, (2, 4))
    r = reach(s, kn.id)
    # leaving the enemy's zone is free
    assert r[(3, 2)] == 1.0 and r[(3, 1)] == 2.0 and r[(3, 0)] == 3.0
    # moving along it stops
    assert r[(3, 4)] == 3.0 and (3, 5) not in r


def test_pass_through_friendly_units_but_not_end_there():
    s = corridor()
    rd = place(s, "RIDER", 0, (3, 1))
    fr = place(s, "WARRIOR", 0, (3, 2))
    targets = move_targets(s, rd.id)
    assert (3, 3) in targets
    assert (3, 2) not in targets
    move(s, rd.id, (3, 3))
    assert unit_at(s, (3, 2)).id == fr.id


def test_never_enter_or_pass_enemy_tiles():
    s = corridor()
    rd = place(s, "RIDER", 0, (3, 1))
    en = place(s, "WARRIOR", 1, (3, 2))
    targets = move_targets(s, rd.id)
    assert (3, 2) not in targets and (3, 3) not in targets
    assert (3, 0) in targets
    assert en.id in attack_targets(s, rd.id)


def _port_board():
    s = game(board(cells={(3, 4): "s:", (3, 5): "d:"}))
    w = place(s, "WARRIOR", 0, (3, 3), hp=7, kills=2, home="capital")
    return s, w


def test_embarking_needs_a_port_and_sailing():
    s, w = _port_board()
    give_tech(s, 0, "FISHING", "SAILING")
    assert (3, 4) not in move_targets(s, w.id)  # no port
    s, w = _port_board()
    set_building(s, (3, 4), "PORT")
    assert (3, 4) not in move_targets(s, w.id)  # no SAILING
    give_tech(s, 0, "FISHING", "SAILING")
    assert (3, 4) in move_targets(s, w.id)
    assert reach(s, w.id)[(3, 4)] == 1.0


def test_embarking_makes_a_new_finished_boat():
    s, w = _port_board()
    set_building(s, (3, 4), "PORT")
    give_tech(s, 0, "FISHING", "SAILING")
    old = w.id
    move(s, old, (3, 4))
    b = unit_at(s, (3, 4))
    assert b is not None and b.type == K.BOAT
    assert b.id != old and old not in s.units
    assert K.STATUS_NAMES[b.status] == "FINISHED"
    assert (b.hp, b.max_hp, b.kills) == (7, 10, 2)
    assert b.base == K.WARRIOR
    assert b.tribe == 0
    assert b.id in capital(s, 0).units and old not in capital(s, 0).units
    assert unit_at(s, (3, 3)) is None


def test_boat_landing_becomes_the_land_unit_again():
    s = game(board(cells={(3, 4): "s:", (3, 5): "d:"}))
    give_tech(s, 0, "FISHING", "SAILING")
    b = place(s, "BOAT", 0, (3, 4), hp=6, kills=3, base="ARCHER", home="capital")
    assert (3, 5) not in move_targets(s, b.id)  # deep water needs NAVIGATION
    assert (3, 3) in move_targets(s, b.id)
    move(s, b.id, (3, 3))
    u = unit_at(s, (3, 3))
    assert u.type == K.ARCHER
    assert u.id != b.id and b.id not in s.units
    assert (u.hp, u.max_hp, u.kills) == (6, 10, 3)
    assert K.STATUS_NAMES[u.status] == "FINISHED"
    assert u.id in capital(s, 0).units


def test_boat_enters_deep_water_with_navigation():
    s = game(board(cells={(3, 4): "s:", (3, 5): "d:"}))
    give_tech(s, 0, "FISHING", "SAILING", "NAVIGATION")
    b = place(s, "BOAT", 0, (3, 4))
    assert (3, 5) in move_targets(s, b.id)


# ====================================================================== unit status machine (§5.2)

@pytest.mark.parametrize("reference_bugs", [False, True])
def test_rider_move_attack_move(reference_bugs):
    """§5.2: a Rider can move, attack, then move again (in both rule modes)."""
    s = game(reference_bugs=reference_bugs)
    rd = place(s, "RIDER", 0, (3, 2))
    en = place(s, "WARRIOR", 1, (3, 4))
    move(s, rd.id, (3, 3))
    assert status_name(s, rd.id) == "MOVED"
    assert legal(s, "MOVE", rd.id) == []
    attack(s, rd.id, en.id)
    assert status_name(s, rd.id) == "MOVED_AND_ATTACKED"
    assert (hp(s, rd.id), hp(s, en.id)) == (5, 5)
    move(s, rd.id, (3, 2))
    assert status_name(s, rd.id) == "FINISHED"
    assert legal(s, actor=rd.id) == []


@pytest.mark.parametrize("reference_bugs", [False, True])
def test_rider_attack_then_one_move_only(reference_bugs):
    """§5.2 [quirk], §14 item 9: a Rider that attacks first gets one move, which leaves it
    FINISHED (ATTACKED -move-> FINISHED); attack, move, move never happens."""
    s = game(reference_bugs=reference_bugs)
    rd = place(s, "RIDER", 0, (3, 3))
    en = place(s, "WARRIOR", 1, (3, 4))
    attack(s, rd.id, en.id)
    assert status_name(s, rd.id) == "ATTACKED"
    assert legal(s, "ATTACK", rd.id) == []
    assert (3, 2) in move_targets(s, rd.id)
    move(s, rd.id, (3, 2))
    assert status_name(s, rd.id) == "FINISHED"
    assert legal(s, "MOVE", rd.id) == []
    assert legal(s, actor=rd.id) == []


def test_warrior_dash_move_then_attack_but_not_attack_then_move():
    s = game()
    w = place(s, "WARRIOR", 0, (3, 2))
    en = place(s, "WARRIOR", 1, (3, 4))
    move(s, w.id, (3, 3))
    assert status_name(s, w.id) == "MOVED"
    assert legal(s, "MOVE", w.id) == []
    attack(s, w.id, en.id)
    assert status_name(s, w.id) == "FINISHED"

    s = game()
    w = place(s, "WARRIOR", 0, (3, 3))
    en = place(s, "WARRIOR", 1, (3, 4))
    attack(s, w.id, en.id)
    assert status_name(s, w.id) == "FINISHED"
    assert legal(s, "MOVE", w.id) == []


@pytest.mark.parametrize("utype", ["DEFENDER", "CATAPULT", "SUPERUNIT"])
def test_move_or_attack_units(utype):
    """§5.2: Defender, Catapult and (quirk) Super Unit can move or attack, not both."""
    s = game()
    u = place(s, utype, 0, (3, 3))
    place(s, "WARRIOR", 1, (3, 5))
    assert is_legal(s, "ATTACK", u.id) == (utype == "CATAPULT")  # range 3 reaches (3, 5)
    move(s, u.id, (3, 4))
    assert status_name(s, u.id) == "FINISHED"
    assert legal(s, "ATTACK", u.id) == []
    assert legal(s, actor=u.id) == []

    s = game()
    u = place(s, utype, 0, (3, 4))
    en = place(s, "WARRIOR", 1, (3, 5), hp=15, max_hp=15)
    attack(s, u.id, en.id)
    assert status_name(s, u.id) == "FINISHED"
    assert legal(s, "MOVE", u.id) == []


# ====================================================================== cities: level-up (§7)

def test_level_up_thresholds_and_blocking():
    s = game()
    cap = capital(s, 0)
    set_city(s, cap.id, pop=1)
    assert legal(s, "LEVEL_UP") == []
    assert is_legal(s, "END_TURN")
    set_city(s, cap.id, pop=2)
    acts = set(s.legal_actions())
    assert acts == {find(s, "LEVEL_UP", cap.id, "WORKSHOP"), find(s, "LEVEL_UP", cap.id, "EXPLORER")}
    assert not is_legal(s, "END_TURN")
    assert not is_legal(s, "MOVE")


def test_level_up_chain_points_and_bonuses():
    """§7.2/§7.3/§3.7: needs 2, 3, 4, 5; +40, +35, +30 (+20 per new tile), +25 (+250 PARK)."""
    s = game()
    cid = capital(s, 0).id
    sc = s.tribes[0].score
    worth = s.cities[cid].worth

    set_city(s, cid, pop=2)
    act(s, "LEVEL_UP", cid, "WORKSHOP")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need, c.prod_bonus) == (2, 0, 3, 1)
    assert c.production() == 2 + 1 + 1
    assert s.tribes[0].score == sc + 40 and c.worth == worth + 40

    set_city(s, cid, pop=2)
    assert legal(s, "LEVEL_UP") == []
    set_city(s, cid, pop=3)
    assert {a[2] for a in legal(s, "LEVEL_UP")} == {K.CITY_WALL, K.RESOURCES}
    stars0 = s.tribes[0].stars
    act(s, "LEVEL_UP", cid, "RESOURCES")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need) == (3, 0, 4)
    assert s.tribes[0].stars == stars0 + 5
    assert s.tribes[0].score == sc + 40 + 35

    set_city(s, cid, pop=3)
    assert legal(s, "LEVEL_UP") == []
    set_city(s, cid, pop=4)
    assert {a[2] for a in legal(s, "LEVEL_UP")} == {K.POP_GROWTH, K.BORDER_GROWTH}
    act(s, "LEVEL_UP", cid, "BORDER_GROWTH")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need, c.bound) == (4, 0, 5, 2)
    # radius 2 around (1, 1) on the board: rows 0-3 x columns 0-3 = 16 tiles, 9 owned before
    assert owner(s, (3, 3)) == 0
    assert s.tribes[0].score == sc + 40 + 35 + 30 + 7 * 20

    set_city(s, cid, pop=4)
    assert legal(s, "LEVEL_UP") == []
    set_city(s, cid, pop=5)
    assert {a[2] for a in legal(s, "LEVEL_UP")} == {K.PARK, K.SUPERUNIT_BONUS}
    act(s, "LEVEL_UP", cid, "PARK")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need) == (5, 0, 6)
    assert s.tribes[0].score == sc + 40 + 35 + 30 + 140 + 25 + 250


def test_level_up_surplus_carries_over():
    s = game()
    cid = capital(s, 0).id
    set_city(s, cid, pop=3)
    act(s, "LEVEL_UP", cid, "EXPLORER")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need, c.prod_bonus) == (2, 1, 3, 0)


def test_level_up_walls_and_pop_growth():
    s = game()
    cid = capital(s, 0).id
    set_city(s, cid, level=2, pop=3)
    act(s, "LEVEL_UP", cid, "CITY_WALL")
    assert s.cities[cid].walls
    sc = s.tribes[0].score
    set_city(s, cid, pop=4)
    act(s, "LEVEL_UP", cid, "POP_GROWTH")
    c = s.cities[cid]
    assert (c.level, c.pop, c.pop_need) == (4, 3, 5)
    assert s.tribes[0].score == sc + 30 + 3 * 5


def test_level_up_super_unit_pushes_the_occupant_and_gives_no_points():
    """§7.3 / §2.8: the occupant goes to the first free offset (0, +1), becomes PUSHED and
    is MOVED at its next turn; the Super Unit gives no points [quirk], the level +25."""
    s = game()
    cid = capital(s, 0).id
    w = unit_at(s, (1, 1))
    set_city(s, cid, level=4, pop=5)
    sc = s.tribes[0].score
    act(s, "LEVEL_UP", cid, "SUPERUNIT")
    su = unit_at(s, (1, 1))
    assert su.type == K.SUPERUNIT and su.hp == 40
    assert K.STATUS_NAMES[su.status] == "FINISHED"
    assert unit_at(s, (1, 2)).id == w.id
    assert status_name(s, w.id) == "PUSHED"
    assert s.tribes[0].score == sc + 25
    play_until_turn_of(s, 0)
    assert status_name(s, w.id) == "MOVED"
    assert status_name(s, su.id) == "FRESH"


# ====================================================================== technology (§10)

def _research(s, name):
    before_stars, before_score = s.tribes[0].stars, s.tribes[0].score
    act(s, "RESEARCH_TECH", 0, name)
    return before_stars - s.tribes[0].stars, s.tribes[0].score - before_score


def _second_city(s, at=(3, 4)):
    """Tribe 0 captures a village at `at` with a fresh warrior (a second city)."""
    set_terrain(s, at, "VILLAGE")
    w = place(s, "WARRIOR", 0, at)
    act(s, "CAPTURE", w.id)
    assert len(s.tribes[0].cities) == 2
    return w


def test_tech_costs_with_one_city():
    s = game()
    set_stars(s, 0, 18)
    assert _research(s, "FISHING") == (5, 100)
    assert _research(s, "SAILING") == (6, 200)
    assert _research(s, "NAVIGATION") == (7, 300)
    assert s.tribes[0].stars == 0


def test_tech_costs_with_two_cities():
    s = game()
    _second_city(s)
    set_stars(s, 0, 24)
    assert _research(s, "FISHING") == (6, 100)
    assert _research(s, "SAILING") == (8, 200)
    assert _research(s, "NAVIGATION") == (10, 300)


def test_philosophy_cost_factor_truncated():
    """§10 [quirk]: cost x 0.2 truncated: with 2 cities 6 -> 1, 8 -> 1, 10 -> 2."""
    s = game()
    _second_city(s)
    give_tech(s, 0, "MEDITATION", "PHILOSOPHY")
    set_stars(s, 0, 10)
    assert _research(s, "FISHING") == (1, 100)
    assert _research(s, "SAILING") == (1, 200)
    assert _research(s, "NAVIGATION") == (2, 300)


def test_research_needs_the_stars():
    s = game()
    set_stars(s, 0, 4)
    assert legal(s, "RESEARCH_TECH") == []
    set_stars(s, 0, 5)
    offered = {a[2] for a in legal(s, "RESEARCH_TECH")}
    assert K.FISHING in offered
    assert K.MEDITATION not in offered  # tier 2 costs 6


def test_research_prerequisites():
    s = game()
    set_stars(s, 0, 100)
    offered = {K.TECH_NAMES[a[2]] for a in legal(s, "RESEARCH_TECH")}
    # Xin-Xi starts with CLIMBING
    assert offered == {"FISHING", "HUNTING", "ORGANIZATION", "RIDING", "MEDITATION", "MINING"}
    act(s, "RESEARCH_TECH", 0, "FISHING")
    offered = {K.TECH_NAMES[a[2]] for a in legal(s, "RESEARCH_TECH")}
    assert offered == {"HUNTING", "ORGANIZATION", "RIDING", "MEDITATION", "MINING", "WHALING",
                       "SAILING"}


# ====================================================================== score (§3.7)

def test_standard_setup_starts_at_390():
    lv = generate_level(1590191438878)
    s = new_game(lv, 1, TribesOptions())
    # turn order is the row-major order of the capitals: Imperius's capital comes first here
    assert [t.key for t in s.tribes] == [1, 0]
    for t in s.tribes:
        assert t.score == 100 + 100 + 10 + 9 * 20 == 390
        assert t.stars == 5
        assert s.tiles_owned(t.id) == 9
        assert len(t.cities) == 1


def test_capital_on_the_edge_claims_fewer_tiles():
    s = game(board(capitals={(0, 0): 0, (7, 7): 1}))
    assert s.tribes[0].score == 100 + 100 + 10 + 4 * 20
    assert s.tiles_owned(0) == 4


def test_population_gives_5_points():
    s = game(board(cells={(0, 0): ".:f"}))
    give_tech(s, 0, "ORGANIZATION")
    set_stars(s, 0, 2)
    cid = capital(s, 0).id
    sc, worth = s.tribes[0].score, s.cities[cid].worth
    act(s, "RESOURCE_GATHERING", cid, (0, 0))
    assert s.cities[cid].pop == 1
    assert s.tribes[0].stars == 0
    assert s.tribes[0].score == sc + 5
    assert s.cities[cid].worth == worth + 5
    assert s.resource[idx(s, (0, 0))] == K.NO_RESOURCE


@pytest.mark.parametrize("utype,techs,cost,points", [
    ("WARRIOR", (), 2, 10), ("RIDER", ("RIDING",), 3, 15), ("ARCHER", ("HUNTING", "ARCHERY"), 3, 15),
    ("CATAPULT", ("HUNTING", "FORESTRY", "MATHEMATICS"), 8, 40),
])
def test_spawn_costs_stars_and_gives_points(utype, techs, cost, points):
    s = game()
    cid = capital(s, 0).id
    clear(s, (1, 1))
    give_tech(s, 0, *techs)
    set_stars(s, 0, 10)
    sc = s.tribes[0].score
    act(s, "SPAWN", cid, utype)
    u = unit_at(s, (1, 1))
    assert u.type == K.UNIT_OF_NAME[utype]
    assert K.STATUS_NAMES[u.status] == "FINISHED"
    assert u.id in s.cities[cid].units
    assert s.tribes[0].stars == 10 - cost
    assert s.tribes[0].score == sc + points
    assert legal(s, "SPAWN") == []  # the city tile is occupied now


def test_unit_death_loses_its_points():
    s = game()
    kn = place(s, "KNIGHT", 0, (3, 3))
    ar = place(s, "ARCHER", 1, (3, 4))
    sc1 = s.tribes[1].score
    attack(s, kn.id, ar.id)  # 4 vs 1 -> damage round(14.4) = 14 kills
    assert ar.id not in s.units
    assert s.tribes[1].score == sc1 - 15


# ====================================================================== capture (§7.6)

def test_village_capture():
    s = game(board(cells={(3, 4): "v:"}))
    w = place(s, "WARRIOR", 0, (3, 4), home="capital")
    sc = s.tribes[0].score
    act(s, "CAPTURE", w.id)
    c = city_at(s, (3, 4))
    assert c.tribe == 0
    assert (c.level, c.pop, c.pop_need, c.capital, c.bound) == (1, 0, 2, False, 1)
    assert s.terrain[idx(s, (3, 4))] == K.CITY
    assert c.id in s.tribes[0].cities and len(s.tribes[0].cities) == 2
    for x in (2, 3, 4):
        for y in (3, 4, 5):
            assert s.tile_city[idx(s, (x, y))] == c.id
    assert s.tribes[0].score == sc + 100 + 9 * 20
    assert c.worth == 9 * 20
    assert status_name(s, w.id) == "FINISHED"
    # [bug 16] fixed by default: the capturing unit joins the new city
    assert s.units[w.id].home == c.id and w.id in c.units
    assert w.id not in capital(s, 0).units


def test_village_capture_skips_owned_tiles():
    s = game(board(cells={(3, 3): "v:"}))  # (2, 2) already belongs to the capital
    w = place(s, "WARRIOR", 0, (3, 3))
    sc = s.tribes[0].score
    act(s, "CAPTURE", w.id)
    c = city_at(s, (3, 3))
    assert s.tile_city[idx(s, (2, 2))] == capital(s, 0).id
    assert s.tribes[0].score == sc + 100 + 8 * 20
    assert c.worth == 8 * 20


def test_capture_requires_starting_the_turn_on_the_tile():
    s = game(board(cells={(3, 4): "v:"}))
    w = place(s, "WARRIOR", 0, (3, 3))
    move(s, w.id, (3, 4))
    assert legal(s, "CAPTURE") == []
    play_until_turn_of(s, 0)
    assert status_name(s, w.id) == "FRESH"
    act(s, "CAPTURE", w.id)
    assert city_at(s, (3, 4)).tribe == 0


def test_capturing_the_enemy_capital_ends_a_capitals_game():
    s = game()
    clear(s, (6, 6))
    w = place(s, "WARRIOR", 0, (6, 6))
    sc0, sc1 = s.tribes[0].score, s.tribes[1].score
    worth = capital(s, 1).worth
    assert worth == 9 * 20
    act(s, "CAPTURE", w.id)
    assert s.cities[s.tribes[1].capital].tribe == 0
    assert s.game_over and s.is_terminal()
    assert s.winner() == 0
    assert s.tribes[0].result == WIN and s.tribes[1].result == LOSS
    assert s.tribes[0].score == sc0 + worth
    assert s.tribes[1].score == sc1 - worth
    assert s.legal_actions() == []


def _enemy_with_two_cities(mode):
    """Tribe 1 founds a second city at (3, 6) in its round-0 turn; then it is tribe 0's turn
    (round 1) with a fresh tribe-0 warrior on Imperius's capital."""
    s = game(board(cells={(3, 6): "v:"}), mode=mode)
    end_turn(s)
    assert s.current == 1
    w1 = place(s, "WARRIOR", 1, (3, 6))
    act(s, "CAPTURE", w1.id)
    assert len(s.tribes[1].cities) == 2
    end_turn(s)
    assert s.current == 0
    clear(s, (6, 6))
    w = place(s, "WARRIOR", 0, (6, 6))
    return s, w


def test_capital_capture_wins_in_capitals_mode_even_if_the_enemy_has_other_cities():
    s, w = _enemy_with_two_cities(K.CAPITALS)
    act(s, "CAPTURE", w.id)
    assert s.game_over and s.winner() == 0


def test_capital_capture_does_not_end_a_score_game_while_the_enemy_has_cities():
    s, w = _enemy_with_two_cities(K.SCORE)
    sc0, sc1 = s.tribes[0].score, s.tribes[1].score
    worth = capital(s, 1).worth
    act(s, "CAPTURE", w.id)
    assert not s.game_over
    assert s.tribes[1].result != LOSS and len(s.tribes[1].cities) == 1
    assert s.tribes[0].score == sc0 + worth and s.tribes[1].score == sc1 - worth
    assert len(s.tribes[0].cities) == 2


# ====================================================================== turn start / end (§3.2, §3.4)

def test_round_zero_sets_stars_to_5_then_income_is_production():
    s = game()
    set_stars(s, 1, 50)  # round 0: Imperius's stars are set to 5 when its turn starts
    end_turn(s)
    assert s.current == 1 and s.tick == 0
    assert s.tribes[1].stars == 5
    end_turn(s)
    assert s.current == 0 and s.tick == 1
    assert s.tribes[0].stars == 5 + 2  # capital level 1: 1 + 0 + 1
    end_turn(s)
    assert s.tribes[1].stars == 5 + 2


def test_income_is_level_plus_bonus_plus_capital():
    s = game(board(cells={(3, 4): "v:"}))
    set_city(s, capital(s, 0).id, level=3, prod_bonus=1)
    w = place(s, "WARRIOR", 0, (3, 4))
    act(s, "CAPTURE", w.id)  # a level-1 non-capital city: 1
    set_stars(s, 0, 0)
    play_until_turn_of(s, 0)
    assert s.tribes[0].stars == (3 + 1 + 1) + 1


def test_enemy_unit_on_the_city_centre_blocks_its_income():
    s = game()
    clear(s, (1, 1))
    place(s, "WARRIOR", 1, (1, 1), state="FINISHED")
    set_stars(s, 0, 0)
    play_until_turn_of(s, 0)
    assert s.tribes[0].stars == 0
    end_turn(s)
    assert s.current == 1 and s.tribes[1].stars == 5 + 2  # its own capital still pays
    # once the enemy leaves, the capital pays again
    clear(s, (1, 1))
    end_turn(s)
    assert s.current == 0 and s.tribes[0].stars == 2


def test_end_of_turn_recover():
    """§3.4: FRESH damaged units recover +4 in own territory, +2 elsewhere, up to max."""
    s = game()
    own = place(s, "WARRIOR", 0, (0, 0), hp=5)
    neutral = place(s, "WARRIOR", 0, (3, 3), hp=5)
    capped = place(s, "WARRIOR", 0, (2, 2), hp=9)
    moved = place(s, "WARRIOR", 0, (0, 1), hp=5)
    move(s, moved.id, (0, 2))
    enemy = place(s, "WARRIOR", 0, (5, 5), hp=5)
    assert owner(s, (5, 5)) == 1
    end_turn(s)
    assert hp(s, own.id) == 9
    assert hp(s, neutral.id) == 7
    assert hp(s, enemy.id) == 7  # enemy territory is not own territory
    assert hp(s, capped.id) == 10
    assert hp(s, moved.id) == 5
    assert status_name(s, own.id) == "FINISHED"


def test_recover_action():
    s = game()
    own = place(s, "WARRIOR", 0, (0, 0), hp=3)
    out = place(s, "WARRIOR", 0, (3, 3), hp=3)
    full = place(s, "WARRIOR", 0, (3, 4))
    assert legal(s, "RECOVER", full.id) == []
    act(s, "RECOVER", own.id)
    act(s, "RECOVER", out.id)
    assert (hp(s, own.id), hp(s, out.id)) == (7, 5)
    assert status_name(s, own.id) == "FINISHED"


# ====================================================================== buildings (§8)

def test_temple_grows_to_level_5_after_12_turns_worth_400():
    s = game()
    give_tech(s, 0, "RIDING", "FREE_SPIRIT")
    set_stars(s, 0, 20)
    cid = capital(s, 0).id
    sc = s.tribes[0].score
    act(s, "BUILD", cid, (0, 0), "TEMPLE")
    assert s.tribes[0].stars == 0
    assert s.cities[cid].pop == 1
    assert s.tribes[0].score == sc + 100 + 5
    base = s.tribes[0].score
    worth = s.cities[cid].worth
    gained = []
    for _ in range(15):
        play_until_turn_of(s, 0)
        gained.append(s.tribes[0].score - base)
    #            turn: 1  2  3   4   5   6    7    8    9    10   11   12   13   14   15
    assert gained == [0, 0, 50, 50, 50, 100, 100, 100, 150, 150, 150, 300, 300, 300, 300]
    assert 100 + gained[-1] == 400
    assert s.cities[cid].worth == worth + 300


@pytest.mark.parametrize("order", [("FARM", "FARM", "WINDMILL"), ("FARM", "WINDMILL", "FARM")])
def test_windmill_next_to_two_farms_gives_2_population(order):
    s = game(board(cells={(0, 0): ".:c", (0, 2): ".:c"}))
    give_tech(s, 0, "ORGANIZATION", "FARMING", "CONSTRUCTION")
    set_stars(s, 0, 30)
    cid = capital(s, 0).id
    set_city(s, cid, level=6)  # needs 7: no level-up gets in the way
    farms = iter([(0, 0), (0, 2)])
    pops = []
    for b in order:
        if b == "WINDMILL":
            assert not is_legal(s, "BUILD", cid, (2, 2), "WINDMILL")  # no farm adjacent
            act(s, "BUILD", cid, (0, 1), "WINDMILL")
        else:
            act(s, "BUILD", cid, next(farms), "FARM")
        pops.append(s.cities[cid].pop)
    if order[1] == "FARM":
        assert pops == [2, 4, 6]  # the windmill adds 1 per adjacent farm
    else:
        assert pops == [2, 3, 6]  # a farm added next to the windmill: 2 + 1
    assert s.tribes[0].stars == 30 - 15
    assert legal(s, "BUILD", cid, extra="WINDMILL") == []  # one per city


def test_farm_needs_crops():
    s = game(board(cells={(0, 0): ".:c"}))
    give_tech(s, 0, "ORGANIZATION", "FARMING")
    set_stars(s, 0, 10)
    cid = capital(s, 0).id
    assert is_legal(s, "BUILD", cid, (0, 0), "FARM")
    assert not is_legal(s, "BUILD", cid, (0, 1), "FARM")


# ====================================================================== resources (§9.1)

def test_whales_cost_nothing_and_give_10_stars():
    s = game(board(cells={(0, 0): "d:w"}))
    cid = capital(s, 0).id
    set_stars(s, 0, 0)
    give_tech(s, 0, "FISHING")
    assert legal(s, "RESOURCE_GATHERING") == []  # needs WHALING
    give_tech(s, 0, "WHALING")
    sc = s.tribes[0].score
    act(s, "RESOURCE_GATHERING", cid, (0, 0))
    assert s.tribes[0].stars == 10
    assert s.cities[cid].pop == 0
    assert s.tribes[0].score == sc
    assert s.resource[idx(s, (0, 0))] == K.NO_RESOURCE


def test_fish_cost_2_and_give_population():
    s = game(board(cells={(0, 0): "s:h"}))
    cid = capital(s, 0).id
    give_tech(s, 0, "FISHING")
    set_stars(s, 0, 1)
    assert legal(s, "RESOURCE_GATHERING") == []
    set_stars(s, 0, 2)
    act(s, "RESOURCE_GATHERING", cid, (0, 0))
    assert s.tribes[0].stars == 0
    assert s.cities[cid].pop == 1


def test_gathering_only_on_own_city_tiles():
    s = game(board(cells={(3, 3): ".:f"}))
    give_tech(s, 0, "ORGANIZATION")
    set_stars(s, 0, 10)
    assert legal(s, "RESOURCE_GATHERING") == []


# ====================================================================== copies

def test_copy_has_every_field_of_the_position():
    """`TribesState.copy` names the fields one by one: each field (`StateFields`) is set in the
    copy, to an equal value (a field it forgot is unset as Python, None when compiled)."""
    from games.tribes.pieces import StateFields
    s = game()
    place(s, "WARRIOR", 0, (3, 3))
    c = s.copy()
    for name in StateFields.__slots__:
        if name == "_tok":  # each side gets a token of its own
            assert c._tok is not s._tok
            continue
        if name == "rng":  # its own generator, in the same state
            assert c.rng is not s.rng and repr(c.rng) == repr(s.rng)
            continue
        assert getattr(c, name) == getattr(s, name), name


def test_board_lists_are_shared_until_written():
    """A copy shares the board lists but `unit_at` with its position (`BOARD_LISTS`): the
    first write on either side, through `board_w`, copies the list it writes into; the
    other lists stay shared."""
    from games.tribes.pieces import BOARD_LISTS
    s = game()
    give_tech(s, 0, "ROADS")
    set_stars(s, 0, 20)
    c = s.copy()
    assert all(getattr(c, name) is getattr(s, name) for name in BOARD_LISTS)
    assert c.unit_at is not s.unit_at and c.unit_at == s.unit_at
    a = legal(c, "BUILD_ROAD")[0]
    c.apply(a)
    assert c.road[a[2]] and not s.road[a[2]]
    assert c.board_w("road") is c.road  # the copy owns it now: no second copy
    assert all(getattr(c, name) is getattr(s, name) for name in BOARD_LISTS if name != "road")
    t = idx(s, (0, 0))
    was = c.terrain[t]
    s.board_w("terrain")[t] = K.MOUNTAIN if was != K.MOUNTAIN else K.PLAIN
    assert c.terrain[t] == was and s.terrain[t] != was
    cc = c.copy()  # a copy of a copy shares what its position owned, and both give it up
    assert cc.road is c.road
    cc.board_w("road")[a[2]] = False
    assert c.road[a[2]] and not cc.road[a[2]]


def test_copy_is_independent_of_the_original():
    s = game()
    a = place(s, "WARRIOR", 0, (3, 3))
    d = place(s, "WARRIOR", 1, (3, 4))
    cid = capital(s, 0).id
    set_stars(s, 0, 20)
    c = s.copy()
    attack(c, a.id, d.id)
    act(c, "RESEARCH_TECH", 0, "FISHING")
    move(c, unit_at(c, (1, 1)).id, (0, 0))
    # the original is unchanged
    assert (hp(s, a.id), hp(s, d.id)) == (10, 10)
    assert s.tribes[0].stars == 20 and not s.tribes[0].has(K.FISHING)
    assert unit_at(s, (1, 1)) is not None and unit_at(s, (0, 0)) is None
    assert is_legal(s, "ATTACK", a.id, d.id)
    # the copy has changed
    assert (hp(c, a.id), hp(c, d.id)) == (5, 5)
    assert c.tribes[0].stars == 15 and c.tribes[0].has(K.FISHING)
    assert unit_at(c, (0, 0)) is not None

    # changes to the original do not leak into the copy either
    set_city(s, cid, pop=2)
    act(s, "LEVEL_UP", cid, "WORKSHOP")
    assert s.cities[cid].level == 2 and s.cities[cid].prod_bonus == 1
    assert (c.cities[cid].level, c.cities[cid].pop, c.cities[cid].prod_bonus) == (1, 0, 0)
    assert s.tribes[0].score != c.tribes[0].score
    move(s, a.id, (3, 2))
    assert c.units[a.id].pos == idx(c, (3, 3)) and unit_at(c, (3, 2)) is None

    # a copy of a copy
    cc = c.copy()
    end_turn(cc)
    assert c.current == 0 and cc.current == 1
    assert c.units[a.id].status == K.FINISHED
    set_stars(cc, 0, 99)
    assert c.tribes[0].stars == 15 and s.tribes[0].stars == 20


# ================================================================ fixed reference bugs (§14 items 11-16)
# By default the engine implements the intended rule (docs/tribes-differences.md).

def test_destroying_a_temple_removes_its_points():
    """§8.6 / §14.11: intended rule: the score goes down by the temple's points (-100 for a
    level-1 temple) and -5 for the population lost."""
    s = game()
    give_tech(s, 0, "RIDING", "FREE_SPIRIT", "ORGANIZATION", "FARMING", "CONSTRUCTION")
    set_stars(s, 0, 20)
    cid = capital(s, 0).id
    act(s, "BUILD", cid, (0, 0), "TEMPLE")
    sc = s.tribes[0].score
    act(s, "DESTROY", cid, (0, 0))
    assert s.building[idx(s, (0, 0))] == K.NO_BUILDING
    assert s.cities[cid].pop == 0
    assert s.tribes[0].score == sc - 100 - 5


def test_level_up_super_unit_in_a_full_city_becomes_an_extra_unit():
    """§5.3 / §14.13: intended rule: it is an extra unit of the tribe, controllable."""
    s = game()
    cid = capital(s, 0).id
    set_city(s, cid, level=4, pop=5)  # level 5 after the level-up: room for 6 units
    for pos in [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)]:
        place(s, "WARRIOR", 0, pos, home=cid)
    assert len(s.cities[cid].units) == 6
    act(s, "LEVEL_UP", cid, "SUPERUNIT")
    su = unit_at(s, (1, 1))
    assert su.type == K.SUPERUNIT
    assert su.id in s.tribes[0].extra_units
    assert su.id not in s.cities[cid].units
    play_until_turn_of(s, 0)
    assert status_name(s, su.id) == "FRESH"
    assert legal(s, "MOVE", su.id) != []


def test_water_ruins_super_unit_is_a_10hp_battleship_and_the_boat_is_pushed():
    """§9.3 / §5.6 / §14.12 and 14: intended rules: the Battleship has 10/10 HP; the pushed
    boat moves to the first acceptable offset, (0, +1); as the examining unit it then
    becomes FINISHED (§9.3)."""
    from games.tribes.rules import Forced
    s = game(board(cells={(3, 4): "s:r", (3, 5): "s:", (3, 3): "s:"}))
    give_tech(s, 0, "FISHING", "SAILING")
    b = place(s, "BOAT", 0, (3, 4))
    s.forced = Forced()
    s.forced.ruins_bonus = K.RUINS_SUPERUNIT
    act(s, "EXAMINE", b.id)
    bs = unit_at(s, (3, 4))
    assert bs.type == K.BATTLESHIP
    assert (bs.hp, bs.max_hp) == (10, 10)
    assert bs.id in s.tribes[0].extra_units
    assert s.resource[idx(s, (3, 4))] == K.NO_RESOURCE
    assert unit_at(s, (3, 5)).id == b.id
    assert status_name(s, b.id) == "FINISHED"


def test_city_capture_leaves_building_effects_unchanged():
    """§7.6 step 3 / §14.15: intended rule: population and production stay as they are."""
    s, w = _enemy_with_two_cities(K.SCORE)
    cap1 = capital(s, 1).id
    set_building(s, (5, 5), "FARM")
    set_building(s, (5, 6), "WINDMILL")
    set_city(s, cap1, pop=1)
    act(s, "CAPTURE", w.id)
    c = s.cities[cap1]
    assert c.tribe == 0
    assert (c.pop, c.prod_bonus, c.level) == (1, 0, 1)


# ============================================================== other unit actions (§5, §6.5, §6.6, §11)

def test_spawn_refused_when_the_city_is_full():
    """§5.3: a city supports level + 1 units (2 at level 1)."""
    s = game()
    cid = capital(s, 0).id
    move(s, unit_at(s, (1, 1)).id, (0, 0))
    set_stars(s, 0, 10)
    assert is_legal(s, "SPAWN", cid, "WARRIOR")
    place(s, "WARRIOR", 0, (3, 3), home=cid)
    assert len(s.cities[cid].units) == 2
    assert legal(s, "SPAWN") == []
    place(s, "WARRIOR", 0, (3, 4))  # extra units do not count
    set_city(s, cid, level=2)
    assert is_legal(s, "SPAWN", cid, "WARRIOR")


def test_disband_refunds_half_the_cost_and_loses_the_points():
    s = game()
    kn = place(s, "KNIGHT", 0, (3, 3))
    set_stars(s, 0, 0)
    assert legal(s, "DISBAND") == []  # needs FREE_SPIRIT
    give_tech(s, 0, "RIDING", "FREE_SPIRIT")
    sc = s.tribes[0].score
    act(s, "DISBAND", kn.id)
    assert kn.id not in s.units
    assert s.tribes[0].stars == 4
    assert s.tribes[0].score == sc - 40


def test_make_veteran_after_three_kills():
    s = game()
    w = place(s, "WARRIOR", 0, (3, 3), hp=4, kills=2)
    assert legal(s, "MAKE_VETERAN") == []
    set_unit(s, w.id, kills=3)
    move(s, w.id, (3, 2))  # any status but FINISHED
    act(s, "MAKE_VETERAN", w.id)
    u = s.units[w.id]
    assert (u.hp, u.max_hp, u.veteran) == (15, 15, True)
    assert status_name(s, w.id) == "MOVED"
    assert legal(s, "MAKE_VETERAN") == []


def test_mind_bender_heals_adjacent_friends_by_4_and_converts():
    s = game()
    give_tech(s, 0, "CLIMBING", "MEDITATION", "PHILOSOPHY")
    mb = place(s, "MIND_BENDER", 0, (3, 3))
    a = place(s, "WARRIOR", 0, (3, 2), hp=3)
    b = place(s, "WARRIOR", 0, (2, 3), hp=8)
    far = place(s, "WARRIOR", 0, (3, 5), hp=3)
    act(s, "HEAL_OTHERS", mb.id)
    assert (hp(s, a.id), hp(s, b.id), hp(s, far.id)) == (7, 10, 3)
    assert status_name(s, mb.id) == "FINISHED"

    s = game()
    mb = place(s, "MIND_BENDER", 0, (3, 3))
    en = place(s, "WARRIOR", 1, (3, 4), hp=6, home="capital")
    assert legal(s, "ATTACK", mb.id) == []  # a Mind Bender cannot attack
    sc0, sc1 = s.tribes[0].score, s.tribes[1].score
    act(s, "CONVERT", mb.id, en.id)
    u = s.units[en.id]
    assert u.tribe == 0 and u.hp == 6
    assert en.id in s.tribes[0].extra_units
    assert en.id not in capital(s, 1).units
    assert status_name(s, en.id) == "FINISHED"
    assert (s.tribes[0].score, s.tribes[1].score) == (sc0, sc1)


def test_mind_bender_cannot_enter_an_enemy_city():
    s = game()
    clear(s, (6, 6))
    mb = place(s, "MIND_BENDER", 0, (5, 5))
    assert (6, 6) not in move_targets(s, mb.id)
    s2 = game()
    clear(s2, (6, 6))
    w = place(s2, "WARRIOR", 0, (5, 5))
    assert (6, 6) in move_targets(s2, w.id)
