"""litellm's Anthropic path: Messages events translated to OpenAI-shaped chunks, then ``stream_chunk_builder``.

* ``litellm-anthropic`` (events): litellm's ``ModelResponseIterator`` (the
  Anthropic stream parser behind ``litellm.completion(model="anthropic/...")``)
  over one ``data:`` line per event, the chunks it yields rebuilt with
  ``litellm.stream_chunk_builder``.
* ``litellm-anthropic-client`` (bytes): ``litellm.completion(model="anthropic/...",
  stream=True)`` on an ``HTTPHandler`` whose httpx client has an in-process
  transport serving the case's reads; the chunks it yields are rebuilt the
  same way.

What is reported for each built tool call:

* index: litellm numbers tool calls by their order (OpenAI's shape), not by
  the block index, and the built calls carry no index at all.  Each call is
  reported under the index of the ``content_block_start`` whose ``tool_use``
  id it carries, read from the case's own events (for the client, decoded
  with the reference SSE decoder); a call with an id no block started has
  no index.  This labels calls, it decides nothing: arguments litellm put on
  the wrong call still show on the wrong call.
* id, name, arguments: ``tool_call.id``, ``.function.name``,
  ``.function.arguments``, as text.
* complete: the built ``finish_reason`` is ``tool_calls`` or ``stop``
  (litellm maps ``stop_reason`` ``tool_use`` to ``tool_calls``).  The builder
  answers ``stop`` for a stream that never gave a reason, so that is what a
  user checking it sees.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

# First: the chat adapter keeps litellm offline (no cost map fetch, no telemetry) before litellm loads.
from toolfuzz.targets.adapters.litellm import _MESSAGES  # isort: skip

import httpx
import litellm
from litellm.llms.anthropic.chat.handler import ModelResponseIterator
from litellm.llms.custom_httpx.http_handler import HTTPHandler

from toolfuzz.targets.adapters._support import COMPLETING, mock_client, quiet
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference.sse import SSEDecoder

__all__ = ["TARGETS", "assemble_with_parser", "assemble_with_client"]


def _block_of(events: list[Any]) -> dict[str, int]:
    """tool_use id -> the index of the content block that started it (the first such block)."""
    found: dict[str, int] = {}
    for e in events:
        block = e.get("content_block") if isinstance(e, dict) and e.get("type") == "content_block_start" else None
        if isinstance(block, dict) and isinstance(block.get("id"), str) and isinstance(e.get("index"), int):
            found.setdefault(block["id"], e["index"])
    return found


def _calls(chunks: list[Any], block_of: dict[str, int]) -> list[dict[str, Any]]:
    if not chunks:
        return []
    response = litellm.stream_chunk_builder(chunks, messages=_MESSAGES)
    if response is None:
        return []
    calls = []
    for choice in response.choices:
        complete = choice.finish_reason in COMPLETING
        for call in choice.message.tool_calls or ():
            calls.append({"choice": choice.index, "index": block_of.get(call.id), "id": call.id,
                          "name": call.function.name, "arguments": call.function.arguments or "",
                          "complete": complete})
    return calls


def assemble_with_parser(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """litellm's Anthropic ModelResponseIterator over one data line per event, then stream_chunk_builder."""
    lines = iter(["data: " + json.dumps(e, ensure_ascii=False) for e in events])
    chunks = list(ModelResponseIterator(streaming_response=lines, sync_stream=True))
    return _calls(chunks, _block_of(events))


def _events_of(reads: list[bytes]) -> list[Any]:
    decoder = SSEDecoder()
    events = []
    for read in reads:
        for event in decoder.feed(read):
            try:
                events.append(json.loads(event.data))
            except ValueError:
                continue
    return events


def assemble_with_client(reads: list[bytes]) -> list[dict[str, Any]]:
    """litellm.completion(model="anthropic/...", stream=True) over the case's reads, rebuilt with stream_chunk_builder."""
    stream = litellm.completion(model="anthropic/claude-sonnet-4-5", messages=_MESSAGES, stream=True,
                                api_key="toolfuzz", api_base="http://toolfuzz.invalid/v1/messages",
                                client=HTTPHandler(client=mock_client(httpx, reads)), num_retries=0)
    return _calls(list(stream), _block_of(_events_of(reads)))


_WARM_UP = [{"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "x",
                                                  "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2}},
            {"type": "message_stop"}]
# One stream of each kind outside any case: litellm imports much of itself lazily, on first use.
for _run, _arg in ((assemble_with_parser, _WARM_UP),
                   (assemble_with_client, ["".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n"
                                                   for e in _WARM_UP).encode()])):
    try:
        quiet(_run)(_arg)
    except Exception:  # noqa: BLE001 - the set-up is done either way
        pass

_VERSION = metadata.version("litellm")
_CLAIMS = frozenset({"ids", "names", "completion"})

TARGETS = (
    Target(name="litellm-anthropic", fn=quiet(assemble_with_parser), level="events", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION,
           summary="litellm's Anthropic ModelResponseIterator + stream_chunk_builder; calls labelled by their "
                   "block's index; complete = finish_reason tool_calls/stop"),
    Target(name="litellm-anthropic-client", fn=quiet(assemble_with_client), level="bytes", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION, builds_on="litellm-anthropic",
           summary="litellm.completion(model='anthropic/...', stream=True) over an in-process transport, "
                   "then stream_chunk_builder"),
)
