"""Call shapes: named, composable profiles of what real servers send.

Each profile is one deviation from the documented OpenAI shape (``openai``),
with the evidence that a server sends it: the issue, capture or server code
it was seen in (``toolfuzz profiles -v`` lists them).  A case
draws a set of compatible profiles; the empty set is the ``openai`` shape,
which is where shrinking ends.

Where a shape is ambiguous, the profile fixes the ground truth, in the same
way as the reference contract (``targets/reference/assembler.py``):

* ``index-missing`` / ``index-null``: a fragment without an index extends the
  choice's latest call, and a fragment with a name and no repeated id opens
  the next one, numbered by its position.  Calls therefore never interleave
  within a choice under these profiles, and only headers carry names.
* ``index-zero``: every call on index 0, each opened by a header with a name
  and a new id; continuations extend the latest call on index 0.  Calls are
  sequential; the outcome keeps them all on index 0, in opening order.
* ``new-id-continuations``: the first id is the call's id.
* ``utf16-halves``: the ground truth is the whole character.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from toolfuzz.severity import Source

__all__ = ["Profile", "PROFILES", "CONFLICTS", "compatible", "INDEX_PROFILES", "RESPONSES_PROFILES",
           "ANTHROPIC_PROFILES", "DIALECT_PROFILES"]


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str
    evidence: str
    #: The servers (``toolfuzz.severity.SERVERS``) whose captures, code or issues show them sending it.
    seen_from: frozenset[str] = frozenset()
    #: The providers whose own docs or SDK types show it.
    documented_by: frozenset[str] = frozenset()
    #: Where the outcome this profile fixes comes from: the wire's own meaning (``PROVIDER``, ``CAPTURE``), or
    #: the project's resolution of a shape whose meaning the wire leaves open (``CHOICE``), which grounds no
    #: bug by itself (toolfuzz.severity).
    truth: Source = Source.PROVIDER

    def __str__(self) -> str:
        return self.name



def _S(*names: str) -> frozenset[str]:
    return frozenset(names)


_P = [
    # OpenAI captures: openai/openai-python .inline-snapshot/external/453df473e962*.bin (gpt-4o, 2024).
    Profile("openai", "documented shape: index always, id/type/name on the first fragment, arguments after",
            "openai-python chat_completion_chunk.py types; raw captures in openai-python .inline-snapshot",
            seen_from=_S('openai', 'azure', 'vllm', 'sglang', 'ollama'), documented_by=_S('openai', 'azure')),
    # Header without id, id on a later fragment: vLLM #18412 (id missing), delayed fields in vercel/ai #14760.
    Profile("no-first-id", "first fragment has no id; the id arrives on the next fragment",
            "vllm-project/vllm#18412; vercel/ai#14760 (PR #15879)",
            seen_from=_S('vllm', 'sglang')),
    # Fireworks repeats the id on every chunk (BerriAI/litellm#8990); SGLang early '0'/'1' (InternLM/lmdeploy#3412).
    Profile("id-every-fragment", "the call's id repeated on every fragment",
            "BerriAI/litellm#8990 (Fireworks); InternLM/lmdeploy#3412 (SGLang)",
            seen_from=_S('fireworks', 'sglang')),
    # Poolside header id A then id B (poolsideai/pool#9); LM Studio fresh id per chunk (NousResearch/hermes-agent#5254).
    Profile("new-id-continuations", "continuations carry a new id each; the first id is the call's id",
            "poolsideai/pool#9; NousResearch/hermes-agent#5254 (LM Studio)",
            seen_from=_S('poolside', 'lm-studio'), truth=Source.CHOICE),
    # Gemini compat sends id "" (meilisearch PR #5712); vLLM continuations id='' (lmdeploy#3412).
    Profile("empty-id", 'id "" on continuations, and on every fragment of some calls (then no id)',
            "meilisearch PR #5712 (Gemini compat); InternLM/lmdeploy#3412 (vLLM)",
            seen_from=_S('gemini-compat', 'vllm')),
    # Poolside sends integer ids (hermes-agent accumulator comment); the contract keeps them as text.
    Profile("integer-id", "ids are JSON integers; expected as their decimal text",
            "NousResearch/hermes-agent accumulator (Poolside integer ids)",
            seen_from=_S('poolside')),
    # MiniMax via NVIDIA NIM (hermes-agent#8259), llama.cpp before PR #13800 (#13774), vLLM #14951.
    Profile("name-every-fragment", "the full name repeated on every fragment (never concatenated)",
            "NousResearch/hermes-agent#8259; ggml-org/llama.cpp#13774; vllm-project/vllm#14951",
            seen_from=_S('nvidia-nim', 'llama.cpp', 'vllm')),
    # LM Studio name "" on continuations (lmstudio-bug-tracker#649); relay Gemini-3.1 (dyedd/lens#49).
    Profile("empty-name-continuations", 'name "" on every continuation',
            "lmstudio-ai/lmstudio-bug-tracker#649; dyedd/lens#49; raullenchai/Rapid-MLX#579",
            seen_from=_S('lm-studio')),
    # vLLM header has no arguments key (vllm#28806; moeru-ai/xsai#235: clients built "undefined{...").
    Profile("no-arguments-key", "the first fragment has no arguments key at all",
            "vllm-project/vllm#28806; moeru-ai/xsai#235; CherryHQ/cherry-studio PR #3267",
            seen_from=_S('vllm')),
    # Ollama, Groq, Mistral, xAI send each call whole (ollama openai.go; semantic-kernel#6316; litellm#7621).
    Profile("whole-call", "each call whole in one fragment: id, name and all its arguments",
            "ollama/ollama openai/openai.go; microsoft/semantic-kernel#6316; BerriAI/litellm#7621",
            seen_from=_S('ollama', 'groq', 'mistral', 'xai', 'gemini-compat')),
    # Ollama <= 0.4.6 (ollama#7881), SGLang (#5661), mistral.rs PR #1507, Gemini compat (openai-python#2806).
    Profile("index-missing", "tool-call entries carry no index; a named header opens the next call",
            "ollama/ollama#7881; sgl-project/sglang#5661; openai/openai-python#2806",
            seen_from=_S('ollama', 'sglang', 'gemini-compat', 'mistral.rs', 'sambanova'), truth=Source.CAPTURE),
    # Gemini compat sends "index": null (meilisearch PR #5712).
    Profile("index-null", 'tool-call entries carry "index": null; resolved as index-missing',
            "meilisearch PR #5712 (Gemini compat)",
            seen_from=_S('gemini-compat'), truth=Source.CAPTURE),
    # Ollama 2026 all index 0 (ollama#15457), Dynamo PR #4723, Grok via OCI (langchain-oracle PR #108).
    Profile("index-zero", "every call on index 0, told apart by distinct ids and names",
            "ollama/ollama#15457; ai-dynamo/dynamo PR #4723; oracle/langchain-oracle PR #108",
            seen_from=_S('ollama', 'dynamo', 'xai', 'openrouter'), truth=Source.CAPTURE),
    # Foundry Local index always 1 (microsoft/foundry-local#372); off by one (bedrock-access-gateway#134).
    Profile("index-from-one", "tool-call indexes start at 1",
            "microsoft/foundry-local#372; aws-samples/bedrock-access-gateway#134",
            seen_from=_S('foundry-local', 'bedrock-gateway')),
    # SGLang model_dump_json() writes every unset field as null (sgl-project/sglang#6310).
    Profile("explicit-nulls", "unset fields written as null (id, type, name, content, role, usage)",
            "sgl-project/sglang#6310",
            seen_from=_S('sglang')),
    # A server slicing JavaScript strings cuts between UTF-16 halves; the reference pairs them (verdict.join_surrogates).
    Profile("utf16-halves", "fragments cut between the two UTF-16 halves of a character (lone surrogate escapes)",
            "targets/reference/verdict.join_surrogates; JavaScript string slicing (inferred)",
            truth=Source.CHOICE),
    # vLLM puts finish_reason on the chunk with the remaining arguments (vllm#44098, serving.py).
    Profile("finish-with-arguments", "finish_reason on the chunk that carries the last arguments",
            "vllm-project/vllm#44098; llm-d-inference-sim PR #545",
            seen_from=_S('vllm')),
    # Gemini compat streams finish_reason "stop" for tool calls (googleapis/python-genai#2868).
    Profile("stop-finish", 'finish_reason "stop" instead of "tool_calls"',
            "googleapis/python-genai#2868; vLLM named tool_choice; huggingface/text-generation-inference#2794",
            seen_from=_S('gemini-compat', 'vllm', 'tgi')),
    # Every captured server opens each choice with delta {"role":"assistant",...} (openai-python's captures,
    # vLLM's and SGLang's serving code, llama-server), so the plain stream does; its absence is a shape of its own.
    Profile("no-role-chunk", "no delta carries a role: a choice opens straight with its calls",
            "inferred: OpenAI (openai-python .inline-snapshot 453df473e962*.bin), vLLM, SGLang and llama-server "
            "all open each choice with role assistant; openai-node's finalChatCompletion asserts it"),
    # Models often say something first ("Let me check"), then call (vLLM common_tests: surrounding text).
    Profile("text-before-calls", "content text before the calls",
            "vllm-project/vllm tests/tool_parsers/common_tests.py; Anthropic text block then tool_use",
            seen_from=_S('vllm', 'anthropic'), documented_by=_S('openai', 'azure')),
    # stream_options.include_usage: final chunk with choices [] (OpenAI capture; vLLM; SGLang; Ollama).
    Profile("usage-chunk", "a usage chunk with choices [] before the end",
            "openai-python captures (include_usage); ollama middleware/openai.go",
            seen_from=_S('openai', 'vllm', 'sglang', 'ollama'), documented_by=_S('openai', 'azure')),
    # Azure's first chunk: empty ids, choices [], prompt_filter_results (microsoft/semantic-kernel#3650).
    Profile("azure-filter-chunk", "an Azure prompt-filter chunk with choices [] first",
            "microsoft/semantic-kernel#3650; pydantic/pydantic-ai#164",
            seen_from=_S('azure'), documented_by=_S('azure')),
    # Azure content-filter annotation chunk without delta (microsoft/autogen#6465; langchain#18977).
    Profile("content-filter-chunk", "an Azure content-filter chunk whose choice has no delta",
            "microsoft/autogen#6465; langchain-ai/langchain#18977",
            seen_from=_S('azure'), documented_by=_S('azure')),
]

PROFILES: dict[str, Profile] = {p.name: p for p in _P}

INDEX_PROFILES = frozenset({"index-missing", "index-null", "index-zero", "index-from-one"})
_PER_FRAGMENT = frozenset({"no-first-id", "id-every-fragment", "new-id-continuations", "name-every-fragment",
                           "empty-name-continuations", "no-arguments-key", "utf16-halves"})
_CONFLICTS: list[tuple[str, Iterable[str]]] = [
    *((p, INDEX_PROFILES - {p}) for p in INDEX_PROFILES),
    ("whole-call", _PER_FRAGMENT),
    ("name-every-fragment", ("index-missing", "index-null", "new-id-continuations", "empty-name-continuations")),
    ("index-zero", ("no-first-id", "empty-id")),
    ("empty-id", ("id-every-fragment", "new-id-continuations")),
    ("id-every-fragment", ("new-id-continuations",)),
]


def _conflict_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {name: set() for name in PROFILES}
    for a, bs in _CONFLICTS:
        for b in bs:
            table[a].add(b)
            table[b].add(a)
    return {k: frozenset(v) for k, v in table.items()}


CONFLICTS = _conflict_table()


def compatible(chosen: Iterable[str], candidate: str) -> bool:
    return all(candidate not in CONFLICTS[c] for c in chosen)


# -- the other dialects ----------------------------------------------------------
# Their shapes are rendered by strategies/dialects/ (docs/dialects.md sets the three wires side by side).

_RESPONSES = [
    # Capture, gpt-5 2025-09-28: SwiftedMind/SwiftAgent OpenAIStreamingToolCallsTests.swift.
    Profile("responses", "documented shape: created, in_progress, output_item.added (function_call), argument "
            "deltas keyed by item_id and output_index, arguments .done, output_item.done, response.completed",
            "openai-python types/responses; SwiftedMind/SwiftAgent OpenAIStreamingToolCallsTests.swift capture",
            seen_from=_S('openai', 'ollama'), documented_by=_S('openai')),
    # The same capture: a reasoning item at output_index 0 puts the call at output_index 1.
    Profile("reasoning-first", "a reasoning item first, so calls start at output_index 1",
            "SwiftedMind/SwiftAgent capture (gpt-5, reasoning item at output_index 0)",
            seen_from=_S('openai'), documented_by=_S('openai')),
    Profile("text-before-calls", "a message item with output_text deltas before the calls",
            "openai-python types/responses ResponseTextDeltaEvent; models say something first",
            seen_from=_S('openai'), documented_by=_S('openai')),
    # The capture's deltas carry an `obfuscation` padding field next to the delta.
    Profile("obfuscation", "argument deltas carry an obfuscation field",
            "SwiftedMind/SwiftAgent capture (delta events with obfuscation)",
            seen_from=_S('openai'), documented_by=_S('openai')),
    # Newer openai-python beta types add an optional name on .done; the live API omits it.
    Profile("done-with-name", "the arguments .done event repeats the call's name",
            "openai-python beta ResponseFunctionCallArgumentsDoneEvent (optional name; find_string 54650440962)",
            documented_by=_S('openai')),
    Profile("whole-arguments", "each call's arguments in a single delta",
            "ollama/ollama middleware/openai.go (/v1/responses emits whole calls)",
            seen_from=_S('ollama')),
    # vercel/ai packages/open-responses/src/responses/__fixtures__/lmstudio-tool-call.1.chunks.txt (and .2).
    Profile("arguments-only-in-done", "no argument delta: the arguments come only in "
            "response.function_call_arguments.done",
            "vercel/ai packages/open-responses/src/responses/__fixtures__/lmstudio-tool-call.1.chunks.txt",
            seen_from=_S('lm-studio')),
    # vercel/ai packages/openai/src/responses/__fixtures__/github-copilot-id-rotation.1.chunks.txt: every event
    # of an item carries a fresh item_id; only output_index ties them (vercel/ai #18548).
    Profile("rotating-item-id", "each delta and .done of a call carries a fresh item_id; only output_index ties "
            "them to the call",
            "vercel/ai packages/openai/src/responses/__fixtures__/github-copilot-id-rotation.1.chunks.txt",
            seen_from=_S('github-copilot')),
    # Not observed: the wire keys every delta by item_id and output_index, so nothing forbids it.
    Profile("interleaved-items", "the deltas of two calls interleave (inferred, keyed by item_id)",
            "inferred from the keying; parallel calls observed sequential"),
]

_ANTHROPIC = [
    # Streaming docs: message_start, per block start/deltas/stop, message_delta (stop_reason), message_stop.
    Profile("anthropic", "documented shape: event lines, message_start, content_block_start (tool_use id, name), "
            "input_json_delta fragments, content_block_stop, message_delta with stop_reason, message_stop",
            "docs build-with-claude/streaming; anthropic-sdk-python types RawMessageStreamEvent",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # vercel/ai anthropic-json-tool.1.chunks.txt and anthropic-tool-no-args.chunks.txt start with partial_json "".
    Profile("empty-first-delta", 'the first input_json_delta of each call is ""',
            "vercel/ai packages/anthropic/src/__fixtures__/anthropic-json-tool.1.chunks.txt",
            seen_from=_S('anthropic')),
    # The same fixture has a ping between two deltas; the docs allow any number of pings.
    Profile("ping-between-deltas", "ping events between deltas and after message_start",
            "vercel/ai anthropic-json-tool.1.chunks.txt; docs build-with-claude/streaming (ping)",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # anthropic-tool-no-args.chunks.txt: text block 0, tool block 1, so block index != tool index.
    Profile("text-before-tools", "a text block first: tool blocks start at index 1",
            "vercel/ai anthropic-tool-no-args.chunks.txt",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # Extended thinking streams thinking_delta then signature_delta in block 0 (docs, extended thinking).
    Profile("thinking-before-tools", "a thinking block (thinking and signature deltas) first",
            "docs build-with-claude/streaming (extended thinking); anthropic types ThinkingBlock",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # anthropic-issue-11719-quoted-tool-input.chunks.txt: caller in the tool_use block, stop_details, inference_geo.
    Profile("block-extras", "unknown extra fields in blocks and message_delta (caller, stop_details)",
            "vercel/ai anthropic-issue-11719-quoted-tool-input.chunks.txt",
            seen_from=_S('anthropic')),
    # Fine-grained tool streaming sends longer chunks with fewer breaks.
    Profile("whole-input", "each call's input in a single input_json_delta",
            "docs agents-and-tools/tool-use/fine-grained-tool-streaming",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # vercel/ai anthropic-tool-search-regex.1.chunks.txt (also -bm25.1, anthropic-mcp.1, code execution): a
    # server tool's block streams its own input_json_delta, then its result block, before the client's calls.
    Profile("server-tool-block", "a server_tool_use block (tool search) streams its own input, then its result "
            "block, before the calls: no client call",
            "vercel/ai packages/anthropic/src/__fixtures__/anthropic-tool-search-regex.1.chunks.txt",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # anthropic-programmatic-tool-calling.1.chunks.txt: a call made from code execution (caller names it)
    # carries its whole input in content_block_start and gets no delta.
    Profile("input-at-start", "a call made from code (programmatic tool calling) carries its whole input in "
            "content_block_start, with a caller, and no delta",
            "vercel/ai packages/anthropic/src/__fixtures__/anthropic-programmatic-tool-calling.1.chunks.txt",
            seen_from=_S('anthropic'), documented_by=_S('anthropic')),
    # The same capture's later responses: the whole message (tool_use blocks with their input, stop_reason) in
    # message_start, then only message_stop; the AI SDK reads them ("content may be in message_start").
    Profile("whole-message-start", "the whole message in message_start (its tool_use blocks with their input, "
            "its stop_reason), then only message_stop",
            "vercel/ai anthropic-programmatic-tool-calling.1.chunks.txt (responses 2-14); "
            "packages/anthropic/src/anthropic-language-model.ts (message_start content)",
            seen_from=_S('anthropic')),
    # Not observed (blocks arrive one after the other); the wire keys every delta by block index.
    Profile("interleaved-blocks", "the deltas of two tool blocks interleave (inferred, keyed by index)",
            "inferred from the keying; blocks observed sequential"),
]

RESPONSES_PROFILES: dict[str, Profile] = {p.name: p for p in _RESPONSES}
ANTHROPIC_PROFILES: dict[str, Profile] = {p.name: p for p in _ANTHROPIC}

#: The call-shape profiles of each dialect; the first of each is its documented shape.
DIALECT_PROFILES: dict[str, dict[str, Profile]] = {
    "openai-chat": PROFILES,
    "openai-responses": RESPONSES_PROFILES,
    "anthropic": ANTHROPIC_PROFILES,
}
