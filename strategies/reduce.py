"""Reduction passes on plans: the edits that make a case simpler, biggest first.

A plan (:mod:`toolfuzz.strategies.plans`) names each decision that differs
from the plainest draw, within the stages that drew it.  So the passes need
no knowledge of any one stage to be domain passes: deleting every decision
under ``choice:1`` drops the second choice, under ``fragments:0`` of a call
merges its fragments into one, under ``read_cuts:0`` makes the wire one
read, under ``framings:0`` makes the framing plain (LF, ``data: ``, no
comments), under ``profile_sets:0`` takes every call-shape profile out;
deleting one decision takes one profile out, one fragment boundary, one read
cut, the ending back to ``[DONE]``.  Dropping a stage takes one call (or
choice) out of the middle and moves the later ones up, a call drawn plain
(which no decision names) included.  Lowering a small decision moves a pick
toward the first of its choices (so one bug met under several endings is
reported under the first ending that shows it), and halving a number or a
text shortens a value, a count or a position; a text also loses its first
half, and a short one each character in turn, since what matters may sit at
its end.

Lowering works within one stage; a stream can leave a call unfinished in
stages of their own (a choice finishing for ``length``, the stream ending
in a disconnect, an error, or without its last event), and one bug that
hands out unfinished calls shows under each.  So before lowering, a swap
trades every ending decision of the plan for the plainest unfinished
ending, one choice finishing for ``length``: kept when the divergence
stays, it reports all of them under that one.  Where ``length`` does not
show it (an assembler that hands out a call only when no finish reason
came), a cutoff trades them for the stream cut off at an event boundary
before its finish, the plainest disconnect, as one more try.  Likewise a shift moves a
call-shape profile that a plan switches on to each profile before it
(``id-every-fragment`` for ``new-id-continuations``, say): one bug met under
any of several profiles is reported under the first that shows it.

The edits come biggest first (the stage holding most decisions, down to
single decisions, then smaller values), because C-Reduce's lesson is that a
reducer wins most by trying the largest cuts before the fine ones.  Each
edit is a re-render and a probe, never a regeneration; the driver
(:mod:`toolfuzz.engine.reduction`) keeps an edit when the divergence
stays the same, and sweeps again until no edit is kept.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from toolfuzz.strategies.endings import DISCONNECT_DECISION, ENDING_STAGES, LENGTH_DECISION
from toolfuzz.strategies.plans import Key

__all__ = ["Edit", "StageOut", "Drop", "DecisionOut", "Smaller", "Cut", "Lower", "Redraw", "Swap", "Cutoff", "Shift",
           "PLAINER", "edits", "lowerings", "redraws", "swaps", "shifts", "apply"]

@dataclass(frozen=True)
class Edit:
    """One edit of a plan, at ``key``: the stage or decision it changes.  Each kind is a small frozen type whose
    :meth:`apply` makes it; a reduction pass (:mod:`toolfuzz.engine.reduction`) is a generator of them."""

    key: Key

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        """``plan`` with this edit made, or None when the edit changes nothing (any more)."""
        raise NotImplementedError


@dataclass(frozen=True)
class StageOut(Edit):
    """Every decision under the stage ``key`` out: its calls, fragments, reads or framing drawn plain."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        n = len(self.key)
        kept = {k: v for k, v in plan.items() if k[:n] != self.key}
        return kept if len(kept) < len(plan) else None


@dataclass(frozen=True)
class Drop(Edit):
    """The stage ``key`` (the i-th call, say) out and the later ones of its name moved up one."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        return _drop(plan, self.key)


@dataclass(frozen=True)
class DecisionOut(Edit):
    """The decision ``key`` out: one profile, one fragment boundary, one read cut, the ending back to the plainest."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        return {k: v for k, v in plan.items() if k != self.key} if self.key in plan else None


