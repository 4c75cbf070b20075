"""Difficulty ladders: presets (and optional baselines) in a round robin, and whether the
difficulty order holds.

Prismata's difficulty levels were checked with a round robin between them; this does the same
for a preset file. Every pair of agents plays `games` games over a level set, the seat
alternating from level to level and from pass to pass over the levels. The result is a win
matrix (row's win rate against the column, a draw counting half) with Wilson 95% intervals,
and a verdict on the presets' order in the file (easiest first): it *holds* when every harder
preset beats every easier one more than half the time with the whole interval above 1/2, it is
*violated* when some easier preset beats a harder one with the interval wholly below 1/2, and
otherwise it is *not significant* (more games would tell). Baselines take part in the matrix,
not in the verdict.

Every agent also gets a Bradley-Terry rating on the Elo scale with a 95% interval
(`bradley_terry`), fitted to all the round robin's games, baselines included; the presets'
order is *separated* when their intervals do not overlap, each above the one before.

Files in the output directory: games.csv, summary.csv and summary.md (as a tournament),
ladder_matrix.csv, ladder_pairs.csv, ladder_ratings.csv, ladder.json (the verdict and the
ratings), ladder.md and ladder.png.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from agents.registry import accepts
from base.files import atomic_write, claim_folder, json_object
from base.limits import check_planned
from base.progress import Progress
from base.stats import ALPHA, Ratings, ahead_p, bradley_terry, games_to_show, holm, wilson_interval
from games.registry import get_game
from play.journal import GameJournal, journal_command, play_missing
from play.presets import dump_presets, load_presets, weight_controls
from play.ray_session import check_playable, ray_session
from play.runner import AgentSpec, GameSpec
from play.tournament import (
    JOURNAL,
    agent_records,
    games_frame,
    parse_agent,
    seats_of,
    summarise,
    table_columns,
    to_markdown,
)

HOLDS, VIOLATED, NOT_SIGNIFICANT = "holds", "violated", "not significant"

LADDER = "ladder"
"""The command that writes a ladder directory, as its marker names it (`base.files`)."""


def ladder_dir(presets_path: str | Path) -> Path:
    """The default ladder directory of a preset file: `<stem>-ladder/` beside it.

    Args:
        presets_path: the preset file.
    """
    return Path(presets_path).with_name(Path(presets_path).stem + "-ladder")


FILES = ("games.csv", "summary.csv", "summary.md", "ladder_pairs.csv", "ladder_matrix.csv",
         "ladder.json", "ladder_ratings.csv", "ladder.md", "ladder.png", JOURNAL)
"""What a ladder writes in its folder (the chart, `ladder.png`, by `plots.matrix`): a folder
holding anything else is not one (`base.files.check_folder`)."""


def is_ladder_dir(folder: Path) -> bool:
    """Whether `folder` holds a ladder written before output folders had markers: its
    ladder.json (read and checked, not just named), or the journal of an interrupted one.

    Args:
        folder: the folder.
    """
    return journal_command(folder / JOURNAL) == LADDER or json_object(
        folder / "ladder.json",
        {"game": str, "agents": list, "verdict": dict}) is not None


def alternating_games(games: int, levels: Sequence[Any], players: int = 2
                      ) -> list[tuple[Any, int]]:
    """(level, seat of the first agent) for each game: the levels in turn, the seat moving on
    by one from level to level and from one pass over the levels to the next, so every level
    is played from every seat once it is played `players` times (alternating for two).

    Args:
        games: games to schedule.
        levels: the levels, played in turn.
        players: seats at the table.
    """
    n = len(levels)
    if n == 0:
        raise ValueError("levels: no level given")
    return [(levels[g % n], (g % n + g // n) % players) for g in range(games)]


# ------------------------------------------------------------------------------ the verdict

@dataclass
class PairVerdict:
    harder: str
    easier: str
    games: int
    score: float  # wins of the harder one, draws counting half
    rate: float
    low: float
    high: float
    status: str


@dataclass
class Verdict:
    order: list[str]  # easiest first
    pairs: list[PairVerdict]
    status: str  # holds / violated / not significant
    point_order_holds: bool  # every harder one above 1/2 on the point estimate

    def text(self) -> str:
        if len(self.order) < 2:
            return "a ladder needs at least two presets"
        head = {HOLDS: "the difficulty order holds",
                VIOLATED: "the difficulty order is violated",
                NOT_SIGNIFICANT: "the difficulty order is not significant"}[self.status]
        lines = [f"{head}: {' < '.join(self.order)} (Wilson 95% intervals)."]
        if self.status == NOT_SIGNIFICANT:
            lines.append("Point estimates " + ("agree with the order" if self.point_order_holds
                                                else "disagree with the order")
                         + "; more games per pair would decide.")
        for p in self.pairs:
            lines.append(f"  {p.harder} vs {p.easier}: {100 * p.rate:.1f}% "
                         f"[{100 * p.low:.1f}-{100 * p.high:.1f}] over {p.games} games: "
                         f"{p.status}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"order": self.order, "status": self.status,
                "point_order_holds": self.point_order_holds, "text": self.text(),
                "pairs": [vars(p) for p in self.pairs]}


def order_verdict(labels: Sequence[str], score: np.ndarray, games: np.ndarray) -> Verdict:
    """Does the order of `labels` (easiest first) hold? `score[i, j]` = what i scored against
    j (wins plus half the draws), `games[i, j]` = games between them."""
    score = np.asarray(score, dtype=float)
    games = np.asarray(games)
    pairs = []
    for e in range(len(labels)):
        for h in range(e + 1, len(labels)):
            n = int(games[h, e])
            s = float(score[h, e])
            rate = s / n if n else float("nan")
            low, high = wilson_interval(s, n)
            status = HOLDS if low > 0.5 else VIOLATED if high < 0.5 else NOT_SIGNIFICANT
            pairs.append(PairVerdict(labels[h], labels[e], n, s, rate, low, high, status))
    if any(p.status == VIOLATED for p in pairs):
        status = VIOLATED
    elif pairs and all(p.status == HOLDS for p in pairs):
        status = HOLDS
    else:
        status = NOT_SIGNIFICANT
    point = bool(pairs) and all(p.games > 0 and p.rate > 0.5 for p in pairs)
    return Verdict(list(labels), pairs, status, point)


# ------------------------------------------------------------------------------ ratings

# ------------------------------------------------------------------------------ playing

@dataclass
class LadderResult:
    out: Path
    labels: list[str]
    pairs: pd.DataFrame
    matrix: pd.DataFrame
    verdict: Verdict
    files: list[Path] = field(default_factory=list)
    ratings: Ratings | None = None


def seatings(players: int) -> list[tuple[int, int]]:
    """The (first agent's seat, second agent's seat) of a pair at a table of `players`, in the
    order a ladder cycles through them: every ordered pair of distinct seats ((0, 1), (1, 0)
    for two players)."""
    return [(a, b) for a in range(players) for b in range(players) if a != b]


def plan_ladder(agents: Sequence[AgentSpec], game: str, levels: Sequence[Any], games: int,
                options: dict[str, Any], seed: int, players: int = 2,
                field: AgentSpec | None = None) -> list[GameSpec]:
    """Every game of the round robin; seeds from (seed, i, j, game) so that adding a baseline
    does not change the games between presets.

    Args:
        agents: the ladder's agents.
        game: the game.
        levels: the levels, played in turn.
        games: games per pair.
        options: the game options.
        seed: the ladder's seed.
        players: seats at the game's table. With more than two, the pair takes two seats
            (every ordered pair of seats in turn, from level to level and pass to pass) and
            `field` every other seat, each with a seed of its own.
        field: the agent in the seats the pair leaves free.
    """
    if players > 2 and field is None:
        raise ValueError(f"field: a {players}-player ladder needs an agent for the free seats")
    pairs = len(agents) * (len(agents) - 1) // 2
    check_planned(pairs * games, f"{pairs} pairs x {games} games")
    specs = []
    seats = seatings(players)
    order = alternating_games(games, levels, len(seats))
    opts = tuple(sorted(options.items()))
    pi = 0
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            for g, (level, k) in enumerate(order):
                si, sj = seats[k]
                words = np.random.SeedSequence(seed, spawn_key=(i, j, g)).generate_state(
                    1 + players, np.uint32)
                game_seed, s_i, s_j, rest = int(words[0]), int(words[1]), int(words[2]), \
                    iter(int(w) for w in words[3:])
                table = [agents[i] if p == si else agents[j] if p == sj else field
                         for p in range(players)]
                seeds = [s_i if p == si else s_j if p == sj else next(rest)
                         for p in range(players)]
                tag = {"pairing": pi, "agent": i, "opponent": j, "rep": g, "agent_seat": si}
                if players > 2:
                    tag["opponent_seat"] = sj
                specs.append(GameSpec(game=game, level=level, seed=game_seed,
                                      agents=tuple(table), agent_seeds=tuple(seeds),
                                      options=opts, tag=tag))
            pi += 1
    return specs


def ahead(games: pd.DataFrame, seat: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Per game, 1 when the player in `seat` finished ahead of the one in `other`, 0 when
    behind, 0.5 when they shared first place (a draw, in a two-player game). Ahead: a larger
    share of first place (`p<k>_result`); with equal shares of none, the better place in the
    game's ranking (`p<k>_place`). Without result columns (two players), from `winner`."""
    k = np.arange(len(games))
    n = 0
    while f"p{n}_result" in games:
        n += 1
    if n == 0:
        winner = games["winner"].to_numpy()
        return np.where(winner == seat, 1.0, np.where(winner == other, 0.0, 0.5))
    result = games[[f"p{p}_result" for p in range(n)]].to_numpy(float)
    ra, rb = result[k, seat], result[k, other]
    out = np.where(ra > rb, 1.0, np.where(ra < rb, 0.0, 0.5))
    if "p0_place" in games:
        place = games[[f"p{p}_place" for p in range(n)]].to_numpy(float)
        none = (ra == rb) & (ra == 0)
        out = np.where(none, (place[k, seat] < place[k, other]).astype(float), out)
    return out


