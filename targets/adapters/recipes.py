"""How a standalone repro script drives each built-in adapter's library: the adapter's own function.

``toolfuzz export --format repro`` (``toolfuzz.outputs.repro``) writes, for a
fixture, a script that reproduces it with only the library installed.  The
script does not carry a second copy of how toolfuzz feeds the library: it
carries the adapter's own code (the function below, and what it uses, read
from the adapter's source by ``toolfuzz.outputs.excerpt``), so the text a
script runs is the text this project's adapter tests run.  Like scopes.py,
the table is read without the libraries: a repro is written where its
library is not installed.

Each recipe names the adapter module and the expression a script calls
with the stream, as the target's level hands it over (chunks or events at
level events, network reads at bytes and sse, one prefix at partial, the
batches with the request's tools and limits at producer).  A built-in
target missing here has no repro script: :data:`NO_RECIPE` says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfuzz.vocabulary import TEXT_FORMATS

__all__ = ["Recipe", "RECIPES", "NO_RECIPE"]


@dataclass(frozen=True)
class Recipe:
    #: The adapter module, under ``toolfuzz.targets.adapters``.
    module: str
    #: What the target runs, as the module spells it: a function, or the call of a factory that makes it.
    run: str
    #: The target hands on each call's arguments as a parsed value (it claims ``values``): a script compares
    #: them as values, as the judge does.
    values: bool = False
    #: What the adapter's code (and so the script) puts in place of parts of the library that the path it
    #: drives never uses, said in the issue body so that a maintainer knows what the script did not import.
    stands_in: str = ""

    @property
    def module_name(self) -> str:
        return f"toolfuzz.targets.adapters.{self.module}"


_SGLANG_STANDS_IN = ("sglang's package __init__ and sglang.utils (the server's imports), and xgrammar where it is "
                     "not installed (structural tags, which parsing never builds): the detectors are sglang's own")

RECIPES: dict[str, Recipe] = {
    "openai-stream-state": Recipe("openai_chat", "assemble_with_state"),
    "openai-client": Recipe("openai_chat", "assemble_with_client"),
    "openai-client-done-events": Recipe("openai_chat", "handed_on_by_done_events"),
    "openai-sse": Recipe("openai_sse", "decode"),
    "anthropic-sse": Recipe("anthropic_sse", "decode"),
    "httpx-sse": Recipe("httpx_sse", "decode"),
    "sseclient-py": Recipe("sseclient_py", "decode"),
    "anthropic-accumulator": Recipe("anthropic_messages", "assemble_with_accumulator", values=True),
    "anthropic-client": Recipe("anthropic_messages", "assemble_with_client", values=True),
    "openai-responses-state": Recipe("openai_responses", "assemble_with_state"),
    "openai-responses-client": Recipe("openai_responses", "assemble_with_client"),
    "langchain-core": Recipe("langchain_core", "assemble_with_message_chunks"),
    "langchain-anthropic": Recipe("langchain_anthropic", "assemble_with_conversion"),
    "langchain-anthropic-client": Recipe("langchain_anthropic", "assemble_with_chat_model"),
    "langchain-openai": Recipe("langchain_openai", "assemble_with_chat_openai"),
    "litellm-builder": Recipe("litellm", "assemble_with_builder"),
    "litellm-client": Recipe("litellm", "assemble_with_client"),
    "litellm-anthropic": Recipe("litellm_anthropic", "assemble_with_parser"),
    "pydantic-ai-parts": Recipe("pydantic_ai", "assemble_with_parts_manager"),
    "pydantic-ai-openai": Recipe("pydantic_ai", "assemble_with_model"),
    "pydantic-ai-anthropic": Recipe("pydantic_ai_anthropic", "assemble_with_model"),
    "llama-index": Recipe("llama_index", "assemble_with_update_tool_calls"),
    "haystack": Recipe("haystack", "assemble_with_stream_response"),
    "openai-agents": Recipe("openai_agents", "assemble_with_stream_handler"),
    "smolagents-agglomerate": Recipe("smolagents", "assemble_with_agglomerate"),
    "json-repair": Recipe("json_repair", "loads"),
    "json-repair-stream-stable": Recipe("json_repair", "stream_stable"),
    "jiter-partial": Recipe("jiter_partial", "partial_on"),
    "jiter-trailing-strings": Recipe("jiter_partial", "trailing_strings"),
    "pydantic-core-partial": Recipe("pydantic_core_partial", "partial"),
    "pydantic-core-trailing-strings": Recipe("pydantic_core_partial", "trailing_strings"),
    "partial-json-parser": Recipe("partial_json_parser", "allow_all"),
    "partial-json-parser-no-str": Recipe("partial_json_parser", "no_partial_strings"),
    "langchain-core-partial": Recipe("langchain_core_partial", "parse"),
    "langchain-core-chunk-args": Recipe("langchain_core_partial", "chunk_args"),
    "openai-parsed-arguments": Recipe("openai_partial", "parsed_arguments"),
    "anthropic-input-snapshot": Recipe("anthropic_partial", "input_snapshot"),
    **{f"sglang-{fmt}": Recipe("sglang", f"_producer(PARSERS[{fmt!r}])", stands_in=_SGLANG_STANDS_IN)
       for fmt in TEXT_FORMATS},
    **{f"vllm-{fmt}": Recipe("vllm", f"_producer({fmt!r})") for fmt in TEXT_FORMATS
       if fmt not in ("internlm", "cohere-command4")},
}

#: Built-in targets with no recipe, and why: said in one line where a fixture of theirs is exported.
NO_RECIPE: dict[str, str] = {
    "litellm-anthropic-client": "it labels calls with toolfuzz's own SSE decoder, which a script cannot carry",
}
