"""Where styles become visible: one probe per setting of a config, side by side
(`playstyles probe CONFIG --vary KEY=V1,V2 ...`).

A style a person can see needs a genome that moves what a person sees, and how far a genome
moves play depends on the settings: the genome mapping (script weights, or the `persona`
mapping that adds the evaluator's terms), the search budget and the game's length. This
module plays `qd.probe.run_probe` once per setting and puts the results beside each other:
per setting, how many fixed genomes are pairwise at least 1 per-game standard deviation
apart (a bound on what evolution can find there; `qd.probe.fixed_styles`), the spread of
every feature in per-game standard deviations, the win rates and the cost of a game.

Settings: each `--vary` is a group of keys that vary together (equal numbers of values,
taken in step); separate groups cross. Keys: ``genome_mapping``, ``budget`` (the evolved
agent's; the opponent's follows it unless the config sets one) and ``options.NAME`` (a game
option, e.g. ``options.max_rounds``). Values are read as YAML scalars.

Files in the output directory (default runs/<config name>-probes/):

    <k>-<label>/             the probe of setting k (`qd.probe`: its games, per genome and game)
    comparison.csv           one row per setting and feature
    comparison_settings.csv  one row per setting
    comparison.md            the report
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import yaml

from base.files import atomic_write, claim_folder, read_json
from base.limits import short
from base.progress import Progress
from qd.config import ConfigError, config_from_dict, read_yaml
from qd.probe import run_probe
from qd.rundir import read_table
from qd.styles import DELTAS, delta_key

COMPARE = "probe-compare"
"""The command, as its output folder's marker names it (`base.files`)."""
TABLE, SETTINGS_TABLE, REPORT = "comparison.csv", "comparison_settings.csv", "comparison.md"
FILES = (TABLE, SETTINGS_TABLE, REPORT, "[0-9][0-9]-*")
"""What a comparison writes in its folder: its tables and one probe folder per setting
(`NN-label`); a folder holding anything else is not one (`base.files.check_folder`)."""
MAX_SETTINGS = 16
"""At most this many settings in one comparison."""
MAX_VALUES = 8
"""At most this many values per key."""
KEYS = ("genome_mapping", "budget")
"""The keys `--vary` takes besides ``options.NAME``."""


@dataclass
class Comparison:
    """What `compare_probes` wrote.

    Args:
        out: the output directory.
        table: comparison.csv (one row per setting and feature).
        settings: comparison_settings.csv (one row per setting).
        folders: each setting's probe directory.
    """

    out: Path
    table: pd.DataFrame
    settings: pd.DataFrame
    folders: list[Path]


def parse_vary(groups: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """The settings of `--vary` groups: each group's keys in step, the groups crossed.

    Args:
        groups: one list of ``KEY=V1,V2,...`` items per `--vary`.

    Raises:
        ValueError: an unknown key, a malformed item, groups of unequal lengths, too many
            settings; naming the item.
    """
    crossed: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    for group in groups:
        columns: dict[str, list[Any]] = {}
        for item in group:
            key, sep, text = str(item).partition("=")
            key = key.strip()
            if not sep or not text.strip():
                raise ValueError(f"--vary {short(item)}: KEY=V1,V2,... expected")
            if key not in KEYS and not re.fullmatch(r"options\.[A-Za-z_][A-Za-z0-9_]*", key):
                raise ValueError(f"--vary {short(item)}: unknown key {short(key)} (known: "
                                 f"{', '.join(KEYS)}, options.NAME)")
            if key in seen:
                raise ValueError(f"--vary {short(item)}: {key} is varied twice")
            seen.add(key)
            values = [yaml.safe_load(v.strip()) for v in text.split(",")]
            if len(values) > MAX_VALUES:
                raise ValueError(f"--vary {short(item)}: at most {MAX_VALUES} values")
            columns[key] = values
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"--vary {' '.join(map(str, group))}: the keys of one --vary "
                             f"vary in step and need as many values each")
        n = lengths.pop()
        crossed.append([{k: v[i] for k, v in columns.items()} for i in range(n)])
    settings = [dict(itertools.chain.from_iterable(d.items() for d in combo))
                for combo in itertools.product(*crossed)]
    if len(settings) > MAX_SETTINGS:
        raise ValueError(f"--vary: {len(settings)} settings, at most {MAX_SETTINGS}")
    return settings


