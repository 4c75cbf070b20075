"""experiments/pairs_features.py: the counts it gives for the probe's own feature sets are the
probe's, recomputed from probe_games.csv alone, and --rewrite changes nothing a probe already
reported."""

from __future__ import annotations

import json
import sys

import pandas as pd

from experiments import pairs_features
from qd.config import config_from_dict
from qd.probe import run_probe

NIM = {"name": "nimpairs", "game": "nim", "levels": {"set": "range:0-3", "train": 2},
       "agent": {"name": "pmcts_pu", "budget": 5, "params": {"expansion": "prior"}},
       "opponent": "random", "features": ["stones_per_move", "moves"], "repetitions": 2,
       "seed": 3}


def test_the_counts_from_the_games_are_the_probes(tmp_path, monkeypatch):
    r = run_probe(config_from_dict(NIM), games=8, out=tmp_path / "p", workers=0, pairs=True)
    before = json.loads((r.out / "probe.json").read_text())
    monkeypatch.setattr(sys, "argv", ["pairs_features.py", str(r.out), "--write", "--rewrite",
                                      "--sets", "moves"])
    assert pairs_features.main() == 0
    table = pd.read_csv(r.out / "feature_sets.csv")
    assert table["features"].tolist() == ["mapped", "every", "moves"]
    fixed = before["results"]["fixed_styles"]
    for name in ("mapped", "every"):
        row = table[table["features"] == name].iloc[0]
        assert [row[f"with_pairs_{d}"] for d in ("0", "0.5", "1")] == \
            [fixed[name]["counts"][d] for d in ("0", "0.5", "1")]
        assert [row[f"genes_alone_{d}"] for d in ("0", "0.5", "1")] == \
            [fixed[name]["single"]["counts"][d] for d in ("0", "0.5", "1")]
    after = json.loads((r.out / "probe.json").read_text())
    assert after == before
    assert "| moves |" in (r.out / "feature_sets.md").read_text()
