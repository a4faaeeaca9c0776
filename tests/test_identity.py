"""toolfuzz.identity: a crash state parsed once from its text and written back as it was; the root-cause key."""

from __future__ import annotations

import pickle

from hypothesis import given, strategies as st

from toolfuzz.identity import CrashState, RootKey

DEEP = "KeyError at lib.find < lib.handle < lib.loop"


def test_a_state_is_its_type_and_innermost_frames():
    state = CrashState.parse(DEEP)
    assert state == CrashState("KeyError", ("lib.find", "lib.handle", "lib.loop"))
    assert str(state) == DEEP
    assert CrashState.parse("TypeError") == CrashState("TypeError") and str(CrashState("TypeError")) == "TypeError"


def test_cut_to_its_innermost_frames_it_is_what_two_code_paths_share():
    state = CrashState.parse(DEEP)
    assert str(state.innermost(2)) == "KeyError at lib.find < lib.handle"
    assert str(state.innermost(1)) == "KeyError at lib.find"
    assert state.innermost(2) == CrashState.parse("KeyError at lib.find < lib.handle < adapter.run").innermost(2)
    assert state.innermost(9) == state


def test_a_missing_or_empty_state_reads_as_none():
    assert CrashState.read(None) is None and CrashState.read("") is None and CrashState.read(3) is None
    assert CrashState.read(DEEP) == CrashState.parse(DEEP)


# Any text: a program behind the subprocess protocol says a state of its own making, and a fixture keeps it.
@given(st.text(alphabet=st.sampled_from("ab <at:."), max_size=30))
def test_any_text_parses_and_writes_back_as_it_was(text):
    assert str(CrashState.parse(text)) == text


def test_a_root_key_holds_target_kind_and_state_and_pickles_into_a_worker():
    key = RootKey("t", "raised", CrashState.parse(DEEP))
    assert (key.target, key.kind, key.state.error) == ("t", "raised", "KeyError")
    assert RootKey("t", "timed_out") == ("t", "timed_out", None)
    assert pickle.loads(pickle.dumps(key)) == key and {key: 1}[RootKey("t", "raised", CrashState.parse(DEEP))] == 1
