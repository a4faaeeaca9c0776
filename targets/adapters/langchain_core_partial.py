"""langchain-core's ``parse_partial_json``, which ``AIMessageChunk.tool_calls`` reads streamed arguments with.

``langchain-core-partial`` (partial): ``langchain_core.utils.json.parse_partial_json(text)``.
It returns None for a text it cannot read.
``langchain-core-chunk-args`` (partial): the ``args`` of ``AIMessageChunk.tool_calls``
for a chunk whose one tool-call chunk carries the prefix, what a user adding
chunks up sees of a call's arguments while it streams (None when the chunk
lists the call under ``invalid_tool_calls`` instead).
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.utils.json import parse_partial_json

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "parse", "chunk_args"]


def parse(text: str) -> Any:
    """langchain_core.utils.json.parse_partial_json(text)."""
    return parse_partial_json(text)


def chunk_args(text: str) -> Any:
    """AIMessageChunk(tool_call_chunks=[{args: prefix}]).tool_calls[0]["args"]."""
    chunk = AIMessageChunk(content="", tool_call_chunks=[{"name": "f", "args": text, "id": "call_1", "index": 0}])
    return chunk.tool_calls[0]["args"] if chunk.tool_calls else None


chunk_args('{"a": 1')  # loads what the message loads lazily, outside any case's audit hook

_VERSION = metadata.version("langchain-core")
TARGETS = (
    Target(name="langchain-core-partial", fn=parse, level="partial", reports=PARTIAL_CLAIMS, dialects=DIALECTS,
           version=_VERSION,
           summary="langchain_core.utils.json.parse_partial_json(text), behind AIMessageChunk.tool_calls"),
    Target(name="langchain-core-chunk-args", fn=chunk_args, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, version=_VERSION, builds_on="langchain-core-partial",
           summary='AIMessageChunk(tool_call_chunks=[prefix]).tool_calls[0]["args"]'),
)
