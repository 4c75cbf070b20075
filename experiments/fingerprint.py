"""Behaviour fingerprints: does a committed result still describe what the code does?

A fingerprint is the digest of a short, fixed set of games per game and agent family:

* ``GAME``: two games of random players (the rules and the level generator);
* ``GAME/AGENT``: the agent at a small budget against the game's probe opponent (its
  rule-based player where it has one, else random players), in every seat of two short games
  (one player alone in a one-player game);
* ``qd``: a tiny evolution run through the command line (MAP-Elites, the paper's emitter,
  no noise handling: the archive as evolution left it);
* ``qd/reestimate``: the same run with the elites re-estimated on fresh games once evolution
  ends (``noise: {method: reestimate}``);
* ``new_game:demo/AGENT``: the agent on the starter game of `playstyles new-game`.

A game's digest covers every action of its games and their results.

The games are deterministic (fixed levels, seeds and budgets), so a digest changes when the
rules or the agent choose differently in these games, and stays the same through any change
that leaves them alone (a move of code, a faster data structure). It is a sample: a change
that only shows past these games' rounds or budgets can slip through.

Every folder under experiments/results/ holds `produced.json` (a result inside it may hold its
own), naming the commit its numbers came from and the digests, at that commit, of the games and
agents they depend on. A result is
*stale* when one of its digests differs from the current code's. The digests of an old commit
are computed by this file run against that commit's code (`--at COMMIT`: a temporary git
worktree; the imports below follow the code's moves).

    python experiments/fingerprint.py                      # the current digests
    python experiments/fingerprint.py --stale              # the stale results, and why
    python experiments/fingerprint.py --mark-docs          # and mark the pages quoting them
    python experiments/fingerprint.py --record DIR --commit C --keys tribes/mcts tribes
                                                           # write DIR/produced.json
    python experiments/fingerprint.py --record DIR --commit C --keys --how "a timing ..."
                                                           # a result no game's play changes
    python experiments/fingerprint.py --at C --keys ...    # the digests of commit C's code
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
PRODUCED = "produced.json"
FORMAT = 1
DIGEST_CHARS = 16

PROBES: dict[str, dict] = {
    "tribes": {"options": {"max_rounds": 30}, "levels": [1590191438878, 1590191501930, 3],
               "budget": 30, "opponent": "rule_based",
               "rules": {"options": {"max_rounds": 50},
                         "levels": [1590191438878, 1590191501930, 1, 2, 3, 4, 5, 6]}},
    "tribolo": {"options": {}, "levels": [0, 1], "budget": 60, "opponent": "tribolo_ai"},
    "navy": {"options": {}, "levels": [0, 1], "budget": 200},
    "openspiel:tic_tac_toe": {"options": {}, "levels": [0, 1], "budget": 60},
}
"""Per game: the options that keep its agents' probe games short, two levels and the agents'
budget; the agents' opponent (default random: a rule-based player fights, so its games see
more of the rules); `rules`: other options and levels for the random games of the key
``GAME`` (longer games on more levels see more of the rules)."""

SKIPPED = ("human",)
"""Agents that need a person."""

QD_RUN = {"name": "fingerprint", "game": "tribes", "options": {"max_rounds": 5},
          "levels": {"train": "seeds:11,12", "held_out": "seeds:13,14"},
          "agent": {"name": "pmcts_pu", "budget": 12}, "opponent": {"name": "mcts"},
          "repetitions": 1,
          "features": [{"name": "research_slope", "range": [0.0, 1.0], "width": 0.25},
                       {"name": "tile_slope", "range": [0.0, 2.0], "width": 0.5}],
          "emitter": {"kind": "paper", "batch_size": 4, "initial_random": 4},
          "evaluations": 12, "seed": 5}
"""The tiny evolution run of the keys ``qd`` and ``qd/NOISE``."""
QD_NOISE = {"qd": "none", "qd/reestimate": "reestimate"}
"""Each ``qd`` key and the noise method its run names. A key pins its method, so a result of
plain MAP-Elites is not dated by a change that only touches another method (or the default)."""
QD_COLUMNS = ("index", "wins", "games", "mean_score", "objective")
"""The columns of the run's elites.csv that a ``qd`` key digests, besides the genome's weights
and the measures (`measure_*`): where each elite sits, what it is, and what its games gave.
Summary columns a later version adds, and those that time games, are left out."""
STARTER = "new_game:demo"
"""The key of the starter game of `playstyles new-game` (written to a temporary folder)."""


def _runner():
    """The runner module of the code on sys.path (it moved between packages over time)."""
    try:
        import play.runner as runner
    except ImportError:
        import agents.runner as runner
    return runner


def _budget_apart(runner) -> bool:
    """Whether the code's games carry the budget beside their agents (older code:
    `GameSpec.budget`, handed to every `act`); the current code has it only among each
    agent's parameters."""
    import dataclasses
    return "budget" in {f.name for f in dataclasses.fields(runner.GameSpec)}


