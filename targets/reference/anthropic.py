"""The reference assembler for Anthropic Messages streams: bytes in, calls out.

Theory of operation
-------------------

Transport, bounds and statuses are :mod:`toolfuzz.targets.reference.typed`'s; this
module gives the event types their meaning (docs/contract.md, "Anthropic
Messages").  A call is a ``tool_use`` content block:

* ``content_block_start`` with a ``tool_use`` block opens a record keyed by
  the block's ``index`` (the call's index: a text or thinking block before it
  takes index 0, so block indexes are not call numbers), with the block's
  ``id`` and ``name``.  Its ``input`` is normally the empty object, the input
  arriving as deltas; a call made from code (programmatic tool calling)
  carries its whole input here and gets no delta (vercel/ai's
  ``anthropic-programmatic-tool-calling.1`` fixture), and a delta for such a
  block ends the stream with ``bad_chunk``: a server that sends the input
  twice would be guessed at.  Other blocks open no call, but a server tool's
  block (``server_tool_use``, ``mcp_tool_use``) streams its own input as
  ``input_json_delta``, which changes nothing (vercel/ai's tool-search, code
  execution and MCP fixtures).  A second start on an index ends the stream
  with ``bad_chunk``.
* ``content_block_delta`` with an ``input_json_delta`` appends its
  ``partial_json`` (the first is often ``""``) to the record of its index;
  one for an index no block started ends the stream with ``bad_chunk``, and
  one after the block's stop with ``late_fragment``.  Text, thinking and
  signature deltas change nothing.
* ``message_start`` may carry the whole message: its ``content`` blocks, each
  ``tool_use`` a stopped call with its whole input, and its ``stop_reason``
  (the later responses of the programmatic tool-calling capture).
* ``content_block_stop`` stops the block's call.
* ``message_delta`` with a ``stop_reason`` finishes the message: ``tool_use``
  completes the stopped calls, any other reason (``max_tokens``, ``refusal``)
  leaves them incomplete.  ``message_stop`` ends the stream; a stream cut
  after the finish keeps its calls, as a chat stream without ``[DONE]`` does.
* ``ping`` and types not invented yet change nothing;
  ``error`` ends the stream with ``server_error``.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.targets.reference.typed import Ended, Record, Stop, TypedStream, integer, member
from toolfuzz.vocabulary import input_text

__all__ = ["AnthropicAssembler"]


class AnthropicAssembler(TypedStream):
    DIALECT = "anthropic"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Every started block by index: its call, or None for a block that is not one.
        self._blocks: dict[int, Record | None] = {}
        #: The calls whose whole input came at their start, which no delta may add to.
        self._whole: set[int] = set()

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "content_block_delta":
            delta = member(data, "delta")
            if delta.get("type") == "input_json_delta":
                record = self._tool(data)
                if record is not None:
                    self.append(record, delta.get("partial_json"))
            elif self._blocks.get(integer(data, "index"), False) is False:
                raise Stop("bad_chunk", f"a delta for block {data['index']}, which never started")
        elif kind == "content_block_start":
            self._start(data)
        elif kind == "content_block_stop":
            index = integer(data, "index")
            if index not in self._blocks:
                raise Stop("bad_chunk", f"content_block_stop for block {index}, which never started")
            record = self._blocks[index]
            if record is not None:
                if record.stopped:
                    raise Stop("late_fragment", f"block {index} stopped twice")
                self.stop(record)
        elif kind == "message_delta":
            reason = member(data, "delta").get("stop_reason")
            if reason is not None:
                self.finish(reason)
        elif kind == "message_stop":
            raise Ended
        elif kind == "message_start":
            self._message(member(data, "message"))

    def error_message(self, data: dict[str, Any]) -> str:
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"][:500]
        return json.dumps(data, ensure_ascii=False)[:500]

    def _start(self, data: dict[str, Any]) -> None:
        self._block(integer(data, "index"), member(data, "content_block"))

    def _block(self, index: int, block: dict[str, Any]) -> Record | None:
        if index in self._blocks:
            raise Stop("bad_chunk", f"block {index} started twice")
        if block.get("type") != "tool_use":
            self._blocks[index] = None
            return None
        whole = block.get("input", {})
        if type(whole) is not dict:
            raise Stop("bad_chunk", f"tool_use block {index}: input {whole!r} is not an object")
        record = self._blocks[index] = self.open(index, block.get("id"), block.get("name"))
        if whole:
            self._whole.add(index)
            self.append(record, input_text(whole))
        return record

    def _message(self, message: dict[str, Any]) -> None:
        content = message.get("content", [])
        if type(content) is not list or not all(type(block) is dict for block in content):
            raise Stop("bad_chunk", "message_start: content is not a list of blocks")
        for index, block in enumerate(content):
            record = self._block(index, block)
            if record is not None:
                self.stop(record)
        reason = message.get("stop_reason")
        if reason is not None:
            self.finish(reason)

    def _tool(self, data: dict[str, Any]) -> Record | None:
        index = integer(data, "index")
        if index not in self._blocks:
            raise Stop("bad_chunk", f"input_json_delta for block {index}, which never started")
        if index in self._whole:
            raise Stop("bad_chunk", f"tool_use block {index} carried its input at the start and gets more")
        return self._blocks[index]
