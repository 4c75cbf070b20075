"""A person plays each difficulty tier of a style from a terminal: `playstyles play --p1
"preset:FILE#NAME" --p2 human` run in a pseudo-terminal (its input, output and errors a
terminal, as in a shell), the person answering every prompt by typing, on the committed tier
presets of the quickstart's styles (experiments/results/tiers/)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from play.presets import load_presets

ROOT = Path(__file__).resolve().parents[2]
TIERS = ROOT / "experiments" / "results" / "tiers" / "quickstart" / "presets.json"


def play_in_terminal(argv: list[str], answer: str, timeout: float = 180.0
                     ) -> tuple[int, str, int]:
    """Run `python -m playstyles ARGV` with a pseudo-terminal as its input, output and errors;
    type `answer` and Enter at every prompt ("> "). Returns (exit code, everything shown,
    prompts answered)."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "playstyles", *argv], cwd=ROOT, env=env,
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    shown, answered, deadline = b"", 0, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the program ended
                break
            if not chunk:
                break
            shown += chunk
            if shown.endswith(b"> "):
                os.write(master, answer.encode() + b"\n")
                answered += 1
        else:
            raise AssertionError("no end within the time: " + shown.decode()[-800:])
        code = proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, shown.decode(errors="replace"), answered


def tier_presets() -> list[str]:
    """The names of one style's tier presets (the first style of the committed file)."""
    if not TIERS.exists():
        return []
    names = [p.name for p in load_presets(TIERS).presets]
    first = names[0].rsplit(" / ", 1)[0]
    return [n for n in names if n.startswith(first + " / ")]


def test_the_committed_tiers_are_one_style_at_several_budgets():
    names = tier_presets()
    assert len(names) >= 3, f"{TIERS}: fewer than 3 tiers of its first style"
    budgets = [load_presets(TIERS).get(n).evidence["budget"] for n in names]
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


@pytest.mark.parametrize("name", tier_presets())
def test_a_person_plays_each_tier_from_a_terminal(name):
    code, shown, answered = play_in_terminal(
        ["play", "--p1", f"preset:{TIERS}#{name}", "--p2", "human", "--rounds", "2",
         "--seed", "3"], answer="end_turn")
    assert code == 0, shown[-800:]
    assert answered >= 2  # the person chose in both rounds
    assert "choose an action" in shown and "END_TURN" in shown
    assert "after 2 rounds" in shown and "Traceback" not in shown
