"""Result files are written whole, into folders made on the way."""

from base.files import atomic_write


def test_atomic_write_makes_missing_folders_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "new" / "deeper" / "presets.json"
    atomic_write(path, "{}\n")
    assert path.read_text() == "{}\n"
    assert [p.name for p in path.parent.iterdir()] == ["presets.json"]


def test_a_failed_write_names_the_file_and_leaves_the_old_one(tmp_path, monkeypatch):
    """A full disk: os.write's error names no file; atomic_write's names the target."""
    import errno
    import os

    import pytest

    path = tmp_path / "summary.json"
    atomic_write(path, "old\n")

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError) as e:
        atomic_write(path, "new\n")
    monkeypatch.undo()
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(path)
    assert str(path) in str(e.value)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
