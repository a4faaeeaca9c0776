"""openai-python's SSE decoder, the one every streamed response of the client goes through.

``openai-sse`` (sse): ``openai._streaming.SSEDecoder().iter_bytes()`` fed
the case's network reads exactly as cut, which is what ``Stream`` does with
``response.iter_bytes()`` (``OpenAI._make_sse_decoder()`` returns this
class).  The events are the decoder's own: a type of ``None`` is the spec's
``"message"`` and an id of ``None`` its ``""``.  Whatever it raises (a line
that is not UTF-8, say) is reported as raised: the client raises it too.

What the client then does with an event is the ``openai-client`` target's
business (bytes level): a data-less event the decoder dispatches reaches
``sse.json()`` there and fails the whole stream.
"""

from __future__ import annotations

from typing import Any

import openai
from openai._streaming import SSEDecoder

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "decode"]


def decode(reads: list[bytes]) -> list[dict[str, Any]]:
    """openai._streaming.SSEDecoder().iter_bytes() over the reads."""
    return [{"event": e.event, "data": e.data, "id": e.id} for e in SSEDecoder().iter_bytes(iter(reads))]


decode([b"data: x\n\n"])  # loads whatever the decoder loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="openai-sse", fn=decode, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS, version=openai.__version__,
           summary="openai._streaming.SSEDecoder().iter_bytes(), the decoder under every openai stream"),
)
