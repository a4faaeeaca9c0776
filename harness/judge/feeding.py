"""What an events-level target is fed: each event's payload, known by construction, parsed afresh."""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.vocabulary import END_OF_STREAM, Case, exact_json
from toolfuzz.judge.compare_events import expected_events

__all__ = ["chunks_of", "parse_chunks"]


def chunks_of(case: Case) -> list[bytes]:
    """The data payloads of the case's events, up to ``[DONE]`` in chat streams: what an events-level target is fed.

    The events are the ones known by construction (:func:`expected_events`),
    never the wire decoded again, so that no contestant's decoder decides
    what the others are fed.  Each payload is parsed afresh for each target,
    so that no target sees another's mutations.  The event dialects have no
    ``[DONE]``, and their ``event:`` name is also the data's ``type``: every
    payload is handed on, pings and errors included.
    """
    payloads: list[bytes] = []
    done = END_OF_STREAM.get(case.dialect)
    for event in expected_events(case):
        if event.data == done:
            break
        if event.data.strip(_ASCII_SPACE):  # the whitespace bytes.strip() knows: a blank payload is a keep-alive
            payloads.append(event.data.encode("utf-8", "surrogatepass"))
    return payloads


_ASCII_SPACE = " \t\n\r\x0b\x0c"


def parse_chunks(payloads: list[bytes]) -> list[dict[str, Any]]:
    """The chunks an events-level target is fed: each payload parsed afresh, up to the first undecodable one."""
    chunks = []
    for p in payloads:
        try:
            chunk = exact_json(p)
        except ValueError:
            try:
                chunk = json.loads(p.decode("utf-8", "replace"))
            except ValueError:
                break  # the stream ends at an undecodable chunk
        if not isinstance(chunk, dict):
            break
        chunks.append(chunk)
    return chunks
