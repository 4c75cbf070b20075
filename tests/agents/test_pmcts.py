"""Portfolio MCTS: the pruning schedule, pruning by weighted priors, selection at opponent
nodes, the lazy uniform rollout sampler, exact budgets, reproducibility, legality, parameters
and a strength check against the random agent.

Short games (a few rounds) and small budgets keep the whole file fast.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from functools import partial

import numpy as np
import pytest

from agents.portfolio import ACTION, ACTOR, SCRIPT, VALUE, WEIGHT, produce_assignments
from agents.portfolio import pmcts as P
from agents.portfolio.pmcts import PMCTSAgent, _PNode, sample_assignment, script_counts
from agents.portfolio.pruning import Pruner, Schedule
from agents.registry import make_agent
from games.registry import get_game
from games.tribes.level_sets import PAPER_SEEDS
from play.runner import play_game
from play.specs import parse_agent_spec
from tests.agents.counting import CountingState
from tests.agents.test_search_agents import play_recorded

GAME = get_game("tribes")
LEVEL = PAPER_SEEDS[0]

VARIANTS = {
    "pmcts": ("pmcts", {}),
    "pmcts_b": ("pmcts_b", {}),
    "pmcts_pu": ("pmcts_pu", {}),
    "pu-random-rollouts": ("pmcts_pu", {"rollouts": "random"}),
    "pu-no-rollouts": ("pmcts_pu", {"rollouts": False}),
    "pu-charged": ("pmcts_pu", {"charge_selection": True}),
    "pu-reference-portfolio": ("pmcts_pu", {"reference_portfolio": True, "final": "mean"}),
    "pu-prior-expansion": ("pmcts_pu", {"expansion": "prior"}),
}


def new_state(level=LEVEL, seed: int = 0, rounds: int = 5):
    return GAME.new_state(level, seed, max_rounds=rounds)


# ------------------------------------------------------------------------------ schedule
@pytest.mark.parametrize("n, expected", [
    (4, (8, 2, 12, [15, 20, 26, 34])),
    (10, (20, 5, 30, [39, 50, 65, 85, 111])),
    (20, (40, 10, 60, [78, 101, 131, 171])),
])
def test_schedule_matches_the_reference_worked_examples(n, expected):
    t, k_init, a, limits = expected
    assert Schedule().thresholds(n, len(limits)) == (t, k_init, a, limits)


def test_schedule_rejects_bad_constants():
    for bad in ({"alpha_k": 0}, {"alpha_t": -1}, {"a_mult": 0}, {"base": 0.9},
                {"base": float("nan")}, {"alpha_k": True}):
        with pytest.raises(ValueError):
            Schedule(**bad)
    with pytest.raises(ValueError):
        make_agent("pmcts_pu", game="tribes", base=0.5)


class _Child:
    def __init__(self, h: float) -> None:
        self.h = h


def test_pruner_prunes_at_t_and_unprunes_best_first_at_each_limit():
    """n = 4: everything selectable below 8 visits; the 2 best priors from 8 on; the third
    best after 15 visits, the last after 20; later limits change nothing."""
    children = [_Child(h) for h in (0.1, 0.4, 0.3, 0.2)]
    pr = Pruner(Schedule(), len(children))
    rng = np.random.default_rng(0)
    seen = {}
    for visits in range(4, 40):
        seen[visits] = sorted(ch.h for ch in pr.update(visits, children, rng))
    assert all(seen[v] == [0.1, 0.2, 0.3, 0.4] for v in range(4, 8))
    assert all(seen[v] == [0.3, 0.4] for v in range(8, 16))
    assert all(seen[v] == [0.2, 0.3, 0.4] for v in range(16, 21))
    assert all(seen[v] == [0.1, 0.2, 0.3, 0.4] for v in range(21, 40))
    assert pr.k == 5  # counted on at 26 and 34 with nothing left to unprune


def test_pruner_breaks_prior_ties_at_random():
    kept = set()
    for seed in range(20):
        children = [_Child(0.5) for _ in range(4)]
        pr = Pruner(Schedule(), 4)
        active = pr.update(8, children, np.random.default_rng(seed))
        kept.add(tuple(sorted(children.index(c) for c in active)))
    assert len(kept) > 1


# ------------------------------------------------------------------------------ pruning by weights
def _two_assignments(agent: PMCTSAgent, state):
    """The agent's own assignments (with its weights) of ResearchNaval and ResearchRoads in
    the start position (both propose a tier-1 tech: the same value v = 0.75)."""
    asg = produce_assignments(state, agent.portfolio, np.random.default_rng(0))
    out = [next(a for a in asg if a[SCRIPT] == name)
           for name in ("ResearchNaval", "ResearchRoads")]
    assert out[0][VALUE] == out[1][VALUE] > 0
    return out


@pytest.mark.parametrize("weights, survivor", [
    ({"ResearchNaval": 1.0, "ResearchRoads": 0.25}, "ResearchNaval"),
    ({"ResearchNaval": 0.25, "ResearchRoads": 1.0}, "ResearchRoads"),
])
def test_weights_decide_which_child_survives_pruning(weights, survivor):
    """A root with exactly two assignments: n = 2 gives T = 4 and k_init = 1, so after four
    iterations the fifth selection keeps only the child with the larger v·w."""
    state = new_state(seed=1)
    agent = make_agent("pmcts_pu", game="tribes", seed=0, budget=10 ** 6, weights=weights)
    me = state.current_player
    root = _PNode(state.copy(), None, None, 0, me)
    root.assignments = _two_assignments(agent, state)
    root.unexpanded = [0, 1]
    assert {a[SCRIPT]: a[WEIGHT] for a in root.assignments} == weights
    from agents.search import Budget
    b = Budget(10 ** 6)
    for _ in range(5):
        agent._iterate(root, root.state, me, b, 20)
    assert root.n == 5 and root.pruner is not None
    assert [ch.assignment[SCRIPT] for ch in root.pruner.active] == [survivor]
    assert [ch.assignment[SCRIPT] for ch in root.pruner.pruned] != [survivor]


def test_search_keeps_the_best_priors_at_the_root():
    """In a real search the root's selectable children are always those of highest v·w."""
    state = new_state(seed=2)
    agent = make_agent("pmcts_pu", game="tribes", seed=3, budget=1500)
    agent.act(state)
    root = agent.last_root
    pr = root.pruner
    n = len(root.assignments)
    t, k_init, a = agent.schedule.first(n)
    assert root.n >= t and pr is not None and pr.k >= 1
    unprunes = sum(1 for k in range(1, pr.k) if root.n - 1 > agent.schedule.limit(a, k))
    assert len(pr.active) == min(n, k_init + unprunes)
    assert min(ch.h for ch in pr.active) >= max((ch.h for ch in pr.pruned), default=0)


