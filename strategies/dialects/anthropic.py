"""Planned calls written as an Anthropic Messages event stream (docs/dialects.md).

Every event is ``event: <name>`` plus a JSON object whose ``type`` is the
same name.  ``message_start`` opens the message; each content block is
``content_block_start`` (for a call: a ``tool_use`` block with its id and
name and an empty ``input``), deltas (``input_json_delta`` fragments of the
input's JSON text), and ``content_block_stop``, which stops the call;
``message_delta`` carries the ``stop_reason``; ``message_stop`` ends the
stream.  ``ping`` may come anywhere, and ``error`` ends the stream.

The outcome's index is the block's index (a text, thinking or server tool
block before the calls shifts it: block indexes are not call numbers) and its
id the ``tool_use`` id.

Three shapes of Anthropic's server tools (vercel/ai's captures): a
``server_tool_use`` block streaming its own input (``server-tool-block``); a
call made from code carrying its whole input at its start
(``input-at-start``); the whole message in ``message_start``
(``whole-message-start``).  The last two send a call's arguments as a JSON
object, so they apply only to calls whose text is one (:func:`effective`).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence

from hypothesis import strategies as st

from toolfuzz.strategies.dialects.typed import typed_cases
from toolfuzz.vocabulary import Case, Tool, input_text
from toolfuzz.strategies.dialects.calls import Mark, digest, opens_in_order
from toolfuzz.strategies.interleave import interleavings, merge
from toolfuzz.strategies.plan import PlannedCall
from toolfuzz.strategies.stage import allows, boolean, integer, pick

__all__ = ["DIALECT", "PLAIN", "UNFINISHED", "cases", "draw_case", "ENDINGS", "call_id", "index_of", "render", "error_body", "junk_body",
           "number", "effective"]

DIALECT = "anthropic"
PLAIN = "anthropic"
#: The finish reason of a message cut short (by max tokens): its calls are never complete.
UNFINISHED = "max_tokens"
ENDINGS = ("done",) * 4 + ("no-done", "after-done", "disconnect", "disconnect", "error-event")
_TEXTS = ("Let me check that.", "I'll look that up.\n", "Un instant — je vérifie 😀")
_THOUGHTS = ("The user wants the weather; I should call the tool.", "Deux appels suffiront — 😀")
_PING = {"type": "ping"}


def call_id(n: int) -> str:
    return "toolu_01" + digest("toolu", n)[:22]


_SERVER_TOOL = "srvtoolu_01" + digest("server-tool", 0)[:22]
#: What the whole message in message_start leaves no room for: every block's own events.
_PER_BLOCK = frozenset({"empty-first-delta", "ping-between-deltas", "interleaved-blocks", "whole-input",
                        "input-at-start", "block-extras", "server-tool-block", "thinking-before-tools",
                        "text-before-tools"})


def index_of(call: PlannedCall, active: frozenset[str]) -> int:
    return call.position + ("thinking-before-tools" in active) + ("text-before-tools" in active) \
        + 2 * ("server-tool-block" in active)


def _input(call: PlannedCall) -> dict[str, Any] | None:
    """The call's arguments as the object a block's ``input`` carries, or None when its text is not one."""
    if call.defect is not None:
        return None
    try:
        value = json.loads(call.text or "{}", parse_constant=_refuse)
    except (ValueError, RecursionError):
        return None
    return value if type(value) is dict else None


def _refuse(constant: str) -> Any:
    raise ValueError(constant)


def effective(planned: Sequence[PlannedCall], active: frozenset[str]) -> frozenset[str]:
    """The profiles the calls leave room for: whole inputs need calls whose text is an object."""
    objects = [_input(c) is not None for c in planned]
    if "whole-message-start" in active:
        if planned and all(objects):
            return active - _PER_BLOCK
        active = active - {"whole-message-start"}
    if "input-at-start" in active and not any(objects):
        active = active - {"input-at-start"}
    return active


def _block(index: int, block: dict[str, Any], deltas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "content_block_start", "index": index, "content_block": block},
            *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
            {"type": "content_block_stop", "index": index}]


def _preamble(draw: Any, active: frozenset[str]) -> list[dict[str, Any]]:
    message = {"id": "msg_01" + digest("message", 0)[:22], "type": "message", "role": "assistant",
               "content": [], "model": "claude-sonnet-4-5-20250929", "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 472, "output_tokens": 2}}
    out = [{"type": "message_start", "message": message}]
    if "ping-between-deltas" in active:
        out.append(dict(_PING))  # the docs' example pings right after message_start
    at = 0
    if "thinking-before-tools" in active:
        out += _block(at, {"type": "thinking", "thinking": "", "signature": ""},
                      [{"type": "thinking_delta", "thinking": pick(draw, _THOUGHTS)},
                       {"type": "signature_delta", "signature": "EqQBCgIYAh" + digest("signature", 0)[:24]}])
        at += 1
    if "text-before-tools" in active:
        out += _block(at, {"type": "text", "text": ""}, [{"type": "text_delta", "text": pick(draw, _TEXTS)}])
        at += 1
    if "server-tool-block" in active:
        search = {"type": "server_tool_use", "id": _SERVER_TOOL, "name": "tool_search_tool_regex", "input": {},
                  "caller": {"type": "direct"}}
        out += _block(at, search, [{"type": "input_json_delta", "partial_json": text}
                                   for text in ("", '{"pattern": "weather|', 'forecast", "limit": 10}')])
        result = {"type": "tool_search_tool_result", "tool_use_id": _SERVER_TOOL, "content": {
            "type": "tool_search_tool_search_result", "tool_references": []}}
        out += _block(at + 1, result, [])
    return out


def _call_events(draw: Any, call: PlannedCall, active: frozenset[str]) -> list[tuple[dict[str, Any], tuple[Mark, ...]]]:
    at = index_of(call, active)
    block: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
    if "block-extras" in active:
        block["caller"] = {"type": "direct"}
    whole = _input(call) if "input-at-start" in active else None
    if whole is not None:
        # As a call made from code comes: its input whole, the code execution that made it as its caller.
        block["input"] = whole
        block["caller"] = {"type": "code_execution_20250825", "tool_id": _SERVER_TOOL}
        marks = (Mark("open", call.number), Mark("args", call.number, input_text(whole)))
        return [({"type": "content_block_start", "index": at, "content_block": block}, marks),
                ({"type": "content_block_stop", "index": at}, (Mark("stop", call.number),))]
    out = [({"type": "content_block_start", "index": at, "content_block": block}, (Mark("open", call.number),))]
    pieces = ([""] if "empty-first-delta" in active else []) + list(call.fragments)
    for k, piece in enumerate(pieces):
        if k and "ping-between-deltas" in active and boolean(draw):
            out.append((dict(_PING), ()))
        delta = {"type": "input_json_delta", "partial_json": piece}
        out.append(({"type": "content_block_delta", "index": at, "delta": delta}, (Mark("args", call.number, piece),)))
    out.append(({"type": "content_block_stop", "index": at}, (Mark("stop", call.number),)))
    return out


def render(draw: Any, planned: Sequence[PlannedCall], active: frozenset[str], finish: str,
           ) -> tuple[list[tuple[dict[str, Any], tuple[Mark, ...]]], bool]:
    """The events of the whole message, and whether calls interleaved."""
    if "whole-message-start" in active:
        return _whole_message(planned, finish), False
    out: list[tuple[dict[str, Any], tuple[Mark, ...]]] = [(e, ()) for e in _preamble(draw, active)]
    per_call = [_call_events(draw, c, active) for c in planned]
    order = opens_in_order(interleavings.draw(draw, [len(e) for e in per_call], allow="interleaved-blocks" in active
                                                and allows("interleaved")))
    out += merge(per_call, order)
    delta: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": finish, "stop_sequence": None},
                             "usage": {"output_tokens": 40 + integer(draw, 0, 9)}}
    if "block-extras" in active:
        delta["delta"]["stop_details"] = None
        delta["usage"]["inference_geo"] = "not_available"
    out.append((delta, (Mark("finish", reason=finish),)))
    out.append(({"type": "message_stop"}, (Mark("end"),)))
    return out, order != sorted(order)


def _whole_message(planned: Sequence[PlannedCall], finish: str) -> list[tuple[dict[str, Any], tuple[Mark, ...]]]:
    """The message whole in message_start, as a response to a call made from code comes, then message_stop."""
    content, marks = [], []
    for call in planned:
        whole = _input(call)
        assert whole is not None  # effective() keeps this profile only for calls whose text is an object
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": whole,
                        "caller": {"type": "code_execution_20250825", "tool_id": _SERVER_TOOL}})
        marks += [Mark("open", call.number), Mark("args", call.number, input_text(whole)), Mark("stop", call.number)]
    message = {"id": "msg_01" + digest("message", 0)[:22], "type": "message", "role": "assistant",
               "content": content, "model": "claude-sonnet-4-5-20250929", "stop_reason": finish,
               "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
    return [({"type": "message_start", "message": message}, (*marks, Mark("finish", reason=finish))),
            ({"type": "message_stop"}, (Mark("end"),))]


def error_body(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "overloaded_error", "message": message}}


def junk_body() -> dict[str, Any]:
    """A call opened after the stream ended: it must be ignored."""
    block = {"type": "tool_use", "id": "toolu_late", "name": "late_call", "input": {}}
    return {"type": "content_block_start", "index": 99, "content_block": block}


def number(bodies: Sequence[dict[str, Any]]) -> None:
    """Anthropic events carry no sequence number."""


def draw_case(draw: Any, generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> Case:
    """One case, drawn by Hypothesis's ``draw`` or a plan's Drawer (:mod:`toolfuzz.strategies.plans`)."""
    return typed_cases.draw(draw, generators, allowed, sys.modules[__name__])


def cases(generators: tuple[tuple[Tool, Any], ...], allowed: frozenset[str]) -> st.SearchStrategy[Case]:
    """Cases in this dialect, drawn by the pipeline the event dialects share (:mod:`typed`)."""
    return typed_cases(generators, allowed, sys.modules[__name__])
