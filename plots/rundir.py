"""Reading a run directory for plotting: `RunFiles` and `Axis` of `qd.rundir`, re-exported.

The run directory's schema (file names, column groups) and its reader belong to `qd.rundir`,
which imports no game, agent, Ray, pyribs or matplotlib; plots import nothing else of `qd`.
"""

from __future__ import annotations

from qd.rundir import QUALITY_COLUMNS, Axis, RunFiles

__all__ = ["Axis", "QUALITY_COLUMNS", "RunFiles"]