@dataclass(frozen=True)
class Smaller(Edit):
    """The number or text at ``key`` halved."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        smaller = _smaller(plan[self.key]) if self.key in plan else None
        return None if smaller is None else {**plan, self.key: smaller}


@dataclass(frozen=True)
class Cut(Edit):
    """The text at ``key`` without its characters ``start`` to ``end``."""

    start: int
    end: int

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        value = plan.get(self.key)
        if type(value) is not str or self.end > len(value) or self.start >= self.end:
            return None
        return {**plan, self.key: value[:self.start] + value[self.end:]}


@dataclass(frozen=True)
class Lower(Edit):
    """The small decision at ``key`` moved to the lower choice ``value``: a bug met under several endings is
    reported under the first."""

    value: int

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        if self.key not in plan or type(plan[self.key]) is not int or self.value >= plan[self.key]:
            return None
        return {**plan, self.key: self.value}


@dataclass(frozen=True)
class Redraw(Lower):
    """As :class:`Lower`, and what the edit left out of the decision's stage drawn again at random from
    ``seed``."""

    seed: int

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        if super().apply(plan) is None:
            return None
        parent = self.key[:-1]
        n = len(parent)
        return {**{k: v for k, v in plan.items() if k[:n] != parent}, self.key: self.value}

    @property
    def redrawn(self) -> tuple[int, Key]:
        """What the render draws anew: the seed, and the stage it draws in."""
        return self.seed, self.key[:-1]


@dataclass(frozen=True)
class Swap(Edit):
    """Every ending decision out, and the choice ``key`` finishing for ``length``."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        return _swap(plan, self.key)


@dataclass(frozen=True)
class Cutoff(Edit):
    """Every ending decision out, and the stream (its top stage, ``key``) cut off before it finishes."""

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        return _cut_off(plan, self.key)


