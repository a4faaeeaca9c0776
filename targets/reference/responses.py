"""The reference assembler for OpenAI Responses streams: bytes in, calls out.

Theory of operation
-------------------

Transport, bounds and statuses are :mod:`toolfuzz.targets.reference.typed`'s; this
module gives the event types their meaning (docs/contract.md, "OpenAI
Responses").  A call is a ``function_call`` output item:

* ``response.output_item.added`` with a ``function_call`` item opens a
  record keyed by ``output_index`` (the call's index) and by the item's
  ``id``.  The call's id is the item's ``call_id``, which is what a tool
  result must answer; the item id is only a key.  The item's ``arguments``
  (normally ``""``) start its text.  Other items (reasoning, messages) open
  nothing.
* ``response.function_call_arguments.delta`` appends ``delta`` to the record
  its ``output_index`` names.  Its ``item_id`` is only checked: GitHub
  Copilot's Responses endpoint gives every event a fresh one (captured in
  vercel/ai's ``github-copilot-id-rotation.1`` fixture), so an id no item
  carries is no error, but one that names another open call is ``bad_chunk``,
  as is an index no call is open on; a delta after the call's ``.done`` is
  ``late_fragment``.
* ``response.function_call_arguments.done`` stops the call.  Its
  ``arguments`` must be exactly the text assembled so far, or, when no delta
  came, are the call's whole arguments (LM Studio sends them only here:
  vercel/ai's ``lmstudio-tool-call`` fixtures); a server that disagrees with
  its own deltas ends the stream with ``bad_chunk`` rather than have us choose.
  ``response.output_item.done`` repeats the item and changes nothing.
* ``response.completed`` finishes the response as ``completed`` and ends the
  stream: stopped calls are complete.  ``response.incomplete`` ends it with
  stopped calls still ``incomplete``; ``response.failed`` and ``error`` end it
  with ``server_error``.  There is no ``[DONE]``: a stream that ends before
  ``response.completed`` leaves every call incomplete.
* Any other type (text deltas, ``sequence_number`` bookkeeping, types not
  invented yet) changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.targets.reference.typed import Ended, Record, Stop, TypedStream, integer, member

__all__ = ["ResponsesAssembler"]


class ResponsesAssembler(TypedStream):
    DIALECT = "openai-responses"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._by_item: dict[str, Record] = {}
        self._by_index: dict[int, Record] = {}

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "response.function_call_arguments.delta":
            self.append(self._record(data), data.get("delta"))
        elif kind == "response.output_item.added":
            self._added(data)
        elif kind == "response.function_call_arguments.done":
            record = self._record(data)
            if record.stopped:
                raise Stop("late_fragment", f"a second .done for call {record.index}")
            arguments = data.get("arguments")
            if not record.parts:
                self.append(record, arguments)
            elif arguments != "".join(record.parts):
                raise Stop("bad_chunk", f"call {record.index}: the .done arguments differ from its deltas")
            self.stop(record)
        elif kind == "response.completed":
            self.finish("completed")
            raise Ended
        elif kind == "response.incomplete":
            self.finish("incomplete")
            raise Ended
        elif kind == "response.failed":
            raise Stop("server_error", _failure(data))

    def error_message(self, data: dict[str, Any]) -> str:
        message = data.get("message")
        if isinstance(message, str):
            return message[:500]
        return json.dumps(data, ensure_ascii=False)[:500]

    def _added(self, data: dict[str, Any]) -> None:
        item = member(data, "item")
        if item.get("type") != "function_call":
            return
        index = integer(data, "output_index")
        item_id = item.get("id")
        if type(item_id) is not str or not item_id:
            raise Stop("bad_chunk", f"function_call item at {index} has no id")
        if index in self._by_index or item_id in self._by_item:
            raise Stop("bad_chunk", f"function_call item {item_id!r} at {index} opened twice")
        record = self.open(index, item.get("call_id"), item.get("name"), key=item_id)
        self._by_item[item_id] = self._by_index[index] = record
        arguments = item.get("arguments")
        if arguments is not None:
            self.append(record, arguments)

    def _record(self, data: dict[str, Any]) -> Record:
        index = integer(data, "output_index")
        item_id = data.get("item_id")
        record = self._by_index.get(index)
        named = self._by_item.get(item_id) if type(item_id) is str else None
        if record is None or (named is not None and named is not record):
            raise Stop("bad_chunk", f"{data['type']} for item {item_id!r} at {index}, which no open call is")
        return record


def _failure(data: dict[str, Any]) -> str:
    response = data.get("response")
    error = response.get("error") if isinstance(response, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"][:500]
    return "response.failed"
