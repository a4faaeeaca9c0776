"""corpus/captures.py: captured streams read from their recorded forms, framed as their servers frame them."""

from __future__ import annotations

import json

import pytest

from toolfuzz.corpus.captures import capture_file, read_capture, streams_of
from toolfuzz.corpus.recordings import Line, RecordingError
from tests.paths import ROOT

CAPTURES = ROOT / "findings" / "captures"
START = b'{"type":"message_start","message":{"content":[]}}'
STOP = b'{"type":"message_stop"}'


def test_json_lines_of_a_typed_dialect_get_their_event_lines_back_byte_for_byte(tmp_path):
    line = b'{"type": "response.created", "n": 18446744073709551617}'
    path = tmp_path / "r.chunks.txt"
    path.write_bytes(line + b"\n")
    [capture] = read_capture(path)
    assert capture.dialect == "openai-responses"
    assert capture.wire == b"event: response.created\ndata: " + line + b"\n\n"


def test_a_chat_recording_is_one_stream_ending_in_done(tmp_path):
    path = tmp_path / "c.chunks.txt"
    path.write_bytes(b'{"object":"chat.completion.chunk","choices":[]}\n\n{"choices":[]}\n')
    [capture] = read_capture(path)
    assert capture.dialect == "openai-chat"
    assert capture.wire.count(b"data: ") == 3 and capture.wire.endswith(b"data: [DONE]\n\n")


def test_a_recording_of_several_responses_is_one_stream_each(tmp_path):
    path = tmp_path / "a.chunks.txt"
    path.write_bytes(b"\n".join([START, b'{"type":"ping"}', STOP, START, STOP]))
    parts = read_capture(path)
    assert [(p.part, p.wire.count(b"event: ")) for p in parts] == [(0, 3), (1, 2)]
    # a message_start with no message_stop before it is no new response
    path.write_bytes(b"\n".join([START, START, STOP]))
    assert len(read_capture(path)) == 1


def test_a_chat_recording_of_two_completions_is_one_stream_each():
    def chunk(id, finish=None):
        return {"id": id, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {},
                                                                          "finish_reason": finish}]}
    lines = [chunk("a"), chunk("a", "tool_calls"), {"id": "a", "choices": [], "usage": {}}, chunk("b"),
             chunk("b", "stop")]
    parts = streams_of("f", [Line(d, json.dumps(d).encode()) for d in lines])
    assert [(p.part, p.wire.count(b"data: ")) for p in parts] == [(0, 4), (1, 3)]
    # a chunk of another id before any finish reason is the same completion
    lines = [chunk("a"), chunk("b"), chunk("b", "stop")]
    assert len(streams_of("f", [Line(d, json.dumps(d).encode()) for d in lines])) == 1


def test_an_sse_body_is_kept_as_it_came(tmp_path):
    body = b"event: message_start\r\ndata: " + START + b"\r\n\r\n"
    path = tmp_path / "body.sse"
    path.write_bytes(body)
    [capture] = read_capture(path)
    assert (capture.dialect, capture.wire) == ("anthropic", body)


@pytest.mark.parametrize("content, where", [
    (b'{"type":"ping"}\n{"type": "message_stop"', "line 2"),   # truncated, as a hand-written fixture can be
    (b'[1, 2]\n', "line 1"),
    (b'{"hello": 1}\n', "line 1"),
    (b"\n\n", ""),
    (b'{\n  "a": 1\n}\n', ""),   # a JSON document that is no recording
])
def test_what_cannot_be_read_is_one_error_naming_the_file_and_the_line(tmp_path, content, where):
    path = tmp_path / "bad.chunks.txt"
    path.write_bytes(content)
    with pytest.raises(RecordingError) as info:
        read_capture(path)
    assert info.value.source == str(path) and info.value.where == where
    assert str(info.value).startswith(str(path))


def test_a_missing_file_is_one_error_naming_it(tmp_path):
    with pytest.raises(RecordingError, match="nothing.chunks.txt"):
        read_capture(tmp_path / "nothing.chunks.txt")


def _cassette(*bodies):
    return json.dumps({"interactions": [{"response": {"body": {"string": b}}} for b in bodies]})


def test_a_body_whose_dialect_cannot_be_told_is_named_and_the_others_are_still_read(tmp_path):
    gemini = 'data: {"candidates": [{"content": {}}]}\n\n'
    path = tmp_path / "c.json"
    path.write_text(_cassette(gemini, "event: message_start\ndata: " + START.decode() + "\n\n"))
    captured = capture_file(path)
    assert [(c.dialect, c.part, c.where) for c in captured.captures] == [("anthropic", 0, "interaction 2")]
    [error] = captured.unread
    assert (error.source, error.where) == (str(path), "interaction 1") and "dialect" in error.message
    with pytest.raises(RecordingError, match="interaction 1"):
        read_capture(path)


def test_a_cassette_without_an_event_stream_is_one_error_saying_what_it_holds(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(_cassette("{}"))
    with pytest.raises(RecordingError, match="holding no event stream [(]1 other response[)]"):
        capture_file(path)


#: One real recording of each form (findings/captures/), with its form, what it holds, and what else it holds.
REAL = [
    ("vercel-ai/anthropic-json-tool.1.chunks.txt", "JSON lines", ["anthropic"], 0),
    ("anthropic-sdk-python/tool_use_response.txt", "SSE body", ["anthropic"], 0),
    ("openai-python/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin", "SSE body",
     ["openai-chat"], 0),
    ("pydantic-ai/test_dbos--test_multiple_agents.yaml", "VCR cassette (YAML)", ["openai-chat"] * 3, 1),
    ("llm-anthropic/test_tools.yaml", "VCR cassette (YAML)", ["anthropic"] * 2, 0),   # gzip under !!binary
    ("anthropic-sdk-python/a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json", "interactions (JSON)", ["anthropic"], 2),
    ("openinference/reasoning-tool-use-streaming.json", "a response (JSON)", ["anthropic"], 0),
]


@pytest.mark.parametrize("name, form, dialects, skipped", REAL, ids=[r[1] + ":" + r[0] for r in REAL])
def test_each_form_is_read_from_a_real_recording(name, form, dialects, skipped):
    captured = capture_file(CAPTURES / name)
    assert (captured.form, [c.dialect for c in captured.captures], captured.skipped) == (form, dialects, skipped)
    assert captured.unread == ()
    for capture in captured.captures:
        assert capture.wire.lstrip().startswith((b"event:", b"data:"))
