"""What a run says while it goes: one stream of events, the same from one process and from many.

Theory of operation
-------------------

A run is a search (:mod:`toolfuzz.engine.search`) in worker processes under
a supervisor (:mod:`toolfuzz.engine.supervisor`), or the same search in this
process (``--in-process``).  Either way it tells the rest of the
program what happens through one callable, ``emit``, with the events below:

* :class:`Started` once, before any case;
* :class:`Progress` now and then, with the figures so far;
* :class:`Found` for each new finding, with its case and what the target did;
* :class:`Note` for what a person should know that is not a finding
  (a worker that died outside any target, a target left out);
* :class:`Finished` once, with the final figures.

Workers send the same events over their pipe (a finding whole, its target by
name, since a loaded library need not pickle); the supervisor re-emits them
and sums the figures.  Whoever consumes them (fixture files, the terminal,
JSON, JUnit, the morning report) sees no difference between the two.

:class:`Stats` is the one shape of the figures: a search fills one, a worker
sends its own, and the supervisor adds them up with :meth:`Stats.add`.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from toolfuzz.identity import CrashState, RootKey
from toolfuzz.judge.compare import Divergence
from toolfuzz.judge.grading import Grade, grade_of
from toolfuzz.judge.observation import Observation
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import Case

__all__ = ["StopReason", "Finding", "signature_of", "Stats", "Event", "Started", "Progress", "Found", "Note",
           "Finished", "Emit"]


@dataclass(frozen=True)
class Finding:
    target: Target
    divergence: Divergence
    case: Case
    observation: Observation
    #: Features every case has in its plainest form (LF framing, one read, ...): not part of a signature.
    plain: frozenset[str] = frozenset()
    #: The seed of the search that met it, so that a person can run that search again.
    seed: int | None = None
    #: Not reduced: the case a worker was on when the target killed it, or one met when the run's
    #: share of time for reducing was spent.  Its features are all it had, not the minimal ones.
    unshrunk: bool = False

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self.case.features) - self.plain

    @property
    def state(self) -> CrashState | None:
        """The crash state of a ``raised`` divergence (exception type and innermost own frames); else None."""
        return self.divergence.state

    @property
    def key(self) -> RootKey:
        """What a root cause is told apart by before its features: target, kind, crash state."""
        return RootKey(self.target.name, self.divergence.kind, self.state)

    @property
    def signature(self) -> str:
        return signature_of(self.target.name, self.divergence.kind, self.features, self.state)

    @property
    def grade(self) -> Grade:
        """Its severity and the grounds for it: the kind's harm, the evidence for its features in its target's
        scope (toolfuzz.severity)."""
        return grade_of(self.divergence.kind, self.features, self.target.scope, self.case.dialect)


def signature_of(target: str, kind: str, features: Iterable[str], state: CrashState | None = None) -> str:
    """``target/kind/features``; a ``raised`` one's crash state goes beside its kind: ``kind[state]``."""
    where = f"{kind}[{state}]" if state else kind
    return f"{target}/{where}/{'+'.join(sorted(set(features))) or 'plain'}"


def _add(table: dict, more: dict) -> None:
    for k, v in more.items():
        table[k] = table.get(k, 0) + v


class StopReason(str, enum.Enum):
    """Why a search stopped.  A ``str`` so that the summary's JSON (``stopped_by``) reads as it always has."""

    NOT_YET = ""
    EXAMPLES = "examples"
    BUDGET = "budget"
    INTERRUPTED = "interrupted"
    #: A finding the search was told is enough (``search_for_kind``): the self-test's searches.
    FOUND = "found"

    @classmethod
    def of_workers(cls, reasons: Iterable[StopReason]) -> StopReason:
        """A run's reason from its workers': the budget if any ran it out, else the gravest of the others.

        Workers stop apart (one spends its share of the examples while another's time runs out), and a run
        stopped by the clock is what a person must hear, since its figures are then not the seed's alone."""
        given = set(reasons) - {cls.NOT_YET}
        return next((r for r in _GRAVEST_FIRST if r in given), cls.BUDGET)

    def __str__(self) -> str:
        return self.value


_GRAVEST_FIRST = (StopReason.BUDGET, StopReason.INTERRUPTED, StopReason.EXAMPLES, StopReason.FOUND)


