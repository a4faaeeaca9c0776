"""A fixture as a person reads it: the timeline ``toolfuzz show`` prints and the HTML report opens to.

The reads in order, what each one completed (every field each fragment carried, then the SSE events, calls
opened, argument fragments and finishes the reference made of it), then the expected outcome call by call, and
whether the reference agrees with it.  A producer fixture (a model's text) shows its batches, the calls and
content the model wrote, and what each parser streamed and parsed from the whole text.  What a target wrote to
stdout and stderr on the case, when it wrote anything, follows what it made of it.
"""

from __future__ import annotations

import json

from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.vocabulary import Case, text_format
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import Fixture, printable
from toolfuzz.targets.reference import ASSEMBLERS
from toolfuzz.targets.reference.events import ArgumentsAppended, CallOpened, ChoiceFinished, ChunkReceived, StreamEnded
from toolfuzz.targets.reference.typed import CallStopped

__all__ = ["render"]

EXCERPT = 72


def render(fixture: Fixture) -> str:
    case = fixture.case
    lines = [f"{fixture.name}  ({case.dialect}" + (f"; {', '.join(case.features)}" if case.features else "") + ")"]
    if fixture.description:
        lines.append(f"  {fixture.description}")
    if fixture.statement:
        lines.append(f"statement: {' '.join(fixture.statement.split())}")
    if fixture.variants:
        signatures = ", ".join(v.signature for v in fixture.variants)
        lines.append(f"variants folded in by corpus merge: {printable(signatures)}")
    if case.tools:
        lines.append("tools: " + ", ".join(t.name for t in case.tools))
    if text_format(case.dialect) is not None:
        return "\n".join(lines + _producer(fixture)) + "\n"
    wire = case.wire
    lines.append(f"wire: {len(wire)} bytes in {len(case.reads)} read{'s' if len(case.reads) != 1 else ''}")
    lines.append("")
    try:
        assembler = ASSEMBLERS[case.dialect](case.tools, case.limits)
    except ValueError as e:
        raise UsageError(f"{fixture.name}: {e}") from None
    at = 0
    for n, read in enumerate(case.reads, 1):
        lines.append(f"read {n}  bytes {at}..{at + len(read)}  {_excerpt(read)}")
        at += len(read)
        for event in assembler.feed(read):
            lines.extend(_describe(event))
    if assembler.outcome is None:
        lines.append("end of stream")
        for event in assembler.close():
            lines.extend(_describe(event))
    lines.append("")
    lines.append("expected:")
    expected = case.expected
    for call in expected.calls:
        lines.append(f"  choice {call.choice} index {call.index}  id={call.id}  name={call.name}  {call.status}")
        lines.append(f"    arguments: {call.arguments!r}" if len(call.arguments) <= 400
                     else f"    arguments: {call.arguments[:400]!r}... ({len(call.arguments)} characters)")
    if not expected.calls:
        lines.append("  no calls")
    lines.append(f"  error: {expected.error.code} ({expected.error.message})" if expected.error else "  error: none")
    agrees = assembler.outcome == expected
    lines.append("")
    lines.append("reference: " + ("agrees" if agrees else "DIFFERS from expected"))
    for target, seen in sorted(fixture.observed.items()):
        lines.append(f"observed by {target}: {seen.get('verdict', 'recorded')}")
        lines.extend(_prefixes(case, seen))
        lines.extend(_output(seen))
    lines.extend(_events(fixture))
    return "\n".join(lines) + "\n"


def _producer(fixture: Fixture) -> list[str]:
    """A model's text in its batches, what it wrote, and what each parser made of it."""
    case = fixture.case
    text = case.wire.decode("utf-8", "surrogatepass")
    lines = [f"text: {len(text)} characters in {len(case.reads)} batch{'es' if len(case.reads) != 1 else ''}", ""]
    lines += [f"batch {n}  {read.decode('utf-8', 'surrogatepass')!r}" for n, read in enumerate(case.reads, 1)]
    lines += ["", "the model wrote:"]
    lines += [f"  call {c.index}  {c.name}  {c.arguments[:400]!r}" for c in case.expected.calls]
    lines.append(f"  content: {case.expected.content!r}")
    for target, seen in sorted(fixture.observed.items()):
        lines += ["", f"{target}: {seen.get('verdict', 'recorded')}" + (f", {seen['kind']}: {seen.get('detail', '')}"
                                                                        if seen.get("kind") else "")]
        observation = seen.get("observation") if isinstance(seen.get("observation"), dict) else {}
        for name, part in (("streamed", observation), ("whole text", observation.get("whole") or {})):
            calls = part.get("calls") if isinstance(part, dict) else None
            if not isinstance(calls, list):
                continue
            lines.append(f"  {name}: " + ("; ".join(f"{c.get('index', k)} {c.get('name')} {str(c.get('arguments'))[:80]!r}"
                                                     for k, c in enumerate(calls) if isinstance(c, dict)) or "no calls"))
            lines.append(f"    content: {part.get('content')!r}")
        lines.extend(_output(seen))
    return lines


