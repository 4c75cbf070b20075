"""Choosing a new game's `search_horizon` and its evaluator's scale, measured on the starter
game of `playstyles new-game` (docs/new-game.md, "Search horizon and evaluator scale").

1. Scale: P-MCTS PU plays the same games with the starter's evaluator and with the same
   evaluator times 100 plus 7; the script counts the games whose actions are identical
   (search normalises values per node, so an affine change of scale should change nothing).
   As a control, the same games with the neutral `outcome` evaluator, which should differ.
2. Horizon: P-MCTS PU with `horizon=H` plays the default (the game's `search_horizon`, 8)
   at the same budget, for each H, on the game's 10 default levels, seats alternating.
   Each row: games, the H agent's score (a win 1, a draw 1/2) with its Wilson 95% interval,
   and an exact binomial test of wins against losses (draws left out), Holm-corrected over
   the rows.

Writes games.csv (one row per game) and summary.csv/summary.md with the command and the
commit the numbers came from.

    python experiments/new_game_tuning.py --budget 100 --repetitions 10 --workers 2 \\
        --out experiments/results/new_game
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.evaluators import register_evaluator  # noqa: E402
from base.files import atomic_write  # noqa: E402
from base.stats import holm, wilson_interval  # noqa: E402
from games.new_game import write_starter  # noqa: E402
from games.registry import register_plugin  # noqa: E402
from play.runner import AgentSpec, GameSpec, run_game  # noqa: E402
from play.tournament import TournamentConfig, run_tournament  # noqa: E402

GAME = "demo"
HORIZONS = (1, 2, 4, 16, 40)


def starter() -> None:
    """The starter package of `demo` in a temporary folder, known to this process and (through
    the plug-in's import path) to Ray workers."""
    folder = Path(tempfile.mkdtemp(prefix="new_game_tuning_")) / GAME
    write_starter(GAME, folder)
    sys.path.insert(0, str(folder))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(folder)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    register_plugin(GAME, f"{GAME}_game.plugin")


class Scaled:
    """An evaluator times `factor` plus `offset`."""

    def __init__(self, inner, factor: float, offset: float) -> None:
        self.inner, self.factor, self.offset = inner, factor, offset

    def evaluate(self, root, leaf, player: int) -> float:
        return self.factor * self.inner.evaluate(root, leaf, player) + self.offset


def scale_check(games: int, budget: int) -> pd.DataFrame:
    """Each game played twice, with the evaluator and with it scaled: are the games equal?"""
    from demo_game.knowledge import CellsAhead
    register_evaluator(GAME, "scaled", lambda: Scaled(CellsAhead(), 100.0, 7.0))
    rows = []
    for k in range(games):
        events = []
        for ev in ("cells_ahead", "scaled", "outcome"):
            agent = AgentSpec.of("pmcts_pu", evaluator=ev, budget=budget)
            spec = GameSpec(game=GAME, level=k % 10, seed=k, agents=(agent, agent),
                            agent_seeds=(2 * k, 2 * k + 1))
            events.append(run_game(spec).events)
        rows.append({"game": k, "level": k % 10, "actions": len(events[0]),
                     "identical": events[0] == events[1],
                     "identical_with_outcome": events[0] == events[2]})
    return pd.DataFrame(rows)


def horizon_sweep(budget: int, repetitions: int, workers: int | None, seed: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every horizon against the default; the games and one summary row per horizon."""
    agents = [AgentSpec.of("pmcts_pu", label="default", budget=budget)]
    agents += [AgentSpec.of("pmcts_pu", label=f"horizon={h}", horizon=h, budget=budget)
               for h in HORIZONS]
    config = TournamentConfig(agents=agents, game=GAME, repetitions=repetitions,
                              pairings=[(i, 0) for i in range(1, len(agents))], seed=seed)
    games, _ = run_tournament(config, workers=workers)
    rows = []
    for label, g in games.groupby("agent", sort=False):
        credit = [r[f"p{int(r['agent_seat'])}_result"] for _, r in g.iterrows()]
        wins = sum(c == 1.0 for c in credit)
        losses = sum(c == 0.0 for c in credit)
        low, high = wilson_interval(sum(credit), len(credit))
        p = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
        rows.append({"agent": label, "games": len(credit), "wins": wins, "draws":
                     len(credit) - wins - losses, "losses": losses,
                     "score": sum(credit) / len(credit), "ci_low": low, "ci_high": high,
                     "p": p})
    summary = pd.DataFrame(rows)
    summary["holm_differs"] = holm(summary["p"].tolist())
    return games, summary


def commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                "games", "agents", "play", "qd"], capture_output=True,
                               text=True).stdout.strip()
        return out + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--repetitions", type=int, default=10, help="games per level and pairing")
    ap.add_argument("--scale-games", type=int, default=10)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    starter()
    scale = scale_check(args.scale_games, args.budget)
    same = f"{int(scale['identical'].sum())} of {len(scale)}"
    control = f"{int(scale['identical_with_outcome'].sum())} of {len(scale)}"
    print(f"scale: {same} games identical with the evaluator x100 + 7, {control} with the "
          f"outcome evaluator (budget {args.budget})")
    games, summary = horizon_sweep(args.budget, args.repetitions, args.workers, args.seed)
    lines = ["| P-MCTS PU vs the default (horizon 8) | games | W-D-L | score | 95% interval "
             "| p | differs (Holm) |", "|---|---|---|---|---|---|---|"]
    for r in summary.itertuples():
        lines.append(f"| {r.agent} | {r.games} | {r.wins}-{r.draws}-{r.losses} | "
                     f"{r.score:.2f} | {r.ci_low:.2f}-{r.ci_high:.2f} | {r.p:.3g} | "
                     f"{'yes' if r.holm_differs else 'no'} |")
    command = ("python experiments/new_game_tuning.py " + " ".join(sys.argv[1:])).strip()
    text = "\n".join([
        "# Search horizon and evaluator scale on the starter game", "",
        f"Command: `{command}`; code: commit {commit()}.", "",
        f"Scale: P-MCTS PU with the starter's evaluator and with that evaluator x100 + 7 "
        f"played {same} games identically; with the neutral `outcome` evaluator instead, "
        f"{control} games were identical (budget {args.budget}; per game: scale.csv).", "",
        f"Horizon: each row {args.repetitions} games per level on the 10 default levels, "
        f"seats alternating, budget {args.budget} forward-model calls per decision, "
        "against P-MCTS PU at the game's search_horizon (8); score: a win 1, a draw 1/2, "
        "Wilson 95% interval; p: exact binomial test of wins against losses; Holm over the "
        "rows. Per game: games.csv.", ""] + lines) + "\n"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "games.csv", games.to_csv(index=False))
        atomic_write(args.out / "scale.csv", scale.to_csv(index=False))
        atomic_write(args.out / "summary.csv", summary.to_csv(index=False))
        atomic_write(args.out / "summary.md", text)


if __name__ == "__main__":
    main()
