"""The search: draw cases, run every target on each, reduce each new root cause once, count the rest.

Theory of operation
-------------------

Cases are drawn from seeds by a :class:`~toolfuzz.strategies.cases.Planner`:
the seed of the n-th case comes from the run's seed, so a run is the same
run on any machine, and each case carries its plan (the decisions it was
rendered from).  Every target runs on each case
(:func:`toolfuzz.judge.sandbox.observe`) and is compared with the outcome
known by construction (:func:`toolfuzz.judge.compare.compare`).

A divergence is judged against what is known (:mod:`toolfuzz.engine.known`):

* one whose case has all the minimal features of a known finding of the same
  target, kind and crash state is a **hit** of it: counted, nothing more
  (so is one of a target that builds on others, ``Target.builds_on``, that
  a finding of a target below explains: targets run on each case in an
  order that puts those below first);
* any other is reduced (:mod:`toolfuzz.engine.reduction`): its plan is
  edited down, each probe a re-render and one target run, until no edit
  keeps the divergence.  The features left are its minimal feature set, and
  its signature.  If a known finding has no more than those features, the
  divergence was a hit after all; if a known root cause of another kind
  has no more, it is a variant of that one, and a hit of it; otherwise it is
  a new finding, which replaces the known ones whose features it has
  strictly fewer of.

A new finding's reduced case is then run once on the other targets, before
the next case is drawn.  Each reduction is led by its own case, so two
targets with one mistake can settle on different features; a target whose
known root cause of that kind has features this case does without
diverges here as something new, is reduced from here, and its smaller
root cause replaces the larger.

Generation never waits long for reduction: reducing a new root cause takes
a bounded number of probes, and all reducing together at most
:data:`REDUCING_SHARE` of the work so far: the payloads fed to targets,
which a target's time grows with (payloads, not seconds, so that what a
seed finds is the same on any machine).  A divergence met while the
share is spent waits; it is reduced when the share allows (or found by
then to be a hit of something reduced meanwhile), those of a target, kind
and crash state with no root cause known first, and what still waits when
the budget ends is reduced last, or kept as met (``unshrunk``).

Seconds bound a search twice: generating ends with the budget, and all that
follows it (reducing, running a new time-out again) with the budget plus
:data:`FINISHING_SHARE` of it, or at once when a stop is asked for.  Then
what is being reduced is kept as far as it got, and what still waits is kept
as met or counted, never run: a slow target's search ends within 1.1 times
its budget, a call in flight aside.

The seeds of the cases that met new findings are kept in the store
(:mod:`toolfuzz.engine.database`) when there is one, and a later search
with the same targets and profiles draws them first.

What the search meets it says as events (:mod:`toolfuzz.engine.events`):
:class:`~toolfuzz.engine.events.Progress` now and then and
:class:`~toolfuzz.engine.events.Found` for each new finding.
"""

from __future__ import annotations

import time
from random import Random
from typing import Callable

from toolfuzz.engine.database import SeedStore
from toolfuzz.engine.events import Emit, Finding, Found, Progress, Stats
from toolfuzz.engine.known import PER_TARGET, Known, depths
from toolfuzz.engine.reduction import EVERY_KIND, RENDER_WORK, reduce, work_of
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.judge.compare import Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.sandbox import Observation, chunks_of, observe
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import Case

__all__ = ["search", "search_for_kind", "REDUCING_SHARE", "TIMEOUT_MARGIN", "FINISHING_SHARE", "finishing"]

#: Reducing new root causes may take at most this share of the work so far; the rest is generation.
REDUCING_SHARE = 0.3
#: A new time-out is a finding only if the same case runs past this many times the time limit, run again.
TIMEOUT_MARGIN = 2
#: Payloads reducing may feed targets before the share has grown to any: the first root causes are
#: reduced at once.
_FIRST_WORK = 50_000


#: What a search may take past its budget, as a share of the budget: reducing what still waits, confirming a
#: time-out, and (for a run of workers) ending them.
FINISHING_SHARE = 0.1
#: Seconds between two Progress events, while generating or reducing.
_PROGRESS_EVERY = 0.5


