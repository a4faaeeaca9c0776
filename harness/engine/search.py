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
from dataclasses import dataclass, fields, replace
from random import Random
from typing import Callable

from toolfuzz.engine.database import SeedStore
from toolfuzz.engine.events import Emit, Finding, Found, Progress, Stats, StopReason
from toolfuzz.engine.known import PER_TARGET, Known, depths
from toolfuzz.engine.reduction import RENDER_WORK, reduce, work_of
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.identity import RootKey
from toolfuzz.judge.compare import Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.feeding import chunks_of
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import LEVEL, Target
from toolfuzz.vocabulary import Case

__all__ = ["search", "Search", "SearchSettings", "SearchHooks", "search_for_kind", "REDUCING_SHARE", "TIMEOUT_MARGIN",
           "FINISHING_SHARE", "KNOWN_TIMEOUT_SHARE", "KNOWN_TIMEOUT_CAP", "finishing"]

#: Reducing new root causes may take at most this share of the work so far; the rest is generation.
REDUCING_SHARE = 0.3
#: A new time-out is a finding only if the same case runs past this many times the time limit, run again.
TIMEOUT_MARGIN = 2
#: Once a target's time-out is a known root cause, each later case runs it under this share of the limit (and
#: no less than _LEAST_LIMIT): running out of that is a hit of the known one (a time-out is one root cause a
#: target, whatever the case), and each hit would otherwise pay the whole limit again.  sglang's pythonic
#: parser met its known time-out 39 times in a 360-s run, about 195 s of it.
KNOWN_TIMEOUT_SHARE = 0.1
_LEAST_LIMIT = 0.25
#: Once a target's time-out is known, its time-outs may take at most this share of the search's time.  Past it
#: the target sits out generated cases (counted, ``Stats.sat_out``) until its share is back under, unless every
#: target is past its own.  A shorter limit alone cannot do it, since a parser that backtracks is slow on a long
#: tail of cases, and any limit leaves most of its time in the cases past it (bench.timeouts measures both).
#: Seconds, not work: which case runs out of time depends on the machine already.
KNOWN_TIMEOUT_CAP = 0.1
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


@dataclass(frozen=True)
class SearchSettings:
    """What one search is asked to do: its bounds, its seed and how it judges; the same for every target."""

    max_examples: int = 1000
    #: Seconds to generate for.
    budget: float = 120.0
    seed: int = 0
    #: Seconds per case per target.
    timeout: float = 5.0
    #: The features a finding keeps however far it is reduced (the plain transport).
    plain: frozenset[str] = frozenset()
    reducing_share: float = REDUCING_SHARE
    #: The share of the search's time a target's time-outs may take once one is known (:data:`KNOWN_TIMEOUT_CAP`).
    known_timeout_cap: float = KNOWN_TIMEOUT_CAP
    #: Off: a finding of another kind is never folded into a root cause as its variant.
    variants: bool = True
    #: When whatever follows generating (reducing, confirming) ends, a ``time.monotonic()``; None: the
    #: budget's end plus :func:`finishing` of it.
    finish_by: float | None = None


@dataclass(frozen=True)
class SearchHooks:
    """What a search tells its caller and asks of it."""

    emit: Emit = lambda event: None
    #: Sees every case before any target runs on it, a reduction's probes and a time-out's second run
    #: included (a worker records it there, so that a target that kills the process leaves it behind).
    on_case: Callable[[Case], None] = lambda case: None
    stop: Callable[[], bool] = lambda: False
    #: A finding after which the search stops (``search_for_kind``).
    enough: Callable[[Finding], bool] = lambda finding: False


#: A divergence waiting for the share: what was met, its case's seed, and (examples, seconds) when.
Pending = tuple[Finding, int, tuple[int, float]]


def search(targets: list[Target], planner: Planner, *, known: Known | None = None,
           database: SeedStore | None = None, **options: object) -> tuple[list[Finding], Stats]:
    """One :class:`Search`: ``options`` are :class:`SearchSettings`' and :class:`SearchHooks`' fields."""
    hooks = {name: options.pop(name) for name in _HOOKS if name in options}
    settings = SearchSettings(**options)  # type: ignore[arg-type] - a misspelt option is a TypeError here
    return Search(targets, planner, settings, known=known, database=database, hooks=SearchHooks(**hooks)).run()


_HOOKS = {f.name for f in fields(SearchHooks)}


