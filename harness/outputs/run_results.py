"""What ``toolfuzz run`` prints and writes when it ends: the table, the JSON summary, the JUnit report.

Each is made from the same two things: the findings as the run's
:class:`~toolfuzz.corpus.findings.FindingWriter` saved them, and the run's
final :class:`~toolfuzz.engine.events.Stats`.  The morning report
(:mod:`toolfuzz.outputs.report`) is made from the JSON summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from toolfuzz.engine.events import Finding, Stats
from toolfuzz.outputs.junit import Result, Suite, junit_xml
from toolfuzz.outputs.tables import aligned
from toolfuzz.targets.base import Target

__all__ = ["summary", "table", "junit"]

Saved = list[tuple[Finding, Path, str]]


def summary(targets: list[Target], saved: Saved, stats: Stats, seed: int, profiles: Iterable[str]) -> dict[str, Any]:
    return {
        "seed": seed,
        "examples": stats.examples,
        "seconds": round(stats.elapsed, 3),
        "stopped_by": stats.stopped_by,
        "targets": [{"name": t.name, "level": t.level, "version": t.version,
                     "examples": stats.by_target.get(t.name, 0),
                     "seconds_in_target": round(stats.seconds_in.get(t.name, 0.0), 3),
                     "divergences": [{"signature": f.signature, "kind": f.divergence.kind,
                                      "detail": f.divergence.detail, "fixture": str(p), "file": what}
                                     for f, p, what in saved if f.target.name == t.name]}
                    for t in targets],
        "flaky": stats.flaky,
        "profiles": {p: stats.by_feature[p] for p in profiles if stats.by_feature.get(p)},
        "workers": stats.workers,
        "restarts": stats.restarts,
        "quarantined": list(stats.quarantined),
    }


def table(targets: list[Target], saved: Saved, stats: Stats) -> str:
    rows = [("target", "level", "divergences", "kinds", "time in target")]
    for t in targets:
        mine = [f for f, _, _ in saved if f.target.name == t.name]
        kinds = ", ".join(sorted({f.divergence.kind for f in mine})) or "-"
        rows.append((t.name, t.level, str(len(mine)), kinds, f"{stats.seconds_in.get(t.name, 0.0):.2f} s"))
    total = len(saved)
    last = (f"{total} divergence{'s' * (total != 1)} in {stats.examples} examples" if total
            else f"no divergence in {stats.examples} examples")
    return aligned(rows, rule=True) + "\n" + last + "\n"


def junit(targets: list[Target], saved: Saved, stats: Stats) -> str:
    """One test case per target: failed when the run found anything in it."""
    results = []
    for t in targets:
        mine = [(f, p) for f, p, _ in saved if f.target.name == t.name]
        failure = None
        if mine:
            failure = ("divergence", f"{len(mine)} divergence(s)",
                       "\n".join(f"{f.signature}: {f.divergence.detail} ({p})" for f, p in mine))
        results.append(Result("toolfuzz", t.name, stats.seconds_in.get(t.name, 0.0), failure=failure))
    return junit_xml("toolfuzz run", [Suite("toolfuzz run", tuple(results), seconds=stats.elapsed)])
