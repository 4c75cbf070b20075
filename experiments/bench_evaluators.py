"""Leaf evaluations per second on Tribes: the `diff` heuristic, the learned evaluator and two
playouts, on a fixed set of positions (Prismata's Table II, for Tribes).

The positions are the turn starts of rule-based self-play games on the first `--levels`
generated levels (game and agent seeds fixed, at most `--rounds` rounds), every
`--every`-th one kept; each method evaluates every position from the view of the player to
move. A repeat times one pass over the positions; the figure is the median of `--repeats`
repeats (playouts: over the first `--playout-positions` positions). Printed as a Markdown
table (one process, one core).

Methods:
* `diff`: the hand-made difference heuristic (the game's default), wrapped as agents get it.
* `learned`: the evaluator `learned` (the shipped default model), as agents get it: the
  encoding plus the numpy forward pass that sums the first layer's rows of the ones.
* the learned model's parts and alternatives: the encoding alone; the forward pass alone
  (sparse rows, as above); a dense numpy forward pass (a 0/1 vector times the weights); and
  scikit-learn's `predict_proba` on one state at a time (the same weights in an
  `MLPClassifier`), the call a search would make if it kept the trained object.
* `playout rule-based to end`: Prismata's symmetric playout: both players are the rule-based
  player until the game ends (or its round limit), worth +1 / -1 for the winner.
* `playout random 2 turns + diff`: uniformly random actions (the search's random policy)
  until two whole turns have ended, then `diff` (a cut playout, as MCTS rollouts are).

    python experiments/bench_evaluators.py [--levels 3] [--rounds 30] [--every 3]
        [--repeats 5] [--playout-positions 12]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from agents.encodings import get_encoding
from agents.evaluators import make_evaluator
from agents.learned import load_model, model_path
from agents.search import hooks_for, random_action
from games.api import ends_turn
from games.registry import get_game
from play.runner import play_game
from play.specs import parse_agent_spec

GAME = "tribes"


def positions(levels: int, rounds: int, every: int) -> list:
    """Turn starts of rule-based self-play games (copies), every `every`-th one."""
    g = get_game(GAME)
    out = []
    for level in range(1, levels + 1):
        state = g.new_state(level, level, max_rounds=rounds)
        agents = [parse_agent_spec("rule_based", seed=10 * level + p, game=GAME) for p in (0, 1)]
        seen = [state.copy()]
        play_game(state, agents, on_turn_end=lambda s: None if s.is_terminal()
                  else seen.append(s.copy()))
        out.extend(seen[::every])
    return out


def rate(fn, states, repeats: int) -> tuple[float, float]:
    """(evaluations per second, microseconds per evaluation), median of `repeats` passes."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for s in states:
            fn(s)
        times.append(time.perf_counter() - t0)
    t = statistics.median(times)
    return len(states) / t, 1e6 * t / len(states)


def symmetric_playout(seed: int):
    def run(s) -> float:
        me = s.current_player
        state = s.copy()
        agents = [parse_agent_spec("rule_based", seed=seed + p, game=GAME)
                  for p in range(state.num_players)]
        play_game(state, agents)
        w = state.winner()
        return 0.0 if w is None else 1.0 if w == me else -1.0
    return run


def random_playout(turns: int, seed: int):
    diff = make_evaluator(GAME, "diff")
    hooks = hooks_for(GAME)
    rng = np.random.default_rng(seed)

    def run(s) -> float:
        me = s.current_player
        state = s.copy()
        ended = 0
        while ended < turns and not state.is_terminal():
            a = random_action(state, rng, hooks)
            if ends_turn(state, a):
                ended += 1
            state.apply(a)
        return diff.evaluate(s, state, me)
    return run


def sklearn_model(model):
    from sklearn.neural_network import MLPClassifier
    clf = MLPClassifier(hidden_layer_sizes=tuple(model.layers[1:-1]), activation=model.activation)
    clf.coefs_ = [w.astype(np.float64) for w in model.weights]
    clf.intercepts_ = [b.astype(np.float64) for b in model.biases]
    clf.n_layers_, clf.out_activation_, clf.n_outputs_ = len(model.layers), "logistic", 1
    clf.classes_ = np.array([-1, 1])
    return clf


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--playout-positions", type=int, default=12)
    args = ap.parse_args()

    states = positions(args.levels, args.rounds, args.every)
    few = states[:args.playout_positions]
    enc = get_encoding(GAME)
    path = model_path(GAME, None)
    model = load_model(path, GAME)
    diff = make_evaluator(GAME, "diff")
    learned = make_evaluator(GAME, "learned")
    encoded = {id(s): enc.active(s, s.current_player) for s in states}
    dense = {id(s): enc.vector(s, s.current_player)[None, :] for s in states}
    clf = sklearn_model(model)
    check = [(learned.evaluate(s, s, s.current_player),
              2 * clf.predict_proba(dense[id(s)])[0, 1] - 1) for s in states[:20]]
    gap = max(abs(a - b) for a, b in check)

    rows = [
        ("diff (heuristic)", rate(lambda s: diff.evaluate(s, s, s.current_player), states,
                                  args.repeats)),
        ("learned (encoding + numpy sparse forward)",
         rate(lambda s: learned.evaluate(s, s, s.current_player), states, args.repeats)),
        ("  encoding alone", rate(lambda s: enc.active(s, s.current_player), states, args.repeats)),
        ("  numpy sparse forward alone", rate(lambda s: model.value(encoded[id(s)]), states,
                                              args.repeats)),
        ("  numpy dense forward alone", rate(lambda s: model.values(dense[id(s)]), states,
                                             args.repeats)),
        ("  scikit-learn predict_proba alone, one state", rate(
            lambda s: clf.predict_proba(dense[id(s)]), states, args.repeats)),
        ("playout rule-based to end", rate(symmetric_playout(7), few, 1)),
        ("playout random 2 turns + diff", rate(random_playout(2, 7), few, args.repeats)),
    ]
    print(f"{len(states)} positions (turn starts of rule-based games on levels 1-{args.levels}, "
          f"at most {args.rounds + 1} rounds, one in {args.every}); playouts on the first "
          f"{len(few)}; median of {args.repeats} repeats (rule-based playout: 1). Model "
          f"{path.name}: layers {model.layers}. Largest gap numpy vs scikit-learn: {gap:.1e}. "
          f"Python {platform.python_version()}, {platform.machine()}, one process.")
    print()
    print("| evaluation | evaluations / s | microseconds each |")
    print("|---|---|---|")
    for name, (per_s, us) in rows:
        print(f"| {name} | {per_s:,.0f} | {us:,.1f} |")


if __name__ == "__main__":
    main()