def _agents_of(game: str) -> list[str]:
    from agents.registry import agent_names
    try:
        names = agent_names(game)
    except TypeError:  # older code: one list for every game
        names = agent_names()
    return [n for n in names if n not in SKIPPED]


def _play(runner, spec) -> str:
    """Play one probe game; the SHA-256 of every action and of the result."""
    state = runner.new_state(spec)
    agents = []
    for a, seed in zip(spec.agents, spec.agent_seeds):
        try:
            agents.append(a.build(seed, spec.game))
        except TypeError:  # older code: agents built without the game
            agents.append(a.build(seed))
    actions: list[str] = []
    apart = {"budget": spec.budget} if _budget_apart(runner) else {}
    runner.play_game(state, agents, on_action=lambda a: actions.append(repr(a)), **apart)
    players = range(state.num_players)
    data = {"actions": actions, "winner": state.winner(), "ranking": list(state.ranking()),
            "rounds": state.tick, "events": [list(e) for e in state.events()],
            "summaries": [dict(sorted(state.summary(p).items())) for p in players]}
    text = json.dumps(data, sort_keys=True, default=float)
    return hashlib.sha256(text.encode()).hexdigest()


def _games(game: str, agent: str | None) -> list[str]:
    """The digests of the probe games of `agent` (None: random players only) in `game`."""
    runner = _runner()
    probe = PROBES[game]
    if agent is None:
        probe = {**probe, **probe.get("rules", {})}
    options = tuple(sorted(probe["options"].items()))
    players = runner.new_state(runner.GameSpec(
        game=game, level=probe["levels"][0], seed=0, agents=(), agent_seeds=(),
        options=options)).num_players
    budget = probe["budget"]  # every player's that takes a budget
    apart = _budget_apart(runner)

    def seat_of(name: str):
        a = runner.AgentSpec(name)
        return a if apart else a.at_budget(budget, game)

    out = []
    for k, level in enumerate(probe["levels"]):
        for seat in range(players if agent is not None else 1):
            seats = [seat_of(probe.get("opponent", "random") if agent else "random")
                     for _ in range(players)]
            if agent is not None:
                seats[seat] = seat_of(agent)
            spec = runner.GameSpec(game=game, level=level, seed=1000 + 10 * k + seat,
                                   agents=tuple(seats),
                                   agent_seeds=tuple(7 * k + p for p in range(players)),
                                   options=options, **({"budget": budget} if apart else {}))
            out.append(_play(runner, spec))
    return out


def _code_root() -> Path:
    import games
    return Path(games.__file__).resolve().parent.parent


