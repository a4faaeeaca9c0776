"""A root cause's severity: its kind's harm and rule, weighed with the evidence for its case's shapes.

The tables are elsewhere (:mod:`toolfuzz.severity` the harms and rules,
:mod:`toolfuzz.strategies.features` who sends each shape, each target's
:class:`~toolfuzz.targets.base.Scope` what it promises to read); this module
only puts them together, the same way for a finding a run meets and for a
fixture read from disk.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from toolfuzz.kinds import HARM, RULES
from toolfuzz.severity import SERVERS, Evidence, Harm, Rule, Severity, Source, grade
from toolfuzz.strategies.features import Shape, shape_of
from toolfuzz.targets.base import Limit, Scope

__all__ = ["Grade", "grade_of", "evidence_of"]


@dataclass(frozen=True)
class Grade:
    severity: Severity
    harm: Harm
    #: The case's evidence: its weakest feature's.
    evidence: Evidence
    rule: Rule
    #: False when the rule, or the outcome a feature fixes, is the project's own choice.
    grounded: bool
    #: Each feature with its evidence for the target, weakest first.
    shapes: tuple[tuple[str, Evidence], ...] = ()
    #: The behaviour the library documents for this case's shapes, which holds the grade to robustness.
    limit: Limit | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"severity": self.severity.value, "harm": self.harm.value, "evidence": self.evidence.label,
               "rule": self.rule.source.value, "grounded": self.grounded,
               "features": {name: evidence.label for name, evidence in self.shapes}}
        if self.limit is not None:
            out["documented"] = self.limit.cite
        return out

    @property
    def why(self) -> str:
        """One line for a person: the harm, then what holds the grade down or up."""
        parts = [self.harm.meaning]
        if not self.grounded:
            parts.append("the rule is the project's own choice")
        weak = [f"{name} {evidence.label}" for name, evidence in self.shapes if evidence < Evidence.OBSERVED]
        if weak:
            parts.append("shapes " + ", ".join(weak))
        if self.limit is not None:
            parts.append("the library documents this: " + self.limit.cite)
        return "; ".join(parts)


def evidence_of(shape: Shape, scope: Scope) -> Evidence:
    """How well ``shape`` is established for a target that promises ``scope``."""
    return shape.evidence(scope.servers, scope.specs)


def grade_of(kind: str, features: Iterable[str], scope: Scope, dialect: str = "openai-chat") -> Grade:
    """The grade of a root cause of ``kind`` whose case, in ``dialect``, needs ``features`` (its minimal
    features), in a target that promises ``scope``."""
    harm = HARM.get(kind, Harm.HARNESS)
    rule = RULES.get(kind, Rule(Source.CHOICE, "not recorded"))
    known = {f: shape_of(f, dialect) for f in set(features)}
    # A stream recorded from a server (toolfuzz corpus import) shows that server sending every shape it holds.
    senders = frozenset(f.removeprefix("captured-") for f in known
                        if f.startswith("captured-") and f.removeprefix("captured-") in SERVERS)
    if senders:
        known = {f: replace(shape, seen_from=shape.seen_from | senders) for f, shape in known.items()}
    shapes = sorted(((f, evidence_of(shape, scope)) for f, shape in known.items()), key=lambda fe: (fe[1], fe[0]))
    evidence = shapes[0][1] if shapes else Evidence.DOCUMENTED
    grounded = (rule.source is not Source.CHOICE or kind in scope.promises) \
        and all(shape.truth is not Source.CHOICE for shape in known.values())
    severity = grade(harm, evidence, grounded)
    # What a library says it does on these shapes is its behaviour, not a bug, however much it costs.
    limit = scope.limit_for(kind, known)
    if limit is not None and severity is Severity.BUG:
        severity = Severity.ROBUSTNESS
    return Grade(severity, harm, evidence, rule, grounded, tuple(shapes), limit)
