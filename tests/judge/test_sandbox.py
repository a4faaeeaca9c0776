"""Running a target: what it is handed, and what it may not do."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from toolfuzz.corpus.fixtures import load
from toolfuzz.judge.contestants import resolve_all
from toolfuzz.judge.exits import exiting_on_fatal
from toolfuzz.judge.sandbox import Observation, chunks_of, observe
from toolfuzz.targets.base import Target
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
CASE = load(SEED / "read-splits-multibyte.json").case


def test_events_targets_get_parsed_chunks_and_bytes_targets_get_the_reads():
    seen = {}
    observe(Target("e", lambda chunks: seen.setdefault("events", chunks) and []), CASE)
    observe(Target("b", lambda reads: seen.setdefault("bytes", reads) and [], level="bytes"), CASE)
    assert all(isinstance(c, dict) for c in seen["events"]) and len(seen["events"]) == 4  # [DONE] is not a chunk
    assert seen["bytes"] == list(CASE.reads)


def test_a_target_cannot_change_what_the_next_one_sees():
    payloads = chunks_of(CASE)

    def vandal(chunks):
        chunks[0]["choices"] = []
        return []

    observe(Target("v", vandal), CASE, payloads)
    seen = []
    observe(Target("w", lambda chunks: seen.extend(chunks) or []), CASE, payloads)
    assert seen[0]["choices"]


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


def test_what_a_target_writes_is_its_observations_output_whatever_it_answers(capfd):
    def noisy(then):
        def call(chunks):
            print("on stdout")
            os.write(2, b"on stderr\n")
            return then()
        return call

    def loop():
        while True:
            pass

    capfd.readouterr()
    answered = observe(Target("a", noisy(lambda: [])), CASE)
    raised = observe(Target("r", noisy(lambda: {}["x"])), CASE)
    late = observe(Target("t", noisy(loop)), CASE, timeout=0.5)
    assert (answered.calls, raised.raised, late.timed_out) == ((), "KeyError: 'x'", True)
    for seen in (answered, raised, late):
        assert (seen.output.stdout, seen.output.stderr) == ("on stdout\n", "on stderr\n")
    assert observe(Target("q", lambda chunks: []), CASE).output is None
    # Not part of what the target answered: the same answer with other output is the same observation.
    assert answered == Observation(seconds=answered.seconds)
    assert capfd.readouterr() == ("", "")


def test_outside_a_target_nothing_is_blocked(tmp_path):
    observe(Target("r", lambda chunks: []), CASE)
    assert subprocess.run(["true"]).returncode == 0


def test_events_targets_are_fed_the_events_known_by_construction_not_the_reference_decoder(monkeypatch):
    from toolfuzz.targets.reference import sse

    before = chunks_of(CASE)
    # A reference decoder that dispatches nothing: if the judge leaned on it, every target would starve.
    monkeypatch.setattr(sse.SSEDecoder, "feed", lambda self, data: [])
    assert CASE.events is not None and chunks_of(CASE) == before and len(before) == 4


def test_a_target_that_takes_the_request_gets_the_cases_tools_and_limits():
    seen = {}

    def fn(reads, tools, limits):
        seen.update(tools=tools, limits=limits)
        return []

    observe(Target("r", fn, level="bytes", takes_request=True), CASE)
    assert seen == {"tools": CASE.tools, "limits": CASE.limits} and CASE.tools


def test_a_target_that_claims_errors_must_say_which_error_it_ended_with():
    claims = frozenset({"errors"})
    good = observe(Target("g", lambda chunks: {"calls": [], "stream_error": "server_error"}, reports=claims), CASE)
    assert (good.error, good.bad_return) == ("server_error", None)
    bare = observe(Target("b", lambda chunks: [], reports=claims), CASE)
    assert "must return" in bare.bad_return
    unknown = observe(Target("u", lambda chunks: {"calls": [], "stream_error": "oops"}, reports=claims), CASE)
    assert "'oops' is not one of" in unknown.bad_return


# -- crash states -------------------------------------------------------------

RAISING = '''
import json
from packaging.version import Version

_calls = []


def lookup(table, key):
    return table[key]


def assemble(chunks):
    _calls.append(1)
    return lookup({}, f"call {len(_calls)}")  # a new message on every call, from the same place


def other(chunks):
    return {}["x"]


def parse(chunks):
    return json.loads("{")


def versioned(chunks):
    return Version("not a version")
'''


@pytest.fixture(scope="module")
def raising(tmp_path_factory):
    path = tmp_path_factory.mktemp("crash") / "assembler_under_test.py"
    path.write_text(RAISING)

    def target(fn):
        [t] = resolve_all([f"{path}:{fn}"], "events")
        return t
    return target


def test_a_raise_from_a_helper_names_its_type_then_the_helper_then_its_caller(raising):
    # Wrapped as a worker wraps it, so that a frame of the harness's sits among the target's.
    obs = observe(raising("assemble").wrapped(exiting_on_fatal), CASE)
    assert obs.raised.startswith("KeyError: ")
    # Named by the file, not by the loader's per-process module name; no frame of the harness's.
    assert obs.crash_state == "KeyError at assembler_under_test.lookup < assembler_under_test.assemble"


def test_the_same_raise_with_another_message_has_the_same_state(raising):
    target = raising("assemble")
    first, second = observe(target, CASE), observe(target, CASE)
    assert first.raised != second.raised and first.crash_state == second.crash_state


def test_a_raise_from_another_function_has_another_state(raising):
    assert observe(raising("other"), CASE).crash_state == "KeyError at assembler_under_test.other"
    assert observe(raising("other"), CASE).crash_state != observe(raising("assemble"), CASE).crash_state


def test_the_standard_librarys_frames_are_passed_over_and_an_installed_librarys_are_kept(raising):
    assert observe(raising("parse"), CASE).crash_state == "JSONDecodeError at assembler_under_test.parse"
    state = observe(raising("versioned"), CASE).crash_state
    inner, outer = state.split(" at ")[1].split(" < ")[-2:]
    assert state.startswith("InvalidVersion at packaging.version.") and outer == "assembler_under_test.versioned"
    assert inner.startswith("packaging.version.")


def test_only_the_three_innermost_frames_are_named_and_recursion_is_still_raised():
    def deeper(n):
        if n == 0:
            raise ValueError("bottom")
        return deeper(n - 1)

    state = observe(Target("d", lambda chunks: deeper(5)), CASE).crash_state
    here = __name__
    name = f"{here}.test_only_the_three_innermost_frames_are_named_and_recursion_is_still_raised.<locals>.deeper"
    assert state == f"ValueError at {name} < {name} < {name}"

    def forever(chunks):
        return forever(chunks)

    obs = observe(Target("r", forever), CASE)
    assert obs.raised.startswith("RecursionError: ") and obs.crash_state.startswith("RecursionError at ")
    assert obs.crash_state.count(" < ") == 2 and "toolfuzz" not in obs.crash_state


def test_a_raise_with_no_frame_of_the_target_is_just_its_type():
    obs = observe(Target("i", int), CASE)  # a builtin: the raise happens in no Python frame at all
    assert obs.raised.startswith("TypeError: ") and obs.crash_state == "TypeError"


def test_the_crash_state_is_recorded_with_the_raise_and_only_then():
    raised = Observation(raised="KeyError: 'x'", crash_state="KeyError at m.f")
    assert raised.to_json() == {"raised": "KeyError: 'x'", "crash_state": "KeyError at m.f"}
    assert Observation(raised="KeyError: 'x'").to_json() == {"raised": "KeyError: 'x'"}
    assert observe(Target("fine", lambda chunks: []), CASE).crash_state is None


def _partial_case(text: str, cuts=()):
    from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome
    return Case(reads=(), expected=Outcome((Call(0, 0, "c", "f", text, COMPLETE, tuple(cuts)),)))


def test_a_partial_target_is_called_once_a_prefix_and_a_raise_is_that_prefixs_answer():
    from toolfuzz.judge.contestants import plain_target
    from toolfuzz.judge.prefixes import prefixes_of
    text = '{"a": "xy", "n": 12}'
    seen_prefixes = []

    def parser(prefix):
        seen_prefixes.append(prefix)
        if prefix.endswith('"x'):
            raise KeyError("x")
        return None

    seen = observe(plain_target(parser, "p", "partial"), _partial_case(text, (8,)))
    assert seen_prefixes == [text[:n] for n in prefixes_of(text, (8,))] and text[:8] in seen_prefixes
    raised = [p for p in seen.prefixes if p.raised]
    assert [p.length for p in raised] == [8] and raised[0].raised == "KeyError: 'x'"
    assert raised[0].crash_state.startswith("KeyError at ")
    assert seen.to_json()["prefixes"][0] == {"text": 0, "length": 1, "value": "null"}


def test_a_partial_target_that_shows_no_json_value_is_a_bad_return():
    from toolfuzz.judge.contestants import plain_target
    seen = observe(plain_target(lambda prefix: {"a": {1, 2}}, "p", "partial"), _partial_case('{"a": 1}'))
    assert seen.bad_return and "set" in seen.bad_return and seen.prefixes is None
    keyed = observe(plain_target(lambda prefix: {1: "a"}, "p", "partial"), _partial_case('{"a": 1}'))
    assert keyed.bad_return and "key 1" in keyed.bad_return
