"""The run directory's schema (qd.rundir): the files a run writes have the columns the schema
names, config.yaml records the evolved scripts and readers take the weight columns from it,
run directories written before that still resume and read, and the schema module is light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from qd import rundir
from qd.config import ConfigError, config_from_dict
from qd.run import evolve
from qd.rundir import RunFiles
from tests.plots.tiny_run import TINY_RUN, copy_run, tiny_run

REPO = Path(__file__).resolve().parents[2]

CONFIG = {"game": "tribes", "agent": {"name": "mcts", "budget": 10, "genome_mapping": "none"},
          "levels": {"train": "seeds:1,2"}, "options": {"max_rounds": 3}, "seed": 1}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return tiny_run(tmp_path_factory)


def test_a_run_writes_the_files_and_columns_the_schema_names(run_dir):
    run = RunFiles(run_dir)
    for name in rundir.RUN_FILES:
        assert run.has(name), name
    assert not run.path(rundir.PARTIAL).exists()
    scripts = run.genome_scripts
    assert scripts == run.config["genome_scripts"] and len(scripts) == 11
    features = [f["name"] for f in TINY_RUN["features"]]
    assert run.features == features
    stats = run.feature_columns()
    assert set(features) <= set(stats) and "score" in stats
    assert list(run.elites.columns) == rundir.elite_columns(scripts, features, stats)
    assert list(run.individuals.columns) == rundir.individual_columns(scripts, features, stats)
    assert set(run.individuals["status"]) <= set(rundir.STATUS)
    assert list(run.metrics.columns) == list(rundir.METRIC_COLUMNS)
    games = run.games
    sides = [c for c in games.columns if c.startswith(tuple(map(rundir.side_prefix,
                                                                 rundir.GAME_SIDES)))]
    assert {"genome_agent", "opponent_agent", "genome_seat", "genome_won"} <= set(sides)
    counts = [c for c in games.columns if c.startswith(rundir.event_count_prefixes())]
    assert counts and games[counts].notna().all().all()
    assert run.weight_columns() == scripts


def test_the_grid_index_and_cell_columns(run_dir):
    run = RunFiles(run_dir)
    idx = run.grid_indices()
    assert idx.shape == (len(run.elites), 2)
    for (a, b), text in zip(idx, run.elites["grid_index"]):
        assert rundir.grid_index_text([a, b]) == text
        assert rundir.parse_grid_index(text) == [a, b]


def test_weight_columns_come_from_config_yaml(tmp_path, run_dir):
    d = copy_run(run_dir, tmp_path / "run")
    cfg = yaml.safe_load((d / rundir.CONFIG).read_text())
    scripts = cfg[rundir.GENOME_SCRIPTS]
    # not by position: the config's list decides, whatever the columns' order
    elites = pd.read_csv(d / rundir.ELITES)
    elites[list(reversed(elites.columns))].to_csv(d / rundir.ELITES, index=False)
    assert RunFiles(d).weight_columns() == scripts
    # a run directory written before config.yaml recorded them: the old inference
    del cfg[rundir.GENOME_SCRIPTS]
    (d / rundir.CONFIG).write_text(yaml.safe_dump(cfg, sort_keys=False))
    elites.to_csv(d / rundir.ELITES, index=False)
    assert RunFiles(d).genome_scripts is None
    assert RunFiles(d).weight_columns() == scripts


def test_config_records_and_checks_genome_scripts():
    c = config_from_dict({**CONFIG, "layout": ["SpawnRange", "ResearchFarms"]})
    d = c.to_dict()
    assert d["genome_scripts"] == ["SpawnRange", "ResearchFarms"]
    assert list(d).index("genome_scripts") == list(d).index("layout") + 1
    assert config_from_dict(d).to_dict() == d
    paper = config_from_dict(CONFIG).to_dict()
    assert paper["layout"] == "paper" and paper["genome_scripts"][0] == "ResearchFarms"
    for bad in (["ResearchFarms", "SpawnRange"], ["SpawnRange"], "SpawnRange", [1, 2]):
        with pytest.raises(ConfigError, match=r"^config: genome_scripts: "):
            config_from_dict({**d, "genome_scripts": bad})


def test_the_schema_module_is_light():
    """qd.rundir (the package and its modules) imports no game, agent, Ray, pyribs or
    matplotlib, and `import qd` nothing."""
    code = ("import sys; import qd; first = sorted(m for m in sys.modules if m.startswith('qd'));"
            "import qd.rundir; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('agents', 'games', 'ray', 'ribs', 'matplotlib') or "
            "(m.startswith('qd') and m != 'qd' and m.split('.')[:2] != ['qd', 'rundir']));"
            "print(first, bad); sys.exit(1 if bad or first != ['qd'] else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_public_surface():
    import qd
    from qd.archive import EliteArchive
    from qd.emitters import register_emitter
    from qd.features import Feature, register_feature
    assert qd.EliteArchive is EliteArchive and qd.Feature is Feature
    assert qd.register_feature is register_feature and qd.register_emitter is register_emitter
    assert qd.evolve is evolve and qd.RunFiles is RunFiles and qd.rundir is rundir
    assert {"RunConfig", "load_config", "validate", "export_presets"} <= set(qd.__all__)
    with pytest.raises(AttributeError):
        qd.nothing_like_this


def test_an_unreadable_or_broken_config_yaml_is_one_clear_error(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "config.yaml").write_text("name: [unclosed\n")
    with pytest.raises(ValueError, match=r"config\.yaml: not valid YAML"):
        RunFiles(d).config
    (d / "config.yaml").unlink()
    (d / "config.yaml").mkdir()  # exists, but cannot be read as a file
    with pytest.raises(ValueError, match=r"config\.yaml: is a directory, not a regular file"):
        RunFiles(d).config
