"""The archive explorer (explorer.html): the page's data equal to the run's files, a page that
needs nothing from elsewhere, and, in a real browser (headless Chromium), a click on a cell
that opens the elite's card with the numbers of elites.csv and validation.csv, the held-out
view, a comparison of two elites, a screenshot that is not blank, the Tribolo and Navy runs,
an old run without its optional columns, a 10,000-cell archive's load and click times, and
axe-core's accessibility rules on explorer.html and report.html.

The browser tests need the `playwright` Python package (the test extra) and Debian's
Chromium (`/usr/bin/chromium`, installed by `.ci/run`); without either they skip, saying
which is missing. The accessibility test also needs `axe-playwright-python` (the test
extra, which ships axe-core)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.bench_explorer import (
    CHROMIUM_ARGS,
    COMMITTED_RUNS,
    browser_path,
    committed_page,
    synthetic_run,
)
from playstyles.cli import main
from plots.explorer import (
    data_script,
    explorer_data,
    explorer_html,
    page_data,
    unpack_columns,
    write_explorer,
)
from plots.numbers import num_text, pct_text
from qd.features import feature_texts
from qd.rundir import RunFiles
from tests.plots.test_report import fake_run

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results"
QUICKSTART = RESULTS / "quickstart_counts"  # a run with many elites, validated earlier
TRIBOLO = RESULTS / "tribolo" / "quickstart"
NAVY = RESULTS / "navy" / "quickstart"


def pct(v: float) -> str:
    """A rate as the page prints it (as report.html does)."""
    return pct_text(v)


def num(v: float) -> str:
    """A number as the page prints it (3 significant digits, as report.html does)."""
    return num_text(v)


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# ------------------------------------------------------------------ the page without a browser

def test_the_data_is_the_run_directorys_files(tmp_path):
    d = copy(QUICKSTART, tmp_path / "quickstart")
    data = explorer_data(RunFiles(d).check(), feature_texts("tribes"))
    elites = pd.read_csv(d / "elites.csv")
    v = pd.read_csv(d / "validation.csv").set_index("index")
    cols = data["cols"]
    assert data["n"] == len(elites) and cols["cell"] == elites["cell"].tolist()
    assert cols["win_rate"] == elites["win_rate"].tolist()
    assert cols["ci_low"] == elites["win_rate_ci_low"].tolist()
    assert cols["w:SpawnFastest"] == elites["SpawnFastest"].tolist()
    assert cols["mean:buildings"] == elites["buildings_mean"].tolist()
    assert cols["v:win_rate"] == v.loc[elites["index"], "win_rate_validated"].tolist()
    assert cols["v:ci_high"] == v.loc[elites["index"], "win_rate_ci_high"].tolist()
    assert cols["distinct"] == [bool(x) for x in v.loc[elites["index"], "distinct"]]
    assert data["grid"][:3] == [0, 0, 0] and data["validated"] and data["counted"]
    assert data["sources"]["held"] == "held out (84 games on 21 held-out levels)"
    assert data["control"]["games"] == 84
    assert data["axes"][0]["label"].startswith("buildings: ")
    # a style named by the thirds of the grid range, with the game's words
    k = cols["cell"].index("1.7:0:0.62")
    assert cols["style_name"][k] == "some buildings, few defenders, steady research"


def test_the_page_is_one_file_that_fetches_nothing_and_escapes_its_data(tmp_path):
    d = fake_run(tmp_path / "r")
    run = RunFiles(d).check()
    data = explorer_data(run, title="a </script><script>alert(1)</script> & more")
    page = explorer_html(data)
    assert page.count("</script>") == 3  # the two data blocks' and the script's own ends only
    assert "http://" not in page and "https://" not in page and " src=" not in page
    blob = re.search(r'id="explorer-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(blob)["title"] == data["title"]
    assert "\\u003c/script\\u003e" in data_script(data)
    assert "playstyles archive explorer" not in page  # the title given is used
    assert not data["validated"] and data["control"] is None
    # an old run: no win-rate interval nor standard errors stored; the errors derived
    assert data["cols"]["ci_low"] == [None] * len(data["cols"]["cell"])
    assert data["cols"]["se:attacks"][0] == pytest.approx(0.1 / np.sqrt(3))


def test_repeated_text_columns_are_written_once_and_read_back_whole():
    rows = 40
    data = {"n": rows, "cols": {"status": ["held up", None, "same"] * (rows // 4) + ["x"] * 10,
                                "cell": [f"{k}:0" for k in range(rows)],
                                "win_rate": [k / rows for k in range(rows)]}}
    page = explorer_html(data)
    blob = json.loads(re.search(r'id="explorer-data">(.*?)</script>', page, re.S).group(1))
    assert blob["packed"] == {"status": ["held up", None, "same", "x"]}  # cells are all distinct
    assert blob["cols"]["status"][:4] == [0, 1, 2, 0] and blob["cols"]["cell"][0] == "0:0"
    assert page_data(page) == data == unpack_columns(blob)


def test_the_report_writes_the_explorer(tmp_path, capsys):
    d = copy(NAVY, tmp_path / "navy")
    assert main(["report", str(d)]) == 0
    out = capsys.readouterr().out
    page = d / "explorer.html"
    assert f"explorer: {page}" in out and page.stat().st_size < 1_000_000
    assert '"game":"navy"' in page.read_text()


@pytest.mark.parametrize("folder", sorted(COMMITTED_RUNS))
def test_the_committed_pages_are_what_the_code_writes(monkeypatch, folder):
    monkeypatch.chdir(REPO)
    page = REPO / folder / "explorer.html"
    assert page.read_text(encoding="utf-8") == committed_page(folder, COMMITTED_RUNS[folder]), \
        f"{page} is out of date: python experiments/bench_explorer.py --pages"
    assert page.stat().st_size < 1_000_000


def test_the_script_and_style_sheet_ship_with_the_package():
    import tomllib
    conf = tomllib.loads((REPO / "pyproject.toml").read_text())
    shipped = conf["tool"]["setuptools"]["package-data"]["plots.explorer"]
    assert "*.js" in shipped and "*.css" in shipped
    from importlib import resources
    here = resources.files("plots.explorer")
    assert "explorer-ready" in here.joinpath("explorer.js").read_text()
    assert "#map" in here.joinpath("explorer.css").read_text()


# ------------------------------------------------------------------ in a real browser

@pytest.fixture(scope="module")
def browser():
    if browser_path() is None:
        pytest.skip("no Chromium: install Debian's package chromium (.ci/run does) to run the "
                    "explorer's browser tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("no playwright: pip install -e '.[test]' to run the explorer's browser "
                    "tests")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=browser_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser, page: Path):
    """The page loaded and drawn, and the list its errors are collected into."""
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(page.resolve().as_uri())
    tab.wait_for_function("document.documentElement.dataset.ready === '1'")
    return tab, errors


def click_elite(tab, cell: str, modifiers=()) -> int:
    i = tab.evaluate(f"explorer.eliteIndex({json.dumps(cell)})")
    at = tab.evaluate(f"explorer.cellCenter({i})")
    for key in modifiers:
        tab.keyboard.down(key)
    tab.mouse.click(at["x"], at["y"])
    for key in modifiers:
        tab.keyboard.up(key)
    return i


def open_row(tab, cell: str) -> int:
    """Open an elite's card from its row of the table of every elite."""
    i = tab.evaluate(f"explorer.eliteIndex({json.dumps(cell)})")
    tab.click(f'#elites tr[data-elite="{i}"] th button')
    tab.wait_for_selector(f'#card[data-elite="{i}"]')
    return i


