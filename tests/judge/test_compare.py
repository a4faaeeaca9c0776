"""Every divergence kind, each shown by a small hand-made target on a seed case."""

from __future__ import annotations

import socket
import time

import pytest

from toolfuzz.identity import CrashState
from toolfuzz.judge.compare import KINDS, Divergence, compare
from toolfuzz.judge.compare_events import SSE_KINDS
from toolfuzz.judge.compare_partial import PARTIAL_KINDS
from toolfuzz.judge.compare_producer import PRODUCER_KINDS
from toolfuzz.corpus.fixtures import load
from toolfuzz.vocabulary import Call, Case, Outcome, StreamError
from toolfuzz.judge.observation import Observation, ObservedCall
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.base import PLAIN_CLAIMS, Target
from toolfuzz.targets.reference import assemble
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest.plain import assemble_chunks
from tests.paths import ROOT
from tests.streams import chunk, head, sse

SEED = ROOT / "findings" / "seed"
TWO = load(SEED / "two-calls-interleaved.json").case
CUT = load(SEED / "disconnect-mid-arguments.json").case
BAD = load(SEED / "completed-invalid-json.json").case


def kinds(case, fn, reports=None, level="events", timeout=60.0):
    # The hand-made targets answer at once: the time limit only bounds a hang, far above any machine's pace.
    target = Target("hand-made", fn, level=level, reports=reports or Target("x", fn).reports)
    return [d.kind for d in compare(case.expected, observe(target, case, timeout=timeout), target)]


def right(chunks):
    return assemble_chunks(chunks)


def edit(fn):
    """A target that is right except for what ``fn`` does to its calls."""
    def target(chunks):
        calls = right(chunks)
        fn(calls)
        return calls
    return target


def test_a_correct_target_has_no_divergence():
    assert kinds(TWO, right) == [] and kinds(CUT, right) == [] and kinds(BAD, right) == []


def test_incomplete_calls_may_be_left_out():
    assert kinds(CUT, lambda chunks: []) == []


def test_call_lost():
    assert kinds(TWO, edit(lambda calls: calls.pop())) == ["call_lost"]


def test_phantom_call():
    assert kinds(TWO, edit(lambda calls: calls.append({**calls[0], "index": 7, "arguments": "{}"}))) == ["phantom_call"]


def test_arguments_differ():
    assert kinds(TWO, edit(lambda calls: calls[0].update(arguments=calls[0]["arguments"][:-1]))) == ["arguments_differ"]


def test_arguments_attached_to_the_wrong_call():
    def swap(calls):
        calls[0]["arguments"], calls[1]["arguments"] = calls[1]["arguments"], calls[0]["arguments"]
    assert kinds(TWO, edit(swap)) == ["arguments_misattributed"]


def test_choices_mixed():
    def move(calls):
        calls[1]["choice"] = 1
    assert kinds(TWO, edit(move)) == ["choices_mixed"]


def test_reserialised_json_is_its_own_kind():
    assert kinds(TWO, edit(lambda calls: calls[1].update(arguments='{"path":"/etc/hosts"}'))) == ["reserialised"]


def test_id_differs():
    assert kinds(TWO, edit(lambda calls: calls[1].update(id="call_r1call_r1"))) == ["id_differs"]


def test_name_differs():
    assert kinds(TWO, edit(lambda calls: calls[0].update(name="get_weatherget_weather"))) == ["name_differs"]


def test_ids_and_names_are_not_judged_when_not_claimed():
    fn = edit(lambda calls: calls[0].update(id="other", name="other"))
    assert kinds(TWO, fn, reports=frozenset({"completion"})) == []


def test_incomplete_call_handed_on():
    assert kinds(CUT, edit(lambda calls: calls[0].update(complete=True))) == ["incomplete_handed_on"]


def test_complete_call_withheld():
    assert kinds(TWO, edit(lambda calls: calls[0].update(complete=False))) == ["complete_withheld"]


def test_status_differs_only_for_targets_that_claim_validation():
    def with_status(status):
        return edit(lambda calls: [c.update(status=status) for c in calls])
    validating = Target("x", right).reports | {"validation"}
    assert kinds(BAD, with_status("complete"), reports=validating) == ["status_differs"]
    assert kinds(BAD, with_status("invalid_json"), reports=validating) == []
    assert kinds(BAD, with_status("complete")) == []


def test_raised():
    def boom(chunks):
        raise KeyError("index")
    assert kinds(TWO, boom) == ["raised"]


