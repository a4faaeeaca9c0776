"""What a target did on one case, as the judge compares it: its calls, events, prefix answers or failure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toolfuzz.identity import CrashState
from toolfuzz.vocabulary import Output, SSEEvent

__all__ = ["ObservedCall", "PrefixAnswer", "Observation"]


@dataclass(frozen=True, slots=True)
class ObservedCall:
    choice: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str
    complete: bool
    status: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {"choice": self.choice, "index": self.index, "id": self.id, "name": self.name,
               "arguments": self.arguments, "complete": self.complete}
        if self.status is not None:
            doc["status"] = self.status
        return doc


@dataclass(frozen=True, slots=True)
class PrefixAnswer:
    """What a partial parser made of one prefix: of the judged text at ``text``, the first ``length`` code points."""

    text: int
    length: int
    value: Any = None
    raised: str | None = None
    crash_state: CrashState | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"text": self.text, "length": self.length}
        if self.raised is not None:
            doc["raised"] = self.raised
            if self.crash_state:
                doc["crash_state"] = str(self.crash_state)
        else:
            # As JSON text: a fixture's JSON is written with sorted keys, and the order of a shown object's
            # keys, an int against a float and the sign of -0.0 are what the partial level judges.
            doc["value"] = json.dumps(self.value, ensure_ascii=False)
        return doc


@dataclass(frozen=True, slots=True)
class Observation:
    """What a target did with a case: calls, or the way it failed to give them."""

    calls: tuple[ObservedCall, ...] = ()
    raised: str | None = None
    timed_out: bool = False
    blocked: str | None = None
    bad_return: str | None = None
    seconds: float = 0.0
    #: An sse-level target's dispatched events (``None`` for the other levels, which return calls).
    events: tuple[SSEEvent, ...] | None = None
    #: The stream error code a target that claims ``errors`` ended with (None: no error).
    error: str | None = None
    #: Where ``raised`` came from, without its message (:func:`crash_state`); None when nothing was raised.
    crash_state: CrashState | None = None
    #: A partial-level target's answer for each prefix it was handed (None for the other levels).
    prefixes: tuple[PrefixAnswer, ...] | None = None
    #: A producer-level target's calls parsed from the whole text (None for the other levels); its ``calls``
    #: are its streamed deltas as the reference assembles them.
    whole: tuple[ObservedCall, ...] | None = None
    #: A producer's answer as it gave it (``toolfuzz.judge.producer.answer_of``'s shape): what a served
    #: producer hands back, and what a fixture shows of it.
    produced: Any = None
    #: What the target wrote to stdout and stderr during the call (:mod:`toolfuzz.judge.capture`); not part of
    #: what it answered, so two observations that differ only here are the same.
    output: Output | None = field(default=None, compare=False)
    #: The target raised MemoryError: what it did says how much it asked for, not how it read the stream.
    out_of_memory: bool = False

    @property
    def content(self) -> str | None:
        """A producer's streamed content (None for the other levels)."""
        return None if self.produced is None else self.produced["content"]

    @property
    def whole_content(self) -> str | None:
        """The content of a producer's whole-text parse (None for the other levels)."""
        return None if self.produced is None else self.produced["whole"]["content"]

    def to_json(self) -> dict[str, Any]:
        if self.blocked:
            return {"blocked": self.blocked}
        if self.timed_out:
            return {"timed_out": True}
        if self.out_of_memory:
            return {"memory": True}
        if self.raised:
            if self.crash_state:
                return {"raised": self.raised, "crash_state": str(self.crash_state)}
            return {"raised": self.raised}
        if self.bad_return:
            return {"bad_return": self.bad_return}
        if self.events is not None:
            return {"events": [e.to_json() for e in self.events]}
        if self.prefixes is not None:
            return {"prefixes": [p.to_json() for p in self.prefixes]}
        if self.whole is not None:
            return {"calls": [c.to_json() for c in self.calls], "content": self.content,
                    "deltas": (self.produced or {}).get("deltas", []),
                    "whole": {"calls": [c.to_json() for c in self.whole], "content": self.whole_content}}
        doc: dict[str, Any] = {"calls": [c.to_json() for c in self.calls]}
        if self.error is not None:
            doc["error"] = self.error
        return doc
