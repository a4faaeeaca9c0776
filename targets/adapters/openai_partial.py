"""The openai SDK's provisional arguments: ``parsed_arguments`` while a strict tool's call streams.

``openai-parsed-arguments`` (partial): a ``ChatCompletionStreamState`` for a
request offering one strict function tool, fed the call's opening chunk and
then one chunk carrying the prefix as its arguments; the value is the
snapshot's ``function.parsed_arguments``, which ``chat.completions.stream()``
hands out on every ``tool_calls.function.arguments.delta`` event.  The state
parses the whole text so far at every delta (with jiter's
``from_json(..., partial_mode=True)``, so it builds on ``jiter-partial``),
so one delta holding the prefix shows what many deltas adding up to it would.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "parsed_arguments"]

_TOOLS = [{"type": "function", "function": {"name": "f", "strict": True,
                                            "parameters": {"type": "object", "additionalProperties": True}}}]


def _chunk(arguments: str, opening: bool) -> ChatCompletionChunk:
    call: dict[str, Any] = {"index": 0, "function": {"arguments": arguments}}
    if opening:
        call.update(id="call_1", type="function", function={"name": "f", "arguments": arguments})
    return ChatCompletionChunk.model_validate({
        "id": "chatcmpl-toolfuzz", "object": "chat.completion.chunk", "created": 0, "model": "toolfuzz",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]})


def parsed_arguments(text: str) -> Any:
    """ChatCompletionStreamState(input_tools=[strict tool]) fed the opening chunk, then the prefix."""
    state = ChatCompletionStreamState(input_tools=_TOOLS)
    state.handle_chunk(_chunk("", opening=True))
    state.handle_chunk(_chunk(text, opening=False))
    (call,) = state.current_completion_snapshot.choices[0].message.tool_calls
    return call.function.parsed_arguments


parsed_arguments('{"a": 1')  # loads what the state loads lazily, outside any case's audit hook

TARGETS = (
    Target(name="openai-parsed-arguments", fn=parsed_arguments, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, builds_on="jiter-partial", version=metadata.version("openai"),
           summary="function.parsed_arguments of ChatCompletionStreamState, a strict tool's streamed arguments"),
)
