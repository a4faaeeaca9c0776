"""Deliberately broken assemblers: the harness's own self-test.

Each makes exactly one of the mistakes real assemblers make, on top of the
correct :class:`PlainAssembler`.  They are never targets of a user's run
unless named; the test suite asserts that the harness finds every one of
them and shrinks it to its known minimal form.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from toolfuzz.targets.reference.sse import SSEDecoder
from toolfuzz.targets.selftest.plain import PlainAssembler

PLACEHOLDER = "call_placeholder"


class SharedBuffer(PlainAssembler):
    """One argument buffer for every call: each fragment goes to the call opened last."""

    def append(self, call: dict[str, Any], text: str) -> None:
        self.calls[-1]["parts"].append(text)


class ParseEachFragment(PlainAssembler):
    """Parses each fragment as JSON and takes one that parses for the whole arguments."""

    def append(self, call: dict[str, Any], text: str) -> None:
        try:
            json.loads(text)
        except ValueError:
            call["parts"].append(text)
        else:
            call["parts"] = [text]


class KeyById(PlainAssembler):
    """Keys calls by id, which continuation fragments do not carry."""

    def locate(self, ci: int, index: int | None, call_id: str | None, name: str | None) -> dict[str, Any]:
        for call in self.calls:
            if call["choice"] == ci and call["id"] == call_id:
                return call
        call = self.open(ci, len([c for c in self.calls if c["choice"] == ci]))
        call["id"] = call_id
        return call


class SharedPlaceholder(PlainAssembler):
    """Gives every call that arrives without an id the same placeholder id, and keys by it."""

    def locate(self, ci: int, index: int | None, call_id: str | None, name: str | None) -> dict[str, Any]:
        # Fragments still follow their index: keying is wrong only where a call opens without an id.
        if name and call_id is None:
            for call in self.calls:
                if call["choice"] == ci and call["id"] == PLACEHOLDER:
                    if index is not None:
                        self.by_key[(ci, index)] = call
                    self.latest[ci] = call
                    return call
        return super().locate(ci, index, call_id, name)

    def set_id(self, call: dict[str, Any], call_id: str | None) -> None:
        if call["id"] is None:
            call["id"] = call_id or PLACEHOLDER


class BraceCompletion(PlainAssembler):
    """Takes arguments that end in a closing brace for a finished call."""

    def is_complete(self, call: dict[str, Any]) -> bool:
        return self.arguments(call).rstrip().endswith("}")


class HandOutAfterDisconnect(PlainAssembler):
    """Hands every call on as complete, whether or not the stream finished it."""

    def is_complete(self, call: dict[str, Any]) -> bool:
        return True


class ConcatNamesAndIds(PlainAssembler):
    """Concatenates ids and names as if they were argument fragments."""

    def set_id(self, call: dict[str, Any], call_id: str | None) -> None:
        if call_id:
            call["id"] = (call["id"] or "") + call_id

    def set_name(self, call: dict[str, Any], name: str | None) -> None:
        if name:
            call["name"] = (call["name"] or "") + name


def _chunks(payloads: Iterable[bytes]) -> list[dict[str, Any]]:
    chunks = []
    for payload in payloads:
        if payload == b"[DONE]":
            break
        try:
            chunk = json.loads(payload.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(chunk, dict):
            chunks.append(chunk)
    return chunks


def decode_each_read(reads: list[bytes], assembler: type[PlainAssembler] = PlainAssembler) -> list[dict[str, Any]]:
    """Decodes every network read as UTF-8 on its own: a character split across reads is lost."""
    decoder = SSEDecoder()
    payloads: list[bytes] = []
    for read in reads:
        payloads.extend(e.data for e in decoder.feed(read.decode("utf-8", "replace").encode("utf-8")))
    return assembler().run(_chunks(payloads))


_EOL = re.compile(rb"\r\n|\r|\n")


def read_as_delta(reads: list[bytes], assembler: type[PlainAssembler] = PlainAssembler) -> list[dict[str, Any]]:
    """Takes each network read for whole events: a data line cut by a read is dropped."""
    payloads = []
    for read in reads:
        for line in _EOL.split(read):
            if line.startswith(b"data:"):
                payloads.append(line[5:].strip())
    return assembler().run(_chunks(payloads))


def _events(cls: type[PlainAssembler]):
    def run(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return cls().run(chunks)

    run.__name__ = run.__qualname__ = cls.__name__
    run.__doc__ = cls.__doc__
    run.mutant = cls  # type: ignore[attr-defined]  # for its versions in other dialects (selftest.dialects)
    return run


shared_buffer = _events(SharedBuffer)
parse_each_fragment = _events(ParseEachFragment)
key_by_id = _events(KeyById)
shared_placeholder = _events(SharedPlaceholder)
brace_completion = _events(BraceCompletion)
hand_out_after_disconnect = _events(HandOutAfterDisconnect)
concat_names_and_ids = _events(ConcatNamesAndIds)
