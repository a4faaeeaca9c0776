"""A command whose reader goes away (``toolfuzz run | head``) still exits with what it found, its summary on stderr.

Each run here is a real ``toolfuzz run`` process whose standard output (or both outputs) is a pipe no one
reads any more: the read end is closed before the run starts, as when ``head`` has had its fill or ``tee``
died with the Ctrl-C that stopped the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

from toolfuzz.corpus.fixtures import load
from tests.paths import ROOT

#: A mutant that diverges on the plainest stream: found in the first second of any run.
MUTANT = "selftest-key-by-id"
#: Only a hang runs into this.
LIMIT = 300


def closed_pipe() -> int:
    """The write end of a pipe whose reader has gone: every write to it fails with EPIPE."""
    read, write = os.pipe()
    os.close(read)
    return write


def toolfuzz_run(tmp_path, stdout, stderr, *extra: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "toolfuzz", "run", "--target", MUTANT, "--budget", "2", "--seed", "1",
            "--database", "none", "--findings", str(tmp_path / "findings"), "--state", str(tmp_path / "state"),
            *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, stdout=stdout, stderr=stderr, cwd=tmp_path, env=env, timeout=LIMIT, text=True)


def test_a_run_whose_standard_output_is_closed_exits_1_on_divergences_and_says_its_summary_on_stderr(tmp_path):
    out = closed_pipe()
    try:
        done = toolfuzz_run(tmp_path, out, subprocess.PIPE, "--json")
    finally:
        os.close(out)
    assert done.returncode == 1, done.stderr
    fixtures = sorted((tmp_path / "findings" / MUTANT).glob("*.json"))
    assert fixtures and all(load(f).observed[MUTANT]["verdict"] == "diverges" for f in fixtures)
    # The summary no one read on stdout, on stderr after the run's own lines; and no traceback.
    assert '"stopped_by": "budget"' in done.stderr and "Traceback" not in done.stderr


def test_a_run_whose_every_output_is_closed_stops_at_once_and_exits_130_having_found_nothing(tmp_path):
    out = closed_pipe()
    try:
        # The run's first line (`2>&1 | head -0`) has no reader: the run stops before its first case.
        done = toolfuzz_run(tmp_path, out, out)
    finally:
        os.close(out)
    assert done.returncode == 130
    assert not (tmp_path / "findings").exists()
