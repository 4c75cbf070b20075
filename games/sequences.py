"""`contains(x, seq)`: whether `x in seq`, trying identity first.

A search asks again and again whether an action is among the actions listed (is it legal,
is a script's answer one of the actions it was given), and the action asked about is almost
always one of the very objects listed. `in` reaches it only after comparing each action
before it element by element; an identity scan reaches it comparing pointers, and `in`
still answers when it is not there. Compiled with the engine (`setup.py`)."""

from __future__ import annotations

from typing import Any, Iterable


def contains(x: Any, seq: Iterable) -> bool:
    """`x in seq`, the same answer: first whether `x` itself is an element, else `in`.

    Args:
        x: the object looked for.
        seq: a list or tuple (any container `in` takes).
    """
    for y in seq:
        if y is x:
            return True
    return x in seq
