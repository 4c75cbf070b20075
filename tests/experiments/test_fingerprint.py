"""experiments/fingerprint.py: behaviour fingerprints, the results they date, and the notice
on every page that quotes a stale result."""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path

import pytest

from agents.registry import AGENTS

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "fingerprint.py"
spec = importlib.util.spec_from_file_location("fingerprint", SCRIPT)
fp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fp)


def test_a_digest_is_deterministic_and_moves_with_the_behaviour():
    pytest.importorskip("pyspiel")  # the openspiel extra
    first = fp.digest("openspiel:tic_tac_toe/mcts")
    assert first == fp.digest("openspiel:tic_tac_toe/mcts") and len(first) == fp.DIGEST_CHARS
    assert fp.digest("openspiel:tic_tac_toe/rhea") != first
    # the same agent choosing otherwise (another exploration constant by default)
    factory = AGENTS.get("mcts", "openspiel:tic_tac_toe")
    AGENTS.add("mcts", lambda **p: factory(**{"c": 5.0, **p}), game="openspiel:tic_tac_toe")
    try:
        assert fp.digest("openspiel:tic_tac_toe/mcts") != first
    finally:
        AGENTS.pop("mcts", "openspiel:tic_tac_toe")
    assert fp.digest("openspiel:tic_tac_toe/mcts") == first


def test_without_the_openspiel_extra_the_digest_test_skips(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` fails
    with pytest.raises(pytest.skip.Exception):
        test_a_digest_is_deterministic_and_moves_with_the_behaviour()


def test_an_agent_that_cannot_play_the_game_has_no_digest():
    assert fp.digest("openspiel:tic_tac_toe/pmcts_pu") is None
    assert fp.digest("openspiel:tic_tac_toe/no_such_agent") is None
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        fp.digest("chess/mcts")


def test_each_qd_key_pins_its_noise_method_and_moves_with_the_evolution(monkeypatch):
    plain, reestimated = fp.digest("qd"), fp.digest("qd/reestimate")
    assert plain == fp.digest("qd") and len(plain) == fp.DIGEST_CHARS
    assert reestimated != plain  # the closing games change the elites' estimates
    # an evolution that chooses otherwise (another run seed) moves the digest
    monkeypatch.setitem(fp.QD_RUN, "seed", fp.QD_RUN["seed"] + 1)
    assert fp.digest("qd") != plain


def test_every_results_folder_says_what_produced_it():
    folders = sorted(p for p in fp.RESULTS.iterdir() if p.is_dir())
    assert folders
    for folder in folders:
        data = fp.read_produced(folder)
        assert len(data["commit"]) == 40 and data["how"], folder
        known = set(fp.PROBES) | {"qd"}
        for key in data["fingerprint"]:
            assert key.split("/")[0] in known or key.startswith(fp.STARTER), (folder, key)


def test_a_result_no_game_changes_records_no_key(tmp_path):
    """`--record DIR --keys` with no key (a timing or tooling result): no digest, no game
    played, whichever commit is named."""
    data = fp.record(tmp_path, "HEAD~1", [], "a timing result")
    assert data["fingerprint"] == {} and len(data["commit"]) == 40
    assert fp.read_produced(tmp_path) == data


def test_the_notice_lists_the_stale_results_a_page_quotes_and_goes_away_with_them():
    page = "# Title\n\nSee `experiments/results/table1/summary.md` and experiments/results/noise.\n"
    stale = [("experiments/results/table1", ["tribes/mcts"]),
             ("experiments/results/navy", ["navy/mcts"])]
    marked = fp.marking(page, stale)
    assert marked.startswith("# Title\n\n" + fp.MARK_START)
    assert "> - `experiments/results/table1` (tribes/mcts)" in marked
    assert "results/navy" not in marked  # not quoted by the page
    assert fp.marking(marked, stale) == marked  # marking twice changes nothing
    assert fp.marking(marked, []) == page  # nothing stale: the page as it was
    assert fp.marking(page, []) == page


@pytest.mark.slow
def test_every_page_quoting_a_stale_result_is_marked():
    """The staleness check (CI prints its list as a warning): every stale result's folder
    and keys, and every page that quotes one carries the notice `--mark-docs` writes."""
    found = fp.stale()
    if found:
        warnings.warn("stale results (python experiments/fingerprint.py --stale):\n" + "\n".join(
            f"  {folder} ({', '.join(keys)})" for folder, keys in found))
    unmarked = [p.relative_to(fp.ROOT).as_posix() for p in fp.doc_pages()
                if fp.marking(p.read_text(), found) != p.read_text()]
    assert not unmarked, (f"pages whose stale-results notice is out of date: {unmarked}; run "
                          "python experiments/fingerprint.py --mark-docs")
    for folder, keys in found:
        recorded = json.loads((fp.ROOT / folder / fp.PRODUCED).read_text())["fingerprint"]
        assert keys and set(keys) <= set(recorded)
