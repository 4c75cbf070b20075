"""Plug-ins from outside the repository on Ray workers: a package written into a temporary
directory (not installed; a copy of the Nim test game named `outgame`), played by driver
scripts and commands run as subprocesses, so that nothing of this process's registries or
Ray reaches them.

* `register_plugin` in a driver, the plug-in importable in the driver only (its directory put
  on the driver's `sys.path`): two local Ray workers play the same games as `workers=0`;
* an entry-point plug-in (a dist-info directory on PYTHONPATH): `playstyles tournament
  --workers 2` plays the same games as `--workers 0`;
* a 2-node cluster started by `ray start` in an environment where the plug-in cannot be
  imported: the driver joins with an address, the job ships the plug-in, and the games match;
  Ray's own failure to upload the code is one message of the command;
* the refusals, before the first game and before anything is written: a one-file plug-in
  and a package with a compiled extension with an address, a game registered with
  `register_game` alone with Ray workers.

The tests that start a Ray are marked slow (they run in CI): 6-13 s each on 2 CPUs.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
NIM = REPO / "tests" / "games" / "nim.py"
SPECS = textwrap.dedent("""
    from play.tournament import config_from_dict, plan
    config = config_from_dict({"game": "outgame", "agents": ["rule_based", "mcts:budget=20",
                               "random"], "levels": "range:0-1", "repetitions": 2, "seed": 1})
    specs = plan(config)

    def summary(rec):
        return [rec.spec.seed, rec.winner, rec.rounds, rec.decisions, rec.results]
""")
"""The games the drivers play: 3 pairs x 2 levels x 2 repetitions of the plug-in's game."""


def write_plugin(root: Path, package: str = "outgame") -> Path:
    """A plug-in package `package` under `root` whose `plugin` module registers the game
    `outgame` (Nim's code, renamed); returns `root`."""
    pkg = root / package
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A game from outside playstyles."""\n')
    (pkg / "plugin.py").write_text(NIM.read_text().replace('"nim"', '"outgame"'))
    return root


def environment(pythonpath: list[Path] | None = None, **extra: str) -> dict[str, str]:
    """This process's environment for a subprocess: PYTHONPATH exactly `pythonpath` (the
    repository first; None: unset), no cluster address, no usage statistics."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "RAY_ADDRESS", "PLAYSTYLES_PLUGINS")}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(map(str, [REPO, *pythonpath]))
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    env.update(extra)
    return env


def run_python(script: str, cwd: Path, env: dict[str, str], timeout: float = 300
               ) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=timeout)


def last_json(proc: subprocess.CompletedProcess):
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_registered_plugin_plays_on_local_ray_workers(tmp_path):
    plugins = write_plugin(tmp_path / "plugins")
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(plugins)!r})  # importable here only: not on PYTHONPATH
        from games.registry import register_plugin
        register_plugin("outgame", "outgame.plugin")
        from play.game_pool import run_games
        from play.ray_session import shutdown
    """) + SPECS + textwrap.dedent("""
        serial = {i: summary(r) for i, r in run_games(specs, workers=0)}
        try:
            ray = {i: summary(r) for i, r in run_games(specs, workers=2)}
        finally:
            shutdown()
        print(json.dumps({"serial": [serial[i] for i in sorted(serial)],
                          "ray": [ray[i] for i in sorted(ray)], "n": len(specs)}))
    """)
    got = last_json(run_python(script, tmp_path / "work", environment([]), timeout=240))
    assert got["n"] == 12 and len(got["ray"]) == 12
    assert got["ray"] == got["serial"]
    assert {w for _, w, *_ in got["ray"]} == {0, 1}


@pytest.mark.slow
def test_a_plugin_that_raises_on_a_worker_is_its_own_error_without_rays_frames(tmp_path):
    plugins = write_plugin(tmp_path / "plugins")
    with (plugins / "outgame" / "plugin.py").open("a") as fh:
        fh.write("\n\ndef _scores(self):\n    return [1 / 0]\n\n\nNimState.scores = _scores\n")
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(plugins)!r})
        from games.registry import register_plugin
        register_plugin("outgame", "outgame.plugin")
        from play.game_pool import PluginFailed, run_games
        from play.ray_session import shutdown
    """) + SPECS + textwrap.dedent("""
        try:
            list(run_games(specs[:1], workers=1))
        except PluginFailed as e:
            print(json.dumps({"frames": e.frames, "message": str(e)}))
        finally:
            shutdown()
    """)
    got = last_json(run_python(script, tmp_path / "work", environment([]), timeout=240))
    text = got["frames"] + "\n" + got["message"]
    assert "\x1b[" not in text and "ray" not in text.lower()
    assert "outgame/plugin.py" in got["frames"] and "return [1 / 0]" in got["frames"]
    assert got["message"] == ("ZeroDivisionError: division by zero; "
                              "run playstyles check --game outgame")


