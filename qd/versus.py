"""Seeing two play-styles (`playstyles versus RUN CELL_A CELL_B`): the elites of two cells and
the control (the run's default-weight genome) play the same games, and their boards are drawn
side by side at a few rounds, with each genome's feature tallies beside them.

Games: exactly those of a validation (`qd.validation.plan_games` with the control and
`validation_key`): game g has the same level, seat and seeds for every genome (common random
numbers), on the run's held-out levels by default. Game g of a cell here is game g of that
cell in `playstyles validate` on the same levels (the same key, the same g), so its result
can be read beside validation_games.csv.

Boards: a game is played once, keeping its actions (`play.runner.run_game`'s `on_action`, in
a Ray task or in this process), then replayed in this process to the rounds asked for, where
the game's own renderer (`render_image` of its game object) draws each genome's board; the
boards of one game and round are put side by side in one PNG, each labelled with its cell and
style words. A round is the board at the start of that round (after that many rounds); a game
that ended sooner shows its final board, and a round no genome's game reached is not drawn.
A game without `render_image` gets no images (versus.md says so), the rest as usual.

Files in the output folder (default `RUN/versus/<A>_vs_<B>/`; new or empty, or an earlier
versus's with `force`):

    versus.csv                one row per genome and game: seeds, result, every feature
    versus.md                 per genome: win rate, games and the mean of every feature
    game<g>_round<r>.png      the boards of game g at round r (and game<g>_end.png)
    records/game<g>_<cell>.json  each game as a record (`playstyles replay` shows it turn by
                              turn, or draws every board with --images)
"""

from __future__ import annotations

import re
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from base.files import atomic_write, check_folder, claim_folder, save_figure
from base.limits import MAX_ROUNDS
from base.progress import Progress, counted
from games.recording import make_record, save_record
from games.registry import get_game
from play.game_pool import run_games
from play.ray_session import check_playable, ray_session
from play.runner import GameRecord, GameSpec, new_state, run_game
from qd.export import style_name
from qd.features import PlayerGame, features_of, per_game
from qd.genome_games import credit
from qd.rundir import ELITES, RunFiles, mean_column, number_text
from qd.validation import CONTROL, plan_games, run_elites, validation_key, validation_levels

VERSUS = "versus"
"""The command, as its output folder's marker names it."""
TABLE = "versus.csv"
REPORT = "versus.md"
RECORDS = "records"
FILES = (TABLE, REPORT, RECORDS, "game*_round*.png", "game*_end.png")
"""What versus writes in its folder (names or patterns): a folder holding anything else is
not one (`base.files.check_folder`)."""
"""The subfolder of the games' records."""
FOLDER = "versus"
"""The run directory's subfolder of the default output folders."""

END = "end"
"""A round of `rounds`: each game's final board."""
DEFAULT_ROUNDS = (5, 10, END)
MAX_BOARD_ROUNDS = 20
"""The most rounds one call draws."""
MAX_CELLS = 4
"""The most cells one call compares (the control is drawn beside them)."""
LETTERS = "ABCD"


@dataclass
class VersusResult:
    """What `versus` wrote.

    Args:
        out: the output folder.
        table: versus.csv (one row per genome and game).
        images: the side-by-side board images, in game and round order.
        records: the games' records.
        note: why no image was drawn (None: images were drawn).
        files: every file written.
    """

    out: Path
    table: pd.DataFrame
    images: list[Path] = field(default_factory=list)
    records: list[Path] = field(default_factory=list)
    note: str | None = None
    files: list[Path] = field(default_factory=list)


# ------------------------------------------------------------------------------ arguments

def sanitise(cell: str) -> str:
    """A cell's name as part of a file name: `0.25:-1` -> `0.25_-1`.

    Args:
        cell: the cell, as elites.csv names it.
    """
    text = re.sub(r"[^A-Za-z0-9.+-]+", "_", str(cell)).strip("._")
    return text or "cell"


