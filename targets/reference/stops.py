"""How every dialect's reference ends a stream with an error code, and reads a payload orjson refuses.

The chat completions assembler (:mod:`assembler`) and the typed-event one
(:mod:`typed`) stop the same way: :class:`StreamStopped` carries the code
and message of the stream error, and a stream stopped by one of its bounds
(:data:`BOUND_ERRORS`) keeps nothing complete, since where a bound falls says
nothing about what the server meant.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.vocabulary import StreamError

__all__ = ["StreamStopped", "BOUND_ERRORS", "parse_slowly"]

#: The codes of the bounds fixed before the stream starts (``Limits``).
BOUND_ERRORS = frozenset({"too_many_events", "arguments_too_large", "stream_too_large"})


class StreamStopped(Exception):
    """Raised inside an assembler to end the stream with an error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.error = StreamError(code, message)


def parse_slowly(payload: bytes) -> Any:
    """A payload orjson refused, read again the lenient way; a stream stopped with ``bad_chunk`` if it is not JSON.

    orjson refuses lone surrogate escapes (servers slicing UTF-16 send them)
    and invalid UTF-8 (which SSE decodes to U+FFFD): both are still chunks.
    """
    try:
        return json.loads(payload.decode("utf-8", "replace"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise StreamStopped("bad_chunk", f"payload is not JSON: {payload[:120]!r}") from None


def _no_constant(token: str) -> Any:
    raise ValueError(token)