def test_a_raise_is_clustered_by_its_crash_state_not_its_message():
    target = Target("hand-made", right)

    def first(chunks):
        raise KeyError(len(chunks))

    def second(chunks):
        raise KeyError(-len(chunks))

    [a] = compare(TWO.expected, observe(Target("a", first), TWO), target)
    [b] = compare(TWO.expected, observe(Target("b", second), TWO), target)
    here = f"{__name__}.test_a_raise_is_clustered_by_its_crash_state_not_its_message.<locals>"
    assert (a.kind, a.state, b.state) == ("raised", CrashState("KeyError", (f"{here}.first",)),
                                          CrashState("KeyError", (f"{here}.second",)))
    assert a.detail != b.detail


def test_a_raise_without_a_crash_state_is_clustered_by_its_type():
    def state(raised, crash_state=None):
        [d] = compare(TWO.expected, Observation(raised=raised, crash_state=CrashState.read(crash_state)),
                      Target("x", right))
        return str(d.state)
    assert state("KeyError: 'call_2'", "KeyError at lib.feed") == "KeyError at lib.feed"
    assert state("KeyError: 'call_2'") == "KeyError" and state("json.JSONDecodeError: at 1") == "json.JSONDecodeError"
    assert state("something went wrong") == "raised"


def test_only_raises_have_a_state():
    assert Divergence("call_lost", "detail").state is None
    dropped = compare(TWO.expected, Observation(calls=()), Target("x", right))
    assert dropped and all(d.kind == "call_lost" and d.state is None for d in dropped)


def test_raising_on_a_stream_with_nothing_executable_is_a_refusal():
    def boom(chunks):
        raise ConnectionError("stream cut")
    assert not CUT.expected.executable() and kinds(CUT, boom) == []
    # A decoder is judged on its events, so the same raise at level sse still counts.
    assert kinds(CUT, boom, reports=frozenset({"ids"}), level="sse") == ["raised"]


def test_raising_the_error_a_stream_ended_in_is_a_refusal_even_after_a_call_finished():
    failed = Outcome(TWO.expected.calls, StreamError("server_error", "overloaded"))
    raised = Observation(raised="APIError: overloaded", crash_state=CrashState("APIError", ("sdk.stream",)))
    assert failed.executable(), "a call finished before the error"
    assert compare(failed, raised, Target("x", right)) == []
    # The same raise on the stream without its error loses a call that could run.
    [d] = compare(TWO.expected, raised, Target("x", right))
    assert (d.kind, str(d.state)) == ("raised", "APIError at sdk.stream")
    assert [d.kind for d in compare(failed, raised, Target("x", right, level="sse"))] == ["raised"]


def test_a_target_that_hands_on_parsed_values_is_judged_on_the_value_not_its_spelling():
    respelled = edit(lambda calls: calls[1].update(arguments='{"path":"/etc/hosts"}'))
    assert kinds(TWO, respelled, reports=PLAIN_CLAIMS | {"values"}) == []
    changed = edit(lambda calls: calls[1].update(arguments='{"path":"/etc/passwd"}'))
    assert kinds(TWO, changed, reports=PLAIN_CLAIMS | {"values"}) == ["arguments_differ"]
    assert "values" not in REFERENCE.reports


def test_a_values_target_s_partial_parse_of_an_unfinished_text_is_left_to_the_partial_level():
    # '{"path": "/var/lo' cut short: a library of parsed values can only show a partial parse of it.
    partial = edit(lambda calls: calls[0].update(arguments="{}"))
    assert kinds(CUT, partial, reports=PLAIN_CLAIMS | {"values"}) == []
    assert kinds(CUT, partial) == ["arguments_differ"]
    # A finished text, or an unfinished one that already parses, is still a value to compare.
    changed = edit(lambda calls: calls[1].update(arguments='{"path":"/etc/passwd"}'))
    assert kinds(TWO, changed, reports=PLAIN_CLAIMS | {"values"}) == ["arguments_differ"]


def test_blank_arguments_reported_as_an_empty_object_are_reserialised():
    expected = Outcome((Call(0, 0, "call_1", "get_time", "", "complete"),))
    target = Target("parsed", right)

    def seen(arguments):
        observation = Observation(calls=(ObservedCall(0, 0, "call_1", "get_time", arguments, True),))
        return [d.kind for d in compare(expected, observation, target)]
    assert seen("{}") == ["reserialised"] and seen("") == [] and seen("[]") == ["arguments_differ"]


def test_an_extra_empty_call_at_a_new_position_is_a_phantom_not_a_move():
    extra = edit(lambda calls: calls.append({**calls[0], "index": 99, "id": "late", "arguments": ""}))
    assert kinds(TWO, extra) == ["phantom_call"]


def test_arguments_split_off_their_call_at_the_same_position_are_a_move():
    def split(calls):
        calls.insert(1, {**calls[0], "id": None, "name": None})
        calls[0]["arguments"] = ""
    assert kinds(TWO, edit(split)) == ["arguments_misattributed"]


