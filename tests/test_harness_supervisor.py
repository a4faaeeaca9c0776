"""``toolfuzz run --workers N``: each way a target can kill its process is a finding, and the others go on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.fixture import load

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile.py"
SELFTEST = "selftest-hand-out-after-disconnect"


def _run(tmp, targets):
    argv = ["run", *[a for t in targets for a in ("--target", t)], "--workers", "2", "--profile", "openai",
            "--max-examples", "60", "--budget", "240", "--timeout", "0.5", "--memory-cap", "1G", "--seed", "5",
            "--findings", str(tmp / "findings"), "--state", str(tmp / "state"), "--json"]
    # A process of its own, as a user runs it: multiprocessing keeps one fork server per process, and one
    # left by an earlier test of this session carries that test's imports, which would count against
    # --memory-cap in every worker it forks.
    done = subprocess.run([sys.executable, "-m", "harness.cli", *argv], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent, timeout=600)
    return done.returncode, json.loads(done.stdout), done.stderr, tmp / "findings"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """One run with the crashing, hanging and phoning targets beside a merely broken one, on two workers."""
    targets = [SELFTEST, f"{HOSTILE}:phone", f"{HOSTILE}:segv", f"{HOSTILE}:hang"]
    return _run(tmp_path_factory.mktemp("hostile"), targets)


@pytest.fixture(scope="module")
def hog_run(tmp_path_factory):
    """The allocating target in a run of its own: where it stands among killers must not decide whether it runs."""
    return _run(tmp_path_factory.mktemp("hog"), [SELFTEST, f"{HOSTILE}:hog"])


def _name(fn: str) -> str:
    return f"{HOSTILE}:{fn}"


def test_a_segfault_is_a_crash_with_the_case_in_flight(hostile_run):
    code, summary, err, root = hostile_run
    [fixture] = [load(p) for p in root.rglob("crash--*.json")]
    entry = fixture.observed[_name("segv")]
    assert entry["kind"] == "crash" and "SIGSEGV" in entry["detail"]
    assert fixture.found["unshrunk"] is True and fixture.case.reads


def test_a_loop_deaf_to_the_time_limit_is_a_hang_and_its_worker_is_replaced(hostile_run):
    code, summary, err, root = hostile_run
    hangs = [load(p) for p in root.rglob("hang--*.json")]
    assert hangs and all(_name("hang") in f.observed for f in hangs)
    assert summary["restarts"] >= 1


def test_unbounded_allocation_under_the_cap_is_a_memory_finding(hog_run):
    code, summary, err, root = hog_run
    memory = [load(p) for p in root.rglob("memory--*.json")]
    assert memory and _name("hog") in memory[0].observed, (summary, err[-2000:])
    assert "1024 MiB" in memory[0].observed[_name("hog")]["detail"]


def test_a_socket_opened_in_a_worker_is_reported_not_obeyed(hostile_run):
    code, summary, err, root = hostile_run
    [phone] = [t for t in summary["targets"] if t["name"] == _name("phone")]
    assert {d["kind"] for d in phone["divergences"]} == {"blocked_action"}
    assert "socket.connect" in phone["divergences"][0]["detail"]


def test_one_targets_death_never_stops_the_others(hostile_run):
    code, summary, err, root = hostile_run
    assert code == 1
    [broken] = [t for t in summary["targets"] if t["name"] == SELFTEST]
    assert {d["kind"] for d in broken["divergences"]} == {"incomplete_handed_on"}
    assert broken["examples"] > 0
    # Each killer is left out after killing MAX_DEATHS workers, not retried all night.
    assert set(summary["quarantined"]) <= {_name(n) for n in ("segv", "hang", "hog")}
    assert all(Path(d["fixture"]).is_file() for t in summary["targets"] for d in t["divergences"])


def test_one_finding_file_per_target_and_death_kind(hostile_run, hog_run):
    deaths = [p for run in (hostile_run, hog_run) for kind in ("crash", "hang", "memory")
              for p in run[3].rglob(f"{kind}--*.json")]
    assert sorted(p.name for p in deaths) == ["crash--plain.json", "hang--plain.json", "memory--plain.json"]
