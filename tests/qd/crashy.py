"""A test agent whose worker process dies once: the first game that reaches its `act` kills
the process (os._exit) unless the marker file exists, which it creates first. Registered in
Ray workers through a worker set-up hook, and in the driver by the test."""

from __future__ import annotations

import os
from pathlib import Path

from agents.random_agent import RandomAgent


class CrashOnce(RandomAgent):
    def __init__(self, seed: int = 0, marker: str = "") -> None:
        super().__init__(seed)
        self.marker = marker

    def act(self, state):
        if self.marker and not Path(self.marker).exists():
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)
        return super().act(state)


def register() -> None:
    from agents.registry import register_agent
    register_agent("*", "crash_once", CrashOnce)
