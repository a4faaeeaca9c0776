"""Planned calls written as an OpenAI Responses event stream (docs/dialects.md).

Every event is ``event: <type>`` plus a JSON object with the same ``type``
and a ``sequence_number`` that counts every event of the stream from 0.  A
call is an output item: ``response.output_item.added`` opens it with its
item id (``fc_...``), its ``call_id`` (``call_...``, the id a tool result
answers) and its name; ``response.function_call_arguments.delta`` events
keyed by ``item_id`` and ``output_index`` carry the arguments;
``response.function_call_arguments.done`` repeats them whole and stops the
call; ``response.output_item.done`` repeats the item.  ``response.completed``
finishes the response and ends the stream: there is no ``[DONE]``.

The outcome's index is the call's ``output_index`` and its id the
``call_id``, never the item id.
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

from hypothesis import strategies as st

from toolfuzz.strategies.dialects.typed import typed_cases
from toolfuzz.vocabulary import Case, Tool
from toolfuzz.strategies.dialects.calls import Mark, digest, opens_in_order
from toolfuzz.strategies.interleave import interleavings, merge
from toolfuzz.strategies.plan import PlannedCall
from toolfuzz.strategies.stage import allows, integer, pick

__all__ = ["DIALECT", "PLAIN", "UNFINISHED", "cases", "draw_case", "ENDINGS", "call_id", "index_of", "render", "error_body", "junk_body",
           "number"]

DIALECT = "openai-responses"
PLAIN = "responses"
#: The finish reason of a message cut short (by max tokens): its calls are never complete.
UNFINISHED = "incomplete"
#: ``failed`` is a ``response.failed`` event; ``no-done`` makes no sense where the finish is the end.
ENDINGS = ("done",) * 4 + ("after-done", "disconnect", "disconnect", "error-event", "failed")
_TEXTS = ("Let me check that.", "Un instant — je vérifie 😀")


def call_id(n: int) -> str:
    return "call_" + digest("call", n)[:24]


def _item_id(n: int) -> str:
    return "fc_" + digest("item", n)[:40]


def index_of(call: PlannedCall, active: frozenset[str]) -> int:
    return call.position + ("reasoning-first" in active) + ("text-before-calls" in active)


def _response(status: str, output: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"id": "resp_" + digest("response", 0)[:32], "object": "response", "created_at": 1759000000,
            "status": status, "model": "gpt-5-2025-08-07", "output": output, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": []}
    return {**body, **(extra or {})}


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sequence_number": 0, **fields}


def _item(call: PlannedCall, status: str, arguments: str) -> dict[str, Any]:
    return {"id": _item_id(call.number + 1), "type": "function_call", "status": status, "arguments": arguments,
            "call_id": call.id, "name": call.name}


def _call_events(call: PlannedCall, active: frozenset[str], draw: Any) -> list[tuple[dict[str, Any], tuple[Mark, ...]]]:
    at = index_of(call, active)
    item_id = _item_id(call.number + 1)
    out = [(_event("response.output_item.added", output_index=at, item=_item(call, "in_progress", "")),
            (Mark("open", call.number),))]
    # GitHub Copilot's endpoint gives every event a fresh item_id: only output_index names the call.
    ids = (f"fc_{digest(f'rotated-{call.number}', k)[:40]}" for k in range(10**9)) \
        if "rotating-item-id" in active else iter(lambda: item_id, None)
    # LM Studio sends no delta: the whole arguments come in .done.
    only_done = "arguments-only-in-done" in active
    for piece in () if only_done else call.fragments:
        fields: dict[str, Any] = {"item_id": next(ids), "output_index": at, "delta": piece}
        if "obfuscation" in active:
            fields["obfuscation"] = digest("pad", integer(draw, 0, 99))[: integer(draw, 0, 16)]
        out.append((_event("response.function_call_arguments.delta", **fields), (Mark("args", call.number, piece),)))
    done: dict[str, Any] = {"item_id": next(ids), "output_index": at, "arguments": call.text}
    if "done-with-name" in active:
        done["name"] = call.name
    marks = (Mark("args", call.number, call.text),) if only_done else ()
    out.append((_event("response.function_call_arguments.done", **done), (*marks, Mark("stop", call.number))))
    out.append((_event("response.output_item.done", output_index=at, item=_item(call, "completed", call.text)), ()))
    return out


def _preamble(draw: Any, active: frozenset[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Events before the calls, and the output items they leave in the final response."""
    events = [_event("response.created", response=_response("in_progress", [])),
              _event("response.in_progress", response=_response("in_progress", []))]
    items: list[dict[str, Any]] = []
    if "reasoning-first" in active:
        item = {"id": "rs_" + digest("reasoning", 0)[:40], "type": "reasoning", "summary": []}
        events += [_event("response.output_item.added", output_index=0, item=item),
                   _event("response.output_item.done", output_index=0, item=item)]
        items.append(item)
    if "text-before-calls" in active:
        at = len(items)
        text = pick(draw, _TEXTS)
        msg_id = "msg_" + digest("message", 0)[:40]
        part = {"type": "output_text", "text": "", "annotations": []}
        whole = {**part, "text": text}
        done = {"id": msg_id, "type": "message", "role": "assistant", "status": "completed", "content": [whole]}
        where = {"item_id": msg_id, "output_index": at, "content_index": 0}
        events += [
            _event("response.output_item.added", output_index=at,
                   item={**done, "status": "in_progress", "content": []}),
            _event("response.content_part.added", **where, part=part),
            _event("response.output_text.delta", **where, delta=text, logprobs=[]),
            _event("response.output_text.done", **where, text=text, logprobs=[]),
            _event("response.content_part.done", **where, part=whole),
            _event("response.output_item.done", output_index=at, item=done),
        ]
        items.append(done)
    return events, items


