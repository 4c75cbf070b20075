"""One way to check what a user writes: run and tournament configs, presets, agent specs,
model metadata. Every check raises one ValueError in one format,

    FIELD: what is wrong, got VALUE

where FIELD is the key path (`emitter.batch_size`, `presets[0].agent`, `--games`) and VALUE is
shortened (`base.limits.short`); the caller puts the file in front. An unknown key names
the known ones and the closest. The bounds themselves live in `base.limits`.

This module needs nothing of the project but the limits, so every layer checks with it.
"""

from __future__ import annotations

import difflib
import math
import numbers
from typing import Any, Iterable, Mapping

from base.limits import MAX_NAME, MAX_SEED, short


def field_error(field: str, message: str) -> ValueError:
    """The error of a bad value: `FIELD: message`.

    Args:
        field: the key path (empty: the whole input).
        message: what is wrong.
    """
    return ValueError(f"{field}: {message}" if field else message)


def check_keys(data: Mapping[str, Any], known: Iterable[str], where: str = "") -> None:
    """Refuse the first key of `data` that is not one of `known`: `WHERE.KEY: unknown key
    (known: a, b); did you mean 'x'?`.

    Args:
        data: the mapping as given.
        known: the keys allowed, in the order to list them.
        where: the mapping's key path (empty: the top of the file).
    """
    known = list(known)
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            name = short(key) if not isinstance(key, str) else key[:80]
            raise field_error(f"{where}.{name}" if where else name,
                              f"unknown key (known: {', '.join(known)}){hint}")


def check_name(value: Any, field: str) -> str:
    """A name (a run's, a preset's, an agent's label): non-empty text of at most `MAX_NAME`
    bytes (UTF-8) without a control character (a newline, a tab, an escape, a direction
    override, a line separator: a name is printed in messages and tables and names files,
    where such a character forges lines or hides text).

    Args:
        value: the value as given.
        field: its key path (`name`, `presets[0].name`, `agents[1].label`).
    """
    import unicodedata

    if not isinstance(value, str) or not value.strip():
        raise field_error(field, f"a non-empty text expected, got {short(value)}")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME:
        raise field_error(field, f"{size} bytes, more than the {MAX_NAME} bytes a name may "
                                 f"have, got {short(value)}")
    for i, c in enumerate(value):
        if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            raise field_error(field, f"a control character (U+{ord(c):04X}) at character "
                                     f"{i + 1}; a name is printable text, got {short(value)}")
    return value


def check_count(value: Any, field: str, lo: int = 0, hi: int = MAX_SEED) -> int:
    """A whole number in lo..hi. A bool or a float (1e20 in YAML, JSON or an agent spec) is
    refused, not converted.

    Args:
        value: the value as given.
        field: the key path.
        lo: the smallest value allowed.
        hi: the largest value allowed.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        kind = " (a float)" if isinstance(value, float) else ""
        raise field_error(field, f"a whole number expected, got {short(value)}{kind}")
    if value < lo:
        raise field_error(field, f"must be >= {lo}, got {short(value)}")
    if value > hi:
        raise field_error(field, f"must be at most {hi}, got {short(value)}")
    return int(value)


def check_number(value: Any, field: str, positive: bool = False) -> float:
    """A finite number (not a bool), as a float.

    Args:
        value: the value as given.
        field: the key path.
        positive: it must be > 0.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value):
        raise field_error(field, f"a finite number expected, got {short(value)}")
    if positive and value <= 0:
        raise field_error(field, f"must be > 0, got {short(value)}")
    return float(value)


def check_bool(value: Any, field: str) -> bool:
    """true or false.

    Args:
        value: the value as given.
        field: the key path.
    """
    if not isinstance(value, bool):
        raise field_error(field, f"true or false expected, got {short(value)}")
    return value


def check_mapping(value: Any, field: str) -> dict:
    """A mapping (None reads as an empty one).

    Args:
        value: the value as given.
        field: the key path.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise field_error(field, f"a mapping expected, got {short(value)}")
    return dict(value)
