"""Comparing what a target observed with the outcome known by construction.

Every divergence has a kind from :data:`KINDS`.  Kinds are checked in the
order listed, and a case reports each kind at most once, so that the same
mistake is named the same way however the case that shows it was drawn.
Association comes first: when calls are lost, made up or moved, the
differences of the calls that still pair up are consequences and are not
reported as further kinds.  A call whose id belongs to another choice is
``choices_mixed`` even when text was lost on the way, and text moved
between calls is compared without the characters a move can break (the
two UTF-16 halves of one character sent to two calls).  A call the wire sent
without an index is not held to the position the contract numbers it by: a
target that reports it with no index pairs with it by order.
Comparison is exact on the arguments string (the wire's concatenation); a
target that hands on different text for the same JSON value is its own kind,
``reserialised``, not lost data.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from toolfuzz.judge.compare_events import compare_events
from toolfuzz.judge.compare_partial import Reading, compare_partial
from toolfuzz.judge.compare_producer import compare_producer
from toolfuzz.identity import CrashState
from toolfuzz.kinds import meanings
from toolfuzz.strategies.markup import FORMATS
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.vocabulary import INCOMPLETE, Call, Outcome, SSEEvent, text_format
from toolfuzz.judge.observation import Observation, ObservedCall
from toolfuzz.targets.base import LEVEL, Answers, Target

__all__ = ["KINDS", "Divergence", "compare"]

#: Every divergence kind, in the order they are checked, with what each means (toolfuzz.kinds holds them).
KINDS = meanings()
_ORDER = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class Divergence:
    kind: str
    detail: str
    #: For ``raised``: the crash state (:func:`toolfuzz.judge.crash_state.crash_state`), which clusters raises by
    #: where they happened rather than by their messages.  None for the other kinds.
    state: CrashState | None = None


def compare(expected: Outcome, observation: Observation, target: Target,
            events: tuple[SSEEvent, ...] | None = None) -> list[Divergence]:
    """The divergences between ``expected`` and what ``target`` observed, one per kind, in kind order.

    An sse-level target is judged on ``events`` (:func:`toolfuzz.judge.compare_events.expected_events`) instead.
    """
    failed = _failure(expected, observation, target)
    if failed is not None:
        return failed
    return _JUDGED[LEVEL[target.level].answers](expected, observation, target, events)


def _failure(expected: Outcome, observation: Observation, target: Target) -> list[Divergence] | None:
    """What a target that gave no answer to judge did (blocked, out of time or memory, raised, returned
    something else), or None when it answered."""
    if observation.blocked:
        return [Divergence("blocked_action", observation.blocked)]
    if observation.timed_out:
        return [Divergence("timed_out", f"no answer within the time limit ({observation.seconds:.1f} s)")]
    if observation.out_of_memory:
        return [Divergence("memory", f"raised MemoryError after {observation.seconds:.1f} s")]
    if observation.raised:
        # Refusing a stream that has nothing executable in it (cut, truncated) loses nothing a user could
        # run, so it is not a divergence; raising on a stream that finished a call is.  A stream that ends
        # in the server's error is refused by the server itself: raising it is how a client reports that
        # (the SDKs raise such errors on purpose), whatever the stream finished before it.
        # A decoder is judged on its events, so a raise at level sse always counts; at level partial a raise
        # is each prefix's own answer, and one for the whole case (a program that would not restart) counts.
        if LEVEL[target.level].answers is not Answers.CALLS or (expected.executable() and expected.error is None):
            return [Divergence("raised", observation.raised,
                               observation.crash_state or CrashState(_type_of(observation.raised)))]
        return []
    if observation.bad_return:
        return [Divergence("bad_return", observation.bad_return)]
    return None


def _partial(expected: Outcome, observation: Observation, target: Target, events: object) -> list[Divergence]:
    if observation.prefixes is None:
        raise ValueError(f"target {target.name!r} is at level partial: its observation has no prefixes")
    reading = Reading(exact_numbers="exact-numbers" in target.reports,
                      utf16_strings="utf16-strings" in target.reports, relaxations=target.relaxations)
    return [Divergence(k, d, s) for k, d, s in compare_partial(texts_of(expected), observation.prefixes, reading)]


def _producer(expected: Outcome, observation: Observation, target: Target, events: object) -> list[Divergence]:
    if observation.whole is None:
        raise ValueError(f"target {target.name!r} is at level producer: its observation has no whole-text parse")
    fmt = FORMATS.get(text_format(target.dialects[0]) or "")
    return [Divergence(k, d) for k, d in compare_producer(
        expected, observation.calls, observation.content or "", observation.whole, observation.whole_content or "",
        fmt.specials if fmt is not None else ())]


def _sse(expected: Outcome, observation: Observation, target: Target,
         events: tuple[SSEEvent, ...] | None) -> list[Divergence]:
    if events is None or observation.events is None:
        raise ValueError(f"target {target.name!r} is at level sse: compare needs the expected events")
    return [Divergence(k, d) for k, d in compare_events(events, observation.events, "ids" in target.reports)]


def _calls(expected: Outcome, observation: Observation, target: Target, events: object = None) -> list[Divergence]:
    """An assembler judged on its calls: first where they went (lost, made up, moved), then, when every call is
    where it belongs, each paired call's arguments, id, name, completion and status."""
    found: dict[str, str] = {}

    def note(kind: str, detail: str) -> None:
        found.setdefault(kind, detail)

    observed = _numbered(expected.calls, observation.calls)
    pairs, lost, phantoms = _pair(expected.calls, observed)
    mismatched = [(e, o) for e, o in pairs if o.arguments != e.arguments]
    _placement(expected, observed, target, (lost, phantoms, mismatched), note)
    if found:
        # Calls lost, made up or moved: differences in the calls that remain
        # paired are consequences, not further mistakes.
        return [Divergence(k, found[k]) for k in sorted(found, key=_ORDER.__getitem__)]
    _arguments(mismatched, target, note)
    _fields(pairs, target, note)
    wanted = expected.error.code if expected.error else None
    if "errors" in target.reports and observation.error != wanted:
        note("error_differs", f"expected stream error {wanted or 'none'}, got {observation.error or 'none'}")
    return [Divergence(k, found[k]) for k in sorted(found, key=_ORDER.__getitem__)]


