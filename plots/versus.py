"""The boards `playstyles versus` drew into a run directory (RUN/versus/A_vs_B/), as the
report and the explorer show them: two styles and the control side by side on the same level,
seat and seeds."""

from __future__ import annotations

import base64
from pathlib import Path

from qd.rundir import RunFiles

VERSUS_FOLDERS = 2
"""At most this many `playstyles versus` comparisons are shown ..."""
VERSUS_IMAGES = 3
"""... each with at most this many of its boards (the first game's, in round order)."""
VERSUS_BYTES = 5 * 1024 ** 2
"""A board image larger than this is not embedded (versus draws well under 1 MB)."""


def versus_images(run: RunFiles) -> list[tuple[str, Path, str]]:
    """(heading, image, caption) of every board shown: the first VERSUS_FOLDERS comparisons
    in name order, each with its first game's boards in round order (the last board last);
    links and images over VERSUS_BYTES are left out.

    Args:
        run: the run directory.
    """
    out = []
    folders = sorted(p for p in (run.dir / "versus").glob("*") if p.is_dir()
                     and not p.is_symlink())
    for folder in folders[:VERSUS_FOLDERS]:
        boards = sorted((p for p in folder.glob("game0_*.png") if not p.is_symlink()
                         and p.stat().st_size <= VERSUS_BYTES),
                        key=lambda p: (p.stem.endswith("end"), p.name))
        for path in boards[:VERSUS_IMAGES]:
            out.append((f"Two styles and the control, side by side: {folder.name}", path,
                        "The same level, seat and seeds for each (playstyles versus; "
                        f"{folder.name}/versus.md gives their features over its games)."))
    return out


def png_data_uri(path: Path) -> str:
    """A PNG file as a data: URI (pages that embed it stay one file, offline)."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
