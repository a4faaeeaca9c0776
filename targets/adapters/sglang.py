"""sglang's tool parsers, driven as its OpenAI-compatible server drives them (level ``producer``).

One target per format, ``sglang-<format>``: sglang's ``FunctionCallParser``
with the detector its server runs for ``--tool-call-parser <name>``.

* Streamed: one ``parse_stream_chunk`` per batch, as
  ``serving_chat._process_tool_call_stream`` calls it; on the last batch (the
  step that carries the finish reason) ``parse_stream_end`` too, and then the
  server's ``_check_for_unstreamed_tool_args`` (mirrored in :func:`_unstreamed`:
  the last call's arguments the detector recorded but never sent).  Each
  call item becomes one ``delta.tool_calls`` entry as the server writes it:
  an item with a name gets a new id and the name, one without gets neither;
  its ``tool_index`` is the entry's ``index``.  Ids are ``call_<n>`` in the
  order sent (the server draws a uuid each time; only their number and
  order matter), and Kimi K2's own ``functions.<name>:<index>`` and K3's ``<name>:<index>``.
* Whole: what ``serving_chat._process_tool_calls`` hands on for the text
  without streaming: ``has_tool_call``, then ``parse_non_stream``; a raise
  there is logged by the server and the text handed on as content.

sglang's package ``__init__`` imports torch and triton, which its parsers do
not need; :func:`_load` registers a bare package for ``sglang`` (so that
``__init__`` never runs), a stand-in for ``sglang.utils`` (whose one function
the protocol module uses is ``convert_json_schema_to_str``) and a stand-in
for ``xgrammar`` (imported for structural tags, which parsing never builds).
sglang pins openai 2.8, so this adapter lives in an environment of its own:
``toolfuzz env add sglang``, then ``--target sglang-hermes@sglang``.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
import types
from importlib import metadata
from typing import Any, Callable, Iterable

from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import Limits, Tool

__all__ = ["TARGETS", "PARSERS"]

#: The parser name sglang's server takes for each format (``--tool-call-parser``).
PARSERS = {
    "hermes": "hermes", "qwen25": "qwen25", "llama3": "llama3", "mistral": "mistral",
    "deepseek-v3": "deepseekv3", "deepseek-v31": "deepseekv31", "kimi-k2": "kimi_k2", "pythonic": "pythonic",
    "internlm": "interns1", "cohere-command4": "cohere_command4", "apertus": "apertus2509",
    "qwen3-coder": "qwen3_coder", "glm47": "glm47", "deepseek-v32": "deepseekv32", "minimax-m2": "minimax-m2",
    "kimi-k3": "kimi_k3", "step3": "step3", "glm45": "glm45", "minimax-m3": "minimax-m3",
}


#: The tool-call ids the server writes for the parsers that have their own (serving_chat._process_tool_call_id,
#: in a first turn); every other parser's call gets a fresh uuid.
_IDS = {"kimi_k2": "functions.{name}:{index}", "kimi_k3": "{name}:{index}"}


class _AnySchema:
    """A stand-in type pydantic takes as "anything": the protocol module types a field with xgrammar's
    ``StructuralTag``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema
        return core_schema.any_schema()


def _stand_ins(folder: str) -> None:
    package = types.ModuleType("sglang")
    package.__path__ = [folder]
    sys.modules["sglang"] = package
    utils = types.ModuleType("sglang.utils")
    utils.convert_json_schema_to_str = lambda schema: schema if isinstance(schema, str) else json.dumps(  # type: ignore[attr-defined]
        schema if isinstance(schema, dict) else schema.model_json_schema())
    sys.modules["sglang.utils"] = utils
    package.utils = utils  # type: ignore[attr-defined]
    if importlib.util.find_spec("xgrammar") is None:
        xgrammar = types.ModuleType("xgrammar")
        xgrammar.__path__ = []
        # No get_model_structural_tag: the base detector then takes the branch it takes without xgrammar.
        xgrammar.StructuralTag = type("StructuralTag", (_AnySchema,), {})  # type: ignore[attr-defined]
        xgrammar.Grammar = type("Grammar", (_AnySchema,), {})  # type: ignore[attr-defined]
        tags = types.ModuleType("xgrammar.structural_tag")

        def any_class(name: str) -> type:
            if name.startswith("__"):
                raise AttributeError(name)
            made = type(name, (_AnySchema,), {})
            setattr(tags, name, made)
            return made

        tags.__getattr__ = any_class  # type: ignore[attr-defined]
        xgrammar.structural_tag = tags  # type: ignore[attr-defined]
        sys.modules["xgrammar"] = xgrammar
        sys.modules["xgrammar.structural_tag"] = tags