def render(draw: Any, planned: Sequence[PlannedCall], active: frozenset[str], finish: str,
           ) -> tuple[list[tuple[dict[str, Any], tuple[Mark, ...]]], bool]:
    """The events of the whole response, and whether calls interleaved."""
    events, items = _preamble(draw, active)
    out: list[tuple[dict[str, Any], tuple[Mark, ...]]] = [(e, ()) for e in events]
    per_call = [_call_events(c, active, draw) for c in planned]
    order = opens_in_order(interleavings.draw(draw, [len(e) for e in per_call], allow="interleaved-items" in active
                                                and allows("interleaved")))
    out += merge(per_call, order)
    items += [_item(c, "completed", c.text) for c in planned]
    if finish == "completed":
        final = _event("response.completed", response=_response("completed", items))
    else:
        final = _event("response.incomplete", response=_response(
            "incomplete", items, {"incomplete_details": {"reason": "max_output_tokens"}}))
    out.append((final, (Mark("finish", reason=finish), Mark("end"))))
    return out, order != sorted(order)


def error_body(message: str) -> dict[str, Any]:
    return _event("error", code="server_error", message=message, param=None)


def failed_body(message: str) -> dict[str, Any]:
    return _event("response.failed", response=_response(
        "failed", [], {"error": {"code": "server_error", "message": message}}))


def junk_body() -> dict[str, Any]:
    """A call opened after the stream ended: it must be ignored."""
    item = {"id": "fc_late", "type": "function_call", "status": "in_progress", "arguments": "",
            "call_id": "call_late", "name": "late_call"}
    return _event("response.output_item.added", output_index=99, item=item)


def number(bodies: Sequence[dict[str, Any]]) -> None:
    """``sequence_number`` counts every event of the stream, whatever was inserted."""
    for n, body in enumerate(bodies):
        body["sequence_number"] = n


def draw_case(draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> Case:
    """One case, drawn by Hypothesis's ``draw`` or a plan's Drawer (:mod:`toolfuzz.strategies.plans`)."""
    return typed_cases.draw(draw, generators, allowed, sys.modules[__name__])


def cases(generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> st.SearchStrategy[Case]:
    """Cases in this dialect, drawn by the pipeline the event dialects share (:mod:`typed`)."""
    return typed_cases(generators, allowed, sys.modules[__name__])