def test_text_moved_with_a_character_split_between_its_utf16_halves_is_still_a_move():
    # A target that split a call in two between the halves of U+1D11E hands on U+FFFD in each part.
    expected = Outcome((Call(0, 0, "call_1", "f", '{"a":"\U0001d11e"}', "complete"),))
    observed = (ObservedCall(0, 0, "call_1", "f", '{"a":"\ufffd', True), ObservedCall(0, 1, None, "f", '\ufffd"}', True))
    target = Target("split", right)
    assert [d.kind for d in compare(expected, Observation(calls=observed), target)] == ["arguments_misattributed"]
    lost = (ObservedCall(0, 0, "call_1", "f", '{"a":"\ufffd', True), ObservedCall(0, 1, None, "f", '"}', True))
    assert [d.kind for d in compare(expected, Observation(calls=lost), target)] == ["arguments_misattributed"]
    # Text that is really gone is not a move, whatever characters are left out of the comparison.
    gone = (ObservedCall(0, 0, "call_1", "f", '{"a":"', True), ObservedCall(0, 1, None, "f", "}", True))
    assert [d.kind for d in compare(expected, Observation(calls=gone), target)] == ["phantom_call"]


def test_a_call_in_a_choice_its_id_does_not_belong_to_is_choices_mixed_even_with_text_lost():
    expected = Outcome((Call(0, 0, "call_1", "f", '{"a":1}', "complete"),
                        Call(1, 0, "call_2", "f", '{"a":2}', "incomplete")))
    # Choice 1's call merged into choice 0 and its text lost on the way: not a phantom and a loss.
    observed = (ObservedCall(0, 0, "call_2", "f", '{"a":2}', True), ObservedCall(0, 0, "call_1", "f", "", True))
    assert kinds_of(expected, observed) == ["choices_mixed"]
    # Only a target that claims ids is judged by them.
    assert kinds_of(expected, observed, frozenset({"completion"})) == ["phantom_call"]
    # An id that two choices share names neither.
    shared = Outcome((Call(0, 0, "call_2", "f", '{"a":1}', "complete"),
                      Call(1, 0, "call_2", "f", '{"a":2}', "incomplete")))
    assert kinds_of(shared, observed) == ["phantom_call"]
    # Only ids crossed: the texts are where they belong, the ids are not.
    crossed = (ObservedCall(0, 0, "call_2", "f", '{"a":1}', True), ObservedCall(1, 0, "call_1", "f", '{"a":2}', False))
    assert kinds_of(expected, crossed) == ["choices_mixed"]


def kinds_of(expected, observed, reports=None):
    target = Target("hand-made", right, reports=reports or Target("x", right).reports)
    return [d.kind for d in compare(expected, Observation(calls=observed), target)]


def test_timed_out():
    # Spins far past the limit, then gives up and answers: a limit that never fires shows as another
    # kind (call_lost) after a while, not as a test that hangs.
    def spin(chunks):
        end = time.monotonic() + 120
        while time.monotonic() < end:
            time.sleep(0.01)
        return []
    assert kinds(TWO, spin, timeout=0.5) == ["timed_out"]


@pytest.mark.parametrize("result", [None, {"calls": []}, [1], [{"arguments": {"a": 1}}], [{"index": "0", "arguments": ""}],
                                    [{"arguments": "", "complete": "yes"}]])
def test_bad_return(result):
    assert kinds(TWO, lambda chunks: result) == ["bad_return"]


def test_a_socket_is_blocked_and_reported():
    def phone_home(chunks):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    assert kinds(TWO, phone_home) == ["blocked_action"]


def test_every_kind_has_a_test_here():
    tested = {name[len("test_"):] for name in globals() if name.startswith("test_")}
    spelled = {"incomplete_handed_on": "incomplete_call_handed_on", "complete_withheld": "complete_call_withheld",
               "arguments_misattributed": "arguments_attached_to_the_wrong_call",
               "reserialised": "reserialised_json_is_its_own_kind",
               "status_differs": "status_differs_only_for_targets_that_claim_validation",
               "blocked_action": "a_socket_is_blocked_and_reported",
               "error_differs": "error_differs_for_a_target_that_claims_errors"}
    # The sse level's kinds have theirs in tests/judge/test_compare_events.py, the partial level's in
    # tests/judge/test_compare_partial.py, the producer level's in tests/judge/test_compare_producer.py; a
    # worker's death (crash, hang, memory) is the supervisor's, in tests/engine/test_supervisor.py.
    elsewhere = set(SSE_KINDS) | set(PARTIAL_KINDS) | set(PRODUCER_KINDS) | {"crash", "hang", "memory"}
    assert {spelled.get(k, k) for k in KINDS if k not in elsewhere} <= tested