def text(tab, key: str) -> str:
    return tab.inner_text(f'#card [data-k="{key}"]').strip()


def test_a_click_opens_the_card_with_the_numbers_of_the_run(browser, tmp_path):
    d = copy(QUICKSTART, tmp_path / "quickstart")
    assert main(["export", str(d), "--kind", "style", "--count", "2"]) == 0  # presets_style.json
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    cell = "1.7:0:0.62"
    e = pd.read_csv(d / "elites.csv").set_index("cell").loc[cell]
    v = pd.read_csv(d / "validation.csv").set_index("cell").loc[cell]
    shown = click_elite(tab, "1.7:0:0.46")  # a style that held up, shown in the cell of
    tab.wait_for_selector(f'#card[data-elite="{shown}"]')
    assert "held up (style #2)" in tab.inner_text("#card h2")
    assert "1.7:0:0.62" in tab.inner_text("#card .others")  # every elite of the cell listed
    tab.click('#card .others button:text-is("1.7:0:0.62")')
    i = tab.evaluate(f"explorer.eliteIndex({json.dumps(cell)})")
    tab.wait_for_selector(f'#card[data-elite="{i}"]')
    assert text(tab, "cell") == cell
    assert text(tab, "win_rate:evolved") == pct(e["win_rate"])
    assert text(tab, "win_rate-ci:evolved") == \
        f"{pct(e['win_rate_ci_low'])} to {pct(e['win_rate_ci_high'])}"
    assert text(tab, "games:evolved") == str(int(e["games"]))
    assert text(tab, "win_rate:held") == pct(v["win_rate_validated"])
    assert text(tab, "win_rate-ci:held") == \
        f"{pct(v['win_rate_ci_low'])} to {pct(v['win_rate_ci_high'])}"
    assert text(tab, "games:held") == str(int(v["games_validated"]))
    assert text(tab, "f:buildings:evolved") == num(e["buildings_mean"])
    assert text(tab, "f:research_slope:held") == num(v["research_slope_validated"])
    assert text(tab, "w:ResearchMountains") == num(e["ResearchMountains"])
    assert text(tab, "dominant") == "ResearchMountains 1, ResearchRange 1 (+1 more at 1)"
    assert text(tab, "style_name") == "some buildings, few defenders, steady research"
    assert "not told apart from the other styles" in tab.inner_text("#card h2")
    target = d.resolve() / "elite_1.7_0_0.62.json"
    assert text(tab, "preset") == f"preset:{target}"
    assert f"--cells {cell}" in text(tab, "export")
    assert "No game of this elite was recorded" in text(tab, "boards")
    last = tab.evaluate("explorer.lastClick()")
    assert last["elite"] == shown and last["handler_ms"] >= 0  # (how fast: bench_explorer.py)
    # the held-out view: the elites at their held-out cells, coloured by held-out values
    before = tab.evaluate("document.getElementById('map').toDataURL()")
    legend = tab.inner_text("#legend-field")
    tab.click("#view-held")
    assert tab.evaluate("explorer.state().view") == "held"
    assert tab.inner_text("#legend-field") != legend and "held out" in \
        tab.inner_text("#legend-field")
    assert tab.evaluate("document.getElementById('map').toDataURL()") != before
    tab.click("#view-evolved")
    assert tab.evaluate("document.getElementById('map').toDataURL()") == before
    # an exported style: the card names its preset in the run directory's preset file
    styles = json.loads((d / "presets_style.json").read_text())["presets"]
    tab.evaluate(f"explorer.select(explorer.eliteIndex({json.dumps(styles[0]['evidence']['cell'])}))")
    assert text(tab, "preset") == f"preset:{d.resolve()}/presets_style.json#{styles[0]['name']}"
    # two more elites compared side by side
    a, b = [j for j in tab.evaluate("explorer.shownElites()") if j != i][:2]
    cells = pd.read_csv(d / "elites.csv")["cell"]
    click_elite(tab, cells[a], ["Shift"])
    click_elite(tab, cells[b], ["Control"])
    heads = tab.inner_text("#compare-table tr:first-child")
    assert cells[a] in heads and cells[b] in heads
    assert tab.evaluate("explorer.state().compare.length") == 2
    shot = tab.screenshot(full_page=True)
    assert errors == []
    from PIL import Image
    pixels = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB")).reshape(-1, 3)
    colours = np.unique(pixels, axis=0)
    assert len(colours) > 200  # a drawn map, text and bars, not a blank page
    assert (pixels.min(axis=1) < 200).mean() > 0.05  # more than a few dark pixels
    tab.close()


