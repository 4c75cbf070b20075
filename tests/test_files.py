"""Result files are written whole, into folders made on the way."""

from playstyles.files import atomic_write


def test_atomic_write_makes_missing_folders_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "new" / "deeper" / "presets.json"
    atomic_write(path, "{}\n")
    assert path.read_text() == "{}\n"
    assert [p.name for p in path.parent.iterdir()] == ["presets.json"]
