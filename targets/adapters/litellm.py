"""litellm's assembler, ``stream_chunk_builder``, alone and behind its own client.

* ``litellm-builder`` (events): ``litellm.stream_chunk_builder`` over one
  ``ModelResponseStream`` per chunk, as a user who collected a stream's
  chunks rebuilds the response.
* ``litellm-client`` (bytes): ``litellm.completion(model="openai/x",
  stream=True)`` on an ``openai.OpenAI`` client whose only fake part is an
  in-process transport (httpx2, or httpx under openai<3) serving the case's reads; the chunks it
  yields go to ``stream_chunk_builder``.  This covers litellm's stream
  wrapper (which rewrites chunks) as well as the builder.

What they claim, and how each field maps:

* ``choice``: the index of the built choice whose message holds the call;
* ``index``: the wire's tool-call index.  The built calls carry none: the
  builder keys calls by (choice, index), sorts the keys and emits a call
  only when its key has both an id and a name, so each built call is paired
  with the first remaining key whose last id it carries;
* ``id``, ``name``, ``arguments``: ``tool_call.id``, ``.function.name``,
  ``.function.arguments`` (the builder writes ``"{}"`` for no arguments);
* ``complete``: the built choice's ``finish_reason`` is ``tool_calls`` or
  ``stop``.  The builder answers ``stop`` for a stream that never gave a
  finish reason, so that is what a user checking it sees.

No ``status``: litellm hands arguments on as text.
"""

from __future__ import annotations

import os
from importlib import metadata
from typing import Any

# Without it, importing litellm fetches the model cost map over the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import litellm  # noqa: E402
import openai  # noqa: E402
from litellm.types.utils import ModelResponseStream  # noqa: E402

from toolfuzz.targets.adapters._support import COMPLETING, mock_client, openai_http, quiet, until_error  # noqa: E402
from toolfuzz.targets.base import Target  # noqa: E402

__all__ = ["TARGETS", "assemble_with_builder", "assemble_with_client"]

litellm.telemetry = False
litellm.suppress_debug_info = True
_MESSAGES = [{"role": "user", "content": "toolfuzz"}]


def _last_ids(chunks: list[Any]) -> dict[tuple[int, Any], Any]:
    """(choice, tool-call index) -> the last non-empty id the stream gave that call, in the builder's order."""
    ids: dict[tuple[int, Any], Any] = {}
    for chunk in chunks:
        for choice in _get(chunk, "choices") or ():
            for entry in _get(_get(choice, "delta"), "tool_calls") or ():
                if not entry or _get(entry, "function") is None:
                    continue
                key = (_get(choice, "index") or 0, _get(entry, "index", 0))
                ids.setdefault(key, None)
                if _get(entry, "id"):
                    ids[key] = _get(entry, "id")
    return ids


def _get(thing: Any, name: str, default: Any = None) -> Any:
    if isinstance(thing, dict):
        return thing.get(name, default)
    return getattr(thing, name, default)


def _calls(response: Any, chunks: list[Any]) -> list[dict[str, Any]]:
    keys = list(_last_ids(chunks).items())
    try:
        keys.sort(key=lambda item: item[0])
    except TypeError:  # the builder sorts the same keys, and would have raised first
        pass
    calls = []
    for choice in response.choices:
        complete = choice.finish_reason in COMPLETING
        for call in choice.message.tool_calls or ():
            at = next((i for i, (_, last) in enumerate(keys) if last == call.id), None)
            index = keys.pop(at)[0][1] if at is not None else None
            calls.append({"choice": choice.index, "index": index if isinstance(index, int) else None,
                          "id": call.id, "name": call.function.name, "arguments": call.function.arguments or "",
                          "complete": complete})
    return calls


def assemble_with_builder(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """litellm.stream_chunk_builder over one ModelResponseStream per chunk."""
    streamed = [ModelResponseStream(**chunk) for chunk in until_error(chunks)]
    if not streamed:
        return []
    response = litellm.stream_chunk_builder(streamed, messages=_MESSAGES)
    return [] if response is None else _calls(response, streamed)


def assemble_with_client(reads: list[bytes]) -> list[dict[str, Any]]:
    """litellm.completion(stream=True) over the case's reads, rebuilt with stream_chunk_builder."""
    client = openai.OpenAI(api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0,
                           http_client=mock_client(openai_http(), reads))
    streamed = list(litellm.completion(model="openai/x", messages=_MESSAGES, stream=True, client=client,
                                       api_key="toolfuzz", api_base="http://toolfuzz.invalid/v1", num_retries=0))
    if not streamed:
        return []
    response = litellm.stream_chunk_builder(streamed, messages=_MESSAGES)
    return [] if response is None else _calls(response, streamed)


# One stream of each kind outside any case: litellm imports much of itself lazily, on first use,
# which inside a case would spend its time limit (and write __pycache__ files).
_WARM_UP = (b'data: {"choices":[{"index":0,"delta":{"content":"x","tool_calls":[{"index":0,"id":"c",'
            b'"type":"function","function":{"name":"f","arguments":"{}"}}]}}]}\n\n'
            b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n')
for _warm_up in (assemble_with_client, quiet(assemble_with_client)):
    try:
        _warm_up([_WARM_UP])
        # Usage is counted with the tokenizer of the chunk's model, loaded on first use: the
        # generated streams' model and the seed fixtures' one.
        for model in ("toolfuzz-model", "gpt-4o"):
            assemble_with_builder([{"model": model, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "stop"}]}])
    except Exception:  # noqa: BLE001 - the set-up is done either way
        pass

_VERSION = metadata.version("litellm")

TARGETS = (
    Target(name="litellm-builder", fn=quiet(assemble_with_builder), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION,
           summary="litellm.stream_chunk_builder over ModelResponseStream chunks; complete = built "
                   "finish_reason tool_calls/stop (stop when the stream gave none)"),
    Target(name="litellm-client", fn=quiet(assemble_with_client), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), version=_VERSION,
           builds_on=("litellm-builder", "openai-sse"),
           summary="litellm.completion(stream=True) over an in-process transport, then stream_chunk_builder"),
)
