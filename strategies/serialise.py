"""The same value written as JSON text in the ways real servers write it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import orjson

from toolfuzz.strategies.stage import allows, pick, stage

__all__ = ["SERIALISERS", "Serialiser", "serialisers_for", "serialisations"]


@dataclass(frozen=True)
class Serialiser:
    name: str
    write: Callable[[Any], str]

    def can_write(self, value: Any) -> bool:
        return self.name != "orjson" or not _has_big_int(value)


def _has_big_int(value: Any) -> bool:
    # orjson refuses integers outside 64 bits rather than writing them.
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is int and not -(2**63) <= v < 2**64:
            return True
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


#: In shrink order: the first is what a plain OpenAI stream carries.
SERIALISERS = (
    Serialiser("compact", lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))),
    Serialiser("spaced", lambda v: json.dumps(v, ensure_ascii=False)),
    Serialiser("ascii-compact", lambda v: json.dumps(v, separators=(",", ":"))),
    Serialiser("ascii-spaced", lambda v: json.dumps(v)),
    Serialiser("orjson", lambda v: orjson.dumps(v).decode("utf-8")),
    Serialiser("pretty", lambda v: json.dumps(v, ensure_ascii=False, indent=2)),
    # White space around the text is still one JSON text, and lands on fragment edges.
    Serialiser("padded", lambda v: " " + json.dumps(v, ensure_ascii=False, separators=(",", ":")) + "\n"),
)


def serialisers_for(value: Any) -> tuple[Serialiser, ...]:
    return tuple(s for s in SERIALISERS if s.can_write(value))


@stage
def serialisations(draw: Any, value: Any, ascii_only: bool | None = None) -> str:
    """One JSON text for ``value``; ``ascii_only`` forces (True) or forbids (False) \\u escapes."""
    choices = serialisers_for(value)
    if not allows("padded-json"):
        choices = tuple(s for s in choices if s.name != "padded")
    if ascii_only is not None:
        choices = tuple(s for s in choices if s.name.startswith("ascii") == ascii_only)
    return pick(draw, choices).write(value)