def setting_label(setting: dict[str, Any]) -> str:
    """A short name of a setting, usable as a folder name: ``persona-budget300-max_rounds21``."""
    parts = []
    for k, v in setting.items():
        name = k.split(".", 1)[1] if k.startswith("options.") else k
        parts.append(str(v) if k == "genome_mapping" else f"{name}{v}")
    return re.sub(r"[^A-Za-z0-9_.=-]", "_", "-".join(parts))[:80]


def setting_config(data: dict[str, Any], setting: dict[str, Any], source: str, seed: int):
    """The run config of one setting: the config file's data with the setting applied.

    Args:
        data: the config file's data.
        setting: key -> value (`parse_vary`).
        source: the config's name in errors.
        seed: the seed every setting plays with.
    """
    data = json.loads(json.dumps(data, default=str))
    agent = data.get("agent")
    agent = {"name": agent} if isinstance(agent, str) else dict(agent or {})
    for k, v in setting.items():
        if k.startswith("options."):
            data["options"] = {**(data.get("options") or {}), k.split(".", 1)[1]: v}
        else:
            agent[k] = v
    data["agent"] = agent
    data["seed"] = seed
    return config_from_dict(data, source=f"{source} ({setting_label(setting)})")


def compare_probes(config: str | Path, vary: Sequence[Sequence[str]], games: int | None = None,
                   out: str | Path | None = None, workers: int | None = None,
                   address: str | None = None, resume: bool = False,
                   progress: Progress | None = None, force: bool = False,
                   pairs: bool = False) -> Comparison:
    """Probe a config at every setting of `vary` and compare (module text).

    Args:
        config: a run config file (with a seed: every setting plays with it).
        vary: the `--vary` groups (`parse_vary`).
        games: games per genome in every probe (default: each probe sizes its own).
        out: the output directory (default runs/<config name>-probes/).
        workers: CPUs of the local Ray (default: all); 0 plays in-process.
        address: a Ray cluster to join.
        resume: continue an interrupted comparison (finished probes are read, not played).
        progress: told how many games are done (`base.progress`; the CLI draws bars).
        force: overwrite an earlier comparison in `out`.
        pairs: every probe also plays the two-gene genomes (`qd.probe.run_probe`).

    Raises:
        ValueError: a bad setting or config (naming it), or a refused output directory.
    """
    path = Path(config)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a run config (a mapping) expected")
    if data.get("seed") is None:
        raise ConfigError(f"{path}: seed: a comparison plays every setting with the same seed; "
                          f"give one")
    settings = parse_vary(vary)
    configs = [setting_config(data, s, str(path), int(data["seed"])) for s in settings]
    here = Path(out) if out is not None else Path("runs") / f"{configs[0].name}-probes"
    claim_folder(here, command=COMPARE, force=force, resume=resume, writes=FILES)
    folders, rows, setting_rows = [], [], []
    for k, (setting, cfg) in enumerate(zip(settings, configs), 1):
        folder = here / f"{k:02d}-{setting_label(setting)}"
        done = resume and (folder / "probe.csv").exists()
        if progress is not None:
            print(f"probe {k} of {len(settings)}: {setting_label(setting)}"
                  + (" (done)" if done else ""), flush=True)
        if not done:
            run_probe(cfg, games=games, out=folder, workers=workers, address=address,
                      resume=resume and folder.exists(), progress=progress,
                      force=force, pairs=pairs)
        folders.append(folder)
        r, s = _rows(k, setting, folder)
        rows += r
        setting_rows.append(s)
    table = pd.DataFrame(rows)
    frame = pd.DataFrame(setting_rows)
    atomic_write(here / TABLE, table.to_csv(index=False))
    atomic_write(here / SETTINGS_TABLE, frame.to_csv(index=False))
    atomic_write(here / REPORT, comparison_markdown(table, frame, str(path)))
    return Comparison(here, table, frame, folders)