@dataclass
class Stats:
    """A run's figures so far; the same type from a search, a worker and the supervisor."""

    examples: int = 0
    started: float = field(default_factory=time.monotonic)
    #: Seconds from ``started`` until the search began (workers loading their targets); 0 in one process.
    startup: float = 0.0
    #: Findings per target.
    divergences: dict[str, int] = field(default_factory=dict)
    #: Examples each target ran on (a target runs only on the dialects it lists).
    by_target: dict[str, int] = field(default_factory=dict)
    seconds_in: dict[str, float] = field(default_factory=dict)
    #: Of those, the seconds each target spent running out of time (a known time-out's hits included).
    seconds_timed_out: dict[str, float] = field(default_factory=dict)
    flaky: list[str] = field(default_factory=list)
    #: Examples generated that had each feature (profiles and transport variants).
    by_feature: dict[str, int] = field(default_factory=dict)
    stopped_by: StopReason = StopReason.NOT_YET
    #: Examples and seconds when the first divergence of the search was met (before reducing).
    first_found_after: tuple[int, float] | None = None
    #: Worker processes that searched; 0 for a search in the run's own process (--in-process).
    workers: int = 1
    restarts: int = 0
    #: Divergences folded into each signature after it was found (:mod:`toolfuzz.engine.known`).
    hits: dict[str, int] = field(default_factory=dict)
    #: Other targets a signature was met in (``Target.builds_on``): the same root cause, reported once.
    affected: dict[str, set[str]] = field(default_factory=dict)
    #: Other kinds a signature showed as (its variants, :meth:`toolfuzz.engine.known.Known.variant_of`).
    also_as: dict[str, set[str]] = field(default_factory=dict)
    #: When each signature was first met: (examples so far, seconds since the start).
    first_seen: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: Seconds spent reducing, and the probes made (re-render and run one target).
    reducing_seconds: float = 0.0
    probes: int = 0
    #: Probes each reduction pass made, and edits it kept (engine.reduction.PASSES): which passes earn theirs.
    pass_probes: dict[str, int] = field(default_factory=dict)
    pass_kept: dict[str, int] = field(default_factory=dict)
    #: Payloads fed to targets: by generation, and by reducing (the share is counted in these).
    work: int = 0
    reducing_work: int = 0
    #: What is being reduced now ("" while generating).
    reducing: str = ""
    #: Divergences of known keys met when the share for reducing was spent, and time-outs met too late to run
    #: again: neither reduced nor written.
    unreduced: int = 0
    #: Targets left out after killing too many workers.
    quarantined: list[str] = field(default_factory=list)
    #: Cases not run on each target because they are outside its scope (``Target.scope``: more choices than
    #: it can ask for, ids its types do not admit).
    out_of_scope: dict[str, int] = field(default_factory=dict)
    #: Cases each target sat out because, its time-out known, its time-outs had taken their share of the time
    #: (``toolfuzz.engine.search.KNOWN_TIMEOUT_CAP``).
    sat_out: dict[str, int] = field(default_factory=dict)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def add(self, other: "Stats") -> None:
        """Count ``other``'s examples, figures and tables into this one (a worker's, or another unit's)."""
        self.examples += other.examples
        for mine, theirs in ((self.by_target, other.by_target), (self.seconds_in, other.seconds_in),
                             (self.seconds_timed_out, other.seconds_timed_out),
                             (self.by_feature, other.by_feature), (self.out_of_scope, other.out_of_scope),
                             (self.sat_out, other.sat_out),
                             (self.pass_probes, other.pass_probes), (self.pass_kept, other.pass_kept)):
            _add(mine, theirs)
        self.flaky.extend(other.flaky)
        _add(self.hits, other.hits)
        for mine, theirs in ((self.affected, other.affected), (self.also_as, other.also_as)):
            for sig, names in theirs.items():
                mine.setdefault(sig, set()).update(names)
        for sig, when in other.first_seen.items():
            if sig not in self.first_seen or when < self.first_seen[sig]:
                self.first_seen[sig] = when
        self.reducing_seconds += other.reducing_seconds
        self.probes += other.probes
        self.unreduced += other.unreduced
        self.work += other.work
        self.reducing_work += other.reducing_work
        if other.reducing:
            self.reducing = f"{self.reducing}; {other.reducing}" if self.reducing else other.reducing

    def hit(self, signature: str, target: str) -> None:
        """A divergence met in ``target`` is one more of ``signature`` (which may be another target's)."""
        self.hits[signature] = self.hits.get(signature, 0) + 1
        if not signature.startswith(target + "/"):
            self.affected.setdefault(signature, set()).add(target)

    def found(self, target: str, replaced: tuple[str, ...] = ()) -> None:
        """A root cause of ``target`` is known now, in place of those of ``replaced`` (their targets' names):
        the count a run shows is the fixtures it leaves.

        A replaced root cause may not be counted here: a worker knows those other workers found before it
        started, and counts only its own.
        """
        for name in replaced:
            if self.divergences.get(name, 0) > 0:
                self.divergences[name] -= 1
        self.divergences[target] = self.divergences.get(target, 0) + 1

    def carry(self, old: str, new: str, old_target: str, new_target: str) -> None:
        """``new`` replaced ``old``: its hits, the targets it was met in and its first sighting go with it.

        The targets are given, not read off the signatures: a target's name may hold a ``/`` (a file outside
        the current folder is named by its whole path)."""
        self.hits[new] = self.hits.get(new, 0) + self.hits.pop(old, 0) + 1
        if old_target != new_target:  # a root cause of a target built on new's
            self.affected.setdefault(new, set()).add(old_target)
        for table in (self.affected, self.also_as):
            if old in table:
                table.setdefault(new, set()).update(table.pop(old))
        if old in self.first_seen:
            was = self.first_seen.pop(old)
            self.first_seen[new] = min(was, self.first_seen.get(new, was))


@dataclass(frozen=True)
class Started:
    targets: tuple[str, ...]
    seed: int
    max_examples: int
    budget: float
    workers: int


@dataclass(frozen=True)
class Progress:
    stats: Stats
    #: What the run is doing besides searching, when it is ("starting workers", "finishing", "stopping").
    phase: str = ""


@dataclass(frozen=True)
class Found:
    finding: Finding
    #: Signatures of known findings this one replaces: its minimal features are a strict subset of theirs.
    replaces: tuple[str, ...] = ()


@dataclass(frozen=True)
class Note:
    text: str


@dataclass(frozen=True)
class Finished:
    stats: Stats


Event = Started | Progress | Found | Note | Finished
Emit = Callable[[Event], None]
