"""Reading config files with errors that name them, and writing result files so that a crash
never leaves a half-written one behind (the writers live in `playstyles.outputs`, which needs
nothing of the project, so that `plots` and `games` use them too; they are imported here for
the agents, qd and the command line)."""

from __future__ import annotations

# the readers (within the limits of playstyles.limits) live where game-free code reaches them
from playstyles.inputs import (  # noqa: F401
    load_json,
    load_yaml,
    read_json,
    read_npz,
    read_text,
    read_yaml,
)
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
