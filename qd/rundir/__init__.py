"""The run directory's schema: its file names, the column groups of its tables, and a reader.

Everything an evolution run and the tools after it (validation, export, report) write into a
run directory is named here, and nowhere else: the writers (`qd.run`, `qd.archive`,
`qd.validation`, `qd.export`, `plots.report`) and every reader (`plots`, `qd.validation`,
`qd.export`) take file names and column names from this package. A new column group or file is
added here first (`qd.rundir.names`).

The package, by what its modules hold (each name is re-exported here: `from qd.rundir import
ELITES, RunFiles`):

    names    the file names, config.yaml's `genome_scripts`, the column groups of the tables
    grid     the archive's grid as config.yaml gives it (`Axis`), a cell's coordinates and label
    read     `read_table`, the one reader of every table, and `RunFiles`, one run directory
    check    the tables against the run's checkpoint and against the schema (`check_schema`)
    summary  validation_summary.json against the schema and validation.csv (`check_summary`)
    text     a run directory in words: dominant scripts, the validation's verdict

Files of a run (written by `playstyles evolve`):

    config.yaml      the resolved config: every default, the seed, the level seeds, and
                     `genome_scripts` (the evolved scripts, in genome order)
    checkpoint.jsonl the told batches as data, from which the run state is rebuilt
                     (`qd.checkpoint`)
    elites.csv       one row per elite, by cell
    individuals.csv  one row per evaluated genome
    metrics.csv      one row per batch
    games.csv        one row per game
    run.log          start, one line per batch, stop / resume
    partial.jsonl    the finished games of the batches in flight (gone when none is)

and of the tools after it: `validation*.{csv,json,md,png}` (`playstyles validate`), the report's
`heatmap_<field>.png`, `progress.png`, `elites_table.csv`, `report.html`, `explorer.html`
(`playstyles report`)
and `presets_<kind>.json` (`playstyles export`).

Columns: a genome's weights are one column per evolved script (named by the script, in the
order of `genome_scripts`); the grid position of a genome is `measure_<feature>` for each
feature of the grid; the mean and spread over its games of every feature the game registers
are `<feature>_mean` and `<feature>_std`. games.csv holds, per game, the columns of each side
under the prefixes `genome_` and `opponent_`. validation.csv puts `_evolved` and `_validated`
after the names it compares.

Reading checks what it reads: one reader for every table (`read_table`: a size cap, and an
error naming the file and the line for a file that is not UTF-8 or not a valid CSV table), and
one check per table, once per load (`check_schema`, `check_summary`: the columns the readers
need, values in range, elites.csv's cells on config.yaml's grid), each problem one ValueError
naming the file, the line and the column.

This package is game-neutral and light (numpy, pandas and yaml only: no game, agent, Ray,
pyribs or matplotlib), so that a run directory can be read without the code that produced it.
Its modules import only the bottom modules of `playstyles` and each other (`tests/test_layers.py`).
"""

from __future__ import annotations

