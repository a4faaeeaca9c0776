"""httpx-sse, the SSE helper for httpx: ``EventSource(response).iter_sse()``.

``httpx-sse`` (sse): a real ``httpx.Response`` (``text/event-stream``, no
charset) whose body is the case's network reads exactly as cut, built in
process with no socket; ``iter_sse()`` reads it through ``iter_text()``
(httpx's incremental decoder) and httpx-sse's own line decoder, as
``connect_sse`` would.  Its events name the type ``"message"`` and the id
``""`` by default, as the spec does.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any, Iterator

import httpx
from httpx_sse import EventSource

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "decode"]


class _Reads(httpx.SyncByteStream):
    """The response body, delivered in exactly the case's network reads."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads


def decode(reads: list[bytes]) -> list[dict[str, Any]]:
    """httpx_sse.EventSource(httpx.Response(...)).iter_sse() over the reads."""
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Reads(reads))
    try:
        return [{"event": e.event, "data": e.data, "id": e.id} for e in EventSource(response).iter_sse()]
    finally:
        response.close()


decode([b"data: x\n\n"])  # loads whatever httpx loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="httpx-sse", fn=decode, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS,
           version=metadata.version("httpx-sse"),
           summary="httpx_sse.EventSource(response).iter_sse() over an in-process httpx.Response"),
)
