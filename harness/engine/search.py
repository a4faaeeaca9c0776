"""The search: generate cases, run every target on each, shrink every new divergence.

Theory of operation
-------------------

One round is one Hypothesis run over ``toolfuzz.strategies.cases()``.  For each case
every target runs (:func:`toolfuzz.judge.sandbox.observe`) and is compared with the
expected outcome (:func:`toolfuzz.judge.compare.compare`).  The first divergence
that is *new* raises an exception whose class is made for its (target,
kind), so Hypothesis keeps one failure per class apart, shrinks each to its
smallest case, and reports them all (``report_multiple_bugs``).

A divergence is new unless a finding of the same target and kind is already
known whose features are all present in this case.  That rule does two
jobs.  While shrinking, a smaller case that only repeats a known finding
stops being interesting, so the shrinker keeps what makes a finding
distinct.  Between rounds, the findings of the last round become known, and
the next round (with the next seed) searches for the others.  The search ends
when a round finds nothing new, or when the examples or the time run out.

A round runs at most :data:`ROUND_EXAMPLES` examples.  Hypothesis keeps
every example of a run in its tree of choices and the last ten thousand in a
cache, so one run of a night's worth of examples grows without bound (about
6 KB per example for these cases).  A round that reaches that cap without
finding anything new is not the end of the search: the next round, with the
next seed, starts from an empty tree, and memory stays flat.

Time is bounded twice: no new example is generated after the budget, and
shrinking stops at the budget plus :data:`SHRINK_GRACE` of it.  Every failing
case the probe meets is remembered if it is the smallest yet for its (target,
kind), so a round cut short still hands back its findings, shrunk as far as
it got.

The signature of a finding is its target, its kind and the features of its
shrunk case (the profiles and transport variants that remain when nothing
more can be removed): stable across runs, and what dedupes fixture files.

What the search meets it says as events (:mod:`toolfuzz.engine.events`):
:class:`~toolfuzz.engine.events.Progress` now and then, and
:class:`~toolfuzz.engine.events.Found` for each new finding.
"""

from __future__ import annotations

import time
import warnings
from typing import Callable, Iterable

from hypothesis.database import ExampleDatabase
from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hypothesis_seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, HypothesisException, HypothesisWarning
from hypothesis.reporting import with_reporter

from toolfuzz.engine.events import Emit, Finding, Found, Progress, Stats
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.judge.compare import compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.sandbox import chunks_of, observe
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import Case

__all__ = ["search", "search_for_kind", "is_explained", "SHRINK_GRACE", "ROUND_EXAMPLES"]

#: Shrinking may run past the budget by at most this share of it; then the
#: smallest case seen so far for each finding is kept.
SHRINK_GRACE = 0.25
#: Examples in one Hypothesis run at most (see the theory of operation): small enough that its
#: memory is a few tens of MB, large enough that starting a run again costs nothing measurable.
ROUND_EXAMPLES = 5000



def is_explained(known: dict[tuple[str, str], list[frozenset[str]]], target: str, kind: str,
                 features: Iterable[str]) -> bool:
    have = frozenset(features)
    return any(f <= have for f in known.get((target, kind), ()))



