"""SSE framing: payloads written as the bytes of an event stream, in the variants servers use.

The result records, for every payload, the data the decoder will dispatch
and the wire offset after which it has been dispatched.  With LF framing
that is the end of the closing blank line; with CRLF it is one byte
earlier, because a CR alone already ends the blank line.  An event whose
closing blank line is missing is never dispatched (offset ``None``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

import orjson

from toolfuzz.strategies.stage import allows, boolean, integer, pick, stage

__all__ = ["Framed", "FramedEvent", "Payload", "framings", "write_payload", "json_whitespace", "EOLS"]

EOLS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Payload:
    """One event's content: a JSON value to serialise, or raw text (``[DONE]``, junk)."""

    body: Any
    event: str | None = None  # an SSE event type; "error" makes it a server error

    @property
    def raw(self) -> bool:
        return isinstance(self.body, str)


@dataclass(frozen=True)
class FramedEvent:
    payload: int
    text: str  # the payload as serialised, before any data-line split
    data: bytes  # what the decoder dispatches: the data lines joined with LF
    start: int
    end: int
    dispatch_at: int | None
    #: The last event id when the event is dispatched: ids persist across events.
    last_id: str = ""


@dataclass(frozen=True)
class Framed:
    wire: bytes
    events: tuple[FramedEvent, ...]
    features: tuple[str, ...]


def _escape_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


#: Payload writers, plainest first.
_WRITERS = ("compact", "spaced", "ascii", "orjson")


# Made once: json.dumps builds an encoder on every call that passes options, a few per cent of a case.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_SPACED = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def write_payload(body: Any, writer: str) -> str:
    if isinstance(body, str):
        return body
    if writer == "orjson":
        try:
            return orjson.dumps(body).decode("utf-8")
        except TypeError:  # lone surrogates (utf16-halves): orjson refuses them
            writer = "compact"
    if writer == "ascii":
        return json.dumps(body)
    text = (_COMPACT if writer == "compact" else _SPACED).encode(body)
    # A lone surrogate cannot be UTF-8: write it as the escape a server sends.
    return _escape_surrogates(text) if _LONE_SURROGATE.search(text) else text


#: A JSON string token, or a space: a space matched here is outside every string.
_STRING_OR_SPACE = re.compile(r'"(?:[^"\\]|\\.)*"| ', re.DOTALL)


def json_whitespace(text: str) -> list[int]:
    """Offsets of spaces outside strings: where a payload may be split over data lines."""
    if " " not in text:
        return []
    return [m.start() for m in _STRING_OR_SPACE.finditer(text) if m.end() - m.start() == 1 and text[m.start()] == " "]


@stage
def framings(draw: Any, payloads: Sequence[Payload], allow_unterminated: bool = True) -> Framed:
    """The wire for ``payloads``; shrinks toward LF, ``data: `` and nothing else."""
    eol_name = pick(draw, list(EOLS))
    if not allows(eol_name):
        eol_name = "lf"
    eol = EOLS[eol_name]
    bom = integer(draw, 0, 7) == 7 and allows("bom")
    no_space = integer(draw, 0, 5) == 5 and allows("no-space")
    writer = pick(draw, _WRITERS)
    comments = integer(draw, 0, 5) == 5 and allows("comments")
    fields = integer(draw, 0, 5) == 5 and allows("sse-fields")
    multiline = integer(draw, 0, 5) == 5 and allows("multiline-data")
    unterminated = allow_unterminated and integer(draw, 0, 11) == 11 and allows("unterminated-event")
    if multiline and writer in ("compact", "orjson"):
        writer = "spaced"  # compact JSON has no white space to split at
    features = {eol_name}
    out: list[bytes] = []
    at = 0

    def put(text: str) -> None:
        nonlocal at
        b = text.encode("utf-8")
        out.append(b)
        at += len(b)

    if bom:
        put("\ufeff")
        features.add("bom")
    events = []
    last_id = ""
    for k, payload in enumerate(payloads):
        if comments and boolean(draw):
            # a comment block on its own: a blank line with no data dispatches nothing
            put(pick(draw, [": OPENROUTER PROCESSING", ":", ": ping - 2024-01-01 00:00:00"]) + eol + eol)
            features.add("comments")
        start = at
        text = write_payload(payload.body, writer)
        lines = []
        if fields and boolean(draw):
            lines.append(pick(draw, ["id: 7", "retry: 3000", "event: message", "id:", "retry: soon"]))
            features.add("sse-fields")
            if lines[-1].startswith("id:"):
                last_id = lines[-1][3:].removeprefix(" ")
        if comments and boolean(draw):
            lines.append(": keep-alive")
            features.add("comments")
        if payload.event is not None:
            lines.append(f"event: {payload.event}")
        segments = [text]
        if multiline and not payload.raw:
            spaces = json_whitespace(text)
            if spaces:
                chosen = sorted({pick(draw, spaces) for _ in range(integer(draw, 1, 4))})
                bounds = [-1, *chosen, len(text)]
                segments = [text[a + 1:b] for a, b in zip(bounds, bounds[1:])]
                features.add("multiline-data")
        for seg in segments:
            sep = "" if no_space and not seg.startswith(" ") else " "
            lines.append("data:" + sep + seg)
        if no_space:
            features.add("no-space")
        put("".join(line + eol for line in lines))
        last = unterminated and k == len(payloads) - 1
        if last:
            dispatch_at = None
            features.add("unterminated-event")
        else:
            dispatch_at = at + 1
            put(eol)
        data = "\n".join(segments).encode("utf-8")
        events.append(FramedEvent(k, text, data, start, at, dispatch_at, last_id))
    return Framed(b"".join(out), tuple(events), tuple(sorted(features)))
