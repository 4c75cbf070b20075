"""Rolling horizon evolution: evolve action sequences, play the first action of the best one.

An individual is a sequence of `length` actions played from the decision's state; its fitness
is the evaluator's value of the state at the end (or where the game ended). A gene that is not
legal at its step when the sequence is played (or an empty gene, `None`) is replaced, in the
individual itself, by a random legal action: that is the feasibility repair, and it is also how
random individuals and mutations are made (a mutated gene becomes empty and is filled at its
step). As in the reference the sequence runs on through End Turn into the opponents' actions.

With `population=1` (the paper's setting) this is a (1+1)-EA: mutate the best, keep the mutant
if it is at least as good. With more, a generation keeps the best (elitism) and fills the rest
by uniform crossover of tournament-selected parents followed by mutation. Between decisions of
the same turn the best individual is shifted (its first action was just played): it seeds the
next decision together with mutants of it, the rest being random.
"""

from __future__ import annotations

from typing import Any

from agents.evaluators import Evaluator
from agents.search import (
    DEFAULT_BUDGET,
    Budget,
    SearchAgent,
    arguments,
    at_least,
    flag,
    random_action,
    search_copy,
)
from base.limits import MAX_AGENT_COUNT
from games.api import Action, GameState

ActionSequence = list  # an individual: actions, or None (to be filled by a random legal action)


