"""llama-index-llms-openai's assembler: ``update_tool_calls`` as ``OpenAI.stream_chat`` drives it.

``llama-index`` (events) walks the chunks, built as the openai SDK builds
them, the way ``OpenAI._stream_chat`` does: ``choices[0].delta`` of each
(an empty delta for a chunk without choices), tool-call deltas merged with
``update_tool_calls`` (a method, ``OpenAI._update_tool_calls``, in releases
before it moved to ``utils``) from the first chunk that has any; then the
last ``ChatResponse`` goes to ``OpenAI.get_tool_calls_from_response``, whose
``ToolSelection``s are what a llama-index agent runs.

llama-index-llms-openai requires openai<3, so it cannot share an
environment with toolfuzz's openai 3 adapters: it lives in its own venv
(docs/adapters.md says how to make it).

What it claims, and how each field maps:

* ``index``: the ``index`` of the merged ``ChoiceDeltaToolCall`` (the
  wire's index of the call's first fragment);
* ``id``, ``name``: ``ToolSelection.tool_id``, ``.tool_name``;
* ``arguments``: ``ToolSelection.tool_kwargs`` is a value, parsed with
  ``parse_partial_json`` (which completes truncated JSON) and ``{}`` when
  even that fails.  Where the value is exactly what the merged text says,
  the text is reported; otherwise the value, written as JSON
  (``_support.text_of``): a call whose text was repaired or dropped shows
  as ``arguments_differ``;
* ``complete``: always true.  llama-index keeps no finish reason with the
  tool calls of a streamed message, and its agents run every selection.
* every call is choice 0 (``choices[0]`` only).

No ``status``: a parse failure becomes ``{}`` rather than a mark.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.llms.openai import OpenAI
from openai.types.chat.chat_completion_chunk import ChoiceDelta

from toolfuzz.targets.adapters._support import quiet, sdk_chunks, text_of
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_update_tool_calls"]

# No request is ever made: get_tool_calls_from_response is a method of the model.
_LLM = OpenAI(model="gpt-4o", api_key="toolfuzz", api_base="http://toolfuzz.invalid/v1", max_retries=0)

try:
    from llama_index.llms.openai.utils import update_tool_calls as _update
except ImportError:  # releases before it moved out of the class
    _update = _LLM._update_tool_calls


def assemble_with_update_tool_calls(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """update_tool_calls over each chunk's choices[0] delta, read with get_tool_calls_from_response()."""
    tool_calls: list[Any] = []
    is_function = False
    for chunk in sdk_chunks(chunks):
        delta = chunk.choices[0].delta if chunk.choices else ChoiceDelta()
        if delta is None:  # a loosely built chunk can lack it; stream_chat would fail the same way below
            delta = ChoiceDelta()
        if delta.tool_calls:
            is_function = True
        if is_function:
            tool_calls = _update(tool_calls, delta.tool_calls)
    response = ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content="",
                                                additional_kwargs={"tool_calls": tool_calls}))
    selections = _LLM.get_tool_calls_from_response(response, error_on_no_tool_call=False)
    return [{"choice": 0, "index": call.index if isinstance(call.index, int) else None,
             "id": selection.tool_id or None, "name": selection.tool_name or None,
             "arguments": text_of(call.function.arguments or "", selection.tool_kwargs), "complete": True}
            for call, selection in zip(tool_calls, selections)]


TARGETS = (
    Target(name="llama-index", fn=quiet(assemble_with_update_tool_calls), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("llama-index-llms-openai"),
           summary="llama-index-llms-openai update_tool_calls as stream_chat drives it, then "
                   "get_tool_calls_from_response (partial JSON repaired); every call is handed on"),
)