def pair_table(games: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """Both directions of every pair: games, wins, draws, win rate (draws half), Wilson CI."""
    rows = []
    for (a, b), g in games.groupby(["agent", "opponent"], sort=False):
        seat = g["agent_seat"].to_numpy().astype(int)
        other = g["opponent_seat"].to_numpy().astype(int) if "opponent_seat" in g else 1 - seat
        score = ahead(g, seat, other)
        n = len(g)
        wins_a = int(np.sum(score == 1.0))
        wins_b = int(np.sum(score == 0.0))
        draws = n - wins_a - wins_b
        for x, y, w, lost in ((a, b, wins_a, wins_b), (b, a, wins_b, wins_a)):
            s = w + 0.5 * draws
            low, high = wilson_interval(s, n)
            rows.append({"agent": x, "opponent": y, "games": n, "wins": w, "losses": lost,
                         "draws": draws, "win_rate": s / n, "ci_low": low, "ci_high": high})
    order = {lab: k for k, lab in enumerate(labels)}
    out = pd.DataFrame(rows)
    out = out.assign(_a=out["agent"].map(order), _b=out["opponent"].map(order))
    return out.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)


def matrices(pairs: pd.DataFrame, labels: Sequence[str]
             ) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """(score, games) arrays indexed like `labels`, and the win-rate matrix as a table."""
    pos = {lab: k for k, lab in enumerate(labels)}
    n = len(labels)
    score, games = np.zeros((n, n)), np.zeros((n, n), dtype=int)
    rate = np.full((n, n), np.nan)
    for r in pairs.itertuples(index=False):
        i, j = pos[r.agent], pos[r.opponent]
        score[i, j] = r.wins + 0.5 * r.draws
        games[i, j] = r.games
        rate[i, j] = r.win_rate
    table = pd.DataFrame(rate, columns=list(labels))
    table.insert(0, "agent", list(labels))
    return score, games, table


