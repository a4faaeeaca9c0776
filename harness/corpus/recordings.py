"""The forms recorded HTTP traffic is kept in, each read into the response bodies it holds.

Theory of operation
-------------------

Test suites keep what a server sent in a handful of forms.  A file's form is
told from its bytes, not its name (openai-python's inline-snapshot bodies are
``<hash>.bin``; a cassette may be ``.yaml``, ``.json`` or gzipped), in the
order of :data:`FORMS`:

=================  ==============================================  ======================================
form               told by                                         bodies
=================  ==============================================  ======================================
gzip               the gzip magic bytes                            what it decompresses to, read again
HAR                one JSON object with ``log.entries``            each entry's ``response.content``
interactions       one JSON object with ``interactions`` (vcrpy's  each interaction's ``response.body``
(JSON)             JSON cassettes), or a JSON list of
                   ``{request, response}`` (anthropic-sdk-python's
                   inline-snapshot recordings)
a response (JSON)  one JSON object with a ``body`` and a           its ``body``
                   ``status`` or ``headers``
JSON lines         a JSON value on the first line                  one body of event datas (the AI SDK's
                                                                   ``*.chunks.txt``)
SSE body           a first line that is an SSE field or comment    the bytes as they are (openai-python's
                                                                   inline-snapshot ``*.bin``)
VCR (YAML)         ``interactions:`` or ``http_interactions:``     each interaction's ``response.body``
                   at the start of a line
=================  ==============================================  ======================================

A cassette or a HAR holds requests of every kind: only the responses that are
event streams (their ``Content-Type`` says ``text/event-stream``, or the body
begins as one) are bodies here; the others are counted as skipped.  A body
kept as base64 (``!!binary`` in YAML, HAR's ``encoding: base64``, Ruby VCR's
``base64_string``) or gzipped (``Content-Encoding: gzip``) is decoded.  What
cannot be read is one :class:`RecordingError` naming the file, where in it,
and why.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import zlib
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import orjson

__all__ = ["Body", "Line", "Recording", "RecordingError", "FORMS", "read_recording"]

#: The first bytes of a line of an SSE body: a field (WHATWG HTML, "Interpreting an event stream") or a comment.
_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


class RecordingError(ValueError):
    """A recording that cannot be read: the file, where in it, and why."""

    def __init__(self, source: str, where: str, message: str) -> None:
        self.source, self.where, self.message = source, where, message
        super().__init__(f"{source}: {where}: {message}" if where else f"{source}: {message}")


class Line(NamedTuple):
    """One recorded event: its data as parsed, and as the recording holds it (written back byte for byte)."""

    data: dict[str, Any]
    text: bytes


@dataclass(frozen=True)
class Body:
    """One response's body: an SSE body as the server sent it, or the event datas a recorder kept of it."""

    #: Where in its recording it is ("interaction 3", "entry 2"), or "" for a file that is one body.
    where: str
    sse: bytes | None = None
    events: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Recording:
    """What one file holds: its form, the bodies of its event streams, and how many other responses it holds."""

    source: str
    form: str
    bodies: tuple[Body, ...]
    skipped: int = 0


def read_recording(source: str, raw: bytes) -> Recording:
    """The event-stream bodies in the bytes of one recorded file, whichever form it is in."""
    for form, tells, read in FORMS:
        if tells(raw):
            return read(source, raw)
    raise RecordingError(source, "", "not a recording toolfuzz reads (JSON lines, an SSE body, a VCR cassette or a HAR)")


def _gzip(source: str, raw: bytes) -> Recording:
    try:
        inner = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise RecordingError(source, "", f"a broken gzip file: {e}") from None
    return read_recording(source, inner)


def _document(raw: bytes) -> Any:
    """The file as one JSON document, or None (JSON lines hold one document a line, and most files none)."""
    if not raw.lstrip().startswith((b"{", b"[")):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _is_har(raw: bytes) -> bool:
    document = _document(raw)
    return type(document) is dict and type(document.get("log")) is dict and "entries" in document["log"]


def _is_interactions(raw: bytes) -> bool:
    document = _document(raw)
    if type(document) is dict:
        return "interactions" in document or "http_interactions" in document
    return type(document) is list and bool(document) and all(type(i) is dict and "response" in i for i in document)


def _is_response(raw: bytes) -> bool:
    document = _document(raw)
    return type(document) is dict and "body" in document and ("status" in document or "headers" in document)


def _first_line(raw: bytes) -> bytes:
    for line in raw.splitlines():
        if line.strip():
            return line.lstrip()
    return b""


def _is_json_lines(raw: bytes) -> bool:
    return _first_line(raw).startswith((b"{", b"["))


def _is_sse(raw: bytes) -> bool:
    first = _first_line(raw)
    return first.startswith(_SSE_FIELDS) or first == b"data"


def _is_vcr_yaml(raw: bytes) -> bool:
    return any(line.startswith((b"interactions:", b"http_interactions:")) for line in raw.splitlines())