from qd.rundir.check import (
    RESUMED_KEYS,
    check_schema,
    check_table,
    config_diff,
    config_problem,
    table_problem,
)
from qd.rundir.grid import (
    Axis,
    cell_keys,
    config_axes,
    grid_index_text,
    parse_grid_index,
)
from qd.rundir.names import (
    CELL_COLUMNS,
    CHECKED_TABLES,
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    CONFIG,
    ELITES,
    ELITES_TABLE,
    EVENT_COUNT,
    EVOLVED_SUFFIX,
    EXPLORER,
    FOUND_COLUMNS,
    GAME_SIDES,
    GAMES,
    GENOME_SCRIPTS,
    INDIVIDUALS,
    LEGACY_CHECKPOINT,
    LEGACY_PARTIAL,
    LOG,
    MEAN_SUFFIX,
    MEASURE_PREFIX,
    METRIC_COLUMNS,
    METRICS,
    NOT_APART,
    OCCUPIED,
    OWN_FILES,
    PARTIAL,
    PRESET_KINDS,
    PROBE_CHART,
    PROBE_CONTROL,
    PROBE_GAMES,
    PROBE_GENOMES,
    PROBE_JOURNAL,
    PROBE_REPORT,
    PROBE_SETTINGS,
    PROBE_TABLE,
    PROBE_WIN_RATE,
    PROGRESS_CHART,
    QUALITY_COLUMNS,
    REPORT,
    RUN_FILES,
    SE_SUFFIX,
    STATUS,
    STD_SUFFIX,
    STYLE_COLUMNS,
    TRANSIENT_FILES,
    VALIDATED_SUFFIX,
    VALIDATION,
    VALIDATION_CHART,
    VALIDATION_FILES,
    VALIDATION_GAMES,
    VALIDATION_JOURNAL,
    VALIDATION_SUMMARY,
    VALIDATION_TABLE,
    WIDE_INTERVAL,
    WIN_RATE_CI,
    command_path,
    elite_columns,
    event_count_prefixes,
    evolved_column,
    game_sides,
    genome_scripts,
    heatmap_file,
    individual_columns,
    is_run_dir,
    mean_column,
    measure_column,
    presets_file,
    run_files,
    se_column,
    side_prefix,
    stat_columns,
    stat_features,
    std_column,
    validated_ci_columns,
    validated_column,
    validated_columns,
    validated_std_column,
    weight_columns,
)
from qd.rundir.read import (
    MAX_TABLE_BYTES,
    TOOL_INPUTS,
    RunFiles,
    read_table,
)
from qd.rundir.summary import (
    check_summary,
)
from qd.rundir.text import (
    csv_true,
    current_styles,
    dominant_scripts,
    headline,
    number_text,
    style_verdict,
    styles_counted,
    styles_text,
    validation_source,
)

__all__ = [
    "Axis",
    "CELL_COLUMNS",
    "CHECKED_TABLES",
    "CHECKPOINT",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "CONFIG",
    "ELITES",
    "ELITES_TABLE",
    "EVENT_COUNT",
    "EVOLVED_SUFFIX",
    "EXPLORER",
    "FOUND_COLUMNS",
    "GAMES",
    "GAME_SIDES",
    "GENOME_SCRIPTS",
    "INDIVIDUALS",
    "LEGACY_CHECKPOINT",
    "LEGACY_PARTIAL",
    "LOG",
    "MAX_TABLE_BYTES",
    "MEAN_SUFFIX",
    "MEASURE_PREFIX",
    "METRICS",
    "METRIC_COLUMNS",
    "OCCUPIED",
    "OWN_FILES",
    "PARTIAL",
    "PRESET_KINDS",
    "PROBE_CHART",
    "PROBE_CONTROL",
    "PROBE_GAMES",
    "PROBE_GENOMES",
    "PROBE_JOURNAL",
    "PROBE_REPORT",
    "PROBE_SETTINGS",
    "PROBE_TABLE",
    "PROBE_WIN_RATE",
    "PROGRESS_CHART",
    "QUALITY_COLUMNS",
    "REPORT",
    "RESUMED_KEYS",
    "RUN_FILES",
    "RunFiles",
    "SE_SUFFIX",
    "STATUS",
    "STD_SUFFIX",
    "STYLE_COLUMNS",
    "NOT_APART",
    "TOOL_INPUTS",
    "TRANSIENT_FILES",
    "VALIDATED_SUFFIX",
    "VALIDATION",
    "VALIDATION_CHART",
    "VALIDATION_FILES",
    "VALIDATION_GAMES",
    "VALIDATION_JOURNAL",
    "VALIDATION_SUMMARY",
    "VALIDATION_TABLE",
    "WIDE_INTERVAL",
    "WIN_RATE_CI",
    "cell_keys",
    "check_schema",
    "check_summary",
    "check_table",
    "command_path",
    "config_axes",
    "config_diff",
    "config_problem",
    "csv_true",
    "current_styles",
    "dominant_scripts",
    "elite_columns",
    "event_count_prefixes",
    "evolved_column",
    "game_sides",
    "genome_scripts",
    "grid_index_text",
    "headline",
    "heatmap_file",
    "individual_columns",
    "is_run_dir",
    "mean_column",
    "measure_column",
    "number_text",
    "parse_grid_index",
    "presets_file",
    "read_table",
    "run_files",
    "se_column",
    "side_prefix",
    "stat_columns",
    "stat_features",
    "std_column",
    "style_verdict",
    "styles_counted",
    "styles_text",
    "table_problem",
    "validated_ci_columns",
    "validated_column",
    "validated_columns",
    "validated_std_column",
    "validation_source",
    "weight_columns",
]
