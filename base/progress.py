"""What a long command tells its caller while it plays: callbacks, never a progress bar.

A command that plays many games takes `progress`, a function called as
`progress(step, done, total)` when a step of its games starts (`done`: the games it takes
from an earlier, interrupted attempt) and after each game it finishes. `step` names the games
(`tournament`, `validate`, `probe pilot`, an evolution run's name); `total` may grow (an
evolution counts its closing batch once it is asked). The command line draws its progress
bars from these calls (`playstyles.cli`); no library module draws one.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, TypeVar

Progress = Callable[[str, int, int], None]
"""progress(step, games done, games in the step)."""

T = TypeVar("T")


def counted(items: Iterable[T], total: int, step: str, progress: Progress | None
            ) -> Iterator[T]:
    """The items (each a finished game), telling `progress` how many have come.

    Args:
        items: the games as they finish.
        total: how many will come.
        step: the games' name, for `progress`.
        progress: the callback (None: nothing is told).
    """
    if progress is None:
        yield from items
        return
    progress(step, 0, total)
    for n, item in enumerate(items, 1):
        yield item
        progress(step, n, total)
