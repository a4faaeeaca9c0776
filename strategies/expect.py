"""The outcome a stream must have, read off what was generated.

Nothing here parses chunks or SSE: the framing stage says which payloads
are dispatched before the wire ends, and each payload lists the steps it
carries.  The statuses of finished calls follow the contract: parse the
joined arguments (empty or white space is ``{}``), then name, then schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from toolfuzz.vocabulary import (
    COMPLETE,
    COMPLETING,
    INCOMPLETE,
    INVALID_JSON,
    SCHEMA_INVALID,
    UNKNOWN_TOOL,
    Call,
    Outcome,
    StreamError,
    Tool,
)
from toolfuzz.strategies.arguments import validator
from toolfuzz.strategies.fragments import cut_offsets, join_fragments
from toolfuzz.strategies.plan import Step

__all__ = ["Sent", "expected_outcome", "verdict", "parses"]

_WS = " \t\n\r"


@dataclass(frozen=True)
class Sent:
    """One dispatched payload as the expectation sees it."""

    kind: str  # "chunk", "done", "error", "other"
    steps: tuple[Step, ...] = ()
    error: StreamError | None = None


def _reject(token: str) -> Any:
    raise ValueError(token)


def parses(text: str) -> bool:
    if not text.strip(_WS):
        return True
    try:
        json.loads(text, parse_constant=_reject)
    except (ValueError, RecursionError):
        return False
    return True


_validators: dict[str, Any] = {}
_by_identity: dict[int, tuple[Any, Any]] = {}


def verdict(name: str | None, arguments: str, tools: Sequence[Tool]) -> str:
    if not parses(arguments):
        return INVALID_JSON
    if not tools:
        return COMPLETE
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        return UNKNOWN_TOOL
    # Known by the schema's identity first: writing the schema out as a key costs more than the check.
    known = _by_identity.get(id(tool.parameters))
    if known is not None and known[0] is tool.parameters:
        check = known[1]
    else:
        key = json.dumps(tool.parameters, sort_keys=True)
        check = _validators.get(key)
        if check is None:
            check = _validators[key] = validator(tool.parameters)
        if len(_by_identity) < 4096:
            _by_identity[id(tool.parameters)] = (tool.parameters, check)
    value = json.loads(arguments, parse_constant=_reject) if arguments.strip(_WS) else {}
    return COMPLETE if check.is_valid(value) else SCHEMA_INVALID


@dataclass
class _Open:
    choice: int
    index: int
    id: str | None = None
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    indexed: bool = True


def expected_outcome(dispatched: Iterable[Sent], indexes: dict[int, int], tools: Sequence[Tool]) -> Outcome:
    """``indexes`` maps a planned call's number to the index the outcome gives it."""
    calls: dict[int, _Open] = {}
    finished: dict[int, str] = {}
    error = None
    for sent in dispatched:
        if sent.kind == "done":
            break
        if sent.kind == "error":
            error = sent.error
            break
        for s in sent.steps:
            if s.kind == "entry":
                c = calls.get(s.call)
                if c is None:
                    # A call whose entries carry no index is numbered by its position: the wire never said so.
                    c = calls[s.call] = _Open(s.choice, indexes[s.call],
                                              indexed=isinstance((s.entry or {}).get("index"), int))
                if c.id is None:
                    c.id = s.id
                if c.name is None:
                    c.name = s.name
                if s.arguments:
                    c.parts.append(s.arguments)
            if s.reason is not None:
                finished.setdefault(s.choice, s.reason)
    out = []
    for c in calls.values():
        arguments = join_fragments(c.parts)
        if finished.get(c.choice) in COMPLETING["openai-chat"]:
            status = verdict(c.name, arguments, tools)
        else:
            status = INCOMPLETE
        out.append(Call(c.choice, c.index, c.id, c.name, arguments, status, cut_offsets(c.parts), c.indexed))
    return Outcome(tuple(out), error)
