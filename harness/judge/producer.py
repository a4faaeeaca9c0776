"""A producer-level target's answer, read as a client reads it: its deltas assembled by the reference.

A serving engine's parser says what its server would stream as
``delta.tool_calls`` entries (``toolfuzz.targets.base`` has the answer's
shape).  Nothing about a parser's calls is taken from the parser itself:
its entries are framed as the chat chunks its server sends, followed by the
``tool_calls`` finish and ``[DONE]`` that end a response with calls, and
assembled by the reference assembler, the same rules every assembler is
judged by.  So a parser that sends a name twice for one index, or an id
only on a later entry, shows as the calls a client would end up with.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz.targets.reference import assemble

__all__ = ["answer_of", "assembled"]


def answer_of(result: Any) -> tuple[str, list[dict[str, Any]], str, list[dict[str, Any]]]:
    """``(content, deltas, whole content, whole calls)`` of a producer's answer; ValueError naming what is wrong."""
    if not isinstance(result, dict):
        raise ValueError(f"a producer returns an object with content, deltas and whole, not {type(result).__name__}")
    content, deltas, whole = result.get("content"), result.get("deltas"), result.get("whole")
    if not isinstance(content, str):
        raise ValueError("the answer's content must be a string")
    if not isinstance(deltas, list) or not all(isinstance(d, dict) for d in deltas):
        raise ValueError("the answer's deltas must be a list of objects (delta.tool_calls entries)")
    if not isinstance(whole, dict) or not isinstance(whole.get("content"), str) or not isinstance(
            whole.get("calls"), list):
        raise ValueError("the answer's whole must be an object with content (a string) and calls (a list)")
    calls = whole["calls"]
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), (str, type(None))) or not isinstance(
                call.get("arguments"), (str, type(None))):
            raise ValueError(f"whole.calls[{i}] must be an object with name and arguments (strings)")
    return content, deltas, whole["content"], calls


def assembled(deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls a client assembles from ``deltas``: the reference over the chat stream they make."""
    lines = []
    for entry in deltas:
        chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}
        lines.append(b"data: " + json.dumps(chunk, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n\n")
    finish = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    lines.append(b"data: " + json.dumps(finish).encode() + b"\n\ndata: [DONE]\n\n")
    outcome = assemble([b"".join(lines)])
    return [{"index": c.index, "id": c.id, "name": c.name, "arguments": c.arguments} for c in outcome.calls]