@pytest.mark.parametrize("budget", [1, 3])
def test_prior_expansion_expands_the_highest_priors_first(budget):
    """With expansion=prior the children a small budget expands are those of highest v·w;
    the default expands a random permutation (some lower prior first, for some seed)."""
    state = new_state(seed=2)
    agent = make_agent("pmcts_pu", game="tribes", seed=3, budget=budget, rollouts=False,
                       expansion="prior")
    agent.act(state)
    root = agent.last_root
    hs = sorted((a[VALUE] * a[WEIGHT] for a in root.assignments), reverse=True)
    got = sorted((ch.h for ch in root.children), reverse=True)
    assert len(hs) > budget and len(got) == budget
    assert got == pytest.approx(hs[:len(got)])
    lower = []
    for seed in range(5):
        plain = make_agent("pmcts_pu", game="tribes", seed=seed, budget=budget, rollouts=False)
        plain.act(new_state(seed=2))
        lower.append(min(ch.h for ch in plain.last_root.children) < hs[len(got) - 1] - 1e-12)
    assert any(lower)


def test_expansion_is_checked():
    with pytest.raises(ValueError, match="expansion: expected one of random, prior"):
        make_agent("pmcts_pu", game="tribes", expansion="best")


# ------------------------------------------------------------------------------ selection
class _Stub:
    def __init__(self, player: int) -> None:
        self.current_player = player

    def is_terminal(self) -> bool:
        return False


