"""The plain assembler for the event dialects, with the same hooks, so each mutant breaks it in the same place.

:class:`ResponsesPlain` and :class:`AnthropicPlain` read the parsed event
payloads of their dialect and make the same decisions through the hooks of
:class:`PlainAssembler` (``locate``, ``set_id``, ``set_name``, ``append``,
``is_complete``).  A mutant class combined with one of them
(:func:`in_dialect`) makes its one mistake on that dialect's wire.
"""

from __future__ import annotations

from typing import Any, Iterable

from toolfuzz.vocabulary import COMPLETING, input_text
from toolfuzz.targets.selftest.plain import PlainAssembler

__all__ = ["ResponsesPlain", "AnthropicPlain", "PLAINS", "in_dialect", "ItemIdForCallId", "ToolNumberAsIndex"]


class _Stopping(PlainAssembler):
    """A call is complete once its own stop and a completing finish were both seen."""

    #: Only this dialect's own finish reasons complete a call, as in the reference.
    DIALECT: str

    def stop(self, call: dict[str, Any] | None) -> None:
        if call is not None:
            call["stopped"] = True

    def is_complete(self, call: dict[str, Any]) -> bool:
        return bool(call.get("stopped")) and self.finished.get(0) in COMPLETING[self.DIALECT]


class ResponsesPlain(_Stopping):
    DIALECT = "openai-responses"

    def run(self, events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        for ev in events:
            kind = ev.get("type")
            item = ev.get("item") or {}
            at = ev.get("output_index")
            if kind in ("error", "response.failed"):
                break
            if kind in ("response.completed", "response.incomplete"):
                self.finished[0] = kind.rpartition(".")[2]
                break
            if kind == "response.output_item.added" and item.get("type") == "function_call":
                call = self.locate(0, at, self.id_of(item), item.get("name") or None)
                self.set_id(call, self.id_of(item))
                self.set_name(call, item.get("name") or None)
                self.append(call, item.get("arguments") or "")
            elif kind == "response.function_call_arguments.delta" and (0, at) in self.by_key:
                self.append(self.by_key[(0, at)], ev.get("delta") or "")
            elif kind == "response.function_call_arguments.done" and (0, at) in self.by_key:
                call = self.by_key[(0, at)]
                if not "".join(call["parts"]):  # LM Studio sends the arguments here only
                    self.append(call, ev.get("arguments") or "")
                self.stop(call)
            elif kind == "response.output_item.done" and (0, at) in self.by_key:
                # The finished item repeats the call's id and name: kept once, never concatenated.
                self.set_id(self.by_key[(0, at)], self.id_of(item))
                self.set_name(self.by_key[(0, at)], item.get("name") or None)
        return self.result()

    def id_of(self, item: dict[str, Any]) -> str | None:
        """The call's id is the ``call_id`` a tool result answers; the item ``id`` only keys the deltas."""
        return item.get("call_id") or None


class AnthropicPlain(_Stopping):
    DIALECT = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[Any, dict[str, Any]] = {}

    def run(self, events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        for ev in events:
            kind = ev.get("type")
            at = ev.get("index")
            if kind in ("error", "message_stop"):
                break
            if kind == "message_start":
                # A response to a call made from code can come whole here: its calls and its stop reason.
                message = ev.get("message") or {}
                for at, block in enumerate(message.get("content") or []):
                    if block.get("type") == "tool_use":
                        self.stop(self._open(at, block))
                if message.get("stop_reason"):
                    self.finished.setdefault(0, message["stop_reason"])
            elif kind == "content_block_start" and (ev.get("content_block") or {}).get("type") == "tool_use":
                self._open(at, ev["content_block"])
            elif kind == "content_block_delta" and at in self.blocks:
                delta = ev.get("delta") or {}
                if delta.get("type") == "input_json_delta":
                    self.append(self.blocks[at], delta.get("partial_json") or "")
            elif kind == "content_block_stop":
                self.stop(self.blocks.get(at))
            elif kind == "message_delta":
                reason = (ev.get("delta") or {}).get("stop_reason")
                if reason:
                    self.finished.setdefault(0, reason)
        return self.result()

    def _open(self, at: int, block: dict[str, Any]) -> dict[str, Any]:
        call = self.blocks[at] = self.locate(0, self.index_of(at), block.get("id") or None, block.get("name") or None)
        self.set_id(call, block.get("id") or None)
        self.set_name(call, block.get("name") or None)
        # A call made from code carries its whole input here, and no delta.
        self.append(call, input_text(block.get("input") or {}))
        return call

    def index_of(self, block: int) -> int:
        """A call's index is its block's index, whatever blocks came before it."""
        return block


class ItemIdForCallId(ResponsesPlain):
    """Takes the output item's id (fc_...) for the call's id, which a tool result must answer with call_id."""

    def id_of(self, item: dict[str, Any]) -> str | None:
        return item.get("id") or None


class ToolNumberAsIndex(AnthropicPlain):
    """Numbers tool calls 0, 1, ... instead of keeping their block index, which text or thinking blocks shift."""

    def index_of(self, block: int) -> int:
        return len(self.calls)


PLAINS: dict[str, type[PlainAssembler]] = {"openai-chat": PlainAssembler, "openai-responses": ResponsesPlain,
                                           "anthropic": AnthropicPlain}


def in_dialect(mutant: type[PlainAssembler], dialect: str) -> type[PlainAssembler]:
    """``mutant``'s one mistake on top of ``dialect``'s plain assembler."""
    plain = PLAINS[dialect]
    if mutant is PlainAssembler or plain is PlainAssembler:
        return plain if mutant is PlainAssembler else mutant
    return type(f"{mutant.__name__}In{plain.__name__}", (mutant, plain), {"__doc__": mutant.__doc__})
