"""strategies/shapes.py: the shapes real captured streams show, told by the names the strategies draw them by."""

from __future__ import annotations

import pytest

from toolfuzz.corpus.captures import capture_file
from toolfuzz.strategies.shapes import DETECTORS, shapes_of
from toolfuzz.strategies.features import shape_of
from tests.paths import ROOT

CAPTURES = ROOT / "findings" / "captures"

#: A real response, and shapes it shows that the detectors must tell (and ones it must not be said to show).
REAL = [
    ("vercel-ai/mistral-tool-call.chunks.txt", 0, {"index-missing", "whole-call"}, {"multi-call"}),
    ("llm/test_tools_streaming_variant_a.yaml", 0, {"id-every-fragment", "name-every-fragment"}, {"index-missing"}),
    ("vercel-ai/alibaba-tool-call.chunks.txt", 0, {"empty-id", "usage-chunk"}, {"id-every-fragment"}),
    ("openllmetry/test_writer_streaming_chat_tool_call_request_legacy.yaml", 0, {"explicit-nulls"}, set()),
    ("openai-python/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin", 0, {"multi-call"},
     {"whole-call", "index-missing"}),
    ("openai-python/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin", 0, {"multi-choice"},
     set()),
    ("crewai/TestAzureToolCallStreaming.test_azure_streaming_emits_tool_call_events.yaml", 0,
     {"azure-filter-chunk"}, set()),
    ("vercel-ai/anthropic-programmatic-tool-calling.1.chunks.txt", 0,
     {"input-at-start", "server-tool-block", "text-before-tools"}, {"whole-message-start"}),
    ("vercel-ai/anthropic-programmatic-tool-calling.1.chunks.txt", 1, {"whole-message-start"}, {"input-at-start"}),
    ("anthropic-sdk-python/tool_use_response.txt", 0, {"unterminated-event"}, {"crlf"}),
    ("vercel-ai/lmstudio-tool-call.1.chunks.txt", 0, {"arguments-only-in-done"}, {"obfuscation"}),
]


@pytest.mark.parametrize("name, part, shows, lacks", REAL, ids=[f"{r[0]}:{r[1]}" for r in REAL])
def test_each_shape_is_told_in_a_real_stream_that_shows_it(name, part, shows, lacks):
    capture = capture_file(CAPTURES / name).captures[part]
    told = set(shapes_of(capture.wire, capture.dialect))
    assert shows <= told and not lacks & told, told


def test_framing_is_told_from_the_bytes():
    assert shapes_of(b'data:{"choices":[]}\r\n\r\n: keep-alive\r\nid: 1\r\n\r\n', "openai-chat") == (
        "comments", "crlf", "no-space", "sse-fields")
    assert shapes_of(b'data: {"choices":[]}\n\n', "openai-chat") == ()


def test_every_shape_told_is_one_the_grading_knows():
    for name, dialects, _ in DETECTORS:
        for dialect in dialects or ("openai-chat", "openai-responses", "anthropic"):
            assert shape_of(name, dialect).cite != "not recorded (toolfuzz.strategies.features)", (name, dialect)
