"""haystack-ai's assembler: the streaming chunks ``OpenAIChatGenerator`` collects, joined into one ChatMessage.

``haystack`` (events) hands the chunks, built as the openai SDK builds
them, to a real ``OpenAIChatGenerator``'s ``_handle_stream_response`` (the
method ``run`` streams through, in every release): it asserts at most one
choice per chunk (exactly one before 2.13), converts each chunk to a
``StreamingChunk`` and joins them into the ``ChatMessage`` whose tool calls
a ``ToolInvoker`` runs.  The join keyed calls by id before 2.13, by index
since; from 2.15 it is the module function
``_convert_streaming_chunks_to_chat_message``.

What it claims, and how each field maps:

* ``index``: the wire index whose fragments made the call.  The message's
  calls carry none, so each is paired with the first index, in haystack's
  order and leaving out those whose text does not parse (haystack skips
  them), that carried its id (or no id, for a call without one), or else
  the first remaining one;
* ``id``: ``ToolCall.id`` (``""`` when the stream gave none); ``name``:
  ``ToolCall.tool_name``;
* ``arguments``: haystack keeps only the parsed value (``ToolCall.arguments``,
  a dict).  Where that value is exactly what the streamed text says, the
  text is reported; otherwise the value, written as JSON
  (``_support.text_of``).  Arguments that do not parse make haystack skip
  the call with a warning: the call is missing;
* ``complete``: true for every call of the message.  haystack exposes the
  finish reason in ``meta["finish_reason"]``, but neither ``ToolInvoker`` nor
  ``Agent`` consults it before running a message's tool calls.
* every call is choice 0 (the conversion reads ``choices[0]`` only; a chunk
  with several choices fails the assertion, reported as raised).

No ``status``: skipped calls are gone rather than marked, and parsing is
all haystack does at this point.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

from haystack.components.generators.chat.openai import OpenAIChatGenerator
from haystack.utils import Secret

from toolfuzz.targets.adapters._support import quiet, sdk_chunks, text_of
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_stream_response"]

# No request is ever made: the stream handling is a method of the generator, which needs a key to exist.
_GENERATOR = OpenAIChatGenerator(api_key=Secret.from_token("toolfuzz"), api_base_url="http://toolfuzz.invalid/v1")


def _deltas(streaming: Any) -> list[tuple[Any, Any, str]]:
    """(index, id, arguments) of each tool-call delta a StreamingChunk carries: ``tool_calls``
    (ToolCallDelta) from 2.15, the SDK's deltas in ``meta["tool_calls"]`` before."""
    if getattr(streaming, "tool_calls", None) is not None:
        return [(d.index, d.id, d.arguments or "") for d in streaming.tool_calls]
    return [(d.index, d.id, (d.function.arguments if d.function else None) or "")
            for d in streaming.meta.get("tool_calls") or ()]


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _indexes(deltas: list[tuple[Any, Any, str]], calls: list[Any]) -> list[Any]:
    """The wire index of each call.  haystack keys calls by index (sorted from 2.15; by id before
    2.12) and skips those whose joined text does not parse; each call goes to the first remaining
    index, in that order, that carried its id (or no id, for a call without one)."""
    order = list(dict.fromkeys(index for index, _, _ in deltas))
    try:
        order.sort()
    except TypeError:
        pass
    text = {index: "".join(a for x, _, a in deltas if x == index) for index in order}
    order = [index for index in order if not text[index] or _parses(text[index])]
    ids = {index: {i for x, i, _ in deltas if x == index and i} for index in order}
    found = []
    for call in calls:
        # A call whose id matches none (haystack keeps an empty id a continuation sent) takes the next index.
        at = next((x for x in order if (call.id in ids[x] if call.id else not ids[x])), order[0] if order else None)
        if at in order:
            order.remove(at)
        found.append(at)
    return found


def assemble_with_stream_response(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAIChatGenerator._handle_stream_response over the chunks, the ChatMessage's tool calls."""
    streaming: list[Any] = []
    (message,) = _GENERATOR._handle_stream_response(sdk_chunks(chunks), streaming.append)
    deltas = [d for s in streaming for d in _deltas(s)]
    return [{"choice": 0, "index": index if isinstance(index, int) else None, "id": call.id or None,
             "name": call.tool_name or None,
             "arguments": text_of("".join(a for x, _, a in deltas if x == index), call.arguments), "complete": True}
            for index, call in zip(_indexes(deltas, message.tool_calls), message.tool_calls)]


TARGETS = (
    Target(name="haystack", fn=quiet(assemble_with_stream_response), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("haystack-ai"),
           summary="haystack OpenAIChatGenerator._handle_stream_response, at most one choice per chunk; "
                   "skips unparsable calls; every call is handed on"),
)
