"""The built-in targets: the reference, the self-test, and adapters for libraries that are installed."""

from __future__ import annotations

from typing import Any, Iterable

from toolfuzz.vocabulary import DIALECTS, INCOMPLETE, Limits, Tool
from toolfuzz.targets import adapters
from toolfuzz.targets.base import ALL_CLAIMS, PARTIAL_CLAIMS, Target
from toolfuzz.targets.reference import assemble
from toolfuzz.targets.reference import partial
from toolfuzz.targets.reference.sse import SSEDecoder
from toolfuzz.targets.selftest import PLAIN, SELFTEST


def _reference_in(dialect: str):
    def run(reads: list[bytes], tools: Iterable[Tool] = (), limits: Limits = Limits()) -> dict[str, Any]:
        outcome = assemble(reads, tools, limits, dialect)
        return {"calls": [{**c.to_json(), "complete": c.status != INCOMPLETE} for c in outcome.calls],
                "stream_error": outcome.error.code if outcome.error else None}

    return run


# Judged on everything it claims, statuses and the stream error included, with each case's tools and
# bounds: the same way in a search as in a replay, where it vouches for every fixture.
REFERENCE = Target(name="reference", fn=_reference_in("openai-chat"), level="bytes", reports=ALL_CLAIMS - {"values"},
                   dialects=DIALECTS, takes_request=True,
                   extra={"by_dialect": {d: _reference_in(d) for d in DIALECTS}},
                   summary="the reference assembler, bytes in (must never diverge)")


def _reference_sse(reads: list[bytes]) -> list[dict[str, Any]]:
    decoder = SSEDecoder()
    events = [e for read in reads for e in decoder.feed(read)]
    decoder.close()
    return [{"event": e.event, "data": e.text, "id": e.id} for e in events]


REFERENCE_SSE = Target(name="reference-sse", fn=_reference_sse, level="sse", reports=frozenset({"ids"}), dialects=DIALECTS,
                       summary="the reference SSE decoder, reads in, events out (must never diverge)")


REFERENCE_PARTIAL = Target(name="reference-partial", fn=partial.parse, level="partial", reports=PARTIAL_CLAIMS,
                           dialects=DIALECTS, summary="the reference partial JSON parser (must never diverge)")


def builtin_targets(names: Iterable[str] | None = None) -> dict[str, Target]:
    """Every built-in target by name: the reference, the self-test, and each library adapter that is installed.

    With ``names``, only the library adapters that define those names are imported (the rest is cheap).
    """
    targets = [REFERENCE, REFERENCE_SSE, REFERENCE_PARTIAL, PLAIN, *SELFTEST, *adapters.installed(names)]
    return {t.name: t for t in targets}
