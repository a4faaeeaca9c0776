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
from toolfuzz.outputs.tables import Column, fitted
from toolfuzz.severity import Severity
from toolfuzz.targets.base import Target

__all__ = ["summary", "table", "junit"]

Saved = list[tuple[Finding, Path, str]]


def summary(targets: list[Target], saved: Saved, stats: Stats, seed: int, profiles: Iterable[str]) -> dict[str, Any]:
    return {
        "seed": seed,
        "examples": stats.examples,
        "severities": {s.value: sum(1 for f, _, _ in saved if f.grade.severity is s) for s in Severity},
        "seconds": round(stats.elapsed, 3),
        # Of those, the seconds before the search began (workers loading their targets): the budget is after.
        "startup_seconds": round(stats.startup, 3),
        "stopped_by": str(stats.stopped_by),
        "targets": [{"name": t.name, "level": t.level, "version": t.version,
                     "examples": stats.by_target.get(t.name, 0),
                     "out_of_scope": stats.out_of_scope.get(t.name, 0),
                     "sat_out": stats.sat_out.get(t.name, 0),
                     "seconds_in_target": round(stats.seconds_in.get(t.name, 0.0), 3),
                     # Of those, the seconds it ran out of time, a known time-out's hits included.
                     "seconds_timed_out": round(stats.seconds_timed_out.get(t.name, 0.0), 3),
                     "divergences": [{"signature": f.signature, "kind": f.divergence.kind,
                                      "severity": f.grade.severity.value, "grade": f.grade.to_json(),
                                      "detail": f.divergence.detail, "fixture": str(p), "file": what,
                                      "hits": stats.hits.get(f.signature, 0),
                                      "also_in": sorted(stats.affected.get(f.signature, ())),
                                      "also_as": sorted(stats.also_as.get(f.signature, ())),
                                      "first_seen": _first_seen(stats, f.signature),
                                      "reduced": not f.unshrunk}
                                     for f, p, what in saved if f.target.name == t.name]}
                    for t in targets],
        "hits": sum(stats.hits.values()),
        "reducing": {"seconds": round(stats.reducing_seconds, 3), "probes": stats.probes,
                     "not_reduced": stats.unreduced},
        "flaky": stats.flaky,
        "profiles": {p: stats.by_feature[p] for p in profiles if stats.by_feature.get(p)},
        "workers": stats.workers,
        "restarts": stats.restarts,
        "quarantined": list(stats.quarantined),
    }


def _first_seen(stats: Stats, signature: str) -> dict[str, Any] | None:
    when = stats.first_seen.get(signature)
    return None if when is None else {"examples": when[0], "seconds": round(when[1], 3)}


#: The summary's two tables, as a terminal narrower than them gets them: names lose their middles, lists
#: wrap, and the columns a person needs least to recognise a row go first (the JSON summary has them all).
TARGET_COLUMNS = (Column("target", shrink=True), Column("level"), Column("root causes"), Column("hits"),
                  Column("kinds", wrap=", "), Column("time in target", drop=1))
CAUSE_COLUMNS = (Column("severity"), Column("root cause", shrink=True), Column("hits"),
                 Column("also in", wrap=", ", drop=2), Column("also as", wrap=", "), Column("first seen", drop=1))


def table(targets: list[Target], saved: Saved, stats: Stats, width: int | None = None) -> str:
    """One row a target, then one row a root cause, the most hit first; then a line of totals.

    Fitted to ``width`` (:func:`~toolfuzz.outputs.tables.fitted`); None gives every column whole."""
    rows = []
    for t in targets:
        mine = [f for f, _, _ in saved if f.target.name == t.name]
        kinds = ", ".join(sorted({f.divergence.kind for f in mine})) or "-"
        hits = sum(stats.hits.get(f.signature, 0) for f in mine)
        rows.append((t.name, t.level, str(len(mine)), str(hits), kinds, f"{stats.seconds_in.get(t.name, 0.0):.2f} s"))
    out = fitted(rows, TARGET_COLUMNS, width) + "\n"
    if saved:
        causes = []
        for f, _, _ in sorted(saved, key=lambda s: (s[0].grade.severity.rank, -stats.hits.get(s[0].signature, 0),
                                                    s[0].signature)):
            seen = stats.first_seen.get(f.signature)
            causes.append((f.grade.severity.value, f.signature + (" (unshrunk)" if f.unshrunk else ""),
                           str(stats.hits.get(f.signature, 0)),
                           ", ".join(sorted(stats.affected.get(f.signature, ()))) or "-",
                           ", ".join(sorted(stats.also_as.get(f.signature, ()))) or "-",
                           f"example {seen[0]}, {seen[1]:.1f} s" if seen else "-"))
        out += "\n" + fitted(causes, CAUSE_COLUMNS, width) + "\n"
    for t in targets:
        if stats.sat_out.get(t.name):
            out += (f"{t.name} sat out {stats.sat_out[t.name]} cases: its known time-out had taken its share of "
                    "the time\n")
    total = len(saved)
    graded = ", ".join(f"{n} {s.value}" for s in Severity
                       if (n := sum(1 for f, _, _ in saved if f.grade.severity is s)))
    last = (f"{total} root cause{'s' * (total != 1)} ({graded}) in {stats.examples} examples" if total
            else f"no divergence in {stats.examples} examples")
    return out + last + "\n"


def junit(targets: list[Target], saved: Saved, stats: Stats, fail_on: Severity = Severity.BUG) -> str:
    """One test case per target: failed when the run found anything in it at ``fail_on`` or graver."""
    results = []
    for t in targets:
        mine = [(f, p) for f, p, _ in saved if f.target.name == t.name]
        failing = [(f, p) for f, p in mine if f.grade.severity.at_least(fail_on)]
        failure = None
        if failing:
            failure = ("divergence", f"{len(failing)} divergence(s) of severity {fail_on.value} or graver",
                       "\n".join(f"{f.grade.severity.value}: {f.signature}: {f.divergence.detail} ({p}; "
                                 f"{stats.hits.get(f.signature, 0)} hits)" for f, p in mine))
        # Findings below the threshold do not fail the case, and are still said in its output.
        below = "\n".join(f"{f.grade.severity.value}: {f.signature}: {f.divergence.detail} ({p})"
                          for f, p in mine if (f, p) not in failing) or None
        results.append(Result("toolfuzz", t.name, stats.seconds_in.get(t.name, 0.0), failure=failure,
                              output=None if failure else below))
    return junit_xml("toolfuzz run", [Suite("toolfuzz run", tuple(results), seconds=stats.elapsed)])
