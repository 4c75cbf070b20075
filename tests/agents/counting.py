"""The counting proxy of the agents' conformance check, for the tests (see
`agents.conformance`)."""

from agents.conformance import Counter, CountingState  # noqa: F401


def counted_tribes_decisions(name: str, params: dict, seed: int, budget: int = 120) -> list:
    """A 3-round Tribes game on a paper level in which the agent `name` plays every seat
    through the counting proxy: every decision must answer a legal action and use exactly
    the calls its budget reports, at most `budget`. Returns the actions decided."""
    from agents.registry import make_agent
    from games.registry import get_game
    from games.tribes.level_sets import PAPER_SEEDS
    proxy = CountingState(get_game("tribes").new_state(PAPER_SEEDS[1], 5, max_rounds=3))
    agent = make_agent(name, game="tribes", seed=seed, budget=budget, **params)
    actions = []
    while not proxy.is_terminal():
        legal = proxy.legal_actions()
        if len(legal) == 1:
            proxy.apply(legal[0])
            continue
        proxy.counter.n = 0
        a = agent.act(proxy)
        assert proxy.counter.n == agent.last_budget.used <= budget
        assert a in legal
        actions.append(a)
        proxy.apply(a)
    return actions
