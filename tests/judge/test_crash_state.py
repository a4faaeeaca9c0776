"""Crash states: a raise named by its type and the target's own innermost frames, whatever its message."""

from __future__ import annotations

import pytest

from toolfuzz.corpus.fixtures import load
from toolfuzz.targets.specs import resolve_all
from toolfuzz.judge.exits import exiting_on_fatal
from toolfuzz.identity import CrashState
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import Target
from tests.paths import ROOT

CASE = load(ROOT / "findings" / "seed" / "read-splits-multibyte.json").case


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
    assert str(obs.crash_state) == "KeyError at assembler_under_test.lookup < assembler_under_test.assemble"


def test_the_same_raise_with_another_message_has_the_same_state(raising):
    target = raising("assemble")
    first, second = observe(target, CASE), observe(target, CASE)
    assert first.raised != second.raised and first.crash_state == second.crash_state


def test_a_raise_from_another_function_has_another_state(raising):
    assert str(observe(raising("other"), CASE).crash_state) == "KeyError at assembler_under_test.other"
    assert observe(raising("other"), CASE).crash_state != observe(raising("assemble"), CASE).crash_state


def test_the_standard_librarys_frames_are_passed_over_and_an_installed_librarys_are_kept(raising):
    assert str(observe(raising("parse"), CASE).crash_state) == "JSONDecodeError at assembler_under_test.parse"
    state = str(observe(raising("versioned"), CASE).crash_state)
    inner, outer = state.split(" at ")[1].split(" < ")[-2:]
    assert state.startswith("InvalidVersion at packaging.version.") and outer == "assembler_under_test.versioned"
    assert inner.startswith("packaging.version.")


def test_only_the_three_innermost_frames_are_named_and_recursion_is_still_raised():
    def deeper(n):
        if n == 0:
            raise ValueError("bottom")
        return deeper(n - 1)

    state = str(observe(Target("d", lambda chunks: deeper(5)), CASE).crash_state)
    here = __name__
    name = f"{here}.test_only_the_three_innermost_frames_are_named_and_recursion_is_still_raised.<locals>.deeper"
    assert state == f"ValueError at {name} < {name} < {name}"

    def forever(chunks):
        return forever(chunks)

    obs = observe(Target("r", forever), CASE)
    assert obs.raised.startswith("RecursionError: ") and str(obs.crash_state).startswith("RecursionError at ")
    assert len(obs.crash_state.frames) == 3 and "toolfuzz" not in str(obs.crash_state)


def test_a_raise_with_no_frame_of_the_target_is_just_its_type():
    obs = observe(Target("i", int), CASE)  # a builtin: the raise happens in no Python frame at all
    assert obs.raised.startswith("TypeError: ") and str(obs.crash_state) == "TypeError"


def test_the_crash_state_is_recorded_with_the_raise_and_only_then():
    raised = Observation(raised="KeyError: 'x'", crash_state=CrashState("KeyError", ("m.f",)))
    assert raised.to_json() == {"raised": "KeyError: 'x'", "crash_state": "KeyError at m.f"}
    assert Observation(raised="KeyError: 'x'").to_json() == {"raised": "KeyError: 'x'"}
    assert observe(Target("fine", lambda chunks: []), CASE).crash_state is None
