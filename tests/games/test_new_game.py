"""`playstyles new-game`: a starter package that installs with pip, passes `playstyles check`
and evolves as written; names and folders it cannot use are refused before anything is
written."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

from games.new_game import check_name, write_starter
from playstyles.cli import main


@pytest.mark.parametrize("name, why", [
    ("Demo", "lower-case letters"), ("2demo", "a letter first"), ("de-mo", "lower-case"),
    ("x" * 33, "at most 32"), ("class", "Python keyword"), ("tribes", "already a game here"),
    ("nim", "already a game here")])
def test_a_name_new_game_cannot_use_is_refused(name, why, tmp_path):
    with pytest.raises(ValueError, match=why):
        check_name(name)
    assert main(["new-game", name, str(tmp_path / "pkg")]) == 2
    assert not (tmp_path / "pkg").exists()


def test_a_folder_with_files_is_never_written_into(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("the user's file")
    assert main(["new-game", "guarded_game", str(tmp_path)]) == 2
    assert "writes only into a new or empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]
    assert (tmp_path / "mine.txt").read_text() == "the user's file"


def test_the_starter_holds_every_part_with_the_name_filled_in(tmp_path):
    starter = write_starter("my_game", tmp_path / "pkg")
    names = {p.relative_to(starter.folder).as_posix() for p in starter.files}
    assert names == {"README.md", "pyproject.toml", "tiny.yaml", "tests/test_game.py",
                     "my_game_game/__init__.py", "my_game_game/game.py",
                     "my_game_game/knowledge.py", "my_game_game/plugin.py"}
    text = "".join(p.read_text() for p in starter.files)
    assert "{{" not in text and "}}" not in text
    assert 'my_game = "my_game_game.plugin"' in (starter.folder / "pyproject.toml").read_text()
    assert "class MyGameState" in (starter.folder / "my_game_game/game.py").read_text()


def test_the_kit_installs_what_its_tests_need_and_says_what_its_config_plays(tmp_path):
    import tomllib

    import yaml

    starter = write_starter("my_game", tmp_path / "pkg")
    readme = (starter.folder / "README.md").read_text()
    project = tomllib.loads((starter.folder / "pyproject.toml").read_text())["project"]
    assert 'pip install -e ".[test]"' in readme and "pytest tests" in readme
    assert any(d.startswith("pytest") for d in project["optional-dependencies"]["test"])
    assert "After you replace the starter game, update" in readme
    text = (starter.folder / "tiny.yaml").read_text()
    tiny = yaml.safe_load(text)
    per_genome = tiny["levels"]["train"] * tiny["repetitions"]  # Plan.games_per_individual
    line = next(ln for ln in text.splitlines() if ln.startswith("repetitions:"))
    assert f"= {per_genome} per genome" in line


@pytest.mark.slow
def test_new_game_installs_checks_and_evolves_in_a_fresh_environment(tmp_path):
    """The acceptance path: new-game, pip install -e, check, the package's tests, evolve."""
    pkg = tmp_path / "my_kit"
    assert main(["new-game", "my_kit", str(pkg)]) == 0
    # a virtual environment of its own that sees this one's packages (so installing the
    # starter changes nothing here), with the starter installed as a user would
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True).stdout
    here = sysconfig.get_paths()["purelib"]
    Path(site.strip(), "_outer.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": ""}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=pkg, env=env, capture_output=True, text=True,
                              timeout=600)

    # the README's install line (its `test` extra: what `pytest tests` needs, here from the
    # outer environment)
    pip = run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
              "-e", f"{pkg}[test]")
    assert pip.returncode == 0 and "does not provide the extra" not in pip.stderr, pip.stderr
    check = run(python, "-m", "playstyles", "check", "--game", "my_kit", "--games", "5")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.rstrip().endswith("my_kit: every check passed")
    assert "scripts: ok (3 scripts" in check.stdout
    assert "terms: ok (cells_ahead (2 terms)" in check.stdout
    tests = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr
    evolve = run(python, "-m", "playstyles", "evolve", "tiny.yaml", "--out", "runs/tiny",
                 "--workers", "2", "--quiet")
    assert evolve.returncode == 0, evolve.stdout + evolve.stderr
    assert "finished: 8 evaluations" in evolve.stdout
    games = pd.read_csv(pkg / "runs" / "tiny" / "games.csv")
    first = games[games["replay"] == 0]  # (the elites' re-estimation plays them again)
    assert set(first.groupby("evaluation").size()) == {8}  # as tiny.yaml says
    assert "apart on held-out levels" in evolve.stdout
    elites = (pkg / "runs" / "tiny" / "elites.csv").read_text().splitlines()
    assert len(elites) >= 2 and "raids" in elites[0] and "centre" in elites[0]
    # the persona genome mapping: the scripts' weights and the evaluator's two terms
    tiny = (pkg / "tiny.yaml").read_text()
    persona = tiny.replace("  budget: 40 ", "  genome_mapping: persona\n  budget: 40 ")
    persona = persona[:persona.index("validate:")] + "seed: 0\n"
    (pkg / "persona.yaml").write_text(persona)
    evolve = run(python, "-m", "playstyles", "evolve", "persona.yaml", "--out",
                 "runs/persona", "--workers", "2", "--quiet")
    assert evolve.returncode == 0, evolve.stdout + evolve.stderr
    header = (pkg / "runs" / "persona" / "elites.csv").read_text().splitlines()[0]
    assert "term:mine" in header and "term:theirs" in header
