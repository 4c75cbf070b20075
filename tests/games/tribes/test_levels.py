"""Levels: CSV format, the exact reference generator, and named level sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.tribes.level import TRIBE_KEYS, Level, LevelFormatError, load_level, save_level
from games.tribes.level_sets import PAPER_SEEDS, level_set, levels_for, split
from games.tribes.levelgen import _hashmap_order, generate_level

LEVELS_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "levels"


def _vectors(name: str) -> list[tuple[int, str]]:
    path = LEVELS_DIR / name
    if not path.exists():
        pytest.skip(f"reference vectors not available at {path}")
    parts = re.split(r"^# seed (-?\d+)[^\n]*\n", path.read_text(), flags=re.M)
    return [(int(s), body.strip("\n") + "\n") for s, body in zip(parts[1::2], parts[2::2])]


# --- the reference maps ------------------------------------------------------------------------

def test_paper_seeds_are_the_vector_seeds_in_order() -> None:
    assert [s for s, _ in _vectors("tribes-java-paper-seeds.txt")] == list(PAPER_SEEDS)
    assert len(PAPER_SEEDS) == 25


@pytest.mark.parametrize("name", ["tribes-java-paper-seeds.txt", "tribes-java-extra-seeds.txt"])
def test_generator_reproduces_reference_maps(name: str) -> None:
    vectors = _vectors(name)
    assert vectors
    wrong = [s for s, text in vectors if generate_level(s).to_csv() != text]
    assert wrong == []


@pytest.mark.parametrize("name", ["tribes-java-paper-seeds.txt", "tribes-java-extra-seeds.txt"])
def test_csv_round_trip_is_exact(name: str) -> None:
    for seed, text in _vectors(name):
        level = Level.from_csv(text, source=f"seed {seed}")
        assert level.to_csv() == text
        assert level == generate_level(seed)
        assert level.size == 11
        assert sorted(level.tribes) == [0, 1]


def test_forest_villages_keep_their_space() -> None:
    # the reference writes villages that replaced a forest as "v: " and others as "v:"
    text = dict(_vectors("tribes-java-extra-seeds.txt"))[1]
    level = Level.from_csv(text)
    villages = [k for k, t in enumerate(level.terrain) if t == "v"]
    assert set(villages) > set(level.spaced) and level.spaced
    assert all(level.resource[k] == "" for k in villages)
    assert "v: " in level.to_csv() and "v:," in level.to_csv()


def test_generated_level_structure() -> None:
    level = generate_level(PAPER_SEEDS[0])
    n = level.size
    assert n == 11 and len(level.terrain) == len(level.resource) == 121
    for tile, key in level.capitals:
        r, c = level.rc(tile)
        assert 2 <= r <= n - 3 and 2 <= c <= n - 3
        assert level.terrain[tile] == "c" and level.resource[tile] == ""
    assert [t for t, _ in level.capitals] == sorted(t for t, _ in level.capitals)
    imp = level.capital_of("IMPERIUS")
    ring = [imp + dr * n + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    assert sum(level.resource[t] == "f" for t in ring) >= 2


def test_tribes_by_key_or_name_and_default_sizes() -> None:
    assert generate_level(5, (0, 1)) == generate_level(5, ("xin_xi", "Imperius"))
    assert generate_level(5, ("IMPERIUS", "XIN_XI")) != generate_level(5)
    for tribes, size in [((0, 1, 2), 14), ((0, 1, 2, 3), 16), (tuple(range(8)), 24)]:
        level = generate_level(3, tribes)
        assert level.size == size
        assert sorted(level.tribes) == sorted(tribes)
    with pytest.raises(ValueError, match="unknown tribe"):
        generate_level(1, ("XIN_XI", "ATLANTIS"))
    with pytest.raises(ValueError, match="distinct"):
        generate_level(1, ("XIN_XI", 0))


@pytest.mark.parametrize("tribes", [("BARDUR", "IMPERIUS"), ("LUXIDOOR", "VENGIR", "KICKOO"),
                                    ("ZEBASI", "AI_MO", "QUETZALI", "YADAKK", "HOODRICK")])
def test_generator_invariants_for_other_tribes(tribes: tuple[str, ...]) -> None:
    for seed in range(15):
        level = generate_level(seed, tribes)
        n = level.size
        sites = [t for t, ter in enumerate(level.terrain) if ter in "vc"]

        def dist(a: int, b: int) -> int:
            return max(abs(a // n - b // n), abs(a % n - b % n))

        assert all(dist(a, b) >= 3 for i, a in enumerate(sites) for b in sites[i + 1:])
        assert Level.from_csv(level.to_csv()) == level
        if "BARDUR" in tribes:
            cap = level.capital_of("BARDUR")
            ring = [t for t in range(n * n) if dist(t, cap) == 1]
            assert sum(level.terrain[t] == "f" and level.resource[t] == "a" for t in ring) >= 2


def test_generation_is_deterministic() -> None:
    assert generate_level(987654321).to_csv() == generate_level(987654321).to_csv()
    assert generate_level(1).to_csv() != generate_level(2).to_csv()


def test_hashmap_order_matches_java() -> None:
    # orders printed by java.util.HashMap<Integer, Integer> after put() in list order
    assert _hashmap_order([133, 245, 469, 629]) == [133, 245, 469, 629]
    # a chain of 9 in a small table doubles it
    assert _hashmap_order([39, 103, 135, 151, 215, 231, 375, 423, 503, 567, 631]) == [
        39, 103, 135, 231, 423, 151, 215, 375, 503, 567, 631]
    # a chain of 9 in a table of 64 becomes a tree whose root moves to the front
    assert _hashmap_order([141, 269, 397, 1293, 1309, 1588, 2061, 3085, 3341, 3725, 4109,
                           4365, 4621]) == [1293, 141, 269, 397, 2061, 3085, 3341, 3725, 4109,
                                            4365, 4621, 1309, 1588]
    keys = [60, 83, 87, 144, 210, 324, 389, 409, 498, 566, 631, 656, 737, 739, 742, 784, 804,
            1265, 1281, 1383, 1624, 1665, 1680, 1683, 1698, 1726, 1782, 1897, 1931, 2083, 2117,
            2161, 2192, 2206, 2240, 2310, 2329, 2448, 2529, 2532, 2544, 2550, 2576, 2581, 2784,
            2832, 2857, 2890, 2987, 3088, 3728, 4368, 4880, 5008]
    assert _hashmap_order(keys) == [
        1281, 1665, 389, 2310, 1931, 1680, 144, 656, 784, 2192, 2448, 2576, 2832, 3088, 3728,
        4368, 4880, 5008, 1683, 2581, 409, 2329, 2206, 1698, 2083, 804, 2857, 2987, 566, 60,
        1726, 2240, 324, 2117, 2890, 210, 83, 87, 1624, 2784, 737, 2529, 739, 2532, 742, 1383,
        1897, 2544, 1265, 2161, 498, 1782, 2550, 631]


def test_tribe_keys() -> None:
    assert TRIBE_KEYS["XIN_XI"] == 0 and TRIBE_KEYS["IMPERIUS"] == 1
    assert TRIBE_KEYS["YADAKK"] == 11 and len(TRIBE_KEYS) == 12


# --- CSV parsing and errors ----------------------------------------------------------------------

GOOD = "d:,s:h,.:\n.:,c:3,f:a\nv: ,m:o,c:10\n"


def test_parse_small_level() -> None:
    level = Level.from_csv("\n" + GOOD + "\n\n", source="small")
    assert level.size == 3
    assert level.capitals == ((4, 3), (8, 10))
    assert level.tribes == (3, 10)
    assert level.terrain[6] == "v" and level.resource[6] == "" and level.spaced == {6}
    assert level.resource[1] == "h" and level.resource[4] == "" and level.resource[8] == ""
    assert level.to_csv() == GOOD
    assert Level.from_csv(GOOD.replace("\n", "\r\n")) == level


@pytest.mark.parametrize("text, line, cell, words", [
    ("d:,s:h,.:\n.:,c:3\nv: ,m:o,c:10\n", 2, None, "2 cells, expected 3"),
    ("d:,s:h,.:\n.:,c:3,x:a\nv: ,m:o,c:10\n", 2, 3, "unknown terrain"),
    ("d:,s:q,.:\n.:,c:3,f:a\nv: ,m:o,c:10\n", 1, 2, "unknown resource"),
    ("d:,s:h,.:\n.:,c:3,f:ab\nv: ,m:o,c:10\n", 2, 3, "unknown resource"),
    ("d:,s:h,.:\n.:,c:3,f:a\nv: ,m:o,c:12\n", 3, 3, "bad tribe key"),
    ("d:,s:h,.:\n.:,c:,f:a\nv: ,m:o,c:10\n", 2, 2, "bad tribe key"),
    ("d:,s:h,.:\n.:,c:x,f:a\nv: ,m:o,c:10\n", 2, 2, "bad tribe key"),
    ("d:,s:h,.:\n.:,c:3,f:a\nv: ,m,c:10\n", 3, 2, "no ':'"),
    ("d:,s:h,.:\n.:,c:3,f:a\nv: ,m:o,c:3\n", 3, 3, "duplicate capital"),
    ("d:,s:h,.:\n.:,.:,f:a\nv: ,m:o,.:\n", 1, None, "no capital"),
    ("d:,s:h,.:\n.:,c:3,f:a\n", 3, None, "missing rows"),
    ("d:,s:h,.:\n.:,c:3,f:a\nv: ,m:o,c:10\n.:,.:,.:\n", 4, None, "too many rows"),
    ("d:,s:h,.:\n\n.:,c:3,f:a\nv: ,m:o,c:10,.:\n", 4, None, "4 cells, expected 3"),
])
def test_malformed_input_names_source_line_and_cell(text: str, line: int, cell: int | None,
                                                     words: str) -> None:
    with pytest.raises(LevelFormatError) as info:
        Level.from_csv(text, source="bad.csv")
    msg = str(info.value)
    assert msg.startswith(f"bad.csv: line {line}")
    assert words in msg
    if cell is not None:
        assert f"line {line}, cell {cell} " in msg
    assert isinstance(info.value, ValueError)


def test_empty_input_is_an_error() -> None:
    with pytest.raises(LevelFormatError, match=r"^empty\.csv: line 1: no rows"):
        Level.from_csv("\n \n", source="empty.csv")


def test_level_rejects_inconsistent_data() -> None:
    ok = Level.from_csv(GOOD)
    with pytest.raises(ValueError, match="capitals"):
        Level(3, ok.terrain, ok.resource, ((4, 3),))
    with pytest.raises(ValueError, match="terrain"):
        Level(3, ok.terrain[:-1], ok.resource, ok.capitals)


def test_save_and_load(tmp_path: Path) -> None:
    level = generate_level(PAPER_SEEDS[3])
    path = tmp_path / "lvl.csv"
    save_level(level, path)
    assert path.read_text() == level.to_csv()
    assert load_level(path) == level
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lvl.csv"]  # no temp file left
    save_level(generate_level(1), path)  # overwrite in place
    assert load_level(path) == generate_level(1)
    path.write_text("d:,d:\n.:,.:x\n")
    with pytest.raises(LevelFormatError, match=re.escape(f"{path}: line 2, cell 2")):
        load_level(path)


# --- level sets ---------------------------------------------------------------------------------

def test_level_set_names() -> None:
    assert level_set("paper") == list(PAPER_SEEDS)
    assert level_set("seeds:1, 2,3") == [1, 2, 3]
    assert level_set("range:100-103") == [100, 101, 102, 103]
    with pytest.raises(ValueError, match=r"'nope'.*paper"):
        level_set("nope")
    for bad in ("range:5-1", "range:a-b", "seeds:", "seeds:1,x", "seeds:2,2"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            level_set(bad)


def test_levels_for_uses_the_seeds() -> None:
    levels = levels_for("seeds:1,42")
    vectors = dict(_vectors("tribes-java-extra-seeds.txt"))
    assert [lv.to_csv() for lv in levels] == [vectors[1], vectors[42]]
    assert levels_for([7], ("BARDUR", "OUMAJI"))[0] == generate_level(7, ("BARDUR", "OUMAJI"))


def test_split_is_disjoint_complete_and_deterministic() -> None:
    seeds = level_set("paper")
    train, held = split(seeds, 5, seed=0)
    assert len(held) == 5 and len(train) == 20
    assert not set(train) & set(held)
    assert sorted(train + held) == sorted(seeds)
    assert split(seeds, 5, seed=0) == (train, held)
    assert split(seeds, 5, seed=1) != (train, held)
    assert [s for s in seeds if s in held] == held  # input order kept
    train_f, held_f = split(seeds, 0.2, seed=0)
    assert (train_f, held_f) == (train, held)  # 20% of 25 is the same 5
    assert split(seeds, 0, seed=3) == (seeds, [])
    assert split(seeds, 1.0, seed=3) == ([], seeds)


def test_split_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        split([1, 2, 3], 4, seed=0)
    with pytest.raises(ValueError):
        split([1, 2, 3], 1.5, seed=0)
    with pytest.raises(ValueError, match="distinct"):
        split([1, 1, 2], 1, seed=0)
    with pytest.raises(TypeError):
        split([1, 2, 3], True, seed=0)
