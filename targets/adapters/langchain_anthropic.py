"""langchain-anthropic's conversion of Messages events into ``AIMessageChunk``s, summed as a user does.

* ``langchain-anthropic`` (events): ``ChatAnthropic._make_message_chunk_from_anthropic_event``
  over each event as the anthropic SDK builds it, carrying ``block_start_event``
  along as ``ChatAnthropic._stream`` does, with tools bound (so content stays
  structured); the chunks are summed with ``+``.  ``ping`` never reaches it and
  an ``error`` event ends the stream (the SDK raises there).
* ``langchain-anthropic-client`` (bytes): ``ChatAnthropic(...).bind_tools(...).stream()``
  end to end, its anthropic client swapped for one whose in-process
  transport serves the case's reads; the yielded chunks are summed.

Unlike the SDK's own ``MessageStream``, langchain reads the raw event stream
and keeps ``partial_json`` as text: each delta becomes a ``tool_call_chunk``
keyed by the block ``index``, and summing merges chunks of one index by
concatenating ``args``.  The calls reported are the merged
``tool_call_chunks`` (index, id, name, the argument string).  A call is
complete when the merged ``response_metadata["stop_reason"]`` is
``tool_use``, the check a langchain user makes.  Errors langchain raises
(it re-raises the SDK's as its own classes) are reported as raised.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from anthropic._models import construct_type
from anthropic.types import RawMessageStreamEvent
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessageChunk, HumanMessage

from toolfuzz.targets.adapters.anthropic_messages import COMPLETING, client_for, quiet
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_conversion", "assemble_with_chat_model"]

#: A tool to bind: with tools in the request, langchain keeps content blocks structured.
_TOOLS = [{"name": "toolfuzz", "description": "any tool", "input_schema": {"type": "object"}}]
_PROMPT = [HumanMessage("toolfuzz")]


def _model() -> ChatAnthropic:
    return ChatAnthropic(model="claude-toolfuzz", api_key="toolfuzz", base_url="http://toolfuzz.invalid",
                         max_retries=0)


def calls_of(full: AIMessageChunk | None) -> list[dict[str, Any]]:
    """The merged tool_call_chunks of a summed message."""
    if full is None:
        return []
    complete = full.response_metadata.get("stop_reason") in COMPLETING
    return [{"index": part.get("index"), "id": part.get("id"), "name": part.get("name"),
             "arguments": part.get("args") or "", "complete": complete} for part in full.tool_call_chunks]


def _sum(chunks: Any) -> AIMessageChunk | None:
    full = None
    for chunk in chunks:
        full = chunk if full is None else full + chunk
    return full


# -- events: the conversion alone -----------------------------------------------

_CONVERTER = _model()


def _converted(events: list[dict[str, Any]]) -> Any:
    started = None
    for data in events:
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "ping":
            continue
        if kind == "error":
            return
        event = construct_type(type_=RawMessageStreamEvent, value=data)
        message, started = _CONVERTER._make_message_chunk_from_anthropic_event(
            event, stream_usage=True, coerce_content_to_string=False, block_start_event=started)
        if message is not None:
            yield message


def assemble_with_conversion(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One AIMessageChunk per event, as ChatAnthropic._stream converts them, summed."""
    return calls_of(_sum(_converted(events)))


# -- bytes: the chat model end to end ---------------------------------------------

def assemble_with_chat_model(reads: list[bytes]) -> list[dict[str, Any]]:
    """ChatAnthropic.bind_tools(...).stream() over the case's reads, the chunks summed."""
    model = _model()
    # _client is a cached property: filling it first is how the request reaches the in-process transport.
    model.__dict__["_client"] = client_for(reads)
    return calls_of(_sum(model.bind_tools(_TOOLS).stream(_PROMPT)))


def _warm_up() -> None:
    """One stream outside any case, so that whatever langchain loads once is loaded here."""
    try:
        assemble_with_chat_model([b""])
    except Exception:  # noqa: BLE001 - an empty stream may well raise; the set-up is done either way
        pass


_warm_up()
_VERSION = metadata.version("langchain-anthropic")
_CLAIMS = frozenset({"ids", "names", "completion"})

TARGETS = (
    Target(name="langchain-anthropic", fn=quiet(assemble_with_conversion), level="events", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION,
           summary="langchain-anthropic event -> AIMessageChunk conversion, summed (tool_call_chunks); "
                   "complete = stop_reason tool_use"),
    Target(name="langchain-anthropic-client", fn=quiet(assemble_with_chat_model), level="bytes", reports=_CLAIMS,
           dialects=("anthropic",), version=_VERSION, builds_on=("langchain-anthropic", "anthropic-sse"),
           summary="ChatAnthropic.bind_tools().stream() over an in-process transport, chunks summed"),
)
