"""Probing what the genome moves: which behaviour features a config's genome changes by more
than the noise of the games each genome plays (`playstyles probe CONFIG`).

A grid axis is worth evolving over only if the genome can move the feature: if every genome
gives the same feature values up to the games' noise, the archive spreads genomes over that
axis by luck. The probe plays a few fixed genomes many times and measures, for every feature
registered for the game, how far apart their means lie compared with that noise.

Genomes, in this order (their genome number): the control (`Plan.control`: the default
weights; a mapping with genes: its registered control), the all-zero genome (`zero`) and every
one-hot genome (one value 1, the others 0; labelled `<gene>=1`). Each plays N games on the
config's training levels at the config's agent, opponent, budget and options, in every seat
(`play.ladder.alternating_games`: game g plays level g mod L, its seat moving on as in
validation). Seeds come from the config's seed, a spawn key of the probe's own
(`PROBE_KEY`, the genome number, g), so a game depends only on the config, the seed and its
place, and N games are the first N of any larger N.

Per feature (per-game values, NaN where undefined):

* each genome's mean with its 95% t interval (`base.stats.mean_interval`);
* a Kruskal-Wallis test across the genomes (p = 1 when every value is equal), Holm's
  correction over the features at 5%, and the effect size epsilon^2 = H / (n - 1);
* the noise: sd_w, the within-genome standard deviation pooled over genomes; with g the
  config's games per genome, `ratio` = (standard deviation of the genome means) / (sd_w /
  sqrt(g)) and `min_width` = 2 * 1.96 * sd_w / sqrt(g), the width of one genome's 95%
  interval at the config's games per genome;
* the feature `moves` when Holm rejects and ratio >= 1.

Files in the output directory (default runs/<config name>-probe/):

    probe_games.csv    one row per game
    probe_genomes.csv  one row per genome and feature: mean, 95% interval, n (and win_rate)
    probe.csv          one row per feature, ranked by ratio
    probe.json         settings (with a key telling whether a probe matches a config), results
    probe.md           the report
    probe.journal      the finished games while the probe runs (gone at its end)

`plots.probe.draw_probe` draws probe.png from the CSV files.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from base.files import atomic_write, check_folder, claim_folder, json_object, read_json
from base.limits import check_planned
from base.progress import Progress
from base.stats import Z95, holm, mean_interval, wilson_interval
from play.journal import GameJournal, journal_command
from play.ladder import alternating_games
from play.ray_session import check_playable, ray_session
from play.runner import GameRecord, GameSpec
from qd.config import RunConfig, load_config, read_yaml
from qd.features import PlayerGame, features_of, per_game
from qd.genome_games import (
    credit,
    fixed_genomes,
    game_seconds,
    genome_side,
    mapping_of,
)
from qd.rundir import (
    PROBE_CHART,
    PROBE_CONTROL,
    PROBE_GAMES,
    PROBE_GENOMES,
    PROBE_JOURNAL,
    PROBE_REPORT,
    PROBE_SETTINGS,
    PROBE_TABLE,
    PROBE_WIN_RATE,
    csv_true,
    read_table,
)
from qd.styles import EXACT_LIMIT, Sample, distinct_styles, pooled_sd
from qd.validation import play_journal

PROBE_KEY = 0x50524F
"""First spawn-key entry of probe games ("PRO")."""
VERSION = 1

PROBE_SECONDS = 600.0
"""The default N is sized for a probe of about this many seconds ..."""
PROBE_CORES = 2
"""... on this many cores."""
MAX_GAMES = 200
"""The default N is at most this (rounded down to whole passes over levels and seats)."""
TOP_FEATURES = 4
"""Features whose per-genome means probe.md shows."""

CONTROL = PROBE_CONTROL
WIN_RATE = PROBE_WIN_RATE

GAMES, GENOMES, TABLE = PROBE_GAMES, PROBE_GENOMES, PROBE_TABLE
SETTINGS, REPORT, CHART, JOURNAL = PROBE_SETTINGS, PROBE_REPORT, PROBE_CHART, PROBE_JOURNAL
PROBE = "probe"
"""The command, as its output folder's marker names it (`base.files`)."""

