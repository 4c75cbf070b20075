"""Tribolo: a three-player game on a 16x11 board with walls, where a move jumps over unbroken
lines of one opponent's cells in any of 8 directions and converts them (docs/tribolo.md).

The game, its levels and its players register from `games.tribolo.plugin` on first use of
the name "tribolo".
"""
