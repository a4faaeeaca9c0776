"""Replaying a whole corpus (``toolfuzz corpus check``): each recorded target sorted into new, still failing,
changed, fixed (in which version) or skipped, and the reference held to every fixture."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolfuzz import __version__
from toolfuzz.errors import Exit
from toolfuzz.corpus.replay import REFERENCE_NAME, Cell, Report, fixed_in, read_fixtures, replay
from toolfuzz.targets.base import Target
from toolfuzz.targets.selftest import SELFTEST

__all__ = ["CLASSES", "CheckReport", "classify", "check"]


CLASSES = ("reference disagrees", "must fail, passes", "new", "changed", "still failing", "fixed", "skipped")


@dataclass(frozen=True)
class CheckReport:
    report: Report
    #: class -> cells, in CLASSES order; the reference's agreeing cells and plain ``ok`` cells are not listed.
    classes: dict[str, list[Cell]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """1 when the reference disagrees with a fixture or a self-test fixture no longer fails; else 2 when a
        fixture could not be read; else 0."""
        if self.classes["reference disagrees"] or self.classes["must fail, passes"]:
            return Exit.FOUND
        return Exit.USAGE if self.report.unreadable else Exit.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "toolfuzz": __version__,
            "fixtures": len(self.report.fixtures),
            "classes": {name: [_cell_json(c) for c in cells] for name, cells in self.classes.items()},
            "unreadable": [u.to_json() for u in self.report.unreadable],
            "exit": self.exit_code,
        }


def _cell_json(cell: Cell) -> dict[str, Any]:
    doc = cell.to_json()
    doc["statement"] = cell.fixture.fixture.statement or None
    if cell.verdict == "fixed":
        doc["fixed_in"] = fixed_in(cell)
    return doc


def classify(cell: Cell, selftest: set[str]) -> str | None:
    if cell.target == REFERENCE_NAME:
        return "reference disagrees" if cell.unexpected else None
    if cell.verdict == "unexpected":
        return "new"
    if cell.verdict == "fixed":
        return "must fail, passes" if cell.target in selftest else "fixed"
    return {"still fails": "still failing", "changed": "changed", "skipped": "skipped"}.get(cell.verdict)


def check(paths: list[str], given: list[Target] | None = None, timeout: float = 5.0) -> CheckReport:
    """Replay every fixture under ``paths`` and sort what each recorded target does now; a fixture that cannot
    be read is reported (``report.unreadable``), and the others replayed."""
    loaded, unreadable = read_fixtures(paths)
    report = replay(loaded, given, timeout, unreadable)
    selftest = {t.name for t in SELFTEST}  # mutants: each of their fixtures must fail
    classes: dict[str, list[Cell]] = {name: [] for name in CLASSES}
    for cell in report.cells:
        name = classify(cell, selftest)
        if name is not None:
            classes[name].append(cell)
    return CheckReport(report, classes)