def finishing(budget: float) -> float:
    """Seconds a search of ``budget`` seconds may go on past it."""
    return FINISHING_SHARE * budget


#: Payloads a reduction may feed however little is left of the share: enough to finish a small case's,
#: since one cut off mid-way keeps features it does not need, each a second signature for one bug.
_LEAST_WORK = 10_000
#: Payloads the search may feed past the share at its end, to reduce root causes met too late for it.
_LAST_STRETCH = 5 * _LEAST_WORK
#: Divergences waiting for the share to allow their reduction, at most; past that they are only counted.
_MAX_PENDING = 500


def search(
    targets: list[Target],
    planner: Planner,
    *,
    max_examples: int = 1000,
    budget: float = 120.0,
    seed: int = 0,
    timeout: float = 5.0,
    known: Known | None = None,
    emit: Emit = lambda event: None,
    plain: frozenset[str] = frozenset(),
    database: SeedStore | None = None,
    on_case: Callable[[Case], None] = lambda case: None,
    stop: Callable[[], bool] = lambda: False,
    enough: Callable[[Finding], bool] = lambda finding: False,
    reducing_share: float = REDUCING_SHARE,
    variants: bool = True,
    finish_by: float | None = None,
) -> tuple[list[Finding], Stats]:
    """Search until ``max_examples`` or ``budget`` seconds are spent, ``stop()`` says so, or a finding is ``enough``.

    Whatever follows (reducing, confirming) ends by ``finish_by`` (a ``time.monotonic()``; default: the
    budget's end plus :func:`finishing` of it).  ``on_case`` sees every case before any target runs on it,
    a reduction's probes and a time-out's second run included (a worker records it there, so that a
    target that kills the process leaves it behind).  ``known`` holds what is already known (and
    learns what is found).  The findings are those still standing at the end: one replaced by a
    more general one later in the search is not among them.  With ``variants`` off, a finding of another
    kind is never folded into a root cause as its variant.
    """
    known = Known(variants=variants) if known is None else known
    # A target others build on runs first on each case, so that what both get wrong is found in it and
    # counted in the others as hits.
    order = depths({t.name: t.builds_on for t in targets})
    targets = sorted(targets, key=lambda t: order[t.name])
    stats = Stats()
    deadline = stats.started + budget
    end = deadline + finishing(budget) if finish_by is None else finish_by
    findings: dict[str, Finding] = {}
    seeds = Random(seed)
    stored = list(database.seeds()) if database is not None else []
    pending: list[tuple[Finding, int, tuple[int, float]]] = []
    # The reduced cases of new root causes, each to be run once on the other targets (see below).
    again: list[tuple[Finding, int]] = []
    last_report = 0.0
    done = False

    def over() -> bool:
        return stop() or time.monotonic() >= end

    def report() -> None:
        nonlocal last_report
        now = time.monotonic()
        if now - last_report >= _PROGRESS_EVERY:
            last_report = now
            emit(Progress(stats))

    def probing(case: Case) -> None:
        on_case(case)
        report()  # a long reduction is a long phase: a person still hears how it goes

    def allowance() -> int:
        # Work left, counted in payloads fed to targets (a target's time grows with them) and renders
        # (engine.reduction.RENDER_WORK each, paid by every probe and every generated case): reducing may
        # feed its share of all the payloads so far (and a first batch, so that the first root causes are
        # reduced as soon as they are met).  Not in seconds, so that what a seed finds does not depend on
        # the machine.
        return int(_FIRST_WORK + reducing_share / (1 - reducing_share) * stats.work) - stats.reducing_work

    def settle(met: Finding, case_seed: int, when: tuple[int, float], least: int = 0) -> bool:
        """Reduce ``met`` (with at least ``least`` work) and know it, or count it as a hit; True when it
        was enough to stop."""
        hit = known.explain(met)
        if hit is not None:
            stats.hit(hit.signature, met.target.name)
            return False
        if met.divergence.kind == "timed_out":
            if over() or time.monotonic() + TIMEOUT_MARGIN * timeout > end:
                # No time to run it again: unconfirmed, it would be decided by the machine's speed.
                stats.unreduced += 1
                return False
            probing(met.case)
            if not observe(met.target, met.case, timeout=TIMEOUT_MARGIN * timeout).timed_out:
                # A pause of the machine's, or a target slow on a large case but not stuck: the same case, run
                # again with room to spare, answered.  Reported, it would pass or fail by the speed of the
                # machine that replays it; what is stuck runs past any limit.
                stats.flaky.append(f"{met.target.name} ran out of time once on a case it then answered within "
                                   f"{TIMEOUT_MARGIN * timeout:g} s: not a finding")
                return False
        finding = _reduced(planner, met, stats, max(allowance(), least), timeout, emit, known, over, probing)
        replaced = known.fold(finding, stats)
        if replaced is None:
            return False
        if database is not None:
            database.remember(case_seed)
        stats.first_seen.setdefault(finding.signature, when)
        for old in replaced:
            findings.pop(old.signature, None)
        findings[finding.signature] = finding
        stats.found(finding.target.name, tuple(old.target for old in replaced))
        emit(Found(finding, tuple(old.signature for old in replaced)))
        if finding.case.plan is not None:
            again.append((finding, case_seed))
        return enough(finding)

    with seeded_by_strategies_only():
        while not done:
            if stats.examples >= max_examples and not again:
                stats.stopped_by = "examples"
                break
            if stop():
                stats.stopped_by = "interrupted"
                break
            if time.monotonic() >= deadline:
                stats.stopped_by = "budget"
                break
            report()
            while pending and allowance() > 0 and not done:
                done = settle(*pending.pop(_first_new(pending, known)[0]))
            if again:  # a new root cause's reduced case, for the other targets (the module docstring says why)
                met_by, case_seed = again.pop(0)
                case, skip = met_by.case, met_by.target.name
            else:
                case_seed = stored.pop(0) if stored else seeds.getrandbits(63)
                case, skip = planner.draw(case_seed), ""
                stats.examples += 1
                stats.work += RENDER_WORK
                for feature in case.features:
                    stats.by_feature[feature] = stats.by_feature.get(feature, 0) + 1
            on_case(case)
            payloads = chunks_of(case)
            events = expected_events(case)
            for target in targets:
                if case.dialect not in target.dialects or done or target.name == skip:
                    continue  # a target runs only on the dialects it lists
                if target.scope.admits(case.features) is not None:
                    # Outside what it can be asked for (its scope): what it does there is not its promise.
                    if not skip:
                        stats.out_of_scope[target.name] = stats.out_of_scope.get(target.name, 0) + 1
                    continue
                if not skip:  # a root cause's reduced case run again is not one more example
                    stats.by_target[target.name] = stats.by_target.get(target.name, 0) + 1
                stats.work += work_of(case, payloads) + 1
                observation = observe(target, case, payloads, timeout)
                stats.seconds_in[target.name] = stats.seconds_in.get(target.name, 0.0) + observation.seconds
                # One report a case and target: the first kind (compare's order puts the gravest first).
                # The others on the same case are that mistake seen from another side, as often as not;
                # at levels partial and producer each kind is a rule of its own, and each is reported.
                found = compare(case.expected, observation, target, events)
                for divergence in found if target.level in EVERY_KIND else found[:1]:
                    met = Finding(target, divergence, case, observation, plain, seed)
                    hit = known.explain(met)
                    if hit is not None:
                        stats.hit(hit.signature, target.name)
                        continue
                    if stats.first_found_after is None:
                        stats.first_found_after = (stats.examples, stats.elapsed)
                    when = (stats.examples, stats.elapsed)
                    if allowance() > 0:
                        done = settle(met, case_seed, when)
                    elif len(pending) < _MAX_PENDING:
                        pending.append((met, case_seed, when))  # reduced when the share allows, or met as it is
        # What still waits is reduced in what is left of the share.  Past it, a divergence of a target,
        # kind and crash state not seen before is still reduced, a small case's worth each, while the
        # last stretch allows (a new root cause is worth its seconds; unshrunk, its stale features would
        # be a signature of their own), and is kept as met after that; one of a known key is most likely
        # a known root cause in another guise, and is only counted.  Past the run's end, nothing runs: settle
        # keeps a new one as met.
        last_stretch = stats.reducing_work + _LAST_STRETCH
        while pending and not done:
            at, new = _first_new(pending, known)
            met, case_seed, when = pending.pop(at)
            if allowance() > 0 or known.explain(met):
                done = settle(met, case_seed, when)
            elif new:
                done = settle(met, case_seed, when, _LEAST_WORK if stats.reducing_work < last_stretch else 0)
            else:
                stats.unreduced += 1
    if done:
        stats.stopped_by = "found"
    emit(Progress(stats))
    return list(findings.values()), stats