def _baseline_specs(baselines: Sequence[str], presets, game: str) -> list[AgentSpec]:
    """Baselines by spec; one that takes a budget and sets none plays at the presets' budget
    (when those with a budget share one), so that the ladder compares like with like."""
    budgets = {p.params["budget"] for p in presets if p.params.get("budget") is not None}
    shared = budgets.pop() if len(budgets) == 1 else None
    out = []
    for i, b in enumerate(baselines):
        spec = parse_agent(b, f"baselines[{i}]", game)
        params = dict(spec.params)
        if shared is not None and "budget" not in params and accepts(spec.name, "budget", game):
            params["budget"] = shared
        out.append(AgentSpec(spec.name, tuple(sorted(params.items())), spec.label))
    return out


def run_ladder(presets_path: str | Path, baselines: Sequence[str] = (), games: int | None = None,
               levels: str | Sequence[int] | None = None, out: str | Path | None = None,
               seed: int = 0, rounds: int | None = None, workers: int | None = None,
               address: str | None = None, progress: Progress | None = None,
               resume: bool = False, field: str | None = None,
               finish: bool = True, force: bool = False, control: bool = True) -> LadderResult:
    """Play the round robin of a preset file's presets (file order = easiest first) and the
    baselines, write the win matrix and the verdict. Levels default to the levels the
    presets were validated on (else their run's held-out levels, else the game's default
    set); games per
    pair default to two per level; the game options are the file's (`rounds`: play at most
    that many rounds, through the game's `round_limit_options`).

    In a game of more than two players, each game seats a pair and fills the other seats
    with `field` (default `random`; an agent spec, at the presets' budget when it takes one
    and sets none); a pair's result is who finished ahead of the other (`ahead`), and a pair
    plays every ordered pair of seats in turn (default games: one per level and seating).

    Every finished game is kept in `out`/games.journal; Ctrl-C raises
    `play.journal.Interrupted`, and the same call with `resume=True` plays only the games
    still missing. With `finish=False` the journal stays after the files are written (for a
    caller with more to write, which removes it when done: `calibrate`).

    The output directory (default `ladder_dir`) must be new or empty, or hold an earlier
    ladder: then `force` overwrites it and `resume` continues it; any other non-empty folder
    is refused before anything is written (`base.files.claim_folder`).

    With `control` (the default), every evolved preset's default-weight control
    (`play.presets.weight_controls`) plays in the round robin as a baseline: a style is ranked
    beside the same search without evolved weights."""

    pf = load_presets(presets_path)
    level_set = get_game(pf.game).level_set
    if len(pf.presets) < 2 and not baselines:
        raise ValueError(f"{presets_path}: a ladder needs at least two agents")
    agents = [p.spec() for p in pf.presets] + _baseline_specs(baselines, pf.presets, pf.game)
    if control:
        agents += weight_controls(agents)
    labels = [a.display() for a in agents]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agents: labels must be distinct, got {labels} (give a baseline "
                         f"another label with name:label=...)")
    if levels is None:
        src = pf.source or {}
        level_list = list(src.get("validation_levels") or src.get("held_out_levels") or []) \
            or level_set(get_game(pf.game).default_levels)
    elif isinstance(levels, str):
        level_list = level_set(levels)
    else:
        level_list = list(levels)
    options = dict(pf.options)
    if rounds is not None:  # "play N rounds", in the game's own options
        try:
            options.update(get_game(pf.game).round_limit_options(rounds))
        except ValueError as e:
            raise ValueError(f"rounds: {e}") from None
    players = seats_of(pf.game, level_list[0], options)
    if players < 2:
        raise ValueError(f"{presets_path}: {pf.game} is a one-player game, where presets do not "
                         f"meet; compare them in a tournament (each plays alone)")
    if field is not None and players == 2:
        raise ValueError(f"field: {pf.game} is a two-player game; a ladder seats only the pair")
    filler = _baseline_specs([field or "random"], pf.presets, pf.game)[0] if players > 2 else None
    n_games = len(seatings(players)) * len(level_list) if games is None else int(games)
    if n_games < 1:
        raise ValueError(f"games: at least one game per pair, got {n_games}")
    specs = plan_ladder(agents, pf.game, level_list, n_games, options, seed, players, filler)
    check_playable([pf.game], address, workers)
    out = claim_folder(out if out is not None else ladder_dir(presets_path), command=LADDER,
                       force=force, resume=resume, ours=is_ladder_dir, writes=FILES)
    journal = GameJournal(out / JOURNAL, specs, "ladder", resume=resume)
    with journal.interruptible():
        with ray_session():
            records = play_missing(journal, address=address, workers=workers,
                                   progress=progress)
        result = _write_ladder(out, presets_path, pf, agents, records, options, level_list,
                               n_games, seed, filler)
    if finish:
        journal.finish()
    return result