def _placement(expected: Outcome, observed: list, target: Target, apart: tuple[list, list, list],
               note: Callable[[str, str], None]) -> None:
    """Calls lost or made up, or, when arguments moved between calls or choices, that: the one mistake."""
    lost, phantoms, mismatched = apart
    crossed = _crossed_choices(expected.calls, observed) if "ids" in target.reports else None
    moved = _moved(expected.calls, observed) or ("choices_mixed" if crossed else None)
    for e in lost:
        if e.status != INCOMPLETE:
            if moved:
                note(moved, f"{_where(e)} missing; its arguments went elsewhere")
            else:
                note("call_lost", f"{_where(e)} ({e.name}, {e.id}) is missing")
    for o in phantoms:
        if moved:
            note(moved, f"extra call at choice {o.choice} index {o.index} holds {o.arguments[:60]!r}")
        else:
            note("phantom_call", f"choice {o.choice} index {o.index} id {o.id} name {o.name} "
                                 f"arguments {o.arguments[:60]!r} was never sent")
    if moved and mismatched:
        e, o = mismatched[0]
        note(moved, f"{_where(e)}: expected {e.arguments[:60]!r}, got {o.arguments[:60]!r}")
    if crossed and moved == "choices_mixed":
        note(moved, crossed)


def _arguments(mismatched: list, target: Target, note: Callable[[str, str], None]) -> None:
    for e, o in mismatched:
        if "values" in target.reports and e.status == INCOMPLETE and not _parses(e.arguments):
            # A library that hands on parsed values shows an unfinished text as a partial parse of it, which is
            # what the partial level judges (anthropic-sdk-python's own test_incomplete_response expects one).
            continue
        if _same_json(e.arguments, o.arguments):
            if "values" not in target.reports:  # a parsed value has no spelling of its own to keep
                note("reserialised", f"{_where(e)}: {e.arguments[:60]!r} written as {o.arguments[:60]!r}")
        else:
            note("arguments_differ", f"{_where(e)}: expected {e.arguments[:60]!r}, got {o.arguments[:60]!r}")