def _tree(opponent: bool, stats):
    """A node (the opponent's if `opponent`) with children of given (visits, mean, prior)."""
    me = 0
    node = _PNode(_Stub(1 if opponent else 0), None, None, 0, me)
    for k, (n, mean, h) in enumerate(stats):
        ch = _PNode(_Stub(0), node, (0, "S", ("a", k), h, 1.0), 1, me)
        ch.n, ch.total = n, n * mean
        node.children.append(ch)
        node.n += n
    node.lo = min(m for _, m, _ in stats) - 1
    node.hi = max(m for _, m, _ in stats) + 1
    return node


def _pick(agent, node):
    return agent._select(node).assignment[ACTION]


def test_own_nodes_maximise_and_opponent_nodes_minimise():
    agent = PMCTSAgent(game="tribes", seed=0, c=0.0)
    assert _pick(agent, _tree(False, [(5, 1.0, 0), (5, 9.0, 0)])) == ("a", 1)
    assert _pick(agent, _tree(True, [(5, 1.0, 0), (5, 9.0, 0)])) == ("a", 0)
    # exploration still rewards the less visited child where the opponent moves
    agent = PMCTSAgent(game="tribes", seed=0, c=1.0)
    assert _pick(agent, _tree(True, [(1, 5.0, 0), (20, 5.0, 0)])) == ("a", 0)
    # and so does the opponent's own prior under progressive bias
    agent = PMCTSAgent(game="tribes", seed=0, c=0.0, bias=True)
    assert _pick(agent, _tree(True, [(5, 5.0, 0.0), (5, 5.0, 0.9)])) == ("a", 1)
    assert _pick(agent, _tree(False, [(5, 5.0, 0.9), (5, 5.0, 0.0)])) == ("a", 0)


def test_pruned_children_are_never_selected_even_where_the_opponent_moves():
    """Opponent node with 4 children at T = 8 visits: the two of lowest prior are pruned,
    although one of them has by far the lowest (best for the opponent) value."""
    agent = make_agent("pmcts_pu", game="tribes", seed=0, c=0.0, bias=False)
    picks = set()
    for _ in range(10):
        node = _tree(True, [(2, -50.0, 0.1), (2, 3.0, 0.2), (2, 4.0, 0.3), (2, 5.0, 0.4)])
        picks.add(_pick(agent, node))
    assert picks == {("a", 2)}


def test_no_child_is_forced_before_the_first_prune():
    """Before T visits every child is selectable and UCB decides (the reference always took
    child 0 there)."""
    agent = make_agent("pmcts_pu", game="tribes", seed=0, c=0.0)
    node = _tree(False, [(1, 0.0, 0.5), (1, 1.0, 0.5), (1, 7.0, 0.5), (1, 2.0, 0.5)])
    assert node.n < 8 and _pick(agent, node) == ("a", 2)


