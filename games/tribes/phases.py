"""How Hierarchical Portfolio Search (`agents/hps.py`) cuts a Tribes turn: four phases in turn
order, each with a few partial players made of the portfolio scripts of `scripts.py`, and
level-ups as interrupts.

Research comes first because techs unlock buildings and units; the economy spends before the
units act; units act before spawning, because a spawn needs an empty city centre and captures
change which cities exist. Research, buildings and spawns draw on one pool of stars, so the
order is also the spending priority. A pending level-up blocks every other action: every
partial player settles it with LevelUpGrowth wherever it arises.

The first partial player of each phase plays the playouts of `leaf="playout"`.
"""

from __future__ import annotations

from agents.hps import PartialPlayer, Phase

GROW = ("ResourceGathering", "BuildWindmill", "BuildForge", "BuildSawmill", "BuildCustomHouse",
        "BuildFarm", "BuildMine", "BuildLumberHut", "BuildPort")
"""Economy for production: gather resources, then producers before their base buildings."""

PHASES = (
    Phase("research", (PartialPlayer("farms", ("ResearchFarms",), limit=1),
                       PartialPlayer("range", ("ResearchRange",), limit=1),
                       PartialPlayer("save"))),
    Phase("economy", (PartialPlayer("grow", GROW),
                      PartialPlayer("score", ("BuildMonument", "BuildTemple")),
                      PartialPlayer("none"))),
    Phase("units", (PartialPlayer("aggressive", ("Capture", "AttackMaxDamage", "AttackStrongest",
                                                 "MoveToCapture", "MoveOffensively")),
                    PartialPlayer("defensive", ("Capture", "Recover", "MoveToOwnCityCentre",
                                                "MoveDefensively", "AttackClosest")),
                    PartialPlayer("expand", ("Capture", "Examine", "MoveToCapture")),
                    PartialPlayer("hold"))),
    Phase("spawn", (PartialPlayer("strongest", ("SpawnStrongest",)),
                    PartialPlayer("defensive", ("SpawnDefensive",)),
                    PartialPlayer("cheapest", ("SpawnCheapest",)),
                    PartialPlayer("none"))),
)
"""3 x 3 x 4 x 4 = 144 whole-turn combinations (the agent keeps `max_moves` of them)."""

INTERRUPTS = ("LevelUpGrowth",)
