"""Hand-written event streams for the Responses and Anthropic tests: framing, and every way to cut them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import Phase, settings

from toolfuzz.vocabulary import Limits, Outcome, Tool
from toolfuzz.targets.reference import assemble


def whole_characters(wire: bytes) -> bool:
    """Whether ``wire`` ends at a character's end: a disconnect may cut one, which an SDK's decoder raises on."""
    try:
        wire.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def wire(*events: dict[str, Any] | bytes, eol: str = "\n") -> bytes:
    """Each event as ``event: <type>`` and one data line; raw bytes are written as they are."""
    out = []
    for e in events:
        if isinstance(e, bytes):
            out.append(e)
        else:
            data = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
            out.append(f"event: {e.get('type', 'message')}{eol}data: {data}{eol}{eol}".encode())
    return b"".join(out)


def assert_every_cut(stream: bytes, expected: Outcome, dialect: str, tools: tuple[Tool, ...] = (),
                     limits: Limits = Limits()) -> None:
    """The outcome is ``expected`` read whole, a byte at a time, and cut once at every offset."""
    splits = [[stream], [stream[i:i + 1] for i in range(len(stream))],
              *([stream[:i], stream[i:]] for i in range(len(stream) + 1))]
    for reads in splits:
        got = assemble(reads, tools, limits, dialect)
        if got != expected:
            cuts = [sum(map(len, reads[:k])) for k in range(1, len(reads))]
            raise AssertionError(f"cuts at {cuts[:10]} gave\n{got}\nexpected\n{expected}")


#: find() without the explain phase, which replays each shrunk case many times and teaches nothing here.
QUICK = settings(database=None, max_examples=1000, phases=[Phase.generate, Phase.shrink])
#: One small tool: the find() tests shrink their cases, which is cheap only with small arguments.
SMALL = [Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string", "maxLength": 8}},
                              "required": ["city"], "additionalProperties": False})]
