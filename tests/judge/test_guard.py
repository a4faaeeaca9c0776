"""The walls a target runs between: no socket, process or write outside the temporary folder, and a time limit."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import Target
from tests.paths import ROOT

CASE = load(ROOT / "findings" / "seed" / "read-splits-multibyte.json").case


def test_writing_outside_the_temporary_folder_is_blocked(tmp_path):
    target_file = Path.home() / ".toolfuzz-should-not-exist"

    def scribble(chunks):
        with open(target_file, "w") as f:
            f.write("x")
        return []

    obs = observe(Target("s", scribble), CASE)
    assert obs.blocked and "open for writing" in obs.blocked
    assert not target_file.exists()


def test_writing_inside_the_temporary_folder_is_allowed():
    def scratch(chunks):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("ok")
        return []

    assert observe(Target("t", scratch), CASE).blocked is None


def test_starting_a_process_is_blocked():
    obs = observe(Target("p", lambda chunks: subprocess.run(["true"]) and []), CASE)
    assert obs.blocked and "subprocess.Popen" in obs.blocked


def _uname_for_headers():
    return subprocess.run(["uname", "-p"], capture_output=True)


def _first_request(chunks):
    _uname_for_headers()
    return []


def test_a_blocked_action_names_the_target_s_frames_that_acted_and_none_outside_it():
    # As the openai SDK runs `uname -p` for its platform headers: the maintainer needs the library's frame.
    obs = observe(Target("p", _first_request), CASE)
    assert obs.blocked is not None
    what, _, where = obs.blocked.partition(" from ")
    assert what.startswith("subprocess.Popen") and "uname" in what
    assert where == "tests.judge.test_guard._uname_for_headers < tests.judge.test_guard._first_request"


def test_an_except_clause_in_the_target_cannot_swallow_the_block():
    def sneaky(chunks):
        try:
            os.system("true")
        except Exception:
            pass
        return []

    assert observe(Target("q", sneaky), CASE).blocked


def test_a_target_that_swallows_the_time_limit_s_first_raise_is_stopped_all_the_same():
    # The first raise can be lost without the target's doing: Python only reports an exception raised in a
    # garbage collector's callback. A bare except stands in for that here.
    swallowed = []

    def stubborn(chunks):
        try:
            while True:
                pass
        except BaseException as e:  # noqa: BLE001 - the point of the test
            swallowed.append(type(e).__name__)
        while True:
            pass

    seen = observe(Target("s", stubborn), CASE, timeout=0.3)
    assert seen.timed_out and swallowed == ["TargetTimedOut"]
    assert not seen.raised


def test_outside_a_target_nothing_is_blocked(tmp_path):
    observe(Target("r", lambda chunks: []), CASE)
    assert subprocess.run(["true"]).returncode == 0