class Search:
    """A search's state and its phases, as the module says: :meth:`run` draws (:meth:`next_case`), runs every
    target on each case (:meth:`run_targets`), settles each divergence (:meth:`settle`: a hit, or reduced and
    known) while the share allows, and when generating ends, settles what still waits (:meth:`finish`).

    Search until ``max_examples`` or ``budget`` seconds are spent, ``stop()`` says so, or a finding is
    ``enough``.  ``known`` holds what is already known (and learns what is found).  The findings are those
    still standing at the end: one replaced by a more general one later in the search is not among them.
    """

    def __init__(self, targets: list[Target], planner: Planner, settings: SearchSettings, *,
                 known: Known | None = None, database: SeedStore | None = None,
                 hooks: SearchHooks = SearchHooks()) -> None:
        self.settings, self.hooks, self.planner, self.database = settings, hooks, planner, database
        self.known = Known(variants=settings.variants) if known is None else known
        # A target others build on runs first on each case, so that what both get wrong is found in it and
        # counted in the others as hits.
        order = depths({t.name: t.builds_on for t in targets})
        self.targets = sorted(targets, key=lambda t: order[t.name])
        self.stats = Stats()
        self.deadline = self.stats.started + settings.budget
        self.end = (self.deadline + finishing(settings.budget) if settings.finish_by is None
                    else settings.finish_by)
        self.findings: dict[str, Finding] = {}
        self.seeds = Random(settings.seed)
        self.stored = list(database.seeds()) if database is not None else []
        self.pending: list[Pending] = []
        #: The reduced cases of new root causes, each to be run once on the other targets (the module says why).
        self.again: list[tuple[Finding, int]] = []
        self.last_report = 0.0
        self.done = False

    def run(self) -> tuple[list[Finding], Stats]:
        with seeded_by_strategies_only():
            while not self.done:
                reason = self.why_stop()
                if reason is not StopReason.NOT_YET:
                    self.stats.stopped_by = reason
                    break
                self.report()
                while self.pending and self.allowance() > 0 and not self.done:
                    self.done = self.settle(*self.pending.pop(_first_new(self.pending, self.known)[0]))
                self.run_targets(*self.next_case())
            self.finish()
        if self.done:
            self.stats.stopped_by = StopReason.FOUND
        self.hooks.emit(Progress(self.stats))
        return list(self.findings.values()), self.stats

    def why_stop(self) -> StopReason:
        if self.stats.examples >= self.settings.max_examples and not self.again:
            return StopReason.EXAMPLES
        if self.hooks.stop():
            return StopReason.INTERRUPTED
        if time.monotonic() >= self.deadline:
            return StopReason.BUDGET
        return StopReason.NOT_YET

    def over(self) -> bool:
        return self.hooks.stop() or time.monotonic() >= self.end

    def report(self) -> None:
        now = time.monotonic()
        if now - self.last_report >= _PROGRESS_EVERY:
            self.last_report = now
            self.hooks.emit(Progress(self.stats))

    def probing(self, case: Case) -> None:
        self.hooks.on_case(case)
        self.report()  # a long reduction is a long phase: a person still hears how it goes

    def allowance(self) -> int:
        """Work reducing may still do, counted in payloads fed to targets (a target's time grows with them)
        and renders (engine.reduction.RENDER_WORK each, paid by every probe and every generated case): its
        share of all the payloads so far, and a first batch, so that the first root causes are reduced as
        soon as they are met.  Not in seconds, so that what a seed finds does not depend on the machine."""
        share = self.settings.reducing_share
        return int(_FIRST_WORK + share / (1 - share) * self.stats.work) - self.stats.reducing_work

    def limit_for(self, target: Target) -> float:
        """The time limit ``target`` runs a generated case under: the run's, or a share of it once a time-out of
        the target is known (:data:`KNOWN_TIMEOUT_SHARE` says why).  A reduction's probes and a new time-out's
        second run keep the whole limit: what they decide is a finding."""
        timeout = self.settings.timeout
        if self.knows_timeout(target):
            return max(min(timeout, _LEAST_LIMIT), KNOWN_TIMEOUT_SHARE * timeout)
        return timeout

    def knows_timeout(self, target: Target) -> bool:
        return self.known.has(RootKey(target.name, "timed_out"))

    def sits_out(self, target: Target) -> bool:
        """Whether ``target`` sits out the next generated case: its time-out is known and its time-outs have taken
        more than their share of the search's time (:data:`KNOWN_TIMEOUT_CAP` says why), and some target has
        not, to give the time to.  A target searched alone always runs: sitting out would give its time to no one."""
        return self.past_cap(target) and not all(self.past_cap(t) for t in self.targets)

    def past_cap(self, target: Target) -> bool:
        # All its time-outs count, those before its time-out was known and the flaky ones too: the share is of
        # the time, and whatever took it, a target whose time-out is known has had it.
        spent = self.stats.seconds_timed_out.get(target.name, 0.0)
        return self.knows_timeout(target) and spent > self.settings.known_timeout_cap * self.stats.elapsed

    def next_case(self) -> tuple[Case, int, str]:
        """The case to run next, its seed, and the target not to run it on: a new root cause's reduced case
        for the other targets first, else a stored seed's, else a new draw."""
        if self.again:
            met_by, case_seed = self.again.pop(0)
            return met_by.case, case_seed, met_by.target.name
        case_seed = self.stored.pop(0) if self.stored else self.seeds.getrandbits(63)
        case = self.planner.draw(case_seed)
        self.stats.examples += 1
        self.stats.work += RENDER_WORK
        for feature in case.features:
            self.stats.by_feature[feature] = self.stats.by_feature.get(feature, 0) + 1
        return case, case_seed, ""

    def run_targets(self, case: Case, case_seed: int, skip: str) -> None:
        """Every target on ``case`` but ``skip``; each divergence a hit, settled now, or left waiting."""
        stats = self.stats
        self.hooks.on_case(case)
        payloads = chunks_of(case)
        events = expected_events(case)
        for target in self.targets:
            if case.dialect not in target.dialects or self.done or target.name == skip:
                continue  # a target runs only on the dialects it lists
            if target.scope.admits(case.features) is not None:
                # Outside what it can be asked for (its scope): what it does there is not its promise.
                if not skip:
                    stats.out_of_scope[target.name] = stats.out_of_scope.get(target.name, 0) + 1
                continue
            if not skip:  # a root cause's reduced case run again is not one more example
                if self.sits_out(target):
                    stats.sat_out[target.name] = stats.sat_out.get(target.name, 0) + 1
                    continue
                stats.by_target[target.name] = stats.by_target.get(target.name, 0) + 1
            stats.work += work_of(case, payloads) + 1
            observation = observe(target, case, payloads, self.limit_for(target))
            stats.seconds_in[target.name] = stats.seconds_in.get(target.name, 0.0) + observation.seconds
            if observation.timed_out:
                stats.seconds_timed_out[target.name] = stats.seconds_timed_out.get(target.name, 0.0) + observation.seconds
            # One report a case and target: the first kind (compare's order puts the gravest first).
            # The others on the same case are that mistake seen from another side, as often as not;
            # at levels partial and producer each kind is a rule of its own, and each is reported.
            found = compare(case.expected, observation, target, events)
            for divergence in found if LEVEL[target.level].every_kind else found[:1]:
                self.met(Finding(target, divergence, case, observation, self.settings.plain, self.settings.seed),
                         case_seed)

    def met(self, met: Finding, case_seed: int) -> None:
        hit = self.known.explain(met)
        if hit is not None:
            self.stats.hit(hit.signature, met.target.name)
            return
        if self.stats.first_found_after is None:
            self.stats.first_found_after = (self.stats.examples, self.stats.elapsed)
        when = (self.stats.examples, self.stats.elapsed)
        if self.allowance() > 0:
            self.done = self.settle(met, case_seed, when)
        elif len(self.pending) < _MAX_PENDING:
            self.pending.append((met, case_seed, when))  # reduced when the share allows, or met as it is

    def settle(self, met: Finding, case_seed: int, when: tuple[int, float], least: int = 0) -> bool:
        """Reduce ``met`` (with at least ``least`` work) and know it, or count it as a hit; True when it
        was enough to stop."""
        hit = self.known.explain(met)
        if hit is not None:
            self.stats.hit(hit.signature, met.target.name)
            return False
        if met.divergence.kind == "timed_out" and not self.confirmed(met):
            return False
        finding = self.reduced(met, max(self.allowance(), least))
        replaced = self.known.fold(finding, self.stats)
        if replaced is None:
            return False
        if self.database is not None:
            self.database.remember(case_seed)
        self.stats.first_seen.setdefault(finding.signature, when)
        for old in replaced:
            self.findings.pop(old.signature, None)
        self.findings[finding.signature] = finding
        self.stats.found(finding.target.name, tuple(old.target for old in replaced))
        self.hooks.emit(Found(finding, tuple(old.signature for old in replaced)))
        if finding.case.plan is not None:
            self.again.append((finding, case_seed))
        return self.hooks.enough(finding)

    def confirmed(self, met: Finding) -> bool:
        """Whether a new time-out runs past the limit again, given twice the time: only then is it a finding."""
        timeout = self.settings.timeout
        if self.over() or time.monotonic() + TIMEOUT_MARGIN * timeout > self.end:
            # No time to run it again: unconfirmed, it would be decided by the machine's speed.
            self.stats.unreduced += 1
            return False
        self.probing(met.case)
        if not observe(met.target, met.case, timeout=TIMEOUT_MARGIN * timeout).timed_out:
            # A pause of the machine's, or a target slow on a large case but not stuck: the same case, run
            # again with room to spare, answered.  Reported, it would pass or fail by the speed of the
            # machine that replays it; what is stuck runs past any limit.
            self.stats.flaky.append(f"{met.target.name} ran out of time once on a case it then answered within "
                                    f"{TIMEOUT_MARGIN * timeout:g} s: not a finding")
            return False
        return True

    def finish(self) -> None:
        """What still waits, reduced in what is left of the share.

        Past it, a divergence of a target, kind and crash state not seen before is still reduced, a small
        case's worth each, while the last stretch allows (a new root cause is worth its seconds; unshrunk, its
        stale features would be a signature of their own), and is kept as met after that; one of a known key
        is most likely a known root cause in another guise, and is only counted.  Past the run's end, nothing
        runs: settle keeps a new one as met."""
        last_stretch = self.stats.reducing_work + _LAST_STRETCH
        while self.pending and not self.done:
            at, new = _first_new(self.pending, self.known)
            met, case_seed, when = self.pending.pop(at)
            if self.allowance() > 0 or self.known.explain(met):
                self.done = self.settle(met, case_seed, when)
            elif new:
                least = _LEAST_WORK if self.stats.reducing_work < last_stretch else 0
                self.done = self.settle(met, case_seed, when, least)
            else:
                self.stats.unreduced += 1

    def reduced(self, met: Finding, allowance: int) -> Finding:
        """``met`` reduced to its minimal features, or as met when the share for reducing is spent or the run
        is over; reduced only until it is explained by what is known, if it comes to be (then it folds as a
        hit), or until the run is over.

        A ``timed_out`` or ``memory`` one is kept as met: every probe that still showed it would cost the time
        limit, or blow up again.
        """
        if allowance <= 0 or self.over() or met.case.plan is None or met.divergence.kind in PER_TARGET:
            return replace(met, unshrunk=True)
        stats = self.stats
        started = time.monotonic()
        stats.reducing = f"{met.target.name}: {met.divergence.kind}"
        self.hooks.emit(Progress(stats))

        def explained(case: Case, observation: Observation, divergence: Divergence) -> bool:
            return self.known.explain(Finding(met.target, divergence, case, observation, met.plain,
                                              met.seed)) is not None

        # One reduction may run past what is left of the share: cut off mid-way, its features would be
        # stale ones, and a stale feature makes a second signature for the same bug.
        result = reduce(self.planner.render, met.target, met.case, met.observation, met.divergence,
                        timeout=self.settings.timeout, plain=met.plain, max_work=max(allowance, _LEAST_WORK),
                        explained=explained, over=self.over, on_probe=self.probing)
        stats.reducing_seconds += time.monotonic() - started
        stats.probes += result.probes
        for name, probes, kept in result.passes:
            stats.pass_probes[name] = stats.pass_probes.get(name, 0) + probes
            stats.pass_kept[name] = stats.pass_kept.get(name, 0) + kept
        stats.reducing_work += result.work
        stats.reducing = ""
        return Finding(met.target, result.divergence, result.case, result.observation, met.plain, met.seed,
                       unshrunk=not result.complete and result.probes == 0)


def _first_new(pending: list[Pending], known: Known) -> tuple[int, bool]:
    """Where in ``pending`` the first divergence of a target, kind and crash state no root cause is known for
    is (of its target's, or of one it builds on), and True; else 0 and False.  What the share allows goes
    first to what is most likely a new root cause, not to a known one met in another guise."""
    return next(((i, True) for i, (met, _, _) in enumerate(pending)
                 if not known.has(met.key, met.target.builds_on)), (0, False))


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
