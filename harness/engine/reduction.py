"""Reduction: a divergence's plan edited down to what the divergence needs.

Each probe re-renders an edited plan (:mod:`toolfuzz.strategies.reduce`)
and runs the one target that diverged on it.  An edit is kept when that
target's first divergence (the search reports one a case, see
:mod:`toolfuzz.engine.search`) is still of the same kind, and for ``raised``
from the same crash state; a divergence that vanishes or changes kind without the edit
means the edit took away something the bug needs.  So the features left on
the reduced case are the minimal feature set that a finding's signature is
made of: a profile, a framing or a read cut that stays is one the bug needs.

The first probes trade the case's endings for the plainest one (the
swaps of :mod:`toolfuzz.strategies.reduce`), again after every sweep that
took something out, and a reduction stops as soon
as its case is explained by a root cause already known (``explained``): a
divergence met under a disconnect, of a bug already known under ``length``,
is then a hit after a probe or two instead of a second signature.

A reduction is bounded in probes (not in time, so that it reduces as far on
any machine), and stops early when a sweep over every edit keeps none.  The
one bound in time is the run's own end (``over``): past it, a reduction
hands back the smallest case it has reached.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterator, Mapping

from toolfuzz.judge.compare import Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.feeding import chunks_of
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies.reads import STAGE, moved_cuts, pinned
from toolfuzz.strategies.reduce import PLAINER, Edit, Redraw, edits, lowerings, redraws, swaps
from toolfuzz.targets.base import LEVEL, Fed, Target
from toolfuzz.vocabulary import Case

__all__ = ["Reduced", "reduce", "Reducer", "ReductionSettings", "ReductionHooks", "Pass", "PASSES", "same_divergence",
           "MAX_PROBES", "RENDER_WORK", "work_of"]

#: Probes one reduction may make at most: a few sweeps over a plan of a hundred decisions.
MAX_PROBES = 1500
#: What rendering a case costs, in payloads fed to a target (a render takes about as long as a library
#: spends on twenty chunks): a probe and a generated case both pay it once.
RENDER_WORK = 20
#: Decisions a plan may have left for the costly last pass (redraws) to be tried on it.
_SMALL_PLAN = 8


def work_of(case: Case, payloads: list[bytes]) -> int:
    """What a target's time on ``case`` grows with: the payloads it is fed, or a producer case's batches (its
    reads: a model's text has no events)."""
    return len(payloads) or len(case.reads)


@dataclass(frozen=True)
class Reduced:
    case: Case
    observation: Observation
    divergence: Divergence
    probes: int
    #: Whether it ended because a sweep kept nothing (False: probes or work ran out first).
    complete: bool
    #: The payloads its probes fed the target, in all: what the search counts reducing's share in.
    work: int = 0
    #: Whether it stopped because its case was explained by a root cause already known.
    explained: bool = False
    #: Each pass's name, probes and kept edits, in the order the passes run (:data:`PASSES`).
    passes: tuple[tuple[str, int, int], ...] = ()


def same_divergence(a: Divergence, b: Divergence) -> bool:
    return a.kind == b.kind and a.state == b.state


def _texts(case: Case) -> tuple[tuple[int, int, str, tuple[int, ...]], ...]:
    return tuple((t.choice, t.index, t.text, t.prefixes) for t in texts_of(case.expected))


@dataclass(frozen=True)
class ReductionSettings:
    """How far one reduction may go: in probes, in payloads fed, and at what time limit each probe runs."""

    timeout: float
    max_probes: int = MAX_PROBES
    max_work: int | None = None
    #: Features every case has in its plainest form: not counted in a case's size.
    plain: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ReductionHooks:
    """What a reduction asks of the search that runs it."""

    #: Whether a case it kept is a hit of what is known: it stops there.
    explained: Callable[[Case, Observation, Divergence], bool] = lambda *_: False
    #: Whether the run's time is up: it hands back the smallest case it has reached.
    over: Callable[[], bool] = lambda: False
    #: Sees each probe's case before the target runs on it.
    on_probe: Callable[[Case], None] = lambda case: None


@dataclass
class Pass:
    """A named reduction pass, as Hypothesis's shrinker names its passes: the edits it tries on a plan, and
    what it did (probes made, edits kept), so that a benchmark can say which passes earn their probes."""

    name: str
    edits: Callable[[Mapping], Iterator[Edit]]
    probes: int = 0
    kept: int = 0


#: The passes in their order (the Reducer says why this order).
PASSES = ("swaps", "edits", "lowerings", "redraws")
_EDITS = {"swaps": swaps, "edits": edits, "lowerings": lowerings, "redraws": redraws}


def reduce(render: Callable[..., Case], target: Target, case: Case, observation: Observation,
           divergence: Divergence, **options: Any) -> Reduced:
    """One :class:`Reducer`'s result: ``options`` are :class:`ReductionSettings`' and :class:`ReductionHooks`'."""
    hooks = {name: options.pop(name) for name in _HOOKS if name in options}
    return Reducer(render, target, Reduced(case, observation, divergence, 0, False),
                   ReductionSettings(**options), ReductionHooks(**hooks)).run()


_HOOKS = {f.name for f in fields(ReductionHooks)}


class Reducer:
    """The smallest case reached from a divergence's case on which its target still diverges the same way.

    Smaller means fewer features (those in ``plain`` not counted) first, then fewer calls, reads and
    bytes: a feature taken out is worth a longer wire (``[DONE]`` is longer than no ``[DONE]``).
    It stops after ``max_probes`` probes, or once they have fed the target ``max_work`` payloads, or
    once ``explained`` says a case it kept is a hit of what is known, or as soon as ``over()`` says the
    run's time is up.

    First the endings swapped for the plainest (``swaps``).  Then sweeps that take out until none takes
    anything (``edits``), the swaps tried again after each sweep that took something, then one sweep that
    lowers what is left (``lowerings``: few decisions by then); anything lowered may let more come out, so
    round again.  Last, for a plan already small, lowerings with the rest of their stage drawn again
    (``redraws``).
    """

    def __init__(self, render: Callable[..., Case], target: Target, start: Reduced,
                 settings: ReductionSettings, hooks: ReductionHooks) -> None:
        self.render, self.target, self.settings, self.hooks = render, target, settings, hooks
        self.start = start
        self.best = start
        self.probes = self.work = 0
        self.passes = [Pass(name, _EDITS[name]) for name in PASSES]
        #: What the last probe showed: its observation and the divergences like the one being reduced.
        self.seen: tuple[Observation, list[Divergence]] = (start.observation, [])

    def run(self) -> Reduced:
        plan = self.start.case.plan
        if plan is None:
            return replace(self.start, complete=True)
        phase = 0
        while not (phase == 3 and len(plan) > _SMALL_PLAN):
            swept = self.sweep(self.passes[phase], plan, last=phase == 3)
            if isinstance(swept, Reduced):
                return swept
            kept, plan = swept
            if kept:
                # The endings again first: an ending swap a larger case refused (another call finishing, say)
                # may hold once the sweep took out what stood in its way, and a reduction cut off by its work
                # before the lowerings would keep the ending it was met under.
                phase = 0
            elif phase < 3:
                phase += 1
            else:
                break
        return self.result(complete=True)

    def result(self, complete: bool, explained: bool = False) -> Reduced:
        best = self.best
        return Reduced(best.case, best.observation, best.divergence, self.probes, complete, self.work,
                       explained=explained, passes=tuple((p.name, p.probes, p.kept) for p in self.passes))

    def spent(self) -> bool:
        settings = self.settings
        return (self.probes >= settings.max_probes or (settings.max_work is not None and self.work >= settings.max_work)
                or self.hooks.over())

    def sweep(self, reduction: Pass, plan: Mapping, last: bool) -> tuple[bool, Mapping] | Reduced:
        """One pass over ``plan``: whether it kept an edit, and the plan it left; or the result, when the
        reduction ends in it (spent, or explained)."""
        kept = False
        for edit in reduction.edits(plan):
            candidate = edit.apply(plan)
            if candidate is None:
                continue
            if self.spent():
                return self.result(complete=False)
            smaller, seen, same = self.tried(reduction, edit, candidate)
            best = self.best.case
            # A redraw takes a call out and draws the rest of its stage at random: kept for the call it took
            # out, since the sweeps that follow take out again what the stage drew.
            fewer = isinstance(edit, Redraw) and len(smaller.expected.calls) < len(best.expected.calls)
            # A swap or a cutoff trades endings for the plainest one, a shift a profile for an earlier one: kept
            # for that, though the wire may grow (``[DONE]`` is longer than none).
            plainer = isinstance(edit, PLAINER) and self.size(smaller)[0] <= self.size(best)[0]
            if same and (fewer or plainer or self.size(smaller) <= self.size(best)):
                # The decisions the render used: a redraw's new ones, and none the case did not need.
                plan, kept = smaller.plan, True
                reduction.kept += 1
                self.best = Reduced(smaller, seen, same[0], self.probes, False, self.work)
                if self.hooks.explained(smaller, seen, same[0]):
                    return self.result(complete=False, explained=True)
                if last:
                    break
        return kept, plan

    def tried(self, reduction: Pass, edit: Edit, candidate: dict) -> tuple[Case, Observation, list[Divergence]]:
        """The candidate rendered and probed; where the edit moved the read cuts, again with them put back."""
        best = self.best.case
        smaller = self.probed(reduction, candidate, edit.redrawn if isinstance(edit, Redraw) else None)
        seen, same = self.seen
        if (not same and not isinstance(edit, Redraw) and STAGE not in edit.key and len(best.reads) > 1
                and any(STAGE in key for key in candidate)):
            # The edit moved the read cuts to other bytes (they are offsets into the wire): again with
            # each cut where it was, on the line it cut, before taking it for an edit the bug needs.  Only
            # a plan that draws read cuts has them to put back (a producer case's batches are tokens).
            cuts = moved_cuts(best.wire, best.cuts, smaller.wire)
            repinned = pinned(candidate, cuts) if tuple(cuts) != smaller.cuts else None
            if repinned is not None and self.probes < self.settings.max_probes and not self.hooks.over():
                smaller = self.probed(reduction, repinned, None)
                seen, same = self.seen
        return smaller, seen, same

    def probed(self, reduction: Pass, plan: dict, redrawn: tuple[int, Any] | None) -> Case:
        """``plan`` rendered and run on the target: the case, with what it showed left in ``self.seen``."""
        self.probes += 1
        reduction.probes += 1
        smaller = self.render(plan, redrawn)
        seen, same, cost = self.probe(smaller)
        self.work += cost
        self.seen = (seen, same)
        return smaller

    def size(self, c: Case) -> tuple[int, ...]:
        return (len(set(c.features) - self.settings.plain), *c.size)

    def probe(self, smaller: Case) -> tuple[Observation, list[Divergence], int]:
        """What the target shows on ``smaller``: its observation, the divergences like the one being
        reduced, and the work it cost."""
        target, best = self.target, self.best
        if smaller.dialect != self.start.case.dialect:
            # An edit of the decision that picks a producer case's format: the target reads one format.
            return best.observation, [], RENDER_WORK
        payloads = chunks_of(smaller)
        self.hooks.on_probe(smaller)
        if LEVEL[target.level].fed is Fed.PREFIXES and _texts(smaller) == _texts(best.case):
            seen = best.observation  # a partial parser sees only the texts and where they are cut
        else:
            seen = observe(target, smaller, payloads, self.settings.timeout)
        found = compare(smaller.expected, seen, target, expected_events(smaller))
        # At levels partial and producer every kind a case shows is reported (each is a rule of its own), so
        # the one being reduced need not come first.
        same = [f for f in (found if LEVEL[target.level].every_kind else found[:1])
                if same_divergence(f, self.start.divergence)]
        return seen, same, work_of(smaller, payloads) + RENDER_WORK
