"""smolagents' assembler: ``agglomerate_stream_deltas`` over the deltas ``OpenAIModel.generate_stream`` yields.

``smolagents-agglomerate`` (events) turns each chunk into the
``ChatMessageStreamDelta`` that ``OpenAIModel.generate_stream`` makes of it
(``choices[0]`` only; its tool-call entries become
``ChatMessageToolCallStreamDelta(index, id, type, function)``; a choice with
no delta and no finish reason raises ``ValueError``, as there), then hands
the list to ``agglomerate_stream_deltas``, which is what a
``ToolCallingAgent`` streaming its outputs does before it runs the calls.

What it claims, and how each field maps:

* ``index``: the dict key agglomerate keeps per call (the wire's index; a
  delta without one makes it raise ``ValueError``);
* ``id``, ``name``, ``arguments``: ``ChatMessageToolCall.id`` (``""`` when the
  stream gave none), ``.function.name``, ``.function.arguments`` (a string,
  the fragments joined);
* ``complete``: always true.  smolagents keeps no finish reason in a streamed
  message, and the agent runs every call agglomerate returns, so a call the
  stream never finished is handed on; that is what a user gets.
* every call is choice 0 (smolagents reads ``choices[0]`` only).

No ``status``: smolagents parses arguments later, in the agent, against the
tools the agent holds, which a target is not given.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from smolagents.models import ChatMessageStreamDelta, ChatMessageToolCallStreamDelta, agglomerate_stream_deltas

from toolfuzz.targets.adapters._support import quiet, sdk_chunks
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_agglomerate"]


def _delta(chunk: Any) -> ChatMessageStreamDelta | None:
    """The delta ``OpenAIModel.generate_stream`` yields for one chunk's first choice, or None."""
    if not chunk.choices:
        return None
    choice = chunk.choices[0]
    if not choice.delta:
        if not getattr(choice, "finish_reason", None):
            raise ValueError(f"No content or tool calls in event: {chunk}")
        return None
    entries = choice.delta.tool_calls
    return ChatMessageStreamDelta(
        content=choice.delta.content,
        tool_calls=[ChatMessageToolCallStreamDelta(index=e.index, id=e.id, type=e.type, function=e.function)
                    for e in entries] if entries else None)


def assemble_with_agglomerate(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """agglomerate_stream_deltas over one ChatMessageStreamDelta per chunk (choices[0] only)."""
    deltas = [d for d in map(_delta, sdk_chunks(chunks)) if d is not None]
    message = agglomerate_stream_deltas(deltas)
    # agglomerate keeps its calls in a dict keyed by the wire's index, in
    # insertion order; the message's list has lost the key, so pair them back
    # by position through the same order.
    indexes = []
    for d in deltas:
        for e in d.tool_calls or ():
            if e.index not in indexes:
                indexes.append(e.index)
    return [{"choice": 0, "index": index, "id": call.id or None, "name": call.function.name or None,
             "arguments": call.function.arguments or "", "complete": True}
            for index, call in zip(indexes, message.tool_calls or ())]


TARGETS = (
    Target(name="smolagents-agglomerate", fn=quiet(assemble_with_agglomerate), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("smolagents"),
           summary="smolagents agglomerate_stream_deltas over generate_stream's deltas, choices[0] only; "
                   "no finish notion: every call is handed on"),
)
