"""A correct events-level assembler, written plainly: the base that every self-test mutant breaks in one place.

It follows docs/contract.md for association, ids, names and completion, and
reports no statuses (it claims neither parsing nor validation).  Each hook
(:meth:`locate`, :meth:`set_id`, :meth:`set_name`, :meth:`append`,
:meth:`is_complete`) is one decision a real assembler gets right or wrong.
"""

from __future__ import annotations

from typing import Any, Iterable

from toolfuzz.vocabulary import COMPLETING
from toolfuzz.targets.reference.verdict import join_surrogates


class PlainAssembler:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.by_key: dict[tuple[int, int], dict[str, Any]] = {}
        self.latest: dict[int, dict[str, Any]] = {}
        self.opened: dict[int, int] = {}
        self.finished: dict[int, str] = {}

    def run(self, chunks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        for chunk in chunks:
            if chunk.get("error") is not None:
                break
            for choice in chunk.get("choices") or ():
                ci = choice.get("index") or 0
                if ci in self.finished:
                    continue
                for entry in (choice.get("delta") or {}).get("tool_calls") or ():
                    self.entry(ci, entry)
                reason = choice.get("finish_reason")
                if reason:
                    self.finished[ci] = reason
        return self.result()

    def entry(self, ci: int, entry: dict[str, Any]) -> None:
        call_id = entry.get("id")
        call_id = str(call_id) if call_id not in (None, "") else None
        function = entry.get("function") or {}
        name = function.get("name") or None
        call = self.locate(ci, entry.get("index"), call_id, name)
        self.set_id(call, call_id)
        self.set_name(call, name)
        self.append(call, function.get("arguments") or "")

    def open(self, ci: int, index: int) -> dict[str, Any]:
        call = {"choice": ci, "index": index, "id": None, "name": None, "parts": []}
        self.calls.append(call)
        self.by_key[(ci, index)] = call
        self.latest[ci] = call
        self.opened[ci] = self.opened.get(ci, 0) + 1
        return call

    def locate(self, ci: int, index: int | None, call_id: str | None, name: str | None) -> dict[str, Any]:
        if index is None:
            latest = self.latest.get(ci)
            if latest is None or (name and (call_id is None or call_id != latest["id"])):
                return self.open(ci, self.opened.get(ci, 0))
            return latest
        call = self.by_key.get((ci, index))
        if call is None or (name and call_id and call["id"] is not None and call_id != call["id"]):
            return self.open(ci, index)
        return call

    def set_id(self, call: dict[str, Any], call_id: str | None) -> None:
        if call_id and call["id"] is None:
            call["id"] = call_id

    def set_name(self, call: dict[str, Any], name: str | None) -> None:
        if name and call["name"] is None:
            call["name"] = name

    def append(self, call: dict[str, Any], text: str) -> None:
        call["parts"].append(text)

    def arguments(self, call: dict[str, Any]) -> str:
        return join_surrogates("".join(call["parts"]))

    def is_complete(self, call: dict[str, Any]) -> bool:
        return self.finished.get(call["choice"]) in COMPLETING["openai-chat"]

    def result(self) -> list[dict[str, Any]]:
        return [{"choice": c["choice"], "index": c["index"], "id": c["id"], "name": c["name"],
                 "arguments": self.arguments(c), "complete": self.is_complete(c)} for c in self.calls]


def assemble_chunks(chunks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plain assembler as a target function (level ``events``)."""
    return PlainAssembler().run(chunks)
