"""pydantic-ai's assembler, alone and behind its OpenAI chat model.

* ``pydantic-ai-parts`` (events): ``ModelResponsePartsManager``, fed what
  ``OpenAIStreamedResponse._map_tool_call_delta`` feeds it for each chunk's
  ``choices[0]``: ``handle_tool_call_delta(vendor_part_id=index,
  tool_name=name, args=arguments, tool_call_id=id)``, then ``get_parts()``.
* ``pydantic-ai-openai`` (bytes): the real ``OpenAIChatModel`` (``OpenAIModel``
  in releases before its rename) on an ``AsyncOpenAI`` client whose only fake
  part is an in-process transport (httpx2, or httpx under openai<3) serving the case's reads, streamed
  with ``request_stream`` to the end, then ``get()``: the ``ModelResponse``
  an agent acts on.

What they claim, and how each field maps:

* ``index``: the wire index the manager keyed the part by (its
  ``vendor_part_id``); a part opened without one keeps no index;
* ``id``: ``ToolCallPart.tool_call_id``.  Where the stream gave no id,
  pydantic-ai makes one up (``pyd_ai_`` and a random hex string, as
  documented); that id is reported as none, since the stream said none;
* ``name``: ``tool_name``; ``arguments``: ``args`` as the string it
  accumulated (a dict, which only a provider sends, is written as JSON);
* ``complete`` (``pydantic-ai-openai`` only): the response's ``finish_reason``
  is ``tool_call`` or ``stop``, pydantic-ai's own mapping of the wire's
  reason, or the release has no such field (the agent then runs every call).
  pydantic-ai gives a stream that ends without a finish reason the reason
  ``stop``.  The parts manager has no notion of completion, so
  ``pydantic-ai-parts`` does not claim it.
* every call is choice 0: pydantic-ai reads ``choices[0]`` only.

No ``status``: pydantic-ai validates arguments when the agent calls a tool,
against tools the target is not given.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from typing import Any

import openai
from pydantic_ai._parts_manager import ModelResponsePartsManager
from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models import openai as pai_openai
from pydantic_ai.providers.openai import OpenAIProvider

from toolfuzz.targets.adapters._support import mock_client, openai_http, quiet, run, sdk_chunks
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_parts_manager", "assemble_with_model"]

#: The chat model class: renamed from OpenAIModel to OpenAIChatModel.
_MODEL = getattr(pai_openai, "OpenAIChatModel", None) or pai_openai.OpenAIModel
#: pydantic-ai's finish reasons that say the response ended normally.
_FINISHED = ("tool_call", "stop")
_MADE_UP_ID = re.compile(r"pyd_ai_[0-9a-f]{32}")


def _manager() -> ModelResponsePartsManager:
    # Newer releases need the request's parameters (to type tool parts); older take none.
    try:
        return ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
    except TypeError:
        return ModelResponsePartsManager()


def _calls(parts: list[Any], index_of: dict[int, Any], complete: bool) -> list[dict[str, Any]]:
    calls = []
    for position, part in enumerate(parts):
        if not isinstance(part, ToolCallPart):
            continue
        call_id = part.tool_call_id
        # A call whose input came whole is held as a dict; pydantic-ai's own text of it is compact JSON
        # (ToolCallPart.args_as_json_str), which is what a user sends on, not json.dumps's spaced spelling.
        args = part.args if isinstance(part.args, str) or part.args is None else (
            part.args_as_json_str() if hasattr(part, "args_as_json_str")
            else json.dumps(part.args, separators=(",", ":"), ensure_ascii=False))
        index = index_of.get(position)
        calls.append({"choice": 0, "index": index if isinstance(index, int) else None,
                      "id": None if isinstance(call_id, str) and _MADE_UP_ID.fullmatch(call_id) else call_id,
                      "name": part.tool_name or None, "arguments": args or "", "complete": complete})
    return calls


def _index_of(manager: ModelResponsePartsManager) -> dict[int, Any]:
    """Part position -> the vendor id (the wire's index) it was opened with.

    Read from the manager's own map, which no public API hands on, and only as a label: it says which call
    of the stream each part stands for, so that the judge can pair them.  What is judged (each part's id,
    name and arguments, and the response's finish reason) comes from the public parts and ModelResponse.  A
    part opened without a vendor id has no entry and keeps no index, which the judge pairs by order where
    the wire sent none (docs/contract.md, "How a target is judged").
    """
    return {position: vendor for vendor, position in getattr(manager, "_vendor_id_to_part_index", {}).items()}


def assemble_with_parts_manager(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ModelResponsePartsManager fed each chunk's choices[0] tool-call entries, read with get_parts()."""
    manager = _manager()
    for chunk in sdk_chunks(chunks):
        if not chunk.choices or chunk.choices[0].delta is None:
            continue
        for entry in chunk.choices[0].delta.tool_calls or ():
            function = entry.function
            manager.handle_tool_call_delta(vendor_part_id=entry.index,
                                           tool_name=function.name if function is not None else None,
                                           args=function.arguments if function is not None else None,
                                           tool_call_id=entry.id)
    return _calls(manager.get_parts(), _index_of(manager), True)


async def _response(reads: list[bytes]) -> Any:
    client = openai.AsyncOpenAI(api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0,
                                http_client=mock_client(openai_http(), reads, asynchronous=True))
    model = _MODEL("x", provider=OpenAIProvider(openai_client=client))
    request = [ModelRequest(parts=[UserPromptPart("toolfuzz")])]
    async with model.request_stream(request, None, ModelRequestParameters()) as stream:
        async for _ in stream:
            pass
        return stream, stream.get()


def assemble_with_model(reads: list[bytes]) -> list[dict[str, Any]]:
    """OpenAIChatModel.request_stream over the case's reads, read with get() when the stream is done."""
    stream, response = run(_response(reads))
    finish = getattr(response, "finish_reason", _FINISHED[0])
    # The stream's parts manager only labels the parts with the wire's indexes (_index_of says why).
    return _calls(response.parts, _index_of(stream._parts_manager), finish in _FINISHED)


_VERSION = metadata.version("pydantic-ai-slim")
# One request outside any case: the SDK's and pydantic-ai's once-per-process set-up happens here.
try:
    assemble_with_model([b"data: [DONE]\n\n"])
except Exception:  # noqa: BLE001 - an empty stream may well raise; the set-up is done either way
    pass

TARGETS = (
    Target(name="pydantic-ai-parts", fn=quiet(assemble_with_parts_manager), level="events",
           reports=frozenset({"ids", "names"}), version=_VERSION,
           summary="pydantic-ai ModelResponsePartsManager.handle_tool_call_delta, choices[0] only; "
                   "no completion notion"),
    Target(name="pydantic-ai-openai", fn=quiet(assemble_with_model), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION, builds_on=("pydantic-ai-parts", "openai-sse"),
           summary="pydantic-ai OpenAIChatModel.request_stream over an in-process transport; complete = "
                   "ModelResponse.finish_reason tool_call/stop (a stream without one gets stop)"),
)
