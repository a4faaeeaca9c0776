"""smolagents' assembler: ``agglomerate_stream_deltas`` over the deltas ``OpenAIModel.generate_stream`` yields.

``smolagents-agglomerate`` (bytes) runs ``OpenAIModel`` (``OpenAIServerModel``,
and ``AzureOpenAIModel``, which inherits its ``generate_stream``) on a real
``openai.OpenAI`` client over an in-process transport serving the case's
reads, collects the ``ChatMessageStreamDelta``s its ``generate_stream``
yields (``choices[0]`` only; a choice with no delta and no finish reason makes
it raise ``ValueError``, in smolagents' own code), then hands the list to
``agglomerate_stream_deltas``, which is what a ``ToolCallingAgent`` streaming
its outputs does before it runs the calls.

What it claims, and how each field maps:

* ``index``: the dict key agglomerate keeps per call (the wire's index; a
  delta without one makes it raise ``ValueError``);
* ``id``, ``name``, ``arguments``: ``ChatMessageToolCall.id`` (``""`` when the
  stream gave none), ``.function.name``, ``.function.arguments`` (a string,
  the fragments joined);
* ``complete``: always true.  smolagents keeps no finish reason in a streamed
  message, and the agent runs every call agglomerate returns, so a call the
  stream never finished is handed on; that is what a user gets.
* every call is choice 0 (smolagents reads ``choices[0]`` only).

No ``status``: smolagents parses arguments later, in the agent, against the
tools the agent holds, which a target is not given.
"""

from __future__ import annotations

import inspect
from importlib import metadata
from typing import Any

import openai
from smolagents.models import ApiModel, OpenAIModel, agglomerate_stream_deltas

from toolfuzz.targets.adapters._support import mock_client, openai_http, quiet
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_agglomerate"]

_MESSAGES = [{"role": "user", "content": [{"type": "text", "text": "What is the weather?"}]}]
#: smolagents retries a call whose error reads like a rate limit (an error chunk saying so, too), after a wait;
#: ``retry`` turns that off from 1.23.0, and releases before it pass any keyword they do not know on to the
#: request, which the client refuses.
_NO_RETRY = {"retry": False} if "retry" in inspect.signature(ApiModel.__init__).parameters else {}


def _model(reads: list[bytes]) -> OpenAIModel:
    """The model a user builds, on a client whose every request is answered with the case's reads: an
    explicit key and base URL so that nothing comes from the environment, and no retries, by the client or
    by smolagents, so that a failure is seen once, as the user sees it."""
    client = openai.OpenAI(api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0,
                           http_client=mock_client(openai_http(), reads))
    return OpenAIModel(model_id="x", client=client, **_NO_RETRY)


def assemble_with_agglomerate(reads: list[bytes]) -> list[dict[str, Any]]:
    """agglomerate_stream_deltas over what OpenAIModel.generate_stream yields for the case's reads."""
    deltas = list(_model(reads).generate_stream(_MESSAGES))
    message = agglomerate_stream_deltas(deltas)
    # agglomerate keeps its calls in a dict keyed by the wire's index, in
    # insertion order; the message's list has lost the key, so pair them back
    # by position through the same order.
    indexes = []
    for d in deltas:
        for e in d.tool_calls or ():
            if e.index not in indexes:
                indexes.append(e.index)
    return [{"choice": 0, "index": index, "id": call.id or None, "name": call.function.name or None,
             "arguments": call.function.arguments or "", "complete": True}
            for index, call in zip(indexes, message.tool_calls or ())]


# One request outside any case: the client's first computes its platform headers, and platform.platform()
# runs `uname -p` in a subprocess, which inside a case the harness refuses as a blocked action.
try:
    assemble_with_agglomerate([b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n'])
except Exception:  # noqa: BLE001 - the set-up is done either way
    pass

TARGETS = (
    Target(name="smolagents-agglomerate", fn=quiet(assemble_with_agglomerate), level="bytes",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("smolagents"),
           builds_on=("openai-sse",),
           summary="smolagents OpenAIModel.generate_stream over a real openai client, then "
                   "agglomerate_stream_deltas; choices[0] only; no finish notion: every call is handed on"),
)
