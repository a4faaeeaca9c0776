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

from toolfuzz.targets.base import ANY_SCOPE, Limit, Scope

__all__ = ["SCOPES", "scope_for"]


def _servers(*names: str) -> frozenset[str]:
    return frozenset(names)


_OPENAI = _servers("openai", "azure")
_ANTHROPIC = _servers("anthropic")
_ANY = _servers("*")

_OPENAI_SDK = Scope(
    servers=_OPENAI, integer_ids=False,
    limits=(Limit(frozenset({"length", "content-filter-finish"}), frozenset({"raised"}),
                  "openai-python lib/streaming/chat/_completions.py: with parseable tools, a choice that finishes "
                  "with length or content_filter raises LengthFinishReasonError or ContentFilterFinishReasonError "
                  "(the helpers' README says so)"),),
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
    limits=(Limit(frozenset({"name-every-fragment"}), frozenset({"name_differs"}),
                  "pydantic-ai messages.py: a tool_name_delta is 'Incremental text to add to the existing tool "
                  "name', so a name repeated in every fragment is added each time"),),
    servers=_servers("openai", "azure", "ollama", "openrouter", "deepseek", "xai", "fireworks", "moonshot",
                     "groq", "vllm", "lm-studio"),
    choices=1,
    surface="pydantic_ai.models.openai.OpenAIChatModel.request_stream; ModelResponsePartsManager",
    cite="pydantic-ai docs, 'OpenAI-compatible models' (its provider list); models/openai.py reads "
         "choices[0] and never sends n")

#: langchain-core's ToolCallChunk docstring: merging concatenates every string attribute, and merges chunks only
#: when their index is equal and not None.
_MERGE_DOC = "langchain-core messages/tool.py, ToolCallChunk: "
_LANGCHAIN_MERGE = (
    Limit(frozenset({"index-missing", "index-null"}), frozenset({"arguments_misattributed", "call_lost"}),
          _MERGE_DOC + "'Chunks are only merged if their values of index are equal and not None'"),
    Limit(frozenset({"name-every-fragment", "id-every-fragment", "new-id-continuations"}),
          frozenset({"name_differs", "id_differs"}),
          _MERGE_DOC + "'all string attributes are concatenated' when chunks are merged"),
)
#: The shapes in which a stream ends before its finish reason arrives: the connection drops (before or amid a
#: call's arguments), or the last event, the one carrying the finish, lacks its blank line and is discarded.
_ENDS_UNFINISHED = frozenset({"disconnect", "disconnect-mid-arguments", "unterminated-event"})
#: smolagents hands on no finish reason at all: its stream deltas have no field for one, and a delta without an
#: index is refused with an error of its own.
_SMOLAGENTS = (
    Limit(frozenset({"length", "content-filter-finish"}) | _ENDS_UNFINISHED, frozenset({"incomplete_handed_on"}),
          "smolagents models.py: ChatMessageStreamDelta has no finish reason, generate_stream drops the finish "
          "chunks and generate ignores finish_reason too: whether a call finished is not part of what it hands on"),
    Limit(frozenset({"index-missing", "index-null"}), frozenset({"raised"}),
          "smolagents models.py, agglomerate_stream_deltas: a tool-call delta without an index raises "
          "ValueError('Tool call index is not provided') on purpose"),
)
#: vLLM's pythonic parser says, in a TODO above its class, that text together with calls is not supported yet.
_PYTHONIC_TEXT = Limit(frozenset({"content-before", "content-between", "content-after"}), frozenset(),
                       "vllm tool_parsers/pythonic_tool_parser.py, TODO above PythonicToolParser: 'Support text + "
                       "tools separated by either <|python_tag|> or \\n\\n' is a future improvement")

#: Every built-in adapter target's scope, by name (tests/targets/adapters/test_scopes.py: one for each).

