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