# ------------------------------------------------------------------------------ assignments
def test_rollout_sampler_draws_as_a_uniform_pick_from_all_assignments():
    """The lazy sampler against a uniform pick from a full generation, by (actor, script)
    frequencies. (Tie-breaks inside scripts make the assignment list itself random, so both
    sides are estimated.)"""
    s = new_state(seed=5, rounds=10)
    rng = np.random.default_rng(1)
    for _ in range(60):  # a position with several actors
        acts = s.legal_actions()
        s.apply(acts[int(rng.integers(len(acts)))])
    pf = make_agent("pmcts", game="tribes").portfolio
    counts_of = script_counts(pf)
    draws = 3000
    lazy, full = Counter(), Counter()
    for _ in range(draws):
        a = sample_assignment(s, pf, counts_of, rng)
        lazy[(a[ACTOR], a[SCRIPT])] += 1
        asg = produce_assignments(s, pf, rng)
        a = asg[int(rng.integers(len(asg)))]
        full[(a[ACTOR], a[SCRIPT])] += 1
    assert len(full) >= 6 and len({k[0] for k in full}) >= 3
    for key in set(lazy) | set(full):
        x, y = lazy[key], full[key]
        assert abs(x - y) <= 5 * (x + y + 4) ** 0.5, (key, x, y)


def test_assignments_are_generated_once_per_node(monkeypatch):
    calls = []
    real = P.produce_assignments

    def spy(state, pf, rng, ctx=None):
        if ctx is None:  # the full generation of a node (the sampler passes its context)
            calls.append(id(state))
        return real(state, pf, rng, ctx)

    monkeypatch.setattr(P, "produce_assignments", spy)
    agent = make_agent("pmcts_pu", game="tribes", seed=0, budget=600)
    agent.act(new_state(seed=2))
    nodes, stack = 0, [agent.last_root]
    while stack:
        node = stack.pop()
        nodes += node.assignments is not None
        stack.extend(node.children)
    assert len(calls) == len(set(calls)) == nodes


def test_opponent_nodes_use_the_opponent_weights():
    agent = make_agent("pmcts_pu", game="tribes", seed=0, budget=400, weights={"EndTurn": 1.0},
                       opponent_weights={"EndTurn": 0.0})
    agent.act(new_state(seed=2))
    seen = set()
    stack = [agent.last_root]
    while stack:
        node = stack.pop()
        for a in node.assignments or ():
            if a[SCRIPT] == "EndTurn":
                seen.add((node.opponent, a[WEIGHT]))
        stack.extend(node.children)
    assert seen == {(False, 1.0), (True, 0.0)}


# ------------------------------------------------------------------------------ budget, seeds
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_fm_calls_never_exceed_the_budget(variant):
    """Every decision of a whole game against itself, budgets from 1 up, counted by a proxy
    that sees every apply on every copy; every decision is legal."""
    name, params = VARIANTS[variant]
    agents = [make_agent(name, game="tribes", seed=1, budget=60, **params),
              make_agent(name, game="tribes", seed=2, budget=60, **params)]
    state = CountingState(new_state(rounds=3))
    decisions = play_recorded(agents, state, [1, 2, 3, 7, 23, 60, 150, None],
                              counter=state.counter)
    assert len(decisions) >= 10


def test_the_whole_budget_is_spent_when_rollouts_run():
    agent = make_agent("pmcts_pu", game="tribes", seed=3, budget=97)
    s = CountingState(new_state(rounds=3))
    agent.act(s)
    assert s.counter.n == 97 and agent.last_iterations >= 97 // agent.horizon_of(agent.horizon)


def test_charged_selection_costs_the_horizon_per_iteration():
    """With selection charged as the reference counts, an iteration costs exactly the
    horizon (selection steps + expansion + rollout), as the reference's 20 per iteration."""
    agent = make_agent("pmcts_pu", game="tribes", seed=3, budget=400, horizon=8, charge_selection=True)
    agent.act(new_state(seed=1))
    assert agent.last_budget.used == 400 and agent.last_iterations == 400 // 8


@pytest.mark.parametrize("variant", ["pmcts", "pmcts_pu", "pu-random-rollouts"])
def test_same_seeds_give_the_same_game(variant):
    name, params = VARIANTS[variant]

    def game():
        agents = [make_agent(name, game="tribes", seed=5, budget=80, **params),
                  make_agent(name, game="tribes", seed=6, budget=80, **params)]
        s = new_state(seed=11, rounds=4)
        return play_recorded(agents, s), s.scores()

    assert game() == game()


