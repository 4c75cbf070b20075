"""The OpenSpiel plug-in: registers the ``openspiel:<name>`` family (see `games.registry`)."""

from games.openspiel.game import OpenSpielGame
from games.registry import register_family


def register() -> None:
    """The OpenSpiel family, registered once (`games.registry.load_plugin`)."""
    register_family("openspiel", OpenSpielGame)
