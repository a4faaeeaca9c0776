"""Rendering steps as ``chat.completion.chunk`` objects, and the chunks that carry no calls."""

from __future__ import annotations

from typing import Any, Sequence


from toolfuzz.strategies.stage import allows, boolean, integer, stage

from toolfuzz.strategies.plan import Step

__all__ = ["render_chunk", "groupings", "usage_chunk", "azure_filter_chunk", "content_filter_chunk",
           "error_chunk", "ERROR_MESSAGES"]

_ENVELOPE = {"id": "chatcmpl-toolfuzz", "object": "chat.completion.chunk", "created": 1700000000,
             "model": "toolfuzz-model"}

#: Messages servers put in mid-stream error chunks: OpenAI's, a gateway's quota (apache/rocketmq-dashboard#2178),
#: Anthropic's overloaded_error, llama-server's diff failure (ggml-org/llama.cpp#14060), and a localised one.
ERROR_MESSAGES = (
    "The server had an error while processing your request.",
    "quota exceeded",
    "Overloaded",
    "Invalid diff: now finding less tool calls!",
    "Rate limit reached for requests – retry après 2s",
)


def render_chunk(steps: Sequence[Step], active: frozenset[str]) -> dict[str, Any]:
    """One chunk holding ``steps``: one choice object per choice, in order of first appearance."""
    nulls = "explicit-nulls" in active
    by_choice: dict[int, dict[str, Any]] = {}
    for s in steps:
        choice = by_choice.get(s.choice)
        if choice is None:
            choice = by_choice[s.choice] = {"index": s.choice, "delta": {}, "logprobs": None,
                                             "finish_reason": None}
        delta = choice["delta"]
        if s.kind == "role":
            delta["role"] = "assistant"
            delta.setdefault("content", s.content)
        elif s.kind == "text":
            delta["content"] = (delta.get("content") or "") + (s.content or "")
        elif s.kind == "entry":
            delta.setdefault("tool_calls", []).append(s.entry)
        if s.reason is not None:
            choice["finish_reason"] = s.reason
    if nulls:
        for choice in by_choice.values():
            for key in ("role", "content", "tool_calls"):
                choice["delta"].setdefault(key, None)
    chunk = {**_ENVELOPE, "choices": list(by_choice.values())}
    if nulls:
        chunk["usage"] = None
    return chunk


@stage
def groupings(draw: Any, steps: Sequence[Step], active: frozenset[str]) -> list[list[Step]]:
    """Consecutive steps grouped into chunks; shrinks to one step per chunk.

    Grouping puts several tool-call entries, or several choices, in one chunk.
    A finish step is never grouped with an entry of its own choice: that shape
    belongs to the ``finish-with-arguments`` profile, which builds it itself.
    """
    groups: list[list[Step]] = []
    merging = integer(draw, 0, 3) == 3
    for s in steps:
        if groups and merging and boolean(draw):
            own_finish = s.kind == "finish" and any(p.choice == s.choice and p.kind == "entry" for p in groups[-1])
            other_choice = any(p.choice != s.choice for p in groups[-1]) and not allows("multi-choice-chunk")
            entries = [p.call for p in groups[-1] if p.kind == "entry" and p.choice == s.choice]
            same_call = s.kind == "entry" and s.call in entries and not allows("same-call-entries")
            other_call = s.kind == "entry" and any(c != s.call for c in entries) and not allows("multi-entry-chunk")
            if not (own_finish or other_choice or same_call or other_call):
                groups[-1].append(s)
                continue
        groups.append([s])
    return groups


def usage_chunk(active: frozenset[str]) -> dict[str, Any]:
    return {**_ENVELOPE, "choices": [],
            "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}}


#: Azure's own annotation chunks carry no completion's envelope: empty id, object and model, created 0 (as
#: captured in microsoft/semantic-kernel#3650, microsoft/autogen#6465 and langchain-ai/langchain#18977).
_AZURE_ENVELOPE = {"id": "", "object": "", "created": 0, "model": ""}


def azure_filter_chunk() -> dict[str, Any]:
    return {**_AZURE_ENVELOPE, "choices": [],
            "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {
                "hate": {"filtered": False, "severity": "safe"},
                "self_harm": {"filtered": False, "severity": "safe"}}}]}


def content_filter_chunk(choice: int) -> dict[str, Any]:
    return {**_AZURE_ENVELOPE, "choices": [{
        "index": choice, "finish_reason": None,
        "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
        "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 120}}]}


def error_chunk(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
