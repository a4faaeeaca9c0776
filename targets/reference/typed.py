"""What the reference does alike for every dialect whose events carry their own ``type``.

Theory of operation
-------------------

OpenAI Responses and Anthropic Messages streams are SSE events whose data is
one JSON object with a ``type`` member; each dialect gives the types their
meaning (:mod:`toolfuzz.targets.reference.responses`, :mod:`toolfuzz.targets.reference.anthropic`).
This module holds what does not depend on the meaning, so that both are held
to the same contract as the chat completions assembler:

* **Transport.**  Reads go through :class:`sse.SSEDecoder`; a read is never
  a delta.  Exactly the first ``max_stream_bytes`` bytes are processed, so
  where a stream stops never depends on how it was cut.
* **Events.**  Every dispatched event counts toward ``max_events``.  An empty
  payload is a keep-alive.  A payload that is not a JSON object with a string
  ``type`` ends the stream with ``bad_chunk``.  An SSE event named ``error``
  or a payload of type ``error`` ends it with ``server_error``.
* **Records.**  One record per key the dialect gives (the output index, the
  block index).  Argument text is appended as strings, never parsed before the
  end; each record's bytes count toward ``max_argument_bytes``.  A record is
  *stopped* by the dialect's per-call signal, and the stream is *finished* by
  its message-level signal with a reason.
* **The end.**  Statuses are decided once, when the stream ends: a record that
  was stopped in a stream finished with a completing reason is parsed and
  checked (:mod:`verdict`); every other record is ``incomplete``.  A finish
  that came before an error keeps its calls; a bound keeps nothing complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from toolfuzz.vocabulary import COMPLETING, INCOMPLETE, Call, Limits, Outcome, StreamError, Tool, exact_json
from toolfuzz.targets.reference.stops import BOUND_ERRORS, StreamStopped as Stop, parse_slowly
from toolfuzz.targets.reference.events import ArgumentsAppended, CallOpened, ChoiceFinished, ChunkReceived, Event, StreamEnded
from toolfuzz.targets.reference.sse import SSEDecoder
from toolfuzz.targets.reference.verdict import ToolBook

__all__ = ["TypedStream", "Record", "CallStopped", "Stop", "Ended", "integer", "member"]

class Ended(Exception):
    """Raised while handling the dialect's last event: the stream ends cleanly, and nothing after it is read."""


@dataclass(frozen=True, slots=True)
class CallStopped(Event):
    """The dialect's per-call signal: this call's arguments are all there (not yet that it is complete)."""

    index: int


class Record:
    __slots__ = ("index", "id", "name", "parts", "nbytes", "stopped", "key")

    def __init__(self, index: int, call_id: str | None, name: str | None, key: Any = None) -> None:
        self.index = index
        self.id = call_id
        self.name = name
        self.parts: list[str] = []
        self.nbytes = 0
        self.stopped = False
        self.key = key


class TypedStream:
    """Feed it reads, close it at end of stream, read :attr:`outcome`.  Subclasses give events their meaning."""

    #: Whose finish reasons complete stopped calls.
    DIALECT: str

    def __init__(self, tools: Iterable[Tool] = (), limits: Limits = Limits(), *, events: bool = True) -> None:
        self.limits = limits
        self._book = ToolBook(tools)
        self._sse = SSEDecoder()
        self._room = limits.max_stream_bytes
        self._events_left = limits.max_events
        self.records: list[Record] = []
        #: The finish reason, once the stream has given one.
        self.finished: str | None = None
        self._want = events
        self._out: list[Event] = []
        #: None while the stream is open; the outcome once it has ended.
        self.outcome: Outcome | None = None

    def feed(self, data: bytes) -> list[Event]:
        if self.outcome is not None:
            return []
        self._out = []
        over = len(data) > self._room
        if over:
            data = data[: self._room]
        self._room -= len(data)
        try:
            self._sse.feed_into(data, self._dispatch)
            if over:
                raise Stop("stream_too_large", f"the stream passed {self.limits.max_stream_bytes} bytes")
        except Ended:
            self._end(None)
        except Stop as stop:
            self._end(stop.error)
        return self._out

    def close(self) -> list[Event]:
        """End of stream.  An event without its closing blank line is discarded."""
        if self.outcome is not None:
            return []
        self._out = []
        self._sse.close()
        self._end(None)
        return self._out

    def emit(self, event: Event) -> None:
        if self._want:
            self._out.append(event)

    def _dispatch(self, name: str, payload: bytes) -> None:
        self._events_left -= 1
        if self._events_left < 0:
            raise Stop("too_many_events", f"more than {self.limits.max_events} events")
        if not payload or payload.isspace():
            if name == "error":
                raise Stop("server_error", "an error event without data")
            return  # keep-alive
        try:
            data = exact_json(payload)
        except ValueError:
            data = parse_slowly(payload)
        if type(data) is not dict:
            raise Stop("bad_chunk", f"payload is not a JSON object: {payload[:120]!r}")
        self.emit(ChunkReceived(data))
        kind = data.get("type")
        if name == "error" or kind == "error":
            raise Stop("server_error", self.error_message(data))
        if type(kind) is not str:
            raise Stop("bad_chunk", f"event type {kind!r} is not a string")
        self.on_event(kind, data)

    # -- for the dialects ------------------------------------------------------

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        raise NotImplementedError

    def error_message(self, data: dict[str, Any]) -> str:
        raise NotImplementedError

    def open(self, index: int, call_id: Any, name: Any, key: Any = None) -> Record:
        if call_id is not None and type(call_id) is not str:
            raise Stop("bad_chunk", f"call id {call_id!r} is not a string")
        if name is not None and type(name) is not str:
            raise Stop("bad_chunk", f"call name {name!r} is not a string")
        record = Record(index, call_id or None, name or None, key)
        self.records.append(record)
        self.emit(CallOpened(0, index, record.id, record.name))
        return record

    def append(self, record: Record, text: Any) -> None:
        if type(text) is not str:
            raise Stop("bad_chunk", f"argument fragment {text!r} is not a string")
        if record.stopped:
            raise Stop("late_fragment", f"arguments for call {record.index} after it stopped")
        if not text:
            return
        record.nbytes += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if record.nbytes > self.limits.max_argument_bytes:
            raise Stop("arguments_too_large",
                       f"call {record.index} passed {self.limits.max_argument_bytes} bytes of arguments")
        record.parts.append(text)
        self.emit(ArgumentsAppended(0, record.index, text))

    def stop(self, record: Record) -> None:
        record.stopped = True
        self.emit(CallStopped(record.index))

    def finish(self, reason: Any) -> None:
        if type(reason) is not str:
            raise Stop("bad_chunk", f"finish reason {reason!r} is not a string")
        if self.finished is None:
            self.finished = reason
            self.emit(ChoiceFinished(0, reason))

    def _end(self, error: StreamError | None) -> None:
        trusted = error is None or error.code not in BOUND_ERRORS
        completing = trusted and self.finished in COMPLETING[self.DIALECT]
        calls = []
        for r in self.records:
            arguments = "".join(r.parts)
            status = self._book.status(r.name, arguments) if completing and r.stopped else INCOMPLETE
            calls.append(Call(0, r.index, r.id, r.name, arguments, status))
        self.outcome = Outcome(tuple(calls), error)
        self.emit(StreamEnded(self.outcome))


def integer(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise Stop("bad_chunk", f"{data.get('type')}: {key} {value!r} is not an integer")
    return value


def member(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if type(value) is not dict:
        raise Stop("bad_chunk", f"{data.get('type')}: {key} is not an object")
    return value

