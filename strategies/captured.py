"""Cases grown from real captured streams: the server's own events, with new arguments, fragments and reads.

Theory of operation
-------------------

A capture (``toolfuzz corpus import``) is a case whose wire a real server
sent and whose outcome its source's tests vouch for.  A :class:`Template`
keeps its events as they were dispatched (``case.events``) and, for each
complete client call, where in them its argument text is:

* **deltas**: the chat entries' ``function.arguments``, the Anthropic
  ``input_json_delta``'s ``partial_json``, the Responses
  ``function_call_arguments.delta``'s ``delta``, in order;
* **whole**: an input that came whole (Anthropic's ``content_block_start``
  or ``message_start``; a Responses call whose arguments come only in its
  ``.done``).

:func:`captured_case` draws a case from a template as every other stage
draws: each call's arguments are drawn anew from a schema of the captured
value's shape (its keys and types), written by the serialisation stage and
cut by the fragments stage; the pieces go where the server put its
fragments (a piece more than it sent goes in a copy of its last fragment's
event, before it; a piece fewer leaves an empty fragment), the texts a
dialect repeats (``.done``, ``output_item.done``, ``response.completed``)
are set to the new one, the events are framed in the capture's own way (its
line ends, ``data:`` spacing and ``event:`` lines) and cut into reads by
the reads stage.  The expected outcome is the capture's with each call's
new text: known by construction, as the capture's was known from its
source's tests.  Everything else the server sent (ids, names, indexes,
extra fields, blocks and items around the calls, its finish) stays.

A call the stream left unfinished, or that none of these places holds, is
kept as it was; a capture with no call to grow draws nothing
(:func:`template_of` gives None).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

import orjson

from toolfuzz.strategies.arguments import tool_arguments
from toolfuzz.strategies.dialects.calls import LARGE_ARGUMENTS, call_features
from toolfuzz.strategies.fragments import cut_offsets, fragments
from toolfuzz.strategies.plan import PlannedCall
from toolfuzz.strategies.reads import read_cuts, read_features
from toolfuzz.strategies.serialise import serialisations
from toolfuzz.strategies.shapes import shapes_of
from toolfuzz.strategies.stage import named, stage
from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome, SSEEvent, Tool, input_text

__all__ = ["Slot", "Template", "template_of", "captured_case", "schema_of"]

@dataclass(frozen=True)
class Slot:
    """Where one complete call's argument text is in a template's events."""

    call: int  # its place in the expected outcome
    tool: Tool  # its name, with the schema of its captured value's shape
    arguments: Any  # the strategy its arguments are drawn from (toolfuzz.strategies.arguments)
    #: (event, path) of each fragment, in order; a path is a tuple of keys and list indexes into the data.
    deltas: tuple[tuple[int, tuple[Any, ...]], ...]
    #: (event, path) where the whole value goes as an object (an input that came whole), or ().
    whole: tuple[tuple[int, tuple[Any, ...]], ...] = ()
    #: (event, path) of each place the dialect repeats the whole text (``.done``, the completed output).
    repeats: tuple[tuple[int, tuple[Any, ...]], ...] = ()


@dataclass(frozen=True)
class Template:
    """A captured response made into the shape of a case to draw: its events, its calls' places, its framing."""

    origin: str  # where the capture came from: its file, and which response of it
    dialect: str
    datas: tuple[Any, ...]  # each dispatched event's data, parsed (a str where it is not JSON: [DONE])
    types: tuple[str, ...]  # each event's type ("message" for chat)
    slots: tuple[Slot, ...]
    expected: Outcome
    features: tuple[str, ...]  # of the capture that stay on every case grown from it
    crlf: bool = False
    spaced: bool = True  # "data: " (else "data:")
    named_events: bool = False  # event: lines before each event