@pytest.mark.parametrize("src,game", [(TRIBOLO, "tribolo"), (NAVY, "navy")])
def test_the_tribolo_and_navy_runs_open_a_card(browser, tmp_path, src, game):
    d = copy(src, tmp_path / game)
    write_explorer(RunFiles(d).check(), feature_texts(game))
    tab, errors = open_page(browser, d / "explorer.html")
    elites = pd.read_csv(d / "elites.csv")
    shown = tab.evaluate("explorer.shownElites()")
    assert shown and set(shown) <= set(range(len(elites)))
    i = shown[0]
    at = tab.evaluate(f"explorer.cellCenter({i})")
    tab.mouse.click(at["x"], at["y"])
    tab.wait_for_selector(f'#card[data-elite="{i}"]')
    assert text(tab, "cell") == elites["cell"][i]
    assert text(tab, "games:evolved") == str(int(elites["games"][i]))
    tab.click("#view-held")
    assert tab.evaluate("explorer.state().view") == "held"
    assert errors == []
    tab.close()


def test_an_old_run_not_validated_shows_dashes_and_no_held_out_view(browser, tmp_path):
    d = fake_run(tmp_path / "old")  # no win-rate interval, no standard errors, no genome_scripts
    write_explorer(d)
    tab, errors = open_page(browser, d / "explorer.html")
    assert tab.is_disabled("#view-held")
    assert "not validated" in tab.inner_text("#held-note")
    assert tab.evaluate("explorer.setView('held')") is False
    click_elite(tab, "6:-1")
    assert text(tab, "win_rate:evolved") == "75.0%"
    assert text(tab, "win_rate-ci:evolved") == "too few games (4)"  # below 8 games
    assert text(tab, "w:SpawnRange") == "0.25"
    assert errors == []
    tab.close()


