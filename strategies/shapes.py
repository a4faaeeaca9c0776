"""The shapes a real stream shows, named as the strategies name the ones they draw.

Theory of operation
-------------------

A captured response is a case like any other, and its features are what its
findings are graded on and folded by: a finding on a capture whose features
hold all of a known root cause's is that root cause, met on a real server.
So each capture is read for the shapes the strategies draw
(:mod:`toolfuzz.strategies.profiles`, :mod:`toolfuzz.strategies.features`),
each by one test in :data:`DETECTORS`, over the stream's parsed events:

* SSE framing, from the bytes: CRLF lines, ``data:`` without its space,
  comments, ``id:``/``retry:`` fields, a last event with no blank line after
  it (``unterminated-event``);
* each dialect's call shapes, from the events' data: an entry without an
  index, an id or a name repeated on every fragment, a call whole in one
  entry, a message whole in ``message_start``, ...

Only shapes a test is written for are told; a stream may show others, which
then go unnamed (a finding on one of them is graded on what is named, never
on more).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

import orjson

__all__ = ["DETECTORS", "shapes_of"]

Events = list[dict[str, Any]]


def _data(wire: bytes) -> Events:
    out = []
    for line in wire.splitlines():
        if line.startswith(b"data:"):
            try:
                data = orjson.loads(line[5:].strip())
            except orjson.JSONDecodeError:
                continue
            if type(data) is dict:
                out.append(data)
    return out


def _entries(events: Events) -> dict[tuple[int, Any], list[dict[str, Any]]]:
    """Each chat call's tool_calls entries in order, by (choice, index); an entry with no index keys by None."""
    calls: dict[tuple[int, Any], list[dict[str, Any]]] = defaultdict(list)
    for chunk in events:
        for choice in chunk.get("choices") or ():
            if type(choice) is not dict:
                continue
            for entry in (choice.get("delta") or {}).get("tool_calls") or ():
                if type(entry) is dict:
                    calls[(choice.get("index", 0), entry.get("index"))].append(entry)
    return calls


def _field(entry: dict[str, Any], name: str) -> Any:
    return (entry.get("function") or {}).get(name) if name in ("name", "arguments") else entry.get(name)


def _repeated(events: Events, name: str) -> bool:
    return any(len([e for e in entries if _field(e, name)]) > 1 and len({_field(e, name) for e in entries
                                                                          if _field(e, name)}) == 1
               for entries in _entries(events).values())


def _renewed(events: Events) -> bool:
    return any(len({e["id"] for e in entries if e.get("id")}) > 1 for entries in _entries(events).values())


def _whole_call(events: Events) -> bool:
    def whole(entry: dict[str, Any]) -> bool:
        arguments = _field(entry, "arguments")
        if not (entry.get("id") and _field(entry, "name") and isinstance(arguments, str) and arguments.strip()):
            return False
        try:
            orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return False
        return True
    return any(len(entries) == 1 and whole(entries[0]) for entries in _entries(events).values())


