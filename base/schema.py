"""One config language: how every file a user writes is described and read (run,
tournament and train-evaluator configs, presets, emitter and noise parameters, level files,
game records, agent specs).

A section of a file is a tuple of `Field`s: each key's name, its check and its default.
`read_section` reads a mapping with it: it refuses an unknown key (naming the known ones
and the closest), checks every value given, fills in the defaults and says which required
key is missing. What is more than the shape of one value (two keys that exclude each other,
an agent that must accept its parameters, a game's options) is code after the read.

Every check raises one ValueError in one format,

    FIELD: what is wrong, got VALUE

where FIELD is the key path (`emitter.batch_size`, `presets[0].agent`, `--games`) and VALUE is
shortened (`base.limits.short`); `errors_in` puts the file in front, in one place for every
reader: `FILE: FIELD: what is wrong, got VALUE`. The bounds themselves live in `base.limits`.

This module needs nothing of the project but the limits, so every layer checks with it.
"""

from __future__ import annotations

import copy
import difflib
import math
import numbers
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

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


def check_number(value: Any, field: str, positive: bool = False, lo: float | None = None,
                 hi: float | None = None) -> float:
    """A finite number (not a bool), as a float.

    Args:
        value: the value as given.
        field: the key path.
        positive: it must be > 0.
        lo: the smallest value allowed (None: no bound).
        hi: the largest value allowed (None: no bound).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value):
        raise field_error(field, f"a finite number expected, got {short(value)}")
    if positive and value <= 0:
        raise field_error(field, f"must be > 0, got {short(value)}")
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise field_error(field, f"a number in [{lo:g}, {hi:g}] expected, got {short(value)}")
    if lo is not None and value < lo:
        raise field_error(field, f"must be >= {lo:g}, got {short(value)}")
    if hi is not None and value > hi:
        raise field_error(field, f"must be at most {hi:g}, got {short(value)}")
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


def check_text(value: Any, field: str, empty: bool = False) -> str:
    """A text (a file name, a kind, a note).

    Args:
        value: the value as given.
        field: the key path.
        empty: whether an empty (or blank) text is allowed.
    """
    if not isinstance(value, str):
        raise field_error(field, f"{'' if empty else 'a non-empty '}text expected, got "
                                 f"{short(value)}")
    if not empty and not value.strip():
        raise field_error(field, f"a non-empty text expected, got {short(value)}")
    return value


# ------------------------------------------------------------------------------ sections

Check = Callable[[Any, str], Any]
"""A check: `check(value, field)` returns the value read (converted: a count to an int, a
number to a float) or raises `field_error` naming `field`."""


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


REQUIRED = _Marker("REQUIRED")
"""The default of a key that must be given (its absence is `KEY: missing`)."""
OMIT = _Marker("OMIT")
"""The default of a key left out of the section read when it is absent (the code after the
read tells the absent key from the given one)."""


@dataclass(frozen=True)
class Field:
    """One key of a section: its name, its check and its default.

    Args:
        name: the key.
        check: `check(value, field)` of a value given (`Check`: `check_bool`, `count(1, 9)`,
            `optional(number())`, `section(FIELDS)`, ...); None takes any value as given (the
            code after the read checks it).
        default: the value of an absent key (copied, never shared); `REQUIRED`: the key must
            be given; `OMIT`: an absent key stays absent.
    """

    name: str
    check: Check | None = None
    default: Any = None


def read_section(data: Any, fields: Sequence[Field], where: str = "") -> dict[str, Any]:
    """A mapping read with its fields: every key known (else `WHERE.KEY: unknown key (known:
    ...); did you mean 'x'?`), every value given checked, every absent key its default (a
    required one is `WHERE.KEY: missing`). The result holds the fields in their order.

    Args:
        data: the mapping as given (None reads as an empty one).
        fields: the section's keys.
        where: the section's key path (empty: the top of the file).
    """
    given = check_mapping(data, where)
    check_keys(given, [f.name for f in fields], where)
    out: dict[str, Any] = {}
    for f in fields:
        path = f"{where}.{f.name}" if where else f.name
        if f.name in given:
            value = given[f.name]
            out[f.name] = value if f.check is None else f.check(value, path)
        elif f.default is REQUIRED:
            raise field_error(path, "missing")
        elif f.default is not OMIT:
            out[f.name] = copy.deepcopy(f.default)
    return out


@contextmanager
def errors_in(where: str, error: type[ValueError] = ValueError) -> Iterator[None]:
    """Name `where` in front of every ValueError raised inside: the one place a reader puts
    its file's name in front of a message (`with errors_in(path, ConfigError): ...`), or a
    key path in front of a check that knows none (`with errors_in("agent"): validate(...)`).

    Args:
        where: the file (or the key path).
        error: the class of the error raised (a `ValueError` subclass: `ConfigError`).
    """
    try:
        yield
    except ValueError as e:
        raise error(f"{where}: {e}" if where else str(e)) from None


# ------------------------------------------------------------------------------ checks made

def count(lo: int = 0, hi: int = MAX_SEED) -> Check:
    """The check of a whole number in lo..hi (`check_count`).

    Args:
        lo: the smallest value allowed.
        hi: the largest value allowed.
    """
    return lambda value, field: check_count(value, field, lo, hi)


def number(positive: bool = False, lo: float | None = None, hi: float | None = None) -> Check:
    """The check of a finite number (`check_number`), as a float.

    Args:
        positive: it must be > 0.
        lo: the smallest value allowed (None: no bound).
        hi: the largest value allowed (None: no bound).
    """
    return lambda value, field: check_number(value, field, positive, lo, hi)


def text(empty: bool = False) -> Check:
    """The check of a text (`check_text`).

    Args:
        empty: whether an empty (or blank) text is allowed.
    """
    return lambda value, field: check_text(value, field, empty)


def one_of(choices: Sequence[Any]) -> Check:
    """The check of one of a few values: `one of a, b expected, got 'c'` (with the closest
    when it is text).

    Args:
        choices: the values allowed.
    """
    def check(value: Any, field: str) -> Any:
        try:
            if value in choices:
                return value
        except TypeError:  # an unhashable value of a set's choices
            pass
        names = [str(c) for c in choices]
        close = difflib.get_close_matches(value, names, n=1) if isinstance(value, str) else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise field_error(field, f"one of {', '.join(names)} expected, got {short(value)}{hint}")
    return check


def optional(check: Check) -> Check:
    """`check`, or null (read as None).

    Args:
        check: the check of a value that is not null.
    """
    return lambda value, field: None if value is None else check(value, field)


def list_of(check: Check | None = None, lo: int = 0, hi: int | None = None) -> Check:
    """The check of a list of lo..hi items, each checked at `FIELD[i]`.

    Args:
        check: the check of one item (None: any item).
        lo: the fewest items.
        hi: the most items (None: no bound).
    """
    def read(value: Any, field: str) -> list:
        if not isinstance(value, list):
            raise field_error(field, f"a list expected, got {short(value)}")
        if len(value) < lo:
            many = "a non-empty list" if lo == 1 else f"a list of at least {lo} items"
            raise field_error(field, f"{many} expected, got {short(value)}")
        if hi is not None and len(value) > hi:
            raise field_error(field, f"at most {hi} items expected, got {len(value)}")
        if check is None:
            return list(value)
        return [check(item, f"{field}[{i}]") for i, item in enumerate(value)]
    return read


def section(fields: Sequence[Field]) -> Check:
    """The check of a nested section (`read_section` at the key's path).

    Args:
        fields: the section's keys.
    """
    return lambda value, field: read_section(value, fields, field)