def _write_ladder(out: Path, presets_path: str | Path, pf, agents: list[AgentSpec],
                  records: list, options: dict, level_list: list, n_games: int, seed: int,
                  field: AgentSpec | None = None) -> LadderResult:
    """The ladder's files: games, summary, pair table, win matrix, verdict and chart."""
    labels = [a.display() for a in agents]
    frame = games_frame(records, agents)
    pairs = pair_table(frame, labels)
    score, n, matrix = matrices(pairs, labels)
    k = len(pf.presets)
    verdict = order_verdict(labels[:k], score[:k, :k], n[:k, :k])
    ratings = bradley_terry(labels, score, n)

    columns = table_columns(pf.game)
    summary = summarise(frame, columns)
    info = {"presets": str(Path(presets_path).name), "kind": pf.kind, "game": pf.game,
            "options": options, "levels": level_list, "games_per_pair": n_games, "seed": seed,
            "agents": agent_records(agents, pf.game),
            "verdict": verdict.to_dict(), "ratings": ratings.to_records(),
            "ratings_separated": ratings.separated(labels[:k])}
    if field is not None:
        info["field"] = agent_records([field], pf.game)[0]
    files = []
    for name, text in (("games.csv", frame.to_csv(index=False)),
                       ("summary.csv", summary.to_csv(index=False, float_format="%.4f")),
                       ("summary.md", to_markdown(summary, columns)),
                       ("ladder_pairs.csv", pairs.to_csv(index=False)),
                       ("ladder_matrix.csv", matrix.to_csv(index=False)),
                       ("ladder.json", json.dumps(info, indent=2, default=_json_default) + "\n"),
                       ("ladder_ratings.csv", pd.DataFrame(ratings.to_records()).to_csv(
                           index=False, float_format="%.1f")),
                       ("ladder.md", _markdown(matrix, verdict, pf.kind, ratings, k))):
        files.append(atomic_write(out / name, text))
    return LadderResult(out, labels, pairs, matrix, verdict, files, ratings)


