"""The run report: heatmap data equal to the archive, progress curves equal to metrics.csv,
every file written and non-empty, the HTML self-contained, plots reading files only, and a page
that leads with what held up on held-out levels (or says nothing was checked), marks the elites
that did not hold up, and names the games behind every number."""

from __future__ import annotations

import base64
import copy
import html
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from playstyles.cli import main
from plots.curves import progress_data
from plots.explorer import page_data
from plots.heatmap import format_value, heatmap_data
from plots.matrix import draw_ladder, matrix_data
from plots.report import elites_table, write_report
from plots.validation import arrow_data
from qd.rundir import RunFiles, style_verdict
from tests.plots.tiny_run import copy_run, tiny_run

REPO = Path(__file__).resolve().parents[2]


def fake_run(d: Path, features=(("attacks", 0, 20, 2), ("ranged_minus_melee", -5, 5, 1)),
             cells=((7, 9, 0.6), (3, 4, 0.75), (4, 4, 0.25), (7, 4, 1.0))) -> Path:
    """A hand-made run directory: `cells` = (grid index..., win rate)."""
    d.mkdir(parents=True, exist_ok=True)
    cfg = {"name": "fake", "game": "tribes", "options": {"max_rounds": 5},
           "levels": {"train": [1, 2], "held_out": [3, 4]},
           "agent": {"name": "pmcts_pu", "budget": 10}, "opponent": {"name": "mcts"},
           "repetitions": 2, "seed": 1, "evaluations": 40, "emitter": {"kind": "paper"},
           "features": [{"name": n, "range": [lo, hi], "width": w} for n, lo, hi, w in features]}
    (d / "config.yaml").write_text(yaml.safe_dump(cfg))
    rows = []
    dims = [int(np.ceil((hi - lo) / w)) for _, lo, hi, w in features]
    for k, c in enumerate(cells):
        idx, wr = c[:-1], c[-1]
        row = {"cell": ":".join(f"{lo + i * w:g}" for (_, lo, _, w), i in zip(features, idx)),
               "grid_index": ",".join(str(i) for i in idx),
               "index": int(np.ravel_multi_index(idx, dims)),
               "SpawnRange": 0.25 * (k % 5), "ResearchRoads": 1.0 - 0.25 * (k % 5),
               "win_rate": wr, "wins": int(wr * 4), "games": 4, "mean_score": 500.0 + k,
               "objective": wr + 0.01 * k}
        for (n, lo, _, w), i in zip(features, idx):
            row[f"measure_{n}"] = lo + (i + 0.5) * w
        for (n, lo, _, w), i in zip(features, idx):
            row[f"{n}_mean"] = lo + (i + 0.5) * w
            row[f"{n}_std"] = 0.1
        row["batch"], row["evaluation"] = 0, k
        rows.append(row)
    pd.DataFrame(rows).to_csv(d / "elites.csv", index=False)
    pd.DataFrame({"batch": [0, 1], "evaluations": [8, 16], "games": [32, 64],
                  "cells": [2, len(cells)], "coverage": [0.02, 0.04], "qd_score": [1.2, 2.6],
                  "best_win_rate": [0.75, 1.0], "mean_win_rate": [0.6, 0.65],
                  "elapsed_seconds": [10.0, 20.0]}).to_csv(d / "metrics.csv", index=False)
    return d


def test_heatmap_shows_the_inhabited_part_with_the_archive_win_rates(tmp_path):
    run = RunFiles(fake_run(tmp_path / "r"))
    hm = heatmap_data(run)
    assert hm.x_bins == [3, 4, 5, 6, 7] and hm.y_bins == [4, 5, 6, 7, 8, 9]
    assert hm.values.shape == (6, 5)
    elites = pd.read_csv(tmp_path / "r" / "elites.csv")
    for r in elites.itertuples():
        assert hm.value_at(r.cell) == r.win_rate
    assert np.isnan(hm.values).sum() == 30 - len(elites)
    # annotation of cell (3, 4) and the axes' bin edges
    assert hm.text[0][0] == "75%" and hm.cells[0][0] == "6:-1"
    assert list(hm.x_edges) == [6, 8, 10, 12, 14, 16] and list(hm.y_edges) == [-1, 0, 1, 2, 3, 4, 5]
    assert hm.x.name == "attacks" and hm.y.name == "ranged_minus_melee"