def test_a_one_feature_grid_and_an_empty_archive_open(browser, tmp_path):
    one = fake_run(tmp_path / "one", features=(("attacks", 0, 20, 2),), cells=((3, 0.5), (5, 0.7)))
    empty = fake_run(tmp_path / "empty", cells=())
    for d in (one, empty):
        (d / "metrics.csv").unlink()  # its coverage is of the two-feature grid
        write_explorer(d)
    tab, errors = open_page(browser, one / "explorer.html")
    assert tab.evaluate("explorer.state().y") == -1
    click_elite(tab, "10")
    assert text(tab, "win_rate:evolved") == "70.0%" and text(tab, "style_name") == "medium attacks"
    assert errors == []
    tab.close()
    tab, errors = open_page(browser, empty / "explorer.html")
    assert tab.evaluate("explorer.shownElites()") == []
    assert tab.inner_text("#card") == "The archive has no elite yet."
    assert errors == []
    tab.close()


def test_a_10000_cell_archive_loads_and_answers_clicks(browser, tmp_path):
    """Every elite of a 10,000-cell archive is on the map and a click opens its card (how
    fast: experiments/bench_explorer.py measures it, no test times it)."""
    d = synthetic_run(tmp_path / "big", side=100)
    page = write_explorer(d)
    tab, errors = open_page(browser, page)
    assert tab.evaluate("explorer.shownElites().length") == 10_000
    for cell in ("0:0", "50:50", "99:99", "12:87"):
        i = click_elite(tab, cell)
        tab.wait_for_selector(f'#card[data-elite="{i}"]')
        assert text(tab, "cell") == cell
    assert errors == []
    tab.close()


