"""The reference assembler: the one correct assembler everything else is measured against.

``docs/contract.md`` states the rules it follows; :mod:`toolfuzz.targets.reference.assembler`
explains how.

Each wire dialect has one assembler class behind one interface,
:data:`ASSEMBLERS`: built with ``(tools, limits, events=...)``, fed network
reads with ``feed(bytes)``, ended with ``close()``, its result in ``outcome``.
Chat completions is :mod:`assembler`; the event dialects (:mod:`responses`,
:mod:`anthropic`) share :mod:`typed`; how any of them stops a stream with an
error code is :mod:`stops`.  Whoever needs the reference for a case (show,
replay, assemble, the registry's target) picks it from the table by the
case's dialect, never by naming one.
"""

from __future__ import annotations

from typing import Iterable

from toolfuzz.vocabulary import Limits, Outcome, Tool
from toolfuzz.targets.reference.anthropic import AnthropicAssembler
from toolfuzz.targets.reference.assembler import COMPLETING_REASONS, Assembler, StreamStopped
from toolfuzz.targets.reference.responses import ResponsesAssembler
from toolfuzz.targets.reference.gate import releasable
from toolfuzz.targets.reference.sse import SSEDecoder, SSEEvent

__all__ = [
    "Assembler",
    "ASSEMBLERS",
    "AnthropicAssembler",
    "ResponsesAssembler",
    "COMPLETING_REASONS",
    "SSEDecoder",
    "SSEEvent",
    "StreamStopped",
    "assemble",
    "releasable",
]


#: The reference assembler of each dialect; each has the same feed/close/outcome surface.
ASSEMBLERS = {"openai-chat": Assembler, "openai-responses": ResponsesAssembler, "anthropic": AnthropicAssembler}


def assemble(reads: Iterable[bytes], tools: Iterable[Tool] = (), limits: Limits = Limits(),
             dialect: str = "openai-chat") -> Outcome:
    """Run the reference for ``dialect`` over network reads and return the outcome."""
    assembler = ASSEMBLERS[dialect](tools, limits, events=False)
    for read in reads:
        assembler.feed(read)
        if assembler.outcome is not None:
            return assembler.outcome
    assembler.close()
    assert assembler.outcome is not None
    return assembler.outcome
