"""Replay the reference engine's recorded Tribes games against our engine.

The reference traces (``../shared/reference/traces``, format described in the README there)
record complete games of the Java Tribes engine: the level, every action with the legal
choices before it, the state changes it caused, and the full state at every turn end. This
module rebuilds each game with ``games.tribes`` and replays it action by action, comparing
after every line. It stops at the FIRST disagreement and reports it precisely: game, line of
the trace file, action index, the field, expected (trace) and got (engine).

Checks per line:

* ``header``: tribes (id = turn order, type, stars, score, techs, capital), units, cities and
  board after setup.
* ``turn_start``: round/tribe, ``stars_before``, ``stars`` (hence the income), ``score``, the
  units and cities listed in ``diff`` (temples), and the status reset (PUSHED -> MOVED, every
  other unit of the tribe FRESH).
* ``action``: the action is built from the line's parameters and must be in
  ``legal_actions()``; the legal action counts by type and the per-unit move counts must
  agree; EXAMINE outcomes are forced (``rules.Forced``). After ``apply``: the number of
  generator draws, the ``check`` of both tribes, every unit / city / tile of ``diff`` field
  by field, and, the other way round, any unit, city or tile the engine changed that the
  trace does not list. For EXAMINE, the engine's own draw must also equal the recorded
  outcome (the engine reproduces the reference's generator draw for draw, explorer walks
  included, so forcing is only a safety net).
* ``turn_end``: the end-of-turn step is run on a copy and the full state (tribes with cities,
  extra units, connected cities, monuments, pacifist counter; all units; all cities; the
  board) is compared; then END_TURN is applied to the real state (unless the game ended
  mid-turn), which also runs the next tribe's start of turn.
* ``result``: winner, ranking, scores.

Two modes: ``reference_bugs=True`` must replay every game to the end; with
``reference_bugs=False`` (the project's fixed rules) the replay stops before the first line
flagged with one of the bugs the project fixes on purpose (B11..B16) and everything before it
must agree.

With ``check_cow=True`` the replay also verifies the copy-on-write discipline: a copy taken
before each action (and each end of turn) must be left untouched by it.

Usage: ``python3 -m tests.games.tribes.trace_replay [--fixed] [--cow] [g01 g02 ...]``.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from games.tribes import constants as K
from games.tribes import rules
from games.tribes.actions import (
    ACTION_NAMES,
    ACTION_OF_NAME,
    BUILD,
    BUILD_ROAD,
    CITY_ACTIONS,
    END_TURN,
    MOVE,
    RESEARCH_TECH,
    TRIBE_ACTOR,
    UNIT_ACTIONS,
    reachable,
)
from games.tribes.level import Level
from games.tribes.state import LOSS, WIN, TribesOptions, new_game

TRACES_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "traces"
MAIN_GAMES = tuple(f"g{n:02d}" for n in range(1, 13))
FIXED_BUG_TAGS = ("B11", "B12", "B13", "B14", "B15", "B16")
RESULT_NAMES = {0: "INCOMPLETE", WIN: "WIN", LOSS: "LOSS"}


def trace_path(game: str, directory: Path = TRACES_DIR) -> Path:
    return directory / f"tribes-java-{game}.jsonl.gz"


def load_trace(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


# --------------------------------------------------------------------------- results
@dataclass
class Mismatch:
    """The first disagreement between the engine and a trace."""

    game: str
    line: int  # 1-based line of the trace file
    line_type: str
    field: str
    expected: object
    got: object
    index: int | None = None  # action index `i`
    context: str = ""
    note: str = ""

    def __str__(self) -> str:
        where = f"{self.game} line {self.line} ({self.line_type}"
        if self.index is not None:
            where += f" #{self.index}"
        if self.context:
            where += f": {self.context}"
        where += ")"
        msg = f"{where}: {self.field}: expected {self.expected!r}, got {self.got!r}"
        if self.note:
            msg += f" [{self.note}]"
        return msg


@dataclass
class ReplayResult:
    game: str
    reference_bugs: bool
    lines: int = 0  # lines checked
    actions: int = 0  # action lines replayed and compared
    turns: int = 0  # turn_end lines compared
    finished: bool = False  # reached and matched the result line
    stopped_at: str | None = None  # fixed mode: the flagged line the replay stopped before
    mismatch: Mismatch | None = None
    rng_total: int | None = None  # the engine's generator draws at the end

    @property
    def ok(self) -> bool:
        return self.mismatch is None and (self.finished or self.stopped_at is not None)

    def summary(self) -> str:
        mode = "reference-bugs" if self.reference_bugs else "fixed-rules"
        if self.mismatch is not None:
            return f"{self.game} [{mode}] FAILED after {self.actions} actions: {self.mismatch}"
        if self.finished:
            return f"{self.game} [{mode}] ok: {self.actions} actions, {self.turns} turns, result matches"
        return (f"{self.game} [{mode}] ok up to {self.stopped_at}: {self.actions} actions, "
                f"{self.turns} turns")


class _Stop(Exception):
    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(str(mismatch))
        self.mismatch = mismatch


# --------------------------------------------------------------------------- snapshots
def _xy(s, idx: int) -> list[int]:
    return list(divmod(idx, s.size))


def _idx(s, pos) -> int:
    return pos[0] * s.size + pos[1]


def unit_snapshot(s, u) -> dict:
    d = {
        "tribe": u.tribe, "type": K.UNIT_NAMES[u.type], "pos": _xy(s, u.pos), "hp": u.hp,
        "max_hp": u.max_hp, "kills": u.kills, "vet": bool(u.veteran),
        "status": K.STATUS_NAMES[u.status], "home": u.home if u.home else -1,
    }
    if K.UNIT_IS_NAVAL[u.type]:
        d["base"] = K.UNIT_NAMES[u.base] if u.base is not None and u.base >= 0 else None
    if u.home and u.home in s.cities:
        orphan = u.id not in s.cities[u.home].units
    elif u.home:
        orphan = True
    else:
        orphan = u.id not in s.tribes[u.tribe].extra_units
    if orphan:
        d["orphan"] = True
    if s.unit_at[u.pos] != u.id:
        d["ghost"] = True
    return d


def _trace_unit(t: dict) -> dict:
    d = {k: t[k] for k in ("tribe", "type", "pos", "hp", "max_hp", "kills", "vet", "status", "home")}
    if "base" in t:
        d["base"] = t["base"]
    if t.get("orphan"):
        d["orphan"] = True
    if t.get("ghost"):
        d["ghost"] = True
    return d


def city_buildings(s, cid: int) -> list:
    c = s.cities[cid]
    out = []
    tc, building = s.tile_city, s.building
    for i in s.radius(c.pos, 3):
        if tc[i] == cid and building[i]:
            b = [*_xy(s, i), K.BUILDING_NAMES[building[i]]]
            if building[i] in K.TEMPLES:
                b.extend(c.temples.get(i, [None, None]))
            out.append(b)
    return sorted(out)


def city_snapshot(s, c) -> dict:
    return {
        "tribe": c.tribe, "pos": _xy(s, c.pos), "level": c.level, "pop": c.pop,
        "pop_need": c.pop_need, "prod": c.production(), "prod_bonus": c.prod_bonus,
        "capital": c.capital, "walls": c.walls, "bound": c.bound, "worth": c.worth,
        "units": list(c.units), "buildings": city_buildings(s, c.id),
    }


def _trace_city(t: dict) -> dict:
    d = {k: t[k] for k in ("tribe", "pos", "level", "pop", "pop_need", "prod", "prod_bonus",
                           "capital", "walls", "bound", "worth", "units")}
    d["buildings"] = sorted(list(b) for b in t["buildings"])
    return d


def tribe_check(s, tid: int) -> dict:
    t = s.tribes[tid]
    return {
        "stars": t.stars, "score": t.score, "n_techs": t.n_techs(),
        "techs": [K.TECH_NAMES[i] for i in range(K.NUM_TECHS) if t.has(i)],
        "n_cities": len(t.cities), "n_units": len(s.tribe_units(tid)),
        "production": s.production(tid), "kills": t.kills,
    }


_CHECK_KEYS = ("stars", "score", "n_techs", "techs", "n_cities", "n_units", "production", "kills")


def tribe_full(s, tid: int) -> dict:
    t = s.tribes[tid]
    d = tribe_check(s, tid)
    d.update({
        "result": RESULT_NAMES[t.result], "capital": t.capital, "cities": list(t.cities),
        "extra_units": list(t.extra_units), "connected": list(t.connected),
        "monuments": {K.BUILDING_NAMES[m]: K.MONUMENT_STATUS_NAMES[st]
                      for m, st in zip(K.MONUMENTS, t.monuments) if st != K.UNAVAILABLE},
        "pacifist": t.pacifist,
    })
    return d


_FULL_KEYS = _CHECK_KEYS + ("result", "capital", "cities", "extra_units", "connected",
                            "monuments", "pacifist")


def tile_snapshot(s, i: int) -> dict:
    return {
        "terrain": K.TERRAIN_CHARS[s.terrain[i]], "resource": K.RESOURCE_CHARS[s.resource[i]],
        "building": K.BUILDING_NAMES[s.building[i]] if s.building[i] else None,
        "road": bool(s.road[i]), "owner": s.tile_city[i] if s.tile_city[i] else -1,
    }


def _tile_key(s, i: int) -> tuple:
    return (s.terrain[i], s.resource[i], s.building[i], bool(s.road[i]), s.tile_city[i])


def board_snapshot(s) -> dict:
    n = s.size
    rows = range(n)
    return {
        "terrain": ["".join(K.TERRAIN_CHARS[s.terrain[x * n + y]] for y in rows) for x in rows],
        "resource": ["".join(K.RESOURCE_CHARS[s.resource[x * n + y]] for y in rows) for x in rows],
        "owner": [[s.tile_city[x * n + y] or -1 for y in rows] for x in rows],
        "buildings": sorted([x, y, K.BUILDING_NAMES[s.building[x * n + y]]]
                            for x in rows for y in rows if s.building[x * n + y]),
        "roads": sorted([x, y] for x in rows for y in rows if s.road[x * n + y]),
    }


def _unit_fields(u) -> tuple:
    return (u.id, u.tribe, u.type, u.pos, u.hp, u.max_hp, u.kills, u.veteran, u.status, u.home,
            u.base)


def _city_fields(c) -> tuple:
    return (c.id, c.tribe, c.pos, c.level, c.pop, c.pop_need, c.prod_bonus, c.capital, c.walls,
            c.bound, c.worth, tuple(c.units),
            tuple(sorted((k, tuple(v)) for k, v in c.temples.items())))


def _tribe_fields(t) -> tuple:
    return (t.id, t.key, t.stars, t.score, t.techs, t.kills, tuple(t.cities),
            tuple(t.extra_units), t.capital, tuple(t.monuments), t.pacifist, tuple(t.connected),
            t.result)


def _deep_snapshot(s) -> tuple:
    return ({i: _unit_fields(u) for i, u in s.units.items()},
            {i: _city_fields(c) for i, c in s.cities.items()},
            [_tribe_fields(t) for t in s.tribes])


# --------------------------------------------------------------------------- replay
class Replayer:
    """Replays one trace; `run()` returns a ReplayResult (the first mismatch, if any)."""

    def __init__(self, lines: list[dict], game: str = "?", reference_bugs: bool = True,
                 check_cow: bool = False) -> None:
        self.lines = lines
        self.game = game
        self.reference_bugs = reference_bugs
        self.check_cow = check_cow
        self.result = ReplayResult(game, reference_bugs)
        self.s = None
        self.lineno = 0
        self.line: dict = {}
        self.context = ""

    # ------------------------------------------------------------------ reporting
    def fail(self, fld: str, expected, got, note: str = "") -> None:
        d = self.line
        raise _Stop(Mismatch(self.game, self.lineno, d.get("t", "?"), fld, expected, got,
                             index=d.get("i"), context=self.context, note=note))

    def eq(self, fld: str, expected, got, note: str = "") -> None:
        if expected != got:
            self.fail(fld, expected, got, note)

    def eq_dict(self, prefix: str, expected: dict, got: dict, keys=None) -> None:
        for k in keys if keys is not None else sorted(set(expected) | set(got)):
            e, g = expected.get(k), got.get(k)
            if e != g:
                self.fail(f"{prefix}.{k}", e, g)

    # ------------------------------------------------------------------ driver
    def run(self) -> ReplayResult:
        try:
            for n, d in enumerate(self.lines, start=1):
                self.lineno, self.line = n, d
                self.context = ""
                kind = d["t"]
                if not self.reference_bugs:
                    tags = [f.get("tag", "") for f in d.get("flags", ())]
                    hit = [t for t in tags if t.startswith(FIXED_BUG_TAGS)]
                    if hit:
                        self.result.stopped_at = (f"line {n} (action #{d.get('i')} "
                                                  f"{d.get('type')}, flag {hit[0]})")
                        return self.result
                if kind == "header":
                    self.do_header(d)
                elif kind == "turn_start":
                    self.do_turn_start(d)
                elif kind == "action":
                    self.do_action(d)
                    self.result.actions += 1
                elif kind == "turn_end":
                    self.do_turn_end(d)
                    self.result.turns += 1
                elif kind == "result":
                    self.do_result(d)
                    self.result.finished = True
                else:
                    self.fail("line type", "a known line type", kind)
                self.result.lines += 1
        except _Stop as e:
            self.result.mismatch = e.mismatch
        return self.result

    # ------------------------------------------------------------------ header
    def do_header(self, d: dict) -> None:
        level = Level.from_csv("\n".join(d["level_csv"]), source=f"{self.game} header")
        s = self.s = new_game(level, d["game_seed"],
                              TribesOptions(reference_bugs=self.reference_bugs,
                                            max_rounds=d.get("max_rounds")))
        self.eq("tribes", len(d["tribes"]), len(s.tribes))
        for t in d["tribes"]:
            tid = t["id"]
            self.context = f"tribe {tid}"
            et = s.tribes[tid]
            self.eq("type", t["type"], K.TRIBE_NAMES[et.key])
            self.eq("turn_order", t["turn_order"], tid)
            self.eq("stars", t["stars"], et.stars)
            self.eq("score", t["score"], et.score)
            self.eq("techs", t["techs"], tribe_check(s, tid)["techs"])
            self.eq("capital", t["capital"], et.capital)
            self.eq("capital_pos", t["capital_pos"], _xy(s, s.cities[et.capital].pos))
        self.context = "initial state"
        # new_game() has already run the first tribe's start of turn (its units are FRESH);
        # the header was written before it
        units = [dict(u, status="FRESH") if u["tribe"] == s.current else u for u in d["units"]]
        self.compare_all_units(units)
        self.compare_all_cities(d["cities"])
        self.compare_board(d["board"])
        self.eq("next_actor_id", d["next_actor_id"], s.next_id)

    # ------------------------------------------------------------------ turns
    def check_turn(self, d: dict) -> None:
        s = self.s
        self.eq("tick", d["tick"], s.tick)
        self.eq("tribe", d["tribe"], s.current)

    def do_turn_start(self, d: dict) -> None:
        s = self.s
        self.context = f"tick {d['tick']}, tribe {d['tribe']}"
        self.check_turn(d)
        tid = d["tribe"]
        t = s.tribes[tid]
        self.eq("stars", d["stars"], t.stars)
        self.eq("income", d["income"], t.stars - d["stars_before"])
        self.eq("score", d["score"], t.score)
        for tu in d["diff"]["units"]:
            self.compare_unit(tu)
        for tc in d["diff"]["cities"]:
            self.compare_city(tc)
        pushed = set(d["pushed_units_now_moved"])
        for uid in s.tribe_units(tid):
            want = "MOVED" if uid in pushed else "FRESH"
            self.eq(f"unit {uid}.status", want, K.STATUS_NAMES[s.units[uid].status])

    def do_turn_end(self, d: dict) -> None:
        s = self.s
        self.context = f"tick {d['tick']}, tribe {d['tribe']}, {d['ended_by']}"
        game_over = d["ended_by"] == "game_over"
        self.eq("game over", game_over, s.game_over)
        if not game_over:
            self.check_turn(d)
            if d.get("legal_at_end") is not None:
                self.compare_legal(d["legal_at_end"])
            self.eq("END_TURN legal", True, (END_TURN, TRIBE_ACTOR, -1, -1) in s.legal_actions())
        # the end-of-turn step alone, on a copy: the trace's state is taken before the next
        # tribe's start of turn, which apply(END_TURN) also runs
        before = _deep_snapshot(s) if self.check_cow else None
        c = s.copy()
        c.end_turn()
        if self.check_cow and _deep_snapshot(s) != before:
            self.fail("copy-on-write", "the state unchanged by its copy's end of turn",
                      "an object shared with a copy was mutated in place",
                      note=_cow_note(before, _deep_snapshot(s)))
        self.s = c
        try:
            rec = {r["unit"]: r for r in d["auto_recovered"]}
            for uid, r in rec.items():
                self.eq(f"auto_recovered unit {uid}.hp", r["hp"],
                        c.units[uid].hp if uid in c.units else None)
            for uid in s.tribe_units(s.current):
                if uid in c.units and uid not in rec and c.units[uid].hp != s.units[uid].hp:
                    self.fail(f"unit {uid} auto-recovered", False, True)
            self.compare_full(d)
            self.eq("rng_total", d["rng_total"], c.rng.calls)
        finally:
            self.s = s
        if not game_over:
            pre = s.copy() if self.check_cow else None
            before = _deep_snapshot(pre) if self.check_cow else None
            s.apply((END_TURN, TRIBE_ACTOR, -1, -1))
            if self.check_cow and _deep_snapshot(pre) != before:
                self.fail("copy-on-write (END_TURN)", "the pre-action copy unchanged",
                          "an object shared with a copy was mutated in place",
                          note=_cow_note(before, _deep_snapshot(pre)))

    def compare_full(self, d: dict) -> None:
        s = self.s
        self.eq("tribe count", len(d["tribes"]), len(s.tribes))
        for tt in d["tribes"]:
            tid = tt["id"]
            self.eq_dict(f"tribe {tid}", {k: tt[k] for k in _FULL_KEYS}, tribe_full(s, tid),
                         _FULL_KEYS)
        self.compare_all_units(d["units"])
        self.compare_all_cities(d["cities"])
        self.compare_board(d["board"])

    def do_result(self, d: dict) -> None:
        s = self.s
        self.context = "result"
        self.eq("game over", True, s.game_over)
        self.eq("winner", d["winner"], s.winner())
        self.eq("ranking", [r["tribe"] for r in d["ranking"]], s.ranking())
        self.eq("rng_total", d["rng_total"], s.rng.calls)
        self.result.rng_total = s.rng.calls
        self.eq("scores", [d["scores"][str(t)] if isinstance(d["scores"], dict) else d["scores"][t]
                           for t in range(len(s.tribes))], s.scores())
        for r in d["ranking"]:
            tid = r["tribe"]
            t = s.tribes[tid]
            self.eq(f"tribe {tid}.result", r["result"], RESULT_NAMES[t.result])
            self.eq(f"tribe {tid}.n_techs", r["n_techs"], t.n_techs())
            self.eq(f"tribe {tid}.n_cities", r["n_cities"], len(t.cities))
            self.eq(f"tribe {tid}.production", r["production"], s.production(tid))

    # ------------------------------------------------------------------ state comparisons
    def compare_unit(self, tu: dict) -> None:
        s = self.s
        uid = tu["id"]
        u = s.units.get(uid)
        if u is None:
            self.fail(f"unit {uid}", f"{tu['type']} of tribe {tu['tribe']} at {tu['pos']}",
                      "no such unit")
        got = unit_snapshot(s, u)
        exp = _trace_unit(tu)
        if exp.get("orphan") and got.get("orphan"):  # an orphan's home is not comparable
            exp.pop("home"), got.pop("home")
        self.eq_dict(f"unit {uid}", exp, got)

    def compare_city(self, tc: dict) -> None:
        s = self.s
        cid = tc["id"]
        c = s.cities.get(cid)
        if c is None:
            self.fail(f"city {cid}", f"a city at {tc['pos']}", "no such city")
        self.eq_dict(f"city {cid}", _trace_city(tc), city_snapshot(s, c))

    def compare_all_units(self, units: list[dict]) -> None:
        s = self.s
        ids = [u["id"] for u in units]
        extra = sorted(set(s.units) - set(ids))
        if extra:
            u = s.units[extra[0]]
            self.fail("units", f"no unit {extra[0]}",
                      f"unit {extra[0]} ({K.UNIT_NAMES[u.type]} of tribe {u.tribe} at {_xy(s, u.pos)})")
        for tu in units:
            self.compare_unit(tu)

    def compare_all_cities(self, cities: list[dict]) -> None:
        s = self.s
        ids = [c["id"] for c in cities]
        self.eq("city ids", sorted(ids), sorted(s.cities))
        for tc in cities:
            self.compare_city(tc)

    def compare_board(self, b: dict) -> None:
        s = self.s
        got = board_snapshot(s)
        for k in ("terrain", "resource", "owner"):
            for x, (e, g) in enumerate(zip(b[k], got[k])):
                if e != g:
                    y = next(j for j in range(len(e)) if e[j] != g[j])
                    self.fail(f"board {k} at [{x}, {y}]", e[y], g[y], note=f"row {x}")
        self.eq("board buildings", sorted(list(x) for x in b["buildings"]), got["buildings"])
        self.eq("board roads", sorted(list(x) for x in b["roads"]), got["roads"])

    def compare_tile(self, tt: dict) -> None:
        s = self.s
        i = _idx(s, tt["pos"])
        exp = {k: tt[k] for k in ("terrain", "resource", "building", "road", "owner")}
        self.eq_dict(f"tile {tt['pos']}", exp, tile_snapshot(s, i))

    def compare_legal(self, legal: dict) -> None:
        s = self.s
        acts = s.legal_actions()
        got = Counter(ACTION_NAMES[a[0]] for a in acts)
        exp = legal["by_type"]
        for k in sorted(set(exp) | set(got)):
            if exp.get(k, 0) != got.get(k, 0):
                self.fail(f"legal.by_type[{k}]", exp.get(k, 0), got.get(k, 0),
                          note=self._legal_note(k, acts))
        self.eq("legal.n", legal["n"], len(acts))
        if "moves" in legal:
            per_unit = Counter(a[1] for a in acts if a[0] == MOVE)
            got_moves = sorted([*_xy(s, s.units[uid].pos), n] for uid, n in per_unit.items())
            exp_moves = sorted(list(m) for m in legal["moves"])
            if got_moves != exp_moves:
                exp_set = {tuple(m) for m in exp_moves}
                got_set = {tuple(m) for m in got_moves}
                self.fail("legal.moves [x, y, n]", sorted(exp_set - got_set),
                          sorted(got_set - exp_set), note=self._moves_note(exp_set - got_set))

    def _legal_note(self, kind: str, acts) -> str:
        s = self.s
        k = ACTION_OF_NAME[kind]
        mine = [s.describe(a) for a in acts if a[0] == k]
        return "engine offers: " + "; ".join(mine[:40])

    def _moves_note(self, missing) -> str:
        s = self.s
        notes = []
        for x, y, _ in sorted(missing):
            uid = s.unit_at[x * s.size + y]
            if uid:
                u = s.units[uid]
                dests = {tuple(_xy(s, t)): c for t, c in reachable(s, uid).items()}
                notes.append(f"unit {uid} {K.UNIT_NAMES[u.type]} {K.STATUS_NAMES[u.status]} "
                             f"at [{x}, {y}] reaches {sorted(dests.items())}")
        return "; ".join(notes)

    # ------------------------------------------------------------------ actions
    def build_action(self, d: dict) -> tuple:
        s = self.s
        kind_name = d["type"]
        if kind_name not in ACTION_OF_NAME:
            self.fail("action type", "a type the engine knows", kind_name)
        kind = ACTION_OF_NAME[kind_name]
        actor = d["actor"]
        if kind in UNIT_ACTIONS:
            uid = actor["unit"]
            u = s.units.get(uid)
            if u is None:
                self.fail(f"actor unit {uid}", f"{actor['type']} at {actor['pos']}", "no such unit")
            self.eq_dict(f"actor unit {uid}",
                         {k: actor[k] for k in ("type", "pos", "hp", "tribe", "status")},
                         {k: v for k, v in unit_snapshot(s, u).items()
                          if k in ("type", "pos", "hp", "tribe", "status")})
            if kind == MOVE:
                return (MOVE, uid, _idx(s, d["dest"]), -1)
            if kind_name in ("ATTACK", "CONVERT"):
                tgt = d["target"]
                tu = s.units.get(tgt["unit"])
                if tu is None:
                    self.fail(f"target unit {tgt['unit']}", f"{tgt['type']} at {tgt['pos']}",
                              "no such unit")
                self.eq_dict(f"target unit {tgt['unit']}",
                             {k: tgt[k] for k in ("type", "pos", "hp", "tribe", "status")},
                             {k: v for k, v in unit_snapshot(s, tu).items()
                              if k in ("type", "pos", "hp", "tribe", "status")})
                return (kind, uid, tgt["unit"], -1)
            if kind_name == "CAPTURE":
                return (kind, uid, _idx(s, d["target_pos"]), -1)
            if kind_name == "EXAMINE":
                return (kind, uid, _idx(s, d["ruins_pos"]), -1)
            return (kind, uid, -1, -1)
        if kind in CITY_ACTIONS:
            cid = actor["city"]
            c = s.cities.get(cid)
            if c is None:
                self.fail(f"actor city {cid}", f"a city at {actor['pos']}", "no such city")
            self.eq(f"actor city {cid}.pos", actor["pos"], _xy(s, c.pos))
            self.eq(f"actor city {cid}.level", actor["level"], c.level)
            if kind_name == "LEVEL_UP":
                return (kind, cid, K.BONUS_OF_NAME[d["bonus"]], -1)
            if kind_name == "SPAWN":
                return (kind, cid, K.UNIT_OF_NAME[d["unit_type"]], -1)
            tile = _idx(s, d["tile"])
            if kind == BUILD:
                return (kind, cid, tile, K.BUILDING_OF_NAME[d["building"]])
            if kind_name == "DESTROY":
                self.eq("building to destroy", d["building"], K.BUILDING_NAMES[s.building[tile]])
            if kind_name == "RESOURCE_GATHERING":
                self.eq("resource to gather", d["resource"], K.RESOURCE_NAMES[s.resource[tile]])
            return (kind, cid, tile, -1)
        self.eq("actor tribe", actor["tribe"], s.current)
        if kind == RESEARCH_TECH:
            return (kind, TRIBE_ACTOR, K.TECH_OF_NAME[d["tech"]], -1)
        if kind == BUILD_ROAD:
            return (kind, TRIBE_ACTOR, _idx(s, d["tile"]), -1)
        return (kind, TRIBE_ACTOR, -1, -1)

    def do_action(self, d: dict) -> None:
        s = self.s
        self.context = f"tick {d['tick']}, tribe {d['tribe']}"
        self.check_turn(d)
        self.eq("game over before the action", False, s.game_over)
        a = self.build_action(d)
        self.context += f", {s.describe(a)}"
        if "legal" in d:
            self.compare_legal(d["legal"])
        if a not in s.legal_actions():
            self.fail("action legal", True, False, note=self._illegal_note(a))
        if d["type"] == "EXAMINE":
            f = rules.Forced()
            out = d["outcome"]
            f.ruins_bonus = K.RUINS_BONUS_NAMES.index(out["bonus"])
            if out.get("tech"):
                f.ruins_tech = K.TECH_OF_NAME[out["tech"]]
            s.forced = f
        pre = s.copy()  # also rotates s's write token: every object written below is cloned
        pre_deep = _deep_snapshot(pre) if self.check_cow else None
        calls = s.rng.calls
        s.apply(a)
        s.forced = None
        drawn = s.rng.calls - calls
        if self.check_cow:
            after = _deep_snapshot(pre)
            if after != pre_deep:
                self.fail("copy-on-write", "the pre-action copy unchanged",
                          "an object shared with a copy was mutated in place",
                          note=_cow_note(pre_deep, after))
        self.eq("rng_calls (generator draws)", d.get("rng_calls", 0), drawn)
        if d["type"] == "EXAMINE":
            # the outcome was forced, but the engine drew as the reference did: its own
            # draw must be the recorded one
            self.eq("ruins bonus drawn by the engine", out["bonus"],
                    K.RUINS_BONUS_NAMES[f.drawn_bonus] if f.drawn_bonus is not None else None)
            if out.get("tech"):
                self.eq("ruins tech drawn by the engine", out["tech"],
                        K.TECH_NAMES[f.drawn_tech] if f.drawn_tech is not None else None)
        for tc in d["check"]:
            tid = tc["id"]
            self.eq_dict(f"check tribe {tid}", {k: tc[k] for k in _CHECK_KEYS},
                         tribe_check(s, tid), _CHECK_KEYS)
        self.compare_diff(d["diff"], pre)
        self.compare_outcome(d, a)

    def compare_outcome(self, d: dict, a: tuple) -> None:
        s = self.s
        out = d.get("outcome") or {}
        if d["type"] == "ATTACK" and "attacker_pos" in out:
            uid = out.get("attacker_new_unit", a[1])
            if uid in s.units:
                self.eq("outcome.attacker_pos", out["attacker_pos"], _xy(s, s.units[uid].pos))

    def compare_diff(self, diff: dict, pre) -> None:
        s = self.s
        listed_units = set()
        for tu in diff["units"]:
            self.compare_unit(tu)
            listed_units.add(tu["id"])
        removed = set()
        for r in diff["units_removed"]:
            removed.add(r["id"])
            if r["id"] in s.units:
                u = s.units[r["id"]]
                self.fail(f"unit {r['id']} removed", True, False,
                          note=f"still a {K.UNIT_NAMES[u.type]} at {_xy(s, u.pos)}")
        for uid, u in s.units.items():
            if uid in listed_units:
                continue
            old = pre.units.get(uid)
            if old is None:
                self.fail(f"unit {uid}", "no new unit",
                          f"new {K.UNIT_NAMES[u.type]} at {_xy(s, u.pos)}")
            if old is not u and _unit_fields(old) != _unit_fields(u):
                e, g = unit_snapshot(pre, old), unit_snapshot(s, u)
                k = next((k for k in g if e.get(k) != g.get(k)), "?")
                self.fail(f"unit {uid}.{k} (not changed in the trace)", e.get(k), g.get(k))
        for uid in pre.units:
            if uid not in s.units and uid not in removed:
                self.fail(f"unit {uid}", "still present", "removed by the engine")
        listed_cities = set()
        for tc in diff["cities"]:
            self.compare_city(tc)
            listed_cities.add(tc["id"])
        for cid, c in s.cities.items():
            if cid in listed_cities:
                continue
            old = pre.cities.get(cid)
            if old is None:
                self.fail(f"city {cid}", "no new city", f"new city at {_xy(s, c.pos)}")
            if old is not c and _city_fields(old) != _city_fields(c):
                e, g = city_snapshot(pre, old), city_snapshot(s, c)
                k = next((k for k in g if e.get(k) != g.get(k)), "?")
                self.fail(f"city {cid}.{k} (not changed in the trace)", e.get(k), g.get(k))
        listed_tiles = set()
        for tt in diff["tiles"]:
            self.compare_tile(tt)
            listed_tiles.add(_idx(s, tt["pos"]))
        for i in range(s.size * s.size):
            if i not in listed_tiles and _tile_key(pre, i) != _tile_key(s, i):
                e, g = tile_snapshot(pre, i), tile_snapshot(s, i)
                k = next(k for k in g if e[k] != g[k])
                self.fail(f"tile {_xy(s, i)}.{k} (not changed in the trace)", e[k], g[k])

    def _illegal_note(self, a: tuple) -> str:
        s = self.s
        same_actor = [s.describe(b) for b in s.legal_actions() if b[1] == a[1] and b[0] == a[0]]
        note = f"engine offers for this actor and type: {same_actor[:30]}"
        if a[0] == MOVE:
            dests = {tuple(_xy(s, t)): c for t, c in reachable(s, a[1]).items()}
            note += f"; reachable with cost: {sorted(dests.items())}"
        return note


def _cow_note(before, after) -> str:
    for name, b, a in zip(("unit", "city"), before[:2], after[:2]):
        for k in b:
            if k in a and a[k] != b[k]:
                return f"{name} {k}: {b[k]} -> {a[k]}"
    for b, a in zip(before[2], after[2]):
        if a != b:
            return f"tribe {b[0]}: {b} -> {a}"
    return ""


def replay_game(game: str, reference_bugs: bool = True, directory: Path = TRACES_DIR,
                check_cow: bool = False) -> ReplayResult:
    lines = load_trace(trace_path(game, directory))
    return Replayer(lines, game, reference_bugs, check_cow).run()


def main(argv: list[str]) -> int:
    fixed = "--fixed" in argv
    cow = "--cow" in argv
    games = [a for a in argv if not a.startswith("--")] or list(MAIN_GAMES)
    bad = 0
    for g in games:
        for ref in ((False,) if fixed else (True,)):
            r = replay_game(g, reference_bugs=ref, check_cow=cow)
            print(r.summary())
            bad += not r.ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