def _markdown(matrix: pd.DataFrame, verdict: Verdict, kind: str, ratings: Ratings,
              presets: int) -> str:
    labels = list(matrix["agent"])
    lines = ["| agent \\ opponent | " + " | ".join(labels) + " |",
             "|---|" + "---|" * len(labels)]
    for r in matrix.itertuples(index=False):
        cells = ["-" if a == r[0] or not np.isfinite(v) else f"{100 * v:.1f}%"
                 for a, v in zip(labels, r[1:])]
        lines.append(f"| {r[0]} | " + " | ".join(cells) + " |")
    note = "" if kind == "difficulty" else \
        f"\n(The presets are of kind {kind!r}; the order checked is the file's order.)\n"
    lines += ["", "| agent | rating (Bradley-Terry, Elo scale) | 95% CI | games |",
              "|---|---|---|---|"]
    lines += [f"| {r['agent']} | {r['rating']:+.0f} | {r['ci_low']:+.0f} to {r['ci_high']:+.0f} "
              f"| {r['games']} |" for r in ratings.to_records()]
    order = ratings.labels[:presets]
    lines += ["", "The presets' rating intervals " + (
        "are separated in the file's order." if ratings.separated(order) else
        "overlap or are out of the file's order: more games per pair would separate them, "
        "if they differ.")]
    return "\n".join(lines) + "\n\n" + verdict.text() + "\n" + note


def _json_default(x: Any) -> Any:
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(f"not JSON serialisable: {x!r}")