@pytest.mark.slow
def test_an_entry_point_plugin_plays_in_a_tournament_on_ray_workers(tmp_path):
    site = write_plugin(tmp_path / "site")
    info = site / "outgame_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outgame-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[playstyles.games]\noutgame = outgame.plugin\n")
    env = environment([site])
    outs = {}
    for workers in ("0", "2"):
        out = tmp_path / f"t{workers}"
        proc = subprocess.run(
            [sys.executable, "-m", "playstyles", "tournament", "--game", "outgame", "--agents",
             "rule_based", "random", "--levels", "range:0-2", "--reps", "2", "--seed", "3",
             "--workers", workers, "--quiet", "--out", str(out)],
            cwd=tmp_path, env=env, text=True, capture_output=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs[workers] = pd.read_csv(out / "games.csv")
    timing = [c for c in outs["0"].columns if c == "seconds" or c.endswith("think_s")]
    assert len(outs["2"]) == 3 * 2  # 3 levels, 2 repetitions
    pd.testing.assert_frame_equal(outs["0"].drop(columns=timing),
                                  outs["2"].drop(columns=timing))


def test_a_one_file_plugin_is_refused_for_a_cluster_before_anything_is_written(tmp_path):
    single = tmp_path / "single"
    single.mkdir()
    (single / "oth.py").write_text(NIM.read_text().replace('"nim"', '"oth"'))
    port = free_port()  # nothing listens there: the refusal comes before Ray is asked
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(single)!r})
        from games.registry import register_plugin
        register_plugin("oth", "oth")
        from play.shipping import PluginUnreachable
        from play.tournament import config_from_dict, run_tournament
        config = config_from_dict({{"game": "oth", "agents": ["random", "rule_based"],
                                   "levels": "range:0-1"}})
        try:
            run_tournament(config, out={str(tmp_path / "t")!r}, address="127.0.0.1:{port}")
        except PluginUnreachable as e:
            print(e)
    """)
    proc = run_python(script, tmp_path / "work", environment([]), timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    message = proc.stdout.strip()
    assert message.startswith(f"the plug-in 'oth' (module oth, {single / 'oth.py'}) is one "
                              f"file outside a package, so it cannot be shipped to the Ray "
                              f"cluster at 127.0.0.1:{port}: put it in a package")
    assert "pip install it on every node of the cluster and on this machine" in message
    assert not (tmp_path / "t").exists()


def test_a_compiled_plugin_is_refused_for_a_cluster_run_before_its_folder_is_made(tmp_path):
    plugins = write_plugin(tmp_path / "plugins")
    ext = "_speed" + importlib.machinery.EXTENSION_SUFFIXES[0]
    (plugins / "outgame" / ext).write_bytes(b"")  # (found by its name; never loaded)
    config = tmp_path / "run.yaml"
    config.write_text(json.dumps({
        "name": "out", "game": "outgame", "levels": {"set": "range:0-9", "train": 2},
        "agent": {"name": "pmcts_pu", "budget": 10}, "opponent": "random",
        "features": ["stones_per_move", "moves"], "emitter": {"batch_size": 2},
        "evaluations": 4, "seed": 3}))
    port = free_port()
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(plugins)!r})
        from games.registry import register_plugin
        register_plugin("outgame", "outgame.plugin")
        from play.ray_session import check_playable
        from play.shipping import PluginUnreachable
        from qd.run import evolve
        check_playable(["outgame"], workers=2)  # a local Ray takes it as it is
        try:
            evolve({str(config)!r}, out={str(tmp_path / "run")!r}, address="127.0.0.1:{port}")
        except PluginUnreachable as e:
            print(e)
    """)
    proc = run_python(script, tmp_path / "work", environment([]), timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    message = proc.stdout.strip()
    assert message == (
        f"the plug-in 'outgame' (module outgame.plugin, {plugins / 'outgame'}) holds compiled "
        f"extensions (outgame/{ext}), which a node of another platform or Python version "
        f"could not load, so it cannot be shipped to the Ray cluster at 127.0.0.1:{port}: pip "
        f"install it on every node of the cluster and on this machine (an installed plug-in is "
        f"not shipped: each node imports its own installation)")
    assert not (tmp_path / "run").exists()


def test_a_game_registered_without_a_plugin_is_refused_with_workers(tmp_path):
    script = textwrap.dedent("""
        import time
        from games.registry import register_game
        from tests.games.nim import Nim
        register_game("adhoc", Nim)
        from play.ray_session import ray_running
        from play.shipping import PluginUnreachable
        from play.tournament import config_from_dict, run_tournament
        config = config_from_dict({"game": "adhoc", "agents": ["random", "random:label=r2"],
                                   "levels": "range:0-1"})
        t0 = time.perf_counter()
        try:
            run_tournament(config, out="t", workers=2)
        except PluginUnreachable as e:
            print(f"{ray_running()} {time.perf_counter() - t0:.1f} {e}")
        games, _ = run_tournament(config, out="t0", workers=0)
        print(len(games))
    """)
    work = tmp_path / "work"
    proc = run_python(script, work, environment([]), timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    refusal, played = proc.stdout.strip().splitlines()[-2:]
    started, seconds, message = refusal.split(" ", 2)
    assert started == "False" and float(seconds) < 2  # no Ray was started
    assert message.startswith("the game 'adhoc' was registered in this process only")
    assert "register_plugin('adhoc', 'package.module')" in message
    assert "'playstyles.games'" in message and "--workers 0" in message
    assert not (work / "t").exists()
    assert played == "4"  # in this process it plays (2 levels, 2 repetitions)


# ------------------------------------------------------------------ a 2-node local cluster

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            parents[int(name)] = int(stat[stat.rindex(b")") + 2:].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, parent in parents.items() if parent == p]
        out += kids
        todo += kids
    return out


def start_node(env: dict[str, str], log: Path, temp: str, *args: str) -> subprocess.Popen:
    """`ray start --block` (its processes end with it), its own ports chosen free, its files
    (and the address file a plain `ray.init()` would read) in `temp`, not the machine's."""
    ports = ["--dashboard-agent-listen-port", str(free_port()), "--dashboard-agent-grpc-port",
             str(free_port()), "--runtime-env-agent-port", str(free_port()),
             "--metrics-export-port", str(free_port())]
    return subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--block", "--num-cpus=1",
         "--disable-usage-stats", f"--temp-dir={temp}", *ports, *args], env=env,
        cwd=log.parent, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def stop_node(proc: subprocess.Popen) -> list[int]:
    """End a `ray start --block` node and what it started; returns what still lives."""
    family = _children(proc.pid)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 15
    alive = family
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in family if Path(f"/proc/{p}").exists()
                 and b"zombie" not in Path(f"/proc/{p}/status").read_bytes().lower()]
    for p in alive:  # (what the node did not end itself)
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return alive


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_plugin_is_shipped_to_a_two_node_cluster(tmp_path):
    plugins = write_plugin(tmp_path / "plugins")
    # the cluster's environment: the project's dependencies, neither the plug-in nor the
    # repository (the job ships both)
    cluster_env = environment(None, RAY_AUTH_MODE="disabled")
    port = free_port()
    address = f"127.0.0.1:{port}"
    (tmp_path / "nodes").mkdir()
    temp = tempfile.mkdtemp(prefix="ray")  # (short: Ray's socket paths must stay short)
    nodes = [start_node(cluster_env, tmp_path / "nodes" / "head.log", temp, "--head",
                        f"--port={port}", "--include-dashboard=false",
                        f"--node-manager-port={free_port()}")]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert nodes[0].poll() is None and time.monotonic() < deadline, \
                    (tmp_path / "nodes" / "head.log").read_text()[-2000:]
                time.sleep(0.3)
        nodes.append(start_node(cluster_env, tmp_path / "nodes" / "node.log", temp,
                                f"--address={address}"))
        driver_env = environment([plugins], RAY_AUTH_MODE="disabled")
        script = textwrap.dedent(f"""
            import importlib.util, json, sys, time
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            # without the job's code, no node can import the plug-in
            ray.init(address={address!r}, include_dashboard=False, log_to_driver=False)
            deadline = time.monotonic() + 60
            while len([n for n in ray.nodes() if n["Alive"]]) < 2:
                assert time.monotonic() < deadline, "the second node did not join"
                time.sleep(0.3)
            probe = ray.remote(num_cpus=0)(
                lambda: importlib.util.find_spec("outgame") is not None)
            bare = ray.get([probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                n["NodeID"], soft=False)).remote() for n in ray.nodes() if n["Alive"]])
            ray.shutdown()

            from games.registry import register_plugin
            register_plugin("outgame", "outgame.plugin")
            from play.game_pool import run_games
            from play.ray_session import shutdown

            def where(spec):  # the game, and where its worker imported the plug-in from
                import sys

                import ray
                from play.runner import run_game
                return (run_game(spec), sys.modules["outgame"].__file__,
                        ray.get_runtime_context().get_node_id())
        """) + SPECS + textwrap.dedent(f"""
            serial = {{i: summary(r) for i, r in run_games(specs, workers=0)}}
            t0 = time.perf_counter()
            try:
                done = dict(run_games(specs, address={address!r}, play=where))
            finally:
                shutdown()
            print(json.dumps({{"bare": bare, "serial": [serial[i] for i in sorted(serial)],
                              "cluster": [summary(done[i][0]) for i in sorted(done)],
                              "files": sorted({{f for _, f, _ in done.values()}}),
                              "nodes": len({{n for _, _, n in done.values()}}),
                              "seconds": time.perf_counter() - t0}}))
        """)
        got = last_json(run_python(script, tmp_path / "work", driver_env, timeout=300))
        assert got["bare"] == [False, False]
        assert len(got["cluster"]) == 12 and got["cluster"] == got["serial"]
        assert got["files"] and not any(f.startswith(str(plugins)) for f in got["files"])
        print(f"{got['nodes']} node(s) played, {got['seconds']:.1f} s")

        # Ray's own failure to upload the code is one message, not a traceback, and nothing
        # is played (the plug-in named by PLAYSTYLES_PLUGINS, to the command line)
        (plugins / "outgame" / "changed.py").write_text("")  # (a package not uploaded yet)
        out = tmp_path / "t"
        proc = subprocess.run(
            [sys.executable, "-m", "playstyles", "tournament", "--game", "outgame", "--agents",
             "random", "rule_based", "--address", address, "--quiet", "--out", str(out)],
            cwd=tmp_path / "work", text=True, capture_output=True, timeout=120, env={
                **driver_env, "PLAYSTYLES_PLUGINS": '{"outgame": "outgame.plugin"}',
                "RAY_RUNTIME_ENV_FAIL_UPLOAD_FOR_TESTING": "1"})
        assert proc.returncode == 2, proc.stderr[-3000:]
        message = proc.stderr.strip().splitlines()[-1]
        assert message == (
            f"playstyles: error: could not ship the code to the Ray cluster at {address}: "
            f"Failed to upload module {plugins / 'outgame'} to the Ray cluster: Failed to store "
            f"package in the GCS; it was shipping the project's packages, the plug-in package "
            f"outgame ({plugins / 'outgame'}); nothing was played")
        assert "Traceback" not in proc.stderr
        assert not (out / "games.csv").exists()
    finally:
        left = [p for node in reversed(nodes) for p in stop_node(node)]
        shutil.rmtree(temp, ignore_errors=True)
    assert left == []
