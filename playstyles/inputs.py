"""Reading input files within the limits of `playstyles.limits`: a size checked before
reading, UTF-8, YAML without duplicate keys, aliases to collections or deep nesting, JSON
without deep nesting; every error is one line naming the file (and the line and column).

These readers need nothing of the game or agent code, so the run directory's schema
(`qd.rundir`), the plots and the games read with them too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playstyles.limits import (
    MAX_CONFIG_BYTES,
    MAX_JSON_BYTES,
    MAX_NESTING,
    MAX_NPZ_BYTES,
    MAX_YAML_ALIASES,
    short,
)


def read_text(path: str | Path, max_bytes: int, error: type[ValueError] = ValueError,
              what: str = "file") -> str:
    """A text file's content, UTF-8: its size is checked before it is read, and a file that
    cannot be read, is too large or is not UTF-8 raises `error` naming the file (and, for a
    bad byte, its line).

    Args:
        path: the file.
        max_bytes: the largest size accepted (a constant of `playstyles.limits`).
        error: the exception class to raise (a `ValueError` subclass).
        what: what the file is, in the too-large message (`config`, `record`, `level`).
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                raise error(f"{path}: {size} bytes, more than the {max_bytes} bytes a {what} "
                            f"may have")
            data = fh.read(max_bytes + 1)
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:  # a file that grew, or a pipe
        raise error(f"{path}: more than the {max_bytes} bytes a {what} may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: {decoding_problem(data)}") from None


