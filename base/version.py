"""Which code is running: the package's version and, in a git checkout, its commit (the
provenance written into what the code exports, such as preset files)."""

from __future__ import annotations

import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

try:
    __version__ = version("playstyles")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          timeout=20, check=False)


def source_commit() -> tuple[str | None, bool | None]:
    """The commit of the code running and whether its tracked files differ from it; (None,
    None) when the code is not a git checkout of its own (an installed package, or git
    missing)."""
    try:
        top = _git("rev-parse", "--show-toplevel")
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT:
            return None, None
        head = _git("rev-parse", "--verify", "HEAD")
        if head.returncode != 0:
            return None, None
        changed = _git("diff", "--quiet", "HEAD", "--")
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head.stdout.strip(), changed.returncode != 0 if changed.returncode in (0, 1) else None


def provenance() -> dict[str, Any]:
    """What made a file: {"playstyles": version, "commit": the commit or None,
    "uncommitted_changes": whether the code differed from that commit (None: unknown)}."""
    commit, changed = source_commit()
    return {"playstyles": __version__, "commit": commit, "uncommitted_changes": changed}
