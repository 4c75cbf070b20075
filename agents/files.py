"""Reading config files with errors that name them, and writing result files so that a crash
never leaves a half-written one behind (the writers live in `playstyles.outputs`, which needs
nothing of the project, so that `plots` and `games` use them too; they are imported here for
the agents, qd and the command line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playstyles.outputs import (  # noqa: F401 - the writers, re-exported
    MARKER,
    MARKER_FORMAT,
    atomic_write,
    check_folder,
    check_output_file,
    claim_folder,
    json_format,
    npz_json,
    save_figure,
    save_npz,
)


def read_yaml(path: str | Path, error: type[ValueError] = ValueError) -> Any:
    """A YAML file's content; a file that cannot be read or parsed raises `error` naming the
    file (a syntax error also names the line and the column).

    Args:
        path: the YAML file.
        error: the exception class to raise (a `ValueError` subclass, e.g. a config error).
    """
    import yaml
    try:
        with open(path, encoding="utf-8") as stream:  # a stream: YAML's marks then name the file
            return yaml.safe_load(stream)
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    except yaml.YAMLError as e:
        raise error(f"{path}: not valid YAML: {e}") from None


NPZ_LIMIT = 2 * 2**30
"""The most a `.npz` file (a model, saved samples) may hold once its arrays are read."""


def read_npz(path: str | Path, limit: int = NPZ_LIMIT, what: str = "a .npz file of plain arrays"
             ) -> dict[str, Any]:
    """The arrays of a `.npz` file, read without pickle: numbers and strings only (an array of
    objects is refused), each array's size checked from the zip's directory before anything
    is decompressed, so a small file cannot expand past `limit` bytes.

    Args:
        path: the file.
        limit: the most its arrays may hold, in bytes.
        what: what the file should be, for messages.

    Raises:
        ValueError: naming the file, when it is not a readable `.npz` of plain arrays or
            holds more than `limit` bytes.
    """
    import zipfile

    import numpy as np
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
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ValueError(f"{path}: not {what}: {e}") from None