def test_heatmap_of_another_field_and_an_unknown_one(tmp_path):
    run = RunFiles(fake_run(tmp_path / "r"))
    hm = heatmap_data(run, "mean_score")
    assert hm.value_at("14:4") == 500.0 and hm.text[-1][-1] == "500"
    with pytest.raises(ValueError, match="field 'nope'.*known: .*mean_score"):
        heatmap_data(run, "nope")


def test_one_and_three_feature_archives(tmp_path):
    one = RunFiles(fake_run(tmp_path / "one", features=(("attacks", 0, 20, 2),),
                            cells=((1, 0.5), (4, 0.25))))
    hm = heatmap_data(one)
    assert hm.y is None and hm.values.shape == (1, 4)
    assert hm.value_at("2") == 0.5 and hm.value_at("8") == 0.25
    three = RunFiles(fake_run(tmp_path / "three",
                              features=(("attacks", 0, 20, 2), ("cities", 0, 10, 1),
                                        ("kills", 0, 20, 2)),
                              cells=((1, 1, 0, 0.25), (1, 1, 5, 0.5), (2, 1, 0, 1.0))))
    hm = heatmap_data(three)
    assert hm.projected == ["kills"] and "best elite over kills" in hm.note
    assert hm.values.tolist() == [[0.5, 1.0]]  # the higher objective wins the (1, 1) cell


def test_progress_curves_are_metrics_csv(tmp_path):
    p = progress_data(RunFiles(fake_run(tmp_path / "r")))
    assert p.evaluations.tolist() == [0, 8, 16]
    assert p.cells.tolist() == [0, 2, 4] and p.qd_score.tolist() == [0, 1.2, 2.6]
    assert p.best_win_rate.tolist() == [0, 0.75, 1.0] and p.grid_cells == 100


def fake_validation(d: Path) -> None:
    e = pd.read_csv(d / "elites.csv")
    v = pd.DataFrame({
        "cell": e["cell"], "grid_index": e["grid_index"], "index": e["index"],
        "games_evolved": e["games"], "win_rate_evolved": e["win_rate"],
        "games_validated": 10, "wins_validated": [5, 6, 2, 7],
        "win_rate_validated": [0.5, 0.6, 0.2, 0.7], "win_rate_ci_low": 0.1,
        "win_rate_ci_high": 0.9, "mean_score_evolved": e["mean_score"],
        "mean_score_validated": 400.0})
    for f in ("attacks", "ranged_minus_melee"):
        v[f"{f}_evolved"] = e[f"{f}_mean"]
        v[f"{f}_validated"] = e[f"{f}_mean"] + 1.0
        v[f"measure_{f}_evolved"] = e[f"measure_{f}"]
        v[f"measure_{f}_validated"] = e[f"measure_{f}"] + 1.0
    v["validated_cell"] = e["cell"]
    v["validated_grid_index"] = e["grid_index"]
    v["cell_distance"] = [0, 1, 1, 3]
    v["same_cell"] = v["cell_distance"] == 0
    v["neighbour"] = v["cell_distance"] <= 1
    v.to_csv(d / "validation.csv", index=False)
    (d / "validation_summary.json").write_text(
        '{"elites": 4, "games_per_elite": 10, "levels": [3, 4], "opponent": "mcts", '
        '"spearman": {"win_rate": 0.4, "attacks": 1.0}, "same_cell_share": 0.25, '
        '"neighbour_share": 0.75}')