class _Found(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(f"{finding.target.name}: {finding.divergence.kind}: {finding.divergence.detail}")
        self.finding = finding


class _OutOfTime(BaseException):
    """Ends a round's generation when the budget is spent; a BaseException so Hypothesis does not shrink it."""


_classes: dict[tuple[str, str], type[_Found]] = {}


def _class_for(target: str, kind: str) -> type[_Found]:
    # Hypothesis tells failures apart by exception type and place: one class per
    # (target, kind) makes each its own failure, shrunk on its own.
    key = (target, kind)
    if key not in _classes:
        _classes[key] = type(f"Divergence[{target}:{kind}]", (_Found,), {})
    return _classes[key]


def search(
    targets: list[Target],
    strategy: st.SearchStrategy[Case],
    *,
    max_examples: int = 1000,
    budget: float = 120.0,
    seed: int = 0,
    timeout: float = 5.0,
    known: dict[tuple[str, str], list[frozenset[str]]] | None = None,
    emit: Emit = lambda event: None,
    max_rounds: int = 64,
    plain: frozenset[str] = frozenset(),
    database: ExampleDatabase | None = None,
    on_case: Callable[[Case], None] = lambda case: None,
    stop: Callable[[], bool] = lambda: False,
    round_examples: int = ROUND_EXAMPLES,
) -> tuple[list[Finding], Stats]:
    """Search until a round finds nothing new, or ``max_examples`` or ``budget`` seconds are spent.

    ``on_case`` sees every case before any target runs on it (a worker records it there, so that a
    target that kills the process leaves it behind); ``stop`` is asked before each case, and a true
    answer ends the search there (stopped_by ``interrupted``).  With a ``database``, each round first
    replays the failing examples stored in it.  ``max_rounds`` bounds the rounds that find something
    new; rounds ended only by ``round_examples`` are not counted.  What is found is added to ``known``.
    Each new finding and, now and then, the figures so far are emitted as events.
    """
    known = {} if known is None else known
    stats = Stats()
    deadline = stats.started + budget
    findings: list[Finding] = []
    round_number = 0
    finding_rounds = 0
    while True:
        remaining = max_examples - stats.examples
        if remaining <= 0:
            stats.stopped_by = "examples"
            break
        if stop():
            stats.stopped_by = "interrupted"
            break
        if time.monotonic() >= deadline:
            stats.stopped_by = "budget"
            break
        if finding_rounds >= max_rounds:
            stats.stopped_by = "rounds"
            break
        stats.rounds += 1
        if hasattr(database, "start_round"):
            database.start_round(round_number)
        cap = min(remaining, round_examples)
        before = stats.examples
        new, cut_short = _round(targets, strategy, cap, seed + round_number, timeout, known, deadline,
                                deadline + budget * SHRINK_GRACE, stats, emit, plain, database, on_case, stop,
                                recorded_seed=seed)
        round_number += 1
        if cut_short and not new:
            stats.stopped_by = "interrupted" if stop() else "budget"
            break
        if not new:
            if cap < remaining and stats.examples - before >= cap:
                continue  # only the round's cap ended it: a fresh round goes on searching
            stats.stopped_by = "exhausted" if stats.examples < max_examples else "examples"
            break
        finding_rounds += 1
        for finding in new:
            known.setdefault((finding.target.name, finding.divergence.kind), []).append(finding.features)
            stats.divergences[finding.target.name] = stats.divergences.get(finding.target.name, 0) + 1
            findings.append(finding)
            emit(Found(finding))
    return findings, stats


def search_for_kind(target: Target, kind: str, strategy: st.SearchStrategy[Case], *, seed: int = 0,
                    attempts: int = 4, **options) -> tuple[list[Finding], list[Stats]]:
    """Search ``target`` alone until a divergence of ``kind`` turns up: those findings, and each try's stats.

    Each try is one round with the next seed (``seed``, ``seed + 1``, ...), knowing what the tries
    before it found, so that a target with louder mistakes still gets to show this one.  The
    remaining ``options`` go to :func:`search`.  The self-test's benchmark and its test search this way.
    """
    known: dict[tuple[str, str], list[frozenset[str]]] = {}
    tries: list[Stats] = []
    for attempt in range(attempts):
        # search() adds what it finds to ``known``: the next try looks past it.
        findings, stats = search([target], strategy, seed=seed + attempt, known=known, max_rounds=1, **options)
        tries.append(stats)
        mine = [f for f in findings if f.divergence.kind == kind]
        if mine or not findings:
            return mine, tries
    return [], tries

def _round(targets, strategy, max_examples, seed, timeout, known, deadline, hard_deadline, stats, emit,
           plain, database=None, on_case=lambda case: None, stop=lambda: False,
           recorded_seed: int | None = None) -> tuple[list[Finding], bool]:
    """One Hypothesis run: its findings, and whether time cut it short."""
    failing = False
    last_report = 0.0
    smallest: dict[tuple[str, str], Finding] = {}

    # settings above seed: @seed turns the database off for the settings applied before it.
    @settings(
        max_examples=max_examples,
        database=database,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=True,
        suppress_health_check=list(HealthCheck),
        phases=((Phase.reuse,) if database is not None else ()) + (Phase.generate, Phase.shrink),
        print_blob=False,
        verbosity=Verbosity.quiet,
    )
    @hypothesis_seed(seed)
    @given(strategy)
    def probe(case: Case) -> None:
        nonlocal failing, last_report
        now = time.monotonic()
        if now >= (hard_deadline if failing else deadline) or stop():
            raise _OutOfTime()
        if failing and now - last_report >= 0.5:
            last_report = now
            stats.shrinking = len(smallest)
            emit(Progress(stats))
        if not failing:
            stats.examples += 1
            for feature in case.features:
                stats.by_feature[feature] = stats.by_feature.get(feature, 0) + 1
            for target in targets:
                if case.dialect in target.dialects:
                    stats.by_target[target.name] = stats.by_target.get(target.name, 0) + 1
            now = time.monotonic()
            if now - last_report >= 0.5:
                last_report = now
                emit(Progress(stats))
        on_case(case)
        payloads = chunks_of(case)
        events = expected_events(case)
        for target in targets:
            if case.dialect not in target.dialects:
                continue  # a target runs only on the dialects it lists
            observation = observe(target, case, payloads, timeout)
            stats.seconds_in[target.name] = stats.seconds_in.get(target.name, 0.0) + observation.seconds
            for divergence in compare(case.expected, observation, target, events):
                if not is_explained(known, target.name, divergence.kind, case.features):
                    if stats.first_found_after is None:
                        stats.first_found_after = (stats.examples, stats.elapsed)
                    failing = True
                    finding = Finding(target, divergence, case, observation, plain, recorded_seed)
                    key = (target.name, divergence.kind)
                    if key not in smallest or case.size < smallest[key].case.size:
                        smallest[key] = finding
                    raise _class_for(*key)(finding)

    found: list[Finding] = []
    try:
        with with_reporter(lambda message: None), warnings.catch_warnings(), seeded_by_strategies_only():
            # The harness reports findings itself; Hypothesis's text for a large case is never read.
            warnings.simplefilter("ignore", HypothesisWarning)
            probe()
    except _OutOfTime:
        stats.shrinking = 0
        emit(Progress(stats))
        return _one_per_signature(smallest.values()), True
    except _Found as e:
        found.append(e.finding)
    except BaseExceptionGroup as group:
        for e in _leaves(group):
            if isinstance(e, _Found):
                found.append(e.finding)
            elif isinstance(e, (Flaky, HypothesisException)):
                stats.flaky.append(str(e).splitlines()[0])
            else:
                raise
    except Flaky as e:
        stats.flaky.append(str(e).splitlines()[0])
    stats.shrinking = 0
    emit(Progress(stats))
    return _one_per_signature(found), False


def _one_per_signature(found: Iterable[Finding]) -> list[Finding]:
    # The shrinker may reach the same place twice.
    unique: dict[str, Finding] = {}
    for f in found:
        unique.setdefault(f.signature, f)
    return list(unique.values())


def _leaves(group: BaseExceptionGroup) -> Iterable[BaseException]:
    for e in group.exceptions:
        if isinstance(e, BaseExceptionGroup):
            yield from _leaves(e)
        else:
            yield e
