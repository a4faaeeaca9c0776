"""A fixture's grade, read from disk: the same grading a run gives a finding (toolfuzz.judge.grading).

A fixture of a built-in target is graded again from its kind, its minimal
features and the scope of its target (``targets/adapters/scopes.py``, which
needs no library installed), so that a change of the tables regrades the
whole corpus; a fixture of another target keeps the grade its run recorded,
with its own scope, or is graded in the open scope when none was recorded.
"""

from __future__ import annotations

from typing import Any

from toolfuzz.judge.grading import Grade, grade_of
from toolfuzz.corpus.fixtures import Fixture
from toolfuzz.severity import Severity
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.targets.adapters.scopes import SCOPES, scope_for
from toolfuzz.targets.base import ANY_SCOPE

__all__ = ["fixture_grade", "fixture_severity", "diverging"]


def diverging(fixture: Fixture) -> list[tuple[str, dict[str, Any]]]:
    """The targets a fixture records as diverging, with what it records of each."""
    return [(name, seen) for name, seen in fixture.observed.items()
            if isinstance(seen, dict) and seen.get("verdict") == "diverges" and seen.get("kind")]


def fixture_grade(fixture: Fixture, target: str) -> Grade | None:
    """The grade of what ``target`` is recorded doing on ``fixture``; None when it is not recorded diverging."""
    seen = dict(diverging(fixture)).get(target)
    if seen is None:
        return None
    features = frozenset(fixture.case.features) - PLAIN_FEATURES
    recorded = seen.get("grade")
    if target.partition("@")[0] in SCOPES or not isinstance(recorded, dict):
        return grade_of(seen["kind"], features, scope_for(target), fixture.case.dialect)
    # A target of the user's own, graded when found with the scope it declared: keep what was recorded.
    graded = grade_of(seen["kind"], features, ANY_SCOPE, fixture.case.dialect)
    try:
        severity = Severity(recorded.get("severity"))
    except ValueError:
        return graded
    return Grade(severity, graded.harm, graded.evidence, graded.rule, graded.grounded, graded.shapes, graded.limit)


def fixture_severity(fixture: Fixture) -> Severity | None:
    """The gravest severity among the fixture's recorded divergences; None for a fixture with none."""
    grades = [g for g in (fixture_grade(fixture, name) for name, _ in diverging(fixture)) if g is not None]
    return min((g.severity for g in grades), key=lambda s: s.rank) if grades else None