def _fields(pairs: list, target: Target, note: Callable[[str, str], None]) -> None:
    """Each paired call's id, name, completion and status, as far as the target claims to report them."""
    for e, o in pairs:
        if "ids" in target.reports and o.id != e.id:
            note("id_differs", f"{_where(e)}: expected id {e.id!r}, got {o.id!r}")
        if "names" in target.reports and o.name != e.name:
            note("name_differs", f"{_where(e)}: expected name {e.name!r}, got {o.name!r}")
        finished = e.status != INCOMPLETE
        if "completion" in target.reports:
            if o.complete and not finished:
                note("incomplete_handed_on", f"{_where(e)} was never finished but is handed on")
            elif finished and not o.complete:
                note("complete_withheld", f"{_where(e)} was finished but is withheld")
        if "validation" in target.reports and finished and o.status != e.status:
            note("status_differs", f"{_where(e)}: expected {e.status}, got {o.status}")


#: How each level's answers are judged: an assembler's calls, or, each by rules of its own, a decoder's events,
#: a partial parser's values and a producer's stream (where a raise always counts, see _failure).
_JUDGED = {Answers.CALLS: _calls, Answers.EVENTS: _sse, Answers.PREFIX_VALUES: _partial, Answers.STREAMED: _producer}


_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _type_of(raised: str) -> str:
    """The exception type an observation's ``raised`` begins with ("Type: message"), else just "raised"."""
    head = raised.partition(":")[0].strip()
    return head if _TYPE_NAME.fullmatch(head) else "raised"


def _where(call: Call) -> str:
    return f"call {call.index} of choice {call.choice}"


def _numbered(expected: tuple[Call, ...], observed: tuple[ObservedCall, ...]) -> tuple[ObservedCall, ...]:
    """The observed calls, each reported with no index given the place of a call the wire sent none for.

    Where the wire gave a choice's calls no index, the contract numbers them by position, but a target that
    keeps the index the wire had (none) has lost nothing: its calls with no index stand, in the order it
    reports them, for the choice's unnumbered calls in theirs (those no call of its own already numbers).
    """
    free: dict[int, list[int]] = {}
    for e in expected:
        if not e.indexed:
            free.setdefault(e.choice, []).append(e.index)
    if not free or all(o.index is not None for o in observed):
        return observed
    taken = {(o.choice, o.index) for o in observed if o.index is not None}
    slots = {ch: iter([i for i in indexes if (ch, i) not in taken]) for ch, indexes in free.items()}
    out = []
    for o in observed:
        if o.index is None and o.choice in slots:
            index = next(slots[o.choice], None)
            if index is not None:
                o = dataclasses.replace(o, index=index)
        out.append(o)
    return tuple(out)


