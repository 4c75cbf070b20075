"""Combat arithmetic: deterministic damage and retaliation with round-half-up.

Kept apart from the rules that apply an attack because agents and portfolio scripts ask
"how much would this attack do?" without applying it.
"""

from __future__ import annotations

import math

from games.tribes import constants as K


def round_half_up(v: float) -> int:
    """The reference rounds with floor(v + 0.5); Python's round() is banker's rounding."""
    return math.floor(v + 0.5)


def defence_bonus(s, defender) -> float:
    """Multiplier of the defender's force from where it stands (only one bonus applies)."""
    pos = defender.pos
    ter = s.terrain[pos]
    tribe = s.tribes[defender.tribe]
    if ter == K.CITY:
        cid = s.tile_city[pos]
        c = s.cities.get(cid)
        if c is not None and c.tribe == defender.tribe:
            if c.walls:
                return 4.0
            if K.UNIT_CAN_FORTIFY[defender.type]:
                return 1.5
        return 1.0
    if ter == K.MOUNTAIN:
        return 1.5 if tribe.has(K.MEDITATION) else 1.0
    if ter == K.SHALLOW or ter == K.DEEP:
        return 1.5 if tribe.has(K.AQUATISM) else 1.0
    if ter == K.FOREST:
        return 1.5 if tribe.has(K.ARCHERY) else 1.0
    return 1.0


def attack_outcome(s, attacker, target) -> tuple[int, int]:
    """(damage to the target, retaliation the attacker would take if the target survives)."""
    atk = K.UNIT_ATK[attacker.type]
    dfn = K.UNIT_DEF[target.type]
    attack_force = atk * attacker.hp / attacker.max_hp
    defence_force = dfn * target.hp / target.max_hp * defence_bonus(s, target)
    total = attack_force + defence_force
    if total <= 0:
        return 0, 0
    damage = round_half_up(attack_force / total * atk * 4.5)
    retaliation = round_half_up(defence_force / total * dfn * 4.5)
    return damage, retaliation
