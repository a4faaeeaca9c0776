"""One root cause as the HTML report shows it: a ``<details>`` entry that opens to what it takes to act on it.

Its summary line says how grave it is, in which target, of what kind and how
often the run met it again.  Opened, it shows the commands that show and
reproduce it, the expected calls and the target's side by side with the
fields that differ marked, and the stream's timeline as ``toolfuzz show``
prints it.  Everything written comes from the fixture or from a library's
answer, so all of it is escaped, and made printable first (a fixture may
hold control characters and lone UTF-16 halves, which UTF-8 cannot encode).
"""

from __future__ import annotations

import shlex
from html import escape
from itertools import zip_longest
from typing import Any

from toolfuzz.corpus.fixtures import Fixture, FixtureError, load, printable
from toolfuzz.errors import UsageError
from toolfuzz.outputs.repro import NoRepro, repros
from toolfuzz.outputs.timeline import render as timeline
from toolfuzz.vocabulary import COMPLETE

__all__ = ["entry", "text"]

#: How an observation says a target gave no calls at all, and how the report says it.
_FAILURES = {"raised": "raised", "timed_out": "ran out of time", "memory": "ran out of memory",
             "blocked": "tried a forbidden action", "bad_return": "returned something that is not calls"}


def text(value: Any) -> str:
    """Any text the report shows, safe in HTML and in UTF-8."""
    return escape(printable(str(value)))


def entry(divergence: dict[str, Any], most_hits: int) -> str:
    """A ``<details>`` element for one root cause of the run's JSON summary (with its ``target`` added)."""
    target, path = divergence["target"], divergence.get("fixture", "")
    severity = divergence.get("severity", "ungraded")
    hits = divergence.get("hits", 0)
    share = 100 * hits / most_hits if most_hits else 0
    new = '<span class="new">new</span>' if divergence.get("file") == "written" else ""
    head = (f'<summary><span class="sev sev-{text(severity)}">{text(severity)}</span>'
            f'<span class="target">{text(target)}</span><span class="kind">{text(divergence["kind"])}</span>{new}'
            f'<span class="hits" title="later divergences counted as this root cause">'
            f'<span class="bar"><span style="width:{share:.0f}%"></span></span>{hits} hit{"s" * (hits != 1)}</span>'
            "</summary>")
    body = [f'<p class="detail">{text(divergence.get("detail", ""))}</p>', _facts(divergence)]
    try:
        fixture = load(path)
    except FixtureError as e:
        body.append(f'<p class="missing">The fixture cannot be read: {text(e)}</p>')
        return f'<details class="cause">{head}<div class="body">{"".join(body)}</div></details>'
    body.append(_commands(fixture, path, target))
    body.append("<h4>Expected and actual</h4>" + _calls(fixture, target))
    body.append("<h4>Timeline (<code>toolfuzz show</code>)</h4>" + _timeline(fixture))
    return f'<details class="cause">{head}<div class="body">{"".join(body)}</div></details>'


def _facts(divergence: dict[str, Any]) -> str:
    seen = divergence.get("first_seen")
    grade = divergence.get("grade") or {}
    rows = [("signature", divergence.get("signature", "")),
            ("first seen", f"example {seen['examples']}, {seen['seconds']:.1f} s" if seen else "-"),
            ("hits", str(divergence.get("hits", 0))),
            ("also in", ", ".join(divergence.get("also_in", [])) or "-"),
            ("also as", ", ".join(divergence.get("also_as", [])) or "-"),
            ("grounds", ", ".join(f"{k} {grade[k]}" for k in ("harm", "evidence", "rule") if k in grade) or "-"),
            ("fixture", divergence.get("fixture", "")
             + ("" if divergence.get("file") == "written" else " (a smaller fixture was already there)"))]
    if divergence.get("reduced") is False:
        rows.append(("reduced", "no: kept as met"))
    return '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{text(v)}</dd>" for k, v in rows) + "</dl>"


def _commands(fixture: Fixture, path: str, target: str) -> str:
    quoted = shlex.quote(path)
    lines = [("show the stream", f"toolfuzz show {quoted}"),
             ("reproduce it on the target", f"toolfuzz replay --target {shlex.quote(target)} {quoted}")]
    why = ""
    for found in repros(fixture, path):
        if isinstance(found, NoRepro):
            if found.target == target:
                why = str(found).removeprefix(f"{path}: {target}: ")
        elif found.target == target:
            lines.append(("a script that needs only the library",
                          f"toolfuzz export --format repro {quoted} --out repro"))
    out = "".join(f'<p class="cmd-what">{text(what)}</p><pre class="cmd">{text(line)}</pre>' for what, line in lines)
    if why:
        out += f'<p class="cmd-what">no standalone script: {text(why)}</p>'
    return '<div class="commands">' + out + "</div>"


def _timeline(fixture: Fixture) -> str:
    try:
        shown = timeline(fixture)
    except (UsageError, ValueError) as e:
        # A dialect this version cannot assemble: the rest of the entry still holds.
        return f'<p class="missing">No timeline: {text(e)}</p>'
    return f'<pre class="timeline">{text(shown)}</pre>'