def decoding_problem(data: bytes) -> str:
    """Where bytes stop being UTF-8 text, in words: `line 3: not UTF-8 text (byte 0xe9 at
    character 5)`.

    Args:
        data: the file's bytes.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - data.rfind(b"\n", 0, e.start)
        return f"line {line}: not UTF-8 text (byte 0x{data[e.start]:02x} at character {column})"
    return "UTF-8 text"


def _yaml_loader():
    """The SafeLoader subclass `load_yaml` parses with (made on first use: yaml is imported
    lazily)."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml
    from yaml.composer import ComposerError
    from yaml.constructor import ConstructorError


    class LimitedLoader(yaml.SafeLoader):
        """PyYAML's safe loader that refuses a duplicate mapping key (naming it and both
        lines), an alias to a mapping or a list, more than `MAX_YAML_ALIASES` aliases and
        nesting deeper than `MAX_NESTING`."""

        def __init__(self, stream: Any) -> None:
            super().__init__(stream)
            self.depth = 0
            self.aliases = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                self.aliases += 1
                if self.aliases > MAX_YAML_ALIASES:
                    raise ComposerError(None, None, f"more than {MAX_YAML_ALIASES} aliases",
                                        event.start_mark)
                target = self.anchors.get(event.anchor)
                if target is not None and not isinstance(target, yaml.ScalarNode):
                    kind = "mapping" if isinstance(target, yaml.MappingNode) else "list"
                    raise ComposerError(None, None, f"alias *{event.anchor} names a {kind}; "
                                                    f"an alias may name a single value only",
                                        event.start_mark)
            self.depth += 1
            try:
                if self.depth > MAX_NESTING:
                    raise ComposerError(None, None, f"nested more than {MAX_NESTING} deep",
                                        self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # unhashable: the base class reports it
                        continue
                    if first is not None:
                        raise ConstructorError(None, None, f"duplicate key {short(key)} (first "
                                                           f"on line {first + 1})",
                                               key_node.start_mark)
                    seen[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

    _LOADER = LimitedLoader
    return _LOADER


_LOADER: Any = None


def load_yaml(text: str, source: str, error: type[ValueError] = ValueError) -> Any:
    """YAML text parsed with the limits of `playstyles.limits` (see `read_yaml`); an error names
    `source`, the line and the column, on one line.

    Args:
        text: the YAML text.
        source: what errors call it (a file name, `--option size`).
        error: the exception class to raise (a `ValueError` subclass).
    """
    import yaml
    loader = None
    try:
        loader = _yaml_loader()(text)  # (its reader refuses unprintable characters)
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise error(f"{source}: not valid YAML: {where}{what}") from None
    except yaml.YAMLError as e:
        raise error(f"{source}: not valid YAML: {' '.join(str(e).split())}") from None
    except (ValueError, RecursionError) as e:  # e.g. an integer of more than 4300 digits
        raise error(f"{source}: not valid YAML: {' '.join(str(e).split())[:200]}") from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml(path: str | Path, error: type[ValueError] = ValueError,
              max_bytes: int | None = None) -> Any:
    """A YAML file's content; a file that cannot be read or parsed raises `error` naming the
    file (a syntax error also names the line and the column). The file's size is checked
    before it is read (`MAX_CONFIG_BYTES`); a duplicate key, an alias to a mapping or a
    list, more than `MAX_YAML_ALIASES` aliases and nesting deeper than `MAX_NESTING` are
    errors (`playstyles.limits`, docs/limits.md).

    Args:
        path: the YAML file.
        error: the exception class to raise (a `ValueError` subclass, e.g. a config error).
        max_bytes: the largest file accepted (default `MAX_CONFIG_BYTES`).
    """
    text = read_text(path, MAX_CONFIG_BYTES if max_bytes is None else max_bytes, error,
                     what="YAML file")
    return load_yaml(text, str(path), error)


def _json_depth(text: str) -> int:
    """The deepest nesting of brackets and braces outside strings (a scan, no recursion)."""
    import re
    depth = deepest = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def load_json(text: str, source: str, error: type[ValueError] = ValueError) -> Any:
    """JSON text parsed with the nesting limit of `playstyles.limits`; an error names `source`,
    the line and the column, on one line.

    Args:
        text: the JSON text.
        source: what errors call it (a file name).
        error: the exception class to raise (a `ValueError` subclass).
    """
    import json

    if _json_depth(text) > MAX_NESTING:
        raise error(f"{source}: nested more than {MAX_NESTING} deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{source}: not valid JSON: line {e.lineno}, column {e.colno}: "
                    f"{e.msg}") from None
    except (ValueError, RecursionError) as e:  # an integer of more than 4300 digits
        raise error(f"{source}: not valid JSON: {' '.join(str(e).split())[:200]}") from None


def read_json(path: str | Path, error: type[ValueError] = ValueError,
              max_bytes: int | None = None, what: str = "JSON file") -> Any:
    """A JSON file's content: its size is checked before it is read (`MAX_JSON_BYTES`), its
    nesting (`MAX_NESTING`) before it is parsed; a file that cannot be read, is not UTF-8 or
    not JSON raises `error` naming the file (and the line and column).

    Args:
        path: the JSON file.
        error: the exception class to raise (a `ValueError` subclass).
        max_bytes: the largest file accepted (default `MAX_JSON_BYTES`).
        what: what the file is, in the too-large message (`record`, `preset file`).
    """
    text = read_text(path, MAX_JSON_BYTES if max_bytes is None else max_bytes, error, what)
    return load_json(text, str(path), error)


def read_npz(path: str | Path, limit: int | None = None, what: str = "a .npz file of plain arrays"
             ) -> dict[str, Any]:
    """The arrays of a `.npz` file, read without pickle: numbers and strings only (an array of
    objects is refused), each array's size checked from the zip's directory before anything
    is decompressed, so a small file cannot expand past `limit` bytes.

    Args:
        path: the file.
        limit: the most its arrays may hold, in bytes (default `MAX_NPZ_BYTES`).
        what: what the file should be, for messages.

    Raises:
        ValueError: naming the file, when it is not a readable `.npz` of plain arrays or
            holds more than `limit` bytes.
    """
    import zipfile
    import zlib

    import numpy as np

    limit = MAX_NPZ_BYTES if limit is None else limit
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as z:
            total = sum(info.file_size for info in z.infolist())
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        raise ValueError(f"{path}: not {what}: {e}") from None
    if total > limit:
        raise ValueError(f"{path}: its arrays hold {total} bytes, more than the {limit} "
                         f"allowed")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, zlib.error) as e:
        raise ValueError(f"{path}: not {what}: {e}") from None
