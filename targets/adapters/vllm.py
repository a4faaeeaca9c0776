"""vLLM's tool parsers, driven by vLLM's own chat serving classes (level ``producer``).

One target per format, ``vllm-<format>``: the parser ``vllm serve
--enable-auto-tool-choice --tool-call-parser <name>`` runs for that format.

vLLM 0.34's server does not call a tool parser itself: it composes a
``Parser`` class (``ParserManager.get_parser``) and hands each engine step
to a ``ChatStreamProcessor``, and a whole response to ``Parser.parse`` and
``assemble_chat_message_fields``.  This adapter drives those same classes, so
the order of calls, the end-of-stream flush of arguments a parser recorded
but never sent, the engine parsers' own flush, and which calls the server
keeps are vLLM's code, not a copy of it:

* The request: a ``ChatCompletionRequest`` with the case's tools (tool choice
  ``auto``), adjusted by a parser of its own as the renderer adjusts it.
* Streamed: one ``step(delta_text, delta_token_ids, finish_reason,
  prompt_token_ids)`` per batch, the last with finish reason ``stop``.  Each
  delta is serialised as the server serialises its chunk (the fields the
  parser set, in JSON) and its ``tool_calls`` entries handed on.  A raise
  here, in the parser or in the JSON, ends the server's stream with an
  error event, and is a raise here too.
* Whole: ``parse`` then ``assemble_chat_message_fields``; the server has no
  guard around it (a raise fails the request), and neither has this.

No model is loaded.  :class:`StandInTokenizer` has the format's special
marks (``toolfuzz.vocabulary.TEXT_SPECIALS``) as its vocabulary and gives
every other piece of text an id when first seen, so that a batch's token ids
hold a mark's id exactly when its text holds the mark and decode back to its
text, which is all the parsers look at.  Kimi K2 gets a stand-in model
config whose type makes the server write Kimi's own ``functions.<name>:<n>``
ids.

Two formats are left out: vLLM's ``internlm`` parser reads InternLM2's
``<|action_start|><|plugin|>`` with no space between, not the Intern-S1
layout this project writes, and its ``cohere_command4`` parser hands on only
text inside ``<|START_RESPONSE|>``, which the project's Command rendering
does not write (docs/producers.md).  vLLM needs torch at import: ``toolfuzz
env add vllm`` makes its environment with a CPU build, then ``--target
vllm-hermes@vllm``.
"""

from __future__ import annotations

import json
import logging
import os
from importlib import metadata
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Sequence

# Read once, at vLLM's import: its loggers would otherwise write every text a parser cannot read yet.
os.environ.setdefault("VLLM_LOGGING_LEVEL", "CRITICAL")

from vllm.entrypoints.openai.chat_completion.message_assembly import assemble_chat_message_fields  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor  # noqa: E402
from vllm.parser import ParserManager  # noqa: E402

from toolfuzz.targets.base import Target  # noqa: E402
from toolfuzz.vocabulary import TEXT_SPECIALS, Limits, Tool, text_tokens  # noqa: E402

__all__ = ["TARGETS", "PARSERS", "StandInTokenizer"]

logging.getLogger("vllm").setLevel(logging.CRITICAL)
_VERSION = metadata.version("vllm")

#: The parser name vLLM's server takes for each format (``--tool-call-parser``).  vLLM has no Qwen 2.5 parser
#: of its own: Qwen's documentation serves it with ``hermes``.
PARSERS = {
    "hermes": "hermes", "qwen25": "hermes", "llama3": "llama3_json", "mistral": "mistral",
    "deepseek-v3": "deepseek_v3", "deepseek-v31": "deepseek_v31", "kimi-k2": "kimi_k2", "pythonic": "pythonic",
    "apertus": "apertus", "qwen3-coder": "qwen3_coder", "glm47": "glm47", "deepseek-v32": "deepseek_v32", "minimax-m2": "minimax_m2",
    "kimi-k3": "kimi_k3", "step3": "step3", "glm45": "glm45", "minimax-m3": "minimax_m3",
}
#: The model type vLLM's server reads to write a model family's own tool-call ids.
_MODEL_TYPES = {"kimi-k2": "kimi_k2"}
#: Any prompt: without one the parser never leaves its prompt phase, and every text is content.
_PROMPT = [1, 2, 3]


