"""The OpenAI Responses reference (targets/reference/responses.py), rule by rule, each stream cut at every offset."""

from __future__ import annotations

from hypothesis import given, settings

from toolfuzz import strategies
from toolfuzz.vocabulary import Call, Limits, Outcome, StreamError, Tool
from toolfuzz.targets.reference import ResponsesAssembler, assemble
from toolfuzz.targets.reference.events import ArgumentsAppended, CallOpened, ChoiceFinished, StreamEnded
from toolfuzz.targets.reference.typed import CallStopped
from tests.dialect_streams import assert_every_cut, wire

R = "openai-responses"
OBJ = Tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})
_seq = iter(range(10**9))


def ev(kind, **fields):
    return {"type": kind, "sequence_number": next(_seq), **fields}


def response(status):
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "m", "output": [],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


CREATED = ev("response.created", response=response("in_progress"))
COMPLETED = ev("response.completed", response=response("completed"))


def added(at, item_id, call_id, name, arguments=""):
    item = {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": arguments,
            "call_id": call_id, "name": name}
    return ev("response.output_item.added", output_index=at, item=item)


def delta(at, item_id, text):
    return ev("response.function_call_arguments.delta", item_id=item_id, output_index=at, delta=text)


def done(at, item_id, arguments):
    return ev("response.function_call_arguments.done", item_id=item_id, output_index=at, arguments=arguments)


def reasoning(at):
    item = {"id": "rs_1", "type": "reasoning", "summary": []}
    return [ev("response.output_item.added", output_index=at, item=item),
            ev("response.output_item.done", output_index=at, item=item)]


def call(index, call_id, name, arguments, status="complete"):
    return Call(0, index, call_id, name, arguments, status)


def test_calls_are_keyed_by_item_and_output_index_and_named_by_call_id():
    stream = wire(CREATED, *reasoning(0), added(1, "fc_a", "call_a", "f"), delta(1, "fc_a", '{"a":'),
                  added(2, "fc_b", "call_b", "g"), delta(1, "fc_a", "1}"), delta(2, "fc_b", "{}"),
                  done(1, "fc_a", '{"a":1}'), done(2, "fc_b", "{}"), COMPLETED)
    assert_every_cut(stream, Outcome((call(1, "call_a", "f", '{"a":1}'), call(2, "call_b", "g", "{}"))), R)


def test_multibyte_deltas_cut_anywhere_decode_whole():
    stream = wire(CREATED, added(0, "fc_m", "call_m", "say"), delta(0, "fc_m", '{"t":"naïve 😀'),
                  delta(0, "fc_m", ' é"}'), done(0, "fc_m", '{"t":"naïve 😀 é"}'), COMPLETED, eol="\r\n")
    assert_every_cut(stream, Outcome((call(0, "call_m", "say", '{"t":"naïve 😀 é"}'),)), R)


def test_completion_needs_the_done_event_and_response_completed():
    head = [CREATED, added(0, "fc", "call", "f"), delta(0, "fc", '{"a":1}')]
    assert assemble([wire(*head, COMPLETED)], dialect=R).calls[0].status == "incomplete"
    assert assemble([wire(*head, done(0, "fc", '{"a":1}'))], dialect=R).calls[0].status == "incomplete"
    incomplete = ev("response.incomplete", response=response("incomplete"))
    assert assemble([wire(*head, done(0, "fc", '{"a":1}'), incomplete)], dialect=R).calls[0].status == "incomplete"
    assert assemble([wire(*head, done(0, "fc", '{"a":1}'), COMPLETED)], dialect=R).calls[0].status == "complete"


def test_a_disconnect_anywhere_leaves_every_call_incomplete():
    stream = wire(CREATED, added(0, "fc", "call", "read_file"), delta(0, "fc", '{"path": "/var/lo'),
                  delta(0, "fc", 'g"}'), done(0, "fc", '{"path": "/var/log"}'))
    for cut in range(len(stream) + 1):
        assert not assemble([stream[:cut]], dialect=R).executable(), cut


def test_an_error_event_or_a_failed_response_ends_the_stream_with_nothing_complete():
    head = [CREATED, added(0, "fc", "call", "f"), delta(0, "fc", "{}"), done(0, "fc", "{}")]
    error = ev("error", code="server_error", message="Overloaded", param=None)
    failed = ev("response.failed", response={**response("failed"), "error": {"code": "server_error", "message": "boom"}})
    assert_every_cut(wire(*head, error, COMPLETED),
                     Outcome((call(0, "call", "f", "{}", "incomplete"),), StreamError("server_error", "Overloaded")), R)
    assert assemble([wire(*head, failed)], dialect=R) == \
        Outcome((call(0, "call", "f", "{}", "incomplete"),), StreamError("server_error", "boom"))


