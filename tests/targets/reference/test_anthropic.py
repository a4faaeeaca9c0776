"""The Anthropic Messages reference (targets/reference/anthropic.py), rule by rule, each stream cut at every offset."""

from __future__ import annotations

from hypothesis import given, settings

from toolfuzz import strategies
from toolfuzz.vocabulary import Call, Limits, Outcome, StreamError, Tool
from toolfuzz.targets.reference import AnthropicAssembler, assemble
from toolfuzz.targets.reference.events import ArgumentsAppended, CallOpened, ChoiceFinished, StreamEnded
from toolfuzz.targets.reference.typed import CallStopped
from tests.dialect_streams import assert_every_cut, wire

A = "anthropic"
START = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                              "model": "m", "stop_reason": None, "stop_sequence": None,
                                              "usage": {"input_tokens": 1, "output_tokens": 1}}}
PING = {"type": "ping"}
STOP = {"type": "message_stop"}
OBJ = Tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})


def tool(index, call_id, name, **extra):
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}, **extra}
    return {"type": "content_block_start", "index": index, "content_block": block}


def text(index, words):
    return [{"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": words}},
            {"type": "content_block_stop", "index": index}]


def part(index, json_text):
    return {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": json_text}}


def stop(index):
    return {"type": "content_block_stop", "index": index}


def finish(reason="tool_use"):
    return {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 9}}


def call(index, call_id, name, arguments, status="complete"):
    return Call(0, index, call_id, name, arguments, status)


def test_a_text_block_first_makes_block_indexes_that_are_not_call_numbers():
    stream = wire(START, PING, *text(0, "Let me check — 😀"), tool(1, "toolu_a", "f"), part(1, ""), part(1, '{"a":'),
                  PING, tool(2, "toolu_b", "g"), part(2, ""), part(1, "1}"), stop(1), part(2, "{}"), stop(2),
                  finish(), STOP)
    assert_every_cut(stream, Outcome((call(1, "toolu_a", "f", '{"a":1}'), call(2, "toolu_b", "g", "{}"))), A)


def test_a_tool_without_arguments_sends_one_empty_fragment_and_is_complete():
    stream = wire(START, tool(0, "toolu_n", "now"), part(0, ""), stop(0), finish(), STOP)
    assert assemble([stream], dialect=A) == Outcome((call(0, "toolu_n", "now", ""),))


def test_completion_needs_the_block_stop_and_a_tool_use_stop_reason():
    head = [START, tool(0, "toolu_c", "f"), part(0, '{"a":1}')]
    assert assemble([wire(*head, finish(), STOP)], dialect=A).calls[0].status == "incomplete"
    assert assemble([wire(*head, stop(0))], dialect=A).calls[0].status == "incomplete"
    assert assemble([wire(*head, stop(0), finish("max_tokens"), STOP)], dialect=A).calls[0].status == "incomplete"
    # message_stop ends the stream; a finish without it still counts, as a chat finish without [DONE] does
    assert assemble([wire(*head, stop(0), finish())], dialect=A).calls[0].status == "complete"


def test_a_closing_brace_completes_nothing_and_a_disconnect_leaves_the_call_incomplete():
    stream = wire(START, tool(0, "toolu_d", "read_file"), part(0, '{"path": "/var/lo'), part(0, 'g"}'))
    for cut in range(len(stream) + 1):
        for c in assemble([stream[:cut]], dialect=A).calls:
            assert c.status == "incomplete", cut