def default_out(run_dir: str | Path, cells: Sequence[str]) -> Path:
    """`RUN/versus/<A>_vs_<B>`: the default output folder of `versus`.

    Args:
        run_dir: the run directory.
        cells: the cells compared.
    """
    return Path(run_dir) / FOLDER / "_vs_".join(sanitise(c) for c in cells)


def board_round(value: Any) -> int | str:
    """One entry of `rounds`: a round number (0: the starting board) or `end` (also `last`);
    anything else is a ValueError naming `rounds`.

    Args:
        value: the entry, as given (a number or a text).
    """
    if isinstance(value, str):
        text = value.strip().lower()
        if text in (END, "last"):
            return END
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"rounds: a round number or {END!r} expected, got "
                             f"{value[:40]!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"rounds: a round number or {END!r} expected, got {value!r}")
    if not 0 <= int(value) <= MAX_ROUNDS:
        raise ValueError(f"rounds: a round from 0 to {MAX_ROUNDS}, got {value}")
    return int(value)


def check_rounds(rounds: Sequence[Any]) -> list[int | str]:
    """The rounds to draw, checked (`board_round`), each once: the numbers in order, then
    `end`.

    Args:
        rounds: round numbers and/or `end`.
    """
    if isinstance(rounds, (str, int)):
        rounds = [rounds]
    out = list(dict.fromkeys(board_round(r) for r in rounds))
    if not out:
        raise ValueError("rounds: give at least one round (a number or 'end')")
    if len(out) > MAX_BOARD_ROUNDS:
        raise ValueError(f"rounds: at most {MAX_BOARD_ROUNDS} rounds, got {len(out)}")
    numbers = sorted(r for r in out if r != END)
    return [*numbers, *([END] if END in out else [])]


def _chosen(elites: pd.DataFrame, cells: Sequence[str], run_dir: Path) -> pd.DataFrame:
    """The rows of `cells`, in that order; an unknown cell is one error listing the known."""
    if isinstance(cells, str):
        cells = [cells]
    cells = [str(c).strip() for c in cells]
    if not cells or len(cells) > MAX_CELLS:
        raise ValueError(f"cells: give 1 to {MAX_CELLS} cells, got {len(cells)}")
    twice = sorted({c for c in cells if cells.count(c) > 1})
    if twice:
        raise ValueError(f"cells: {', '.join(twice)} given twice; give different cells")
    known = elites["cell"].astype(str).tolist()
    for c in cells:
        if c not in known:
            shown = ", ".join(known[:30]) + (f", ... ({len(known)} in all)"
                                             if len(known) > 30 else "")
            extra = (" (the control always plays beside the cells)" if c == CONTROL else "")
            raise ValueError(f"cells: {c!r} holds no elite in {run_dir / ELITES}{extra}; "
                             f"known cells: {shown}")
    return elites.set_index(elites["cell"].astype(str)).loc[cells].reset_index(drop=True)


# ------------------------------------------------------------------------------ playing

def play_recorded(spec: GameSpec) -> tuple[GameRecord, list]:
    """One game (`play.runner.run_game`) and its actions as data (`action_to_data`), to
    replay it position by position; a module-level function, so a Ray task can run it.

    Args:
        spec: the game.
    """
    actions: list = []
    rec = run_game(spec, on_action=actions.append)
    game = get_game(spec.game)
    return rec, [game.action_to_data(a) for a in actions]