def test_error_differs_for_a_target_that_claims_errors():
    def ends_with(code):
        return lambda chunks: {"calls": right(chunks), "stream_error": code}

    claims = Target("x", right).reports | {"errors"}
    assert CUT.expected.error is None and kinds(CUT, ends_with(None), reports=claims) == []
    assert kinds(CUT, ends_with("server_error"), reports=claims) == ["error_differs"]
    # Not claimed, not judged: the same answer from a plain target is no divergence.
    assert kinds(CUT, lambda chunks: right(chunks)) == []


def test_a_character_kept_as_its_two_halves_in_its_own_call_is_arguments_differ_not_a_move():
    expected = Outcome((Call(0, 0, "call_1", "f", '{"a":"\U0001d11e"}', "complete"),))
    observed = (ObservedCall(0, 0, "call_1", "f", '{"a":"\ud834\udd1e"}', True),)
    assert kinds_of(expected, observed) == ["arguments_differ"]


def test_an_unfinished_call_handed_on_as_unfinished_under_another_index_is_that_call():
    expected = Outcome((Call(0, 0, "call_1", "f", "", "incomplete"),))
    assert kinds_of(expected, (ObservedCall(0, None, "call_1", "f", "", False),)) == []
    # Handed on as complete it is not taken for that call: a call the stream never made, and one that can run.
    assert kinds_of(expected, (ObservedCall(0, None, "call_1", "f", "", True),)) == ["phantom_call"]
    assert kinds_of(expected, (ObservedCall(0, None, "call_9", "f", "", False),)) == ["phantom_call"]


def test_text_moved_beside_an_unfinished_call_left_out_is_still_a_move():
    expected = Outcome((Call(0, 0, "call_1", "f", '{"a":1}', "complete"),
                        Call(1, 0, "call_2", "f", '{"b":2}', "incomplete")))
    # Choice 1's unfinished call is left out (allowed); choice 0's text split off its call.
    observed = (ObservedCall(0, 0, "call_1", "f", '"a":1}', True), ObservedCall(0, 0, None, None, "{", True))
    assert kinds_of(expected, observed) == ["arguments_misattributed"]


def _unindexed(wire_calls, observed):
    expected = Outcome(tuple(Call(0, k, f"call_{k}", "f", text, "complete", indexed=False)
                             for k, text in enumerate(wire_calls)))
    return kinds_of(expected, tuple(ObservedCall(0, None, cid, "f", text, True) for cid, text in observed))


def test_a_call_the_wire_sent_no_index_is_not_held_to_the_position_the_contract_numbers_it_by():
    # index-missing: the contract numbers the call 0, the target keeps the wire's (none): it lost nothing.
    assert _unindexed(['{"a":1}'], [("call_0", '{"a":1}')]) == []
    # Several such calls stand for the choice's unnumbered calls in the order the target reports them.
    assert _unindexed(['{"a":1}', '{"b":2}'], [("call_0", '{"a":1}'), ("call_1", '{"b":2}')]) == []
    assert _unindexed(['{"a":1}', '{"b":2}'], [("call_1", '{"b":2}'), ("call_0", '{"a":1}')]) == [
        "arguments_misattributed"]


def test_two_calls_without_an_index_merged_into_one_are_still_a_move():
    assert _unindexed(['{"a":1}', '{"b":2}'], [("call_0", '{"a":1}{"b":2}')]) == ["arguments_misattributed"]


def test_a_call_reported_without_an_index_the_wire_sent_is_not_excused():
    expected = Outcome((Call(0, 0, "call_1", "f", '{"a":1}', "complete"),))
    assert kinds_of(expected, (ObservedCall(0, None, "call_1", "f", '{"a":1}', True),)) == ["arguments_misattributed"]


def test_the_reference_says_which_calls_the_wire_gave_no_index():
    wire = sse(chunk(head(None, "call_a", "f", '{"a":1}')), chunk(head(None, "call_b", "f", "{}")),
               chunk(head(3, "call_c", "f", "{}"), finish="tool_calls"))
    outcome = assemble([wire])
    assert [(c.index, c.indexed) for c in outcome.calls] == [(0, False), (1, False), (3, True)]
    assert [c.to_json().get("indexed") for c in outcome.calls] == [False, False, None]

    def keeps_the_wire_index(chunks):
        calls = right(chunks)
        for call in calls[:2]:
            call["index"] = None
        return calls

    assert kinds(Case(reads=(wire,), expected=outcome), keeps_the_wire_index) == []