def test_report_writes_every_file_with_the_archive_numbers(tmp_path):
    d = fake_run(tmp_path / "r")
    fake_validation(d)
    rep = write_report(d, fields=["mean_score"])
    names = {p.name for p in rep.files}
    assert names == {"heatmap_win_rate.png", "heatmap_win_rate_validated.png",
                     "heatmap_mean_score.png", "progress.png", "validation.png",
                     "elites_table.csv", "report.html", "explorer.html"}
    assert rep.explorer == d / "explorer.html"
    for p in rep.files:
        assert p.exists() and p.stat().st_size > 0, p
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    elites = pd.read_csv(d / "elites.csv")
    table = pd.read_csv(d / "elites_table.csv")
    assert table["win_rate"].tolist() == sorted(elites["win_rate"], reverse=True)
    merged = table.set_index("cell").loc[elites["cell"]]
    assert merged["SpawnRange"].tolist() == elites["SpawnRange"].tolist()
    assert merged["win_rate_validated"].tolist() == [0.5, 0.6, 0.2, 0.7]
    assert rep.heatmaps["win_rate_validated"].value_at("6:-1") == 0.6
    page = (d / "report.html").read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 5  # 3 heatmaps, progress, validation
    assert all(base64.b64decode(i)[:4] == b"\x89PNG" for i in images)
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert "http" not in text and "src=\"/" not in text  # nothing fetched from elsewhere
    for cell in elites["cell"]:
        assert f">{cell}<" in page
    assert "SpawnRange" in page and "ResearchRoads" in page and "Spearman" in page
    arrows = arrow_data(RunFiles(d))
    assert arrows.moves == ["same cell", "neighbour", "neighbour", "farther"]
    assert np.allclose(arrows.end - arrows.start, 1.0)


def test_report_of_a_real_run(tmp_path_factory, tmp_path, capsys, monkeypatch):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "runs" / "my run")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "runs/my run", "--field", "score_mean"]) == 0
    out = capsys.readouterr().out
    # the command names the run directory as given, quoted for a shell (not its last part)
    assert out.startswith("No style has been checked on held-out levels: validate the run "
                          "(playstyles validate 'runs/my run').")
    assert html.escape("playstyles validate 'runs/my run'") in (d / "report.html").read_text()
    # the explorer names the folder it lies in, absolute (explorer.js runDir), else this path
    assert '"where":"runs/my run"' in (d / "explorer.html").read_text()
    assert main(["report", str(d)]) == 0  # an absolute path: the whole of it on the terminal
    assert f"(playstyles validate '{d}')." in capsys.readouterr().out
    assert html.escape("playstyles validate 'my run'") in (d / "report.html").read_text()
    for name in ("heatmap_win_rate.png", "heatmap_score_mean.png", "progress.png",
                 "elites_table.csv", "report.html"):
        assert (d / name).stat().st_size > 0, name
    elites = pd.read_csv(d / "elites.csv")
    run = RunFiles(d)
    hm = heatmap_data(run)
    for r in elites.itertuples():
        assert hm.value_at(r.cell) == r.win_rate
        assert format_value("win_rate", r.win_rate) in sum(hm.text, [])
    assert run.weight_columns() == ["ResearchFarms", "ResearchNaval", "ResearchMountains",
                                    "ResearchRange", "ResearchRoads", "SpawnStrongest",
                                    "SpawnDefensive", "SpawnCheapest", "SpawnFastest",
                                    "SpawnMaxHP", "SpawnRange"]
    assert len(elites_table(run)) == len(elites)
    p = progress_data(run)
    assert p.cells[-1] == len(elites)


CODE_ONLY = "('qd', 'agents', 'games', 'ray', 'ribs')"


