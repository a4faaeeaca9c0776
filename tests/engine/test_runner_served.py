"""A run in workers holds none of the programs its own process started to read the targets' handshakes."""

from __future__ import annotations

import sys

from toolfuzz.engine import runner
from toolfuzz.engine.events import Stats
from toolfuzz.engine.settings import RunConfig
from toolfuzz.targets.command import command_targets


def test_the_programs_started_to_resolve_the_targets_are_stopped_while_the_workers_search(tmp_path, monkeypatch):
    (served,) = command_targets([sys.executable, "-m", "toolfuzz", "serve", "selftest-plain"])
    child = served.extra["child"]
    seen: list[int | None] = []

    def search(supervisor) -> Stats:
        seen.append(child.pid)
        return Stats()

    monkeypatch.setattr(runner.Supervisor, "run", search)
    config = RunConfig(targets=(served,), specs=("selftest-plain",), level="events", dialect="openai-chat",
                       profiles=None, tools=None, max_examples=10, budget=10, seed=1, timeout=5.0,
                       state=tmp_path / "state")
    try:
        assert child.pid is not None
        runner.execute(config, lambda event: None)
        # Each worker serves its own: the one started here would hold an import of the library all along.
        assert seen == [None]
        # Asked for again afterwards, it is started again, as after any stop.
        child.prepare()
        assert child.pid is not None and child.starts == 2
    finally:
        child.stop()
