"""The built-in targets: the reference, the self-test, and adapters for libraries that are installed."""

from __future__ import annotations

from typing import Any

from harness.model import Limits
from targets import adapters
from targets.base import ALL_CLAIMS, Target
from targets.reference import Assembler
from targets.selftest import PLAIN, SELFTEST


def _reference(reads: list[bytes]) -> list[dict[str, Any]]:
    assembler = Assembler(limits=Limits(), events=False)
    for read in reads:
        assembler.feed(read)
    assembler.close()
    assert assembler.outcome is not None
    return [{**c.to_json(), "complete": c.status != "incomplete"} for c in assembler.outcome.calls]


REFERENCE = Target(name="reference", fn=_reference, level="bytes",
                   reports=ALL_CLAIMS - {"validation"},
                   summary="the reference assembler, bytes in (must never diverge)")


def builtin_targets() -> dict[str, Target]:
    """Every built-in target by name: the reference, the self-test, and each library adapter that is installed."""
    targets = [REFERENCE, PLAIN, *SELFTEST, *adapters.installed()]
    return {t.name: t for t in targets}
