"""The reference assembler, rule by rule, each stream cut once at every offset and twice at chosen pairs (splits.py)."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from toolfuzz.vocabulary import Call, Limits, Outcome, StreamError, Tool
from toolfuzz.targets.reference import Assembler, assemble
from toolfuzz.targets.reference.events import ArgumentsAppended, CallOpened, ChoiceFinished, ChunkReceived, StreamEnded
from tests.streams import chunk, frag, head, sse
from tests.targets.reference.splits import assert_every_split

OBJ = Tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})


def call(index, id, name, arguments, status="complete", choice=0):
    return Call(choice, index, id, name, arguments, status)


# -- transport: a network read is never a delta ------------------------------------------

def test_two_interleaved_calls_cut_anywhere_keep_their_own_arguments_and_ids():
    wire = sse(chunk(head(0, "c0", "f")), chunk(frag(0, '{"a":')), chunk(head(1, "c1", "g")),
               chunk(frag(0, "1}")), chunk(frag(1, "{}")), chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c0", "f", '{"a":1}'), call(1, "c1", "g", "{}"))))


def test_multibyte_arguments_cut_inside_characters_decode_whole():
    wire = sse(chunk(head(0, "c", "f", '{"s":"é')), chunk(frag(0, '😀"}')), chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"s":"é😀"}'),)))


def test_crlf_and_cr_framing_cut_anywhere():
    payloads = (chunk(head(0, "c", "f", '{"a"')), chunk(frag(0, ":2}")), chunk(finish="stop"))
    expected = Outcome((call(0, "c", "f", '{"a":2}'),))
    assert_every_split(sse(*payloads, eol="\r\n"), expected)
    assert_every_split(sse(*payloads, eol="\r"), expected)


def test_a_lone_cr_then_an_lf_framed_event_cut_anywhere():
    # Plain text read after a lone CR (which takes the assembler's short path for reads without line
    # ends) must end the CR's "an LF may follow": the LF ending the next line is a line end of its own.
    wire = sse(chunk(head(0, "c", "f", '{"a":2}')), eol="\r", done=False) + sse(chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"a":2}'),)))


# -- chunks -------------------------------------------------------------------------------

def test_done_ends_the_stream_and_what_follows_is_ignored():
    wire = sse(chunk(head(0, "c", "f", "{}")), chunk(finish="tool_calls")) + sse("not json", done=False)
    assert_every_split(wire, Outcome((call(0, "c", "f", "{}"),)))


def test_an_error_chunk_ends_the_stream_and_unfinished_calls_stay_incomplete():
    wire = sse(chunk(head(0, "c", "f", '{"a":')), {"error": {"message": "overloaded", "code": 529}},
               chunk(frag(0, "1}")), chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"a":', "incomplete"),), StreamError("server_error", "overloaded")))


def test_an_error_after_a_choice_finished_keeps_its_calls_complete():
    wire = sse(chunk(head(0, "c", "f", "{}"), choice=0), chunk(finish="tool_calls", choice=0),
               chunk(head(0, "d", "f", "{"), choice=1), {"error": {"message": "boom"}})
    assert assemble([wire]) == Outcome(
        (call(0, "c", "f", "{}"), call(0, "d", "f", "{", "incomplete", choice=1)), StreamError("server_error", "boom"))


def test_an_sse_event_named_error_ends_the_stream():
    wire = sse(chunk(head(0, "c", "f", "{}")), done=False) + b"event: error\ndata: upstream died\n\n"
    assert assemble([wire]) == Outcome((call(0, "c", "f", "{}", "incomplete"),), StreamError("server_error", "upstream died"))


@pytest.mark.parametrize("payload", [": keepalive", "[1, 2]", '{"choices": {}}', '{"choices": [{"delta": {"tool_calls": {}}}]}',
                                     '{"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": {"a": 1}}}]}}]}',
                                     '{"choices": [{"index": "0", "delta": {}}]}'])
def test_a_payload_that_is_not_a_well_formed_chunk_ends_the_stream(payload):
    outcome = assemble([sse(chunk(head(0, "c", "f", "{}")), payload)])
    assert outcome.error is not None and outcome.error.code == "bad_chunk"
    assert outcome.calls == (call(0, "c", "f", "{}", "incomplete"),)


def test_empty_data_is_a_keep_alive():
    wire = sse(chunk(head(0, "c", "f", "{}")), "", chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c", "f", "{}"),)))


def test_envelope_chunks_without_tool_data_are_harmless():
    wire = sse({"id": "", "choices": [], "prompt_filter_results": []},
               chunk(delta={"role": "assistant", "content": "Let me check."}),
               chunk(head(0, "c", "f", "{}")),
               {"choices": [{"index": 0, "finish_reason": None, "content_filter_results": {}}]},
               chunk(finish="tool_calls"), {"choices": [], "usage": {"total_tokens": 3}}, {"usage": None})
    assert assemble([wire]) == Outcome((call(0, "c", "f", "{}"),))


# -- assembly -----------------------------------------------------------------------------

def test_the_id_is_kept_wherever_it_arrives():
    wire = sse(chunk(head(0, None, "f", '{"a"')), chunk(frag(0, ":1}", id="late")), chunk(finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "late", "f", '{"a":1}'),)))


def test_ids_and_names_repeated_on_every_fragment_are_kept_once():
    wire = sse(chunk(head(0, "c", "f", '{"a"')), chunk({**head(0, "c", "f", ":1}")}), chunk(finish="tool_calls"))
    assert assemble([wire]) == Outcome((call(0, "c", "f", '{"a":1}'),))


def test_a_new_id_on_a_continuation_does_not_replace_the_first():
    wire = sse(chunk(head(0, "first", "f", '{"a"')), chunk(frag(0, ":1}", id="second")), chunk(finish="tool_calls"))
    assert assemble([wire]) == Outcome((call(0, "first", "f", '{"a":1}'),))


def test_empty_ids_and_names_count_as_absent_and_two_idless_calls_share_nothing():
    wire = sse(chunk(head(0, "", "f", "{}")), chunk(head(1, "", "g", "{}")),
               chunk({"index": 1, "id": "", "function": {"name": "", "arguments": ""}}), chunk(finish="tool_calls"))
    assert assemble([wire]) == Outcome((call(0, None, "f", "{}"), call(1, None, "g", "{}")))


def test_an_integer_id_is_kept_as_text():
    wire = sse(chunk({"index": 0, "id": 7, "function": {"name": "f", "arguments": "{}"}}), chunk(finish="tool_calls"))
    assert assemble([wire]).calls == (call(0, "7", "f", "{}"),)


def test_every_call_on_index_zero_with_distinct_ids_is_still_separate_calls():
    wire = sse(chunk(head(0, "a", "f", '{"a":1}')), chunk(head(0, "b", "f", '{"a":2}')), chunk(finish="tool_calls"))
    assert assemble([wire]) == Outcome((call(0, "a", "f", '{"a":1}'), call(0, "b", "f", '{"a":2}')))


def test_entries_without_an_index_extend_the_latest_call_until_a_name_opens_another():
    wire = sse(chunk(head(None, "", "f", '{"a"')), chunk(frag(None, ":1}")), chunk(head(None, "", "g", "{")),
               chunk(frag(None, "}")), chunk(finish="stop"))
    assert_every_split(wire, Outcome((call(0, None, "f", '{"a":1}'), call(1, None, "g", "{}"))))


def test_choices_are_assembled_apart():
    wire = sse(chunk(head(0, "x", "f", '{"a":'), choice=1), chunk(head(0, "y", "f", '{"a":'), choice=0),
               chunk(frag(0, "1}"), choice=0), chunk(frag(0, "2}"), choice=1),
               chunk(finish="tool_calls", choice=1), chunk(finish="tool_calls", choice=0))
    assert assemble([wire]) == Outcome((call(0, "y", "f", '{"a":1}'), call(0, "x", "f", '{"a":2}', choice=1)))


def test_several_entries_and_choices_in_one_chunk():
    both = {"choices": [
        {"index": 0, "delta": {"tool_calls": [head(0, "a", "f", '{"a":'), head(1, "b", "g", "{")]}},
        {"index": 1, "delta": {"tool_calls": [head(0, "c", "f", "{}")]}, "finish_reason": "tool_calls"}]}
    wire = sse(both, chunk(frag(1, "}"), frag(0, "3}"), finish="tool_calls"))
    assert assemble([wire]) == Outcome((call(0, "a", "f", '{"a":3}'), call(1, "b", "g", "{}"), call(0, "c", "f", "{}", choice=1)))


def test_utf16_halves_in_separate_fragments_join_into_one_character():
    # A server slicing a JavaScript string sends each half as a lone escape.
    wire = sse(chunk(head(0, "c", "f", '{"s":"\\ud83d')), done=False).replace(b"\\\\ud83d", b"\\ud83d")
    wire += sse(chunk(frag(0, '\\ude00"}')), chunk(finish="tool_calls")).replace(b"\\\\ude00", b"\\ude00")
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"s":"😀"}'),)))


# -- completion ----------------------------------------------------------------------------

def test_a_closing_brace_is_not_completion():
    wire = sse(chunk(head(0, "c", "f", '{"a":1}')), done=False)
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"a":1}', "incomplete"),)))


def test_a_valid_json_prefix_keeps_growing_until_the_stream_says_it_is_done():
    wire = sse(chunk(head(0, "c", "f", '{"a":1}')), chunk(frag(0, ' ')), chunk(finish="tool_calls"))
    assert assemble([wire]).calls == (call(0, "c", "f", '{"a":1} '),)


@pytest.mark.parametrize("reason,status", [("tool_calls", "complete"), ("stop", "complete"),
                                           ("length", "incomplete"), ("content_filter", "incomplete"),
                                           ("function_call", "incomplete")])
def test_only_tool_calls_and_stop_complete_a_choice(reason, status):
    wire = sse(chunk(head(0, "c", "f", '{"a":1}')), chunk(finish=reason))
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"a":1}', status),)))


def test_finish_on_the_chunk_with_the_last_arguments():
    wire = sse(chunk(head(0, "c", "f", '{"a"')), chunk(frag(0, ":1}"), finish="tool_calls"))
    assert_every_split(wire, Outcome((call(0, "c", "f", '{"a":1}'),)))


def test_a_disconnect_mid_arguments_leaves_the_call_incomplete():
    whole = sse(chunk(head(0, "c", "f", '{"a"')), chunk(frag(0, ":1}")), chunk(finish="tool_calls"))
    finish_dispatched = whole.index(b"\n\n", whole.index(b"finish_reason")) + 2
    assert assemble([whole[:finish_dispatched]]).calls[0].status == "complete"
    for end in range(finish_dispatched):
        outcome = assemble([whole[:end]])
        assert all(c.status == "incomplete" for c in outcome.calls), end


def test_a_fragment_after_its_choice_finished_ends_the_stream():
    wire = sse(chunk(head(0, "c", "f", "{}")), chunk(finish="tool_calls"), chunk(frag(0, "x")))
    assert assemble([wire]) == Outcome((call(0, "c", "f", "{}"),),
                                       StreamError("late_fragment", "tool call for choice 0 after it finished"))


@pytest.mark.parametrize("arguments,name,status", [
    ('{"a": 1}', "f", "complete"),
    ("", "f", "complete"),  # no arguments at all means {}
    ('{"a": 1', "f", "invalid_json"),
    ('{"a": NaN}', "f", "invalid_json"),
    ('{"a": 1}{"a": 2}', "f", "invalid_json"),
    ('{"a": 1}', "nope", "unknown_tool"),
    ('{"a": 1}', None, "unknown_tool"),
    ('{"a": "1"}', "f", "schema_invalid"),
    ('{"a": 1, "b": 2}', "f", "schema_invalid"),
    ('{"a": 123456789012345678901234567890}', "f", "complete"),
])
def test_finished_arguments_are_parsed_once_then_checked_against_the_tool(arguments, name, status):
    entry = {"index": 0, "id": "c", "function": {"arguments": arguments, **({"name": name} if name else {})}}
    wire = sse(chunk(entry), chunk(finish="tool_calls"))
    assert assemble([wire], tools=(OBJ,)).calls == (call(0, "c", name, arguments, status),)


def test_without_tools_only_json_validity_is_judged():
    wire = sse(chunk(head(0, "c", "anything", '{"b": "x"}')), chunk(finish="tool_calls"))
    assert assemble([wire]).calls[0].status == "complete"


# -- bounds ---------------------------------------------------------------------------------

def test_too_many_events_stops_the_stream_and_nothing_is_complete():
    wire = sse(chunk(head(0, "c", "f", "{}")), chunk(finish="tool_calls"), done=True)
    assert assemble([wire], limits=Limits(max_events=3)).error is None
    expected = Outcome((call(0, "c", "f", "{}", "incomplete"),), StreamError("too_many_events", "more than 2 events"))
    assert_every_split(wire, expected, limits=Limits(max_events=2))


def test_arguments_past_their_bound_stop_the_stream():
    wire = sse(chunk(head(0, "c", "f", '{"a":')), chunk(frag(0, "12345}")), chunk(finish="tool_calls"))
    assert assemble([wire], limits=Limits(max_argument_bytes=11)).calls[0].status == "complete"
    outcome = assemble([wire], limits=Limits(max_argument_bytes=10))
    assert outcome.error.code == "arguments_too_large"
    assert outcome.calls == (call(0, "c", "f", '{"a":', "incomplete"),)


def test_argument_bounds_count_utf8_bytes_not_characters():
    wire = sse(chunk(head(0, "c", "f", '"ééé"')), chunk(finish="tool_calls"))
    assert assemble([wire], limits=Limits(max_argument_bytes=8)).error is None
    assert assemble([wire], limits=Limits(max_argument_bytes=7)).error.code == "arguments_too_large"


def test_a_stream_past_its_byte_bound_stops_at_the_same_byte_however_it_is_cut():
    wire = sse(chunk(head(0, "c", "f", '{"a":')), chunk(frag(0, "1}")), chunk(finish="tool_calls"))
    assert assemble([wire], limits=Limits(max_stream_bytes=len(wire))).error is None
    bound = len(wire) - 20  # inside the [DONE] event, after the finish
    expected = Outcome((call(0, "c", "f", '{"a":1}', "incomplete"),),
                       StreamError("stream_too_large", f"the stream passed {bound} bytes"))
    assert_every_split(wire, expected, limits=Limits(max_stream_bytes=bound))


def test_a_50_mb_stream_is_held_in_memory_bounded_by_the_stream_bound():
    event = sse(chunk(frag(0, "x" * 4000)), done=False)
    start = sse(chunk(head(0, "c", "f", "[")), done=False)
    total = 50 * 1024 * 1024
    bound = 2 * 1024 * 1024
    assembler = Assembler(limits=Limits(max_stream_bytes=bound, max_argument_bytes=64 * 1024 * 1024))
    tracemalloc.start()
    try:
        assembler.feed(start)
        fed = len(start)
        while fed < total and assembler.outcome is None:
            assembler.feed(event)
            fed += len(event)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert assembler.outcome is not None and assembler.outcome.error.code == "stream_too_large"
    # what it holds is the arguments that fit under the bound, plus bookkeeping
    assert peak < 3 * bound, peak


def test_a_50_mb_stream_under_a_large_bound_is_assembled_incrementally():
    # 50 MB of events whose arguments are tiny: memory follows what calls hold, not the stream.
    events = [sse(chunk(head(i, f"c{i}", "f", "")), done=False) for i in range(3)]
    filler = sse(chunk(delta={"content": "y" * 4000}), done=False)
    assembler = Assembler(limits=Limits(max_stream_bytes=64 * 1024 * 1024))
    for e in events:
        assembler.feed(e)
    tracemalloc.start()
    try:
        fed = 0
        while fed < 50 * 1024 * 1024:
            assembler.feed(filler)
            fed += len(filler)
        assembler.feed(sse(chunk(finish="tool_calls")))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert assembler.outcome is not None and assembler.outcome.error is None
    assert len(assembler.outcome.calls) == 3
    assert peak < 1024 * 1024, peak


# -- the sans-IO surface ----------------------------------------------------------------------

def test_events_come_back_in_stream_order_and_nothing_follows_the_end():
    a = Assembler()
    first = a.feed(sse(chunk(head(0, "c", "f", '{"a"')), done=False))
    assert [type(e) for e in first] == [ChunkReceived, CallOpened, ArgumentsAppended]
    assert first[1] == CallOpened(0, 0, "c", "f") and first[2] == ArgumentsAppended(0, 0, '{"a"')
    last = a.feed(sse(chunk(finish="tool_calls")))
    assert [type(e) for e in last] == [ChunkReceived, ChoiceFinished, StreamEnded]
    assert a.outcome == last[-1].outcome
    assert a.feed(b"data: {}\n\n") == [] and a.close() == []


def test_a_bad_tool_schema_is_refused_before_the_stream_starts():
    with pytest.raises(ValueError, match="tool 'bad'.*properties"):
        Assembler(tools=(Tool("bad", {"type": "object", "properties": 3}),))


def test_the_outcome_is_canonical_json():
    wire = sse(chunk(head(1, "b", "g", "{}")), chunk(head(0, "a", "f", "{}")), chunk(finish="tool_calls"))
    doc = assemble([wire]).to_json()
    assert json.loads(json.dumps(doc)) == {
        "calls": [{"choice": 0, "index": 0, "id": "a", "name": "f", "arguments": "{}", "status": "complete"},
                  {"choice": 0, "index": 1, "id": "b", "name": "g", "arguments": "{}", "status": "complete"}],
        "error": None}