def _replay_boards(spec: GameSpec, actions: Sequence[Any], rec: GameRecord,
                   rounds: Sequence[int | str], draw, where: Path, name: str
                   ) -> dict[int | str, tuple[Path, int, bool]]:
    """Replay a game and draw its board at each of `rounds`: round -> (image, the board's
    round, whether the game reached that round). An unreached round shows the final board."""
    game = get_game(spec.game)
    state = new_state(spec)
    wanted = [r for r in rounds if r != END]
    out: dict[int | str, tuple[Path, int, bool]] = {}

    def catch_up() -> None:
        while wanted and state.tick >= wanted[0]:
            r = wanted.pop(0)
            path = where / f"{name}_{r}.png"
            draw(state, path)
            out[r] = (path, int(state.tick), True)

    catch_up()
    for i, raw in enumerate(actions):
        action = game.action_from_data(raw)
        if action not in state.legal_actions():
            raise RuntimeError(f"{name}: action {i} ({raw}) of the game is not legal when it "
                               f"is replayed")
        state.apply(action)
        catch_up()
    if not state.is_terminal() or state.tick != rec.rounds:
        raise RuntimeError(f"{name}: replaying the game's {len(actions)} actions did not "
                           f"reproduce it (round {state.tick} of {rec.rounds})")
    last = where / f"{name}_{END}.png"
    draw(state, last)
    for r in wanted:
        out[r] = (last, int(state.tick), False)
    out[END] = (last, int(state.tick), True)
    return out


