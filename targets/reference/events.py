"""What the reference assembler hands back while it is fed.

Each is a frozen record of something the stream said, in the order it said
it.  None of them is an instruction: a :class:`StreamEnded` outcome is the
only place where a call's status is decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolfuzz.vocabulary import Outcome

__all__ = ["Event", "ChunkReceived", "CallOpened", "ArgumentsAppended", "ChoiceFinished", "StreamEnded"]


class Event:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ChunkReceived(Event):
    """One ``chat.completion.chunk`` payload, parsed, before it is applied."""

    chunk: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CallOpened(Event):
    """A new record for (choice, index); id and name as known so far."""

    choice: int
    index: int
    id: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class ArgumentsAppended(Event):
    choice: int
    index: int
    fragment: str


@dataclass(frozen=True, slots=True)
class ChoiceFinished(Event):
    choice: int
    finish_reason: str


@dataclass(frozen=True, slots=True)
class StreamEnded(Event):
    """The stream is over (``[DONE]``, end of file, an error or a bound); nothing follows."""

    outcome: Outcome