def test_plots_read_files_only(tmp_path):
    """plots imports of qd only the run directory's schema (qd.rundir), and no agent, game,
    Ray or pyribs: a report needs only the run directory's files. Without the game's code
    (blocked here) the axes carry the bare feature names; given the features as data, the
    report loads no code either."""
    d = fake_run(tmp_path / "r")
    fake_validation(d)
    bad = (f"bad = sorted(m for m, mod in sys.modules.items() if mod is not None and "
           f"m.split('.')[0] in {CODE_ONLY} and m != 'qd' and m.split('.')[:2] != ['qd', 'rundir']);"
           "print(bad); sys.exit(1 if bad else 0)")
    blocked = ("import sys\n"
               "for m in ('games', 'agents', 'ray', 'ribs', 'qd.features'): sys.modules[m] = None\n"
               "from plots.report import write_report\n"
               f"rep = write_report({str(d)!r})\n"
               "assert rep.heatmaps['win_rate'].x_label == 'attacks', rep.heatmaps['win_rate']\n"
               + bad)
    given = ("import sys; from plots.report import write_report; "
             f"write_report({str(d)!r}, features={{}}); " + bad)
    for code in (blocked, given):
        r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_ladder_matrix_image_from_its_tables(tmp_path):
    labels = ["easy", "hard", "mcts"]
    rates = {("easy", "hard"): 0.25, ("easy", "mcts"): 0.5, ("hard", "mcts"): 0.75}
    rows = []
    for (a, b), p in rates.items():
        rows += [{"agent": a, "opponent": b, "games": 8, "win_rate": p, "ci_low": p - 0.2,
                  "ci_high": p + 0.2},
                 {"agent": b, "opponent": a, "games": 8, "win_rate": 1 - p,
                  "ci_low": 0.8 - p, "ci_high": 1.2 - p}]
    pd.DataFrame(rows).to_csv(tmp_path / "ladder_pairs.csv", index=False)
    m = pd.DataFrame({"agent": labels})
    m.to_csv(tmp_path / "ladder_matrix.csv", index=False)
    w = matrix_data(tmp_path)
    assert w.rate[0, 1] == 0.25 and w.rate[1, 0] == 0.75 and np.isnan(w.rate[2, 2])
    assert np.allclose(w.mean_rate(), [0.375, 0.75, 0.375])
    assert draw_ladder(tmp_path).stat().st_size > 0


def test_report_of_a_directory_that_is_not_a_run(tmp_path):
    assert main(["report", str(tmp_path)]) == 2


def test_heatmap_and_report_show_games_and_uncertainty(tmp_path, tmp_path_factory):
    """n under every value; cells hatched whose win-rate interval is wider than
    WIDE_INTERVAL; the report counts the robust elites from elites.csv's intervals."""
    from plots.report import trust
    from qd.rundir import WIDE_INTERVAL, WIN_RATE_CI
    d = fake_run(tmp_path / "r")
    elites = pd.read_csv(d / "elites.csv")
    elites["games"] = [4, 200, 4, 200]
    low, high = WIN_RATE_CI
    elites[low] = [0.2, 0.45, 0.1, 0.55]
    elites[high] = [0.9, 0.60, 0.7, 0.70]  # widths 0.7, 0.15, 0.6, 0.15
    elites.to_csv(d / "elites.csv", index=False)
    hm = heatmap_data(RunFiles(d))
    for r in elites.itertuples():
        row, col = next((i, j) for i, cells in enumerate(hm.cells)
                        for j, c in enumerate(cells) if c == r.cell)
        assert hm.games[row, col] == r.games
        assert hm.wide[row, col] == (r.games == 4)
    t = trust(elites)
    assert (t["robust"], t["games_min"], t["games_max"]) == (2, 4, 200)
    assert t["median_width"] == pytest.approx(np.median([0.7, 0.15, 0.6, 0.15]))
    assert WIDE_INTERVAL < 0.6
    write_report(d)
    page = (d / "report.html").read_text()
    assert "2 of 4 elites are robust" in page and "playstyles validate r" in page
    # a real run's elites.csv carries the intervals, consistent with wins and games
    from base.stats import wilson_interval
    real = pd.read_csv(tiny_run(tmp_path_factory) / "elites.csv")
    for r in real.to_dict("records"):
        assert (r[low], r[high]) == pytest.approx(wilson_interval(r["wins"], r["games"]))
        for f in ("research_slope", "tile_slope"):
            se = r[f"{f}_std"] / np.sqrt(r["games"] - 1) if r["games"] > 1 else np.nan
            assert r[f"{f}_se"] == pytest.approx(se, nan_ok=True)


