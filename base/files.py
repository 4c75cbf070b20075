"""Files in and out, for every layer (this module needs nothing of the project but its
limits, so `qd.rundir`, the plots and the games use it too).

Reading, within the limits of `base.limits`: a size checked before reading, UTF-8, YAML
without duplicate keys, aliases to collections or deep nesting, JSON without deep nesting,
`.npz` files of plain arrays whose sizes are checked before decompressing; every error is one
line naming the file (and the line and column).

Writing, so that a crash never leaves a half-written file and a command never overwrites what
it did not write:

* `check_output_file`: before a command writes one file (a preset file, a game record, a
  model), it refuses a path that is not a regular file (a device, a FIFO, a directory), one of
  a run directory's own files (the caller names them: `qd.rundir.run_files`, as this module
  knows nothing of runs), and an existing file the command did not write (recognized by its
  format: `json_format`, `npz_json`); an existing file of its own is overwritten only when the
  user says so (`--force`).
* `claim_folder` (`check_folder` only checks): before a command writes into an output folder
  (a tournament, a ladder, a probe), the folder must be absent or empty, or hold the marker
  `.playstyles.json` of the same command (then `--force` or `--resume` must say what to do
  with its earlier results); the marker is written first. Any other non-empty folder is
  refused, whatever the flags, and so is a marked folder that holds a file the command does
  not write (a marker alone claims nothing: a run directory with a forged marker is still a
  run directory). The marker is read within `MAX_MARKER_BYTES`; a folder written before
  markers is recognized by the content of the command's own file (`json_object`,
  `base.datalog.log_header`), never by a name alone.
* `open_own`: a file a command keeps writing in its folder (a log, a journal, a table it
  appends to) is opened without following a symbolic link (`refuse_link`), so a link
  planted there cannot make the command write elsewhere.
* `atomic_write` and `save_figure`: a file is written to a temporary name beside it and
  renamed over the target, so readers see the old file or the new one; a failed write (a full
  disk) leaves neither a temporary file nor an empty one (`save_npz` for numpy arrays).
"""

from __future__ import annotations

import errno
import fnmatch
import io
import json
import os
import re
import stat
from pathlib import Path
from typing import IO, Any, Callable, Collection, Mapping

from base.limits import (
    MAX_CONFIG_BYTES,
    MAX_JSON_BYTES,
    MAX_MARKER_BYTES,
    MAX_NESTING,
    MAX_NPZ_BYTES,
    MAX_YAML_ALIASES,
    short,
)

