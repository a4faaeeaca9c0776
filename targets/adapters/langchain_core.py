"""langchain-core's assembler: summing ``AIMessageChunk``s merges their ``tool_call_chunks``.

Each chat.completion.chunk becomes one ``AIMessageChunk(content="",
tool_call_chunks=[tool_call_chunk(name, args, id, index), ...])`` and the
chunks are summed with ``+``, as a user streaming a chat model does
(``full = full + chunk``).  The calls are the merged ``tool_call_chunks``.

langchain-core has no choices: a message is one choice.  Like
langchain-openai's conversion, this reads ``choices[0]`` of each chunk only
and reports every call as choice 0, so a multi-choice stream shows what a
langchain user gets from one.

Core has no finish notion of its own either.  langchain-openai carries the
wire's ``finish_reason`` in ``response_metadata``, and summing chunks merges
``response_metadata`` (strings are concatenated), so the merged message
keeps it: a call counts as complete when the merged ``finish_reason`` is
``tool_calls`` or ``stop``, the check a langchain user makes.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

from toolfuzz.vocabulary import COMPLETING as FINISHING
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_message_chunks"]

COMPLETING = FINISHING["openai-chat"]


def _message(chunk: dict[str, Any]) -> AIMessageChunk | None:
    """The AIMessageChunk for one chunk's first choice, or None for a chunk with no choice."""
    choices = chunk.get("choices")
    if not choices:
        return None  # usage-only and keep-alive chunks carry no message
    first = choices[0]
    delta = first.get("delta") or {}
    parts = []
    for entry in delta.get("tool_calls") or ():
        function = entry.get("function") or {}
        parts.append(tool_call_chunk(name=function.get("name"), args=function.get("arguments"),
                                     id=entry.get("id"), index=entry.get("index")))
    finish = first.get("finish_reason")
    return AIMessageChunk(content="", tool_call_chunks=parts,
                          response_metadata={"finish_reason": finish} if finish else {})


def assemble_with_message_chunks(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool_call_chunks of the sum of one AIMessageChunk per chunk (choices[0] only)."""
    full: AIMessageChunk | None = None
    for chunk in chunks:
        # langchain streams through the openai SDK, which raises on a chunk with
        # a truthy ``error`` before langchain sees it; the user keeps the sum so far.
        if chunk.get("error"):
            break
        message = _message(chunk)
        if message is not None:
            full = message if full is None else full + message
    return calls_of(full)


def calls_of(full: AIMessageChunk | None) -> list[dict[str, Any]]:
    """The calls of a summed AIMessageChunk, complete when its merged finish reason says so."""
    if full is None:
        return []
    complete = full.response_metadata.get("finish_reason") in COMPLETING
    return [{"choice": 0, "index": part.get("index"), "id": part.get("id"), "name": part.get("name"),
             "arguments": part.get("args") or "", "complete": complete} for part in full.tool_call_chunks]


TARGETS = (
    Target(name="langchain-core", fn=assemble_with_message_chunks, level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("langchain-core"),
           summary="langchain-core AIMessageChunk sum (tool_call_chunks), choices[0] only; complete = "
                   "merged response_metadata finish_reason tool_calls/stop"),
)