@dataclass(frozen=True)
class Shift(Edit):
    """The profile switched on at ``key`` switched on at place ``place`` instead."""

    place: int

    def apply(self, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
        to = (*self.key[:-1], self.place)
        if self.key not in plan or to in plan:
            return None
        return {(to if k == self.key else k): v for k, v in plan.items()}


#: The edits that trade a case's endings or profiles for plainer ones: kept for that, though the wire may grow.
PLAINER = (Swap, Cutoff, Shift)


#: A text up to this long is also tried with each of its characters taken out.
_SHORT_TEXT = 32
#: A decision up to this is a choice among a few (a profile, an ending, a mode): every lower value is
#: tried, so that a bug met under any of several endings is reported under the first that shows it.
_FEW = 24


def edits(plan: Mapping[Key, Any]) -> Iterator[Edit]:
    """The edits that take decisions out of ``plan`` or shorten them, biggest cuts first."""
    stages = Counter(key[:i] for key in plan for i in range(1, len(key)))
    for prefix, _ in sorted(stages.items(), key=lambda item: (-item[1], len(item[0]))):
        yield StageOut(prefix)
    for prefix in sorted(stages, key=len):
        yield Drop(prefix)
    # An earlier call or choice drawn plain has no decisions of its own to name it, yet the bug may need only
    # a later one: dropping the plain one moves the later one up into its place.
    for prefix in sorted({_earlier for prefix in stages for _earlier in _plain_before(prefix, stages)}, key=len):
        yield Drop(prefix)
    for key in plan:
        yield DecisionOut(key)
    for key, value in plan.items():
        if (type(value) is int and value > _FEW) or type(value) is str:
            yield Smaller(key)
    # A text's first half, then (for a short one) each character in turn: what matters may sit at its end
    # (an escape, a character outside the BMP), which halving from the end never keeps.
    for key, value in plan.items():
        if type(value) is str and len(value) > 1:
            yield Cut(key, 0, len(value) // 2)
            if len(value) <= _SHORT_TEXT:
                for i in range(len(value)):
                    yield Cut(key, i, i + 1)


def _plain_before(prefix: Key, stages: Mapping[Key, int]) -> Iterator[Key]:
    """The stages of ``prefix``'s name before it (``choice:0`` for ``choice:1``) that hold no decision."""
    name, _, n = str(prefix[-1]).rpartition(":")
    if name and n.isdigit():
        for k in range(int(n)):
            earlier = (*prefix[:-1], f"{name}:{k}")
            if earlier not in stages:
                yield earlier


def redraws(plan: Mapping[Key, Any], tries: int = 6) -> Iterator[Edit]:
    """Each small decision lowered with the rest of its stage drawn again at random, ``tries`` times each.

    A count lowered changes what the draws after it mean: three interleaved calls lowered to two
    are two calls in order.  Drawing the rest of the stage again finds the two interleaved ones
    where no single edit can.  Costly (every lower value, several tries), so only for small plans.
    """
    for key, value in plan.items():
        if type(value) is int and 1 < value <= _FEW:
            for lower in range(1, value):
                for t in range(tries):
                    yield Redraw(key, lower, t)


def _ending(key: Key) -> bool:
    return any(isinstance(part, str) and part.partition(":")[0] in ENDING_STAGES for part in key[:-1])


def swaps(plan: Mapping[Key, Any]) -> Iterator[Edit]:
    """The plan's endings traded for one choice finishing for ``length``, for each choice it has; then for
    the stream cut off before it finishes."""
    if not plan:
        return
    top = next(iter(plan))[0]
    choices = {"choice:0"} | {part for key in plan for part in key[1:-1]
                               if isinstance(part, str) and part.startswith("choice:")}
    for choice in sorted(choices, key=lambda c: int(c.partition(":")[2])):
        yield Swap((top, choice))
    yield Cutoff((top,))


#: The stage whose decisions are alike switches, one a call-shape profile, in the order of PROFILES.
_PROFILES = "profile_sets:0"


def shifts(plan: Mapping[Key, Any]) -> Iterator[Edit]:
    """Each profile switched on moved to each place before it, the first place first."""
    for key in plan:
        if len(key) >= 2 and key[-2] == _PROFILES:
            for i in range(key[-1]):
                yield Shift(key, i)


def lowerings(plan: Mapping[Key, Any]) -> Iterator[Edit]:
    """The swaps and shifts, then each small decision moved to each lower choice, lowest first: tried
    once nothing more comes out."""
    yield from swaps(plan)
    yield from shifts(plan)
    for key, value in plan.items():
        if type(value) is int and 1 < value <= _FEW:
            for lower in range(1, value):
                yield Lower(key, lower)


def apply(edit: Edit, plan: Mapping[Key, Any]) -> dict[Key, Any] | None:
    """``plan`` with ``edit`` made, or None when the edit changes nothing (any more)."""
    return edit.apply(plan)


def _swap(plan: Mapping[Key, Any], choice: Key) -> dict[Key, Any] | None:
    """Every ending decision of ``plan`` out, and ``choice`` finishing for ``length``; None where the
    endings are already no more than choices finishing for ``length`` (so that swaps never go round)."""
    endings = {k: v for k, v in plan.items() if _ending(k)}
    if not endings or all(k[-2] == "finish_reasons:0" and v == LENGTH_DECISION for k, v in endings.items()):
        return None
    out = {k: v for k, v in plan.items() if k not in endings}
    out[(*choice, "finish_reasons:0", 0)] = LENGTH_DECISION
    return out


def _cut_off(plan: Mapping[Key, Any], top: Key) -> dict[Key, Any] | None:
    """Every ending decision of ``plan`` out, and the stream cut off at the plainest place, before it finishes
    (:func:`~toolfuzz.strategies.endings.disconnects`); None where the endings are already that, or no more
    than choices finishing for ``length``, which is plainer still."""
    endings = {k: v for k, v in plan.items() if _ending(k)}
    ending = (*top, "stream_endings:0", 0)
    if not endings or endings == {ending: DISCONNECT_DECISION} or all(
            k[-2] == "finish_reasons:0" and v == LENGTH_DECISION for k, v in endings.items()):
        return None
    out = {k: v for k, v in plan.items() if k not in endings}
    out[ending] = DISCONNECT_DECISION
    return out


def _drop(plan: Mapping[Key, Any], where: Key) -> dict[Key, Any] | None:
    """The stage ``where`` (the i-th call, say) taken out and the later ones of its name moved up one.

    What stays is drawn as the earlier ones were: the second and third of three calls become the first
    and second, their fragments and interleaving unchanged, and the last is drawn plain (a count
    lowered later takes it out).  Only where a later one exists; otherwise this is a "stage" edit.
    """
    name, _, n = where[-1].rpartition(":")
    if not name or not n.isdigit():
        return None
    at, parent = int(n), where[:-1]
    depth = len(parent)
    out: dict[Key, Any] = {}
    moved = False
    for k, v in plan.items():
        if len(k) > depth + 1 and k[:depth] == parent and isinstance(k[depth], str):
            other, _, m = k[depth].rpartition(":")
            if other == name and m.isdigit():
                if int(m) == at:
                    continue
                if int(m) > at:
                    k = (*parent, f"{name}:{int(m) - 1}", *k[depth + 1:])
                    moved = True
        out[k] = v
    return out if moved else None


def _smaller(value: Any) -> Any:
    if type(value) is int:
        half = value // 2 if value > 0 else -((-value) // 2)
        return half if half not in (0, value) else None
    if type(value) is str and len(value) > 1:
        return value[: len(value) // 2]
    return None
