"""The reference assembler for Anthropic Messages streams: bytes in, calls out.

Theory of operation
-------------------

Transport, bounds and statuses are :mod:`toolfuzz.targets.reference.typed`'s; this
module gives the event types their meaning (docs/contract.md, "Anthropic
Messages").  A call is a ``tool_use`` content block:

* ``content_block_start`` with a ``tool_use`` block opens a record keyed by
  the block's ``index`` (the call's index: a text or thinking block before it
  takes index 0, so block indexes are not call numbers), with the block's
  ``id`` and ``name``.  Its ``input`` must be the empty object: the input
  arrives as deltas, and a server that sends it twice would be guessed at.
  Other blocks open nothing; a second start on an index ends the stream with
  ``bad_chunk``.
* ``content_block_delta`` with an ``input_json_delta`` appends its
  ``partial_json`` (the first is often ``""``) to the record of its index;
  one for an index no tool block opened ends the stream with ``bad_chunk``,
  and one after the block's stop with ``late_fragment``.  Text, thinking and
  signature deltas change nothing.
* ``content_block_stop`` stops the block's call.
* ``message_delta`` with a ``stop_reason`` finishes the message: ``tool_use``
  completes the stopped calls, any other reason (``max_tokens``, ``refusal``)
  leaves them incomplete.  ``message_stop`` ends the stream; a stream cut
  after the finish keeps its calls, as a chat stream without ``[DONE]`` does.
* ``ping``, ``message_start`` and types not invented yet change nothing;
  ``error`` ends the stream with ``server_error``.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.targets.reference.typed import Ended, Record, Stop, TypedStream, integer, member

__all__ = ["AnthropicAssembler"]


class AnthropicAssembler(TypedStream):
    DIALECT = "anthropic"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._blocks: dict[int, Record | None] = {}

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "content_block_delta":
            delta = member(data, "delta")
            if delta.get("type") == "input_json_delta":
                self.append(self._tool(data), delta.get("partial_json"))
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

    def error_message(self, data: dict[str, Any]) -> str:
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"][:500]
        return json.dumps(data, ensure_ascii=False)[:500]

    def _start(self, data: dict[str, Any]) -> None:
        index = integer(data, "index")
        if index in self._blocks:
            raise Stop("bad_chunk", f"block {index} started twice")
        block = member(data, "content_block")
        if block.get("type") != "tool_use":
            self._blocks[index] = None
            return
        if block.get("input", {}) != {}:
            raise Stop("bad_chunk", f"tool_use block {index} carries its input at the start")
        self._blocks[index] = self.open(index, block.get("id"), block.get("name"))

    def _tool(self, data: dict[str, Any]) -> Record:
        index = integer(data, "index")
        record = self._blocks.get(index)
        if record is None:
            raise Stop("bad_chunk", f"input_json_delta for block {index}, which is not a started tool_use block")
        return record