def test_different_seeds_decide_differently_somewhere():
    a = make_agent("pmcts_pu", game="tribes", seed=1, budget=80)
    b = make_agent("pmcts_pu", game="tribes", seed=2, budget=80)
    s = new_state(seed=3, rounds=5)
    differ = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        if len(legal) == 1:
            s.apply(legal[0])
            continue
        x, y = a.act(s), b.act(s)
        assert x in legal and y in legal
        differ += x != y
        s.apply(x)
    assert differ > 0


def test_search_does_not_touch_the_game_random_stream():
    s = new_state(seed=4)
    before = s.rng.seed
    make_agent("pmcts_pu", game="tribes", seed=0, budget=100).act(s)
    assert s.rng.seed == before


# ------------------------------------------------------------------------------ parameters
def test_registered_names_and_defaults():
    for name, bias, pruning in (("pmcts", False, False), ("pmcts_b", True, False),
                                ("pmcts_pu", True, True)):
        agent = make_agent(name, game="tribes", seed=7)
        p = agent.params()
        assert agent.name == name and (p["bias"], p["pruning"]) == (bias, pruning)
        # horizon None: the game's search horizon, 20 for Tribes as in the paper
        assert (p["budget"], p["horizon"], p["rollouts"]) == (2000, None, "portfolio")
        assert agent.horizon_of(p["horizon"]) == 20
        assert (p["alpha_k"], p["alpha_t"], p["a_mult"], p["base"]) == (0.5, 2.0, 1.5, 1.3)
        assert p["c"] == pytest.approx(2 ** 0.5)
        assert set(p["weights"]) == set(agent.portfolio.layout)
        assert all(w == 0.5 for w in agent.portfolio.weights.values())
    with pytest.raises(ValueError):
        make_agent("pmcts_pu", game="tribes", no_such_parameter=1)
    with pytest.raises(ValueError):
        make_agent("pmcts_pu", game="tribes", weights={"NoSuchScript": 1.0})
    with pytest.raises(ValueError):
        make_agent("pmcts_pu", game="tribes", rollouts="sometimes")


@pytest.mark.parametrize("params", [
    {},
    {"weights": {"SpawnRange": 1.0, "MoveToCapture": 0.25}, "budget": 77, "c": 0.7},
    {"weights": [1, 0, 0.25, 0.5, 0.75, 1, 0, 0, 0, 1, 1]},  # the paper genome's 11 values
    {"weights": {"AttackClosest": 0.0}, "layout": ["AttackClosest", "AttackWeakest"],
     "opponent_weights": {"SpawnStrongest": 1.0}, "reference_portfolio": True,
     "rollouts": "random", "alpha_k": 0.25, "alpha_t": 3.0, "a_mult": 2.0, "base": 1.5,
     "charge_selection": True, "final": "mean", "horizon": 7, "bias": False},
    {"weights": {"SpawnDefensive": 1.0}, "expansion": "prior"},
])
def test_params_rebuild_the_exact_agent(params):
    agent = make_agent("pmcts_pu", game="tribes", seed=9, **params)
    again = make_agent(agent.name, **agent.params())
    assert again.params() == agent.params()
    assert again.portfolio == agent.portfolio
    assert again.opponent_portfolio == agent.opponent_portfolio
    s = new_state(seed=6)
    agent.budget = again.budget = 120
    assert agent.act(s) == again.act(s)


def test_weights_from_an_agent_spec():
    a = parse_agent_spec("pmcts_pu:weights=SpawnRange:1;ResearchNaval:0,budget=50", seed=1,
                         game="tribes")
    assert a.portfolio.weights["SpawnRange"] == 1.0
    assert a.portfolio.weights["ResearchNaval"] == 0.0 and a.budget == 50


