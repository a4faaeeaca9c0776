"""What a stream is made of before it is written: planned calls and the steps that carry them.

A **planned call** is one tool call as the model meant it: its choice, its
position in the choice, the index the outcome gives it, its id and name,
its arguments text and the fragments that text is sent in.  A **step** is
one thing a chunk says about one choice: a tool-call entry, a finish
reason, a role or some text.  Chunks are groups of steps; the expected
outcome is read off the steps that reach the assembler.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from toolfuzz.vocabulary import Tool

__all__ = ["PlannedCall", "Step", "id_text", "make_id", "ID_STYLES", "entry_steps", "expected_index",
           "allows_interleaving"]

#: Id formats seen in the wild (OpenAI's, vLLM's chatcmpl-tool-..., Mistral's nine characters, Anthropic's
#: toolu_...), the plainest first.
ID_STYLES = ("call_{n}", "call_{h24}", "chatcmpl-tool-{h32}", "{a9}", "toolu_{h24}")


def make_id(style: str, n: int) -> str:
    digest = hashlib.sha1(f"toolfuzz-{n}".encode()).hexdigest()
    return style.format(n=n, h24=digest[:24], h32=digest[:32], a9=digest[-9:].upper())


@dataclass
class PlannedCall:
    number: int  # unique in the case, in planning order
    choice: int
    position: int  # order of opening within its choice
    tool: Tool
    name: str  # the name sent; not a tool's name for the unknown-tool ending
    id: str | int | None  # the id sent; None when the server sends none
    value: Any  # the arguments value before any corruption
    text: str  # the arguments text the model wrote
    fragments: list[str]  # the pieces sent (UTF-16 halves split under utf16-halves)
    defect: str | None = None


@dataclass
class Step:
    choice: int
    kind: str  # "entry", "finish", "role", "text"
    call: int | None = None
    entry: dict[str, Any] | None = None
    arguments: str | None = None
    id: str | None = None  # as the contract reads it: "" is absent, integers are text
    name: str | None = None
    reason: str | None = None
    content: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def id_text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def expected_index(position: int, active: frozenset[str]) -> int:
    if "index-zero" in active:
        return 0
    if "index-from-one" in active:
        return position + 1
    return position


def allows_interleaving(active: frozenset[str]) -> bool:
    # Without distinct indexes a continuation can only extend the latest call.
    return not active & {"index-missing", "index-null", "index-zero"}


def _index(entry: dict[str, Any], call: PlannedCall, active: frozenset[str]) -> None:
    if "index-missing" in active:
        return
    if "index-null" in active:
        entry["index"] = None
        return
    entry["index"] = expected_index(call.position, active)


def entry_steps(call: PlannedCall, active: frozenset[str], fresh_id: Any) -> list[Step]:
    """The tool-call entries that carry ``call`` in the shape the active profiles describe."""
    nulls = "explicit-nulls" in active
    steps = []

    def step(entry: dict[str, Any], arguments: str | None) -> Step:
        fn = entry.get("function") or {}
        return Step(call.choice, "entry", call=call.number, entry=entry, arguments=arguments,
                    id=id_text(entry.get("id")), name=fn.get("name") or None)

    header: dict[str, Any] = {}
    _index(header, call, active)
    sent_id: Any = "" if call.id is None else call.id
    if "no-first-id" in active:
        if "empty-id" in active:
            header["id"] = ""
        elif nulls:
            header["id"] = None
    else:
        header["id"] = sent_id
    header["type"] = "function"
    function: dict[str, Any] = {"name": call.name}
    if "whole-call" in active:
        function["arguments"] = "".join(call.fragments)
        header["function"] = function
        return [step(header, function["arguments"])]
    if "no-arguments-key" not in active:
        function["arguments"] = ""
    elif nulls:
        function["arguments"] = None
    header["function"] = function
    steps.append(step(header, function.get("arguments")))
    for j, piece in enumerate(call.fragments):
        entry: dict[str, Any] = {}
        _index(entry, call, active)
        if j == 0 and "no-first-id" in active and call.id is not None:
            entry["id"] = call.id
        elif "id-every-fragment" in active:
            entry["id"] = sent_id
        elif "new-id-continuations" in active:
            entry["id"] = fresh_id()
        elif "empty-id" in active:
            entry["id"] = ""
        elif nulls:
            entry["id"] = None
        if nulls:
            entry["type"] = None
        fn: dict[str, Any] = {}
        if "name-every-fragment" in active:
            fn["name"] = call.name
        elif "empty-name-continuations" in active:
            fn["name"] = ""
        elif nulls:
            fn["name"] = None
        fn["arguments"] = piece
        entry["function"] = fn
        steps.append(step(entry, piece))
    return steps