def schema_of(value: Any) -> dict[str, Any]:
    """A JSON Schema of ``value``'s shape: its type, an object's keys (all required), an array's first item's."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array", **({"items": schema_of(value[0])} if value else {"maxItems": 0})}
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: schema_of(v) for k, v in value.items()},
                "required": list(value), "additionalProperties": False}
    return {"type": "null"}


def template_of(origin: str, case: Case) -> Template | None:
    """The template of a captured case (its ``events`` dispatched, its outcome expected), or None when it has no
    complete call whose argument text the dialect's places hold."""
    if not case.events:
        return None
    datas = tuple(_parsed(e.data) for e in case.events)
    find = _PLACES.get(case.dialect)
    if find is None:
        return None
    slots = []
    for n, call in enumerate(case.expected.calls):
        if call.status != COMPLETE:
            continue
        try:
            value = orjson.loads(call.arguments.strip() or "{}")
        except orjson.JSONDecodeError:
            continue
        places = find(datas, call, n)
        if places is None or type(value) is not dict:
            continue
        deltas, whole, repeats = places
        tool = Tool(call.name or f"call_{n}", schema_of(value))
        slots.append(Slot(n, tool, tool_arguments(tool), tuple(deltas), tuple(whole), tuple(repeats)))
    if not slots:
        return None
    wire = case.wire
    return Template(origin, case.dialect, datas, tuple(e.event for e in case.events), tuple(slots), case.expected,
                    tuple(f for f in case.features if f == "captured" or f.startswith("captured-")),
                    crlf=b"\r\n" in wire, spaced=b"data: " in wire or b"data:" not in wire,
                    named_events=b"event:" in wire)


