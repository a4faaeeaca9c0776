"""Captured provider streams, read from the recordings public test suites keep, as the wires a server sent.

Theory of operation
-------------------

A capture is what a real server sent, recorded once by somebody else's test
suite.  :mod:`toolfuzz.corpus.recordings` reads a file, in whichever form it
is kept (JSON lines, an SSE body, a VCR cassette, a HAR), into the bodies of
the event streams it holds; here each body becomes the responses it carries:

* **an SSE body** is one response, its bytes kept as they came;
* **JSON lines** (the AI SDK's ``*.chunks.txt``) are event datas with the SSE
  framing stripped.  The framing is put back as each dialect's server writes
  it: ``event: TYPE`` before each typed event (Responses and Anthropic name
  their events so), ``data: [DONE]`` after a chat stream.  Such a recording
  may hold several responses in a row (a multi-step agent's turns): an
  Anthropic ``message_start`` after a ``message_stop``, or a Responses
  ``response.created`` after a ``response.completed``, begins the next one,
  and each is its own stream (:func:`streams_of`).

The dialect is told from the events' data (:func:`dialect_of`).  A body whose
dialect cannot be told (Gemini's or Bedrock's, say) is named as unread and the
file's other bodies are still read (:func:`capture_file`).

``toolfuzz corpus import`` writes each response as a fixture
(:func:`fixture_of`): its expected outcome is the reference's reading, which
tests/targets/reference/test_captures.py holds to what each recording's own
test suite reads from it, and ``found`` says where the recording came from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from toolfuzz.corpus.fixtures import Fixture
from toolfuzz.corpus.recordings import Body, Line, RecordingError, read_recording
from toolfuzz.strategies.shapes import shapes_of
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.severity import SERVERS
from toolfuzz.targets.reference import assemble
from toolfuzz.vocabulary import Case

__all__ = ["Capture", "Captured", "CAPTURE_FILES", "capture_features", "capture_file", "capture_paths", "dialect_of",
           "fixture_of",
           "read_capture", "streams_of"]

#: The names of the recordings a folder is searched for.
CAPTURE_FILES = ("*.chunks.txt", "*.txt", "*.jsonl", "*.sse", "*.bin", "*.yaml", "*.yml", "*.yaml.gz", "*.json", "*.har")

#: The event types that begin, and end, one response of each typed dialect.
_BOUNDS = {
    "anthropic": ("message_start", ("message_stop",)),
    "openai-responses": ("response.created", ("response.completed", "response.incomplete", "response.failed")),
}


@dataclass(frozen=True)
class Capture:
    """One response a real server sent: its dialect and its bytes, framed as the server frames them."""

    source: str
    dialect: str
    wire: bytes
    #: Which response of its recording it is (0 for the first).
    part: int = 0
    #: Where in its recording its body is ("interaction 3"), or "" for a file that is one body.
    where: str = ""


@dataclass(frozen=True)
class Captured:
    """What one recorded file gives: its form, its responses, what in it could not be read, what is no stream."""

    source: str
    form: str
    captures: tuple[Capture, ...]
    unread: tuple[RecordingError, ...] = ()
    #: Responses of the recording that are no event stream (a cassette's other requests).
    skipped: int = 0


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


def capture_file(path: str | Path) -> Captured:
    """Every response recorded in ``path``, each framed as sent; a file that cannot be read at all raises."""
    path = Path(path)
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise RecordingError(source, "", e.strerror or str(e)) from None
    recording = read_recording(source, raw)
    captures: list[Capture] = []
    unread: list[RecordingError] = []
    for body in recording.bodies:
        try:
            found = _responses(source, body)
        except RecordingError as e:
            unread.append(e)
            continue
        first = len(captures)
        captures.extend(Capture(c.source, c.dialect, c.wire, first + n, body.where) for n, c in enumerate(found))
    if not captures and not unread:
        raise RecordingError(source, "", f"a {recording.form} holding no event stream "
                             f"({recording.skipped} other response{'s' * (recording.skipped != 1)})")
    return Captured(source, recording.form, tuple(captures), tuple(unread), recording.skipped)


def read_capture(path: str | Path) -> list[Capture]:
    """Every response recorded in ``path``; the first body that cannot be read raises."""
    captured = capture_file(path)
    if captured.unread:
        raise captured.unread[0]
    return list(captured.captures)


def _responses(source: str, body: Body) -> list[Capture]:
    if body.sse is not None:
        return [Capture(source, _sse_dialect(source, body.where, body.sse), body.sse)]
    return streams_of(source, list(body.events))


def streams_of(source: str, events: list[Line]) -> list[Capture]:
    """The responses in a recording of event datas, each framed as its dialect's server frames it."""
    if not events:
        raise RecordingError(source, "", "holds no event")
    dialect = next((d for d in (dialect_of(e.data) for e in events) if d is not None), None)
    if dialect is None:
        raise RecordingError(source, "line 1", "no event says its dialect (a 'type', or a chat chunk's 'choices')")
    if dialect == "openai-chat":
        return [Capture(source, dialect, b"".join(_data(e) for e in part) + b"data: [DONE]\n\n", n)
                for n, part in enumerate(_chat_responses(events))]
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