def _rows(k: int, setting: dict[str, Any], folder: Path) -> tuple[list[dict], dict]:
    """One probe's rows of comparison.csv and its row of comparison_settings.csv."""
    probe = read_json(folder / "probe.json")
    st, res = probe["settings"], probe["results"]
    table = read_table(folder / "probe.csv")
    games = read_table(folder / "probe_games.csv")
    head = {"setting": k, "label": setting_label(setting), **setting}
    rows = [{**head, "feature": r["feature"], "mapped": bool(r["mapped"]),
             "range_sd": r["range_sd"], "ratio": r["ratio"], "moves": bool(r["moves"]),
             "sd_within": r["sd_within"], "kruskal_p": r["kruskal_p"]}
            for r in table.to_dict("records")]
    wins = games.groupby("genome", sort=False)["won"].mean()
    row = {**head, "folder": folder.name, "genomes": len(st["genomes"]),
           "games_per_genome": st["games_per_genome"], "games": res["games"],
           "median_seconds": float(np.median(games["seconds"])) if "seconds" in games else
           math.nan,
           "control_win_rate": float(wins.iloc[0]), "win_rate_min": float(wins.min()),
           "win_rate_max": float(wins.max()), "moves": ", ".join(res["moves"])}
    for name in ("mapped", "every"):
        fixed = (res.get("fixed_styles") or {}).get(name) or {}
        for d in DELTAS:
            row[f"fixed_styles_{name}_{delta_key(d)}"] = (fixed.get("counts") or {}).get(
                delta_key(d))
    return rows, row


def comparison_markdown(table: pd.DataFrame, settings: pd.DataFrame, source: str) -> str:
    """comparison.md: one line per setting, then every feature's spread per setting."""
    one = delta_key(1)
    lines = [f"# Where the genome acts: probes of {source}", "",
             "Each setting is one probe (its folder holds its games, one row per genome and "
             "game): the control, the all-zero genome and every one-hot genome, each playing "
             "the same games (common seeds). Fixed styles: fixed genomes pairwise at least "
             "1 per-game sd apart in some feature (paired, blocked by level, Holm; "
             "docs/styles.md), on the config's mapped features and on every feature: a bound "
             "on what evolution can find at that setting. Spread: (max - min) of the genome "
             "means in per-game standard deviations. Win rates: probe games (training "
             "levels).", "",
             "| setting | genomes | games per genome | s per game (median) | fixed styles at "
             "1 sd, mapped | fixed styles at 1 sd, every feature | control win rate | win "
             "rates of the genomes |", "|" + "---|" * 8]
    for r in settings.to_dict("records"):
        lines.append(f"| {r['label']} | {r['genomes']} | {r['games_per_genome']} | "
                     f"{_num(r['median_seconds'])} | "
                     f"{_num(r[f'fixed_styles_mapped_{one}'])} | "
                     f"{_num(r[f'fixed_styles_every_{one}'])} | "
                     f"{100 * r['control_win_rate']:.0f}% | {100 * r['win_rate_min']:.0f}-"
                     f"{100 * r['win_rate_max']:.0f}% |")
    labels = settings["label"].tolist()
    lines += ["", "## Spread of each feature (max - min of genome means, per-game sd)", "",
              "| feature | " + " | ".join(labels) + " |", "|" + "---|" * (len(labels) + 1)]
    spread = table.pivot_table(index="feature", columns="label", values="range_sd",
                               dropna=False, sort=False)
    order = spread.max(axis=1).fillna(-1).sort_values(ascending=False, kind="stable").index
    for feature in order:
        lines.append(f"| `{feature}` | " + " | ".join(_num(spread.at[feature, lab])
                                                       for lab in labels) + " |")
    return "\n".join(lines) + "\n"


def _num(x: Any) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.3g}" if isinstance(x, float) else str(x)