def test_events_after_response_completed_are_ignored():
    stream = wire(CREATED, added(0, "fc", "call", "f"), delta(0, "fc", "{}"), done(0, "fc", "{}"), COMPLETED,
                  added(1, "fc_x", "call_x", "g"))
    assert assemble([stream], dialect=R) == Outcome((call(0, "call", "f", "{}"),))


def test_arguments_in_the_added_item_start_the_text():
    stream = wire(CREATED, added(0, "fc", "call", "f", '{"a"'), delta(0, "fc", ":1}"), done(0, "fc", '{"a":1}'), COMPLETED)
    assert assemble([stream], dialect=R) == Outcome((call(0, "call", "f", '{"a":1}'),))


def test_malformed_streams_end_with_a_code_and_nothing_complete():
    a = added(0, "fc", "call", "f")
    cases = {
        "late_fragment": [a, delta(0, "fc", "{}"), done(0, "fc", "{}"), delta(0, "fc", " ")],
        "bad_chunk": [a, delta(0, "fc", "{}"), done(0, "fc", '{"other": 1}')],
    }
    for code, events in cases.items():
        got = assemble([wire(CREATED, *events, COMPLETED)], dialect=R)
        assert got.error is not None and got.error.code == code and not got.executable(), (code, got)
    two = [a, added(1, "fc_b", "call_b", "g")]
    for events in ([a, delta(5, "fc", "{}")], [a, added(0, "fc_2", "c2", "g")], [*two, delta(0, "fc_b", "{}")],
                   [{"type": 7}], [{**a, "output_index": "0"}]):
        got = assemble([wire(CREATED, *events, COMPLETED)], dialect=R)
        assert got.error is not None and got.error.code == "bad_chunk", (events, got)


def test_finished_calls_are_checked_against_the_tools():
    def status(arguments, name="f"):
        stream = wire(CREATED, added(0, "fc", "call", name), delta(0, "fc", arguments), done(0, "fc", arguments), COMPLETED)
        return assemble([stream], (OBJ,), dialect=R).calls[0].status
    assert [status('{"a":1}'), status('{"a":"x"}'), status("[1"), status("{}", "g"), status("")] == \
        ["complete", "schema_invalid", "invalid_json", "unknown_tool", "complete"]


def test_every_bound_stops_the_stream_and_keeps_nothing_complete():
    stream = wire(CREATED, added(0, "fc", "call", "f"), delta(0, "fc", '{"a":'), delta(0, "fc", "12345}"),
                  done(0, "fc", '{"a":12345}'), COMPLETED)
    for limits, code in ((Limits(max_events=3), "too_many_events"), (Limits(max_argument_bytes=6), "arguments_too_large"),
                         (Limits(max_stream_bytes=len(stream) - 10), "stream_too_large")):
        for reads in ([stream], [stream[i:i + 1] for i in range(len(stream))]):
            got = assemble(reads, (), limits, R)
            assert got.error is not None and got.error.code == code and not got.executable(), (code, got)


def test_the_assembler_hands_back_frozen_events_in_stream_order():
    assembler = ResponsesAssembler()
    events = assembler.feed(wire(CREATED, added(3, "fc", "call", "f"), delta(3, "fc", "{}"), done(3, "fc", "{}"), COMPLETED))
    kinds = [e for e in events if isinstance(e, (CallOpened, ArgumentsAppended, CallStopped, ChoiceFinished, StreamEnded))]
    assert kinds == [CallOpened(0, 3, "call", "f"), ArgumentsAppended(0, 3, "{}"), CallStopped(3),
                     ChoiceFinished(0, "completed"), StreamEnded(assembler.outcome)]


@settings(max_examples=40)
@given(strategies.cases(dialect=R))
def test_generated_cases_assemble_to_their_expected_outcome(case):
    assert assemble(case.reads, case.tools, case.limits, R) == case.expected


def test_a_delta_is_matched_by_its_output_index_whatever_item_id_it_carries():
    # GitHub Copilot gives every event a fresh item_id (vercel/ai's github-copilot-id-rotation.1 capture).
    stream = wire(CREATED, added(0, "fc_1", "call_a", "f"), delta(0, "fc_2", '{"a":'), delta(0, "fc_3", "1}"),
                  done(0, "fc_4", '{"a":1}'), COMPLETED)
    assert_every_cut(stream, Outcome((call(0, "call_a", "f", '{"a":1}'),)), R)


def test_arguments_that_come_only_in_the_done_event_are_the_call_s():
    # LM Studio sends no delta (vercel/ai's lmstudio-tool-call captures); deltas that disagree are still refused.
    stream = wire(CREATED, added(0, "fc", "call", "f"), done(0, "fc", '{"a":2}'), COMPLETED)
    assert_every_cut(stream, Outcome((call(0, "call", "f", '{"a":2}'),)), R)
    cut = wire(CREATED, added(0, "fc", "call", "f"), done(0, "fc", '{"a":2}'))
    assert assemble([cut], dialect=R).calls[0].status == "incomplete"