TABLE_COLUMNS = ("feature", "doc", "mapped", "kruskal_p", "holm_reject", "epsilon2",
                 "sd_within", "spread", "range_sd", "games_per_genome_config", "ratio",
                 "min_width", "width", "too_narrow", "moves", "rank")
GENOME_COLUMNS = ("genome", "feature", "mean", "ci_low", "ci_high", "n")


@dataclass
class ProbeResult:
    """What `probe` wrote.

    Args:
        out: the output directory.
        table: probe.csv (one row per feature, ranked).
        genomes: probe_genomes.csv (one row per genome and feature).
        settings: probe.json's settings.
        files: the files written.
        results: probe.json's results (the features that move, those that do not, the ranking).
    """

    out: Path
    table: pd.DataFrame
    genomes: pd.DataFrame
    settings: dict[str, Any]
    files: list[Path] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------ the games

def probe_genomes(config, pairs: bool = False) -> list[tuple[str, np.ndarray]]:
    """(label, genome) of every probed genome in genome-number order: the control, the
    all-zero genome, one one-hot genome per gene, then with `pairs` every two-gene genome
    (`qd.genome_games.fixed_genomes`).

    Args:
        config: the run config (`qd.config.RunConfig`).
        pairs: add the two-gene genomes.
    """
    return [(CONTROL, config.plan().control()),
            *fixed_genomes(config.genome_names, pairs=pairs)]


def plan_probe_games(genomes: Sequence[tuple[str, np.ndarray]], plan, levels: Sequence[int],
                     games: int, seed: int) -> list[GameSpec]:
    """Every probe game, game-major (game 0 of every genome, then game 1, ...), so the games
    of N per genome are the first of any larger N; every genome plays the same games (game g
    has the same level, seat and seeds from (seed, PROBE_KEY, g) for all of them: common
    random numbers, so genomes compare paired by game); tags (genome number, game, seat).

    Args:
        genomes: (label, genome) in genome-number order.
        plan: the config's `qd.genome_games.Plan`.
        levels: the levels played in turn.
        games: games per genome.
        seed: the config's seed.
    """
    check_planned(len(genomes) * games, f"{len(genomes)} genomes x {games} games")
    plan = replace(plan, seed=seed)
    order = alternating_games(games, levels, plan.players)
    mes = [plan.agent_for(genome) for _, genome in genomes]
    return [plan.spec(me, (PROBE_KEY, g), level, seat, (k, g, seat))
            for g, (level, seat) in enumerate(order) for k, me in enumerate(mes)]


