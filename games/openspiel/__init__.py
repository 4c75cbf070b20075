"""Every turn-based game of OpenSpiel (the ``open_spiel`` package, module ``pyspiel``) behind
the `games.api` protocol, named ``openspiel:<name>`` (e.g. ``openspiel:connect_four``,
``openspiel:breakthrough(rows=6,columns=6)``: the text after ``openspiel:`` goes to
``pyspiel.load_game``).

pyspiel is an optional dependency (``pip install -e ".[openspiel]"``); it is imported only when
a game is built, so importing this package never needs it. See `games.openspiel.game`.
"""