def _load() -> tuple[Any, Any]:
    """sglang's ``FunctionCallParser`` and protocol ``Tool``, imported without sglang's ``__init__``."""
    spec = importlib.util.find_spec("sglang")  # finding it does not run it
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("No module named 'sglang'", name="sglang")
    if "sglang" not in sys.modules:
        _stand_ins(os.path.dirname(spec.origin))
        # So that a second look finds it again (repro scripts run one after another in one process do).
        sys.modules["sglang"].__spec__ = spec
    # The detectors log every text they cannot parse yet, which a stream cut into batches is, over and over.
    logging.getLogger("sglang").setLevel(logging.CRITICAL)
    from sglang.srt.entrypoints.openai.protocol import Tool as SglTool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    return FunctionCallParser, SglTool


_Parser, _SglTool = _load()
_VERSION = metadata.version("sglang")


def _tools(tools: Iterable[Tool]) -> list[Any]:
    return [_SglTool(type="function", function={"name": t.name, "description": "",
                                                 "parameters": json.loads(json.dumps(t.parameters))})
            for t in tools]


def _unstreamed(detector: Any) -> tuple[int, str] | None:
    """What the server sends at the end of generation: the rest of the last recorded call's arguments, when
    what was streamed of them is a prefix of their text (``serving_chat._check_for_unstreamed_tool_args``)."""
    recorded = getattr(detector, "prev_tool_call_arr", None)
    streamed = getattr(detector, "streamed_args_for_tool", None)
    if not recorded or not streamed:
        return None
    index = len(recorded) - 1
    if index >= len(streamed):
        return None
    expected = recorded[index].get("arguments", {})
    text = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
    sent = streamed[index]
    rest = text[len(sent):] if text.startswith(sent) else ""
    return (index, rest) if rest else None


def _producer(parser_name: str) -> Callable[..., dict[str, Any]]:
    def produce(batches: list[str], tools: Iterable[Tool] = (), limits: Limits = Limits()) -> dict[str, Any]:
        offered = _tools(tools)
        parser = _Parser(tools=offered, tool_call_parser=parser_name)
        content: list[str] = []
        deltas: list[dict[str, Any]] = []
        sent = 0
        for i, batch in enumerate(batches):
            text, items = parser.parse_stream_chunk(batch)
            if i == len(batches) - 1:
                end_text, end_items = parser.parse_stream_end()
                text, items = (text or "") + (end_text or ""), [*items, *end_items]
            if text:
                content.append(text)
            for item in items:
                entry: dict[str, Any] = {"index": item.tool_index, "type": "function",
                                         "function": {"arguments": item.parameters}}
                if item.name:
                    spelled = _IDS.get(parser_name)
                    entry["id"] = spelled.format(name=item.name, index=item.tool_index) if spelled else f"call_{sent}"
                    entry["function"]["name"] = item.name
                    sent += 1
                deltas.append(entry)
        rest = _unstreamed(parser.detector)
        if rest is not None:
            deltas.append({"index": rest[0], "type": "function", "function": {"arguments": rest[1]}})
        whole_text = "".join(batches)
        fresh = _Parser(tools=offered, tool_call_parser=parser_name)
        whole_content, calls = whole_text, []
        if fresh.has_tool_call(whole_text):
            try:
                whole_content, calls = fresh.parse_non_stream(whole_text)
            except Exception:  # noqa: BLE001 - the server logs a raise here and hands the text on as content
                whole_content, calls = whole_text, []
        return {"content": "".join(content), "deltas": deltas,
                "whole": {"content": whole_content,
                          "calls": [{"name": c.name, "arguments": c.parameters} for c in calls]}}

    produce.__name__ = produce.__qualname__ = f"produce_{parser_name}"
    return produce


TARGETS = tuple(
    Target(name=f"sglang-{fmt}", fn=_producer(parser), level="producer", dialects=(f"text:{fmt}",),
           reports=frozenset({"ids", "names"}), takes_request=True, version=_VERSION,
           extra={"engine": "sglang", "format": fmt},
           summary=f"sglang FunctionCallParser('{parser}') as its server streams and parses a response")
    for fmt, parser in PARSERS.items())