def _chat_responses(events: list[Line]) -> list[list[Line]]:
    """A chat recording split where a chunk of another completion ``id`` follows one with a finish reason: a
    recorder that kept an agent's steps in one file (vercel/ai's cerebras fixture holds two completions)."""
    parts: list[list[Line]] = [[]]
    finished, current = False, None
    for event in events:
        chunk_id = event.data.get("id")
        if finished and chunk_id is not None and chunk_id != current:
            parts.append([])
            finished = False
        current = chunk_id if chunk_id is not None else current
        parts[-1].append(event)
        choices = event.data.get("choices")
        finished = finished or (isinstance(choices, list)
                                and any(type(c) is dict and c.get("finish_reason") for c in choices))
    return parts


def _sse_dialect(source: str, where: str, raw: bytes) -> str:
    for line in raw.splitlines():
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            try:
                data = orjson.loads(payload)
            except orjson.JSONDecodeError:
                continue
            if type(data) is dict and (dialect := dialect_of(data)) is not None:
                return dialect
    raise RecordingError(source, where, "no data line says its dialect (openai-chat, openai-responses or anthropic)")


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


def capture_features(capture: Capture, server: str = "", ambiguous: bool = False) -> tuple[str, ...]:
    """A captured response's features: its dialect's documented shape, the shapes it shows
    (:func:`toolfuzz.strategies.shapes.shapes_of`), who sent it (``captured-SERVER``, which grading takes as that
    server seen sending each of them; ``captured`` when nobody says), and ``captured-ambiguous`` where the
    contract reads it by a choice of its own (toolfuzz.strategies.features)."""
    if server and server not in SERVERS:
        raise ValueError(f"unknown server {server!r}: one of {', '.join(sorted(SERVERS))}")
    return tuple(sorted({_PLAIN[capture.dialect], f"captured-{server}" if server else "captured",
                         *shapes_of(capture.wire, capture.dialect), *(("captured-ambiguous",) if ambiguous else ())}))


#: Each dialect's documented shape, a feature of every case of it (the strategies' own name for it).
_PLAIN = {"openai-chat": "openai", "openai-responses": "responses", "anthropic": "anthropic"}


def fixture_of(capture: Capture, provenance: dict[str, str] | None = None,
               features: tuple[str, ...] | None = None) -> Fixture:
    """The fixture of one captured response: the reference's reading as its expected outcome, events and all."""
    stem = Path(capture.source).name
    for suffix in (pattern.lstrip("*") for pattern in CAPTURE_FILES):
        stem = stem.removesuffix(suffix)
    case = Case(reads=(capture.wire,), expected=assemble([capture.wire], dialect=capture.dialect),
                dialect=capture.dialect,
                features=capture_features(capture) if features is None else tuple(sorted(features)))
    case = replace(case, events=expected_events(case))
    found = {"by": "import", "source": capture.source, "part": capture.part,
             **({"where": capture.where} if capture.where else {}), **(provenance or {})}
    return Fixture(case=case, name=f"capture--{stem}--{capture.part}",
                   description="a response a real server sent, as recorded", found=found)
