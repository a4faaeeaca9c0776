"""Captured provider streams, read from the forms public test suites keep them in, as the wires a server sent.

Theory of operation
-------------------

A capture is what a real server sent, recorded once by somebody else's test
suite.  Two forms are read here:

* **JSON lines** (the AI SDK's ``*.chunks.txt``): one event's data per line,
  the SSE framing stripped.  The framing is put back as each dialect's server
  writes it: ``event: TYPE`` before each typed event (Responses and Anthropic
  name their events so), ``data: [DONE]`` after a chat stream.
* **SSE bodies**: the bytes as they came, kept as they are.

The dialect is told from the first event's data (:func:`dialect_of`).  One
recording may hold several responses in a row (a multi-step agent's turns):
an Anthropic ``message_start`` after a ``message_stop``, or a Responses
``response.created`` after a ``response.completed``, begins the next one, and
each is its own stream (:func:`streams_of`).  What cannot be read is one
:class:`CaptureError` naming the file, the line and why.

``toolfuzz corpus import`` writes each response as a fixture
(:func:`fixture_of`): its expected outcome is the reference's reading, which
tests/targets/reference/test_captures.py holds to what each recording's own
test suite reads from it, and ``found`` says where the recording came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from toolfuzz.corpus.fixtures import Fixture
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.targets.reference import assemble
from toolfuzz.vocabulary import Case

__all__ = ["Capture", "CaptureError", "Line", "CAPTURE_FILES", "capture_paths", "dialect_of", "fixture_of",
           "read_capture", "streams_of"]

#: The names of the recordings a folder is searched for.
CAPTURE_FILES = ("*.chunks.txt", "*.jsonl", "*.sse")

#: The event types that begin, and end, one response of each typed dialect.
_BOUNDS = {
    "anthropic": ("message_start", ("message_stop",)),
    "openai-responses": ("response.created", ("response.completed", "response.incomplete", "response.failed")),
}


class Line(NamedTuple):
    """One recorded event: its data as parsed, and as the recording holds it (written back byte for byte)."""

    data: dict[str, Any]
    text: bytes


class CaptureError(ValueError):
    """A capture that cannot be read: the file, where in it, and why."""

    def __init__(self, source: str, where: str, message: str) -> None:
        self.source, self.where, self.message = source, where, message
        super().__init__(f"{source}: {where}: {message}" if where else f"{source}: {message}")


@dataclass(frozen=True)
class Capture:
    """One response a real server sent: its dialect and its bytes, framed as the server frames them."""

    source: str
    dialect: str
    wire: bytes
    #: Which response of its recording it is (0 for the first).
    part: int = 0


def dialect_of(data: dict[str, Any]) -> str | None:
    """The dialect whose server writes an event with this data, or None when nothing in it says."""
    kind = data.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai-responses"
        if kind in ("message_start", "message_delta", "message_stop", "ping") or kind.startswith("content_block_"):
            return "anthropic"
    if data.get("object") == "chat.completion.chunk" or isinstance(data.get("choices"), list):
        return "openai-chat"
    return None


def read_capture(path: str | Path) -> list[Capture]:
    """Every response recorded in ``path`` (JSON lines, or an SSE body ending ``.sse``), each framed as sent."""
    path = Path(path)
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise CaptureError(source, "", e.strerror or str(e)) from None
    if path.suffix == ".sse":
        return [Capture(source, _sse_dialect(source, raw), raw)]
    return streams_of(source, _json_lines(source, raw))


def streams_of(source: str, events: list[Line]) -> list[Capture]:
    """The responses in a recording of event datas, each framed as its dialect's server frames it."""
    if not events:
        raise CaptureError(source, "", "holds no event")
    dialect = next((d for d in (dialect_of(e.data) for e in events) if d is not None), None)
    if dialect is None:
        raise CaptureError(source, "line 1", "no event says its dialect (a 'type', or a chat chunk's 'choices')")
    if dialect == "openai-chat":
        return [Capture(source, "openai-chat", b"".join(_data(e) for e in events) + b"data: [DONE]\n\n")]
    first, last = _BOUNDS[dialect]
    parts: list[list[Line]] = [[]]
    ended = False
    for event in events:
        kind = event.data.get("type")
        if ended and kind == first:
            parts.append([])
        parts[-1].append(event)
        ended = ended or kind in last
        if kind == first:
            ended = False
    return [Capture(source, dialect, b"".join(_typed(e) for e in part), n) for n, part in enumerate(parts)]


def _json_lines(source: str, raw: bytes) -> list[Line]:
    events = []
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise CaptureError(source, f"line {number}", f"not JSON at column {e.colno}: {e.msg}") from None
        if type(data) is not dict:
            raise CaptureError(source, f"line {number}", "an event's data is not a JSON object")
        events.append(Line(data, line.strip()))
    return events


def _sse_dialect(source: str, raw: bytes) -> str:
    for line in raw.splitlines():
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            try:
                data = orjson.loads(payload)
            except orjson.JSONDecodeError:
                continue
            if type(data) is dict and (dialect := dialect_of(data)) is not None:
                return dialect
    raise CaptureError(source, "", "no data line says its dialect")


def _data(event: Line) -> bytes:
    return b"data: " + event.text + b"\n\n"


def _typed(event: Line) -> bytes:
    kind = event.data.get("type")
    head = b"event: " + kind.encode() + b"\n" if isinstance(kind, str) else b""
    return head + _data(event)


def capture_paths(paths: list[str]) -> list[Path]:
    """Files and folders into the recordings they hold (:data:`CAPTURE_FILES`, sorted, recursively)."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(sorted({q for pattern in CAPTURE_FILES for q in p.rglob(pattern) if q.is_file()}))
        else:
            found.append(p)
    return found


def fixture_of(capture: Capture, provenance: dict[str, str] | None = None) -> Fixture:
    """The fixture of one captured response: the reference's reading as its expected outcome, events and all."""
    stem = Path(capture.source).name
    for suffix in (pattern.lstrip("*") for pattern in CAPTURE_FILES):
        stem = stem.removesuffix(suffix)
    case = Case(reads=(capture.wire,), expected=assemble([capture.wire], dialect=capture.dialect),
                dialect=capture.dialect)
    case = Case(reads=case.reads, expected=case.expected, dialect=case.dialect, events=expected_events(case))
    found = {"by": "import", "source": capture.source, "part": capture.part, **(provenance or {})}
    return Fixture(case=case, name=f"capture--{stem}--{capture.part}",
                   description="a response a real server sent, as recorded", found=found)