class RHEAAgent(SearchAgent):
    name = "rhea"

    def __init__(self, seed: int = 0, budget: int = DEFAULT_BUDGET, population: int = 1,
                 length: int = 20, mutation_rate: float = 0.1, tournament_size: int = 3,
                 mutate_best: int = 9, elitism: bool = True, shift_buffer: bool = True,
                 game: str | None = None, evaluator: str | Evaluator | None = None) -> None:
        """Args:
            seed: seed of the agent's generator.
            budget: forward-model calls per decision.
            population: individuals per generation (1: the paper's (1+1)-EA).
            length: actions per individual (also in games without a heuristic: a longer
                sequence reaches more game ends, at fewer evaluations per decision).
            mutation_rate: probability that a gene is emptied (refilled at random).
            tournament_size: parents' tournament size (population > 1).
            mutate_best: mutants of the shifted best individual seeding the next decision.
            elitism: keep the best individual from one generation to the next.
            shift_buffer: reuse the best individual within a turn (the game's hooks).
            game: the game; None binds to the game of the first state.
            evaluator: a registered evaluator name or an object; None: the game's default.
        """
        self.check_params(arguments(locals()), game)
        super().__init__(seed, budget, game, evaluator)
        self.population = population
        self.length = length
        self.mutation_rate = float(mutation_rate)
        self.tournament_size = tournament_size
        self.mutate_best = mutate_best
        self.elitism = elitism
        self.shift_buffer = shift_buffer
        self.last_evaluations = 0
        self._buffer: ActionSequence | None = None
        self._buffer_key: Any = None

    @classmethod
    def check_params(cls, p: dict[str, Any], game: str | None) -> None:
        super().check_params(p, game)
        for name in ("population", "length", "tournament_size"):
            at_least(p, name, 1, hi=MAX_AGENT_COUNT)
        at_least(p, "mutate_best", 0)
        at_least(p, "mutation_rate", 0)
        if p["mutation_rate"] > 1:
            raise ValueError(f"mutation_rate: must be in [0, 1], got {p['mutation_rate']}")
        for name in ("elitism", "shift_buffer"):
            flag(p[name], name)

    # ------------------------------------------------------------------ decision
    def decide(self, state: GameState, b: Budget) -> Action:
        self.last_evaluations = 0
        legal = state.legal_actions()
        key = self.hooks.turn_key(state)
        if len(legal) == 1:
            self._buffer = None
            return legal[0]
        me = state.current_player
        root = state.copy()
        P = self.population
        seeds: list[ActionSequence] = []
        if (self.shift_buffer and self._buffer is not None and key is not None
                and key == self._buffer_key):
            shifted = self._buffer[1:] + [None]
            seeds.append(shifted)
            for _ in range(min(self.mutate_best, P - 1)):
                seeds.append(self._mutate(shifted))
        while len(seeds) < P:
            seeds.append([None] * self.length)
        pop: list[tuple[ActionSequence, float]] = []
        for g in seeds:
            f = self._fitness(g, root, me, b, partial_ok=not pop)
            if f is None:
                break
            pop.append((g, f))
        if pop and P == 1:
            best, best_f = pop[0]
            while not b.exhausted():
                child = self._mutate(best)
                f = self._fitness(child, root, me, b, partial_ok=False)
                if f is None:
                    break
                if f >= best_f:
                    best, best_f = child, f
            pop = [(best, best_f)]
        elif pop:
            pop = self._evolve(pop, root, me, b)
        self._buffer, self._buffer_key = None, None
        if not pop:
            return legal[int(self.rng.integers(len(legal)))]
        best = max(pop, key=lambda gf: gf[1])[0]
        first = best[0]
        if first is None or first not in legal:  # cannot happen after an evaluation
            return legal[int(self.rng.integers(len(legal)))]
        if self.shift_buffer and key is not None:
            self._buffer, self._buffer_key = best, key
        return first

    # ------------------------------------------------------------------ evolution
    def _evolve(self, pop, root, me, b):
        """Generations of elitism + crossover + mutation until the budget is spent."""
        P = self.population
        while not b.exhausted():
            pop.sort(key=lambda gf: gf[1], reverse=True)
            new = [pop[0]] if self.elitism else []
            done = True
            while len(new) < P:
                child = self._mutate(self._crossover(self._select(pop), self._select(pop)),
                                     at_least_one=False)
                f = self._fitness(child, root, me, b, partial_ok=False)
                if f is None:
                    done = False
                    break
                new.append((child, f))
            if not done:
                start = 1 if self.elitism else 0
                merged = pop + new[start:]
                merged.sort(key=lambda gf: gf[1], reverse=True)
                return merged[:P]
            pop = new
        return pop

    def _select(self, pop) -> ActionSequence:
        k = min(self.tournament_size, len(pop))
        idx = self.rng.choice(len(pop), size=k, replace=False)
        return max((pop[int(i)] for i in idx), key=lambda gf: gf[1])[0]

    def _crossover(self, a: ActionSequence, b: ActionSequence) -> ActionSequence:
        mask = self.rng.random(self.length) < 0.5
        return [x if m else y for x, y, m in zip(a, b, mask)]

    def _mutate(self, g: ActionSequence, at_least_one: bool = True) -> ActionSequence:
        """Each gene emptied with probability `mutation_rate`; for the (1+1)-EA at least one, so
        that no evaluation is spent re-playing the parent."""
        hit = self.rng.random(self.length) < self.mutation_rate
        if at_least_one and not hit.any():
            hit[int(self.rng.integers(self.length))] = True
        return [None if h else x for x, h in zip(g, hit)]

    def _fitness(self, g: ActionSequence, root: GameState, me: int, b: Budget,
                 partial_ok: bool) -> float | None:
        """Play the sequence from the root, repairing it in place; None when the budget ran out
        before its end (unless a partial evaluation is acceptable)."""
        s = search_copy(root, self.rng)
        rng, hooks = self.rng, self.hooks
        for i in range(self.length):
            if s.is_terminal():
                break
            if b.exhausted():
                if not partial_ok or i == 0:
                    return None
                break
            a = g[i]
            if a is None or a not in s.legal_actions():
                a = random_action(s, rng, hooks)
                g[i] = a
            b.apply(s, a)
        self.last_evaluations += 1
        return self.evaluate(root, s, me)

    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "budget": self.budget, "population": self.population,
                "length": self.length, "mutation_rate": self.mutation_rate,
                "tournament_size": self.tournament_size, "mutate_best": self.mutate_best,
                "elitism": self.elitism, "shift_buffer": self.shift_buffer, "game": self.game,
                "evaluator": self.evaluator}