def test_an_error_event_mid_stream_ends_it_and_nothing_after_the_error_counts():
    stream = wire(START, tool(0, "toolu_e", "f"), part(0, "{}"), stop(0),
                  {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                  finish(), STOP)
    expected = Outcome((call(0, "toolu_e", "f", "{}", "incomplete"),), StreamError("server_error", "Overloaded"))
    assert_every_cut(stream, expected, A)


def test_a_finish_before_an_error_keeps_the_calls():
    stream = wire(START, tool(0, "toolu_k", "f"), part(0, "{}"), stop(0), finish(),
                  {"type": "error", "error": {"type": "api_error", "message": "late"}})
    assert assemble([stream], dialect=A) == Outcome((call(0, "toolu_k", "f", "{}"),), StreamError("server_error", "late"))


def test_events_after_message_stop_are_ignored():
    stream = wire(START, tool(0, "toolu_s", "f"), part(0, "{}"), stop(0), finish(), STOP, tool(1, "toolu_x", "g"),
                  part(1, "{}"), stop(1))
    assert assemble([stream], dialect=A) == Outcome((call(0, "toolu_s", "f", "{}"),))


def test_malformed_streams_end_with_a_code_and_nothing_complete():
    cases = {
        "late_fragment": [tool(0, "t", "f"), part(0, "{"), stop(0), part(0, "}")],
        "bad_chunk": [tool(0, "t", "f"), part(3, "{}")],
    }
    for code, events in cases.items():
        got = assemble([wire(START, *events, finish(), STOP)], dialect=A)
        assert got.error is not None and got.error.code == code, (code, got)
        assert not got.executable()
    started_twice = assemble([wire(START, tool(0, "t", "f"), tool(0, "u", "g"))], dialect=A)
    input_twice = assemble([wire(START, tool(0, "t", "f", input={"a": 1}), part(0, "{}"), stop(0), finish(),
                                 STOP)], dialect=A)
    input_not_object = assemble([wire(START, tool(0, "t", "f", input=[1]))], dialect=A)
    not_json = assemble([b"event: content_block_delta\ndata: {not json\n\n"], dialect=A)
    no_type = assemble([wire({"index": 0})], dialect=A)
    for got in (started_twice, input_twice, input_not_object, not_json, no_type):
        assert got.error is not None and got.error.code == "bad_chunk", got


def test_finished_calls_are_checked_against_the_tools():
    def status(arguments, name="f"):
        stream = wire(START, tool(0, "t", name), part(0, arguments), stop(0), finish(), STOP)
        return assemble([stream], (OBJ,), dialect=A).calls[0].status
    assert [status('{"a":1}'), status('{"a":"x"}'), status('{"a":1'), status("{}", "g")] == \
        ["complete", "schema_invalid", "invalid_json", "unknown_tool"]


def test_every_bound_stops_the_stream_and_keeps_nothing_complete():
    stream = wire(START, tool(0, "t", "f"), part(0, '{"a":'), part(0, "12345}"), stop(0), finish(), STOP)
    for limits, code in ((Limits(max_events=3), "too_many_events"), (Limits(max_argument_bytes=6), "arguments_too_large"),
                         (Limits(max_stream_bytes=len(stream) - 10), "stream_too_large")):
        for reads in ([stream], [stream[i:i + 1] for i in range(len(stream))]):
            got = assemble(reads, (), limits, A)
            assert got.error is not None and got.error.code == code and not got.executable(), (code, got)


def test_the_assembler_hands_back_frozen_events_in_stream_order():
    assembler = AnthropicAssembler()
    events = assembler.feed(wire(START, tool(1, "t", "f"), part(1, '{"a":1}'), stop(1), finish(), STOP))
    kinds = [e for e in events if isinstance(e, (CallOpened, ArgumentsAppended, CallStopped, ChoiceFinished, StreamEnded))]
    assert kinds == [CallOpened(0, 1, "t", "f"), ArgumentsAppended(0, 1, '{"a":1}'), CallStopped(1),
                     ChoiceFinished(0, "tool_use"), StreamEnded(assembler.outcome)]
    assert assembler.feed(b"more") == [] and assembler.close() == []


@settings(max_examples=40)
@given(strategies.cases(dialect=A))
def test_generated_cases_assemble_to_their_expected_outcome(case):
    assert assemble(case.reads, case.tools, case.limits, A) == case.expected


def server_tool(index, call_id, name="tool_search_tool_regex", kind="server_tool_use"):
    block = {"type": kind, "id": call_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def test_a_server_tool_block_streams_its_own_input_and_is_no_client_call():
    # vercel/ai's anthropic-tool-search-regex.1 and anthropic-mcp.1 captures.
    for kind in ("server_tool_use", "mcp_tool_use"):
        stream = wire(START, server_tool(0, "srvtoolu_1", kind=kind), part(0, ""), part(0, '{"pattern": "w'),
                      part(0, 'eather"}'), stop(0), tool(1, "toolu_a", "f"), part(1, '{"a":1}'), stop(1), finish(),
                      STOP)
        assert_every_cut(stream, Outcome((call(1, "toolu_a", "f", '{"a":1}'),)), A)


def test_a_call_made_from_code_carries_its_whole_input_at_its_start():
    # vercel/ai's anthropic-programmatic-tool-calling.1 capture: caller names the code execution that made it.
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    stream = wire(START, tool(0, "toolu_p", "f", input={"a": 3}, caller=caller), stop(0), finish(), STOP)
    assert_every_cut(stream, Outcome((call(0, "toolu_p", "f", '{"a":3}'),)), A)


def test_a_message_delivered_whole_in_message_start_yields_its_calls():
    # The later responses of the same capture: content and stop_reason in message_start, then message_stop.
    whole = {**START, "message": {**START["message"], "stop_reason": "tool_use", "content": [
        {"type": "text", "text": "rolling"},
        {"type": "tool_use", "id": "toolu_w", "name": "f", "input": {"a": 4}}]}}
    assert_every_cut(wire(whole, STOP), Outcome((call(1, "toolu_w", "f", '{"a":4}'),)), A)
    unfinished = {**whole, "message": {**whole["message"], "stop_reason": "max_tokens"}}
    assert assemble([wire(unfinished, STOP)], dialect=A).calls[0].status == "incomplete"