def _compose(panels: Sequence[tuple[Path, str]], title: str, path: Path) -> Path:
    """Board images side by side at their own size, each under its label, with a title."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    images = [mpimg.imread(p) for p, _ in panels]
    gap, header, top = 16, 74, 26  # pixels
    widths = [im.shape[1] for im in images]
    height = max(im.shape[0] for im in images)
    width = sum(widths) + gap * (len(images) + 1)
    total = height + header + gap
    fig = plt.figure(figsize=(width / 100, total / 100), dpi=100)
    fig.text(0.5, 1 - 6 / total, title, ha="center", va="top", fontsize=10, fontweight="bold")
    x = gap
    for im, (_, label), w in zip(images, panels, widths):
        h = im.shape[0]
        ax = fig.add_axes((x / width, (gap + height - h) / total, w / width, h / total))
        ax.imshow(im, interpolation="none")
        ax.set_axis_off()
        wrapped = "\n".join(textwrap.fill(line, max(20, w // 7)) for line in label.split("\n"))
        fig.text((x + w / 2) / width, 1 - top / total, wrapped, ha="center", va="top",
                 fontsize=8)
        x += w + gap
    save_figure(fig, path, dpi=100)
    plt.close(fig)
    return path


# ------------------------------------------------------------------------------ tables

def _result_text(won: float, players: int) -> str:
    """The game's result in words, for a board's label."""
    if players == 1:
        return "played alone"
    if won >= 1:
        return "game won"
    return "game lost" if won <= 0 else f"first place shared ({number_text(won)})"


def _mean_text(values: np.ndarray) -> str:
    """The mean over the games where a feature is defined, with their count when that is
    not every game."""
    ok = values[~np.isnan(values)]
    if ok.size == 0:
        return "-"
    text = number_text(float(ok.mean()))
    return text if ok.size == values.size else f"{text} ({ok.size} of {values.size} games)"


def _markdown(title: str, heads: Sequence[str], styles: Sequence[str], rows: pd.DataFrame,
              keys: Sequence[str], grid: Sequence[str], features: Sequence[Any],
              intro: Sequence[str], boards: Sequence[str]) -> str:
    """versus.md: per genome (a column), its style, games, win rate and the mean of every
    feature (a row each, the grid's first)."""
    lines = [f"# {title}", "", *intro, ""]
    lines += ["| | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
    lines.append("| style | " + " | ".join(s or "-" for s in styles) + " |")
    per = [rows[rows["cell"] == k] for k in keys]
    lines.append("| games | " + " | ".join(str(len(p)) for p in per) + " |")
    wins = [float(p["won"].sum()) for p in per]
    lines.append("| win rate | " + " | ".join(
        f"{number_text(w / len(p), True)} ({number_text(w)} of {len(p)})" if len(p) else "-"
        for w, p in zip(wins, per)) + " |")
    for f in features:
        name = f"{f.name} (grid)" if f.name in grid else f.name
        lines.append(f"| {name} | " + " | ".join(
            _mean_text(p[f.name].to_numpy(float)) for p in per) + " |")
    lines += ["", "Each value is the mean over the games (a feature undefined in a game, such "
                  "as the round of victory in a lost game, counts only where it is defined)."]
    lines += ["", *boards]
    return "\n".join(lines) + "\n"


def _table(genomes: Sequence[str], results: Sequence[Any], games: int,
           features: Sequence[Any]) -> pd.DataFrame:
    """versus.csv: one row per genome and game (genome-major): the game's level, the genome's
    seat, side (what it controlled) and seeds, its share of first place, and every feature's
    value in the game."""
    rows = []
    for k, key in enumerate(genomes):
        mine = results[k * games:(k + 1) * games]
        pgs = [PlayerGame.from_record(rec, int(rec.spec.tag[2])) for rec, _ in mine]
        values = per_game(pgs, features)
        for g, (rec, _) in enumerate(mine):
            s, seat = rec.spec, int(rec.spec.tag[2])
            row: dict[str, Any] = {
                "cell": key, "game": g, "level": s.level, "seat": seat,
                "side": rec.sides[seat], "game_seed": s.seed,
                "genome_seed": s.agent_seeds[seat],
                "opponent_seeds": " ".join(str(x) for p, x in enumerate(s.agent_seeds)
                                           if p != seat),
                "won": credit(rec, seat)}
            for f in features:
                row[f.name] = float(values[f.name][g])
            rows.append(row)
    return pd.DataFrame(rows)


def _write_records(out: Path, game_name: str, genomes: Sequence[str], results: Sequence[Any],
                   games: int) -> list[Path]:
    """Each game as a record (`games.recording`), `records/game<g>_<cell>.json`."""
    game = get_game(game_name)
    paths = []
    for k, key in enumerate(genomes):
        for g in range(games):
            rec, actions = results[k * games + g]
            s = rec.spec
            seat = int(s.tag[2])
            who = f" (cell {key})" if key != CONTROL else f" ({CONTROL})"
            players = [a.display() + (who if p == seat else "") for p, a in enumerate(s.agents)]
            level = game.level(s.level, **dict(s.options))
            path = out / RECORDS / f"game{g}_{sanitise(key)}.json"
            save_record(make_record(game_name, game.level_text(level), s.seed, dict(s.options),
                                    players, actions), path)
            paths.append(path)
    return paths


def _no_images(game: Any, name: str) -> str | None:
    """Why no board can be drawn (None: they can)."""
    if not callable(getattr(game, "render_image", None)):
        return (f"No board images: the game {name!r} cannot draw one (its game object has no "
                f"render_image); versus.csv and the records hold the games.")
    try:
        import matplotlib  # noqa: F401 - every renderer and the side-by-side need it
    except ImportError:
        return "No board images: matplotlib is not installed."
    return None


def _draw_boards(out: Path, run_name: str, game: Any, results: Sequence[Any], games: int,
                 rounds: Sequence[int | str], labels: Sequence[str]
                 ) -> tuple[list[Path], list[str]]:
    """One side-by-side image per game and round (`game<g>_round<r>.png`, `game<g>_end.png`),
    the genomes in order; returns the images and the rounds not drawn (no game got there)."""
    images: list[Path] = []
    skipped: list[str] = []
    n = len(labels)
    with tempfile.TemporaryDirectory(prefix="versus-") as tmp:
        for g in range(games):
            played = [results[k * games + g] for k in range(n)]
            boards = [_replay_boards(rec.spec, actions, rec, rounds, game.render_image,
                                     Path(tmp), f"g{g}_k{k}")
                      for k, (rec, actions) in enumerate(played)]
            spec = played[0][0].spec
            for r in rounds:
                if r != END and not any(b[r][2] for b in boards):
                    skipped.append(f"game {g} round {r}")
                    continue
                panels = []
                for (rec, _), b, label in zip(played, boards, labels):
                    path, tick, reached = b[r]
                    when = (f"board at round {tick}" if r != END and reached else
                            f"final board, after {rec.rounds} rounds")
                    seat = int(rec.spec.tag[2])
                    result = _result_text(credit(rec, seat), len(rec.spec.agents))
                    panels.append((path, f"{label}\nas {rec.sides[seat]}: {result}; {when}"))
                name = f"game{g}_{END if r == END else f'round{r:02d}'}.png"
                what = "end of the game" if r == END else f"round {r}"
                title = f"{run_name}: game {g} (level {spec.level}, seat {spec.tag[2]}), {what}"
                images.append(_compose(panels, title, out / name))
    return images, skipped


def _remove_earlier(out: Path) -> None:
    """An earlier versus's own files in `out` (its marker says so), before it is written
    again: a smaller call leaves none of the earlier one's images behind."""
    mine = re.compile(r"(versus\.(csv|md)|game\d+_(round\d+|end)\.png)")
    for p in out.iterdir():
        if p.is_file() and mine.fullmatch(p.name):
            p.unlink()
    records = out / RECORDS
    if records.is_dir():
        for p in records.iterdir():
            if p.is_file() and re.fullmatch(r"game\d+_.+\.json", p.name):
                p.unlink()


# ------------------------------------------------------------------------------ versus

def _style_words(config, chosen: pd.DataFrame) -> list[str]:
    """Each chosen elite's style words (from elites.csv's means), then the control's."""
    grid = [f.name for f in config.features]
    ranges = {f.name: (f.lo, f.hi) for f in config.features}
    styles = []
    for row in chosen.to_dict("records"):
        values = {f: float(row[mean_column(f)]) for f in grid if mean_column(f) in row}
        styles.append(style_name(values, ranges, {f.name: f for f in config.features})
                      if len(values) == len(grid) else "")
    return styles + ["the run's agent without evolved weights"]


def _report_lines(run_name: str, games: int, specs: Sequence[GameSpec], plan, note: str | None,
                  images: Sequence[Path], skipped: Sequence[str], heads: Sequence[str]
                  ) -> tuple[list[str], list[str]]:
    """versus.md's introduction and its lines about the boards and records."""
    opponent = plan.opponent.display() if plan.players > 1 else None
    intro = [f"Run `{run_name}`: {games} game{'s' if games > 1 else ''} per genome on levels "
             f"{', '.join(str(x) for x in dict.fromkeys(s.level for s in specs[:games]))}"
             + (f" against {opponent}" if opponent else " (a one-player game)") + ". Game g "
             "has the same level, seat and seeds for every genome (it is game g of "
             "`playstyles validate` on these levels)."]
    if note:
        board_lines = [note]
    else:
        board_lines = [f"Boards ({len(images)} images, one per game and round; columns: "
                       f"{', '.join(heads)}): " + ", ".join(f"`{p.name}`" for p in images)
                       + "."]
        if skipped:
            board_lines.append(f"Not drawn, as every game had ended sooner: "
                               f"{', '.join(skipped)}.")
    board_lines.append(f"Each game's record is in `{RECORDS}/` (`playstyles replay FILE` "
                       f"shows it turn by turn).")
    return intro, board_lines


def versus(run_dir: str | Path, cells: Sequence[str], levels: str | Sequence[int] | None = None,
           games: int = 1, rounds: Sequence[int | str] = DEFAULT_ROUNDS,
           out: str | Path | None = None, workers: int | None = 0, address: str | None = None,
           force: bool = False, progress: Progress | None = None) -> VersusResult:
    """Play the elites of `cells` and the run's control on the same games and write, into
    `out`, their boards side by side at `rounds`, versus.csv and versus.md (the module's
    docstring lists the files).

    Args:
        run_dir: the run directory.
        cells: the cells compared (one to `MAX_CELLS`; two for `playstyles versus`), named as
            in elites.csv (e.g. `0.25:0`); the control plays beside them.
        levels: a level set: `held_out` (the run's held-out levels), `train`, `all`, a
            level set name of the game (`seeds:1,2,3`, `range:a-b`), or level seeds; default:
            the levels the run's config validates on (`validate: {levels: ...}`), else its
            held-out levels, so that game g is game g of that validation.
        games: games per genome; game g plays level g mod L, the genome's seat moving on as
            in validation.
        rounds: the rounds whose boards are drawn: round numbers (0: the starting board)
            and/or `END` (each game's final board).
        out: the output folder (default `default_out`: `RUN/versus/<A>_vs_<B>`): new or
            empty, or an earlier versus's (then `force` overwrites it); any other non-empty
            folder is refused before anything is played.
        workers: CPUs of a local Ray; 0 (the default) plays in this process; None: all.
        address: a Ray cluster to join.
        force: overwrite the results of an earlier versus in `out`.
        progress: told how many games are done (`base.progress`; the CLI draws bars).

    Raises:
        ValueError: a bad argument (an unknown cell names it and lists the known ones), a
            run directory that cannot be read, or an output folder that is refused.
    """
    run = RunFiles(run_dir).check(ELITES)
    run_dir = run.dir
    config, elites, names = run_elites(run, "compare")
    chosen = _chosen(elites, cells, run_dir)
    keys = [str(c) for c in chosen["cell"]]
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games: at least one game per genome, got {games!r}")
    games = int(games)
    board_rounds = check_rounds(rounds)
    if levels is None:
        levels = (config.validation or {}).get("levels")
    try:
        level_list = validation_levels(config.game, levels, config.held_out_levels,
                                       config.train_levels)
    except ValueError as e:
        text = str(e)
        raise ValueError(text if text.startswith("levels:") else f"levels: {text}") from None
    plan = config.plan()
    specs = plan_games(chosen, names, plan, level_list, games, config.seed, control=True,
                       key=validation_key(config, level_list))
    out = Path(out) if out is not None else default_out(run_dir, keys)
    if check_folder(out, command=VERSUS, force=True, writes=FILES) and not force:  # refuses others' folders
        raise ValueError(f"{out}: holds the results of an earlier playstyles versus; give "
                         f"--force to overwrite them, or another directory (--out)")
    check_playable([config.game], address, workers)

    # who is who: the cells' letters, style words from elites.csv's means, the control
    genomes = [*keys, CONTROL]
    heads = [f"{LETTERS[k]}: cell {c}" for k, c in enumerate(keys)] + \
        [f"{CONTROL} (default weights)"]
    known = features_of(config.game)
    grid = [f.name for f in config.features]
    styles = _style_words(config, chosen)

    claim_folder(out, command=VERSUS, force=force, writes=FILES)
    results: list[Any] = [None] * len(specs)
    with ray_session():
        played = run_games(specs, address=address, workers=workers, play=play_recorded)
        for i, done in counted(played, len(specs), VERSUS, progress):
            results[i] = done
    _remove_earlier(out)  # (once the games are played: an interrupted call leaves them)

    described = [*config.features, *(f for n, f in known.items() if n not in grid)]
    table = _table(genomes, results, games, described)
    files = [atomic_write(out / TABLE, table.to_csv(index=False))]
    game = get_game(config.game)
    records = _write_records(out, config.game, genomes, results, games)
    files += records
    note = _no_images(game, config.game)
    images: list[Path] = []
    skipped: list[str] = []
    if note is None:
        images, skipped = _draw_boards(out, run.name, game, results, games, board_rounds,
                                       [f"{h}\n{st}" if st else h for h, st in zip(heads, styles)])
        files += images

    intro, board_lines = _report_lines(run.name, games, specs, plan, note, images, skipped,
                                       heads)
    title = " vs ".join(f"cell {c}" for c in keys) + f" (and the {CONTROL})"
    files.append(atomic_write(out / REPORT, _markdown(title, heads, styles, table, genomes,
                                                      grid, described, intro, board_lines)))
    return VersusResult(out, table, images, records, note, files)