def _pair(expected: tuple[Call, ...], observed: tuple[ObservedCall, ...]):
    """Pair calls by (choice, index), in order within a key; the rest are lost or phantom."""
    want: dict[tuple[int, Any], list[Call]] = {}
    for e in expected:
        want.setdefault((e.choice, e.index), []).append(e)
    have: dict[tuple[int, Any], list[ObservedCall]] = {}
    for o in observed:
        have.setdefault((o.choice, o.index), []).append(o)
    pairs, lost, phantoms = [], [], []
    for key, es in want.items():
        os_ = have.pop(key, [])
        pairs.extend(zip(es, os_))
        lost.extend(es[len(os_):])
        phantoms.extend(os_[len(es):])
    for os_ in have.values():
        phantoms.extend(os_)
    # A call the stream left unfinished may be handed on as unfinished anywhere: known by its id in its
    # choice, it is that call (not a loss and a phantom), since nothing of it can be run.
    for e in [e for e in lost if e.status == INCOMPLETE and e.id]:
        o = next((o for o in phantoms if not o.complete and o.choice == e.choice and o.id == e.id), None)
        if o is not None:
            lost.remove(e)
            phantoms.remove(o)
            pairs.append((e, o))
    return pairs, lost, phantoms


def _moved(expected: tuple[Call, ...], observed: tuple[ObservedCall, ...]) -> str | None:
    """If no argument text was lost or made up but some went to the wrong call: which kind of move."""
    # An empty call at a position the other side does not have cannot have given or taken text: it is a
    # phantom or a loss, not a move.  At a shared position it may be the husk its text was moved out of.
    # A call the stream left unfinished and the target left out gave no text to anyone: leaving it out is
    # allowed.
    at_e, at_o = {(c.choice, c.index) for c in expected}, {(c.choice, c.index) for c in observed}
    exp = [e for e in expected if (e.arguments or (e.choice, e.index) in at_o)
           and (e.status != INCOMPLETE or (e.choice, e.index) in at_o)]
    obs = [o for o in observed if o.arguments or (o.choice, o.index) in at_e]
    # Compared without the characters a move can break, so that a call whose text only lost those where
    # it is (its halves kept apart, say) has its arguments differ: nothing moved.
    if all(any(_unbroken(o.arguments) == _unbroken(e.arguments) and o.choice == e.choice and o.index == e.index
               for o in obs) for e in exp) and len(obs) == len(exp):
        return None
    def text(calls, choice=None):
        return Counter(_unbroken("".join(c.arguments for c in calls if choice is None or c.choice == choice)))
    if text(exp) != text(observed) or not any(c.arguments for c in exp):
        return None
    choices = {c.choice for c in exp} | {c.choice for c in observed}
    if all(text(exp, ch) == text(observed, ch) for ch in choices):
        return "arguments_misattributed"
    return "choices_mixed"


#: What text moved to another call can lose on the way: a character outside the BMP whose UTF-16 halves
#: went to two calls comes out as lone halves or as U+FFFD in each, so moved text is compared without them.
_SPLITTABLE = re.compile("[\U00010000-\U0010ffff\ud800-\udfff\ufffd]")


def _unbroken(text: str) -> str:
    return text if text.isascii() else _SPLITTABLE.sub("", text)


def _crossed_choices(expected: tuple[Call, ...], observed: tuple[ObservedCall, ...]) -> str | None:
    """Where a call turns up in a choice the stream never gave it, known by its id; None if nowhere.

    Text moved between choices is not always still all there (a choice cut short, halves of a character
    split), but a call's id names the choice it belongs to when exactly one call of the stream has it.
    """
    owners: dict[str, set[int]] = {}
    for e in expected:
        if e.id:
            owners.setdefault(e.id, set()).add(e.choice)
    for o in observed:
        choices = owners.get(o.id) if isinstance(o.id, str) else None
        if choices is not None and len(choices) == 1 and o.choice not in choices:
            return f"call {o.id!r} of choice {min(choices)} turned up in choice {o.choice}"
    return None


def _parses(text: str) -> bool:
    try:
        json.loads(text.strip() or "{}")
    except (ValueError, RecursionError):
        return False
    return True


def _same_json(a: str, b: str) -> bool:
    # A blank arguments string means {} (docs/contract.md), so a library that reports "{}" for it rewrote it.
    try:
        return json.loads(a.strip() or "{}") == json.loads(b.strip() or "{}")
    except (ValueError, RecursionError):
        return False