def test_report_of_a_reestimated_run_says_its_win_rates_are_fresh(tmp_path):
    d = fake_run(tmp_path / "r")
    write_report(d)
    assert "evolved win rates are optimistic" in (d / "report.html").read_text()
    cfg = yaml.safe_load((d / "config.yaml").read_text())
    cfg["noise"] = {"method": "reestimate", "replays": 2}
    (d / "config.yaml").write_text(yaml.safe_dump(cfg))
    metrics = pd.read_csv(d / "metrics.csv").assign(batch_size=[8, 8])
    metrics.to_csv(d / "metrics.csv", index=False)
    assert not RunFiles(d).reestimated  # the closing batch is not written yet
    closing = metrics.iloc[[-1]].assign(batch=2, batch_size=0, games=96)
    pd.concat([metrics, closing]).to_csv(d / "metrics.csv", index=False)
    assert RunFiles(d).reestimated
    write_report(d)
    page = (d / "report.html").read_text()
    assert "not optimistic" in page and "evolved win rates are optimistic" not in page
    # every number of the elites names the re-estimation, none says it is from evolution
    fresh = "re-estimation (4 fresh games on training levels)"
    assert RunFiles(d).elites_source == fresh
    assert f"from {fresh}" in page and "from evolution" not in page
    assert "win rate, re-estimation" in page and "QD score (re-estimation)" in page
    fake_validation(d)
    write_report(d)
    page = (d / "report.html").read_text()
    assert "mean win rate, re-estimation" in page and "mean win rate, evolved" not in page
    assert "re-estimation / held out" in page


# ------------------------------------------------------------------------------ the top of the page

def test_dominant_scripts():
    from qd.rundir import dominant_scripts
    w = {"ResearchFarms": 0.25, "ResearchMountains": 1.0, "SpawnDefensive": 0.75,
         "SpawnRange": 0.5}
    assert dominant_scripts(w) == "ResearchMountains 1, SpawnDefensive 0.75"
    assert dominant_scripts(w, top=1) == "ResearchMountains 1"
    # ties: genome order, and how many more share the last weight shown
    assert dominant_scripts({"A": 1.0, "B": 0.5, "C": 1.0, "D": 1.0}) == "A 1, C 1 (+1 more at 1)"
    assert dominant_scripts({"A": float("nan"), "B": 0.3}) == "B 0.3"
    assert dominant_scripts({}) == ""
    one_hot = {"A": 0.0, "B": 1.0, "C": 0.0, "D": 0.0}
    assert dominant_scripts(one_hot) == "B 1 (the other 3 at 0)"
    assert dominant_scripts({"A": 0.0, "B": 0.0}) == "A 0, B 0"


def test_axes_carry_the_features_doc_and_words(tmp_path):
    from plots.heatmap import axis_label
    from qd.features import feature_texts, features_of
    d = fake_run(tmp_path / "r")
    rep = write_report(d, features=features_of("tribes"))  # (the CLI loads the game's words)
    hm = rep.heatmaps["win_rate"]
    assert hm.x_label == "attacks: attack actions per game (few attacks \u2026 many attacks)"
    assert hm.y_label.startswith("ranged_minus_melee: archers + catapults") and \
        hm.y_label.endswith("(melee army \u2026 ranged support)")
    f = features_of("tribes")["buildings"]
    assert axis_label("buildings", f) == \
        "buildings: buildings built per game (few buildings \u2026 many buildings)"
    assert axis_label("buildings", None) == "buildings"
    # without the game's features: the bare names
    assert write_report(d).heatmaps["win_rate"].x_label == "attacks"
    assert "attacks" not in feature_texts("no_such_game")  # (only the features of every game)


def test_report_of_an_unvalidated_run_says_no_style_was_checked(tmp_path):
    d = fake_run(tmp_path / "r")
    rep = write_report(d)
    page = (d / "report.html").read_text()
    top = page.index("No style in this report has been checked on held-out levels")
    assert top < page.index("<h2>") and "playstyles validate r" in page[top:page.index("<h2>")]
    assert rep.headline.startswith("No style has been checked on held-out levels")
    assert "heatmap_win_rate_validated.png" not in {p.name for p in rep.files}
    assert rep.heatmaps["win_rate"].marked is None
    # every elite shows its dominant scripts (fake_run: elite k has SpawnRange 0.25 k,
    # ResearchRoads 1 - 0.25 k)
    table = pd.read_csv(d / "elites_table.csv").set_index("cell")
    assert table.loc["14:4", "dominant_scripts"].startswith("ResearchRoads 1")
    assert table.loc["14:-1", "dominant_scripts"] == "SpawnRange 0.75, ResearchRoads 0.25"
    assert "SpawnRange 0.75, ResearchRoads 0.25" in page
    assert "from evolution" in page