@dataclass
class Step:
    """One adjacent pair of an order (easier, harder): the harder one's score against the
    easier, its one-sided p-value (`base.stats.ahead_p`), whether Holm's correction over the
    order's steps shows it ahead, and, when not, about how many games per pair would
    (`base.stats.games_to_show` at the Bonferroni level, None when its estimate is not
    ahead at all)."""

    easier: str
    harder: str
    games: int
    score: float
    rate: float
    p: float
    shown: bool
    games_needed: int | None

    def text(self) -> str:
        head = f"{self.harder} over {self.easier}: {100 * self.rate:.1f}% of {self.games} " \
               f"games, one-sided p = {self.p:.3g}"
        if self.shown:
            return head + ": shown"
        if self.games_needed is None:
            return head + ": not ahead (no number of games would show it)"
        return head + f": not shown (about {self.games_needed} games per pair would)"


def adjacent_steps(order: Sequence[str], score: np.ndarray, games: np.ndarray,
                   alpha: float = ALPHA) -> list[Step]:
    """The steps of `order` (easiest first), each tested one-sided, Holm over the steps.

    Args:
        order: the agents, easiest first (indices of `score` and `games`).
        score: `score[i, j]`: what agent i scored against j (wins plus half the draws).
        games: `games[i, j]`: games between them.
        alpha: the family-wise error of the order's steps.
    """
    pairs = [(a, b) for a, b in zip(range(len(order)), range(1, len(order)))]
    ps = [ahead_p(score[h, e], games[h, e]) for e, h in pairs]
    shown = holm(ps, alpha) if ps else []
    out = []
    for (e, h), p, ok in zip(pairs, ps, shown):
        n = int(games[h, e])
        rate = float(score[h, e]) / n if n else float("nan")
        need = games_to_show(rate, alpha / len(pairs)) if n else float("inf")
        out.append(Step(order[e], order[h], n, float(score[h, e]), rate, p, bool(ok),
                        None if ok or not np.isfinite(need) else int(need)))
    return out


def shown_chain(ratings: Ratings, labels: Sequence[str], count: int, score: np.ndarray,
                games: np.ndarray, alpha: float = ALPHA) -> list[str]:
    """`count` of `labels` whose order is shown, weakest first: in order of rating, every
    adjacent pair's harder one ahead of its easier one (one-sided, Holm over the chain's
    steps, `adjacent_steps`). Of all such chains, the one whose smallest rating step is
    largest (then the widest span; then the earliest labels). When no chain is that long,
    the longest one, chosen the same way.

    Args:
        ratings: the fitted ratings (they may hold other agents too; they give the order).
        labels: the candidates.
        count: presets wanted.
        score, games: the round robin's matrices, indexed like `ratings.labels`.
        alpha: the family-wise error of a chain's steps.
    """
    pos = {lab: k for k, lab in enumerate(ratings.labels)}
    idx = sorted((pos[lab] for lab in labels), key=lambda k: (ratings.rating[k], k))
    rating = ratings.rating

    def chains(start: list[int], rest: list[int], size: int):
        if len(start) == size:
            yield start
            return
        for n, k in enumerate(rest):  # a step must at least pass unadjusted
            if not start or ahead_p(score[k, start[-1]], games[k, start[-1]]) <= alpha:
                yield from chains(start + [k], rest[n + 1:], size)

    def shown(chain: list[int]) -> bool:
        sub = np.ix_(chain, chain)
        return all(st.shown for st in adjacent_steps(chain, score[sub], games[sub], alpha))

    for size in range(min(count, len(idx)), 0, -1):
        best = max((c for c in chains([], idx, size) if shown(c)), default=None,
                   key=lambda c: (min(np.diff(rating[c]), default=0.0),
                                  rating[c[-1]] - rating[c[0]], [-k for k in c]))
        if best is not None:
            return [ratings.labels[k] for k in best]
    return []


def _subset_verdict(result: LadderResult, order: Sequence[str]) -> Verdict:
    """The order verdict of some of a ladder's agents (easiest first), from its games."""
    score, games, _ = matrices(result.pairs, result.labels)
    idx = [result.labels.index(lab) for lab in order]
    return order_verdict(list(order), score[np.ix_(idx, idx)], games[np.ix_(idx, idx)])


