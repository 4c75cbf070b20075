"""The conformance check every game plug-in passes: random play to the end over many seeds,
with the protocol's invariants checked after every action.

    from games.conformance import check_game
    report = check_game("tribes", seeds=range(5), options={"max_rounds": 10})

Checked for every game and seed:

* the game builds a state from each level it names; `tick` starts at 0 and never decreases;
* before the end, `legal_actions()` is non-empty, has no duplicates, and
  `actions_by_actor()` holds exactly the same actions; every action has a type name, a
  description and a data form that survives JSON and turns back into the same action;
* copies are independent: an action applied to a copy leaves the original unchanged (its
  player, round, legal actions, scores, events and end, and the whole state as
  `state_digest` sees it, hidden parts included); a failure names the first attribute that
  changed (`first_difference`);
* an illegal action raises `IllegalAction` (an object that is no action, and an action that
  was legal earlier and is not now) and leaves the whole state unchanged (the same);
* same seed, same game: the game is played twice from the same seeds and gives the same
  actions, events and results;
* results are consistent: `winner()` is None until the end; at the end the ranking is a
  permutation of the players led by the winner (if any), `scores()` has one number per
  player and `summary(p)` starts with "score";
* the game ends within `max_actions`.

The search agents' side (every agent builds by name for the game and spends its
forward-model budget exactly) is `agents.conformance.check_agents`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from base.limits import short
from games.api import IllegalAction, ends_turn
from games.registry import get_game


class ConformanceError(AssertionError):
    """A game breaks the protocol; the message names the game, seed, action index and rule."""


@dataclass
class ConformanceReport:
    game: str
    games: int = 0
    actions: int = 0
    turns: int = 0
    draws: int = 0
    wins: dict[int, int] = field(default_factory=dict)


def _fail(game: str, seed: int, step: int, msg: str) -> ConformanceError:
    return ConformanceError(f"{game}: seed {seed}, action {step}: {msg}")


def _view(state) -> tuple:
    """What the protocol shows of a state (a copy shows the same)."""
    over = state.is_terminal()
    return (state.current_player if not over else None, state.tick, over,
            tuple(state.legal_actions()) if not over else (), tuple(state.scores()),
            len(state.events()))


SNAPSHOT_NODES = 1_000_000
"""The most values `state_digest` follows through a state without a `digest()` of its own."""


def state_digest(state: Any) -> Any:
    """The whole of a state, hidden parts included, as one comparable value: the state's own
    `digest()` when it defines one (an optional protocol method, e.g. a hash of everything it
    holds), else a snapshot of its attributes followed through containers and objects
    (numbers, text, lists, dicts, sets, numpy arrays and random generators included).
    Attributes whose names begin with an underscore are caches by this convention (e.g. a
    distance table that copies share and fill as they go) and are not part of the snapshot.

    Args:
        state: a game state.
    """
    own = getattr(state, "digest", None)
    if callable(own):
        return ("digest", own())
    return _snapshot(state, {}, [0])


def _snapshot(x: Any, seen: dict[int, int], count: list[int]) -> Any:
    count[0] += 1
    if count[0] > SNAPSHOT_NODES:
        raise ValueError(f"the state holds more than {SNAPSHOT_NODES} values; give it a "
                         "digest() method")
    if x is None or isinstance(x, (bool, int, float, complex, str, bytes)):
        return x
    if id(x) in seen:  # a value met before: the same object again, not its content
        return ("ref", seen[id(x)])
    seen[id(x)] = len(seen)
    if isinstance(x, tuple) and len(x) > 1 and isinstance(x[0], tuple) and len(x[0]) == len(x):
        # a linked list of cells (previous, ...) such as an event log: walked, not recursed
        # into, so that its length is not the recursion's depth
        cells, node = [], x
        while isinstance(node, tuple) and len(node) == len(x):
            count[0] += 1
            cells.append(("seq", "cell", tuple(_snapshot(v, seen, count) for v in node[1:])))
            node = node[0]
        return ("chain", _snapshot(node, seen, count), tuple(reversed(cells)))
    if isinstance(x, (list, tuple)):
        return ("seq", type(x).__name__, tuple(_snapshot(v, seen, count) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple((_snapshot(k, seen, count), _snapshot(v, seen, count))
                              for k, v in x.items()))
    if isinstance(x, (set, frozenset)):
        return ("set", tuple(sorted(map(repr, x))))
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.random.Generator):
        return ("generator", repr(x.bit_generator.state))
    getstate = getattr(x, "getstate", None)  # random.Random and its kind
    if callable(getstate) and hasattr(x, "setstate"):
        return ("random", getstate())
    if callable(x) or isinstance(x, type):
        return ("code", getattr(x, "__qualname__", type(x).__name__))
    fields: dict[str, Any] = {k: v for k, v in getattr(x, "__dict__", {}).items()
                              if not k.startswith("_")}
    for slots in (getattr(c, "__slots__", ()) for c in type(x).__mro__):
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in fields and not name.startswith("_") and hasattr(x, name):
                fields[name] = getattr(x, name)
    if not fields:
        return ("object", type(x).__qualname__, repr(x))
    return ("fields", type(x).__qualname__, tuple((k, _snapshot(v, seen, count))
                                                  for k, v in sorted(fields.items())))


def first_difference(a: Any, b: Any, path: str = "state") -> str | None:
    """Where two snapshots of `state_digest` first differ, as an attribute path with both
    values (`state.tribes[0].stars: 5 -> 7`); None when they are equal. A state with its own
    `digest()` is compared whole.

    Args:
        a: the snapshot before.
        b: the snapshot after.
        path: the name of the snapshot's root.
    """
    if a == b:
        return None
    tag = a[0] if isinstance(a, tuple) and a else None
    if not (isinstance(b, tuple) and b and b[0] == tag and len(a) == len(b)) \
            or tag in ("digest", "ref", "set", "array", "generator", "random", "code", "object"):
        what = {"digest": " (its digest())", "ref": " (which object it shares)"}.get(tag, "")
        return f"{path}{what}: {_shown(a)} -> {_shown(b)}"
    if tag in ("seq", "fields") and a[1] != b[1]:
        return f"{path}: a {a[1]} -> a {b[1]}"
    if tag == "fields":
        keys_a, keys_b = [k for k, _ in a[2]], [k for k, _ in b[2]]
        if keys_a != keys_b:
            gone, new = sorted(set(keys_a) - set(keys_b)), sorted(set(keys_b) - set(keys_a))
            return f"{path}: attributes {gone} -> {new}"
        return next((d for (k, x), (_, y) in zip(a[2], b[2])
                     if (d := first_difference(x, y, f"{path}.{k}")) is not None), path)
    if tag == "dict":
        for (ka, va), (kb, vb) in zip(a[1], b[1]):
            if ka != kb:
                return f"{path}: key {_shown(ka)} -> {_shown(kb)}"
            d = first_difference(va, vb, f"{path}[{_shown(ka)}]")
            if d is not None:
                return d
        return f"{path}: {len(a[1])} keys -> {len(b[1])}"
    if tag not in ("seq", "chain"):
        return f"{path}: {_shown(a)} -> {_shown(b)}"
    if tag == "chain" and a[1] != b[1]:  # (a linked list's end, past its cells)
        return first_difference(a[1], b[1], f"{path} (end)")
    for i, (x, y) in enumerate(zip(a[2], b[2])):
        d = first_difference(x, y, f"{path}[{i}]")
        if d is not None:
            return d
    return f"{path}: {len(a[2])} items -> {len(b[2])}"


def _shown(snapshot: Any) -> str:
    """A snapshot in a message: a plain value as itself, a container by its kind."""
    if snapshot is None or isinstance(snapshot, (bool, int, float, complex, str, bytes)):
        return short(snapshot, 40)
    if isinstance(snapshot, tuple) and len(snapshot) == 2 and snapshot[0] == "digest":
        return short(snapshot[1], 40)
    return f"<{snapshot[0]}>" if isinstance(snapshot, tuple) and snapshot else "<value>"


def _play(game_name: str, game, level: Any, seed: int, options: dict[str, Any],
          max_actions: int, report: ConformanceReport | None) -> tuple[list, Any]:
    rng = np.random.default_rng(seed)
    state = game.new_state(level, seed, **options)
    fail = lambda step, msg: _fail(game_name, seed, step, msg)  # noqa: E731
    if state.tick != 0:
        raise fail(0, f"tick starts at {state.tick}, not 0")
    if getattr(state, "game_name", None) != game_name:
        raise fail(0, f"state.game_name is {getattr(state, 'game_name', None)!r}, "
                      f"expected {game_name!r}")
    n = state.num_players
    actions: list = []
    seen: list = []
    tick = 0
    for step in range(max_actions + 1):
        if state.is_terminal():
            break
        if step == max_actions:
            raise fail(step, f"no end within {max_actions} actions")
        if state.winner() is not None:
            raise fail(step, "winner() is not None before the end")
        legal = list(state.legal_actions())
        if not legal:
            raise fail(step, "no legal action before the end")
        if len(set(legal)) != len(legal):
            raise fail(step, "legal_actions() lists an action twice")
        if not 0 <= state.current_player < n:
            raise fail(step, f"current_player {state.current_player} not in 0..{n - 1}")
        grouped = [a for types in state.actions_by_actor().values()
                   for acts in types.values() for a in acts]
        if sorted(map(repr, grouped)) != sorted(map(repr, legal)):
            raise fail(step, "actions_by_actor() does not hold exactly the legal actions")
        a = legal[int(rng.integers(len(legal)))]
        if step % 7 == 0:
            _check_action_forms(game, state, a, fail, step)
            _check_copy(state, a, fail, step)
            _check_illegal(state, seen, legal, fail, step)
        seen.append(a)
        if len(seen) > 64:
            seen.pop(0)
        turn_over = ends_turn(state, a)
        state.apply(a)
        actions.append(a)
        if report is not None:
            report.actions += 1
            report.turns += int(turn_over)
        if state.tick < tick:
            raise fail(step, f"tick went back from {tick} to {state.tick}")
        tick = state.tick
    _check_results(state, n, lambda msg: fail(len(actions), msg))
    if report is not None:
        report.games += 1
        w = state.winner()
        if w is None:
            report.draws += 1
        else:
            report.wins[w] = report.wins.get(w, 0) + 1
    return actions, state


def _check_action_forms(game, state, a, fail, step) -> None:
    if not isinstance(state.action_type_name(a), str) or not isinstance(state.describe(a), str):
        raise fail(step, f"action_type_name / describe of {a!r} is not text")
    data = json.loads(json.dumps(game.action_to_data(a)))
    if game.action_from_data(data) != a:
        raise fail(step, f"{a!r} does not survive action_to_data / JSON / action_from_data")


def _check_copy(state, a, fail, step) -> None:
    before = _view(state)
    c = state.copy()
    if _view(c) != before:
        raise fail(step, "a copy differs from its original")
    whole = state_digest(state)
    c.apply(a)
    if _view(state) != before:
        raise fail(step, f"applying {a!r} to a copy changed the original")
    after = state_digest(state)
    if after != whole:
        raise fail(step, f"applying {a!r} to a copy changed the original's hidden state (the "
                         f"first difference: {first_difference(whole, after)}; does copy() "
                         f"share a list, dict or object with its original?)")


def _check_illegal(state, seen, legal, fail, step) -> None:
    before = (_view(state), state_digest(state))
    legal_set = set(legal)
    stale = next((b for b in reversed(seen) if b not in legal_set), None)
    for bad in (object(), stale):
        if bad is None:
            continue
        try:
            state.apply(bad)
        except IllegalAction:
            pass
        except Exception as e:  # noqa: BLE001 - the wrong error is the finding
            raise fail(step, f"an illegal action raised {type(e).__name__}, not IllegalAction: "
                             f"{e}") from None
        else:
            raise fail(step, f"the illegal action {bad!r} was applied without an error")
        after = (_view(state), state_digest(state))
        if after != before:
            where = first_difference(before[1], after[1]) or "what the protocol shows"
            raise fail(step, f"the refused action {bad!r} changed the state (the first "
                             f"difference: {where})")


def _check_results(state, n: int, fail) -> None:
    ranking = list(state.ranking())
    if sorted(ranking) != list(range(n)):
        raise fail(f"ranking {ranking} is not a permutation of the {n} players")
    w = state.winner()
    if w is not None and ranking[0] != w:
        raise fail(f"the winner {w} does not lead the ranking {ranking}")
    if len(state.scores()) != n:
        raise fail(f"scores() has {len(state.scores())} numbers for {n} players")
    for p in range(n):
        s = state.summary(p)
        if not s or next(iter(s)) != "score":
            raise fail(f"summary({p}) does not start with 'score': {list(s)[:3]}")
        if not isinstance(state.player_name(p), str):
            raise fail(f"player_name({p}) is not text")


def check_game(name: str, seeds: Iterable[int] = range(10), level: Any = None,
               options: dict[str, Any] | None = None,
               max_actions: int = 100_000) -> ConformanceReport:
    """Play random games of the game `name` to the end and check the protocol; raises
    `ConformanceError` at the first broken rule.

    Args:
        name: the registered game.
        seeds: one game per seed (game seed and random player), on the game's default
            levels in turn unless `level` is given.
        level: the level of every game (default: the game's default level set).
        options: game options (e.g. a round limit that keeps games short).
        max_actions: a game that has not ended after this many actions fails.
    """
    game = get_game(name)
    options = dict(options or {})
    levels = [level] if level is not None else game.level_set(game.default_levels)
    report = ConformanceReport(name)
    for k, seed in enumerate(seeds):
        lv = levels[k % len(levels)]
        actions, end = _play(name, game, lv, seed, options, max_actions, report)
        again, end2 = _play(name, game, lv, seed, options, max_actions, None)
        if again != actions:
            i = next((i for i, (x, y) in enumerate(zip(actions, again)) if x != y),
                     min(len(actions), len(again)))
            raise _fail(name, seed, i, "the same seed played a different game")
        if end.events() != end2.events() or end.scores() != end2.scores() \
                or end.winner() != end2.winner():
            raise _fail(name, seed, len(actions), "the same game ended differently")
    return report
