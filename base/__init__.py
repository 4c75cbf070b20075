"""The ground floor: what every other package may use and which uses none of them.

* `base.limits`: the upper bound of every input, and short quoting of a bad value;
* `base.schema`: the checks a config or a file's field goes through (one error naming it);
* `base.files`: writing only what a command owns, atomically; reading with a bound;
* `base.datalog`: the append-only data logs (journals, checkpoints) and their reader;
* `base.stats`: intervals, tests and corrections every table and verdict uses;
* `base.progress`: the callbacks through which long commands report games done;
* `base.version`: which code is running (version, commit);
* `base.compiled`: whether a module runs from its compiled extension or its source.

Nothing here imports another package of the project (tests/test_layers.py checks it).
"""