def default_games(seconds: Sequence[float], genomes: int, unit: int) -> tuple[int, str]:
    """The default games per genome from a pilot: enough for about PROBE_SECONDS on
    PROBE_CORES cores at the pilot's median game time, at least `unit`, rounded down to a
    multiple of `unit` (every level in every seat equally often), at most MAX_GAMES (rounded
    down too); and a sentence saying so.

    Args:
        seconds: the pilot games' times (`qd.genome_games.game_seconds`).
        genomes: genomes probed.
        unit: seats x levels.
    """
    median = float(np.median(seconds))
    budget = PROBE_SECONDS * PROBE_CORES
    raw = MAX_GAMES if median <= 0 else math.floor(budget / (genomes * median))
    cap = max(unit, MAX_GAMES // unit * unit)
    n = int(min(cap, max(unit, raw // unit * unit)))
    text = (f"{n} games per genome, sized for ~{PROBE_SECONDS / 60:g} min on {PROBE_CORES} "
            f"cores from a pilot of {len(seconds)} games; give --games {n} to repeat it")
    return n, text


# ------------------------------------------------------------------------------ statistics

def kruskal(groups: Sequence[np.ndarray]) -> tuple[float, float, int]:
    """Kruskal-Wallis across the groups with a defined value: (H, p, values); p = 1 (H = 0)
    when every value is equal, p = 1 (H NaN) with fewer than two groups.

    Args:
        groups: one array of per-game values per genome (NaN dropped).
    """
    defined = [g[np.isfinite(g)] for g in groups]
    defined = [g for g in defined if len(g)]
    n = sum(len(g) for g in defined)
    if len(defined) < 2:
        return math.nan, 1.0, n
    values = np.concatenate(defined)
    if np.all(values == values[0]):
        return 0.0, 1.0, n
    h, p = stats.kruskal(*defined)
    return float(h), float(p), n


def spread_ratio(spread: float, se: float) -> float:
    """spread / se; with no noise at all (se 0) inf when the genomes are apart, 0 when they
    are not; NaN when either is undefined."""
    if math.isnan(spread) or math.isnan(se):
        return math.nan
    if se > 0:
        return spread / se
    return math.inf if spread > 0 else 0.0


def noise_at(sd_within: float, spread: float, games_per_genome: int) -> tuple[float, float]:
    """(ratio, min width) of a feature at g games per genome: the spread of the genome means
    over one genome's standard error sd / sqrt(g), and the width of one genome's 95% interval,
    2 x 1.96 x sd / sqrt(g).

    Args:
        sd_within: the pooled within-genome standard deviation.
        spread: the standard deviation of the genome means.
        games_per_genome: g.
    """
    se = sd_within / math.sqrt(games_per_genome)
    return spread_ratio(spread, se), 2 * Z95 * se


def feature_row(samples: Sequence[Sample], feature, games_per_genome: int,
                width: float, mapped: bool) -> dict[str, Any]:
    """A feature's row of probe.csv without Holm, `moves` and the rank.

    Args:
        samples: one per genome, with per-game feature values.
        feature: the `qd.features.Feature`.
        games_per_genome: the config's games per genome (g).
        width: the config's cell width (mapped) or the registered default.
        mapped: whether the config maps the feature.
    """
    name = feature.name
    h, p, n = kruskal([np.asarray(s.features[name], dtype=float) for s in samples])
    sd_w = pooled_sd(samples, name)
    means = [mean_interval(s.features[name])[0] for s in samples]
    means = [m for m in means if math.isfinite(m)]
    spread = float(np.std(means, ddof=1)) if len(means) > 1 else math.nan
    ratio, min_width = noise_at(sd_w, spread, games_per_genome)
    return {"feature": name, "doc": feature.doc, "mapped": mapped, "kruskal_p": p,
            "epsilon2": h / (n - 1) if n > 1 and math.isfinite(h) else math.nan,
            "sd_within": sd_w, "spread": spread,
            "range_sd": (max(means) - min(means)) / sd_w if len(means) > 1 and sd_w > 0
            else math.nan,
            "games_per_genome_config": games_per_genome,
            "ratio": ratio, "min_width": min_width, "width": float(width),
            "too_narrow": bool(mapped and width < min_width)}


def fixed_styles(samples: Sequence[Sample], mapped: Sequence[str],
                 every: Sequence[str]) -> dict[str, Any]:
    """How many fixed genomes (the control left out) are pairwise at least delta per-game
    standard deviations apart in some feature (`qd.styles.distinct_styles`: paired by game,
    blocked by level, Holm), at each delta of `qd.styles.DELTAS`, on the config's mapped
    features and on every feature the game registers: a bound on the styles evolution can
    find at these settings. With two-gene genomes (`--pairs`), `single` also counts the
    genomes of one gene or none alone (the null baseline's), on the same per-game standard
    deviations: what mixing two genes adds. `exact` is false where the largest set is the
    best one found, not proven largest (more than `qd.styles.EXACT_LIMIT` genomes)."""
    fixed = [s for s in samples if s.key != CONTROL]
    single = [s for s in fixed if "+" not in s.key]
    out: dict[str, Any] = {}
    for name, feats in (("mapped", mapped), ("every", every)):
        if not feats or len(fixed) < 2:
            out[name] = None
            continue
        sd = {f: pooled_sd(fixed, f) for f in feats}
        found = distinct_styles(fixed, feats, sd=sd)
        out[name] = {"features": list(feats), "counts": found.counts,
                     "styles": found.by_delta,
                     "exact": len(fixed) <= EXACT_LIMIT and found.ties is not None}
        if len(single) < len(fixed):
            alone = distinct_styles(single, feats, sd=sd)
            out[name]["single"] = {"counts": alone.counts, "styles": alone.by_delta}
    return out


def rank_features(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Holm over the features' Kruskal-Wallis p at 5%, `moves` (Holm rejects and ratio >= 1),
    ranked by ratio, largest first (NaN last; ties in registration order)."""
    reject = holm([r["kruskal_p"] for r in rows])
    for r, rej in zip(rows, reject):
        r["holm_reject"] = bool(rej)
        r["moves"] = bool(rej and r["ratio"] >= 1)

    def key(i: int) -> tuple[bool, float, int]:
        ratio = rows[i]["ratio"]
        undefined = math.isnan(ratio)
        return undefined, 0.0 if undefined else -ratio, i

    ranked = [{**rows[i], "rank": rank} for rank, i in enumerate(sorted(range(len(rows)),
                                                                       key=key), 1)]
    return pd.DataFrame(ranked, columns=list(TABLE_COLUMNS))


# ------------------------------------------------------------------------------ settings

def _config(config, out: str | Path | None, resume: bool):
    """The RunConfig (a seedless config file resumes with the seed its probe recorded) and
    the output directory."""
    if isinstance(config, RunConfig):
        return config, Path(out) if out is not None else default_probe_dir(config)
    path = Path(config)
    loaded = load_config(path)
    here = Path(out) if out is not None else default_probe_dir(loaded)
    raw = read_yaml(path)
    if resume and isinstance(raw, dict) and raw.get("seed") is None:
        seed = (_read_json(here) or {}).get("settings", {}).get("seed")
        if seed is not None:
            loaded = load_config(path, seed=int(seed))
    return loaded, here


def default_probe_dir(config) -> Path:
    """Where a probe of a config writes by default (and where `evolve` looks for one)."""
    return Path("runs") / f"{config.name}-probe"


def _read_json(out: Path) -> dict[str, Any] | None:
    path = out / SETTINGS
    if not path.exists():
        return None
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
        raise ValueError(f"{path}: not a probe's settings")
    return data


def _agent_params(config) -> dict[str, Any]:
    """The evolved agent's parameters without those the genome mapping sets."""
    plan = config.plan()
    genome = set(mapping_of(plan.mapping, plan.game).fn(plan.genome_names, plan.control()))
    return {k: v for k, v in plan.agent.params if k not in genome}


def settings_key(config) -> str:
    """sha256 of what decides the probe's games apart from the genome and the seed: game,
    options, the agent's name and parameters without those the genome sets, the opponent
    (none in a one-player game), the training levels, the seats, the genome mapping and the
    genome's names.

    Args:
        config: the run config.
    """
    plan = config.plan()
    agent = {"name": plan.agent.name, "params": _agent_params(config)}
    opponent = ({"name": plan.opponent.name, "params": dict(plan.opponent.params)}
                if plan.players > 1 else None)
    data = {"game": config.game, "options": dict(config.options), "agent": agent,
            "opponent": opponent, "levels": list(config.train_levels), "players": plan.players,
            "mapping": plan.mapping, "genome": list(plan.genome_names)}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _settings(config, genomes: Sequence[tuple[str, np.ndarray]], n: int | None,
              chosen: str | None, pilot: dict[str, Any] | None, pairs: bool
              ) -> dict[str, Any]:
    plan = config.plan()
    return {
        "version": VERSION, "config": config.name, "source": config.source, "game": config.game,
        "agent": plan.agent_for(plan.control()).display(), "agent_name": plan.agent.name,
        "agent_params": _agent_params(config),
        "genome_mapping": plan.mapping, "budget": config.agent.get("budget"),
        "opponent": plan.opponent.display() if plan.players > 1 else None,
        "opponent_params": dict(plan.opponent.params) if plan.players > 1 else None,
        "options": dict(config.options), "train_levels": list(config.train_levels),
        "players": plan.players, "games_per_genome": n, "games_chosen": chosen, "pilot": pilot,
        "games_per_genome_config": plan.games_per_individual, "seed": config.seed,
        "genome_names": list(config.genome_names),
        "pairs": pairs,
        "genomes": [{"number": k, "label": label,
                     "values": {n_: float(v) for n_, v in zip(config.genome_names, genome)}}
                    for k, (label, genome) in enumerate(genomes)],
        "features": list(features_of(config.game)),
        "mapped": [f.name for f in config.features],
        "settings_key": settings_key(config)}


def _write_json(out: Path, settings: dict[str, Any], results: dict[str, Any] | None) -> Path:
    data = {"settings": settings, "complete": results is not None, "results": results}
    return atomic_write(out / SETTINGS, json.dumps(data, indent=2, default=str) + "\n")


FILES = (GAMES, GENOMES, TABLE, SETTINGS, REPORT, CHART, JOURNAL)
"""What a probe writes in its folder (the chart by `plots.probe`): a folder holding anything
else is not one (`base.files.check_folder`)."""


def _is_probe(out: Path) -> bool:
    """A probe directory written before output folders had markers: its probe.json (read
    and checked, not just named) or the journal of an interrupted probe."""
    return journal_command(out / JOURNAL) == PROBE or json_object(
        out / SETTINGS, {"settings": dict, "complete": bool}) is not None


# ------------------------------------------------------------------------------ the probe

def run_probe(config, games: int | None = None, out: str | Path | None = None,
              workers: int | None = None, address: str | None = None, resume: bool = False,
              progress: Progress | None = None, force: bool = False,
              pairs: bool = False) -> ProbeResult:
    """Play the control, the all-zero and every one-hot genome (with `pairs`, every two-gene
    genome too) N games each on the config's training levels and write what the genome moves
    (module text) into `out`.

    Args:
        config: a run config file or a `qd.config.RunConfig`.
        games: games per genome N (default: a pilot of one game per genome sizes N for about
            10 minutes on 2 cores; with `resume`, the N the probe recorded).
        out: the output directory (default runs/<config name>-probe/): new or empty, or
            holding an earlier probe (then `force` or `resume` is needed); any other
            non-empty directory is refused before anything is written.
        workers: CPUs of the local Ray (default: all); 0 plays in-process.
        address: a Ray cluster to join.
        resume: continue an interrupted probe (the games finished before Ctrl-C are kept in
            probe.journal and only the missing ones are played).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        force: overwrite an earlier probe in `out`.
        pairs: also play every genome with two genes at 1 (n genes: n(n-1)/2 more), so
            the count of fixed genomes pairwise apart includes what mixing two genes shows.
            A resumed probe needs the same choice.

    Raises:
        ValueError: a bad argument or output directory, naming it.
        play.journal.Interrupted: on Ctrl-C, once the finished games are kept.
    """

    config, out = _config(config, out, resume)
    check_folder(out, command=PROBE, force=force, resume=resume, ours=_is_probe, writes=FILES)
    if games is not None and int(games) < 1:
        raise ValueError(f"games: at least one game per genome, got {games}")
    plan = config.plan()
    genomes = probe_genomes(config, pairs=pairs)
    levels = list(config.train_levels)
    unit = plan.players * len(levels)
    recorded = (_read_json(out) or {}).get("settings", {}) if resume else {}
    if recorded and bool(recorded.get("pairs", False)) != pairs:
        raise ValueError(f"{out}: this probe was started {'with' if not pairs else 'without'}"
                         f" --pairs; resume it with the same arguments")
    pilot = recorded.get("pilot")
    if games is not None:
        n: int | None = int(games)
        chosen = f"{n} games per genome, as given"
        pilot = None
    elif recorded.get("games_per_genome"):
        n, chosen = int(recorded["games_per_genome"]), recorded.get("games_chosen")
    else:
        n, chosen = None, None
    journal_path = out / JOURNAL
    check_playable([config.game], address, workers)
    claim_folder(out, command=PROBE, force=force, resume=resume, ours=_is_probe, writes=FILES)
    with ray_session():
        if n is None:  # the pilot: game 0 of every genome, part of the final games
            specs = plan_probe_games(genomes, plan, levels, 1, config.seed)
            journal = GameJournal(journal_path, specs, "probe", resume=resume)
            _write_json(out, _settings(config, genomes, None, None, None, pairs), None)
            with journal.interruptible():
                records = play_journal(journal, address, workers, progress, "probe pilot")
            seconds = [game_seconds(r) for r in records]
            n, chosen = default_games(seconds, len(genomes), unit)
            pilot = {"games": len(records), "median_seconds": float(np.median(seconds))}
            resume = True  # the pilot's games are in the journal
            if progress is not None:
                print(f"probe: {chosen}", file=sys.stderr)
        specs = plan_probe_games(genomes, plan, levels, n, config.seed)
        journal = GameJournal(journal_path, specs, "probe", resume=resume)
        settings = _settings(config, genomes, n, chosen, pilot, pairs)
        _write_json(out, settings, None)
        with journal.interruptible():
            records = play_journal(journal, address, workers, progress, "probe")
            result = _write_results(config, out, genomes, records, settings)
    journal.finish()
    return result


def _write_results(config, out: Path, genomes: Sequence[tuple[str, np.ndarray]],
                   records: Sequence[GameRecord], settings: dict[str, Any]) -> ProbeResult:

    feats = features_of(config.game)
    mapped = {f.name: f for f in config.features}
    count = len(genomes)
    n = settings["games_per_genome"]
    samples, game_rows, genome_rows = [], [], []
    for k, (label, _) in enumerate(genomes):
        mine = list(genome_side(records[k::count]))
        pg = [PlayerGame.from_record(rec, seat) for rec, seat in mine]
        values = per_game(pg, feats.values())
        wins = [credit(rec, seat) for rec, seat in mine]
        samples.append(Sample(label, wins, values, blocks=[rec.spec.level for rec, _ in mine]))
        for g, (rec, seat) in enumerate(mine):
            s = rec.spec
            row = {"genome": label, "genome_number": k, "game": g, "level": s.level,
                   "seat": seat, "game_seed": s.seed, "won": wins[g],
                   "seconds": game_seconds(rec)}
            row.update({f: float(values[f][g]) for f in feats})
            game_rows.append(row)
        for f in feats:
            m, lo, hi, nf = mean_interval(values[f])
            genome_rows.append({"genome": label, "feature": f, "mean": m, "ci_low": lo,
                                "ci_high": hi, "n": nf})
        low, high = wilson_interval(float(sum(wins)), len(wins))
        genome_rows.append({"genome": label, "feature": WIN_RATE,
                            "mean": float(np.mean(wins)) if wins else math.nan,
                            "ci_low": low, "ci_high": high, "n": len(wins)})
    g_config = config.plan().games_per_individual
    rows = [feature_row(samples, f, g_config, mapped[name].width if name in mapped else f.width,
                        name in mapped) for name, f in feats.items()]
    table = rank_features(rows)
    genome_table = pd.DataFrame(genome_rows, columns=list(GENOME_COLUMNS))
    moves = dict(zip(table["feature"], table["moves"]))
    results = {"moves": [f for f, m in moves.items() if m],
               "does_not_move": [f for f, m in moves.items() if not m],
               "too_narrow": table.loc[table["too_narrow"], "feature"].tolist(),
               "ranking": table["feature"].tolist(),
               "games": len(records), "games_per_genome": n,
               "fixed_styles": fixed_styles(samples, list(mapped), list(feats))}
    files = [out / GAMES, out / GENOMES, out / TABLE, out / SETTINGS, out / REPORT]
    atomic_write(files[0], pd.DataFrame(game_rows).to_csv(index=False))
    atomic_write(files[1], genome_table.to_csv(index=False))
    atomic_write(files[2], table.to_csv(index=False))
    _write_json(out, settings, results)
    atomic_write(files[4], probe_markdown(table, genome_table, settings, results))
    return ProbeResult(out, table, genome_table, settings, files, results)


# ------------------------------------------------------------------------------ the report

def _fmt(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _counts(st: dict[str, Any]) -> str:
    return ", ".join(f"{k} at {d} sd" for d, k in st["counts"].items())


def _interval(m: float, lo: float, hi: float) -> str:
    if not math.isfinite(m):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return _fmt(m)
    return f"{_fmt(m)} ± {_fmt((hi - lo) / 2)}"


def probe_markdown(table: pd.DataFrame, genomes: pd.DataFrame, settings: dict[str, Any],
                   results: dict[str, Any]) -> str:
    """probe.md: the settings, the ranked features, the top features' means per genome and
    the win rates.

    Args:
        table: probe.csv.
        genomes: probe_genomes.csv.
        settings: probe.json's settings.
        results: probe.json's results.
    """
    s = settings
    n, g = s["games_per_genome"], s["games_per_genome_config"]
    levels = ", ".join(map(str, s["train_levels"]))
    where = (f"in every seat, against {s['opponent']}" if s["players"] > 1
             else "alone (a one-player game)")
    labels = [x["label"] for x in s["genomes"]]
    lines = [f"# Probe of {s['config']}: what the genome moves", "",
             f"{n} games per genome on the training levels {levels} of {s['game']}, {where}, "
             f"agent {s['agent']} ("
             + (f"budget {s['budget']}, " if s.get("budget") is not None else "")
             + f"options {json.dumps(s['options'], default=str)}, seed {s['seed']}); "
             f"{len(labels)} genomes: the "
             f"control, all zero, and one one-hot per gene ({', '.join(s['genome_names'])})"
             + ("; then every genome with two genes at 1." if s.get("pairs") else "."),
             f"{s['games_chosen']}.",
             f"Every number below comes from these probe games on the training levels; g = {g} "
             f"is the config's games per genome.", "",
             "## Features, ranked by ratio", "",
             "| rank | feature | mapped | moves | Kruskal-Wallis p | Holm 5% | ε² | sd within "
             "| spread of means | max - min / sd | ratio | min width | width |",
             "|" + "---|" * 13]
    for r in table.to_dict("records"):
        lines.append("| " + " | ".join([
            str(r["rank"]), f"`{r['feature']}`", "yes" if r["mapped"] else "no",
            "**yes**" if r["moves"] else "no", _fmt(r["kruskal_p"]),
            "reject" if r["holm_reject"] else "-", _fmt(r["epsilon2"]), _fmt(r["sd_within"]),
            _fmt(r["spread"]), _fmt(r.get("range_sd")), _fmt(r["ratio"]), _fmt(r["min_width"]),
            _fmt(r["width"]) + (" (too narrow)" if r["too_narrow"] else "")]) + " |")
    lines += ["", f"max - min / sd: the range of the genome means in per-game standard "
                  f"deviations (sd within); ratio = standard deviation of the genome means / "
                  f"(sd within / √{g}); "
                  f"min width = 2 × 1.96 × sd within / √{g}, the width of one genome's 95% "
                  f"interval at the config's {g} games per genome; a feature moves when "
                  f"Holm's correction over the features rejects equal distributions at 5% "
                  f"(Kruskal-Wallis) and ratio ≥ 1. Width: the config's for a mapped feature, "
                  f"else the registered default.", ""]
    for name, what in (("mapped", "the mapped features"), ("every", "every feature")):
        st = (results.get("fixed_styles") or {}).get(name)
        if st:
            lines.append(f"Fixed genomes pairwise at least delta per-game sd apart in one of "
                         f"{what} (paired by game, blocked by level, Holm; docs/styles.md): "
                         + _counts(st) + f"; at 1 sd: "
                         f"{', '.join(st['styles'].get('1', [])) or 'none'}"
                         + ("" if st.get("exact", True) else
                            " (the largest set found, a lower bound: too many genomes for an "
                            "exhaustive search)")
                         + (f". The genomes of one gene alone or none (the null baseline's): "
                            f"{_counts(st['single'])}." if st.get("single") else "."))
    lines.append("")
    moves, still = results["moves"], results["does_not_move"]
    lines.append("The genome moves: " + (", ".join(moves) if moves else "no feature") + ".")
    lines.append("The genome does not move: " + ", ".join(still) + "." if still
                 else "The genome moves every feature.")
    if results["too_narrow"]:
        lines.append("Mapped features with cells narrower than the noise allows: "
                     + ", ".join(results["too_narrow"]) + ".")
    top = table["feature"].tolist()[:TOP_FEATURES]
    by = genomes.set_index(["genome", "feature"])
    lines += ["", f"## Means per genome of the top {len(top)} features (± half the 95% t "
                  f"interval; probe games, training levels)", "",
              "| genome | " + " | ".join(f"`{f}`" for f in top) + " |",
              "|" + "---|" * (len(top) + 1)]
    for label in labels:
        cells = [_interval(*(float(by.at[(label, f), c]) for c in ("mean", "ci_low",
                                                                    "ci_high"))) for f in top]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "## Win rates per genome (probe games, training levels; Wilson 95% "
                  "interval)", "", "| genome | games | win rate | 95% interval |",
              "|---|---|---|---|"]
    for label in labels:
        r = by.loc[(label, WIN_RATE)]
        lines.append(f"| {label} | {int(r['n'])} | {100 * r['mean']:.1f}% | "
                     f"{100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f}% |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ warnings

PROBE_NUMBERS = ("sd_within", "spread", "kruskal_p")
"""The columns of probe.csv that `probe_warnings` reads as numbers (beside `feature` and
`holm_reject`)."""


def _probe_table(path: Path) -> pd.DataFrame:
    """probe.csv, checked, by feature: one row per feature, its numbers not negative and not
    infinite (empty where a feature was never defined); errors name the file (and the line
    and column)."""
    table = read_table(path)
    for c in ("feature", "holm_reject", *PROBE_NUMBERS):
        if c not in table:
            raise ValueError(f"{path}: no column {c!r} (not a probe's table)")
    twice = table["feature"].duplicated()
    if twice.any():
        raise ValueError(f"{path}: line {int(np.argmax(twice)) + 2}: feature "
                         f"{str(table['feature'][twice].iloc[0])[:40]!r} a second time")
    for c in PROBE_NUMBERS:
        x = pd.to_numeric(table[c], errors="coerce")
        v = x.to_numpy(dtype=float)
        bad = (x.isna() & table[c].notna()).to_numpy() | np.isinf(v) | (v < 0)
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"{path}: line {k + 2}, column {c!r}: "
                             f"{str(table[c].iloc[k])[:40]!r} is not a number >= 0")
        table[c] = x
    return table.set_index("feature")


def probe_warnings(config, probe_dir: str | Path) -> list[str]:
    """What a probe says about a run config's grid: one line per mapped feature whose cells
    are narrower than the games' noise allows at the config's games per genome, and one per
    mapped feature the genome does not move. Empty when the probe's settings do not match the
    config's (`settings_key`).

    Args:
        config: a run config file or a `qd.config.RunConfig`.
        probe_dir: a probe's output directory.

    Raises:
        ValueError: the directory holds no finished probe.
    """
    if not isinstance(config, RunConfig):
        config = load_config(config, seed=0)
    here = Path(probe_dir)
    data = _read_json(here)
    if data is None:
        raise ValueError(f"{here / SETTINGS}: not found (no probe in {here})")
    if data["settings"].get("settings_key") != settings_key(config):
        return []
    if not data.get("complete") or not (here / TABLE).exists():
        raise ValueError(f"{here}: the probe did not finish (continue it with --resume)")
    table = _probe_table(here / TABLE)
    g = config.plan().games_per_individual
    out = []
    for f in config.features:
        if f.name not in table.index:
            continue
        r = table.loc[f.name]
        ratio, min_width = noise_at(float(r["sd_within"]), float(r["spread"]), g)
        if f.width < min_width:
            out.append(f"feature {f.name}: cells {f.width:.3g} wide, narrower than the "
                       f"{min_width:.3g} that the games' noise allows at {g} games per genome "
                       f"(probe {here}/)")
        if not (csv_true(r["holm_reject"]) and ratio >= 1):
            out.append(f"feature {f.name}: the genome does not move it beyond the games' noise "
                       f"(Kruskal-Wallis p {float(r['kruskal_p']):.2g}, ratio {ratio:.3g} at "
                       f"{g} games per genome) (probe {here}/)")
    return out