def calibrate(presets_path: str | Path, baselines: Sequence[str], games: int | None = None,
              levels: str | Sequence[int] | None = None, seed: int = 0,
              workers: int | None = None, address: str | None = None,
              progress: Progress | None = None, keep: int | None = None,
              resume: bool = False, force: bool = False) -> tuple[Any, LadderResult]:
    """Give a preset file's presets calibrated strength: play the ladder of the presets and
    the baselines, then write into each preset's evidence its Bradley-Terry rating with its
    95% interval and its win rates against the baselines, and into the file's source the
    calibration (ladder directory, games per pair, whether the presets' intervals are
    separated in the file's order); a warning when they are not. The ladder seats no
    default-weight control: a calibration rates strength against the baselines the caller
    names (add the control as one to rate it too); whether evolution added to a style is
    what validation against the control and a plain ladder show.

    Args:
        presets_path: the preset file (rewritten in place).
        baselines: the shared baselines (agent specs), at least one.
        games: games per pair (default: two per level).
        levels: the ladder's level set (default as `run_ladder`).
        seed: the ladder's seed.
        workers: local Ray workers (0: in this process).
        address: a Ray cluster.
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        keep: treat the file's presets as candidates and keep this many whose order is
            shown (`shown_chain`), weakest first; fewer, with a warning, when no such chain
            is that long.
        resume: continue an interrupted calibration: play only the ladder's missing games.
            The ladder's journal stays until the preset file is rewritten, so a calibration
            that stops after its games (or is interrupted during them) loses none.
        force: overwrite the ladder directory of an earlier calibration.

    Returns:
        The rewritten `PresetFile` and the ladder's result.
    """
    if not baselines:
        raise ValueError("baselines: calibration needs at least one shared baseline")
    result = run_ladder(presets_path, baselines=baselines, games=games, levels=levels,
                        seed=seed, workers=workers, address=address,
                        progress=progress, resume=resume, finish=False,
                        force=force, control=False)
    pf = load_presets(presets_path)
    r = result.ratings
    pos = {lab: k for k, lab in enumerate(r.labels)}
    names = [p.name for p in pf.presets]
    candidates = len(names)
    base_labels = result.labels[candidates:]
    score, played, _ = matrices(result.pairs, result.labels)
    if keep is not None:
        chosen = shown_chain(r, names, keep, score, played)
        by_name = {p.name: p for p in pf.presets}
        pf.presets = [by_name[n] for n in chosen]
        names = chosen
    rates = {(row.agent, row.opponent): row.win_rate for row in result.pairs.itertuples()}
    for p in pf.presets:
        k = pos[p.name]
        p.evidence["rating"] = {
            "elo": round(float(r.rating[k]), 1),
            "ci95": [round(float(r.low[k]), 1), round(float(r.high[k]), 1)],
            "games": int(r.games[k]),
            "win_rate_vs": {b: float(rates[(p.name, b)]) for b in base_labels}}
    separated = r.separated(names)
    idx = [result.labels.index(n) for n in names]
    steps = adjacent_steps(names, score[np.ix_(idx, idx)], played[np.ix_(idx, idx)])
    pf.source = {**(pf.source or {}), "calibration": {
        "ladder": result.out.name, "baselines": base_labels,
        "games_per_pair": int(result.pairs["games"].iloc[0]), "separated": separated,
        "order": _subset_verdict(result, names).status,
        "steps_shown": all(st.shown for st in steps),
        "steps": [{**vars(st), "text": st.text()} for st in steps]}}
    if keep is not None:
        pf.source["calibration"]["candidates"] = candidates
    warnings = list(pf.source.get("warnings") or [])
    if keep is not None and len(names) < keep:
        warnings.append(f"only {len(names)} of the {keep} presets asked are shown in order "
                        f"(every step one-sided, Holm) among the {candidates} candidates: "
                        f"play more games per pair (--games), or give candidates that differ "
                        f"more (--budgets)")
    for st in steps:
        if not st.shown:
            warnings.append(f"the step {st.text()}")
    if warnings:
        pf.source["warnings"] = warnings
    dump_presets(pf, presets_path)
    (result.out / JOURNAL).unlink(missing_ok=True)  # the presets are written: games not needed
    return load_presets(presets_path), result
