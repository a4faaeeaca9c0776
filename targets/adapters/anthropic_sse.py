"""anthropic-sdk-python's SSE decoder, the one under ``Anthropic().messages.stream()``.

``anthropic-sse`` (sse): ``anthropic._streaming.SSEDecoder().iter_bytes()``
fed the case's network reads exactly as cut, as ``Stream._iter_events`` does
with ``response.iter_bytes()``.  Unlike openai's, this decoder first gathers
a block of lines up to one of three blank-line endings, then splits the
block, so where a read is cut can matter.  A type of ``None`` is the spec's
``"message"``, an id of ``None`` its ``""``; whatever it raises is raised.

The client's ``Stream`` then drops events with no type or no data, so some
of what this decoder gets wrong never reaches a user; what it loses does.
"""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic._streaming import SSEDecoder

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "decode"]


def decode(reads: list[bytes]) -> list[dict[str, Any]]:
    """anthropic._streaming.SSEDecoder().iter_bytes() over the reads."""
    return [{"event": e.event, "data": e.data, "id": e.id} for e in SSEDecoder().iter_bytes(iter(reads))]


decode([b"data: x\n\n"])  # loads whatever the decoder loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="anthropic-sse", fn=decode, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS,
           version=anthropic.__version__,
           summary="anthropic._streaming.SSEDecoder().iter_bytes(), the decoder under every anthropic stream"),
)