# ------------------------------------------------------------------------------ reading

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | Path, error: type[ValueError] = ValueError) -> io.BufferedReader:
    """`path` opened for reading in binary, after checking that it is a regular file: a FIFO
    is opened without waiting for a writer (`O_NONBLOCK`) and refused, as are a device and a
    directory, so that no read ever blocks or runs without end. An error is one line naming
    the file.

    Args:
        path: the file.
        error: the exception class to raise (a `ValueError` subclass).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = next((what for test, what in _KINDS if test(mode)), "not a regular file")
            raise error(f"{path}: is {what}, not a regular file; it is not read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path: str | Path, max_bytes: int, error: type[ValueError] = ValueError,
              what: str = "file") -> str:
    """A text file's content, UTF-8: the file must be a regular file (`open_regular`) and its
    size is checked before it is read; a file that cannot be read, is too large or is not
    UTF-8 raises `error` naming the file (and, for a bad byte, its line).

    Args:
        path: the file.
        max_bytes: the largest size accepted (a constant of `base.limits`).
        error: the exception class to raise (a `ValueError` subclass).
        what: what the file is, in the too-large message (`config`, `record`, `level`).
    """
    with open_regular(path, error) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                raise error(f"{path}: {size} bytes, more than the {max_bytes} bytes a {what} "
                            f"may have")
            data = fh.read(max_bytes + 1)
        except OSError as e:
            raise error(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:  # a file that grew
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
    """YAML text parsed with the limits of `base.limits` (see `read_yaml`); an error names
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
    errors (`base.limits`, docs/limits.md).

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
    depth = deepest = 0
    for m in re.finditer(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def load_json(text: str, source: str, error: type[ValueError] = ValueError) -> Any:
    """JSON text parsed with the nesting limit of `base.limits`; an error names `source`,
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


def read_npz(path: str | Path, limit: int | None = None, what: str = "a .npz file of plain arrays",
             keys: Collection[str] | None = None,
             check: Callable[[str, tuple[int, ...], Any], str | None] | None = None
             ) -> dict[str, Any]:
    """The arrays of a `.npz` file, read without pickle and within bounds, in this order
    before anything is decompressed: the file must be a regular file (`open_regular`) of at
    most `MAX_NPZ_BYTES`; the arrays to read must hold at most `limit` bytes by the zip's
    directory; each array's header (its shape and type, a few bytes at the start of its
    member) must declare numbers or text (an array of objects is a pickle) of no more bytes
    than its member holds, and pass `check`. Only then are the arrays read.

    Args:
        path: the file.
        limit: the most the arrays read may hold, in bytes (default `MAX_NPZ_BYTES`).
        what: what the file should be, for messages.
        keys: the arrays to read (None: all); one the file lacks is absent from the result.
        check: called with each array's name, shape and dtype before any array is read;
            returns what is wrong with it (None: nothing), which is raised naming the file
            and the array.

    Raises:
        ValueError: one line naming the file (and the array), when it is not a readable
            `.npz` of plain arrays, is too large, or fails `check`.
    """
    import zipfile
    import zlib

    import numpy as np

    limit = MAX_NPZ_BYTES if limit is None else limit
    fmt = np.lib.format

    def header(name: str, info: zipfile.ZipInfo, z: zipfile.ZipFile) -> None:
        with z.open(info) as f:
            version = fmt.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                raise _Refused(f"{path}: {name}: .npy format version {version}; not {what}")
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(f)
            start = f.tell()
        if dtype.hasobject:
            raise _Refused(f"{path}: {name}: an array of objects (a pickle); not {what}")
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if min(shape, default=0) < 0 or start + nbytes > info.file_size:
            raise _Refused(f"{path}: {name}: its header declares the shape {short(shape)}, "
                           f"{nbytes} bytes, more than its {info.file_size} bytes hold")
        problem = check(name, shape, dtype) if check is not None else None
        if problem is not None:
            raise _Refused(f"{path}: {name}: {problem}")

    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max(limit, MAX_NPZ_BYTES):
            raise ValueError(f"{path}: {size} bytes, more than the {max(limit, MAX_NPZ_BYTES)} "
                             f"bytes a .npz file may have")
        try:
            with zipfile.ZipFile(fh) as z:
                members = {info.filename[:-4]: info for info in z.infolist()
                           if info.filename.endswith(".npy")}
                if keys is not None:
                    members = {k: members[k] for k in keys if k in members}
                total = sum(info.file_size for info in members.values())
                if total > limit:
                    held = "its arrays hold" if keys is None else f"{', '.join(members)}:"
                    raise _Refused(f"{path}: {held} {total} bytes, more than the {limit} "
                                   f"allowed")
                for name, info in members.items():
                    header(name, info, z)
                arrays = {}
                for name, info in members.items():
                    with z.open(info) as f:
                        arrays[name] = fmt.read_array(f, allow_pickle=False)
                return arrays
        except _Refused:
            raise
        except (OSError, EOFError, ValueError, RuntimeError, SyntaxError, RecursionError,
                zipfile.BadZipFile, zlib.error, NotImplementedError) as e:
            raise ValueError(f"{path}: not {what}: {' '.join(str(e).split())[:200]}") from None


class _Refused(ValueError):
    """A file refused by `read_npz` with its own message (not wrapped again)."""


# ------------------------------------------------------------------------------ writing

MARKER = ".playstyles.json"
"""The marker of a command's output folder: JSON, {"command": NAME, "format": MARKER_FORMAT}."""
MARKER_FORMAT = 1

