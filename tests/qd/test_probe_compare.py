"""`playstyles probe CONFIG --vary ...`: one probe per setting, side by side: the settings
`--vary` gives, each setting's probe equal to a probe of that config, the comparison tables,
resume and the command line."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from playstyles.cli import main
from qd.config import ConfigError
from qd.probe import run_probe
from qd.probe_compare import compare_probes, parse_vary, setting_config, setting_label
from tests.qd.test_probe import NIM

GAMES = 4


def test_keys_of_one_vary_go_in_step_and_separate_varies_cross():
    found = parse_vary([["genome_mapping=weights,persona"],
                        ["budget=50,300", "options.max_rounds=15,21"]])
    assert found == [
        {"genome_mapping": "weights", "budget": 50, "options.max_rounds": 15},
        {"genome_mapping": "weights", "budget": 300, "options.max_rounds": 21},
        {"genome_mapping": "persona", "budget": 50, "options.max_rounds": 15},
        {"genome_mapping": "persona", "budget": 300, "options.max_rounds": 21}]
    assert setting_label(found[3]) == "persona-budget300-max_rounds21"


@pytest.mark.parametrize("groups, message", [
    ([["seed=1,2"]], r"unknown key 'seed' \(known: genome_mapping, budget, options.NAME\)"),
    ([["budget"]], r"--vary 'budget': KEY=V1,V2,... expected"),
    ([["budget=1,2", "options.x=1"]], "vary in step and need as many values each"),
    ([["budget=1,2"], ["budget=3"]], "budget is varied twice"),
    ([["budget=1,2,3,4,5"], ["options.a=1,2,3,4"]], "20 settings, at most 16"),
    ([["budget=" + ",".join(map(str, range(9)))]], "at most 8 values"),
])
def test_a_bad_vary_is_one_error_naming_it(groups, message):
    with pytest.raises(ValueError, match=message):
        parse_vary(groups)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    here = tmp_path_factory.mktemp("compare")
    path = here / "nim.yaml"
    path.write_text(yaml.safe_dump(NIM))
    return path, compare_probes(path, [["budget=3,6"]], games=GAMES, out=here / "out",
                                workers=0)


def test_each_setting_is_the_probe_of_its_config(compared, tmp_path):
    path, found = compared
    assert [f.name for f in found.folders] == ["01-budget3", "02-budget6"]
    config = setting_config(dict(NIM), {"budget": 6}, "nim.yaml", NIM["seed"])
    assert config.agent["budget"] == 6 and config.opponent["budget"] is None
    alone = run_probe(config, games=GAMES, out=tmp_path / "p", workers=0)
    mine = pd.read_csv(found.folders[1] / "probe_games.csv").drop(columns="seconds")
    theirs = pd.read_csv(alone.out / "probe_games.csv").drop(columns="seconds")
    pd.testing.assert_frame_equal(mine, theirs)
    other = pd.read_csv(found.folders[0] / "probe_games.csv").drop(columns="seconds")
    assert not other.equals(mine), "the budget changed the games"


def test_the_comparison_holds_every_setting_and_feature(compared):
    _, found = compared
    s = found.settings
    assert s["label"].tolist() == ["budget3", "budget6"] and s["budget"].tolist() == [3, 6]
    assert (s["games_per_genome"] == GAMES).all() and (s["genomes"] == 2 + 3).all()
    assert (s["median_seconds"] > 0).all()
    for k, folder in enumerate(found.folders, 1):
        probe = pd.read_csv(folder / "probe.csv").set_index("feature")
        mine = found.table[found.table["setting"] == k].set_index("feature")
        assert sorted(mine.index) == sorted(probe.index)
        assert mine["range_sd"].equals(probe.loc[mine.index, "range_sd"])
    text = (found.out / "comparison.md").read_text()
    assert "| budget3 | 5 | 4 |" in text and "`stones_per_move`" in text


def test_resume_reads_finished_probes_instead_of_playing_them(compared):
    path, found = compared
    before = {f: (f / "probe_games.csv").stat().st_mtime_ns for f in found.folders}
    again = compare_probes(path, [["budget=3,6"]], games=GAMES, out=found.out, workers=0,
                           resume=True)
    assert {f: (f / "probe_games.csv").stat().st_mtime_ns for f in again.folders} == before
    pd.testing.assert_frame_equal(again.settings, found.settings)


def test_a_config_without_a_seed_is_refused(tmp_path):
    path = tmp_path / "nim.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in NIM.items() if k != "seed"}))
    with pytest.raises(ConfigError, match="seed: a comparison plays every setting"):
        compare_probes(path, [["budget=3,6"]], out=tmp_path / "out", workers=0)
    assert not (tmp_path / "out").exists()


def test_the_command_prints_the_comparison(tmp_path, capsys):
    path = tmp_path / "nim.yaml"
    path.write_text(yaml.safe_dump(NIM))
    assert main(["probe", str(path), "--vary", "budget=3,4", "--games", "4", "--workers", "0",
                 "--quiet", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Where the genome acts") and "| budget4 |" in out
    assert (tmp_path / "out" / "01-budget3" / "probe.png").exists()
    assert main(["probe", str(path), "--vary", "nope=1", "--out", str(tmp_path / "o2")]) == 2
    assert "unknown key 'nope'" in capsys.readouterr().err
