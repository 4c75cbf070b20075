"""Numbers as the pages print them: one rounding rule for report.html and explorer.html.

A rate is a percentage with one decimal (`pct_text`: 0.8125 -> 81.2%); any other number
has three significant digits, never an exponent, whole numbers from 1000 up
(`num_text`: 2088.9 -> 2089, 0.01894 -> 0.0189). Both round half to even on the exact
value of the float, as Python's `format` does; explorer.js rounds the same way (its
`fixedEven`; a browser test compares the two on ties and edge cases), so the same number
reads the same on both pages.
"""

from __future__ import annotations

import math
from typing import Any

MISSING = "n/a"
"""What report.html prints where a value is missing (explorer.html prints a dash)."""


def _finite(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def fixed_text(x: float, digits: int) -> str:
    """`x` with `digits` decimals, rounded half to even on the float's exact value."""
    return f"{x:.{digits}f}"


def num_text(x: Any, missing: str = MISSING) -> str:
    """A number with three significant digits (whole from 1000 up, no exponent, no trailing
    zeros); `missing` when it is not a finite number.

    Args:
        x: the number.
        missing: the text for a missing value.
    """
    v = _finite(x)
    if v is None:
        return missing
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return fixed_text(v, 0)
    s = fixed_text(v, 2 - math.floor(math.log10(abs(v))))
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pct_text(x: Any, missing: str = MISSING) -> str:
    """A rate as a percentage with one decimal (81.2%); `missing` when not a number.

    Args:
        x: the rate (0 to 1).
        missing: the text for a missing value.
    """
    v = _finite(x)
    return missing if v is None else fixed_text(100 * v, 1) + "%"


def games_text(n: Any, missing: str = MISSING) -> str:
    """A count of games (a whole number)."""
    v = _finite(n)
    return missing if v is None else str(int(round(v)))


__all__ = ["num_text", "pct_text", "games_text", "fixed_text", "MISSING"]