def _not_regular(path: Path) -> str | None:
    """What `path` is when it exists and is not a regular file (None: absent or regular).
    `os.stat` looks without opening: a FIFO is not waited on, a device not touched."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # a parent is a file: writing fails there with its own error
        return None
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def _refuse_special(path: Path) -> None:
    what = _not_regular(path)
    if what is not None:
        raise ValueError(f"{path}: exists and is {what}, not a regular file; it is not "
                         f"written to: give the path of a file")


def refuse_link(path: str | Path) -> None:
    """Refuse a path that is a symbolic link: a command writes only the files inside its
    folder, never where a link there points.

    Args:
        path: a file a command writes in its folder.

    Raises:
        ValueError: naming the path and where it points.
    """
    path = Path(path)
    if path.is_symlink():
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            target = ""
        raise ValueError(f"{path}: a symbolic link{target}; playstyles writes only the files "
                         f"in its folder, never through a link: remove the link (or put the "
                         f"file it points to in its place)")


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o666)


def open_own(path: str | Path, mode: str = "ab", **kwargs: Any) -> IO[Any]:
    """Open a file a command keeps writing in its own folder (a log, a journal, a table it
    appends to or cuts back), never through a symbolic link: a link there is refused before
    it is opened (`refuse_link`), and the file is opened with O_NOFOLLOW where the system has
    it, so a link put in its place meanwhile is not followed either. A path that exists and
    is not a regular file (a FIFO, a device) is refused unopened.

    Args:
        path: the file.
        mode: the mode of `open` (`ab`, `r+b`, `a`...).
        **kwargs: further arguments of `open` (encoding, errors).

    Raises:
        ValueError: the path is a symbolic link or not a regular file, naming it.
        OSError: the file cannot be opened (the message is the system's).
    """
    path = Path(path)
    refuse_link(path)
    _refuse_special(path)
    try:
        return open(path, mode, opener=_no_follow, **kwargs)
    except OSError as e:
        if e.errno == errno.ELOOP:  # a link put there since it was looked at
            refuse_link(path)
        raise


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write to a temporary file beside `path` (`<name>.tmp`), flush it to disk, then rename
    it over `path`: readers see the old file or the new one, never a mixture. Missing parent
    folders are made.

    A path that exists and is not a regular file (a device, a FIFO, a directory) is refused
    before anything is written (renaming over it would replace it). A failed write (an
    OSError such as a full disk, or an interrupt) removes the temporary file and leaves
    `path` as it was.

    Args:
        path: the file to write.
        data: its whole content (text is written as UTF-8).

    Raises:
        ValueError: `path` is not a regular file.
        OSError: the write failed (the system's message, naming `path`).
    """
    path = Path(path)
    _refuse_special(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    view = memoryview(data.encode() if isinstance(data, str) else data)
    try:
        tmp.unlink(missing_ok=True)  # a leftover of a killed writer: never opened (a FIFO)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(e, OSError) and e.errno is not None \
                and (e.filename is None or str(e.filename) == str(tmp)):
            raise OSError(e.errno, e.strerror, str(path)) from None  # (a full disk: the file)
        raise
    return path


def save_figure(fig: Any, path: str | Path, **savefig: Any) -> Path:
    """Save a matplotlib figure atomically (`atomic_write`): the image is rendered in memory
    in the format of the file's suffix, then written whole, so no half-written image is
    ever left behind.

    Args:
        fig: the matplotlib figure.
        path: the image file (`.png`, `.svg`, `.pdf`...).
        **savefig: further arguments of `Figure.savefig` (dpi, bbox_inches...).
    """
    path = Path(path)
    _refuse_special(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=path.suffix.lstrip(".") or "png", **savefig)
    return atomic_write(path, buffer.getvalue())


def check_output_file(path: str | Path, *, command: str,
                      ours: Callable[[Path], bool] | None = None, force: bool = False,
                      protected: Collection[str] = ()) -> Path:
    """Refuse to write the output file `path` of `command` unless that is safe; nothing is
    written. Allowed: an absent path; an existing regular file that `command` wrote (as
    `ours` recognizes it by its format) when `force` is true.

    Args:
        path: the output file.
        command: the command writing it, as the user types it (`export`, `play --record`).
        ours: whether an existing regular file is one `command` wrote (its format: a preset
            file's own keys, a model's metadata); None: every existing regular file is (a
            command that owns its file names, e.g. the report's files in a run directory).
        force: overwrite a file `command` wrote (`--force`).
        protected: file names in `path`'s folder that no command but their own may write:
            the caller passes the files of a run directory when the folder is one
            (`qd.rundir.run_files`), so that this module needs no knowledge of run
            directories.

    Raises:
        ValueError: naming the path, why it is refused and what to do.
    """
    path = Path(path)
    _refuse_special(path)
    if path.name in protected:
        raise ValueError(f"{path}: a file of the run directory {path.parent}/, which "
                         f"{command} does not write: give a file name of its own")
    if not path.exists():
        return path
    if ours is not None and not ours(path):
        raise ValueError(f"{path}: exists and was not written by playstyles {command}; it is "
                         f"not overwritten: give another file name")
    if not force:
        raise ValueError(f"{path}: exists (an earlier playstyles {command} wrote it); give "
                         f"--force to overwrite it, or another file name")
    return path


def _marker(folder: Path) -> dict[str, Any] | None:
    """The marker of `folder` (None: it has none), read within `MAX_MARKER_BYTES` and
    `MAX_NESTING`. A marker that is not one playstyles writes (a link, not a regular file,
    too large, not JSON, not {"command": NAME, "format": MARKER_FORMAT}) raises ValueError
    naming it: it says nothing of whose the folder is."""
    path = folder / MARKER
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(mode):  # (a FIFO is not waited on, a link not followed)
        what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise ValueError(f"{path}: {what}, not a marker playstyles wrote")
    data = read_json(path, max_bytes=MAX_MARKER_BYTES, what="marker")
    command = data.get("command") if isinstance(data, dict) else None
    if not (isinstance(command, str) and re.fullmatch(r"[a-z][a-z -]{0,39}", command)
            and data.get("format") == MARKER_FORMAT):
        raise ValueError(f"{path}: not a marker playstyles wrote ({{\"command\": NAME, "
                         f"\"format\": {MARKER_FORMAT}}} expected)")
    return data


def _writes(name: str, writes: Collection[str]) -> bool:
    """Whether a command that writes `writes` (names or fnmatch patterns) wrote `name`
    (also the temporary file `<name>.tmp` of a write that was killed)."""
    name = name[:-len(".tmp")] if name.endswith(".tmp") else name
    return any(fnmatch.fnmatchcase(name, w) for w in writes)


def check_folder(path: str | Path, *, command: str, force: bool = False,
                 resume: bool = False, ours: Callable[[Path], bool] | None = None,
                 writes: Collection[str] | None = None) -> bool:
    """Refuse an output folder of `command` unless writing into it is safe; nothing is
    written. Allowed: an absent folder, an empty one (or one holding only a marker: a command
    that stopped before writing anything), and one whose marker (`MARKER`) names `command`
    when `force` (overwrite its results) or `resume` (continue its interrupted work) is true.
    Any other non-empty folder (files of the user's, a run directory, another command's
    results) is refused whatever the flags, and so is a folder holding anything `command`
    does not write (`writes`), whatever its marker says: a marker alone claims nothing.

    Args:
        path: the output folder.
        command: the command (`tournament`, `ladder`, ...), as its marker names it.
        force: overwrite the results of an earlier `command` there (`--force`).
        resume: continue the interrupted `command` there (`--resume`).
        ours: recognizes a folder `command` wrote, by the content of one of its own files
            (a name alone proves nothing): a folder written before folders had markers, or
            one whose marker was replaced; such a folder counts as marked by `command`,
            whatever its marker says.
        writes: the names `command` writes in the folder (fnmatch patterns); None: any.

    Returns:
        Whether the folder holds earlier work of `command`.

    Raises:
        ValueError: naming the folder, why it is refused and what to do.
    """
    path = Path(path)
    what = _not_regular(path)
    if path.exists() and what != "a directory":
        raise ValueError(f"{path}: exists and is {what or 'a file'}, not a directory; give "
                         f"the path of a new or empty directory")
    if not path.exists():
        return False
    try:
        mark, bad = _marker(path), None
    except ValueError as e:
        mark, bad = None, e
    held = sorted(p.name for p in path.iterdir() if p.name != MARKER)
    if ours is not None and held and ours(path):  # its content is the command's own
        owner: Any = command
    elif bad is not None:
        raise ValueError(f"{path}: the directory holds files that playstyles did not write "
                         f"there ({bad}); nothing is written into it: give a new or empty "
                         f"directory")
    elif not held:
        return False
    else:
        owner = mark.get("command") if mark is not None else None
    if owner != command:
        whose = f"the results of playstyles {owner}" if isinstance(owner, str) else \
            "files that playstyles did not write there"
        raise ValueError(f"{path}: the directory is not empty (it holds {whose}); nothing is "
                         f"written into it: give a new or empty directory")
    foreign = [n for n in held if writes is not None and not _writes(n, writes)]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise ValueError(f"{path}: holds {short(foreign[0])}{more}, which playstyles {command} "
                         f"does not write (a file of the user's, a run directory or another "
                         f"command's results); nothing is written into it: give a new or "
                         f"empty directory")
    if not (force or resume):
        raise ValueError(f"{path}: holds the results of an earlier playstyles {command}; "
                         f"continue it with --resume if it was interrupted, give --force to "
                         f"overwrite them, or give another directory")
    return True


def claim_folder(path: str | Path, *, command: str, force: bool = False,
                 resume: bool = False, ours: Callable[[Path], bool] | None = None,
                 writes: Collection[str] | None = None) -> Path:
    """`check_folder`, then make the folder and write its marker (before any result).

    Args:
        path: the output folder.
        command: the command, as its marker names it.
        force: overwrite the results of an earlier `command` there.
        resume: continue the interrupted `command` there.
        ours: recognizes a folder `command` wrote before folders had markers.
        writes: the names `command` writes in the folder (fnmatch patterns); None: any.

    Returns:
        The folder.
    """
    path = Path(path)
    check_folder(path, command=command, force=force, resume=resume, ours=ours, writes=writes)
    try:
        mark = _marker(path)
    except ValueError:  # a folder of the command's own content (`ours`) with a bad marker
        mark = None
    if not (mark is not None and mark.get("command") == command):
        atomic_write(path / MARKER, json.dumps({"command": command, "format": MARKER_FORMAT})
                     + "\n")
    return path


def json_object(path: str | Path, required: Mapping[str, type | tuple[type, ...]] = {}
                ) -> dict[str, Any] | None:
    """The JSON object in `path` when it is one (read within `MAX_JSON_BYTES` and
    `MAX_NESTING`) and holds every key of `required` with a value of its type; None
    otherwise (absent, unreadable, not JSON, another structure): how the commands recognize
    the files they wrote by their content, not their name.

    Args:
        path: the file.
        required: key -> the type (or types) its value must have.
    """
    path = Path(path)
    if not path.is_file():  # (a FIFO is not opened)
        return None
    try:
        data = read_json(path)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if any(not isinstance(data.get(k), t) for k, t in required.items()):
        return None
    return data


def json_format(path: str | Path) -> Any:
    """The `format` field of a JSON object file (None: not JSON, not an object, unreadable,
    larger than `MAX_JSON_BYTES`): how the commands recognize the files they wrote.

    Args:
        path: the file.
    """
    data = json_object(path)
    return data.get("format") if data is not None else None


def save_npz(path: str | Path, **arrays: Any) -> Path:
    """Save numpy arrays as one compressed ``.npz`` atomically (`atomic_write`).

    Args:
        path: the file.
        **arrays: the arrays by name.
    """
    import numpy as np
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return atomic_write(path, buffer.getvalue())


def npz_json(path: str | Path, key: str) -> Any:
    """The JSON text stored as the array `key` of an ``.npz`` file, parsed (None: not an npz
    file, no such array, not JSON, or more than `MAX_JSON_BYTES`): how the commands recognize
    the npz files they wrote. It is read with `read_npz` and `load_json`, so nothing is
    unpickled and nothing large is inflated or parsed.

    Args:
        path: the file.
        key: the array holding the JSON text (a model's `metadata`, samples' `meta`).
    """
    try:
        text = read_npz(path, MAX_JSON_BYTES, keys=[key])[key]
        return load_json(str(text), str(path))
    except (ValueError, KeyError):  # any file that is no such npz
        return None
