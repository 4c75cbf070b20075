"""A test double that counts forward-model calls: a proxy around a game state whose copies
share one counter, so every `apply` made anywhere in a search is seen, whatever the agent's
own bookkeeping says."""

from __future__ import annotations


class Counter:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class CountingState:
    """Behaves as the wrapped state (attributes are forwarded); `copy()` returns another
    proxy on the same counter and `apply` adds one to it."""

    def __init__(self, inner, counter: Counter | None = None) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "counter", counter if counter is not None else Counter())

    def copy(self) -> "CountingState":
        return CountingState(self._inner.copy(), self.counter)

    def apply(self, action) -> None:
        self.counter.n += 1
        self._inner.apply(action)

    @property
    def current_player(self) -> int:
        return self._inner.current_player

    @property
    def num_players(self) -> int:
        return self._inner.num_players

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value) -> None:
        setattr(self._inner, name, value)