def test_old_validation_without_styles_still_reports(tmp_path):
    d = fake_run(tmp_path / "r")
    fake_validation(d)  # a validation_summary.json from before styles were counted
    rep = write_report(d)
    page = (d / "report.html").read_text()
    assert rep.headline == "4 elites validated (distinct styles not counted: validate again)"
    head = page[:page.index("<h2>")]
    assert rep.headline in head and "before distinct styles were counted" in head
    assert "playstyles validate r" in head
    assert rep.heatmaps["win_rate"].marked is None
    assert rep.heatmaps["win_rate_validated"].marked is None
    assert "no cell is marked" in page and "Distinct styles</h2>" not in page


def test_a_large_archive_shows_its_first_rows_and_where_the_rest_are(tmp_path):
    """A 30 x 30 validated archive (900 elites, 675 distinct styles): each per-elite table of
    report.html lists its first TABLE_ROWS rows, best first, and says where all of them are
    (explorer.html, the CSV files); elites_table.csv and the explorer keep every elite."""
    from experiments.bench_explorer import synthetic_run
    from plots.report import TABLE_ROWS
    d = synthetic_run(tmp_path / "big", side=30)
    write_report(d)
    page = (d / "report.html").read_text()
    for what in ("675 distinct styles, strongest first", "900 validated elites, best held-out "
                 "win rate first", "900 elites, best first"):
        assert f"The first {TABLE_ROWS} of {what}. All " in page, what
    assert page.count('<a href="explorer.html">explorer.html</a>') == 4  # and the features
    table = pd.read_csv(d / "elites_table.csv")
    assert len(table) == 900
    elites = page[page.index("<h2>Elites</h2>"):page.index("<details>")]
    shown = re.findall(r'<tr><td class="l">([^<]*)</td>', elites)
    assert shown == table["cell"].head(TABLE_ROWS).tolist()
    styles = page[page.index("Distinct styles</h2>"):page.index("<h2>Run</h2>")]
    assert styles.count("<tr>") == TABLE_ROWS + 1  # the head and the strongest styles
    data = page_data((d / "explorer.html").read_text())
    assert data["n"] == 900


@pytest.fixture(scope="module")
def validated_run(tmp_path_factory):
    """The tiny run validated (4 games per elite, with the control), then given known styles:
    the first elite of validation.csv distinct (#1), the others not."""
    from qd.validation import validate
    d = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("rep") / "run")
    validate(d, games=4, workers=0)
    v = pd.read_csv(d / "validation.csv")
    v["distinct"] = [True] + [False] * (len(v) - 1)
    v["style"] = [1] + [0] * (len(v) - 1)
    v.to_csv(d / "validation.csv", index=False)
    return d