def _parsed(data: str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return data


# Where each dialect holds a call's argument text: (deltas, whole, repeats), or None when it cannot be told.
Places = tuple[list[tuple[int, tuple[Any, ...]]], list[tuple[int, tuple[Any, ...]]], list[tuple[int, tuple[Any, ...]]]]


def _chat_places(datas: tuple[Any, ...], call: Call, number: int) -> Places | None:
    deltas = []
    for e, data in enumerate(datas):
        if type(data) is not dict:
            continue
        for c, choice in enumerate(data.get("choices") or ()):
            if type(choice) is not dict or choice.get("index", 0) != call.choice:
                continue
            for k, entry in enumerate((choice.get("delta") or {}).get("tool_calls") or ()):
                if type(entry) is not dict or "index" not in entry or entry["index"] != call.index:
                    continue  # an entry without an index belongs to a call only by its order: not grown
                if isinstance((entry.get("function") or {}).get("arguments"), str):
                    deltas.append((e, ("choices", c, "delta", "tool_calls", k, "function", "arguments")))
    return (deltas, [], []) if deltas else None


def _anthropic_places(datas: tuple[Any, ...], call: Call, number: int) -> Places | None:
    deltas, whole = [], []
    for e, data in enumerate(datas):
        if type(data) is not dict:
            continue
        kind = data.get("type")
        if kind == "content_block_delta" and data.get("index") == call.index \
                and (data.get("delta") or {}).get("type") == "input_json_delta":
            deltas.append((e, ("delta", "partial_json")))
        elif kind == "content_block_start" and data.get("index") == call.index \
                and (data.get("content_block") or {}).get("input"):
            whole.append((e, ("content_block", "input")))
        elif kind == "message_start":
            for b, block in enumerate((data.get("message") or {}).get("content") or ()):
                if type(block) is dict and block.get("type") == "tool_use" and block.get("id") == call.id:
                    whole.append((e, ("message", "content", b, "input")))
    if deltas and whole:
        return None
    return (deltas, whole, []) if deltas or whole else None


def _responses_places(datas: tuple[Any, ...], call: Call, number: int) -> Places | None:
    deltas, repeats = [], []
    for e, data in enumerate(datas):
        if type(data) is not dict:
            continue
        kind = data.get("type")
        if kind == "response.function_call_arguments.delta" and data.get("output_index") == call.index:
            deltas.append((e, ("delta",)))
        elif kind == "response.function_call_arguments.done" and data.get("output_index") == call.index:
            repeats.append((e, ("arguments",)))
        elif kind == "response.output_item.done" and data.get("output_index") == call.index:
            repeats.append((e, ("item", "arguments")))
        elif kind in ("response.completed", "response.incomplete"):
            for o, item in enumerate((data.get("response") or {}).get("output") or ()):
                if type(item) is dict and item.get("type") == "function_call" and item.get("call_id") == call.id:
                    repeats.append((e, ("response", "output", o, "arguments")))
    if not deltas and not repeats:
        return None
    return deltas, [], repeats


_PLACES = {"openai-chat": _chat_places, "anthropic": _anthropic_places, "openai-responses": _responses_places}


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


@stage
def captured_case(draw: Any, template: Template) -> Case:
    """A case grown from ``template``: new arguments for each of its calls, cut anew, its reads cut anew."""
    datas = [copy.deepcopy(d) for d in template.datas]
    types = list(template.types)
    texts: dict[int, tuple[str, list[str]]] = {}
    planned = []
    # Pieces a call has more of than its server sent fragments: (before event, copy of that event).
    inserted: list[tuple[int, Any, str]] = []
    for slot in template.slots:
        call = template.expected.calls[slot.call]
        with named(draw, "call"):
            value = draw(slot.arguments)
            if slot.whole:
                text, pieces = input_text(value), []
            else:
                text = serialisations.draw(draw, value)
                pieces = fragments.draw(draw, text) if slot.deltas else [text]
        for event, path in slot.whole:
            _set(datas[event], path, value)
        for event, path in slot.repeats:
            _set(datas[event], path, text)
        if slot.deltas:
            *first, (last, last_path) = slot.deltas
            for (event, path), piece in zip(first, pieces):
                _set(datas[event], path, piece)
            for event, path in first[len(pieces):]:
                _set(datas[event], path, "")  # the server sent more fragments than the text has pieces
            rest = pieces[len(first):] or [""]
            for piece in rest[:-1]:
                inserted.append((last, _only(datas[last], last_path, piece), types[last]))
            _set(datas[last], last_path, rest[-1])
        texts[slot.call] = (text, pieces)
        planned.append(PlannedCall(slot.call, call.choice, slot.call, slot.tool, call.name or "", call.id, value,
                                   text, pieces or [text], None))
    order: list[tuple[Any, str]] = []
    for e, data in enumerate(datas):
        order.extend((d, t) for at, d, t in inserted if at == e)
        order.append((data, types[e]))
    wire = b"".join(_framed(template, data, kind) for data, kind in order)
    calls = tuple(replace(c, arguments=texts[n][0], cuts=cut_offsets(texts[n][1]) if texts[n][1] else ())
                  if n in texts else c for n, c in enumerate(template.expected.calls))
    reads = read_cuts.draw(draw, wire)
    features = set(template.features) | set(shapes_of(wire, template.dialect)) | read_features(wire, reads) \
        | call_features(planned, LARGE_ARGUMENTS) | ({"multi-call"} if len(calls) > 1 else set())
    events = tuple(SSEEvent(data if isinstance(data, str) else _json(data), kind) for data, kind in order)
    return Case(reads=reads, expected=replace(template.expected, calls=calls), dialect=template.dialect,
                features=tuple(sorted(features)), events=events, origin=template.origin)


def _only(data: Any, path: tuple[Any, ...], piece: str) -> Any:
    """A copy of one fragment's event carrying ``piece`` alone: for chat, its chunk with only that entry, no
    finish, no content, no usage; for the typed dialects the event itself."""
    out = copy.deepcopy(data)
    if path[:1] == ("choices",):
        c, k = path[1], path[4]
        choice = out["choices"][c]
        entry = choice["delta"]["tool_calls"][k]
        choice["delta"] = {"tool_calls": [entry]}
        choice["finish_reason"] = None
        out["choices"] = [choice]
        out.pop("usage", None)
        path = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
    _set(out, path, piece)
    return out


def _json(data: Any) -> str:
    return orjson.dumps(data).decode()


def _framed(template: Template, data: Any, kind: str) -> bytes:
    end = b"\r\n" if template.crlf else b"\n"
    text = (data if isinstance(data, str) else _json(data)).encode()
    head = b"event: " + kind.encode() + end if template.named_events and kind != "message" else b""
    return head + (b"data: " if template.spaced else b"data:") + text + end + end