def _har(source: str, raw: bytes) -> Recording:
    entries = orjson.loads(raw)["log"]["entries"]
    if type(entries) is not list:
        raise RecordingError(source, "log.entries", "not a list")
    bodies, skipped = [], 0
    for n, entry in enumerate(entries, 1):
        where = f"log.entries[{n - 1}]"
        response = entry.get("response") if type(entry) is dict else None
        content = response.get("content") if type(response) is dict else None
        if type(content) is not dict or not isinstance(content.get("text"), str):
            skipped += 1
            continue
        text = content["text"].encode("utf-8")
        if content.get("encoding") == "base64":
            text = _base64(source, f"{where}.response.content.text", text)
        if _streams(str(content.get("mimeType", "")), text):
            bodies.append(Body(where=f"entry {n}", sse=text))
        else:
            skipped += 1
    return Recording(source, "HAR", tuple(bodies), skipped)


def _interactions(source: str, raw: bytes) -> Recording:
    document = orjson.loads(raw)
    return _cassette(source, "interactions (JSON)", {"interactions": document} if type(document) is list else document)


def _response(source: str, raw: bytes) -> Recording:
    return _cassette(source, "a response (JSON)", {"interactions": [{"response": orjson.loads(raw)}]})


def _vcr_yaml(source: str, raw: bytes) -> Recording:
    try:
        import yaml
    except ImportError:
        raise RecordingError(source, "", "a YAML cassette needs PyYAML: pip install 'toolfuzz[cassettes]'") from None
    try:
        document = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise RecordingError(source, where, f"not YAML: {getattr(e, 'problem', None) or e}") from None
    return _cassette(source, "VCR cassette (YAML)", document)


def _cassette(source: str, form: str, document: Any) -> Recording:
    # vcrpy writes `interactions`, Ruby's VCR (and its ports) `http_interactions`; go-vcr keeps a body as a string.
    key = "interactions" if type(document) is dict and "interactions" in document else "http_interactions"
    interactions = document.get(key) if type(document) is dict else None
    if type(interactions) is not list:
        raise RecordingError(source, key, "not a list of interactions")
    bodies, skipped = [], 0
    for n, interaction in enumerate(interactions, 1):
        response = interaction.get("response") if type(interaction) is dict else None
        if type(response) is not dict:
            raise RecordingError(source, f"{key}[{n - 1}]", "has no response")
        headers = _headers(response.get("headers"))
        text = _vcr_body(source, f"{key}[{n - 1}].response.body", response)
        if text is not None and "gzip" in headers.get("content-encoding", "") and text[:2] == b"\x1f\x8b":
            try:
                text = gzip.decompress(text)
            except (OSError, EOFError, zlib.error) as e:
                raise RecordingError(source, f"{key}[{n - 1}].response.body", f"a broken gzip body: {e}") from None
        if text is not None and _streams(headers.get("content-type", ""), text):
            bodies.append(Body(where=f"interaction {n}", sse=text))
        else:
            skipped += 1
    return Recording(source, form, tuple(bodies), skipped)


def _headers(headers: Any) -> dict[str, str]:
    """Header names in lower case, each with its values joined (cassettes keep a list of values per name)."""
    if type(headers) is not dict:
        return {}
    return {str(k).lower(): ", ".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in headers.items()}


def _vcr_body(source: str, where: str, response: dict[str, Any]) -> bytes | None:
    body = response.get("body")
    if body is None and isinstance(response.get("parsed_body"), str):
        body = response["parsed_body"]
    if isinstance(body, dict):
        if isinstance(body.get("base64_string"), str):
            return _base64(source, f"{where}.base64_string", body["base64_string"].encode())
        body = body.get("string")
    if isinstance(body, bytes):   # YAML's !!binary, already decoded from base64
        return body
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    return None


def _base64(source: str, where: str, text: bytes) -> bytes:
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError) as e:
        raise RecordingError(source, where, f"not base64: {e}") from None


def _streams(content_type: str, body: bytes) -> bool:
    return "text/event-stream" in content_type.lower() or _is_sse(body)


def _sse(source: str, raw: bytes) -> Recording:
    return Recording(source, "SSE body", (Body(where="", sse=raw),))


def _json_lines(source: str, raw: bytes) -> Recording:
    events = []
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            if not events and type(_document(raw)) in (dict, list):
                raise RecordingError(source, "", "a JSON document, but not a recording: no log.entries (HAR), "
                                     "no interactions (VCR), not one event per line") from None
            raise RecordingError(source, f"line {number}", f"not JSON at column {e.colno}: {e.msg}") from None
        if type(data) is not dict:
            raise RecordingError(source, f"line {number}", "an event's data is not a JSON object")
        events.append(Line(data, line.strip()))
    return Recording(source, "JSON lines", (Body(where="", events=tuple(events)),))


#: Each form: its name, how its bytes tell it, and its reader; asked in this order (a HAR or a JSON cassette is
#: one JSON document, which JSON lines would also take; YAML is last, as its marker may be anywhere in the file).
FORMS: tuple[tuple[str, Callable[[bytes], bool], Callable[[str, bytes], Recording]], ...] = (
    ("gzip", lambda raw: raw[:2] == b"\x1f\x8b", _gzip),
    ("HAR", _is_har, _har),
    ("interactions (JSON)", _is_interactions, _interactions),
    ("a response (JSON)", _is_response, _response),
    ("JSON lines", _is_json_lines, _json_lines),
    ("SSE body", _is_sse, _sse),
    ("VCR cassette (YAML)", _is_vcr_yaml, _vcr_yaml),
)
