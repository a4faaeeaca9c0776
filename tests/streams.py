"""Builders for small chat.completion.chunk streams, and every one-cut split of a wire (tests/targets/reference/splits.py has the rest)."""

from __future__ import annotations

import json
from typing import Any, Iterator


def chunk(*entries: dict, choice: int = 0, finish: str | None = None, delta: dict | None = None) -> dict:
    d = dict(delta or {})
    if entries:
        d["tool_calls"] = list(entries)
    c: dict[str, Any] = {"index": choice, "delta": d}
    if finish is not None:
        c["finish_reason"] = finish
    return {"choices": [c]}


def head(index: int | None, call_id: str | None, name: str, arguments: str | None = "") -> dict:
    entry: dict[str, Any] = {"function": {"name": name}}
    if index is not None:
        entry["index"] = index
    if call_id is not None:
        entry["id"] = call_id
    if arguments is not None:
        entry["function"]["arguments"] = arguments
    return entry


def frag(index: int | None, text: str, **extra: Any) -> dict:
    entry: dict[str, Any] = {"function": {"arguments": text}, **extra}
    if index is not None:
        entry["index"] = index
    return entry


def sse(*payloads: dict | str, eol: str = "\n", done: bool = True) -> bytes:
    """Frame payloads as ``data:`` events; a str payload is sent as it is."""
    out = []
    for p in payloads:
        text = p if isinstance(p, str) else json.dumps(p, separators=(",", ":"), ensure_ascii=False)
        out.append(f"data: {text}{eol}{eol}")
    if done:
        out.append(f"data: [DONE]{eol}{eol}")
    return "".join(out).encode("utf-8")


def one_cut(wire: bytes) -> Iterator[list[bytes]]:
    for i in range(len(wire) + 1):
        yield [wire[:i], wire[i:]]
