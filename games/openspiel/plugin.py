"""The OpenSpiel plug-in: registers the ``openspiel:<name>`` family (see `games.registry`)."""

from games.openspiel.game import OpenSpielGame
from games.registry import register_family

register_family("openspiel", OpenSpielGame)