def _qd_digest(noise: str) -> str:
    """The digest of the tiny evolution run `QD_RUN` with the noise method `noise`, played by
    the code on sys.path."""
    import io

    import pandas as pd
    import yaml
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "run.yaml"
        config.write_text(yaml.safe_dump({**QD_RUN, "noise": {"method": noise}}))
        env = {**os.environ, "PYTHONPATH": str(_code_root()), "RAY_USAGE_STATS_ENABLED": "0"}
        subprocess.run([sys.executable, "-m", "playstyles", "evolve", str(config), "--out",
                        str(Path(tmp) / "run"), "--workers", "0", "--quiet"], check=True,
                       env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        frame = pd.read_csv(Path(tmp) / "run" / "elites.csv")
    weights = list(frame.columns[frame.columns.get_loc("index") + 1:
                                 frame.columns.get_loc("win_rate")])
    measures = [c for c in frame.columns if c.startswith("measure_")]
    frame = frame[[*QD_COLUMNS, *weights, *measures]].sort_values("index")
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return hashlib.sha256(buf.getvalue().encode()).hexdigest()


def _starter_probe() -> None:
    """Make the starter game `demo` known to this process (written to a temporary folder)."""
    from games.registry import register_plugin
    try:
        from games.new_game import write_starter
    except ImportError:  # older code: new-game in play/
        from play.new_game import write_starter
    folder = Path(tempfile.mkdtemp(prefix="fingerprint_")) / "demo"
    write_starter("demo", folder)
    sys.path.insert(0, str(folder))
    register_plugin("demo", "demo_game.plugin")
    PROBES["demo"] = {"options": {}, "levels": [0, 1], "budget": 60}


def digest(key: str) -> str | None:
    """The digest of one key (``GAME``, ``GAME/AGENT``, ``qd``, ``qd/reestimate``,
    ``new_game:demo/AGENT``); None where the code has no such game or agent."""
    if key in QD_NOISE:
        try:
            h = hashlib.sha256(_qd_digest(QD_NOISE[key]).encode())
        except subprocess.CalledProcessError as e:  # a run config this code does not take
            print(f"fingerprint: {key}: {e.stderr.decode(errors='replace')[-300:]}",
                  file=sys.stderr)
            return None
        return h.hexdigest()[:DIGEST_CHARS]
    if key.split("/")[0] == STARTER:
        try:
            if "demo" not in PROBES:
                _starter_probe()
        except ImportError:  # code without new-game
            return None
        key = "demo" + key[len(STARTER):]
    game, _, agent = key.partition("/")
    if game not in PROBES:
        raise ValueError(f"fingerprint: unknown game {game!r} in {key!r} (known: "
                         f"{', '.join(PROBES)})")
    try:
        if agent and agent not in _agents_of(game):
            return None
        games = _games(game, agent or None)
    except Exception as e:  # noqa: BLE001 - a game or an agent the code lacks, an agent that
        # refuses the game, an older code's other interface: nothing to compare
        print(f"fingerprint: {key}: {type(e).__name__}: {e}", file=sys.stderr)
        return None
    h = hashlib.sha256("".join(games).encode())
    return h.hexdigest()[:DIGEST_CHARS]


def all_keys() -> list[str]:
    """Every key of the current code: each probed game, and each of its agents."""
    keys = list(QD_NOISE)
    for game in PROBES:
        keys.append(game)
        keys += [f"{game}/{a}" for a in _agents_of(game)]
    return keys + [f"{STARTER}/pmcts_pu"]


def fingerprint(keys: list[str] | None = None) -> dict[str, str | None]:
    """Key -> digest for `keys` (default: `all_keys()`)."""
    return {k: digest(k) for k in (all_keys() if keys is None else keys)}


def at_commit(commit: str, keys: list[str]) -> dict[str, str | None]:
    """The digests of `keys` computed with the code of `commit` (this file's games, that
    commit's rules and agents), in a temporary git worktree."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree),
                        commit], check=True)
        try:
            env = {**os.environ, "PYTHONPATH": str(tree), "RAY_USAGE_STATS_ENABLED": "0"}
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--json",
                                  "--keys", *keys], env=env, cwd=tree, capture_output=True,
                                 text=True)
            if out.returncode:
                raise RuntimeError(f"fingerprint at {commit}: {out.stderr.strip()}")
            return json.loads(out.stdout)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=False)


def read_produced(folder: Path) -> dict:
    """A results folder's produced.json, checked."""
    path = folder / PRODUCED
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT or not isinstance(data.get("fingerprint"), dict) \
            or not isinstance(data.get("commit"), str):
        raise ValueError(f"{path}: expected format {FORMAT} with commit and fingerprint")
    return data


def stale(current: dict[str, str | None] | None = None) -> list[tuple[str, list[str]]]:
    """(results folder, the keys whose digests differ) for every stale result."""
    folders = sorted(p.parent for p in RESULTS.glob(f"**/{PRODUCED}"))
    records = {f: read_produced(f) for f in folders}
    keys = sorted({k for r in records.values() for k in r["fingerprint"]})
    now = fingerprint(keys) if current is None else current
    out = []
    for folder, rec in records.items():
        differ = [k for k, v in rec["fingerprint"].items() if now.get(k) != v]
        if differ:
            out.append((folder.relative_to(ROOT).as_posix(), differ))
    return out


DOCS = ("README.md", "docs/*.md")
"""The pages whose quotes of results are marked when a result is stale."""
MARK_START = "<!-- stale results: written by experiments/fingerprint.py --mark-docs -->"
MARK_END = "<!-- end of stale results -->"


def doc_pages() -> list[Path]:
    return sorted({p for pattern in DOCS for p in ROOT.glob(pattern)})


def quoted(text: str, folder: str) -> bool:
    """Whether a page quotes the results folder `folder` (experiments/results/NAME)."""
    return any(f"{folder}{end}" in text for end in ("/", "`", ")", " ", ",", ".", "\n", ":"))


def marking(text: str, stale_results: list[tuple[str, list[str]]]) -> str:
    """The page with its stale-results notice as it should be: one block after the title
    listing every stale result the page quotes (none: no block)."""
    if MARK_START in text:
        head, _, rest = text.partition(MARK_START)
        _, _, tail = rest.partition(MARK_END)
        text = head.rstrip("\n") + "\n\n" + tail.lstrip("\n") if head.strip() \
            else tail.lstrip("\n")
    listed = [(f, keys) for f, keys in stale_results if quoted(text, f)]
    if not listed:
        return text
    lines = [MARK_START,
             "> **Stale results.** The code now plays differently the games these results "
             "depend on (`python experiments/fingerprint.py --stale`); their numbers describe "
             "the code of the commit named in each folder's produced.json, until they are "
             "played again:"]
    lines += [f"> - `{f}` ({', '.join(keys)})" for f, keys in listed]
    lines.append(MARK_END)
    first, sep, rest = text.partition("\n")
    if first.startswith("# "):
        return first + "\n\n" + "\n".join(lines) + "\n" + ("\n" + rest.lstrip("\n") if rest else "")
    return "\n".join(lines) + "\n\n" + text


def mark_docs(stale_results: list[tuple[str, list[str]]]) -> list[Path]:
    """Rewrite every page whose notice is not what `marking` gives; the pages changed."""
    changed = []
    for page in doc_pages():
        text = page.read_text()
        new = marking(text, stale_results)
        if new != text:
            page.write_text(new)
            changed.append(page)
    return changed


def record(folder: Path, commit: str, keys: list[str], how: str) -> dict:
    """Write `folder`/produced.json: the commit and its digests of `keys`."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", commit], check=True,
                          capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    digests = {} if not keys else fingerprint(keys) if full == head else \
        at_commit(full, keys)
    data = {"format": FORMAT, "commit": full, "how": how,
            "fingerprint": dict(sorted(digests.items()))}
    (folder / PRODUCED).write_text(json.dumps(data, indent=2) + "\n")
    return data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", nargs="*", help="GAME or GAME/AGENT (default: every key; "
                    "none after --keys: a result that depends on no game, with --record)")
    ap.add_argument("--json", action="store_true", help="print the digests as JSON only")
    ap.add_argument("--stale", action="store_true", help="list the stale results")
    ap.add_argument("--mark-docs", action="store_true",
                    help="list them and rewrite the notice of every page that quotes one")
    ap.add_argument("--at", metavar="COMMIT", help="the digests of that commit's code")
    ap.add_argument("--record", metavar="DIR", type=Path,
                    help="write DIR/produced.json (with --commit and --keys)")
    ap.add_argument("--commit", default="HEAD", help="the commit DIR's numbers came from")
    ap.add_argument("--how", default="produced by this commit",
                    help="how the commit is known (for --record)")
    args = ap.parse_args()
    if args.stale or args.mark_docs:
        found = stale()
        for folder, keys in found:
            print(f"stale: {folder} ({', '.join(keys)})")
        print(f"{len(found)} stale result(s)" if found else "no stale result")
        if args.mark_docs:
            for page in mark_docs(found):
                print(f"marked: {page.relative_to(ROOT)}")
        return 0
    if args.record:
        if args.keys is None:
            ap.error("--record needs --keys (none after it for a timing or tooling result)")
        print(json.dumps(record(args.record, args.commit, args.keys, args.how), indent=2))
        return 0
    digests = at_commit(args.at, args.keys or all_keys()) if args.at else \
        fingerprint(args.keys)
    print(json.dumps(digests, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
