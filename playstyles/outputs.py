"""Writing a command's outputs: result files so that a crash never leaves a half-written one
behind, and a command never overwrites what it did not write.

Every command that writes a result goes through the helpers here (this module needs nothing
of the project, so every layer, `plots` and `games` included, uses the same ones):

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
  refused, whatever the flags.
* `atomic_write` and `save_figure`: a file is written to a temporary name beside it and
  renamed over the target, so readers see the old file or the new one; a failed write (a full
  disk) leaves neither a temporary file nor an empty one (`save_npz` for numpy arrays).
"""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path
from typing import Any, Callable, Collection

from playstyles.limits import MAX_JSON_BYTES

MARKER = ".playstyles.json"
"""The marker of a command's output folder: JSON, {"command": NAME, "format": MARKER_FORMAT}."""
MARKER_FORMAT = 1

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


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
        OSError: the write failed (the message is the system's).
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
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
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


def _marker(folder: Path) -> Any:
    if not (folder / MARKER).is_file():  # (a FIFO of that name is not waited on)
        return None
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def check_folder(path: str | Path, *, command: str, force: bool = False,
                 resume: bool = False, ours: Callable[[Path], bool] | None = None) -> bool:
    """Refuse an output folder of `command` unless writing into it is safe; nothing is
    written. Allowed: an absent folder, an empty one (or one holding only a marker: a command
    that stopped before writing anything), and one whose marker (`MARKER`) names `command`
    when `force` (overwrite its results) or `resume` (continue its interrupted work) is true.
    Any other non-empty folder (files of the user's, a run directory, another command's
    results) is refused whatever the flags.

    Args:
        path: the output folder.
        command: the command (`tournament`, `ladder`, ...), as its marker names it.
        force: overwrite the results of an earlier `command` there (`--force`).
        resume: continue the interrupted `command` there (`--resume`).
        ours: recognizes a folder `command` wrote before folders had markers (e.g. it holds
            the command's own summary file); such a folder counts as marked.

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
    if not path.exists() or not [p for p in path.iterdir() if p.name != MARKER]:
        return False
    mark = _marker(path)
    owner = mark.get("command") if isinstance(mark, dict) else None
    if owner is None and ours is not None and ours(path):
        owner = command
    if owner != command:
        whose = f"the results of playstyles {owner}" if isinstance(owner, str) else \
            "files that playstyles did not write there"
        raise ValueError(f"{path}: the directory is not empty (it holds {whose}); nothing is "
                         f"written into it: give a new or empty directory")
    if not (force or resume):
        raise ValueError(f"{path}: holds the results of an earlier playstyles {command}; "
                         f"continue it with --resume if it was interrupted, give --force to "
                         f"overwrite them, or give another directory")
    return True


def claim_folder(path: str | Path, *, command: str, force: bool = False,
                 resume: bool = False, ours: Callable[[Path], bool] | None = None) -> Path:
    """`check_folder`, then make the folder and write its marker (before any result).

    Args:
        path: the output folder.
        command: the command, as its marker names it.
        force: overwrite the results of an earlier `command` there.
        resume: continue the interrupted `command` there.
        ours: recognizes a folder `command` wrote before folders had markers.

    Returns:
        The folder.
    """
    path = Path(path)
    check_folder(path, command=command, force=force, resume=resume, ours=ours)
    mark = _marker(path)
    if not (isinstance(mark, dict) and mark.get("command") == command):
        atomic_write(path / MARKER, json.dumps({"command": command, "format": MARKER_FORMAT})
                     + "\n")
    return path


def json_format(path: str | Path) -> Any:
    """The `format` field of a JSON object file (None: not JSON, not an object, unreadable):
    how the commands recognize the files they wrote.

    Args:
        path: the file.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("format") if isinstance(data, dict) else None


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
    file, no such array, not JSON): how the commands recognize the npz files they wrote.
    Nothing is unpickled.

    Args:
        path: the file.
        key: the array holding the JSON text (a model's `metadata`, samples' `meta`).
    """
    import zipfile

    import numpy as np

    try:
        with zipfile.ZipFile(path) as z:  # a member that would expand too far is not read
            if z.getinfo(f"{key}.npy").file_size > MAX_JSON_BYTES:
                return None
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data[key]))
    except Exception:  # noqa: BLE001 - any file that is no such npz
        return None