def test_the_boards_versus_drew_are_on_the_page(browser, tmp_path):
    """The boards of `playstyles versus` in RUN/versus/ are shown below the map, each image
    loaded from the page itself, and an elite's card says where they are; a run without them
    has no such section."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    d = copy(QUICKSTART, tmp_path / "quickstart")
    folder = d / "versus" / "1.7_0_0.62_vs_control"
    folder.mkdir(parents=True)
    for name in ("game0_round05.png", "game0_end.png"):
        fig = plt.figure(figsize=(2, 1))
        fig.savefig(folder / name)
        plt.close(fig)
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    heading = tab.inner_text("#versus h3")
    assert folder.name in heading
    loaded = tab.evaluate("Array.from(document.querySelectorAll('#versus img'))"
                          ".map(function (im) { return [im.alt, im.naturalWidth]; })")
    assert loaded == [["game0_round05.png", 200], ["game0_end.png", 200]]
    open_row(tab, "1.7:0:0.62")
    assert "side by side are below the map" in text(tab, "boards")
    assert not errors
    shutil.rmtree(d / "versus")
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    assert tab.query_selector("#versus") is None and not errors


# ------------------------------------------------------------------ accessibility

SERIOUS = ("serious", "critical")
"""The impacts of an axe-core violation the pages may not have."""


@pytest.fixture(scope="module")
def axe():
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        pytest.skip("no axe-playwright-python: pip install -e '.[test]' to check the pages "
                    "with axe-core")
    return Axe()


def violations(axe, tab) -> tuple[list[str], list[str]]:
    """axe-core's violations on the page as it is now: the serious or critical ones, and
    the others, each as its rule, impact, help and the first elements it names."""
    found = axe.run(tab, options={"resultTypes": ["violations"]}).response["violations"]
    said = [(v["impact"], f"{v['id']} ({v['impact']}): {v['help']}: "
                          f"{[n['target'] for n in v['nodes']][:5]}") for v in found]
    return [t for i, t in said if i in SERIOUS], [t for i, t in said if i not in SERIOUS]


def test_the_pages_have_no_serious_accessibility_violation(browser, axe, tmp_path):
    """axe-core (its bundled rules: names of controls, text alternatives, colour contrast,
    landmarks, keyboard access to scrolling boxes, ...) finds no serious or critical
    violation on report.html and explorer.html of a validated run with boards side by side
    and of a run not validated, in each state a designer passes through: the explorer on
    load, with a card open and two elites compared, in the held-out view; report.html wide
    and in a narrow window (where its tables scroll sideways)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    done = copy(RESULTS / "quickstart", tmp_path / "quickstart")
    folder = done / "versus" / "0_0_0_0_vs_control"
    folder.mkdir(parents=True)
    fig = plt.figure(figsize=(2, 1))
    fig.savefig(folder / "game0_end.png")
    plt.close(fig)
    plain = fake_run(tmp_path / "plain")
    found: dict[str, list[str]] = {}
    others: list[str] = []
    for d in (done, plain):
        assert main(["report", str(d)]) == 0
        tab, errors = open_page(browser, d / "explorer.html")
        cells = [tab.evaluate(f"explorer.data.cols.cell[{i}]")
                 for i in tab.evaluate("explorer.shownElites()")[:2]]
        states = [("load", None), ("card and comparison", lambda: (
            click_elite(tab, cells[0]), click_elite(tab, cells[1], ["Shift"])))]
        if tab.evaluate("explorer.data.validated"):
            states.append(("held-out view", lambda: tab.click("#view-held")))
        for state, act in states:
            if act:
                act()
            found[f"{d.name}/explorer.html, {state}"], more = violations(axe, tab)
            others += more
        assert errors == []
        tab.close()
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto((d / "report.html").resolve().as_uri())
        for width in (1400, 480):
            tab.set_viewport_size({"width": width, "height": 1000})
            found[f"{d.name}/report.html, {width} px wide"], more = violations(axe, tab)
            others += more
        tab.close()
    print("\n".join(["axe-core, minor or moderate:", *sorted(set(others))] if others else
                    ["axe-core: no violation of any impact"]))
    assert len(found) == 9
    assert {k: v for k, v in found.items() if v} == {}


# ------------------------------------------------------------------ what a designer does

