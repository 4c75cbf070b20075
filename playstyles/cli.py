"""The `playstyles` command line: argument parsing only; each subcommand calls one function.

Each subcommand imports what it uses inside its function: `playstyles --help` and a command
that fails on its arguments answer at once, without loading Ray, pyribs, matplotlib or a game.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from base import limits as L
from base.compiled import summary as compiled_summary
from playstyles import __version__

DEFAULT_GAME = "tribes"
"""The game a command plays when it names none (the only place that names a game)."""

WATCH_DELAY = 0.5
"""Seconds between the boards of `play --watch` in a terminal (0 when the output is not one)."""

ABANDONED = 0
"""Exit status of `play` when the game was abandoned (quit, Ctrl-D, Ctrl-C): a clean end."""


def count(lo: int, hi: int, note: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number in lo..hi (the bounds of `base.limits`), else one
    error naming the flag (argparse adds it): `--workers: must be >= 0 (0 plays in this
    process), got -1`. A float (1e9) is refused, not converted.

    Args:
        lo: the smallest value allowed.
        hi: the largest value allowed.
        note: what the smallest value means, added to its error.
    """
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number expected, got {text[:40]!r}"
                                             ) from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}{note}, got {value}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi}, got {value}")
        return value
    parse.__name__ = f"integer from {lo} to {hi}"
    return parse


def between(lo: float, hi: float, unit: str = ""):
    """An argparse type: a number from lo to hi (argparse names the flag in its error).

    Args:
        lo: the smallest value allowed.
        hi: the largest value allowed.
        unit: what the number counts, in the error (`seconds`).
    """
    unit = f" {unit}" if unit else ""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number{unit and ' of' + unit} expected, got "
                                             f"{text[:40]!r}") from None
        if not lo <= value <= hi:  # (NaN too)
            raise argparse.ArgumentTypeError(f"must be from {lo:g} to {hi:g}{unit}, got "
                                             f"{text[:40]}")
        return value
    parse.__name__ = f"number from {lo:g} to {hi:g}"
    return parse


WORKERS = count(0, L.MAX_WORKERS, " (0 plays in this process)")
SEED = count(0, L.MAX_SEED)
LEVEL_SEED = count(-L.MAX_SEED, L.MAX_SEED)
ROUNDS = count(1, L.MAX_ROUNDS)
GAMES = count(1, L.MAX_GAMES)


def _board_round(text: str) -> int | str:
    """An argparse type: a round whose board `versus` draws, a number from 0 to
    `MAX_ROUNDS` or `end` (each game's final board; `last` says the same)."""
    if text.strip().lower() in ("end", "last"):
        return "end"
    try:
        int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a round number or end expected, got {text[:40]!r}"
                                         ) from None
    return BOARD_ROUND(text)


BOARD_ROUND = count(0, L.MAX_ROUNDS)