def test_report_of_a_validated_run_leads_with_the_verdict(validated_run):
    from qd.features import features_of
    from qd.rundir import dominant_scripts, headline, styles_text
    d = validated_run
    with warnings.catch_warnings():  # no column is inserted one by one into a wide table
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        rep = write_report(d, features=features_of("tribes"))
    summary = RunFiles(d).validation_summary
    page = (d / "report.html").read_text()
    assert rep.headline == headline(summary)
    first = page.index("<h2>")
    assert f"<b>{html.escape(rep.headline)}</b>" in page[:first]  # the verdict first
    assert html.escape(styles_text(summary)[0].split(" (")[0]) in page[:first]
    assert "held out (4 games on 3 held-out levels)" in page[:first]
    # the held-out heatmap beside the evolved one, before the run's summary
    names = [p.name for p in rep.files]
    assert names[:2] == ["heatmap_win_rate.png", "heatmap_win_rate_validated.png"]
    pair = page.index('<div class="pair">')
    assert pair < page.index("<h2>Run</h2>")
    assert page[pair:].index("<img") < page[pair:].index("</div>")
    # the held-out map places each validated elite at its validated cell, by held-out rate
    # (where two land in one cell: a distinct style first, then the higher win rate)
    v = pd.read_csv(d / "validation.csv")
    hv = rep.heatmaps["win_rate_validated"]
    shown = v.sort_values(["distinct", "win_rate_validated"], ascending=False, kind="stable") \
        .groupby("validated_cell").head(1)
    assert len(shown) == len(set(v["validated_cell"])) == hv.elites
    for r in shown.to_dict("records"):
        assert hv.value_at(str(r["validated_cell"])) == r["win_rate_validated"]
    # the elites that did not hold up are marked on both maps, and the caption says so
    not_held = set(v.loc[~v["distinct"], "cell"].astype(str))
    assert len(not_held) == len(v) - 1 >= 1
    assert set(rep.heatmaps["win_rate"].marked_cells) == not_held
    assert set(hv.marked_cells) == set(shown.loc[~shown["distinct"], "validated_cell"].astype(str))
    assert str(v.loc[v["distinct"], "validated_cell"].iloc[0]) not in hv.marked_cells
    assert "grey cross marks an elite that was not told apart from the styles that held up" in page
    # axes in words, dominant scripts, sources
    assert rep.heatmaps["win_rate"].x_label.startswith("research_slope: least-squares slope")
    assert "slow research \u2026 fast research" in hv.x_label
    elites = pd.read_csv(d / "elites.csv")
    weights = RunFiles(d).weight_columns()
    styles = page[page.index("Distinct styles</h2>"):page.index("<h2>Run</h2>")]
    top = elites.set_index("index").loc[int(v["index"].iloc[0])]
    assert dominant_scripts({w: top[w] for w in weights}) in styles
    for r in elites.to_dict("records"):
        assert dominant_scripts({w: r[w] for w in weights}) in page
    assert "held-out<br>win rate" in page and "did not hold up" not in page
    # each validated elite in the elites table with the words the explorer uses
    vv = pd.read_csv(d / "validation.csv", dtype={"not_told_apart_from": str})
    for r in vv.to_dict("records"):
        assert style_verdict(r["style"], r.get("not_told_apart_from")) in page


# ------------------------------------------------------------------------------ planted text

HOSTILE = "<img src=x onerror=alert({})>"
"""Markup that runs a script once a page carries it unescaped (numbered by where it was put)."""