def test_the_page_rounds_and_quotes_as_python_does(browser, tmp_path):
    """explorer.js prints a number as report.html does (`plots.numbers`: ties to even, three
    significant digits) and quotes a shell word as `shlex.quote` does."""
    import shlex
    d = fake_run(tmp_path / "r")
    write_explorer(d)
    tab, errors = open_page(browser, d / "explorer.html")
    rng = np.random.default_rng(0)
    values = [k / 16 for k in range(-20, 40)] + [k / 32 for k in range(0, 33)] + \
        [0.8125, 2.5, 12344.5, 12345.5, 999.96, 0.000123456, -0.01894, 2.675, 1.005, 1e-7] + \
        list(rng.normal(0, 50, 40)) + list(rng.uniform(0, 1, 40))
    page = tab.evaluate("v => v.map(x => [explorer.format.pct(x), explorer.format.num(x)])", values)
    assert page == [[pct_text(v), num_text(v)] for v in values]
    assert pct_text(0.8125) == "81.2%" and num_text(2088.90625) == "2089"
    words = ["plain", "with space", "it's", "a'b'c", "", "$HOME", "x;rm -rf", "ü", "-1:2"]
    quoted = tab.evaluate("w => w.map(explorer.format.shq)", words)
    assert [shlex.split(q) for q in quoted] == [[w] for w in words]  # one word each, unchanged
    assert [q == w for q, w in zip(quoted, words)] == [shlex.quote(w) == w for w in words]
    assert errors == []
    tab.close()


def test_the_tribolo_and_navy_pages_show_their_counted_styles(monkeypatch):
    """The committed Tribolo and Navy runs keep the validation that counted their styles in a
    folder beside their files: their pages count the styles, and Navy leads with the score."""
    monkeypatch.chdir(REPO)
    for folder in ("experiments/results/tribolo/quickstart", "experiments/results/navy/quickstart"):
        page = (REPO / folder / "explorer.html").read_text(encoding="utf-8")
        data = page_data(page)
        assert data["counted"] and "validate again to count them as docs" not in data["headline"] \
            or data["counted"]
        assert "not counted: validate again" not in data["headline"]
        assert any(s.startswith("held up (style #") for s in data["cols"]["status"])
    navy = page_data((NAVY / "explorer.html").read_text(encoding="utf-8"))
    assert navy["score_quality"]
    assert any(x is not None for x in navy["cols"]["v:score_low"])  # the score's own interval


def test_a_designer_finds_the_elite_of_highest_feature_by_sorting_the_table(browser, tmp_path):
    d = copy(QUICKSTART, tmp_path / "quickstart")
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    elites = pd.read_csv(d / "elites.csv")
    assert tab.eval_on_selector_all("#elites tbody tr", "r => r.length") == len(elites)  # all
    # colour by a feature that is not an axis: the table gains its column; sort by it
    tab.select_option("#sel-field", "f:attacks")
    head = '#elites button[data-sort="f:attacks"]'
    assert "attack actions per game" in tab.inner_text(head)  # the feature's words
    tab.click(head)
    assert tab.evaluate(f"document.querySelector('{head}').parentElement"
                        ".getAttribute('aria-sort')") == "descending"
    top = elites.loc[elites["attacks_mean"].idxmax(), "cell"]
    first = tab.inner_text("#elites tbody tr:first-child th")
    assert first == top
    tab.click("#elites tbody tr:first-child")
    assert text(tab, "cell") == top
    tab.click(head)  # and the lowest, the other way round
    assert tab.inner_text("#elites tbody tr:first-child th") == \
        elites.loc[elites["attacks_mean"].idxmin(), "cell"]
    # clicking a cell marks its rows: all the elites of that cell
    i = click_elite(tab, "1.7:0:0.46")
    here = tab.eval_on_selector_all("#elites tr.here", "r => r.map(x => +x.dataset.elite)")
    cells = tab.evaluate("explorer.data.cols.cell")
    assert {cells[j] for j in here} == {"1.7:0:0.46", "1.7:0:0.62", "1.7:0:0.3"} and i in here
    # a filter by text
    tab.fill("#filter", "fast research")
    rows = tab.eval_on_selector_all("#elites tbody tr", "r => r.length")
    names = tab.evaluate("explorer.data.cols.style_name")
    assert rows == sum("fast research" in n for n in names) > 0
    # an interval of a count clipped to its declared range (no negative defenders)
    tab.fill("#filter", "")
    open_row(tab, "1.7:0:0.46")
    assert text(tab, "f:defender_spawns:held-ci").startswith("0 to ")
    assert errors == []
    tab.close()


