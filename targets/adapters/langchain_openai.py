"""langchain-openai's conversion of chat chunks, summed as a langchain user sums a stream.

``langchain-openai`` (events) gives each chunk, built as the openai SDK
builds it and dumped with ``model_dump()`` as ``ChatOpenAI._stream`` does,
to a real ``ChatOpenAI``'s ``_convert_chunk_to_generation_chunk``; each
message chunk gets its generation info merged into ``response_metadata``
(what ``BaseChatModel.stream`` does before yielding it), and the chunks are
summed with ``+`` (``full = full + chunk``).  Unlike ``langchain-core``, which
builds the tool call chunks itself, this is the whole path a
``ChatOpenAI(...).stream()`` user is on, short of the HTTP client.

What it claims, and how each field maps:

* ``index``, ``id``, ``name``, ``arguments``: the merged
  ``tool_call_chunks`` entry (its ``args`` is the joined text).  Reading the
  parsed ``tool_calls`` instead would lose the text: langchain repairs
  partial JSON into a value (``parse_partial_json``), which the tests show;
* ``complete``: the merged ``response_metadata["finish_reason"]`` is
  ``tool_calls`` or ``stop`` (summing concatenates strings, so a reason sent
  twice is not one of them), the check a langchain user makes;
* every call is choice 0: langchain-openai reads ``choices[0]`` only.

No ``status``: ``invalid_tool_calls`` holds what does not parse, but what
parses is not checked against any tool, and the target is given none.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

from toolfuzz.targets.adapters._support import quiet, sdk_chunks
from toolfuzz.targets.adapters.langchain_core import calls_of
from toolfuzz.targets.base import Target

__all__ = ["TARGETS", "assemble_with_chat_openai"]

try:
    from langchain_core.language_models.chat_models import _gen_info_and_msg_metadata as _metadata
except ImportError:  # releases before it was factored out merged the two the same way
    def _metadata(generation: Any) -> dict[str, Any]:
        return {**(generation.generation_info or {}), **generation.message.response_metadata}

# No request is ever made: the conversion is a method of the model, which needs a key to exist.
_MODEL = ChatOpenAI(model="x", api_key="toolfuzz", base_url="http://toolfuzz.invalid/v1", max_retries=0)


def assemble_with_chat_openai(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool_call_chunks of the sum of ChatOpenAI's message chunks for each chunk (choices[0] only)."""
    full: AIMessageChunk | None = None
    for chunk in sdk_chunks(chunks):
        generation = _MODEL._convert_chunk_to_generation_chunk(chunk.model_dump(), AIMessageChunk, {})
        if generation is None:
            continue
        message = generation.message
        message.response_metadata = _metadata(generation)
        full = message if full is None else full + message
    return calls_of(full)


TARGETS = (
    Target(name="langchain-openai", fn=quiet(assemble_with_chat_openai), level="events",
           reports=frozenset({"ids", "names", "completion"}), version=metadata.version("langchain-openai"),
           builds_on="langchain-core",
           summary="langchain-openai ChatOpenAI._convert_chunk_to_generation_chunk, message chunks summed, "
                   "choices[0] only; complete = merged finish_reason tool_calls/stop"),
)