def _null_strings(source: str, detector: str, why: str) -> Scope:
    """An sglang XML detector that reads a string written like null as null: held to robustness, since its format
    writes the string and the value alike."""
    return Scope(limits=(Limit(frozenset({"lookalike-strings"}), frozenset({"arguments_differ", "whole_differs"}),
                               f"sglang function_call/{source}, {why}; the XML format cannot tell the string from "
                               "the value"),),
                 surface=f"sglang's {detector}", cite=f"sglang function_call/{source}")


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
    "sseclient-py": Scope(
        specs=frozenset({"sse"}), surface=_DECODER.surface,
        limits=(Limit(_ENDS_UNFINISHED, frozenset({"phantom_event"}),
                      "sseclient-py's SSEClient docstring names the W3C working draft of 2009-10-29, under which "
                      "the event still pending when the stream ends is dispatched"),
                Limit(_ENDS_UNFINISHED, frozenset({"raised"}),
                      "sseclient/__init__.py: SSEClient._read yields a stream's unterminated tail at its end, and "
                      "events() decodes each line strictly with the char_enc the caller chose, so a stream cut "
                      "inside a character raises there, after every complete event was yielded")),
        cite="sseclient-py: 'See http://www.w3.org/TR/2009/WD-eventsource-20091029/ for the specification'"),
    **dict.fromkeys(("anthropic-accumulator", "anthropic-client", "langchain-anthropic",
                     "langchain-anthropic-client", "pydantic-ai-anthropic", "litellm-anthropic",
                     "litellm-anthropic-client"), _ANTHROPIC_SDK),
    # litellm's README: one interface to 100+ providers, OpenAI-compatible servers among them; n is passed on.
    **dict.fromkeys(("litellm-builder", "litellm-client"), Scope(
        servers=_ANY, integer_ids=False, limits=(Limit(
            _ENDS_UNFINISHED, frozenset({"incomplete_handed_on"}),
            "litellm streaming_chunk_builder_utils.py, _finish_reason_of_chunks(unreported='stop'): a stream that "
            "reported no finish reason is rebuilt as stop, as its stream wrapper does"),), surface="litellm.completion(stream=True), litellm.stream_chunk_builder",
        cite="litellm README and docs/providers: OpenAI-compatible endpoints, vLLM, Ollama, Groq, Fireworks, "
             "Gemini, Azure, ...; types/utils.py ChatCompletionDeltaToolCall: id is a str")),
    **dict.fromkeys(("pydantic-ai-parts", "pydantic-ai-openai"), _PYDANTIC_AI),
    "llama-index": Scope(servers=_OPENAI, choices=1, integer_ids=False, limits=(Limit(
        frozenset({"invalid-json"}), frozenset({"arguments_differ"}),
        "llama-index-llms-openai base.py, get_tool_calls_from_response: arguments that do not parse become {} on "
        "purpose ('this should handle both complete and partial jsons')"),),
                         surface="llama_index.llms.openai.OpenAI.stream_chat",
                         cite="llama-index-llms-openai: the OpenAI API (OpenAILike is a package of its own); "
                              "_stream_chat reads choices[0]"),
    "haystack": Scope(servers=_OPENAI, choices=1, integer_ids=False,
                      limits=(Limit(frozenset({"invalid-json"}), frozenset({"call_lost"}),
                                    "haystack components/generators/chat/openai.py: a call whose arguments are not "
                                    "JSON is logged as a warning and 'will be skipped' (set tools_strict to avoid "
                                    "it)"),
                              Limit(frozenset({"length"}), frozenset({"incomplete_handed_on"}),
                                    "haystack components/generators/chat/openai.py, _check_finish_reason: a reply "
                                    "cut by length keeps its calls, with meta finish_reason 'length' and a logged "
                                    "warning that it was truncated")),
                      surface="haystack.components.generators.chat.OpenAIChatGenerator with a streaming_callback",
                      cite="haystack docs, OpenAIChatGenerator: OpenAI's chat models; its chunk conversion "
                           "asserts one choice"),
    # The Agents SDK's docs, 'Models': any provider with an OpenAI-compatible Chat Completions API.
    "openai-agents": Scope(servers=_ANY, choices=1, integer_ids=False, limits=(Limit(
        frozenset({"length"}), frozenset({"incomplete_handed_on"}),
        "agents models/chatcmpl_stream_handler.py: finish_reason length is an error only for a response with no "
        "text, call or refusal; one with function calls is handed on by design, as the non-streamed path does"),
        Limit(_ENDS_UNFINISHED, frozenset({"incomplete_handed_on"}),
              "agents models/chatcmpl_stream_handler.py: require_finish_reason is 'Enabled for the official OpenAI "
              "endpoint only', as other providers' streams may end without one")),
                           surface="agents.models.openai_chatcompletions: ChatCmplStreamHandler.handle_stream",
                           cite="openai-agents docs 'Using other LLM providers'; it reads choices[0] and never "
                                "sends n; ResponseFunctionToolCall.call_id is a str"),
    "smolagents-agglomerate": Scope(servers=_ANY, choices=1, limits=_SMOLAGENTS,
                                    surface="smolagents OpenAIServerModel.generate_stream, agglomerate_stream_deltas",
                                    cite="smolagents docs: OpenAIServerModel for any OpenAI-compatible server; it "
                                         "reads choices[0]"),
    "langchain-openai": Scope(servers=_OPENAI, choices=1,
                              surface="langchain_openai.ChatOpenAI.stream",
                              cite="langchain-openai docs: ChatOpenAI targets the official OpenAI API spec only; "
                                   "n must be 1 when streaming"),
    # The message-chunk merge every LangChain chat model streams through, whatever server is behind it.
    "langchain-core": Scope(servers=_ANY, choices=1, integer_ids=False, limits=_LANGCHAIN_MERGE,
                            surface="langchain_core.messages.AIMessageChunk addition, tool_call_chunks",
                            cite="langchain-core: one message is one choice; every chat model integration "
                                 "streams its chunks through it; ToolCallChunk.id is a str"),
    **dict.fromkeys(("jiter-partial", "jiter-trailing-strings", "pydantic-core-partial",
                     "pydantic-core-trailing-strings", "partial-json-parser", "partial-json-parser-no-str",
                     "json-repair", "json-repair-stream-stable", "langchain-core-partial", "langchain-core-chunk-args",
                     "openai-parsed-arguments", "anthropic-input-snapshot"), _PARTIAL),
    # The npm examples (examples/node-*), over the subprocess protocol: their handshakes declare the same.
    **dict.fromkeys(("openai-node-stream", "openai-node-client"), Scope(
        servers=_OPENAI, integer_ids=False, surface="openai-node's ChatCompletionStream",
        cite="openai-node README (OpenAI, Azure OpenAI); its types give ids as strings")),
    "ai-sdk-parse-partial-json": _PARTIAL,
    "sglang-qwen3-coder": _null_strings("qwen3_coder_detector.py", "Qwen3CoderDetector", "_convert_param_value: "
                                        "'Handle null value for any type' turns a parameter written null into None "
                                        "before the schema is read"),
    "sglang-minimax-m2": _null_strings("minimax_m2.py", "MinimaxM2Detector", "_convert_param_value_with_types: a "
                                       "value written null (in any case), None or nil is None before the schema's "
                                       "types are tried"),
    "vllm-pythonic": Scope(limits=(_PYTHONIC_TEXT,), surface="vLLM's PythonicToolParser",
                           cite="vllm tool_parsers/pythonic_tool_parser.py"),
}


def scope_for(target: str) -> Scope:
    """The scope of a built-in target by name (``NAME@ENV`` as ``NAME``); any other's is the open one."""
    return SCOPES.get(target.partition("@")[0], ANY_SCOPE)