@pytest.mark.parametrize("src,game", [(QUICKSTART, "tribes"), (TRIBOLO, "tribolo")])
def test_every_style_that_held_up_opens_from_the_table_and_is_marked(browser, tmp_path, src,
                                                                     game):
    d = copy(src, tmp_path / game)
    run = RunFiles(d).check()
    if src == TRIBOLO:  # its counted validation is the one beside it
        from plots.explorer import validation_beside
        page = d / "explorer.html"
        page.write_text(explorer_html(explorer_data(run, feature_texts(game), validation=(
            validation_beside(run, d / "recount")))), encoding="utf-8")
    else:
        write_explorer(run, feature_texts(game))
    tab, errors = open_page(browser, d / "explorer.html")
    status = tab.evaluate("explorer.data.cols.status")
    styles = [j for j, s in enumerate(status) if s.startswith("held up")]
    assert styles and tab.evaluate("explorer.markedElites()") == styles
    tab.fill("#filter", "held up (style")
    rows = tab.eval_on_selector_all("#elites tbody tr", "r => r.map(x => +x.dataset.elite)")
    assert sorted(rows) == styles
    for j in rows:
        tab.click(f'#elites tr[data-elite="{j}"]')
        tab.wait_for_selector(f'#card[data-elite="{j}"]')
        assert tab.inner_text("#card [data-k=status]") == status[j]
    assert errors == []
    tab.close()


def test_the_map_is_used_from_the_keyboard_alone(browser, tmp_path):
    d = copy(QUICKSTART, tmp_path / "quickstart")
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    assert tab.get_attribute("#map", "aria-describedby") == "list-caption"  # the table
    for _ in range(20):
        tab.keyboard.press("Tab")
        if tab.evaluate("document.activeElement.id") == "map":
            break
    assert tab.evaluate("document.activeElement.id") == "map"
    start = tab.inner_text("#map-status")
    assert "Enter opens its card" in start
    tab.keyboard.press("ArrowRight")
    tab.keyboard.press("ArrowDown")
    moved = tab.inner_text("#map-status")
    assert moved != start
    tab.keyboard.press("Enter")
    tab.wait_for_selector("#card[data-elite]")
    i = int(tab.get_attribute("#card", "data-elite"))
    assert f"elite {tab.evaluate('explorer.data.cols.cell')[i]}" in moved
    assert "opened" in tab.inner_text("#map-status")
    # the card's buttons are reached by Tab too: no link without href
    assert tab.eval_on_selector_all("a:not([href])", "a => a.length") == 0
    assert errors == []
    tab.close()


def test_the_cards_commands_work_from_any_folder(browser, tmp_path, monkeypatch):
    """The export command names the run directory by its absolute path, shell-quoted: typed
    in another folder, it writes the preset the card names."""
    import shlex
    d = copy(QUICKSTART, tmp_path / "a run's folder")
    write_explorer(RunFiles(d).check(), feature_texts("tribes"))
    tab, errors = open_page(browser, d / "explorer.html")
    open_row(tab, "1.7:0:0.62")
    words = shlex.split(text(tab, "export"))
    assert words[:2] == ["playstyles", "export"] and words[2] == str(d.resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(words[1:]) == 0
    preset = text(tab, "preset").removeprefix("preset:")
    assert Path(preset).is_file() and Path(preset).parent == d.resolve()
    assert shlex.split(text(tab, "versus"))[2] == str(d.resolve())
    assert errors == []
    tab.close()
