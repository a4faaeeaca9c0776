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

from dataclasses import dataclass
from typing import Callable

from toolfuzz.judge.compare import Divergence, compare
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.sandbox import Observation, chunks_of, observe
from toolfuzz.strategies.reads import STAGE, moved_cuts, pinned
from toolfuzz.strategies.reduce import apply, edits, lowerings, redraws, swaps
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import Case

__all__ = ["Reduced", "reduce", "same_divergence", "MAX_PROBES", "RENDER_WORK", "EVERY_KIND", "work_of"]

#: Probes one reduction may make at most: a few sweeps over a plan of a hundred decisions.
MAX_PROBES = 1500
#: What rendering a case costs, in payloads fed to a target (a render takes about as long as a library
#: spends on twenty chunks): a probe and a generated case both pay it once.
RENDER_WORK = 20
#: The levels whose every kind on a case is reported: each kind a rule of its own (the partial level's), or
#: one of three (the producer level's streamed calls, content and whole-text parse).
EVERY_KIND = frozenset({"partial", "producer"})
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


def same_divergence(a: Divergence, b: Divergence) -> bool:
    return a.kind == b.kind and getattr(a, "state", "") == getattr(b, "state", "")


def _texts(case: Case) -> tuple[tuple[int, int, str, tuple[int, ...]], ...]:
    return tuple((t.choice, t.index, t.text, t.prefixes) for t in texts_of(case.expected))


def reduce(render: Callable[..., Case], target: Target, case: Case, observation: Observation,
           divergence: Divergence, *, timeout: float, max_probes: int = MAX_PROBES,
           max_work: int | None = None, plain: frozenset[str] = frozenset(),
           explained: Callable[[Case, Observation, Divergence], bool] = lambda *_: False,
           over: Callable[[], bool] = lambda: False,
           on_probe: Callable[[Case], None] = lambda case: None) -> Reduced:
    """The smallest case reached from ``case`` on which ``target`` still diverges as ``divergence`` says.

    Smaller means fewer features (those in ``plain`` not counted) first, then fewer calls, reads and
    bytes: a feature taken out is worth a longer wire (``[DONE]`` is longer than no ``[DONE]``).
    It stops after ``max_probes`` probes, or once they have fed the target ``max_work`` payloads, or
    once ``explained`` says a case it kept is a hit of what is known, or as soon as ``over()`` says the
    run's time is up.  ``on_probe`` sees each probe's case before the target runs on it.
    """

    def size(c: Case) -> tuple[int, ...]:
        return (len(set(c.features) - plain), *c.size)

    def probe(smaller: Case, best: Reduced) -> tuple[Observation, list[Divergence], int]:
        """What ``target`` shows on ``smaller``: its observation, the divergences like the one being
        reduced, and the work it cost."""
        if smaller.dialect != case.dialect:
            # An edit of the decision that picks a producer case's format: the target reads one format.
            return best.observation, [], RENDER_WORK
        payloads = chunks_of(smaller)
        on_probe(smaller)
        if target.level == "partial" and _texts(smaller) == _texts(best.case):
            seen = best.observation  # a partial parser sees only the texts and where they are cut
        else:
            seen = observe(target, smaller, payloads, timeout)
        found = compare(smaller.expected, seen, target, expected_events(smaller))
        # At levels partial and producer every kind a case shows is reported (each is a rule of its own), so
        # the one being reduced need not come first.
        same = [f for f in (found if target.level in EVERY_KIND else found[:1]) if same_divergence(f, divergence)]
        return seen, same, work_of(smaller, payloads) + RENDER_WORK

    best = Reduced(case, observation, divergence, 0, False)
    plan = case.plan
    if plan is None:
        return Reduced(case, observation, divergence, 0, True)
    probes = work = 0
    # First the endings swapped for the plainest.  Then sweeps that take out until none takes anything,
    # the swaps tried again after each sweep that took something, then one sweep that lowers what is left
    # (few decisions by then); anything lowered may let more come out, so round again.  Last, for a plan
    # already small, lowerings with the rest of their stage drawn again.
    passes = (swaps, edits, lowerings, redraws)
    phase = 0
    while True:
        kept = False
        if phase == 3 and len(plan) > _SMALL_PLAN:
            break
        for edit in passes[phase](plan):
            candidate = apply(edit, plan)
            if candidate is None:
                continue
            if probes >= max_probes or (max_work is not None and work >= max_work) or over():
                return Reduced(best.case, best.observation, best.divergence, probes, False, work)
            probes += 1
            smaller = render(candidate, (edit[3], edit[1][:-1]) if edit[0] == "redraw" else None)
            seen, same, cost = probe(smaller, best)
            work += cost
            if (not same and edit[0] != "redraw" and STAGE not in edit[1] and len(best.case.reads) > 1
                    and any(STAGE in key for key in candidate)):
                # The edit moved the read cuts to other bytes (they are offsets into the wire): again with
                # each cut where it was, on the line it cut, before taking it for an edit the bug needs.  Only
                # a plan that draws read cuts has them to put back (a producer case's batches are tokens).
                cuts = moved_cuts(best.case.wire, best.case.cuts, smaller.wire)
                repinned = pinned(candidate, cuts) if tuple(cuts) != smaller.cuts else None
                if repinned is not None and probes < max_probes and not over():
                    probes += 1
                    smaller = render(repinned, None)
                    seen, same, cost = probe(smaller, best)
                    work += cost
            # A redraw takes a call out and draws the rest of its stage at random: kept for the call it took
            # out, since the sweeps that follow take out again what the stage drew.
            fewer = edit[0] == "redraw" and len(smaller.expected.calls) < len(best.case.expected.calls)
            # A swap or a cutoff trades endings for the plainest one, a shift a profile for an earlier one: kept
            # for that, though the wire may grow (``[DONE]`` is longer than none).
            plainer = edit[0] in ("swap", "cutoff", "shift") and size(smaller)[0] <= size(best.case)[0]
            if same and (fewer or plainer or size(smaller) <= size(best.case)):
                # The decisions the render used: a redraw's new ones, and none the case did not need.
                plan, kept = smaller.plan, True
                best = Reduced(smaller, seen, same[0], probes, False, work)
                if explained(smaller, seen, same[0]):
                    return Reduced(smaller, seen, same[0], probes, False, work, explained=True)
                if phase == 3:
                    break
        if kept:
            # The endings again first: an ending swap a larger case refused (another call finishing, say) may
            # hold once the sweep took out what stood in its way, and a reduction cut off by its work before
            # the lowerings would keep the ending it was met under.
            phase = 0
        elif phase < 3:
            phase += 1
        else:
            return Reduced(best.case, best.observation, best.divergence, probes, True, work)
    return Reduced(best.case, best.observation, best.divergence, probes, True, work)