def _blocks(events: Events, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    return [e["content_block"] for e in events if e.get("type") == "content_block_start"
            and type(e.get("content_block")) is dict and e["content_block"].get("type") in kinds]


def _unterminated(wire: bytes) -> bool:
    tail = wire.rstrip(b" \t")
    return bool(tail.strip()) and not tail.endswith((b"\n\n", b"\r\n\r\n", b"\r\r", b"\n\r\n", b"\r\n\n"))


def _lines(wire: bytes, test: Callable[[bytes], bool]) -> bool:
    return any(test(line) for line in wire.splitlines())


#: Each shape a real stream is read for: its feature name, the dialects it is told in (empty: every one), and
#: the test, over the wire's bytes and its events' data.
DETECTORS: tuple[tuple[str, tuple[str, ...], Callable[[bytes, Events], bool]], ...] = (
    # SSE framing (WHATWG HTML 9.2.5, 9.2.6)
    ("crlf", (), lambda wire, ev: b"\r\n" in wire),
    ("no-space", (), lambda wire, ev: _lines(wire, lambda line: line.startswith(b"data:")
                                             and line[5:6] not in (b" ", b""))),
    ("comments", (), lambda wire, ev: _lines(wire, lambda line: line.startswith(b":"))),
    ("sse-fields", (), lambda wire, ev: _lines(wire, lambda line: line.startswith((b"id:", b"retry:")))),
    ("unterminated-event", (), lambda wire, ev: _unterminated(wire)),
    # Chat completions (strategies/profiles.py)
    ("index-missing", ("openai-chat",), lambda wire, ev: any(i is None for _, i in _entries(ev))),
    ("id-every-fragment", ("openai-chat",), lambda wire, ev: _repeated(ev, "id")),
    ("new-id-continuations", ("openai-chat",), lambda wire, ev: _renewed(ev)),
    ("empty-id", ("openai-chat",), lambda wire, ev: any(e.get("id") == "" for es in _entries(ev).values()
                                                          for e in es)),
    ("name-every-fragment", ("openai-chat",), lambda wire, ev: _repeated(ev, "name")),
    ("whole-call", ("openai-chat",), lambda wire, ev: _whole_call(ev)),
    ("explicit-nulls", ("openai-chat",), lambda wire, ev: any(
        e.get(k, 0) is None for es in _entries(ev).values() for e in es for k in ("id", "type"))),
    ("multi-call", ("openai-chat",), lambda wire, ev: len(_entries(ev)) > 1),
    ("multi-choice", ("openai-chat",), lambda wire, ev: len({c.get("index") for e in ev
                                                              for c in e.get("choices") or () if type(c) is dict}) > 1),
    ("usage-chunk", ("openai-chat",), lambda wire, ev: any(e.get("choices") == [] and e.get("usage") for e in ev)),
    ("azure-filter-chunk", ("openai-chat",), lambda wire, ev: any(e.get("choices") == []
                                                                    and "prompt_filter_results" in e for e in ev)),
    # Anthropic Messages
    ("whole-message-start", ("anthropic",), lambda wire, ev: any(
        e.get("type") == "message_start" and ((e.get("message") or {}).get("content") or []) for e in ev)),
    ("input-at-start", ("anthropic",), lambda wire, ev: any(b.get("input") for b in _blocks(ev, ("tool_use",)))),
    ("server-tool-block", ("anthropic",), lambda wire, ev: bool(_blocks(ev, ("server_tool_use", "mcp_tool_use")))),
    ("text-before-tools", ("anthropic",), lambda wire, ev: bool(_blocks(ev, ("text",)))
     and bool(_blocks(ev, ("tool_use",)))),
    ("thinking-before-tools", ("anthropic",), lambda wire, ev: bool(_blocks(ev, ("thinking",)))
     and bool(_blocks(ev, ("tool_use",)))),
    # OpenAI Responses
    ("reasoning-first", ("openai-responses",), lambda wire, ev: any(
        e.get("type") == "response.output_item.added" and (e.get("item") or {}).get("type") == "reasoning"
        for e in ev)),
    ("obfuscation", ("openai-responses",), lambda wire, ev: any(
        e.get("type") == "response.function_call_arguments.delta" and "obfuscation" in e for e in ev)),
    ("arguments-only-in-done", ("openai-responses",), lambda wire, ev: any(
        e.get("type") == "response.function_call_arguments.done" for e in ev) and not any(
        e.get("type") == "response.function_call_arguments.delta" for e in ev)),
)


def shapes_of(wire: bytes, dialect: str) -> tuple[str, ...]:
    """The shapes :data:`DETECTORS` tell in one captured response of ``dialect``, sorted."""
    events = _data(wire)
    return tuple(sorted(name for name, dialects, test in DETECTORS
                        if (not dialects or dialect in dialects) and test(wire, events)))
