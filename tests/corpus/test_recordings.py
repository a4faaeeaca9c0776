"""corpus/recordings.py: each form a recording is kept in, told from its bytes, read into its event-stream bodies.

The real recordings of each form (a test each) are in tests/corpus/test_captures.py, on findings/captures/.
"""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from toolfuzz.corpus.recordings import RecordingError, read_recording

SSE = b'data: {"choices": []}\n\ndata: [DONE]\n\n'


def _vcr(*responses):
    return {"interactions": [{"request": {"uri": "x"}, "response": r} for r in responses]}


def test_each_form_is_told_from_its_bytes_whatever_the_file_is_named():
    har = {"log": {"entries": [{"response": {"content": {"mimeType": "text/event-stream",
                                                         "text": SSE.decode()}}}]}}
    forms = {
        "HAR": json.dumps(har).encode(),
        "interactions (JSON)": json.dumps(_vcr({"body": {"string": SSE.decode()}})).encode(),
        "a response (JSON)": json.dumps({"status": 200, "body": SSE.decode()}).encode(),
        "VCR cassette (YAML)": b"interactions:\n- response:\n    body:\n      string: 'data: {}\n\n'\nversion: 1\n",
        "JSON lines": b'{"type": "message_start"}\n',
        "SSE body": SSE,
    }
    listed = json.dumps([{"request": {}, "response": {"status_code": 200, "body": SSE.decode()}}]).encode()
    assert read_recording("f.json", listed).form == "interactions (JSON)"
    for form, raw in forms.items():
        assert read_recording("f.bin", raw).form == form
        assert read_recording("f.bin", gzip.compress(raw)).form == form   # a gzipped file is read within


def test_only_event_stream_responses_are_bodies_and_the_others_are_counted():
    cassette = _vcr({"headers": {"Content-Type": ["application/json"]}, "body": {"string": "{}"}},
                    {"headers": {"Content-Type": ["text/event-stream; charset=utf-8"]}, "body": {"string": "x"}},
                    {"body": {"string": SSE.decode()}})
    recording = read_recording("c.json", json.dumps(cassette).encode())
    assert [(b.where, b.sse) for b in recording.bodies] == [("interaction 2", b"x"), ("interaction 3", SSE)]
    assert recording.skipped == 1


def test_bodies_kept_as_base64_or_gzip_are_decoded():
    zipped = gzip.compress(SSE)
    yaml_binary = (b"interactions:\n- response:\n    headers:\n      Content-Encoding: [gzip]\n    body:\n"
                   b"      string: !!binary |\n        " + base64.b64encode(zipped) + b"\n")
    assert read_recording("c.yaml", yaml_binary).bodies[0].sse == SSE
    ruby = {"http_interactions": [{"response": {"body": {"base64_string": base64.b64encode(SSE).decode()}}}]}
    assert read_recording("c.json", json.dumps(ruby).encode()).bodies[0].sse == SSE
    har = {"log": {"entries": [{"response": {"content": {"text": base64.b64encode(SSE).decode(),
                                                         "encoding": "base64"}}}]}}
    assert read_recording("c.har", json.dumps(har).encode()).bodies[0].sse == SSE


@pytest.mark.parametrize("raw, where, message", [
    (b"\x1f\x8bnot gzip", "", "broken gzip"),
    (b"interactions: [\n", "line 2", "not YAML"),
    (b"interactions: 3\n", "interactions", "not a list"),
    (b'{"interactions": [{"request": {}}]}', "interactions[0]", "has no response"),
    (b'{"log": {"entries": 1}}', "log.entries", "not a list"),
    (b"hello\n", "", "not a recording"),
])
def test_what_cannot_be_read_is_one_error_naming_where(raw, where, message):
    with pytest.raises(RecordingError) as info:
        read_recording("f", raw)
    assert (info.value.source, info.value.where) == ("f", where) and message in info.value.message
