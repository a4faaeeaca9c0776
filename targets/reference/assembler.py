"""The reference assembler: bytes of a chat.completion.chunk stream in, calls out.

Theory of operation
-------------------

The assembler is sans-IO, in the manner of h11: a caller feeds it whatever
the network gave (:meth:`Assembler.feed`), tells it when the stream ended
(:meth:`Assembler.close`), and gets back :mod:`events`.  It never reads a
socket, never sleeps, and never runs a tool.

Bytes go through three layers, each of which only sees what the one below
finished:

1. **Transport.**  :class:`sse.SSEDecoder` turns reads into SSE events.  A
   read is never a delta; only a dispatched event's ``data`` is.
2. **Chunks.**  Each data payload is one ``chat.completion.chunk`` JSON
   object.  ``[DONE]`` ends the stream.  A payload with an ``error`` member,
   or an SSE event named ``error``, ends it with ``server_error``.  A payload
   that is not a well-formed chunk ends it with ``bad_chunk``.  An empty
   payload is a keep-alive.
3. **Assembly.**  One record per (choice, tool-call index).  A record keeps
   the first non-empty id and name it is given, whichever fragment carries
   them; later fragments extend the same record; argument fragments are
   appended as strings and never parsed here.  Ambiguous shapes seen in the
   wild are resolved like this:

   * an entry whose index names an existing record extends it, unless it
     carries both a name and an id and the record already has a different
     id: then it is a new call on the same index (servers that put every
     call on index 0);
   * an entry without an index extends the choice's latest record, unless it
     carries a name and repeats no id of that record (an absent id repeats
     nothing): then it opens a new record, numbered by its position in the
     choice;
   * ``""`` ids and names count as absent; an integer id is kept as text.

A choice's calls are finished when that choice reports ``finish_reason``
``tool_calls`` or ``stop``; any other reason (``length``,
``content_filter``) finishes the choice without completing them.  Statuses
are decided once, when the stream ends: finished calls are parsed and
checked (:mod:`verdict`); everything else is ``incomplete``.  A stream that
ends in an error keeps the calls of choices that had already finished.  A
stream that passes a bound keeps nothing complete: its bytes cannot be
trusted.

The three bounds (:class:`toolfuzz.vocabulary.Limits`) are fixed before the first
byte.  Exactly the first ``max_stream_bytes`` bytes are processed, whatever
the reads, so where a stream stops never depends on how it was cut.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from toolfuzz.vocabulary import (
    exact_json,
    COMPLETING,
    END_OF_STREAM,
    INCOMPLETE,
    Call,
    Limits,
    Outcome,
    StreamError,
    Tool,
)
from toolfuzz.targets.reference.events import (
    ArgumentsAppended,
    CallOpened,
    ChoiceFinished,
    ChunkReceived,
    Event,
    StreamEnded,
)
from toolfuzz.targets.reference.sse import SSEDecoder
from toolfuzz.targets.reference.stops import BOUND_ERRORS, StreamStopped, parse_slowly
from toolfuzz.targets.reference.verdict import ToolBook, join_surrogates

__all__ = ["Assembler", "StreamStopped", "COMPLETING_REASONS"]

_DONE = END_OF_STREAM["openai-chat"].encode()

#: The finish reasons that complete a choice's calls, under the name :mod:`toolfuzz.targets.reference` exports.
COMPLETING_REASONS = COMPLETING["openai-chat"]

class _Ended(Exception):
    """Unwinds the SSE decoder once ``[DONE]`` has ended the stream."""


class _Record:
    __slots__ = ("choice", "index", "indexed", "id", "name", "parts", "nbytes")

    def __init__(self, choice: int, index: int, indexed: bool = True) -> None:
        self.choice = choice
        self.index = index
        self.indexed = indexed  # False: numbered by its position, since the wire gave it no index
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []
        self.nbytes = 0


class Assembler:
    """Feed it reads, close it at end of stream, read :attr:`outcome`.

    With ``events=False`` :meth:`feed` and :meth:`close` return empty lists
    and only :attr:`outcome` is kept: the same assembly, without building an
    event object per fragment, for callers that want the result alone.
    """

    def __init__(self, tools: Iterable[Tool] = (), limits: Limits = Limits(), *, events: bool = True) -> None:
        self.limits = limits
        self._book = ToolBook(tools)
        self._sse = SSEDecoder()
        self._pending = self._sse._pending  # the short path for tiny reads appends here directly
        self._short_path = False
        self._room = limits.max_stream_bytes
        # The pending line's length when the last read went the long way, and
        # the length it may reach on the short path before the stream bound.
        self._mark = 0
        self._short_limit = 0
        self._events_left = limits.max_events
        self._records: list[_Record] = []
        self._by_key: dict[tuple[int, int], _Record] = {}
        self._latest: dict[int, _Record] = {}
        self._opened: dict[int, int] = {}
        self._finished: dict[int, str] = {}
        self._want_events = events
        self._out: list[Event] = []
        self._emit = self._out.append if events else None
        #: None while the stream is open; the outcome once it has ended.
        self.outcome: Outcome | None = None

    # -- the public surface -------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        # Reads of a few bytes with no line end only extend the pending line;
        # taking them here keeps one-byte reads cheap.
        if self._short_path and 10 not in data and 13 not in data:
            pending = self._pending
            pending += data
            if len(pending) <= self._short_limit:
                return []
            del pending[len(pending) - len(data):]  # past the bound: the long way decides
        if self.outcome is not None:
            return []
        self._room -= len(self._pending) - self._mark  # what the short path took since
        out = self._begin()
        over = len(data) > self._room
        if over:
            data = data[: self._room]
        self._room -= len(data)
        try:
            self._sse.feed_into(data, self._dispatch)
            if over:
                raise StreamStopped("stream_too_large",
                                    f"the stream passed {self.limits.max_stream_bytes} bytes")
        except _Ended:
            pass
        except StreamStopped as stop:
            self._end(stop.error)
        self._mark = len(self._pending)
        self._short_limit = self._mark + self._room
        self._short_path = self.outcome is None and self._sse.settled
        return out

    def close(self) -> list[Event]:
        """End of stream.  An event without its closing blank line is discarded."""
        if self.outcome is not None:
            return []
        out = self._begin()
        self._short_path = False
        self._sse.close()
        self._end(None)
        return out

    def _begin(self) -> list[Event]:
        if not self._want_events:
            return []
        out = self._out = []
        self._emit = out.append
        return out

    # -- chunks ---------------------------------------------------------------

    def _dispatch(self, event: str, payload: bytes) -> None:
        self._events_left -= 1
        if self._events_left < 0:
            raise StreamStopped("too_many_events", f"more than {self.limits.max_events} events")
        if event == "error":
            raise StreamStopped("server_error", payload.decode("utf-8", "replace")[:500])
        if payload == _DONE:
            self._end(None)
            raise _Ended
        if not payload or payload.isspace():
            return  # keep-alive sent as data
        try:
            chunk = exact_json(payload)
        except ValueError:
            chunk = parse_slowly(payload)
        if type(chunk) is not dict:
            raise StreamStopped("bad_chunk", f"payload is not a JSON object: {payload[:120]!r}")
        emit = self._emit
        if emit is not None:
            emit(ChunkReceived(chunk))
        error = chunk.get("error")
        if error is not None:
            raise StreamStopped("server_error", _error_message(error))
        choices = chunk.get("choices")
        if choices is None:
            return  # usage or annotation chunk
        if type(choices) is not list:
            raise StreamStopped("bad_chunk", "choices is not a list")
        for choice in choices:
            if type(choice) is not dict:
                raise StreamStopped("bad_chunk", "a choice is not an object")
            ci = choice.get("index")
            if ci is None:
                ci = 0
            elif type(ci) is not int:
                raise StreamStopped("bad_chunk", f"choice index {ci!r} is not an integer")
            delta = choice.get("delta")
            if delta is not None:
                if type(delta) is not dict:
                    raise StreamStopped("bad_chunk", "delta is not an object")
                entries = delta.get("tool_calls")
                if entries is not None:
                    if type(entries) is not list:
                        raise StreamStopped("bad_chunk", "tool_calls is not a list")
                    if entries and ci in self._finished:
                        raise StreamStopped("late_fragment", f"tool call for choice {ci} after it finished")
                    for entry in entries:
                        self._entry(ci, entry)
            reason = choice.get("finish_reason")
            if reason is not None and ci not in self._finished:
                if type(reason) is not str:
                    raise StreamStopped("bad_chunk", f"finish_reason {reason!r} is not a string")
                self._finished[ci] = reason
                if emit is not None:
                    emit(ChoiceFinished(ci, reason))

    # -- assembly ---------------------------------------------------------------

    def _entry(self, ci: int, entry: Any) -> None:
        if type(entry) is not dict:
            raise StreamStopped("bad_chunk", "a tool_calls entry is not an object")
        index = entry.get("index")
        if index is not None and type(index) is not int:
            raise StreamStopped("bad_chunk", f"tool call index {index!r} is not an integer")
        call_id = entry.get("id")
        if call_id is not None and type(call_id) is not str:
            if type(call_id) is not int:
                raise StreamStopped("bad_chunk", f"tool call id {call_id!r} is not a string")
            call_id = str(call_id)
        function = entry.get("function")
        name = arguments = None
        if function is not None:
            if type(function) is not dict:
                raise StreamStopped("bad_chunk", "function is not an object")
            name = function.get("name")
            arguments = function.get("arguments")
            if name is not None and type(name) is not str:
                raise StreamStopped("bad_chunk", f"function name {name!r} is not a string")
            if arguments is not None and type(arguments) is not str:
                raise StreamStopped("bad_chunk", "function arguments are not a string")
        if name or call_id or index is None:
            record = self._locate(ci, index, call_id or None, name or None)
        else:
            # A continuation fragment, the bulk of every stream.
            record = self._by_key.get((ci, index)) or self._locate(ci, index, None, None)
        if call_id and record.id is None:
            record.id = call_id
        if name and record.name is None:
            record.name = name
        if arguments:
            record.nbytes += len(arguments) if arguments.isascii() else len(
                arguments.encode("utf-8", "surrogatepass"))
            if record.nbytes > self.limits.max_argument_bytes:
                raise StreamStopped("arguments_too_large",
                                    f"call {record.choice}/{record.index} passed "
                                    f"{self.limits.max_argument_bytes} bytes of arguments")
            record.parts.append(arguments)
            if self._emit is not None:
                self._emit(ArgumentsAppended(ci, record.index, arguments))

    def _locate(self, ci: int, index: int | None, call_id: str | None, name: str | None) -> _Record:
        indexed = index is not None
        if index is None:
            latest = self._latest.get(ci)
            if latest is not None and not (name and (call_id is None or call_id != latest.id)):
                return latest
            index = self._opened.get(ci, 0)
        else:
            record = self._by_key.get((ci, index))
            if record is not None and not (
                name and call_id and record.id is not None and call_id != record.id
            ):
                return record
        record = _Record(ci, index, indexed)
        self._records.append(record)
        self._by_key[(ci, index)] = record
        self._latest[ci] = record
        self._opened[ci] = self._opened.get(ci, 0) + 1
        if self._emit is not None:
            self._emit(CallOpened(ci, index, call_id, name))
        return record

    # -- the end ------------------------------------------------------------------

    def _end(self, error: StreamError | None) -> None:
        trusted = error is None or error.code not in BOUND_ERRORS
        calls = []
        for r in self._records:
            arguments = join_surrogates("".join(r.parts))
            if trusted and self._finished.get(r.choice) in COMPLETING_REASONS:
                status = self._book.status(r.name, arguments)
            else:
                status = INCOMPLETE
            calls.append(Call(r.choice, r.index, r.id, r.name, arguments, status, indexed=r.indexed))
        self.outcome = Outcome(tuple(calls), error)
        self._short_path = False
        if self._emit is not None:
            self._emit(StreamEnded(self.outcome))




def _error_message(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"][:500]
    return json.dumps(error, ensure_ascii=False)[:500]