def _leaves(node, keys=()):
    """The keys of every value of a JSON document that is not an object or an array."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*keys, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, (*keys, i))
    else:
        yield keys


def _objects(node, keys=()):
    """The keys of every object of a JSON document."""
    if isinstance(node, dict):
        yield keys
        for k, v in node.items():
            yield from _objects(v, (*keys, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _objects(v, (*keys, i))


def _get(doc, keys):
    for k in keys:
        doc = doc[k]
    return doc


def _planted(doc, keys, value):
    """A copy of a JSON document with the value at `keys` replaced (or added)."""
    out = copy.deepcopy(doc)
    _get(out, keys[:-1])[keys[-1]] = value
    return out


def _renamed(d: Path, old: str, new: str) -> None:
    """A feature or script renamed in every file of the run directory that names it."""
    for p in d.iterdir():
        if p.suffix in (".csv", ".yaml", ".json") and old in p.read_text():
            p.write_text(p.read_text().replace(old, new))


def test_no_text_of_a_run_file_reaches_the_pages_unescaped(validated_run, tmp_path):
    """Markup planted in every key of validation_summary.json (every value, numbers too, and
    every key name), in every text column of elites.csv and validation.csv, in every text of
    config.yaml, in a feature's and a script's name and in a versus folder's name: the
    summary check refuses a value of the wrong type with one line naming the file and the key,
    and every page shows the rest as text."""
    from qd.rundir import check_summary
    d = copy_run(validated_run, tmp_path / "run")
    (d / "checkpoint.jsonl").unlink()  # its digests would refuse the edited tables
    planted = iter(range(10 ** 6))
    _renamed(d, "tile_slope", HOSTILE.format(next(planted)))  # a feature
    _renamed(d, "SpawnRange", HOSTILE.format(next(planted)))  # a script
    path = d / "validation_summary.json"
    summary = json.loads(path.read_text())
    run = RunFiles(d)
    keep = []
    for keys in _leaves(summary):
        try:
            check_summary(run, _planted(summary, keys, HOSTILE.format(0)))
        except ValueError as e:
            said = str(e)
            assert said.startswith(f"{path}: ") and "\n" not in said, said
            dotted = ".".join(map(str, keys))
            assert f": {dotted}: " in said or "is not an elite's cell" in said, said
            continue
        keep.append(keys)
    assert ("run",) in keep and ("opponent",) in keep  # text is shown, as text
    for refused in (("corrected", "cells"), ("corrected", "cells_evolved"), ("version",)):
        assert refused not in keep
    for keys in keep:
        summary = _planted(summary, keys, HOSTILE.format(next(planted)))
    for keys in list(_objects(summary)):  # a key name of every object
        node = _get(summary, keys)
        if node:
            name = next(iter(node))
            trial = _planted(summary, (*keys, HOSTILE.format(next(planted))), node[name])
            try:
                check_summary(run, trial)
            except ValueError:
                continue
            summary = trial
    path.write_text(json.dumps(summary))
    for table in ("elites.csv", "validation.csv"):
        frame = pd.read_csv(d / table)
        for column in frame.columns:
            if pd.api.types.is_numeric_dtype(frame[column]):
                continue
            trial = frame.assign(**{column: HOSTILE.format(next(planted))})
            trial.to_csv(d / table, index=False)
            try:
                RunFiles(d).check()
            except ValueError as e:
                assert str(e).startswith(f"{d / table}: ") and column in str(e), e
                continue
            frame = trial
        frame.to_csv(d / table, index=False)
    config = yaml.safe_load((d / "config.yaml").read_text())
    for keys in _leaves(config):
        if not isinstance(_get(config, keys), str):
            continue
        trial = _planted(config, keys, HOSTILE.format(next(planted)))
        (d / "config.yaml").write_text(yaml.safe_dump(trial))
        try:
            RunFiles(d).check()
        except ValueError as e:
            assert str(e).startswith(f"{d}/") and "\n" not in str(e), e  # a name the
            continue  # grid or the tables need (a feature's, a script's): a file disagrees
        config = trial
    (d / "config.yaml").write_text(yaml.safe_dump(config))
    versus = d / "versus" / HOSTILE.format(next(planted))
    versus.mkdir(parents=True)
    (versus / "game0_end.png").write_bytes(base64.b64decode(  # a 1 x 1 PNG
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="))
    write_report(d)
    for name in ("report.html", "explorer.html"):
        page = (d / name).read_text()
        assert "<img src=x" not in page, (name, page[page.index("<img src=x") - 200:][:400])
    page = (d / "report.html").read_text()
    shown = {int(n) for n in re.findall(r"&lt;img src=x onerror=alert\((\d+)\)&gt;", page)}
    assert len(shown) > 10  # the planted text is on the page, escaped


def test_a_validation_table_without_its_positions_is_one_error_naming_it(validated_run,
                                                                         tmp_path):
    """The validation chart reads each elite's evolved and held-out grid positions; a
    validation.csv without them is one error naming the file and the column, not a KeyError."""
    d = copy_run(validated_run, tmp_path / "run")
    v = pd.read_csv(d / "validation.csv")
    gone = [c for c in v.columns if c.startswith("measure_") and c.endswith("_evolved")][0]
    frame = v.drop(columns=[gone])
    with pytest.raises(ValueError, match="validation.csv: no column measure_") as e:
        arrow_data(RunFiles(d), frame)
    assert gone in str(e.value) and "validate again" in str(e.value)
