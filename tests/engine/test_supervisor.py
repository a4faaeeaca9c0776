"""``toolfuzz run --workers N``: each way a target can kill its process is a finding, and the others go on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolfuzz.corpus.fixtures import load
from tests.paths import DATA, ROOT

HOSTILE = DATA / "hostile.py"
SELFTEST = "selftest-hand-out-after-disconnect"


#: The per-call time limit for runs whose targets answer or die at once: far above what a call takes, so
#: that a loaded machine cannot turn a correct call into a timeout.  Only the run of the target that
#: loops forever gets a short one (HANG_TIMEOUT): it hangs by construction, whatever the machine.
GENEROUS = "60"
HANG_TIMEOUT = "0.5"


def _run(tmp, targets, timeout=GENEROUS, budget="240"):
    argv = ["run", *[a for t in targets for a in ("--target", t)], "--workers", "2", "--profile", "openai",
            "--max-examples", "60", "--budget", budget, "--timeout", timeout, "--memory-cap", "1G", "--seed", "5",
            "--findings", str(tmp / "findings"), "--state", str(tmp / "state"), "--json"]
    # A process of its own, as a user runs it: multiprocessing keeps one fork server per process, and one
    # left by an earlier test of this session carries that test's imports, which would count against
    # --memory-cap in every worker it forks.
    done = subprocess.run([sys.executable, "-m", "toolfuzz", *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    return done.returncode, json.loads(done.stdout), done.stderr, tmp / "findings"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """One run with the crashing and phoning targets beside a merely broken one, on two workers."""
    targets = [SELFTEST, f"{HOSTILE}:phone", f"{HOSTILE}:segv"]
    return _run(tmp_path_factory.mktemp("hostile"), targets)


@pytest.fixture(scope="module")
def hang_run(tmp_path_factory):
    """The looping target in a run of its own, the only one under a short time limit."""
    return _run(tmp_path_factory.mktemp("hang"), [f"{HOSTILE}:hang"], timeout=HANG_TIMEOUT)


@pytest.fixture(scope="module")
def hog_run(tmp_path_factory):
    """The allocating target in a run of its own: where it stands among killers must not decide whether it runs."""
    # The generous time limit matters here too: under a short one, a loaded machine could end the call
    # by time before the allocation meets the cap, and the case would be a slow one, shrunk, not a death.
    return _run(tmp_path_factory.mktemp("hog"), [SELFTEST, f"{HOSTILE}:hog"])


def _name(fn: str) -> str:
    # A file's function is named as a module from the folder the run started in (the checkout).
    return f"tests.data.hostile:{fn}"


def test_a_segfault_is_a_crash_with_the_case_in_flight(hostile_run):
    code, summary, err, root = hostile_run
    [fixture] = [load(p) for p in root.rglob("crash--*.json")]
    entry = fixture.observed[_name("segv")]
    assert entry["kind"] == "crash" and "SIGSEGV" in entry["detail"]
    # What the call that killed the worker wrote, read from where the worker kept it.
    assert entry["output"]["stderr"].startswith("about to segfault\n")
    assert fixture.found["unshrunk"] is True and fixture.case.reads


def test_a_loop_deaf_to_the_time_limit_is_a_hang_and_its_worker_is_replaced(hang_run):
    code, summary, err, root = hang_run
    hangs = [load(p) for p in root.rglob("hang--*.json")]
    assert hangs and all(_name("hang") in f.observed for f in hangs)
    assert summary["restarts"] >= 1
    # It hangs on every call: it kills workers until it is left out.
    assert summary["quarantined"] == [_name("hang")]


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
    # The killer dies on every call: it is left out after killing MAX_DEATHS workers, not retried all night.
    assert summary["quarantined"] == [_name("segv")]
    assert all(Path(d["fixture"]).is_file() for t in summary["targets"] for d in t["divergences"])


def test_one_finding_file_per_target_and_death_kind(hostile_run, hang_run, hog_run):
    deaths = [p for run in (hostile_run, hang_run, hog_run) for kind in ("crash", "hang", "memory")
              for p in run[3].rglob(f"{kind}--*.json")]
    assert sorted(p.name for p in deaths) == ["crash--plain.json", "hang--plain.json", "memory--plain.json"]


def test_a_worker_that_cannot_search_ends_the_run_with_one_error_and_no_worker_left(tmp_path):
    import multiprocessing

    from toolfuzz import strategies
    from toolfuzz.errors import UsageError
    from toolfuzz.engine.settings import RunConfig
    from toolfuzz.engine.supervisor import Supervisor
    from toolfuzz.engine.units import Unit
    from toolfuzz.targets.registry import REFERENCE

    # "openai" is a chat profile: the anthropic strategies refuse it in each worker.
    config = RunConfig(targets=(REFERENCE,), specs=("reference",), level="events", dialect="anthropic",
                       profiles=("openai",), tools=None, max_examples=100, budget=60, seed=1, timeout=1.0,
                       workers=2, state=tmp_path / "state")
    supervisor = Supervisor(config, [Unit(("openai",), ("reference",))], plain=strategies.PLAIN_FEATURES)
    with pytest.raises(UsageError, match="unknown profile 'openai' for dialect anthropic"):
        supervisor.run()
    assert not multiprocessing.active_children()
    assert not (tmp_path / "findings").exists() or not any((tmp_path / "findings").rglob("*.json"))


@pytest.mark.parametrize("kind,fn", [("crash", "segv"), ("hang", "hang"), ("memory", "hog")])
def test_a_death_fixture_replays_in_a_child_and_still_fails_with_its_kind(hostile_run, hang_run, hog_run, kind, fn):
    [path] = [p for run in (hostile_run, hang_run, hog_run) for p in run[3].rglob(f"{kind}--*.json")]
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "replay", str(path), "--target", _name(fn),
                           "--timeout", HANG_TIMEOUT if kind == "hang" else GENEROUS, "--json"], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [cell] = [c for c in json.loads(done.stdout)["cells"] if c["target"] == _name(fn)]
    assert (cell["verdict"], cell["kind"]) == ("still fails", kind), cell


def test_corpus_minimize_shrinks_a_crash_fixture_in_children_and_lives_on(hostile_run, tmp_path):
    import dataclasses

    from toolfuzz.corpus.minimize import minimize
    from toolfuzz.corpus.fixtures import dumps, write_atomic
    from toolfuzz.targets.specs import resolve_all

    [found] = list(hostile_run[3].rglob("crash--*.json"))
    path = tmp_path / found.name
    fixture = load(found)
    # The case in flight, cut into 40-byte reads: each try of the minimizer runs the target that segfaults.
    wire = fixture.case.wire
    case = dataclasses.replace(fixture.case, reads=tuple(wire[i:i + 40] for i in range(0, len(wire), 40)))
    write_atomic(path, dumps(dataclasses.replace(fixture, case=case)))
    [segv] = resolve_all([_name("segv")], "events")
    [result] = minimize([str(path)], timeout=5.0, budget=20.0, targets={segv.name: segv})
    assert result.action == "shrunk" and result.after < result.before, result
    fixture = load(path)
    assert fixture.observed[segv.name]["kind"] == "crash" and "crash" in fixture.observed[segv.name]["observation"]
    assert "unshrunk" not in fixture.found and fixture.found["minimized"]


def test_the_examples_a_worker_ran_before_a_target_killed_it_count(tmp_path):
    argv = ["run", "--target", "selftest-plain", "--target", _name("exit_on_tenth"), "--budget", "3", "--seed", "5",
            "--findings", str(tmp_path / "findings"), "--state", str(tmp_path / "state"), "--json"]
    done = subprocess.run([sys.executable, "-m", "toolfuzz", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    summary = json.loads(done.stdout)
    [exits] = [t for t in summary["targets"] if t["name"] == _name("exit_on_tenth")]
    [crash] = exits["divergences"]
    deaths = 1 + crash["hits"]
    # Each worker it killed ran it on nine cases first: the figures up to the case in flight are the run's. A
    # last worker that lived to the end of the budget ran it on fewer than ten.
    assert crash["kind"] == "crash" and 0 <= exits["examples"] - 9 * deaths < 10, (summary, done.stderr[-2000:])


def test_a_hog_still_growing_at_the_time_limit_is_one_memory_root_cause_never_a_hang(tmp_path):
    # Its first run is cut by the 2-s time limit; run again with twice the limit, as a new time-out is, it meets
    # the cap 3.5 s in (hostile.PAUSE): past the time limit plus the grace (1 s), within twice the limit.
    code, summary, err, root = _run(tmp_path, [_name("slow_hog")], timeout="2", budget="6")
    [hog] = summary["targets"]
    assert [d["kind"] for d in hog["divergences"]] == ["memory"], (summary, err[-2000:])
    assert not list(root.rglob("hang--*.json"))


def test_workers_import_toolfuzz_from_where_the_run_did_whatever_the_current_folder_holds(tmp_path):
    # The parent of a clone, say, or a folder with a package of that name of its own.
    (tmp_path / "toolfuzz").mkdir()
    (tmp_path / "toolfuzz" / "__init__.py").write_text("")
    script = Path(sys.executable).with_name("toolfuzz")  # as a user runs it: python -m would import that folder
    done = subprocess.run([str(script), "run", "--target", "reference", "--workers", "2", "--max-examples", "20",
                           "--budget", "240", "--seed", "1", "--database", "none", "--json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0 and "died" not in done.stderr, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["examples"] == 20 and summary["restarts"] == 0


def test_the_cases_in_flight_of_a_run_killed_outright_are_taken_away_by_the_next_run(tmp_path):
    import shutil

    from toolfuzz.engine.supervisor import _in_flight_folder

    mine = _in_flight_folder(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = mine.parent / f"toolfuzz-inflight-{gone.stdout.strip()}-abc"
    stale.mkdir()
    (stale / "0.pickle").write_bytes(b"left by a run killed with SIGKILL")
    other = mine
    try:
        other = _in_flight_folder(tmp_path)
        assert not stale.exists() and mine.is_dir() and other.is_dir() and other != mine
    finally:
        for folder in (mine, stale, other):
            shutil.rmtree(folder, ignore_errors=True)