def _output(seen: dict) -> list[str]:
    """What the target wrote to stdout and stderr on the case, as the fixture keeps it (its two ends)."""
    output = seen.get("output") if isinstance(seen.get("output"), dict) else {}
    lines = []
    for stream in ("stdout", "stderr"):
        text = output.get(stream)
        if isinstance(text, str) and text:
            lines.append(f"  its {stream}:")
            lines.extend(f"    | {printable(line)}" for line in text.splitlines())
    return lines


#: At most this many prefix answers are shown per target.
_SHOWN_PREFIXES = 60


def _prefixes(case: Case, seen: dict) -> list[str]:
    """A partial parser's answers, each prefix where what it showed changed: the prefix, then what it showed."""
    answers = (seen.get("observation") or {}).get("prefixes")
    if not isinstance(answers, list):
        return []
    texts = texts_of(case.expected)
    out, last = [], None
    for answer in answers:
        if not isinstance(answer, dict) or not isinstance(answer.get("text"), int) or answer["text"] >= len(texts):
            continue
        text, length = texts[answer["text"]], answer.get("length", 0)
        shown = f"raised {answer['raised']}" if "raised" in answer else f"-> {answer.get('value')}"
        if (answer["text"], shown) == last:
            continue
        last = (answer["text"], shown)
        out.append(f"    call {text.index} of choice {text.choice}, prefix {length}/{len(text.text)} "
                   f"{text.text[:length][-40:]!r} {shown[:160]}")
    if len(out) > _SHOWN_PREFIXES:
        out = out[:_SHOWN_PREFIXES] + [f"    ... {len(out) - _SHOWN_PREFIXES} more"]
    return ["  what it showed, where that changed:", *out] if out else []


def _events(fixture: Fixture) -> list[str]:
    """For a fixture an sse-level target diverged on: the events the wire dispatches, then that target's."""
    observed = {}
    for target, seen in fixture.observed.items():
        events = (seen.get("observation") or {}).get("events") if isinstance(seen.get("observation"), dict) else None
        if isinstance(events, list):
            observed[target] = [e for e in events if isinstance(e, dict)]
    if not observed:
        return []
    lines = ["", "events the wire dispatches:"]
    lines.extend(_event(e.to_json()) for e in expected_events(fixture.case))
    for target, events in sorted(observed.items()):
        lines.append(f"events from {target}:")
        lines.extend(_event(e) for e in events)
    return lines


def _event(event: dict) -> str:
    data = str(event.get("data"))
    return f"  {event.get('event')}  id={event.get('id')!r}  {data[:EXCERPT]!r}" + ("..." if len(data) > EXCERPT else "")


def _excerpt(read: bytes) -> str:
    text = repr(read[:EXCERPT])
    return text + ("..." if len(read) > EXCERPT else "")


#: A fragment's fields are shown up to this many characters of its compact JSON.
FRAGMENT = 110


def _describe(event: object) -> list[str]:
    if isinstance(event, ChunkReceived):
        return _carried(event.chunk)
    if isinstance(event, CallOpened):
        return [f"    choice {event.choice} call {event.index} opened  id={event.id}  name={event.name}"]
    if isinstance(event, ArgumentsAppended):
        return [f"    choice {event.choice} call {event.index} += {event.fragment!r}"]
    if isinstance(event, CallStopped):
        return [f"    call {event.index} stopped"]
    if isinstance(event, ChoiceFinished):
        return [f"    choice {event.choice} finished: {event.finish_reason}"]
    if isinstance(event, StreamEnded):
        error = event.outcome.error
        return ["    stream ended" + (f" with {error.code}: {error.message}" if error else "")]
    return []


def _carried(chunk: dict) -> list[str]:
    """Every field each tool-call fragment of a chat chunk carried, as the wire wrote it.

    The reference's lines below say what it made of a fragment; a finding is often about a field on a fragment
    it did not open the call with (an id only on a later fragment, a name repeated, an index missing), which
    only the fragment itself shows.  An event dialect's payload is one event: shown when it is about a call.
    """
    choices = chunk.get("choices")
    if isinstance(choices, list):
        lines = []
        for choice in choices:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            entries = delta.get("tool_calls") if isinstance(delta, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                lines.append(f"    choice {choice.get('index')} fragment {_compact(entry)}")
        return lines
    kind = str(chunk.get("type", ""))
    if any(word in kind for word in ("function_call", "output_item", "content_block")):
        return [f"    {kind} {_compact({k: v for k, v in chunk.items() if k != 'type'})}"]
    return []


def _compact(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= FRAGMENT else f"{text[:FRAGMENT]}... ({len(text)} characters)"

