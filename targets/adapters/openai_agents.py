"""openai-agents' assembler: ``ChatCmplStreamHandler.handle_stream`` turning chat chunks into a Responses stream.

``openai-agents`` (events) feeds the chunks, built as the openai SDK builds
them, to ``ChatCmplStreamHandler.handle_stream`` exactly as
``OpenAIChatCompletionsModel.stream_response`` does for an endpoint that is
not OpenAI's own (any gateway or other provider): ``raise_on_length_truncation``
on where the installed version has it, ``require_finish_reason`` off (it is
on only for the official base URL).  The calls are the ``function_call``
items of the ``response.completed`` event, which the ``Runner`` runs.

What it claims, and how each field maps:

* ``index``: the wire index the handler keyed the call by
  (``state.function_calls[tc_delta.index]``); the items carry no index, so
  they are paired with the indexes in the order the handler first saw them;
* ``id``: ``ResponseFunctionToolCall.call_id`` (``""`` when the stream gave
  none); ``name``: ``.name``; ``arguments``: ``.arguments``, the fragments
  joined;
* ``complete``: true for every item of ``response.completed``: the Runner
  executes each function call it holds and checks no finish reason, so a
  call the stream never finished is handed on when the stream simply ends.
  When the handler raises instead (``ModelBehaviorError``), that is reported
  as raised: it is what the user gets.
* every call is choice 0: the handler reads choice 0 only and logs a warning
  for the others.

No ``status``: the Runner parses arguments when it invokes a tool.
"""

from __future__ import annotations

import inspect
import os
from importlib import metadata
from typing import Any, AsyncIterator

# Tracing is on by default and would export spans over the network.
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

import agents  # noqa: E402
from agents.models.chatcmpl_stream_handler import ChatCmplStreamHandler  # noqa: E402
from openai.types.responses import Response  # noqa: E402

from toolfuzz.targets.adapters._support import quiet, run, sdk_chunks  # noqa: E402
from toolfuzz.targets.base import Target  # noqa: E402

__all__ = ["TARGETS", "assemble_with_stream_handler"]

agents.set_tracing_disabled(True)

_PARAMETERS = inspect.signature(ChatCmplStreamHandler.handle_stream).parameters
#: What stream_response passes for a non-OpenAI endpoint, where this version has the parameter.
_OPTIONS = {k: v for k, v in (("raise_on_length_truncation", True), ("require_finish_reason", False))
            if k in _PARAMETERS}


def _response() -> Response:
    # Built as stream_response builds it, but loosely: its required fields
    # vary between openai releases, and the handler only copies it.
    return Response.model_construct(id="__fake_id__", created_at=0.0, model="x", object="response", output=[],
                                    tool_choice="auto", tools=[], parallel_tool_calls=False)


async def _completed(chunks: list[Any]) -> Any:
    async def stream() -> AsyncIterator[Any]:
        for chunk in chunks:
            yield chunk

    final = None
    async for event in ChatCmplStreamHandler.handle_stream(_response(), stream(), **_OPTIONS):
        if event.type == "response.completed":
            final = event.response
    return final


def _first_seen_indexes(chunks: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for chunk in chunks:
        for choice in chunk.choices or ():
            if choice.index == 0 and choice.delta:
                for entry in choice.delta.tool_calls or ():
                    if getattr(entry, "type", None) != "custom" and entry.index not in seen:
                        seen.append(entry.index)
    return seen


def assemble_with_stream_handler(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The function_call items of the response.completed event handle_stream yields."""
    sdk = list(sdk_chunks(chunks))
    final = run(_completed(sdk))
    if final is None:
        return []
    items = [item for item in final.output if getattr(item, "type", None) == "function_call"]
    return [{"choice": 0, "index": index if isinstance(index, int) else None, "id": item.call_id or None,
             "name": item.name or None, "arguments": item.arguments or "", "complete": True}
            for index, item in zip(_first_seen_indexes(sdk), items)]


TARGETS = (
    Target(name="openai-agents", fn=quiet(assemble_with_stream_handler), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("openai-agents"),
           summary="openai-agents ChatCmplStreamHandler.handle_stream (non-OpenAI endpoint settings), "
                   "function_call items of response.completed; choice 0 only; every item is run"),
)
