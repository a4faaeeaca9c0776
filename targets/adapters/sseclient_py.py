"""sseclient-py, the small SSE client for requests/urllib3 responses: ``SSEClient(source).events()``.

``sseclient-py`` (sse): ``sseclient.SSEClient`` over an iterator of the
case's network reads exactly as cut, which is how it iterates a urllib3
response.  It starts a fresh event for every block of lines, so an event's
``id`` is ``None`` unless that block set it (the spec keeps the last one);
``None`` is read as the spec's ``""``.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from sseclient import SSEClient

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "decode"]


def decode(reads: list[bytes]) -> list[dict[str, Any]]:
    """sseclient.SSEClient(iter(reads)).events()."""
    return [{"event": e.event, "data": e.data, "id": e.id} for e in SSEClient(iter(reads)).events()]


decode([b"data: x\n\n"])  # loads whatever the client loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="sseclient-py", fn=decode, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS,
           version=metadata.version("sseclient-py"),
           summary="sseclient.SSEClient(iter(reads)).events(), as over a urllib3 response"),
)