def _first_new(pending: list[tuple[Finding, int, tuple[int, float]]], known: Known) -> tuple[int, bool]:
    """Where in ``pending`` the first divergence of a target, kind and crash state no root cause is known for
    is (of its target's, or of one it builds on), and True; else 0 and False.  What the share allows goes
    first to what is most likely a new root cause, not to a known one met in another guise."""
    return next(((i, True) for i, (met, _, _) in enumerate(pending)
                 if not known.has(met.key, met.target.builds_on)), (0, False))


def _reduced(planner: Planner, met: Finding, stats: Stats, allowance: int, timeout: float,
             emit: Emit, known: Known, over: Callable[[], bool], on_probe: Callable[[Case], None]) -> Finding:
    """``met`` reduced to its minimal features, or as met when the share for reducing is spent or the run is
    ``over()``; reduced only until it is explained by what is ``known``, if it comes to be (then it folds as a
    hit), or until the run is over.

    A ``timed_out`` or ``memory`` one is kept as met: every probe that still showed it would cost the time
    limit, or blow up again.
    """
    if allowance <= 0 or over() or met.case.plan is None or met.divergence.kind in PER_TARGET:
        return Finding(met.target, met.divergence, met.case, met.observation, met.plain, met.seed, unshrunk=True)
    started = time.monotonic()
    stats.reducing = f"{met.target.name}: {met.divergence.kind}"
    emit(Progress(stats))
    # One reduction may run past what is left of the share: cut off mid-way, its features would be
    # stale ones, and a stale feature makes a second signature for the same bug.
    def explained(case: Case, observation: Observation, divergence: Divergence) -> bool:
        return known.explain(Finding(met.target, divergence, case, observation, met.plain, met.seed)) is not None

    result = reduce(planner.render, met.target, met.case, met.observation, met.divergence, timeout=timeout,
                    plain=met.plain, max_work=max(allowance, _LEAST_WORK), explained=explained, over=over,
                    on_probe=on_probe)
    stats.reducing_seconds += time.monotonic() - started
    stats.probes += result.probes
    stats.reducing_work += result.work
    stats.reducing = ""
    return Finding(met.target, result.divergence, result.case, result.observation, met.plain, met.seed,
                   unshrunk=not result.complete and result.probes == 0)


def search_for_kind(target: Target, kind: str, planner: Planner, *, seed: int = 0, attempts: int = 4,
                    **options) -> tuple[list[Finding], list[Stats]]:
    """Search ``target`` alone until a divergence of ``kind`` turns up: those findings, and each try's stats.

    Each try is one search with the next seed (``seed``, ``seed + 1``, ...), ended by the first
    finding of ``kind``; the remaining ``options`` go to :func:`search`.  The self-test's benchmark
    and its test search this way.
    """
    tries: list[Stats] = []
    for attempt in range(attempts):
        # Every kind a finding of its own: ``kind`` may be how some other kind's root cause also shows.
        findings, stats = search([target], planner, seed=seed + attempt, variants=False,
                                 enough=lambda f: f.divergence.kind == kind, **options)
        tries.append(stats)
        mine = [f for f in findings if f.divergence.kind == kind]
        if mine:
            return mine, tries
    return [], tries