class StandInTokenizer:
    """A tokenizer without files: the format's special marks are the vocabulary, with fixed ids; every other
    piece of text gets the next id when first seen.  It answers what vLLM's parsers ask of a tokenizer:
    ``get_vocab`` (which marks exist, and whether a Mistral tokenizer is of the v11 kind), the special tokens
    (an engine parser drops every special token its grammar does not know), ``decode`` of a step's ids, and
    ``convert_tokens_to_ids``."""

    def __init__(self, specials: Sequence[str]) -> None:
        self._special = {s: 100_000 + k for k, s in enumerate(specials)}
        self.forget()

    def forget(self) -> None:
        """Drop the ids given to ordinary text: they need to hold within one response only, and a night's
        texts would otherwise grow the table without end."""
        self._ids = dict(self._special)
        self._pieces = {i: s for s, i in self._special.items()}

    def get_vocab(self) -> dict[str, int]:
        return dict(self._special)

    @property
    def all_special_tokens(self) -> list[str]:
        return list(self._special)

    @property
    def all_special_ids(self) -> list[int]:
        return list(self._special.values())

    def convert_tokens_to_ids(self, tokens: str | list[str]) -> Any:
        return self._special.get(tokens) if isinstance(tokens, str) else [self._special.get(t) for t in tokens]

    def decode(self, ids: int | Sequence[int], skip_special_tokens: bool = False, **_: Any) -> str:
        ids = [ids] if isinstance(ids, int) else ids
        return "".join(self._pieces[i] for i in ids if not (skip_special_tokens and i in self._special.values()))

    def ids(self, text: str) -> list[int]:
        """The ids of ``text``'s tokens (``toolfuzz.vocabulary.text_tokens``, where batches are cut)."""
        out = []
        for piece in text_tokens(text, tuple(self._special)):
            if piece not in self._ids:
                self._ids[piece] = 1_000_000 + len(self._ids)  # above the marks' ids and the prompt's
                self._pieces[self._ids[piece]] = piece
            out.append(self._ids[piece])
        return out

    def __bool__(self) -> bool:  # the parsers test ``if not self.model_tokenizer``
        return True


def _model_config(fmt: str) -> Any:
    model_type = _MODEL_TYPES.get(fmt)
    if model_type is None:
        return None
    hf = SimpleNamespace(model_type=model_type)
    return SimpleNamespace(hf_config=hf, hf_text_config=hf, hf_overrides={}, architecture=None, model="stand-in")


def _producer(fmt: str) -> Callable[..., dict[str, Any]]:
    tokenizer = StandInTokenizer(TEXT_SPECIALS[fmt])
    # The server makes this once, at start-up, and checks it against the tokenizer then.
    composed = ParserManager.get_parser(tool_parser_name=PARSERS[fmt], enable_auto_tools=True,
                                        model_name="stand-in", tokenizer=tokenizer)
    config = _model_config(fmt)

    def parser(request: ChatCompletionRequest) -> Any:
        return composed(tokenizer, request.tools, chat_template_kwargs={}, model_config=config)

    def request_for(tools: Iterable[Tool], stream: bool) -> ChatCompletionRequest:
        request = ChatCompletionRequest.model_validate({
            "model": "stand-in", "messages": [{"role": "user", "content": "go"}], "stream": stream,
            "tools": [{"type": "function", "function": {"name": t.name, "description": "",
                                                         "parameters": t.parameters}} for t in tools],
            "tool_choice": "auto"})
        adjusting = parser(request)
        adjusting.set_prompt_token_ids(_PROMPT)
        return adjusting.adjust_request(request=request)

    def produce(batches: list[str], tools: Iterable[Tool] = (), limits: Limits = Limits()) -> dict[str, Any]:
        tools = tuple(tools)
        tokenizer.forget()
        streamed = request_for(tools, True)
        steps = ChatStreamProcessor(streamed, parser(streamed), enable_auto_tools=True, parser_cls=composed)
        content: list[str] = []
        deltas: list[dict[str, Any]] = []
        for i, batch in enumerate(batches):
            last = i == len(batches) - 1
            delta, _finish = steps.step(batch, tokenizer.ids(batch), "stop" if last else None, _PROMPT)
            if delta is None:
                continue
            # As the server writes each chunk: the fields the parser set and no others, in JSON, which fails
            # (and ends the server's stream with an error event) on what JSON cannot hold, a lone surrogate.
            sent = json.loads(delta.model_dump_json(exclude_unset=True))
            if sent.get("content"):
                content.append(sent["content"])
            deltas.extend(sent.get("tool_calls") or ())
        whole_request = request_for(tools, False)
        whole_parser = parser(whole_request)
        whole_parser.set_prompt_token_ids(_PROMPT)
        text = "".join(batches)
        reasoning, whole_content, calls = whole_parser.parse(text, whole_request, enable_auto_tools=True,
                                                             model_output_token_ids=tokenizer.ids(text))
        fields = assemble_chat_message_fields(whole_request, reasoning, whole_content, calls,
                                              enable_auto_tools=True, parser_cls=composed)
        return {"content": "".join(content), "deltas": deltas,
                "whole": {"content": fields.content or "",
                          "calls": [{"name": c.function.name, "arguments": c.function.arguments}
                                    for c in fields.tool_calls or ()]}}

    produce.__name__ = produce.__qualname__ = f"produce_{PARSERS[fmt]}"
    return produce


TARGETS = tuple(
    Target(name=f"vllm-{fmt}", fn=_producer(fmt), level="producer", dialects=(f"text:{fmt}",),
           reports=frozenset({"ids", "names"}), takes_request=True, version=_VERSION,
           extra={"engine": "vllm", "format": fmt},
           summary=f"vLLM's '{parser}' tool parser as its chat server streams and parses a response")
    for fmt, parser in PARSERS.items())