def test_game_neutral_modules_do_not_import_tribes():
    code = ("import sys\n"
            "import agents.tree, agents.portfolio.pmcts, agents.portfolio.pruning\n"
            "bad = [m for m in sys.modules if m.startswith(('games.tribes', 'agents.tribes'))]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------------------ strength
@pytest.mark.slow
def test_pmcts_pu_beats_random_at_a_small_budget():
    """P-MCTS PU with 100 FM calls per decision against the random agent, both seats, 10
    rounds on six paper levels: won at least 8 of 12 (measured: 11 of 12 on these seeds, 21 of
    24 on twelve levels; the MCTS test's setting)."""
    wins = 0
    for g in range(12):
        seat = g % 2
        s = GAME.new_state(PAPER_SEEDS[g // 2], g, max_rounds=10)
        agents = [make_agent("pmcts_pu", game="tribes", seed=g, budget=100),
                  make_agent("random", seed=100 + g)]
        if seat:
            agents.reverse()
        play_game(s, agents)
        wins += s.winner() == seat
    assert wins >= 8, f"P-MCTS PU won only {wins} of 12 games against random"


def _rule_based_positions(n: int, gap: int) -> list:
    """`n` positions of a rule-based game on the first paper level, at least `gap` decisions
    apart, each with at least four actors that have actions and a city."""
    from games.tribes.levelgen import generate_level
    s = get_game("tribes").new_state(generate_level(PAPER_SEEDS[0]), 3)
    agents = [make_agent("rule_based", game="tribes", seed=1),
              make_agent("rule_based", game="tribes", seed=2)]
    out, d, last = [], 0, -gap
    while not s.is_terminal() and len(out) < n:
        if len(s.legal_actions()) > 1:
            d += 1
            actors = s.actions_by_actor()
            if d - last >= gap and len(actors) >= 4 and any(a in s.cities for a in actors):
                out.append(s.copy())
                last = d
        s.apply(agents[s.current_player].act(s))
    return out


def _draws(sampler, s, n: int, seed: int) -> Counter:
    """(actor, script) counts of `n` draws, each from a fresh copy (nothing listed yet)."""
    rng = np.random.default_rng(seed)
    out: Counter = Counter()
    for _ in range(n):
        a = sampler(s.copy(), rng)
        out[(a[ACTOR], a[SCRIPT])] += 1
    return out


def test_lazy_sampler_draws_as_the_default_sampler():
    """On rule-based positions the lazy sampler's (actor, script) frequencies do not differ
    from the default sampler's (chi-square test of homogeneity, p > 0.001); the positions
    have several actors whose bounds without listing exceed their assignments, so leaving
    out the rejection of empty slots fails this."""
    from scipy.stats import chi2_contingency

    from agents.search import hooks_for
    pf = make_agent("pmcts_pu", game="tribes").portfolio
    counts = script_counts(pf)
    hooks = hooks_for("tribes")
    lazy = partial(_lazy, pf=pf, counts=counts, hooks=hooks)
    eager = partial(_eager, pf=pf, counts=counts)
    positions = _rule_based_positions(3, 60)
    assert len(positions) == 3
    for k, s in enumerate(positions):
        x, y = _draws(eager, s, 2500, 10 + k), _draws(lazy, s, 2500, 20 + k)
        keys = sorted(set(x) | set(y))
        big = [key for key in keys if x[key] + y[key] >= 20]
        table = [[x[key] for key in big] + [sum(x[key] for key in keys if key not in big)],
                 [y[key] for key in big] + [sum(y[key] for key in keys if key not in big)]]
        if table[0][-1] + table[1][-1] == 0:
            table = [row[:-1] for row in table]
        assert len(big) >= 6
        p = chi2_contingency(table)[1]
        assert p > 1e-3, (k, p, table)


def _lazy(s, rng, pf, counts, hooks):
    return P.sample_assignment_lazy(s, pf, counts, rng, hooks, {})


def _eager(s, rng, pf, counts):
    return sample_assignment(s, pf, counts, rng)