def _options(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """Game options from the command line: the Tribes-flavoured flags (when given), the
    round limit of `--rounds N` in the game's own options (`round_limit_options`: Tribes
    plays N rounds with max_rounds=N-1) and any number of `--option KEY=VALUE` (values parsed
    as YAML: numbers, true/false, lists). Each is checked by the game
    (`games.api.check_game_options`) before any game starts, the error naming the flag."""
    from base.files import load_yaml
    from games.api import check_game_options
    from games.registry import get_game
    options: dict[str, Any] = {}
    flags: dict[str, str] = {}
    for key in ("mode", "tribes", "size"):
        if getattr(args, key, None) is not None:
            options[key] = getattr(args, key)
            flags[key] = f"--{key}"
    limit: dict[str, Any] = {}
    if getattr(args, "rounds", None) is not None:
        try:
            limit = get_game(game).round_limit_options(args.rounds)
        except ValueError as e:
            raise ValueError(f"--rounds: {e}") from None
        options.update(limit)
        flags.update(dict.fromkeys(limit, "--rounds"))
    for item in getattr(args, "option", None) or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--option: KEY=VALUE expected, got {item!r}")
        if key.strip() in limit:
            raise ValueError(f"--option {key.strip()}: --rounds sets it already; give one of "
                             f"them")
        options[key.strip()] = load_yaml(value, f"--option {key.strip()}")
        flags[key.strip()] = f"--option {key.strip()}"
    if options:
        g = get_game(game)
        for key, value in options.items():
            try:
                check_game_options(g, {key: value})
            except ValueError as e:
                text = str(e).partition(": ")[2] or str(e)
                raise ValueError(f"{flags[key]}: {text}") from None
    return options


def _level_arg(text: str | None):
    """A level id (an integer, for Tribes a generator seed) or a level file; None: the
    first level of the game's default set."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _levels_show(args: argparse.Namespace) -> int:
    from games.registry import get_game
    game = get_game(args.game)
    options = _options(args, args.game)
    level = game.level(args.seed, **options)
    if args.csv:
        text = game.level_text(level)
    else:  # the board of the level's starting position, as the game shows it
        text = game.render(game.new_state(level, 0, **options), ascii_only=args.ascii)
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def _output_file(path: str, command: str, ours, force: bool) -> None:
    """Refuse an output file before anything runs (`base.files.check_output_file`): a
    special file, a run directory's own file, a file `command` did not write, or one it
    wrote without --force."""
    from pathlib import Path

    from base.files import check_output_file
    from qd.rundir import run_files
    check_output_file(path, command=command, ours=ours, force=force,
                      protected=run_files(Path(path).parent))


def _is_human(spec: str | None) -> bool:
    return spec is not None and spec.partition(":")[0].strip() == "human"


def _play(args: argparse.Namespace) -> int:
    from play.watch import play_shown
    if args.record:
        from games.recording import is_record
        _output_file(args.record, "play --record", is_record, args.force)
    players = [args.p1, args.p2] + ([args.p3] if args.p3 else [])
    delay = args.delay
    if delay is None:  # pace a watched game in a terminal; a human paces it anyway
        delay = WATCH_DELAY if args.watch and sys.stdout.isatty() \
            and not any(map(_is_human, players)) else 0.0
    state = play_shown(args.game, _level_arg(args.level), args.seed, _options(args, args.game),
                       players, watch=args.watch, ascii_only=args.ascii, record=args.record,
                       delay=delay)
    return 0 if state.is_terminal() else ABANDONED


def _replay(args: argparse.Namespace) -> int:
    from play.watch import replay_shown
    replay_shown(args.record, every=args.every, ascii_only=args.ascii, images=args.images,
                 force=args.force)
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from play.ray_session import shutdown
    from play.tournament import (
        config_from_dict,
        load_config,
        run_tournament,
        table_columns,
        to_markdown,
    )

    if args.config:
        config = load_config(args.config)
        data = None
    else:
        data = {"agents": args.agents or ["random", "random:label=random-2"],
                "game": args.game or DEFAULT_GAME}
    if data is not None:
        config = config_from_dict(data, source="command line")
    overrides = {"levels": args.levels, "repetitions": args.reps, "seed": args.seed}
    for key, value in overrides.items():
        if value is not None:
            setattr(config, key, value)
    if args.budget is not None:  # every agent's parameter, as a config's budget
        config.agents = [a.at_budget(args.budget, config.game) for a in config.agents]
    if args.game is not None and args.config and args.game != config.game:
        raise ValueError(f"--game {args.game}: the config plays {config.game}")
    extra = _options(args, config.game)
    if extra:
        config.options = {**config.options, **extra}
    if args.agents and args.config:
        raise ValueError("give agents either in the config file or with --agents, not both")
    out = args.out or "runs/tournament"
    try:
        games, summary = run_tournament(config, out=out, address=args.address,
                                        workers=args.workers, progress=args.progress,
                                        resume=args.resume, force=args.force)
    finally:
        shutdown()
    print(to_markdown(summary, table_columns(config.game)), end="")
    print(f"{len(games)} games; results in {out}/ (games.csv, summary.csv, summary.md)")
    return 0


def _probe_notes(args: argparse.Namespace) -> None:
    """`evolve`: what a probe of the same settings says about the config's grid, one warning
    per line (the probe given with --probe, else runs/<name>-probe when it exists)."""
    from pathlib import Path

    from qd.config import load_config
    from qd.probe import default_probe_dir, probe_warnings
    config = load_config(args.config, seed=0)
    where = Path(args.probe) if args.probe else default_probe_dir(config)
    if not args.probe and not (where / "probe.json").exists():
        return
    for w in probe_warnings(config, where):
        print(f"playstyles: warning: {w}", file=sys.stderr)


def _evolve(args: argparse.Namespace) -> int:
    from qd.run import RunError, RunInterrupted, evolve
    if not args.resume:
        _probe_notes(args)
    try:
        bars = args.progress
        result = evolve(args.config, out=args.out, address=args.address, resume=args.resume,
                        workers=args.workers, progress=bars,
                        on_batch=bars.evolution if bars is not None else None)
    except RunInterrupted:
        raise  # main() prints how to continue
    except RunError as e:
        raise ValueError(str(e)) from None
    for note in result.notes:
        print(f"playstyles: {note}", file=sys.stderr)
    s = result.stats
    from qd.rundir import RunFiles, command_path
    fresh = " (re-estimated on fresh games)" if RunFiles(result.run_dir).reestimated else ""
    print(f"{'finished' if result.complete else 'paused'}: {result.evaluations} evaluations, "
          f"{result.games} games, {s.get('cells', 0)} elites{fresh}, QD score "
          f"{s.get('qd_score', 0):.2f}, best win rate {s.get('best_win_rate', 0):.2f}; "
          f"results in {result.run_dir}/")
    if result.validation is not None:
        from qd.validation import headline
        _validation_chart(result.run_dir)
        _see_styles(result.run_dir, result.validation)
        print(headline(result.validation))
    elif result.complete:
        print(f"the elites have not been checked on held-out levels: playstyles validate "
              f"{command_path(result.run_dir)}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from plots.report import write_report
    from qd.features import feature_texts
    from qd.rundir import RunFiles
    game = str(RunFiles(args.run).config.get("game", ""))
    report = write_report(args.run, fields=args.field or (), features=feature_texts(game))
    print(report.headline)
    print(f"report: {report.html} ({len(report.files)} files written in {report.run_dir}/)")
    print(f"explorer: {report.explorer} (open it in a browser: the archive, each elite's card, "
          f"comparisons)")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from qd.validation import headline, validate
    result = validate(args.run, levels=args.levels, games=args.games, cells=args.cells,
                      workers=args.workers, address=args.address, progress=args.progress,
                      resume=args.resume, control=not args.no_control, null=args.null,
                      **{k: v for k, v in (("delta", args.delta), ("margin", args.margin))
                         if v is not None}, chart=_validation_chart)
    chart = result.files[-1]
    print((result.run_dir / "validation.md").read_text(), end="")
    print(f"results in {result.run_dir}/ (validation.csv, validation_summary.json, "
          f"{chart.name})")
    _see_styles(result.run_dir, result.summary)
    print(headline(result.summary))
    return 0


def _see_styles(run_dir: Path, summary: dict[str, Any]) -> None:
    """The command that shows the two strongest styles side by side (`playstyles versus`)."""
    styles = (summary.get("styles") or {}).get("styles") or []
    if len(styles) >= 2:
        import shlex
        cells = styles[:2]
        dashes = "-- " if any(c.startswith("-") for c in cells) else ""  # not an option
        print(f"see the two strongest styles play: playstyles versus "
              f"{shlex.quote(str(run_dir))} {dashes}"
              + " ".join(shlex.quote(c) for c in cells))


def _check(args: argparse.Namespace) -> int:
    import qd.features  # noqa: F401 - adds the behaviour features' check to run_checks
    from agents.check import report, run_checks
    checks = run_checks(args.game, games=args.games, positions=args.positions,
                        options=_options(args, args.game) or None)
    print(report(args.game, checks))
    return 0 if all(c.ok for c in checks) else 1


def _new_game(args: argparse.Namespace) -> int:
    from games.new_game import write_starter
    starter = write_starter(args.name, args.dir)
    print(f"new-game: wrote the package of {starter.game!r} in {starter.folder}/ "
          f"({len(starter.files)} files); next:\n"
          f"  pip install -e {starter.folder}\n"
          f"  playstyles check --game {starter.game}\n"
          f"  cd {starter.folder} && playstyles evolve tiny.yaml --out runs/tiny\n"
          f"then replace the starter game with yours ({starter.folder}/README.md says how)")
    return 0


def _versus(args: argparse.Namespace) -> int:
    from qd.versus import DEFAULT_ROUNDS, REPORT, TABLE, versus
    result = versus(args.run, [args.cell_a, args.cell_b], levels=args.levels, games=args.games,
                    rounds=args.rounds or DEFAULT_ROUNDS, out=args.out, workers=args.workers,
                    address=args.address, force=args.force, progress=args.progress)
    print((result.out / REPORT).read_text(), end="")
    drawn = f"{len(result.images)} board images" if result.note is None else "no board images"
    print(f"results in {result.out}/ ({TABLE}, {REPORT}, {drawn}, "
          f"{len(result.records)} game records in records/)")
    return 0


def _tiers(args: argparse.Namespace) -> int:
    from qd.tiers import GAMES as TIER_GAMES
    from qd.tiers import REPORT, STEPS, TABLE, style_tiers
    result = style_tiers(args.run, args.budgets, out=args.out, games=args.games,
                         levels=args.levels, workers=args.workers, address=args.address,
                         progress=args.progress, resume=args.resume, force=args.force,
                         delta=args.delta)
    print((result.out / REPORT).read_text(), end="")
    print(f"results in {result.out}/ ({TABLE}, {TIER_GAMES}, {STEPS}, {REPORT}); "
          f"{len(result.table)} presets (style x tier) in {result.presets}")
    return 0


def _validation_chart(run_dir) -> Path:
    """validation.png of a run that was validated (libraries return data; the CLI draws)."""
    from plots.validation import draw_validation
    from qd.rundir import VALIDATION_CHART, RunFiles
    run = RunFiles(run_dir)
    return draw_validation(run, run.path(VALIDATION_CHART))


def _probe(args: argparse.Namespace) -> int:
    from plots.probe import draw_probe
    from qd.probe import run_probe
    if args.vary:
        from qd.probe_compare import REPORT, compare_probes
        found = compare_probes(args.config, args.vary, games=args.games, out=args.out,
                               workers=args.workers, address=args.address,
                               resume=args.resume, progress=args.progress,
                               force=args.force, pairs=args.pairs)
        for folder in found.folders:
            draw_probe(folder)
        print((found.out / REPORT).read_text(), end="")
        return 0
    result = run_probe(args.config, games=args.games, out=args.out, workers=args.workers,
                   address=args.address, resume=args.resume, progress=args.progress,
                   force=args.force, pairs=args.pairs)
    chart = draw_probe(result.out)
    print((result.out / "probe.md").read_text(), end="")
    names = ", ".join(f.name for f in [*result.files, chart])
    print(f"results in {result.out}/ ({names})")
    return 0


def _export(args: argparse.Namespace) -> int:
    from qd.export import MIN_GAMES, export_presets
    if args.budgets and len(args.budgets) > L.MAX_COUNT:
        raise ValueError(f"--budgets: at most {L.MAX_COUNT} budgets, got {len(args.budgets)}")
    pf, path = export_presets(args.run, kind=args.kind, count=args.count, out=args.output,
                              names=args.names,
                              min_games=args.min_games if args.min_games else MIN_GAMES,
                              play_missing=args.play_missing, workers=args.workers,
                              address=args.address, candidates=args.candidates,
                              budgets=args.budgets, calibrate=args.calibrate, games=args.games,
                              progress=args.progress, resume=args.resume,
                              all_elites=args.all_elites, force=args.force, cells=args.cells)
    for p in pf.presets:
        print(f"{p.name}: {p.description}")
        rating = p.evidence.get("rating")
        if rating:
            lo, hi = rating["ci95"]
            print(f"  rating {rating['elo']:+.0f} (95% CI {lo:+.0f} to {hi:+.0f}, "
                  f"{rating['games']} games); win rate against " + ", ".join(
                      f"{b} {100 * v:.0f}%" for b, v in rating["win_rate_vs"].items()))
    if args.play_missing:
        _validation_chart(args.run)
    if args.calibrate:
        from play.ladder import ladder_dir
        from plots.matrix import draw_ladder
        draw_ladder(ladder_dir(path), title=f"{Path(path).name}: round robin")
    for w in (pf.source or {}).get("warnings", []):
        print(f"playstyles: warning: {w}", file=sys.stderr)
    print(f"{len(pf.presets)} presets written to {path}; use one as preset:{path}#NAME")
    return 0


def _ladder(args: argparse.Namespace) -> int:
    from play.ladder import run_ladder
    result = run_ladder(args.presets, baselines=args.baselines or (), games=args.games,
                        levels=args.levels, out=args.out, seed=args.seed, rounds=args.rounds,
                        workers=args.workers, address=args.address,
                        progress=args.progress, resume=args.resume, field=args.field,
                        force=args.force, control=not args.no_control)
    from plots.matrix import draw_ladder
    chart = draw_ladder(result.out, title=f"{Path(args.presets).name}: round robin")
    print((result.out / "ladder.md").read_text(), end="")
    print(f"results in {result.out}/ (ladder_matrix.csv, ladder_pairs.csv, ladder.json, "
          f"{chart.name}, games.csv)")
    return 0


def _train_evaluator(args: argparse.Namespace) -> int:
    from agents.learned import is_model_file
    from play.ray_session import shutdown
    from play.selfplay import Samples
    from play.train_evaluator import load_train_config, to_markdown, train_evaluator
    config = load_train_config(args.config)
    _output_file(args.out or config.output, "train-evaluator", is_model_file, args.force)
    if args.summary:
        _output_file(args.summary, "train-evaluator --summary",
                     lambda p: p.read_text(errors="replace").startswith(SUMMARY_TITLE),
                     args.force)
    if args.samples:  # an existing samples file is read, not written
        _output_file(args.samples, "train-evaluator --samples", Samples.recognize, True)
    try:
        result = train_evaluator(config, output=args.out, address=args.address,
                                 workers=args.workers, progress=args.progress,
                                 samples=args.samples)
    finally:
        shutdown()
    text = to_markdown(result.summary)
    if args.summary:
        from base.files import atomic_write
        atomic_write(args.summary, f"{SUMMARY_TITLE}{result.path.name}: held-out accuracy\n\n"
                                   f"Made by `playstyles train-evaluator {args.config}`.\n\n"
                                   f"{text}")
    print(text, end="")
    print(f"model written to {result.path}; use it as evaluator=learned:{result.path}")
    return 0


SUMMARY_TITLE = "# Learned evaluator "
"""How `train-evaluator --summary` files begin (how it recognizes its own)."""


def _force_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--force", action="store_true",
                   help=f"overwrite {what} written by an earlier run of this command (a file "
                        f"or directory of anything else is never overwritten)")


def _game_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default=DEFAULT_GAME,
                   help=f"the game (default {DEFAULT_GAME}; e.g. openspiel:tic_tac_toe with "
                        f"the openspiel extra)")


def _option_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="a game option (repeatable), e.g. --option max_rounds=20")


def _resume_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--resume", action="store_true",
                   help=f"continue an interrupted {what}: play only the games it did not finish "
                        f"(give the same arguments)")


def _playing_args(p: argparse.ArgumentParser, what: str) -> None:
    """--address, --workers, --resume and --quiet: the flags of a command that plays games."""
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    p.add_argument("--workers", type=WORKERS, help="local worker processes (0: no Ray)")
    _resume_arg(p, what)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _levels_parser(sub) -> None:
    """`playstyles levels`."""
    levels = sub.add_parser("levels", help="generate and inspect levels")
    lsub = levels.add_subparsers(dest="levels_command", required=True)
    show = lsub.add_parser("show", help="print the board of a generated level (or the level "
                                        "file with --csv)")
    _game_arg(show)
    show.add_argument("--seed", type=LEVEL_SEED, required=True, help="level seed")
    show.add_argument("--tribes", nargs="+", help="Tribes: the tribes (default Xin-Xi, Imperius)")
    show.add_argument("--size", type=count(1, L.MAX_BOARD), default=None,
                      help="Tribes: board size (default by tribes); Navy: board side")
    _option_arg(show)
    show.add_argument("--csv", action="store_true",
                      help="print the level in the game's level file format instead (Tribes: "
                           "the level CSV, as --level reads it)")
    show.add_argument("--ascii", action="store_true", help="ASCII symbols only")
    show.set_defaults(func=_levels_show)


def _play_parser(sub) -> None:
    """`playstyles play`."""
    play = sub.add_parser("play", help="play one game between two agents and show the board")
    play.add_argument("--p1", default="random",
                      help="agent of the first player: name[:k=v,...], or human to play yourself "
                           "(help at its prompt lists the commands; quit, Ctrl-D or Ctrl-C "
                           "abandons the game)")
    play.add_argument("--p2", default=None,
                      help="agent of the second player (default random; a one-player game "
                           "such as navy has none)")
    play.add_argument("--p3", default=None,
                      help="agent of the third player in a three-player game (e.g. Tribolo; "
                           "default: the second player's agent)")
    play.add_argument("--seed", type=SEED, default=0, help="game seed (agents are seeded from it)")
    play.add_argument("--level", default=None,
                      help="level seed or level file (default: the first level of the game's "
                           "default set, for Tribes the first paper level)")
    _game_arg(play)
    _option_arg(play)
    play.add_argument("--tribes", nargs="+", help="Tribes: tribes of a generated level")
    play.add_argument("--mode", choices=["capitals", "score"], help="Tribes: game mode")
    play.add_argument("--rounds", type=ROUNDS, default=None, metavar="N",
                      help="play at most N rounds (Tribes: max_rounds N-1)")
    play.add_argument("--watch", action="store_true", help="show the board after every round")
    play.add_argument("--delay", type=between(0, L.MAX_DELAY, "seconds"), default=None, metavar="SECONDS",
                      help=f"with --watch, wait this long after each round's board (default "
                           f"{WATCH_DELAY} in a terminal without a human player, else 0)")
    play.add_argument("--ascii", action="store_true", help="ASCII symbols only")
    play.add_argument("--record", help="write a replayable record of the game (JSON)")
    _force_arg(play, "the --record file")
    play.set_defaults(func=_play)


def _replay_parser(sub) -> None:
    """`playstyles replay`."""
    rep = sub.add_parser("replay", help="show a recorded game turn by turn, or as board images")
    rep.add_argument("record", help="a record written by `playstyles play --record`")
    rep.add_argument("--every", choices=["turn", "action"], default="turn",
                     help="show the board after every turn (default) or every action")
    rep.add_argument("--images", help="also write one PNG board per turn into this directory")
    rep.add_argument("--ascii", action="store_true", help="ASCII symbols only")
    _force_arg(rep, "the --images directory")
    rep.set_defaults(func=_replay)


def _tournament_parser(sub) -> None:
    """`playstyles tournament`."""
    tour = sub.add_parser("tournament", help="agents against each other over a level set")
    tour.add_argument("config", nargs="?", help="tournament YAML file (agents, pairings, levels...)")
    tour.add_argument("--agents", nargs="+", help="agents as name[:k=v,...] (all pairs play)")
    tour.add_argument("--game", help=f"the game (default {DEFAULT_GAME}; e.g. "
                                     f"openspiel:connect_four with the openspiel extra)")
    _option_arg(tour)
    tour.add_argument("--levels", help="level set: a name of the game (Tribes: paper), "
                                       "seeds:1,2,3 or range:a-b")
    tour.add_argument("--reps", type=count(1, L.MAX_REPETITIONS),
                      help="games per level and pairing (seats alternate)")
    tour.add_argument("--budget", type=count(1, L.MAX_BUDGET), help="forward-model calls per decision")
    tour.add_argument("--rounds", type=ROUNDS, metavar="N",
                      help="play at most N rounds in every game")
    tour.add_argument("--seed", type=SEED, help="tournament seed (all game and agent seeds)")
    tour.add_argument("--out", help="output directory (default runs/tournament): new or empty, "
                                    "or an earlier tournament's (--force, --resume)")
    _force_arg(tour, "the results of a tournament")
    _playing_args(tour, "tournament")
    tour.set_defaults(func=_tournament)


def _evolve_parser(sub) -> None:
    """`playstyles evolve`."""
    evo = sub.add_parser("evolve", help="breed play-styles with MAP-Elites (a run directory)")
    evo.add_argument("config", help="run config YAML (see docs/qd.md)")
    evo.add_argument("--out", help="run directory (default runs/<name>)")
    evo.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    evo.add_argument("--resume", action="store_true", help="continue the run in the directory")
    evo.add_argument("--workers", type=WORKERS, help="local worker processes (default: all "
                                                     "cores; 0: no Ray)")
    evo.add_argument("--probe", metavar="DIR",
                     help="a probe of the same settings (`playstyles probe`): warn about "
                          "features mapped narrower than its noise allows or that the genome "
                          "does not move (default: runs/<name>-probe when it exists)")
    evo.add_argument("--quiet", action="store_true", help="no progress bar")
    evo.set_defaults(func=_evolve)


def _report_parser(sub) -> None:
    """`playstyles report`."""
    rpt = sub.add_parser("report", help="heatmaps, progress curves and an HTML report of a run")
    rpt.add_argument("run", help="run directory")
    rpt.add_argument("--field", nargs="+", help="also draw the archive coloured by these stored "
                                                "fields (e.g. mean_score attacks_mean)")
    rpt.set_defaults(func=_report)


def _validate_parser(sub) -> None:
    """`playstyles validate`."""
    val = sub.add_parser("validate", help="replay a run's elites on held-out levels (Table II)")
    val.add_argument("run", help="run directory")
    val.add_argument("--levels", help="level set: held_out (default: the run's held-out levels), "
                                      "train (its training levels, on fresh seeds), all (both), "
                                      "or a set of the game (NAME, seeds:1,2,3, range:a-b)")
    val.add_argument("--games", type=GAMES, help="games per elite (default: 2 per level)")
    val.add_argument("--cells", nargs="+", help="only these cells, named as in elites.csv "
                                                "(e.g. 14:4 6:-1)")
    val.add_argument("--no-control", action="store_true",
                     help="do not play the control genome (the default weights) beside the "
                          "elites; styles are then not compared with it")
    val.add_argument("--null", action="store_true",
                     help="also play the null baseline (the all-zero and every one-hot "
                          "genome, no evolution) on the same games and count its styles")
    val.add_argument("--delta", type=between(0, 10),
                     help="the minimum effect two styles differ by, in per-game standard "
                          "deviations (default 1, qd.styles.DELTA; counts at 0, 0.5 and 1 are "
                          "always given)")
    val.add_argument("--margin", type=between(0, 1),
                     help="the non-inferiority margin against the control: win-rate points "
                          "as a fraction (default 0.1, qd.styles.MARGIN: 10 points), or in a "
                          "one-player game a fraction of the control's mean score")
    _playing_args(val, "validation")
    val.set_defaults(func=_validate)


def _versus_parser(sub) -> None:
    """`playstyles versus`."""
    vs = sub.add_parser("versus", help="see two styles: the elites of two cells and the control "
                                       "play the same games; their boards side by side at a "
                                       "few rounds, and their feature tallies")
    vs.add_argument("run", help="run directory")
    vs.add_argument("cell_a", metavar="CELL_A",
                    help="a cell, named as in elites.csv (e.g. 0.25:0; put -- before a cell "
                         "that begins with -)")
    vs.add_argument("cell_b", metavar="CELL_B", help="another cell")
    vs.add_argument("--levels", help="level set (default: the levels the run's config "
                                     "validates on, else its held-out levels): held_out, "
                                     "train, all, or a set of the game (NAME, seeds:1,2,3, "
                                     "range:a-b)")
    vs.add_argument("--games", type=GAMES, default=1,
                    help="games per genome (default 1); game g is the same level, seat and "
                         "seeds for all three")
    vs.add_argument("--rounds", nargs="+", type=_board_round, metavar="R",
                    help="the rounds whose boards are drawn: round numbers (0: the start) "
                         "and/or end (default: 5 10 end)")
    vs.add_argument("--out", help="output directory (default RUN/versus/<A>_vs_<B>): new or "
                                  "empty, or an earlier versus's (--force)")
    _force_arg(vs, "the results of an earlier versus")
    vs.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    vs.add_argument("--workers", type=WORKERS, help="local worker processes (default: all "
                                                    "cores; 0: no Ray)")
    vs.add_argument("--quiet", action="store_true", help="no progress bar")
    vs.set_defaults(func=_versus)


def _tiers_parser(sub) -> None:
    """`playstyles tiers`."""
    tie = sub.add_parser("tiers", help="each distinct style at chosen strengths: the styles "
                                       "and the control at several budgets on the held-out "
                                       "levels, and one preset per style and tier")
    tie.add_argument("run", help="run directory (validated: its distinct styles are played)")
    tie.add_argument("--budgets", type=count(1, L.MAX_BUDGET), nargs="+", metavar="CALLS",
                     required=True, help="forward-model calls per decision, one tier each")
    tie.add_argument("--games", type=GAMES, help="games per style and tier (default: the "
                                                  "validation's games per elite)")
    tie.add_argument("--levels", help="level set (default: the validation's levels, so that "
                                      "the run's own budget replays its games)")
    tie.add_argument("--delta", type=float, default=1.0,
                     help="minimum effect, in per-game standard deviations, by which a style "
                          "must still differ from every other at a tier (default 1)")
    tie.add_argument("--out", help="output directory (default RUN/tiers): new or empty, or an "
                                   "earlier tiers' (--force)")
    _force_arg(tie, "the results of an earlier tiers")
    _playing_args(tie, "tiers")
    tie.set_defaults(func=_tiers)


def _probe_parser(sub) -> None:
    """`playstyles probe`."""
    prb = sub.add_parser("probe", help="which features a config's genome moves beyond the "
                                       "games' noise (before a run)")
    prb.add_argument("config", help="run config YAML (see docs/qd.md)")
    prb.add_argument("--games", type=GAMES,
                     help="games per genome (default: sized from a pilot for about 10 minutes "
                          "on 2 cores, at most 200)")
    prb.add_argument("--out", help="output directory (default runs/<name>-probe): new or "
                                   "empty, or an earlier probe's (--force, --resume)")
    prb.add_argument("--vary", nargs="+", action="append", metavar="KEY=V1,V2",
                     help="compare settings: one probe per setting, side by side (keys: "
                          "genome_mapping, budget, options.NAME); the keys of one --vary "
                          "change in step, separate --vary flags cross (default output "
                          "runs/<name>-probes)")
    prb.add_argument("--pairs", action="store_true",
                     help="also play every genome with two genes at 1: what mixing two genes "
                          "shows beside each gene alone (n genes: n(n-1)/2 more genomes)")
    _force_arg(prb, "the results of a probe")
    _playing_args(prb, "probe")
    prb.set_defaults(func=_probe)


def _export_parser(sub) -> None:
    """`playstyles export`."""
    exp = sub.add_parser("export", help="export elites as presets (difficulty levels or styles)")
    exp.add_argument("run", help="run directory")
    exp.add_argument("--kind", choices=["difficulty", "style"], default="difficulty",
                     help="difficulty: spread over win rate; style: distinct feature regions")
    exp.add_argument("--count", type=count(1, L.MAX_COUNT), default=3, help="number of presets (default 3)")
    exp.add_argument("-o", "--output", help="preset file (default <run>/presets_<kind>.json)")
    _force_arg(exp, "a preset file (and its --calibrate ladder directory)")
    exp.add_argument("--names", nargs="+", help="preset names instead of generated ones")
    exp.add_argument("--min-games", type=GAMES, default=None,
                     help="warn about a preset whose win rate rests on fewer games (default 20)")
    exp.add_argument("--play-missing", action="store_true",
                     help="first validate the chosen elites with --min-games games each on the "
                          "held-out levels (when the run has no validation yet), then choose "
                          "again")
    exp.add_argument("--calibrate", nargs="+", metavar="BASELINE",
                     help="play a ladder of the presets and these shared baselines, and give "
                          "each preset its Bradley-Terry rating with a 95%% interval and its "
                          "win rates against them (ladder files beside the preset file)")
    exp.add_argument("--games", type=GAMES,
                     help="with --calibrate: games per pair (default: two per level)")
    exp.add_argument("--candidates", type=count(1, L.MAX_COUNT), metavar="N",
                     help="difficulty, with --calibrate: consider N elites spread over win "
                          "rate (default --count; with --budgets, 1: the strongest) and keep "
                          "--count whose order is shown (every adjacent pair ahead, one-sided, "
                          "Holm)")
    exp.add_argument("--budgets", type=count(1, L.MAX_BUDGET), nargs="+", metavar="CALLS",
                     help="difficulty, with --calibrate: every candidate elite also plays at "
                          "each of these budgets (calls per decision), as a candidate of its "
                          "own; the budget spreads strength where elites differ in style")
    exp.add_argument("--cells", nargs="+", metavar="CELL",
                     help="export exactly these elites, named as in elites.csv (e.g. 1.7:0.55:0.46; "
                          "the archive explorer gives the line), each named by its style; "
                          "--count is then their number")
    exp.add_argument("--all-elites", action="store_true",
                     help="style: choose among every elite (distinct corners of the feature "
                          "space), not only the distinct styles that held up in validation")
    exp.add_argument("--resume", action="store_true",
                     help="continue an interrupted --calibrate (give the same arguments): play "
                          "only its missing games")
    exp.add_argument("--quiet", action="store_true", help="no progress bar")
    exp.add_argument("--address", help="Ray cluster address for --play-missing and --calibrate")
    exp.add_argument("--workers", type=WORKERS,
                     help="local worker processes for --play-missing and --calibrate")
    exp.set_defaults(func=_export)


def _ladder_parser(sub) -> None:
    """`playstyles ladder`."""
    lad = sub.add_parser("ladder", help="round robin between presets: win matrix and whether "
                                        "the difficulty order holds")
    lad.add_argument("presets", help="preset file (from `playstyles export`)")
    lad.add_argument("--baselines", nargs="+", help="other agents in the round robin "
                                                    "(name[:k=v,...] or preset:FILE#NAME)")
    lad.add_argument("--games", type=GAMES,
                     help="games per pair (default: one per level and seating, 2 per level "
                          "in a two-player game)")
    lad.add_argument("--field", metavar="AGENT",
                     help="games of more than two players: the agent in the seats a pair "
                          "leaves free (default: random)")
    lad.add_argument("--no-control", action="store_true",
                     help="leave out the evolved presets' default-weight control (the same "
                          "search without evolved weights, a baseline by default)")
    lad.add_argument("--levels", help="level set (default: the presets' validation levels)")
    lad.add_argument("--rounds", type=ROUNDS, metavar="N",
                     help="play at most N rounds (default: the presets' game options)")
    lad.add_argument("--seed", type=SEED, default=0, help="seed of all games and agents")
    lad.add_argument("--out", help="output directory (default <presets>-ladder/ beside the "
                                   "file): new or empty, or an earlier ladder's (--force, "
                                   "--resume)")
    _force_arg(lad, "the results of a ladder")
    _playing_args(lad, "ladder")
    lad.set_defaults(func=_ladder)


def _check_parser(sub) -> None:
    """`playstyles check`."""
    chk = sub.add_parser("check", help="every conformance check of a game's plug-in (the game, "
                                       "its scripts, its agents, its evaluation terms, its "
                                       "features): one report, exit 1 on a failure")
    _game_arg(chk)
    _option_arg(chk)
    chk.add_argument("--games", type=count(1, 1000), default=10,
                     help="random games played to the end, by the game check and by the "
                          "features check (default 10)")
    chk.add_argument("--positions", type=count(1, 10_000), default=20,
                     help="random positions the scripts answer in (default 20; the agents "
                          "decide in a tenth of them)")
    chk.set_defaults(func=_check)


def _new_game_parser(sub) -> None:
    """`playstyles new-game`."""
    new = sub.add_parser("new-game", help="write an installable starter package for a new game "
                                          "(rules, evaluator, scripts, features, tests, a tiny "
                                          "run config) that passes `check` as written")
    new.add_argument("name", help="the game's name (lower-case letters, digits and '_')")
    new.add_argument("dir", nargs="?", help="the package's folder, new or empty (default ./NAME)")
    new.set_defaults(func=_new_game)


def _train_evaluator_parser(sub) -> None:
    """`playstyles train-evaluator`."""
    trn = sub.add_parser("train-evaluator", help="train a learned state evaluator on self-play "
                                                 "games (a model file for evaluator=learned:PATH)")
    trn.add_argument("config", help="train-evaluator YAML file (see docs/learned.md)")
    trn.add_argument("--out", help="model file (default: the config's output)")
    trn.add_argument("--samples", help="a samples file: reuse the self-play positions saved "
                                       "there by an earlier run of the same games, else play "
                                       "them and save them there (to train again with other "
                                       "network settings)")
    trn.add_argument("--summary", help="also write the held-out accuracy tables (Markdown) here")
    _force_arg(trn, "the model file and the --summary file")
    trn.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    trn.add_argument("--workers", type=WORKERS, help="local worker processes (0: no Ray)")
    trn.add_argument("--quiet", action="store_true", help="no progress bar")
    trn.set_defaults(func=_train_evaluator)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="playstyles", description=(
        "Breed diverse and competitive AI play-styles for turn-based strategy games."))
    p.add_argument("--version", action="version",
                   version=f"playstyles {__version__} ({compiled_summary()})")
    sub = p.add_subparsers(dest="command", required=True)
    _levels_parser(sub)
    _play_parser(sub)
    _replay_parser(sub)
    _tournament_parser(sub)
    _evolve_parser(sub)
    _report_parser(sub)
    _validate_parser(sub)
    _versus_parser(sub)
    _tiers_parser(sub)
    _probe_parser(sub)
    _export_parser(sub)
    _ladder_parser(sub)
    _check_parser(sub)
    _new_game_parser(sub)
    _train_evaluator_parser(sub)
    return p


def _quiet_local_ray(args: argparse.Namespace) -> bool:
    """A command that may start a local Ray (no --address, no RAY_ADDRESS) sets Ray's
    authentication mode explicitly, before Ray is imported: `token`, which is what a local
    `ray.init()` of Ray 2.59+ picks anyway, minus the notice it prints when the mode is unset.
    A mode the user set wins; joining a cluster is left to the cluster's settings (README).
    Returns whether it set the variable (`main` takes it back when the command ends)."""
    if hasattr(args, "address") and not args.address and not os.environ.get("RAY_ADDRESS") \
            and getattr(args, "workers", None) != 0 and "RAY_AUTH_MODE" not in os.environ:
        os.environ["RAY_AUTH_MODE"] = "token"
        return True
    return False


def _check_cluster(args: argparse.Namespace) -> None:
    """A command that will join a Ray cluster (--address or RAY_ADDRESS) fails within
    `base.limits.CONNECT_TIMEOUT` seconds when nothing answers there, before it writes
    anything."""
    if not hasattr(args, "address") or getattr(args, "workers", None) == 0:
        return
    if args.command == "export" and not (args.calibrate or args.play_missing):
        return  # (export plays games only to calibrate or to fill in)
    cluster = args.address or os.environ.get("RAY_ADDRESS")
    if cluster:
        from play.ray_session import check_address
        check_address(cluster)


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


def one_line(text: str) -> str:
    """A message as one line: a character that is not printable (a newline, a tab, an escape,
    a direction override: in a path or a value the message quotes) is shown escaped, so no
    message forges a line of its own.

    Args:
        text: the message.
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Bars:
    """Progress bars on the terminal (tqdm, on stderr), drawn from a command's progress calls
    (`base.progress`): a bar per step of games, closed when the next step starts."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.step: str | None = None

    def __call__(self, step: str, done: int, total: int) -> None:
        """`progress(step, done, total)`: the step's bar moves to `done` of `total`."""
        if self.bar is None or step != self.step or done < self.bar.n:
            from tqdm import tqdm
            self.close()
            self.bar = tqdm(total=total, initial=done, desc=step, unit="game",
                            dynamic_ncols=True)
            self.step = step
            return
        if total != self.bar.total:
            self.bar.total = total
            self.bar.refresh()
        self.bar.update(done - self.bar.n)

    def evolution(self, metrics: dict[str, Any]) -> None:
        """`evolve`'s `on_batch`: the archive after the batch, beside the bar."""
        if self.bar is not None:
            self.bar.set_postfix_str(
                f"evals {metrics['evaluations']}, elites {metrics['cells']}, QD "
                f"{metrics['qd_score']:.2f}, best {metrics['best_win_rate']:.2f}", refresh=True)

    def close(self) -> None:
        """Close the open bar."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.step = None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from agents.portfolio.script import ScriptError
    from play.game_pool import PluginFailed
    from play.journal import Interrupted
    set_mode = _quiet_local_ray(args)
    args.progress = None if getattr(args, "quiet", True) else Bars()
    try:
        _check_cluster(args)
        try:
            return args.func(args)
        finally:
            if args.progress is not None:
                args.progress.close()
    except KeyboardInterrupt:
        where = getattr(args, "out", None)
        kept = f"; what finished is kept in {where}/" if where else ""
        print(f"playstyles: interrupted{kept}", file=sys.stderr)
        return INTERRUPTED
    except Interrupted as e:  # "interrupted after ...; continue with --resume"
        print(f"playstyles: {one_line(str(e))}", file=sys.stderr)
        return INTERRUPTED
    except (ValueError, OSError) as e:
        print(f"playstyles: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except PluginFailed as e:  # a plug-in raised in a game: its own frames, then the error
        if e.frames:
            print(e.frames, file=sys.stderr)
        print(f"playstyles: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except ScriptError as e:  # a plug-in's script: its own traceback, then what it broke
        cause = e.__cause__
        if cause is not None:
            traceback.print_exception(type(cause), cause, cause.__traceback__)
        print(f"playstyles: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    finally:
        if set_mode:
            os.environ.pop("RAY_AUTH_MODE", None)


if __name__ == "__main__":
    sys.exit(main())
