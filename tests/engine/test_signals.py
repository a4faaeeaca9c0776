"""Stopping a long run: SIGTERM ends it at the next case with its summary; SIGKILL loses nothing it reported."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from toolfuzz.corpus.fixtures import load
from tests.paths import ROOT
from tests.processes import GONE_LIMIT, descendants, survivors

ROOT = ROOT
TARGET = "selftest-hand-out-after-disconnect"
#: A bound on waits that end at once when all is well: only a hang runs into it, so it can be generous on a
#: loaded machine (GONE_LIMIT is its like for a worker that outlives its supervisor).
LIMIT = 300


class Run:
    """``toolfuzz run`` in its own process, its stdout and stderr read by threads as they come."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        argv = [sys.executable, "-m", "toolfuzz", "run", "--target", TARGET, "--profile", "openai",
                "--workers", "2", "--findings", str(tmp / "findings"), "--state", str(tmp / "state"), "--json", *extra]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.out: list[str] = []
        # Threads, so that waiting for the process is bounded: a read of its pipes lasts as long as any
        # process holding them (its workers too) lives.
        self.readers = [threading.Thread(target=self._read_err, daemon=True),
                        threading.Thread(target=lambda: self.out.append(self.process.stdout.read()), daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_err(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line)

    def wait_for(self, text: str, limit: float = LIMIT) -> None:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.process.poll() is None, "".join(self.err)
                continue
            self.err.append(line)
            if text in line:
                return
        self.process.kill()
        raise AssertionError(f"no {text!r} within {limit} s in {''.join(self.err)}")

    def finish(self, limit: float = LIMIT) -> tuple[int, str, str]:
        try:
            code = self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"the run did not end within {limit} s") from None
        for reader in self.readers:
            reader.join(timeout=GONE_LIMIT)
        while not self.lines.empty():
            self.err.append(self.lines.get())
        return code, "".join(self.out), "".join(self.err)


def reported(err: str) -> dict[str, str]:
    """signature -> fixture path, for every finding the run printed and did not replace later.

    A finding with fewer features replaces the ones it is more general than, and their files go
    (``replaces <signature>`` under it says so).
    """
    lines = err.splitlines()
    found = {line.split(": ", 1)[1]: next(more.split("-> ", 1)[1].split(" (")[0] for more in lines[i + 1:]
                                          if more.startswith("  -> "))
             for i, line in enumerate(lines) if line.startswith("diverges: ") and i + 3 < len(lines)}
    for line in lines:
        if line.startswith("  replaces "):
            found.pop(line[len("  replaces "):].split(" (it needed")[0], None)
    return found


def test_sigterm_stops_at_the_next_case_with_the_summary_and_every_finding_on_disk(tmp_path):
    run = Run(tmp_path, "--budget", "900", "--max-examples", "100000")
    run.wait_for("diverges: ")
    run.process.send_signal(signal.SIGTERM)
    code, out, err = run.finish()
    summary = json.loads(out)
    assert code == 1 and summary["stopped_by"] == "interrupted"
    found = reported(err)
    assert found
    for signature, path in found.items():
        assert load(tmp_path / path).found["signature"] == signature
    assert {d["signature"] for t in summary["targets"] for d in t["divergences"]} == set(found)


def test_sigkill_loses_no_reported_finding_and_a_restart_reports_them_again(tmp_path):
    run = Run(tmp_path, "--budget", "900", "--max-examples", "100000")
    run.wait_for("diverges: ")
    family = descendants(run.process.pid)
    # The workers are the fork server's children, not the supervisor's.
    workers = [p for p, parent in family.items() if parent != run.process.pid]
    assert len(workers) >= 2, family
    run.process.kill()
    code, _, err = run.finish()
    assert code == -signal.SIGKILL
    before = reported(err)
    assert before
    for signature, path in before.items():
        assert load(tmp_path / path).found["signature"] == signature
    # The workers die with their supervisor: the fork server goes, and the kernel kills its children.
    assert survivors(family) == [], "processes of the killed run still alive"
    again = Run(tmp_path, "--budget", "120", "--max-examples", "20")
    code, out, err = again.finish()
    assert code == 1, err
    after = reported(err)
    # Replayed from the database before anything new is generated (20 examples in all).  Shrunk again
    # with nothing known yet, a finding may come out smaller, under other features, so it is compared
    # by target and kind (tests/engine/test_database.py checks the replay itself); the fixture the
    # first run wrote stays on disk unless the new one is smaller.
    assert {s.rsplit("/", 1)[0] for s in before} <= {s.rsplit("/", 1)[0] for s in after}
    assert all((tmp_path / path).is_file() for path in before.values())
