"""Tournaments: agents against each other over a level set, with alternating seats.

Every pairing plays every level `repetitions` times; the seat (which player, hence which side
of the level, each agent takes) alternates with the repetition. Seeds of games and agents come
from one tournament seed, so a tournament is reproducible and independent of how many workers
play it. Results: one CSV row per game, and a summary per (agent, opponent) in the layout of
the play-styles paper's Table I.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from agents.registry import validate_agent
from agents.search import check_budget
from base.files import atomic_write, claim_folder, json_object, read_yaml
from base.limits import MAX_REPETITIONS, MAX_SEED, check_planned, short
from base.progress import Progress, counted
from base.schema import (
    OMIT,
    REQUIRED,
    Field,
    check_bool,
    check_mapping,
    check_name,
    count,
    errors_in,
    field_error,
    list_of,
    optional,
    read_section,
)
from base.stats import wilson_interval
from games.api import check_game_options
from games.registry import get_game
from play.game_pool import run_games
from play.journal import GameJournal, journal_command, play_missing
from play.presets import full_params, weight_controls
from play.ray_session import check_playable
from play.runner import AgentSpec, GameRecord, GameSpec
from play.specs import split_spec


@dataclass
class TournamentConfig:
    """A tournament: agents, the pairs that play, the game and its levels.

    Args:
        agents: the agents (labels must be distinct).
        game: the registered game.
        pairings: the tables, as indices into `agents` (pairs in a two-player game, triples
            in a three-player one); default every set of that many agents.
        levels: a level set name (default: the game's default set) or a list of levels.
        repetitions: games per level and pairing (seats alternate).
        options: game options.
        seed: the seed of every game and agent seed.

    A config's `budget` (forward-model calls per decision for every agent that takes a
    budget) is each agent's parameter once the config is read (`AgentSpec.at_budget`).
    """

    agents: list[AgentSpec]
    game: str
    pairings: list[tuple[int, ...]] | None = None  # indices into agents; default: all tables
    levels: str | list[Any] | None = None
    repetitions: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def all_pairings(self) -> list[tuple[int, ...]]:
        """The tables that play: the given pairings, else every set of `seats()` agents."""
        if self.pairings is not None:
            return list(self.pairings)
        return list(itertools.combinations(range(len(self.agents)), self.seats()))

    def seats(self) -> int:
        """Players of the game on its first level (2 for two-player games)."""
        level = level_seeds(self.game, self.levels)[0]
        return seats_of(self.game, level, self.options)


def seats_of(game: str, level: Any, options: dict[str, Any]) -> int:
    """The number of players of `game` on `level`."""
    g = get_game(game)
    return g.new_state(g.level(level, **options), 0, **options).num_players


def level_seeds(game: str, levels: str | Sequence[Any] | None) -> list[Any]:
    """The levels of a set name (None: the game's default set) or the list itself."""
    g = get_game(game)
    if levels is None:
        levels = g.default_levels
    if isinstance(levels, str):
        return g.level_set(levels)
    return list(levels)


def plan(config: TournamentConfig) -> list[GameSpec]:
    """Every game of the tournament, in a fixed order, each with its own seeds.

    Every table plays every level `repetitions` times; repetition r seats the table's agents
    in its r-th ordering (the permutations in lexicographic order, cycled): with two players
    the seats alternate, with three every 6 repetitions play every seating once."""
    seeds = level_seeds(config.game, config.levels)
    tables = config.all_pairings()
    n = len(tables[0]) if tables else 2
    total = check_planned(len(tables) * len(seeds) * config.repetitions,
                          f"{len(tables)} pairings x {len(seeds)} levels x "
                          f"{config.repetitions} repetitions")
    root = np.random.SeedSequence(config.seed)
    game_seeds = root.generate_state(total * (n + 1), dtype=np.uint32).reshape(total, n + 1)
    specs = []
    k = 0
    options = tuple(sorted(config.options.items()))
    for pi, table in enumerate(tables):
        orders = list(itertools.permutations(table))
        for level in seeds:
            for rep in range(config.repetitions):
                seating = orders[rep % len(orders)]
                g = game_seeds[k]
                tag = {"pairing": pi, "agent": table[0],
                       "opponent": table[1] if n > 1 else None, "rep": rep,
                       "agent_seat": seating.index(table[0])}
                if n > 2:
                    tag.update(table=list(table), seating=list(seating))
                specs.append(GameSpec(
                    game=config.game, level=level, seed=int(g[0]),
                    agents=tuple(config.agents[i] for i in seating),
                    agent_seeds=tuple(int(x) for x in g[1:]), options=options, tag=tag))
                k += 1
    return specs


def record_row(index: int, rec: GameRecord) -> dict[str, Any]:
    """One CSV row: the game, both seats, and each seat's result, figures and event totals."""
    spec = rec.spec
    row: dict[str, Any] = {"game": index, "level": spec.level, "game_seed": spec.seed,
                           "rounds": rec.rounds, "winner": rec.winner, "seconds": round(rec.seconds, 3)}
    if isinstance(spec.tag, dict):
        row.update({k: v for k, v in spec.tag.items() if k in ("pairing", "rep")})
    n = len(spec.agents)
    for p in range(n):
        row.update(rec.player_columns(p, f"p{p}_"))
        row[f"p{p}_result"] = rec.result(p)
        if n > 2:  # the place in the game's ranking (0: first), beyond first place
            row[f"p{p}_place"] = rec.ranking.index(p) if p in rec.ranking else n
    return row


ALONE = "(alone)"
"""The opponent column of a one-player game (Navy Defense): every agent plays each level
alone, its win rate is 100% by definition, and its figures (the game's table columns, e.g.
Navy's cost) are the result."""

SCORE_COLUMN = ("score", "Score", "{:.0f}")
"""A result-table column: the summary figure, its header, its format in summary.md."""


ALL_TABLES = "(all tables)"
"""The opponent column of an agent's summary over every game it played, in a game of more
than two players (where each table is a row of its own)."""


def summarise(games: pd.DataFrame, columns: Sequence[tuple[str, str, str]] = (SCORE_COLUMN,)
              ) -> pd.DataFrame:
    """Per (agent, opponent): games, win rate with its binomial standard error (percentage
    points) and its Wilson 95% interval (`CI low %`, `CI high %`), draws, and the agent's
    mean of each of the game's table figures (`columns`, from the game's `table_columns`;
    Tribes: score, techs as % of the tree, cities, production). In a game of more than two
    players each agent also gets a row over all its games (opponent `ALL_TABLES`).

    Args:
        games: one row per game (`games_frame`).
        columns: (summary key, header, format) of each figure column.
    """
    rows = [_summary_row(a, b, g, columns)
            for (a, b), g in games.groupby(["agent", "opponent"], sort=False)]
    if "p2_agent" in games:
        rows += [_summary_row(a, ALL_TABLES, g, columns)
                 for a, g in games.groupby("agent", sort=False)]
    return pd.DataFrame(rows)


def _summary_row(a: str, b: str, g: pd.DataFrame, columns: Sequence[tuple[str, str, str]]
                 ) -> dict[str, Any]:
    """One summary row: agent `a`'s games `g` (against `b`)."""
    seat = g["agent_seat"].to_numpy()
    seats = 2
    while f"p{seats}_agent" in g:  # a game of more than two players
        seats += 1
    if b == ALONE:  # a one-player game
        seats = 1
    pick = lambda col: np.choose(seat, [g[f"p{k}_{col}"].to_numpy() for k in range(seats)])  # noqa: E731
    winner = g["winner"].to_numpy()
    # two players: wins (draws apart); more: the share of first place (ties split it)
    wins = (winner == seat).astype(float) if seats == 2 else pick("result").astype(float)
    n = len(g)
    p = wins.mean()
    low, high = wilson_interval(float(wins.sum()), n)
    row = {"Agent": a, "Opponent": b, "Games": n, "Win rate %": 100 * p,
           "s.e.": 100 * math.sqrt(p * (1 - p) / n) if n > 1 else float("nan"),
           "CI low %": 100 * low, "CI high %": 100 * high,
           "Draws %": 100 * float(pd.isna(g["winner"]).mean())}
    for key, header, _ in columns:
        row[header] = pick(key).mean() if f"p0_{key}" in g else float("nan")
    return row


def table_columns(game: str) -> tuple[tuple[str, str, str], ...]:
    """The figure columns of a game's result tables (its `table_columns`, else the score)."""
    return tuple(getattr(get_game(game), "table_columns", (SCORE_COLUMN,)))


def to_markdown(summary: pd.DataFrame,
                columns: Sequence[tuple[str, str, str]] = (SCORE_COLUMN,)) -> str:
    """The summary as a Markdown table (Table I's layout); a Draws column when any game of
    the table was drawn."""
    draws = "Draws %" in summary and bool((summary["Draws %"] > 0).any())
    head = ["Agent", "Opponent", "Games", "Win rate (s.e.)", "95% CI"] \
        + (["Draws"] if draws else []) \
        + [h.replace(" %", "") for _, h, _ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in summary.to_dict("records"):
        se = "n/a" if math.isnan(r["s.e."]) else f"{r['s.e.']:.2f}"  # one game: no s.e.
        cells = [str(r["Agent"]), str(r["Opponent"]), str(r["Games"]),
                 f"{r['Win rate %']:.2f}% ({se})", f"{r['CI low %']:.1f}-{r['CI high %']:.1f}%"]
        if draws:
            cells.append(f"{r['Draws %']:.1f}%")
        cells += [fmt.format(r[h]) if not math.isnan(r[h]) else "n/a" for _, h, fmt in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def games_frame(records: list[tuple[int, GameRecord]], agents: Sequence[AgentSpec]) -> pd.DataFrame:
    """One row per game of a two-player tournament (from the pairing's first agent's side);
    with more players, one row per game and table member (`agent`, the others joined with
    " + " as `opponent`, its `agent_seat`), so every member's results can be summarised."""
    rows = []
    for index, rec in sorted(records, key=lambda r: r[0]):
        row = record_row(index, rec)
        tag = rec.spec.tag
        if "table" in tag:
            for m in tag["table"]:
                others = [agents[o].display() for o in tag["table"] if o != m]
                rows.append({**row, "agent": agents[m].display(), "opponent": " + ".join(others),
                             "agent_seat": tag["seating"].index(m)})
            continue
        row["agent"] = agents[tag["agent"]].display()
        row["opponent"] = ALONE if tag["opponent"] is None else agents[tag["opponent"]].display()
        row["agent_seat"] = tag["agent_seat"]
        if "opponent_seat" in tag:  # a pair at a table of more players (ladders)
            row["opponent_seat"] = tag["opponent_seat"]
        rows.append(row)
    frame = pd.DataFrame(rows)
    counts = sorted(c for c in frame.columns if "_n_" in c)
    frame[counts] = frame[counts].fillna(0)
    return frame[[c for c in frame.columns if c not in counts] + counts]


PARTIAL_EVERY = 20  # games between two writes of the partial results
JOURNAL = "games.journal"  # the finished games while a tournament plays (play.journal)
TOURNAMENT = "tournament"  # the command, as its output folder's marker names it (base.files)
FILES = ("tournament.json", "games.csv", "summary.csv", "summary.md", JOURNAL,
         "games.partial.csv", "summary.partial.md")
"""What a tournament writes in its output folder: a folder holding anything else is not
one (`base.files.check_folder`)."""


def is_tournament_dir(folder: Path) -> bool:
    """Whether `folder` holds a tournament written before output folders had markers: its
    tournament.json (read and checked, not just named) or the journal of an interrupted one.

    Args:
        folder: the folder.
    """
    return journal_command(folder / JOURNAL) == TOURNAMENT or json_object(
        folder / "tournament.json",
        {"game": str, "agents": list, "pairings": list}) is not None


def run_tournament(config: TournamentConfig, out: str | Path | None = None,
                   address: str | None = None, workers: int | None = None,
                   progress: Progress | None = None, resume: bool = False, force: bool = False
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play every planned game (on Ray unless workers == 0) and write, if `out` is given,
    games.csv, summary.csv and summary.md there. Returns (games, summary).

    While it runs, every finished game is kept in `out`/games.journal, and the games so far
    and their summary are rewritten every `PARTIAL_EVERY` games as games.partial.csv and
    summary.partial.md, so a long tournament shows where it stands. Ctrl-C raises
    `play.journal.Interrupted`; the same call with `resume=True` plays only the games
    still missing.

    Args:
        config: the tournament.
        out: the output directory (None: nothing is written and nothing can resume).
        address: a Ray cluster to join (default: a local Ray).
        workers: local worker processes; 0 plays in this process.
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        resume: continue the interrupted tournament in `out`.
        force: overwrite the results of an earlier tournament in `out`. Without it, and
            always when `out` holds anything else, a non-empty `out` is refused before
            anything is written (`base.files.claim_folder`).
    """
    specs = plan(config)
    columns = table_columns(config.game)
    out = Path(out) if out is not None else None
    if out is None:
        if resume:
            raise ValueError("--resume needs the output directory of the interrupted tournament")
        records = list(counted(run_games(specs, address=address, workers=workers),
                               len(specs), "tournament", progress))
        games = games_frame(records, config.agents)
        return games, summarise(games, columns)
    check_playable([config.game], address, workers)
    claim_folder(out, command=TOURNAMENT, force=force, resume=resume, ours=is_tournament_dir,
                 writes=FILES)
    journal = GameJournal(out / JOURNAL, specs, TOURNAMENT, resume=resume)
    with journal.interruptible():
        atomic_write(out / "tournament.json", json.dumps(_config_dict(config), indent=2))

        def partial(done: int) -> None:
            if done % PARTIAL_EVERY == 0 and done < len(specs):
                frame = games_frame(journal.records(), config.agents)
                atomic_write(out / "games.partial.csv", frame.to_csv(index=False))
                atomic_write(out / "summary.partial.md", f"{done} of {len(specs)} games\n\n"
                             + to_markdown(summarise(frame, columns), columns))

        records = play_missing(journal, address=address, workers=workers,
                               progress=progress, on_game=partial)
        games = games_frame(records, config.agents)
        summary = summarise(games, columns)
        atomic_write(out / "games.csv", games.to_csv(index=False))
        atomic_write(out / "summary.csv", summary.to_csv(index=False, float_format="%.4f"))
        atomic_write(out / "summary.md", to_markdown(summary, columns))
        for name in ("games.partial.csv", "summary.partial.md"):
            (out / name).unlink(missing_ok=True)
    journal.finish()
    return games, summary


def _config_dict(config: TournamentConfig) -> dict[str, Any]:
    return {"game": config.game, "levels": config.levels, "repetitions": config.repetitions,
            "options": config.options, "seed": config.seed,
            "agents": agent_records(config.agents, config.game),
            "pairings": [list(p) for p in config.all_pairings()],
            "levels_played": level_seeds(config.game, config.levels), "version": _version()}


def agent_records(agents: Sequence[AgentSpec], game: str) -> list[dict[str, Any]]:
    """What a results file records of each agent: its name, label, the parameters given (a
    table-wide budget among them), and `resolved`, every parameter of the agent as built
    (defaults included), so that a rerun after a default changed can still play the same
    agent."""
    return [{"name": a.name, "label": a.display(), "params": dict(a.params),
             "resolved": full_params(a.name, dict(a.params), game)} for a in agents]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("playstyles")
    except PackageNotFoundError:
        return "unknown"



def _levels(value: Any, field: str) -> str | list[Any]:
    """A level set name or a non-empty list of levels."""
    if not (isinstance(value, str) or (isinstance(value, list) and value)):
        raise field_error(field, f"a level set name or a non-empty list of levels expected, "
                                 f"got {short(value)}")
    return value


CONFIG_FIELDS = (
    Field("game", default=OMIT), Field("agents", list_of(), OMIT),
    Field("pairings", optional(list_of())), Field("levels", optional(_levels)),
    Field("repetitions", count(1, MAX_REPETITIONS), 2), Field("options", check_mapping, {}),
    Field("budget", optional(lambda value, field: check_budget(value))),
    Field("seed", optional(count(0, MAX_SEED)), 0), Field("controls", check_bool, True))
"""A tournament config's keys (docs/tournaments.md)."""
AGENT_FIELDS = (Field("name", default=REQUIRED), Field("label"),
                Field("params", check_mapping, {}))
"""An agent's keys, when a mapping gives it (else a spec: "name:k=v,...,label=L")."""


def parse_agent(entry: Any, where: str, game: str | None = None) -> AgentSpec:
    """An agent entry: "name", "name:k=v,...,label=L", or {name, label, params} (`name` may
    be a preset, `preset:FILE#NAME`, its parameters overridden by `params`).

    Args:
        entry: the entry as given.
        where: its key path (`agents[1]`), named in errors.
        game: the game it plays (None: checked without one).
    """
    if isinstance(entry, str):
        with errors_in(where):
            name, params = split_spec(entry, game)
        return _checked_agent(name, params.pop("label", entry), params, where, game)
    if not isinstance(entry, dict):
        raise field_error(where, f"an agent is a name or a mapping, got {short(entry)}")
    d = read_section(entry, AGENT_FIELDS, where)
    name = str(d["name"])
    label = d["label"] or name
    if name.startswith("preset:"):  # a preset, its parameters overridden by `params`
        with errors_in(where):
            name, preset_params = split_spec(name, game)
        return _checked_agent(name, label, {**preset_params, **d["params"]}, where, game)
    return _checked_agent(name, label, d["params"], where, game)


def _checked_agent(name: str, label: Any, params: dict, where: str,
                   game: str | None) -> AgentSpec:
    label = check_name(str(label), f"{where}.label")
    with errors_in(where):
        validate_agent(name, params, game)
    return AgentSpec.of(name, label=label, **params)


def config_from_dict(data: Any, source: str = "config") -> TournamentConfig:
    """Validate a tournament config mapping; every error names the file and the key.

    Args:
        data: the config mapping (as read from YAML).
        source: where it came from, named in errors (a file name).
    """
    with errors_in(source):
        return read_config(data)


def read_config(data: Any) -> TournamentConfig:
    """`config_from_dict` (errors name the key; the caller puts the file in front)."""
    if not isinstance(data, dict):
        raise field_error("", "a mapping of keys expected")
    d = read_section(data, CONFIG_FIELDS)
    if "game" not in d:
        raise field_error("game", "missing: name the game (e.g. tribes)")
    game = d["game"]
    get_game(game)  # (it names the field: "game: unknown game ...")
    # one agent is enough when the pairings seat it against itself (self-play)
    least = 1 if d["pairings"] else 2
    if not d.get("agents"):
        raise field_error("agents", "must list at least two agents")
    agents = [parse_agent(a, f"agents[{i}]", game) for i, a in enumerate(d["agents"])]
    if len(agents) < least:
        raise field_error("agents", "must list at least two agents (or one, with pairings "
                                    "that seat it against itself)")
    labels = [a.display() for a in agents]
    if len(set(labels)) != len(labels):
        raise field_error("agents", f"labels must be distinct, got {labels}")
    pairings = None if d["pairings"] is None else _pairings(d["pairings"], labels)
    if d["controls"]:
        agents, pairings = with_controls(agents, pairings)
    if d["budget"] is not None:  # every agent's parameter from here on
        agents = [a.at_budget(d["budget"], game) for a in agents]
    check_game_options(get_game(game), d["options"])
    with errors_in("levels"):
        seeds = level_seeds(game, d["levels"])
    if not seeds:
        raise field_error("levels", "no level")
    seats = seats_of(game, seeds[0], d["options"])
    for i, table in enumerate(pairings or []):
        if len(table) != seats:
            raise field_error(f"pairings[{i}]", f"{len(table)} agents for a {seats}-player game")
    if pairings is None and len(agents) < seats:
        raise field_error("agents", f"a {seats}-player game needs at least {seats} agents")
    return TournamentConfig(agents=agents, pairings=pairings, game=game, levels=d["levels"],
                            repetitions=d["repetitions"], options=d["options"],
                            seed=d["seed"])


def _pairings(given: list, labels: list[str]) -> list[tuple[int, ...]]:
    """The tables as indices into the agents: each [agent, opponent, ...] by label."""
    pairings = []
    for i, pair in enumerate(given):
        if not (isinstance(pair, (list, tuple)) and len(pair) >= 2):
            raise field_error(f"pairings[{i}]", "expected [agent, opponent, ...], one agent "
                                                "per player")
        idx = []
        for who in pair:
            if who not in labels:
                raise field_error(f"pairings[{i}]", f"unknown agent {short(who)} (agents: "
                                                    f"{labels})")
            idx.append(labels.index(who))
        pairings.append(tuple(idx))
    return pairings


def with_controls(agents: list[AgentSpec], pairings: list[tuple[int, ...]] | None
                  ) -> tuple[list[AgentSpec], list[tuple[int, ...]] | None]:
    """The agents with the default-weight control of every evolved agent among them
    (`play.presets.weight_controls`), and the pairings with, for each table that seats an
    evolved agent, the same table with its control in that seat (None: every table, as
    before)."""
    controls = weight_controls(agents)
    if not controls:
        return agents, pairings
    labels = {a.display() for a in agents}
    for c in controls:
        if c.display() in labels:
            raise ValueError(f"agents: the label {c.display()!r} is taken; it names the "
                             "default-weight control of the evolved agents (or set controls: "
                             "false)")
    out = list(agents) + controls
    if pairings is None:
        return out, None
    index = {}
    for i, a in enumerate(agents):
        params = dict(a.params)
        if params.get("weights"):
            rest = tuple(sorted((k, v) for k, v in params.items() if k != "weights"))
            index[i] = next(len(agents) + j for j, c in enumerate(controls)
                            if c.name == a.name and tuple(c.params) == rest)
    more = list(pairings)
    for table in pairings:
        for seat, who in enumerate(table):
            if who in index:
                twin = table[:seat] + (index[who],) + table[seat + 1:]
                if twin not in more:
                    more.append(twin)
    return out, more


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament YAML file (a syntax error names the file and line)."""
    return config_from_dict(read_yaml(path), source=str(path))
