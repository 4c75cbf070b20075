"""The committed distinct-styles counts follow from their committed per-game tables."""

from pathlib import Path

import pytest

from experiments.recount_styles import recount

RESULTS = Path(__file__).resolve().parents[2] / "experiments" / "results"
FOLDERS = sorted(p.parent for p in RESULTS.glob("**/validation_games.csv")
                 if (p.parent / "config.yaml").exists()
                 and (p.parent / "validation_summary.json").exists())


@pytest.mark.parametrize("folder", FOLDERS, ids=[str(f.relative_to(RESULTS)) for f in FOLDERS])
def test_committed_counts_recompute(folder):
    r = recount(folder)
    if r["summary_says"][0] is None:
        pytest.skip(f"{folder.name}: validated before styles were counted")
    assert r["summary_says"] == (r["distinct_styles"], r["distinct_styles_not_weaker"])


def test_the_quickstart_result_is_committed():
    assert RESULTS / "quickstart" in FOLDERS
