"""Reading config files with errors that name them, and writing result files so that a crash
never leaves a half-written one behind."""

from __future__ import annotations

import os
from pathlib import Path

# the readers (within the limits of playstyles.limits) live where game-free code reaches them
from playstyles.inputs import load_json, load_yaml, read_json, read_text, read_yaml  # noqa: F401


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write to a temporary file, flush it to disk, then rename it over `path`: readers see
    the old file or the new one, never a mixture. Missing parent folders are made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data.encode() if isinstance(data, str) else data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path
