"""Server-sent events, decoded incrementally from arbitrary network reads.

Theory of operation
-------------------

A network read is not a line and not an event: it is whatever bytes the
socket had.  This decoder is fed reads of any size, cut anywhere (inside a
multibyte character, between a CR and its LF, inside ``data:``), and hands
back exactly the events that the whole stream, read at once, would give.
It follows the WHATWG "Parsing an event stream" algorithm:

* The stream is UTF-8.  One byte-order mark at the very start is dropped,
  even if its three bytes arrive in separate reads; a later one is text.
* A line ends at CRLF, LF or a lone CR.  A CR that ends a read has already
  ended its line; we remember it (``_skip_lf``) so that an LF opening the
  next read is not taken for a second, empty line, which would dispatch an
  event too early.
* A blank line dispatches the pending event, if any ``data`` field was seen.
  ``data`` lines are joined with LF.  Lines starting with ``:`` are comments.
  ``field: value`` loses exactly one space after the colon.  ``event`` names
  the event type, ``id`` sets the last event id unless it holds NUL,
  ``retry`` counts only when it is all ASCII digits, anything else is ignored.
* At end of stream, an event without its closing blank line is discarded.

We split lines on bytes and decode afterwards.  That is exact, not a
shortcut: CR and LF are ASCII and never occur inside a UTF-8 sequence, and a
UTF-8 decoder resynchronises on every ASCII byte, so decoding each line on
its own gives the same text (U+FFFD included) as decoding the whole stream.
A character cut between two reads simply waits, as bytes, in the pending
line.  Data stays bytes in the event so that a JSON parser can take it
without another copy; :attr:`SSEEvent.text` gives the decoded string.

Every read is handled in time linear in its length, and the only state kept
across reads is the unterminated line and the fields of the pending event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["SSEEvent", "SSEDecoder"]

_BOM = b"\xef\xbb\xbf"
_EOL = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event.  ``data`` is the UTF-8 bytes of the joined data lines."""

    data: bytes
    event: str = "message"
    id: str = ""

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


class SSEDecoder:
    def __init__(self) -> None:
        self._pending = bytearray()
        self._bom_undecided = True
        self._skip_lf = False
        self._data: list[bytes] = []
        self._event = ""
        self._last_id = ""
        #: The last valid ``retry`` value, in milliseconds.
        self.retry: int | None = None

    @property
    def last_event_id(self) -> str:
        return self._last_id

    def feed(self, data: bytes) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        self.feed_into(data, lambda event, payload: out.append(SSEEvent(payload, event, self._last_id)))
        return out

    @property
    def settled(self) -> bool:
        """True when the next read, if it holds no CR or LF, only extends the pending line.

        The assembler uses this to take one-byte reads on a short path.
        """
        return not self._bom_undecided and not self._skip_lf

    def feed_into(self, data: bytes, emit: Callable[[str, bytes], object]) -> None:
        """Like :meth:`feed`, but hands each event's type and data to ``emit`` instead of building events.

        ``emit`` may raise to stop decoding; the decoder's state is then
        undefined, and the caller is expected to stop feeding it.
        """
        if self._bom_undecided:
            if self._pending:
                data = bytes(self._pending) + data
                self._pending.clear()
            if len(data) < len(_BOM) and _BOM.startswith(data):
                self._pending += data  # not enough bytes yet to know
                return
            self._bom_undecided = False
            if data.startswith(_BOM):
                data = data[len(_BOM):]
        if self._skip_lf and data:
            self._skip_lf = False
            if data[0] == 0x0A:
                data = data[1:]
        if 13 in data:  # CR; an int test is much cheaper than a bytes one on tiny reads
            lines = _EOL.split(data)
            self._skip_lf = data.endswith(b"\r")
        elif 10 in data:
            lines = data.split(b"\n")
        else:
            self._pending += data
            return
        if self._pending:
            lines[0] = bytes(self._pending) + lines[0]
            self._pending.clear()
        self._pending += lines.pop()
        self._lines(lines, emit)

    def close(self) -> list[SSEEvent]:
        """End of stream: the unterminated line and the undispatched event are discarded."""
        self._pending.clear()
        self._data = []
        self._event = ""
        return []

    def _lines(self, lines: list[bytes], emit: Callable[[str, bytes], object]) -> None:
        data = self._data
        for line in lines:
            if not line:
                if data:
                    # Reset before emitting: emit may raise to end the stream.
                    self._data = []
                    event, self._event = self._event or "message", ""
                    emit(event, data[0] if len(data) == 1 else b"\n".join(data))
                    data = self._data
                else:
                    self._event = ""
                continue
            if line.startswith(b"data: "):
                data.append(line[6:])
                continue
            if line[0] == 0x3A:  # ':' comment
                continue
            name, colon, value = line.partition(b":")
            if colon and value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                data.append(value)
            elif name == b"event":
                self._event = value.decode("utf-8", "replace")
            elif name == b"id":
                if b"\x00" not in value:
                    self._last_id = value.decode("utf-8", "replace")
            elif name == b"retry":
                if value.isdigit():  # bytes.isdigit is ASCII digits only
                    self.retry = int(value)
