"""The built-in targets: the reference, the self-test, and adapters for libraries that are installed."""

from __future__ import annotations

from typing import Any, Iterable

from harness.model import DIALECTS, Limits
from targets import adapters
from targets.base import ALL_CLAIMS, Target
from targets.reference import assemble
from targets.reference.sse import SSEDecoder
from targets.selftest import PLAIN, SELFTEST


def _reference_in(dialect: str):
    def run(reads: list[bytes]) -> list[dict[str, Any]]:
        outcome = assemble(reads, (), Limits(), dialect)
        return [{**c.to_json(), "complete": c.status != "incomplete"} for c in outcome.calls]

    return run


_reference = _reference_in("openai-chat")

REFERENCE = Target(name="reference", fn=_reference, level="bytes",
                   reports=ALL_CLAIMS - {"validation"}, dialects=DIALECTS,
                   extra={"by_dialect": {d: _reference_in(d) for d in DIALECTS}},
                   summary="the reference assembler, bytes in (must never diverge)")


def _reference_sse(reads: list[bytes]) -> list[dict[str, Any]]:
    decoder = SSEDecoder()
    events = [e for read in reads for e in decoder.feed(read)]
    decoder.close()
    return [{"event": e.event, "data": e.text, "id": e.id} for e in events]


REFERENCE_SSE = Target(name="reference-sse", fn=_reference_sse, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS,
                       summary="the reference SSE decoder, reads in, events out (must never diverge)")


def builtin_targets(names: Iterable[str] | None = None) -> dict[str, Target]:
    """Every built-in target by name: the reference, the self-test, and each library adapter that is installed.

    With ``names``, only the library adapters that define those names are imported (the rest is cheap).
    """
    targets = [REFERENCE, REFERENCE_SSE, PLAIN, *SELFTEST, *adapters.installed(names)]
    return {t.name: t for t in targets}
