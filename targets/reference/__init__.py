"""The reference assembler: the one correct assembler everything else is measured against.

``docs/contract.md`` states the rules it follows; :mod:`targets.reference.assembler`
explains how.
"""

from __future__ import annotations

from typing import Iterable

from harness.model import Limits, Outcome, Tool
from targets.reference.assembler import COMPLETING_REASONS, Assembler, StreamStopped
from targets.reference.gate import releasable
from targets.reference.sse import SSEDecoder, SSEEvent

__all__ = [
    "Assembler",
    "COMPLETING_REASONS",
    "SSEDecoder",
    "SSEEvent",
    "StreamStopped",
    "assemble",
    "releasable",
]


def assemble(reads: Iterable[bytes], tools: Iterable[Tool] = (), limits: Limits = Limits()) -> Outcome:
    """Run the reference over network reads and return the outcome."""
    assembler = Assembler(tools, limits, events=False)
    for read in reads:
        assembler.feed(read)
        if assembler.outcome is not None:
            return assembler.outcome
    assembler.close()
    assert assembler.outcome is not None
    return assembler.outcome