def _calls(fixture: Fixture, target: str) -> str:
    """The expected calls and the target's, a row a call, paired by choice and place in it."""
    seen = fixture.observed.get(target) or {}
    observation = seen.get("observation") if isinstance(seen.get("observation"), dict) else {}
    expected = [c.to_json() for c in fixture.case.expected.calls]
    actual = observation.get("calls")
    rows = []
    if isinstance(actual, list):
        actual = [c for c in actual if isinstance(c, dict)]
        for choice in sorted({c["choice"] for c in expected} | {c.get("choice", 0) for c in actual}):
            mine = [c for c in actual if c.get("choice", 0) == choice]
            for want, got in zip_longest([c for c in expected if c["choice"] == choice], mine):
                rows.append((_call(want, got, expected=True), _call(got, want, expected=False)))
        if not expected and not actual:
            rows.append(('<p class="none">no calls</p>', '<p class="none">no calls</p>'))
    else:
        # Nothing to pair with (a partial parser's answers, an sse target's events): shown, not marked.
        wanted = ['<div class="call">' + _fields(want, None, True) + "</div>" for want in expected] or [""]
        rows += zip_longest(wanted, [_no_calls(observation, str(seen.get("level", "")))], fillvalue="")
    rows += _ends(fixture, observation)
    body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return (f'<table class="calls"><tr><th>expected</th><th>actual ({text(target)})</th></tr>{body}</table>')


def _call(call: dict[str, Any] | None, other: dict[str, Any] | None, expected: bool) -> str:
    """One call's fields, those that differ from ``other`` (the call it is paired with) marked; a call paired
    with none is marked whole."""
    if call is None:
        return '<p class="none">no call here</p>'
    return f'<div class="call{"" if other else " unpaired"}">' + _fields(call, other, expected) + "</div>"


def _fields(call: dict[str, Any], other: dict[str, Any] | None, expected: bool) -> str:
    def differs(name: str) -> bool:
        return other is not None and other.get(name) != call.get(name)

    index = text(call.get("index"))
    lines = [f'<div class="where">choice {text(call.get("choice", 0))} · index '
             + (f"<mark>{index}</mark>" if differs("index") else index) + "</div>"]
    for name in ("id", "name"):
        lines.append(_line(name, _quoted(call.get(name)), differs(name)))
    lines.append(_line("arguments", _arguments(call.get("arguments"), None if other is None
                                               else other.get("arguments")), False))
    status, marked = _status(call, other, expected)
    lines.append(_line("status", text(status), marked))
    return "".join(lines)


def _line(name: str, value: str, marked: bool) -> str:
    return f'<div class="field"><span class="key">{name}</span> ' + (f"<mark>{value}</mark>" if marked else value) \
        + "</div>"


def _quoted(value: Any) -> str:
    return '<i>none</i>' if value is None else f"&quot;{text(value)}&quot;"


def _arguments(mine: Any, theirs: Any) -> str:
    """The argument text with the part that differs from ``theirs`` (None: nothing to differ from) marked:
    what is between the two texts' common beginning and common end."""
    if not isinstance(mine, str):
        return _quoted(mine)
    if not isinstance(theirs, str) or mine == theirs:
        return f"&quot;{text(mine)}&quot;"
    head = 0
    while head < min(len(mine), len(theirs)) and mine[head] == theirs[head]:
        head += 1
    tail = 0
    while tail < min(len(mine), len(theirs)) - head and mine[-1 - tail] == theirs[-1 - tail]:
        tail += 1
    middle = mine[head:len(mine) - tail]
    return (f"&quot;{text(mine[:head])}<mark>{text(middle) or '&#8203;'}</mark>"
            f"{text(mine[len(mine) - tail:])}&quot;")


def _status(call: dict[str, Any], other: dict[str, Any] | None, expected: bool) -> tuple[str, bool]:
    """A call's status, and whether it differs: a target that gives no status is judged on complete or not."""
    want, got = (call, other) if expected else (other, call)
    shown = call.get("status") if expected or call.get("status") else (
        "complete" if call.get("complete") else "not complete")
    if want is None or got is None:
        return str(shown), False
    if got.get("status"):
        return str(shown), got["status"] != want.get("status")
    return str(shown), bool(got.get("complete")) != (want.get("status") == COMPLETE)


def _no_calls(observation: dict[str, Any], level: str) -> str:
    for key, said in _FAILURES.items():
        if key in observation:
            value = observation[key]
            return f'<p class="failure"><mark>{said}</mark>' + (f": {text(value)}" if isinstance(value, str) else "") \
                + "</p>"
    what = {"partial": "its answer for each prefix", "sse": "the events it dispatched"}.get(level, "what it gave")
    return f'<p class="none">{text(what)}: in the timeline below</p>'


def _ends(fixture: Fixture, observation: dict[str, Any]) -> list[tuple[str, str]]:
    """The stream's error and a model's content, where either side has one."""
    rows = []
    error = fixture.case.expected.error
    got = observation.get("error")
    if error is not None or got:
        want = error.code if error else None
        rows.append((_line("error", _quoted(want), want != got), _line("error", _quoted(got), want != got)))
    content = fixture.case.expected.content
    if content is not None and "content" in observation:
        rows.append((_line("content", _arguments(content, observation["content"]), False),
                     _line("content", _arguments(observation["content"], content), False)))
    return rows
