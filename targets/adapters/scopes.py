"""What each built-in adapter's library promises to read: one table, each scope with where it is written.

A finding is graded against its target's scope (toolfuzz.severity): shapes
seen only from servers a library never promised to read make robustness,
not a bug, and a case with more choices than a library can ask for is never
run on it.  The scopes are read from each library's docs and types, cited
beside them; the table is imported without the libraries, so a fixture of a
target that is not installed here is graded the same way
(:func:`scope_for`).  ``adapters.installed`` gives each target its scope
from here.
"""

from __future__ import annotations

from toolfuzz.targets.base import ANY_SCOPE, Scope

__all__ = ["SCOPES", "scope_for"]


def _servers(*names: str) -> frozenset[str]:
    return frozenset(names)


_OPENAI = _servers("openai", "azure")
_ANTHROPIC = _servers("anthropic")
_ANY = _servers("*")

_OPENAI_SDK = Scope(
    servers=_OPENAI, integer_ids=False,
    surface="openai.OpenAI / AzureOpenAI: chat.completions.create(stream=True), .stream(), ChatCompletionStreamState",
    cite="openai-python README (OpenAI, Azure OpenAI); types/chat/chat_completion_chunk.py (index: int, id: "
         "Optional[str]); n is a documented parameter")
_ANTHROPIC_SDK = Scope(
    servers=_ANTHROPIC, choices=1, integer_ids=False,
    surface="anthropic.Anthropic: messages.stream(), MessageStream, accumulate_event",
    cite="anthropic-sdk-python README; types/raw_message_stream_event.py (the API has no n)")
_DECODER = Scope(
    specs=frozenset({"sse"}),
    surface="the decoder's own iterator over the response body",
    cite="its README: a Server-Sent Events client following the WHATWG spec")
_PARTIAL = Scope(
    specs=frozenset({"json"}), promises=frozenset({"raised_on_prefix"}),
    surface="the parser's partial entry point",
    cite="its docs: parses incomplete JSON, so a prefix of a JSON text is input it reads")
#: pydantic-ai's OpenAIChatModel with the providers its docs list as OpenAI-compatible; it reads choices[0].
_PYDANTIC_AI = Scope(
    servers=_servers("openai", "azure", "ollama", "openrouter", "deepseek", "xai", "fireworks", "moonshot",
                     "groq", "vllm", "lm-studio"),
    choices=1,
    surface="pydantic_ai.models.openai.OpenAIChatModel.request_stream; ModelResponsePartsManager",
    cite="pydantic-ai docs, 'OpenAI-compatible models' (its provider list); models/openai.py reads "
         "choices[0] and never sends n")

#: Every built-in adapter target's scope, by name (tests/targets/adapters/test_scopes.py: one for each).
SCOPES: dict[str, Scope] = {
    **dict.fromkeys(("openai-stream-state", "openai-client", "openai-client-done-events", "openai-responses-state",
                     "openai-responses-client"), _OPENAI_SDK),
    "openai-sse": Scope(servers=_OPENAI, surface="openai._streaming.SSEDecoder: what openai.Stream reads the body "
                                                 "with (reached through the client)",
                        cite="openai-python _streaming.py; it promises OpenAI's streams, not the WHATWG spec"),
    "anthropic-sse": Scope(servers=_ANTHROPIC, surface="anthropic._streaming.SSEDecoder: what anthropic.Stream "
                                                       "reads the body with (reached through the client)",
                           cite="anthropic-sdk-python _streaming.py; it promises Anthropic's streams"),
    "httpx-sse": _DECODER,
    "sseclient-py": _DECODER,
    **dict.fromkeys(("anthropic-accumulator", "anthropic-client", "langchain-anthropic",
                     "langchain-anthropic-client", "pydantic-ai-anthropic", "litellm-anthropic",
                     "litellm-anthropic-client"), _ANTHROPIC_SDK),
    # litellm's README: one interface to 100+ providers, OpenAI-compatible servers among them; n is passed on.
    **dict.fromkeys(("litellm-builder", "litellm-client"), Scope(
        servers=_ANY, surface="litellm.completion(stream=True), litellm.stream_chunk_builder",
        cite="litellm README and docs/providers: OpenAI-compatible endpoints, vLLM, Ollama, Groq, Fireworks, "
             "Gemini, Azure, ...")),
    **dict.fromkeys(("pydantic-ai-parts", "pydantic-ai-openai"), _PYDANTIC_AI),
    "llama-index": Scope(servers=_OPENAI, choices=1, integer_ids=False,
                         surface="llama_index.llms.openai.OpenAI.stream_chat",
                         cite="llama-index-llms-openai: the OpenAI API (OpenAILike is a package of its own); "
                              "_stream_chat reads choices[0]"),
    "haystack": Scope(servers=_OPENAI, choices=1, integer_ids=False,
                      surface="haystack.components.generators.chat.OpenAIChatGenerator with a streaming_callback",
                      cite="haystack docs, OpenAIChatGenerator: OpenAI's chat models; its chunk conversion "
                           "asserts one choice"),
    # The Agents SDK's docs, 'Models': any provider with an OpenAI-compatible Chat Completions API.
    "openai-agents": Scope(servers=_ANY, choices=1,
                           surface="agents.models.openai_chatcompletions: ChatCmplStreamHandler.handle_stream",
                           cite="openai-agents docs 'Using other LLM providers'; it reads choices[0] and never "
                                "sends n"),
    "smolagents-agglomerate": Scope(servers=_ANY, choices=1,
                                    surface="smolagents OpenAIServerModel.generate_stream, agglomerate_stream_deltas",
                                    cite="smolagents docs: OpenAIServerModel for any OpenAI-compatible server; it "
                                         "reads choices[0]"),
    "langchain-openai": Scope(servers=_OPENAI, choices=1,
                              surface="langchain_openai.ChatOpenAI.stream",
                              cite="langchain-openai docs: ChatOpenAI targets the official OpenAI API spec only; "
                                   "n must be 1 when streaming"),
    # The message-chunk merge every LangChain chat model streams through, whatever server is behind it.
    "langchain-core": Scope(servers=_ANY, choices=1,
                            surface="langchain_core.messages.AIMessageChunk addition, tool_call_chunks",
                            cite="langchain-core: one message is one choice; every chat model integration "
                                 "streams its chunks through it"),
    **dict.fromkeys(("jiter-partial", "jiter-trailing-strings", "pydantic-core-partial",
                     "pydantic-core-trailing-strings", "partial-json-parser", "partial-json-parser-no-str",
                     "json-repair", "json-repair-stream-stable", "langchain-core-partial", "langchain-core-chunk-args",
                     "openai-parsed-arguments", "anthropic-input-snapshot"), _PARTIAL),
    # The npm examples (examples/node-*), over the subprocess protocol: their handshakes declare the same.
    **dict.fromkeys(("openai-node-stream", "openai-node-client"), Scope(
        servers=_OPENAI, integer_ids=False, surface="openai-node's ChatCompletionStream",
        cite="openai-node README (OpenAI, Azure OpenAI); its types give ids as strings")),
    "ai-sdk-parse-partial-json": _PARTIAL,
}


def scope_for(target: str) -> Scope:
    """The scope of a built-in target by name (``NAME@ENV`` as ``NAME``); any other's is the open one."""
    return SCOPES.get(target.partition("@")[0], ANY_SCOPE)
