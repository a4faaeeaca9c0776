"""pydantic-ai behind its Anthropic model: what an agent acts on after a streamed Messages response.

``pydantic-ai-anthropic`` (bytes): the real ``AnthropicModel`` on an
``AsyncAnthropic`` client whose only fake part is an in-process httpx2
transport serving the case's reads, streamed with ``request_stream`` to the
end, then ``get()``.  pydantic-ai reads the SDK's raw (beta) event stream,
not its ``MessageStream``, and hands each ``input_json_delta`` to its parts
manager as text keyed by the block ``index``.

Fields are mapped as for ``pydantic-ai-openai`` (targets/adapters/pydantic_ai.py):
index is the block index the part was opened with, id the ``tool_use`` id
(a made-up ``pyd_ai_`` id is reported as none), arguments the accumulated
string (a dict only when the block's start carried a non-empty ``input``,
written as JSON), complete when pydantic-ai's ``finish_reason`` (its mapping
of ``stop_reason``: ``tool_use`` is ``tool_call``) is ``tool_call`` or
``stop``.  Whatever it raises is reported as raised.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import anthropic
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from toolfuzz.targets.adapters._support import http_of, mock_client, quiet, run
from toolfuzz.targets.adapters.pydantic_ai import _FINISHED, _calls, _index_of
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_model"]


async def _response(reads: list[bytes]) -> Any:
    client = anthropic.AsyncAnthropic(api_key="toolfuzz", base_url="http://toolfuzz.invalid", max_retries=0,
                                      http_client=mock_client(http_of(anthropic._base_client), reads,
                                                              asynchronous=True))
    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))
    request = [ModelRequest(parts=[UserPromptPart("toolfuzz")])]
    async with model.request_stream(request, None, ModelRequestParameters()) as stream:
        async for _ in stream:
            pass
        return stream, stream.get()


def assemble_with_model(reads: list[bytes]) -> list[dict[str, Any]]:
    """AnthropicModel.request_stream over the case's reads, read with get() when the stream is done."""
    stream, response = run(_response(reads))
    # The stream's parts manager only labels the parts with the wire's indexes (_index_of says why).
    return _calls(response.parts, _index_of(stream._parts_manager), response.finish_reason in _FINISHED)


_VERSION = metadata.version("pydantic-ai-slim")
# One request outside any case: the SDKs' and pydantic-ai's once-per-process set-up happens here.
try:
    assemble_with_model([b""])
except Exception:  # noqa: BLE001 - an empty stream may well raise; the set-up is done either way
    pass

TARGETS = (
    Target(name="pydantic-ai-anthropic", fn=quiet(assemble_with_model), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), dialects=("anthropic",), version=_VERSION,
           builds_on="anthropic-sse",
           summary="pydantic-ai AnthropicModel.request_stream over an in-process transport; complete = "
                   "ModelResponse.finish_reason tool_call/stop"),
)
