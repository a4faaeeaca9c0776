"""corpus/captures.py: captured streams read from their recorded forms, framed as their servers frame them."""

from __future__ import annotations

import pytest

from toolfuzz.corpus.captures import CaptureError, read_capture

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
])
def test_what_cannot_be_read_is_one_error_naming_the_file_and_the_line(tmp_path, content, where):
    path = tmp_path / "bad.chunks.txt"
    path.write_bytes(content)
    with pytest.raises(CaptureError) as info:
        read_capture(path)
    assert info.value.source == str(path) and info.value.where == where
    assert str(info.value).startswith(str(path))


def test_a_missing_file_is_one_error_naming_it(tmp_path):
    with pytest.raises(CaptureError, match="nothing.chunks.txt"):
        read_capture(tmp_path / "nothing.chunks.txt")
