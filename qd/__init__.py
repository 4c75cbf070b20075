"""Quality-diversity over Portfolio-MCTS weights: features, the archive, emitters, the run.

The public surface, imported on first use (so `import qd` stays cheap: most of it pulls in
pyribs, the games or Ray):

* behaviour features: `Feature`, `FeatureTable`, `register_feature` (a per-game feature
  function), `register_features`, `features_of`;
* the archive: `EliteArchive`;
* emitters: `register_emitter` (a new `emitter.kind`), `EMITTERS`, `GridEmitter`;
* genome mappings: `register_mapping`, `GenomeMapping`;
* run configs: `RunConfig`, `ConfigError`, `load_config`, `config_from_dict`;
* before a run: `probe` (which features the genome moves beyond the games' noise);
* runs and after: `evolve`, `validate`, `export_presets`;
* the run directory's schema and reader: `rundir` (file names, column groups), `RunFiles`.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Feature": "qd.features",
    "PlayerGame": "qd.features",
    "FeatureTable": "qd.features",
    "register_feature": "qd.features",
    "register_features": "qd.features",
    "features_of": "qd.features",
    "EliteArchive": "qd.archive",
    "EMITTERS": "qd.emitters",
    "GridEmitter": "qd.emitters",
    "register_emitter": "qd.emitters",
    "register_mapping": "qd.genome_games",
    "GenomeMapping": "qd.genome_games",
    "RunConfig": "qd.config",
    "ConfigError": "qd.config",
    "load_config": "qd.config",
    "config_from_dict": "qd.config",
    "evolve": "qd.run",
    "RunError": "qd.run",
    "run_probe": "qd.probe",
    "validate": "qd.validation",
    "export_presets": "qd.export",
    "RunFiles": "qd.rundir",
}

__all__ = sorted([*_LAZY, "rundir"])


def __getattr__(name: str) -> Any:
    if name == "rundir":
        return importlib.import_module("qd.rundir")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'qd' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
