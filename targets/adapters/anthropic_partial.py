"""The anthropic SDK's provisional tool input: ``ToolUseBlock.input`` in the stream's snapshot.

``anthropic-input-snapshot`` (partial): ``accumulate_event``, as
``MessageStream`` calls it, fed a ``message_start``, a ``tool_use``
``content_block_start`` and one ``input_json_delta`` carrying the prefix;
the value is the snapshot's ``content[0].input``, what a user watching the
stream sees of the call's arguments.  The accumulator parses the whole JSON
buffer at every delta (with jiter's ``from_json(..., partial_mode=True)``, so
it builds on ``jiter-partial``), so one delta holding the prefix shows what
many deltas adding up to it would.
"""

from __future__ import annotations

import inspect
from importlib import metadata
from typing import Any

from anthropic._models import construct_type
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "input_snapshot"]

_START = {"type": "message_start", "message": {
    "id": "msg_toolfuzz", "type": "message", "role": "assistant", "content": [], "model": "toolfuzz",
    "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}}
_BLOCK = {"type": "content_block_start", "index": 0,
          "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}
# SDKs up to 1.x keep each block's JSON buffer on the block and take no json_bufs.
_TAKES_BUFFERS = "json_bufs" in inspect.signature(accumulate_event).parameters


def input_snapshot(text: str) -> Any:
    """accumulate_event over message_start, a tool_use block's start and one input_json_delta of the prefix."""
    snapshot = None
    buffers: dict[int, bytes] = {}
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": text}}
    for data in (_START, _BLOCK, delta):
        event = construct_type(type_=RawMessageStreamEvent, value=data)
        if _TAKES_BUFFERS:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        else:  # pragma: no cover - old SDKs only
            snapshot = accumulate_event(event=event, current_snapshot=snapshot)
    return snapshot.content[0].input


input_snapshot('{"a": 1')  # loads what the accumulator loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="anthropic-input-snapshot", fn=input_snapshot, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, builds_on="jiter-partial", version=metadata.version("anthropic"),
           summary="ToolUseBlock.input of accumulate_event's snapshot while the tool's input streams"),
)
