"""Tribes hooks for the game-neutral search agents (see `agents.search.GameHooks`)."""

from __future__ import annotations

from agents.search import GameHooks
from games.tribes.actions import (
    CITY_ACTIONS,
    DESTROY,
    DISBAND,
    END_TURN,
    UNIT_ACTIONS,
    actor_groups,
    actor_kinds,
)


class TribesHooks(GameHooks):
    def root_groups(self, state):
        """City actions (without Destroy), unit actions (without Disband: the reference meant
        to drop it but returned the unfiltered list) and tribe actions (only when more than
        End Turn is available), empty groups left out."""
        city, unit, tribe = [], [], []
        for a in state.legal_actions():
            kind = a[0]
            if kind in CITY_ACTIONS:
                if kind != DESTROY:
                    city.append(a)
            elif kind in UNIT_ACTIONS:
                if kind != DISBAND:
                    unit.append(a)
            else:
                tribe.append(a)
        groups = [g for g in (city, unit) if g]
        if any(a[0] != END_TURN for a in tribe):
            groups.append(tribe)
        return groups or None

    def excluded(self, state, action) -> bool:
        """Destroying an own building or disbanding an own unit: never chosen at random."""
        kind = action[0]
        return kind == DESTROY or kind == DISBAND

    def turn_key(self, state):
        return (state.tick, state.current)

    def actor_kinds(self, state):
        """Units, cities and the tribe with the kinds each may have (`actions.actor_kinds`)."""
        return actor_kinds(state)

    def actor_actions(self, state, actor):
        """One actor's actions, listing only it (`actions.actor_groups`)."""
        return actor_groups(state, actor)
