"""Reports a library's maintainer can act on without toolfuzz: a script that reproduces a finding, and an issue.

``toolfuzz export --format repro FIXTURE... --out DIR`` writes, for each
fixture and each target it records diverging:

* ``<stem>.py``, a standalone script that needs only the library (and the
  standard library).  It holds the recorded stream as data (the chunks at
  level events, the network reads at bytes and sse, the argument text at
  partial, the model's text in its batches at producer), the code
  toolfuzz's adapter feeds the library with, copied from the adapter's own
  source (``toolfuzz.targets.adapters.recipes`` names it,
  ``toolfuzz.outputs.excerpt`` copies it), and the check for the divergence
  the fixture records (``toolfuzz.outputs.repro_checks``).  It prints one
  line, ``REPRODUCED: ...`` with exit status 1 while the bug is there,
  ``NOT REPRODUCED: ...`` with 0 once it is fixed, ``CHANGED: ...`` with 2
  when the library now fails another way;
* ``<stem>.md``, an issue body to paste: the library and version, what was
  sent (the wire, trimmed when long), what came back, what was expected and
  the evidence for it (the finding's grade, docs/severity.md), the
  fixture's statement, the releases ``toolfuzz bisect`` found it in, and
  how to run the script.

A target with no recipe (a self-test mutant, a JavaScript target, a target
of the user's own) or a divergence with no check is left out with one line
saying why (:class:`NoRepro`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolfuzz.corpus.fixtures import Fixture, history_text, printable
from toolfuzz.corpus.grades import diverging, fixture_grade
from toolfuzz.hash_seed import HASH_SEED, VARIABLE
from toolfuzz.judge.compare import KINDS
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.compare_partial import holds_value
from toolfuzz.targets.environments import RECIPES as ENVIRONMENTS
from toolfuzz.judge.grading import Grade
from toolfuzz.judge.prefixes import texts_of
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from toolfuzz.outputs.excerpt import ExcerptError, excerpt, literal
from toolfuzz.outputs.repro_checks import CHECKS
from toolfuzz.strategies.features import shape_of
from toolfuzz.strategies.markup import FORMATS
from toolfuzz.targets.adapters import KNOWN
from toolfuzz.targets.adapters.recipes import NO_RECIPE, RECIPES, Recipe
from toolfuzz.targets.adapters.scopes import scope_for
from toolfuzz.targets.base import LEVEL, Answers, Fed
from toolfuzz.vocabulary import text_format, version_key

__all__ = ["NoRepro", "Repro", "repros", "script", "issue"]

_CHECKS_MODULE = "toolfuzz.outputs.repro_checks"
#: Where the lines of a long wire are left out in an issue: the first and last kept.
_WIRE_HEAD, _WIRE_TAIL, _LINE_CHARS = 24, 8, 400
_TIME_LIMIT = re.compile(r"time limit \((\d+(?:\.\d+)?) s\)")
#: The names a script defines itself, around the code it copies.
_OWN = frozenset({"CHUNKS", "EVENTS", "READS", "TEXT", "PREFIXES", "BATCHES", "TOOLS", "WRITTEN", "CONTENT", "MARKS",
                  "EXPECTED", "answer"})


class NoRepro(ValueError):
    """Why a fixture's divergence in one target gets no repro script: one line for the user."""

    def __init__(self, message: str, target: str = "") -> None:
        super().__init__(message)
        self.target = target


@dataclass(frozen=True)
class Repro:
    """One fixture's divergence in one target, with everything its script and issue say."""

    fixture: Fixture
    source: str
    target: str
    seen: dict[str, Any]
    recipe: Recipe
    level: str
    kind: str
    grade: Grade | None

    @property
    def fed(self) -> Fed:
        return LEVEL[self.level].fed

    @property
    def answers(self) -> Answers:
        return LEVEL[self.level].answers

    @property
    def observation(self) -> dict[str, Any]:
        """What the target gave, as the fixture records it."""
        found = self.seen.get("observation")
        return found if isinstance(found, dict) else {}

    @property
    def package(self) -> str:
        entry = self.fixture.history.get(self.target)
        if isinstance(entry, dict) and isinstance(entry.get("package"), str):
            return entry["package"]
        return _adapter(self.target).distributions[0]

    @property
    def version(self) -> str:
        return str(self.seen.get("version") or self.fixture.found.get("versions", {}).get(self.target) or "")

    @property
    def install(self) -> list[str]:
        """The commands that make an environment the script runs in."""
        environment = _adapter(self.target).environment
        if environment in ENVIRONMENTS:
            needs = list(ENVIRONMENTS[environment])
            cut = needs.index("--no-deps") if "--no-deps" in needs else len(needs)
            commands = [needs[:cut], ["--no-deps", *needs[cut + 1:]]] if cut < len(needs) else [needs]
            return ["pip install " + " ".join(_quoted(n) for n in c) for c in commands if c]
        pinned = f"{self.package}=={self.version}" if self.version else self.package
        others = [d for d in _adapter(self.target).distributions[1:] if d != self.package]
        return ["pip install " + " ".join(_quoted(n) for n in [pinned, *others])]

    @property
    def library(self) -> str:
        return f"{self.package} {self.version}".strip()


def _quoted(requirement: str) -> str:
    return f"'{requirement}'" if any(c in requirement for c in "<>=![") else requirement


def _adapter(target: str) -> Any:
    name = target.partition("@")[0]
    return next(a for a in KNOWN if name in a.names)


def repros(fixture: Fixture, source: str) -> list[Repro | NoRepro]:
    """Each target the fixture records diverging: its repro, or why there is none."""
    found: list[Repro | NoRepro] = []
    for target, seen in diverging(fixture):
        try:
            found.append(_repro(fixture, source, target, seen))
        except NoRepro as e:
            found.append(e)
    if not found:
        found.append(NoRepro(f"{source}: records no diverging target: nothing to reproduce"))
    return found


def _repro(fixture: Fixture, source: str, target: str, seen: dict[str, Any]) -> Repro:
    name = target.partition("@")[0]
    kind = str(seen.get("kind"))
    if name not in RECIPES:
        why = NO_RECIPE.get(name) or ("a self-test mutant of toolfuzz's own, not a library" if name.startswith(
            "selftest-") else "no repro recipe: scripts are written for the built-in Python adapters "
                              "(toolfuzz.targets.adapters.recipes)")
        raise NoRepro(f"{source}: {target}: {why}", target)
    level = str(seen.get("level") or "")
    if level not in LEVEL:
        raise NoRepro(f"{source}: {target}: the fixture does not record the level {target} ran at", target)
    if kind not in ("raised", "timed_out") and kind not in CHECKS[_family(level)]:
        raise NoRepro(f"{source}: {target}: no repro check for {kind} at level {level}", target)
    return Repro(fixture, source, target, seen, RECIPES[name], level, kind, fixture_grade(fixture, target))


def _family(level: str) -> str:
    """The checks (toolfuzz.outputs.repro_checks.CHECKS) a level's answers are checked by."""
    return _FAMILY[LEVEL[level].answers]


_FAMILY = {Answers.CALLS: "calls", Answers.EVENTS: "events", Answers.PREFIX_VALUES: "prefixes",
           Answers.STREAMED: "producer"}


# -- the script ---------------------------------------------------------------------------------------------

def script(repro: Repro, name: str) -> str:
    """The standalone script that reproduces ``repro`` (``name`` is its file name, for its docstring)."""
    data, run, check = _parts(repro)
    # Each expression's names are looked up in its module: the run's in the adapter (the data's are the
    # script's own), the check's among the checks.
    roots = [(repro.recipe.module_name, repro.recipe.run if repro.fed is Fed.PREFIXES else run),
             (_CHECKS_MODULE, check + (", each_prefix" if repro.fed is Fed.PREFIXES else ""))]
    try:
        code = excerpt(roots, own=_OWN)
    except ExcerptError as e:
        raise NoRepro(f"{repro.source}: {repro.target}: {e}", repro.target) from None
    entry = repro.recipe.run
    return "\n".join([
        _docstring(repro, name), "", "from __future__ import annotations", "", "",
        "# ---- the stream toolfuzz recorded, and what toolfuzz expected of it ----", "", *data, "", "",
        code, "", "",
        "# ---- the library fed the stream as toolfuzz feeds it, and the check ----", "", "",
        "def answer():",
        f'    """{_safe(_runs(repro, entry))}"""',
        f"    return {run}", "", "",
        'if __name__ == "__main__":', *_UNDER_THE_HASH_SEED,
        f"    raise SystemExit({check})", ""])


#: A script's first step: to run itself again under the hash seed toolfuzz ran the library under, unless the user
#: chose one (toolfuzz.hash_seed: a library that iterates a set behaves as its seed has it).
_UNDER_THE_HASH_SEED = [
    "    # As toolfuzz ran the library: under one hash seed, unless you choose one (a set's order follows it).",
    "    import os, sys",
    f"    if {VARIABLE!r} not in os.environ:",
    f"        os.execve(sys.executable, [sys.executable, *sys.argv], {{**os.environ, {VARIABLE!r}: {HASH_SEED!r}}})",
]


def _parts(repro: Repro) -> tuple[list[str], str, str]:
    """The data lines, the expression that runs the library, and the one that checks what it gave."""
    case, entry, kind, observation = repro.fixture.case, repro.recipe.run, repro.kind, repro.observation
    if repro.fed is Fed.CHUNKS:
        name = "CHUNKS" if case.dialect == "openai-chat" else "EVENTS"
        what = "chat.completion.chunk" if case.dialect == "openai-chat" else f"{case.dialect} event"
        data = [f"#: Each {what} of the stream, parsed from its data: line, as toolfuzz hands them over.",
                f"{name} = {literal(parse_chunks(chunks_of(case)))}"]
        run = f"{entry}({name})"
    elif repro.fed is Fed.READS:
        data = [f"#: The response body in the {len(case.reads)} network read(s) toolfuzz cut it into.",
                f"READS = {_reads(case.reads)}"]
        run = f"{entry}(READS)"
    elif repro.fed is Fed.PREFIXES:
        texts = texts_of(case.expected)
        raising = [p for p in observation.get("prefixes", []) if isinstance(p, dict) and p.get("raised")]
        number = raising[0].get("text", 0) if raising else 0
        if not 0 <= number < len(texts):
            raise NoRepro(f"{repro.source}: {repro.target}: the fixture's prefixes name no argument text",
                          repro.target)
        text = texts[number]
        lengths = [n for n in text.prefixes if n < len(text.text) and holds_value(text.text, n)]
        data = ["#: A call's argument text as the stream sent it; the parser is handed prefixes of it.",
                f"TEXT = {literal(text.text)}", "",
                "#: The lengths of the prefixes toolfuzz handed the parser (those that hold a value).",
                f"PREFIXES = {literal(lengths)}"]
        run = f"each_prefix({entry}, TEXT, PREFIXES)"
    else:
        fmt = text_format(case.dialect) or ""
        data = ["#: The model's text, in the batches a server hands its parser.",
                f"BATCHES = {literal([r.decode('utf-8', 'surrogatepass') for r in case.reads])}", "",
                "#: The tools the request offered.",
                f"TOOLS = {literal([t.to_json() for t in case.tools])}"]
        run = f"{entry}(BATCHES, tools=[Tool(**tool) for tool in TOOLS], limits=Limits())"
        written = [{"name": c.name, "arguments": c.arguments} for c in case.expected.calls]
        data += ["", "#: The calls the model wrote, and the text around them (content).",
                 f"WRITTEN = {literal(written)}", f"CONTENT = {literal(case.expected.content)}"]
        if kind == "markup_leaked":
            data.append(f"MARKS = {literal(FORMATS[fmt].specials if fmt in FORMATS else ())}")
    if kind == "raised":
        raised = str(observation.get("raised") or repro.seen.get("detail") or "")
        head = raised.partition(":")[0].strip()
        return data, run, f"reproduce(answer, raises={(head if head.isidentifier() else 'Exception')!r})"
    if kind == "timed_out":
        found = _TIME_LIMIT.search(str(repro.seen.get("detail") or ""))
        return data, run, f"reproduce(answer, seconds={float(found.group(1)) if found else 5.0})"
    family = _family(repro.level)
    check = CHECKS[family][kind].__name__
    if family == "calls":
        data += ["", "#: The calls the stream makes, as toolfuzz's reference assembles them (docs/contract.md).",
                 f"EXPECTED = {literal(case.expected.to_json()['calls'])}"]
        values = ", values=True" if kind == "arguments_differ" and repro.recipe.values else ""
        return data, run, f"reproduce(answer, lambda calls: {check}(EXPECTED, calls{values}))"
    if family == "events":
        events = [{"event": e.event, "data": e.data, "id": e.id} for e in expected_events(case)]
        data += ["", "#: The events the stream dispatches, by the WHATWG rules.", f"EXPECTED = {literal(events)}"]
        return data, run, f"reproduce(answer, lambda events: {check}(EXPECTED, events))"
    if family == "prefixes":
        return data, run, f"reproduce(answer, {check})"
    marks = ", MARKS" if kind == "markup_leaked" else ""
    return data, run, f"reproduce(answer, lambda given: {check}(WRITTEN, CONTENT, given{marks}))"


def _reads(reads: tuple[bytes, ...]) -> str:
    """The reads as bytes literals, one line of the wire each, so that the stream reads as it was sent."""
    items = []
    for read in reads:
        lines = re.findall(rb"[^\n]*\n|[^\n]+", read) or [b""]
        items.append("\n    ".join(repr(line) for line in lines))
    return "[\n    " + ",\n    ".join(items) + ",\n]" if items else "[]"


def _runs(repro: Repro, entry: str) -> str:
    chunks = "chunks" if repro.fixture.case.dialect == "openai-chat" else "events"
    return {"events": f"{entry} over the recorded {chunks}",
            "bytes": f"{entry} over the recorded network reads",
            "sse": f"{entry} over the recorded network reads: the events the decoder dispatches",
            "partial": f"{entry} on each prefix of the argument text",
            "producer": f"{entry} over the model's text in its batches: what the server streams and parses"
            }[repro.level] + "."


def _safe(text: str) -> str:
    """Text for a triple-quoted docstring: escapes stay escapes, and no quote ends it early."""
    return printable(text).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _docstring(repro: Repro, name: str) -> str:
    fixture = repro.fixture
    said = fixture.statement or fixture.description or f"{repro.kind}"
    lines = [f'"""{_safe(_title(repro))}', "", *_wrapped(_safe(said)), ""]
    history = fixture.history.get(repro.target)
    if isinstance(history, dict):
        lines += [_safe(f"Releases (toolfuzz bisect): {history_text(history)}."), ""]
    lines += [f"Found by toolfuzz as {repro.kind} in {repro.target} (fixture {_safe(Path(repro.source).name)}).",
              "Needs only the library:", "",
              *(f"    {_safe(c)}" for c in repro.install),
              f"    python {_safe(name)}", "",
              "Prints one line: REPRODUCED: ... (exit status 1) while the bug is there, NOT REPRODUCED: ... (0)",
              "once it is fixed, CHANGED: ... (2) when the library now fails another way.", '"""']
    return "\n".join(lines)


def _title(repro: Repro) -> str:
    observation = repro.observation
    # With no statement, what the kind means, or for a raise the exception itself.
    said = repro.fixture.statement or (f"raises {observation['raised']}" if observation.get("raised") else
                                       KINDS.get(repro.kind, repro.kind))
    said = " ".join(said.split())
    # The first sentence: up to a full stop before a capital ("e.g. Paris" goes on).
    first = re.split(r"(?<=[.;])\s+(?=[A-Z(])", said, maxsplit=1)[0].rstrip(".;")
    first = first[:1].upper() + first[1:]
    if len(first) > 100:
        first = first[:100].rsplit(" ", 1)[0] + " ..."
    return f"{repro.library}: {first}"


def _wrapped(text: str, width: int = 100) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


# -- the issue ----------------------------------------------------------------------------------------------

def issue(repro: Repro, name: str) -> str:
    """The issue body, in Markdown, for a maintainer of the library (``name``: the script's file name)."""
    fixture, case = repro.fixture, repro.fixture.case
    scope = scope_for(repro.target)
    out = [f"# {printable(_title(repro))}", "",
           f"**Library:** {repro.library}" + (f", driven through {scope.surface}" if scope.surface else ""), ""]
    said = fixture.statement or fixture.description
    if said:
        out += ["## What goes wrong", "", printable(said), ""]
    out += ["## What was sent", ""]
    if repro.answers is Answers.STREAMED:
        out += [f"The model's text ({text_format(case.dialect)} format), in the {len(case.reads)} batch(es) a "
                "server hands its parser:", "",
                *_fenced("\n".join(f"{r.decode('utf-8', 'surrogatepass')!r}" for r in case.reads), "python")]
    else:
        out += [f"The response body ({len(case.wire)} bytes{_reads_said(case)}), a `text/event-stream`:", "",
                *_fenced(_wire(case.wire), "text")]
    out += ["## What came back", "", *_came_back(repro), "## What was expected", "", *_expected(repro)]
    out += ["## Why this is expected", "", *_evidence(repro)]
    history = fixture.history.get(repro.target)
    if isinstance(history, dict):
        out += ["## Releases", "", f"{printable(history_text(history))} (toolfuzz bisect; {_tested(history)}).", ""]
    out += ["## Reproduce", "",
            f"`{name}` (attached) needs only the library; it feeds the stream above to {repro.package} as "
            "toolfuzz's adapter does (its code is in the script), and checks what comes back"
            + (f". It stands in for {repro.recipe.stands_in}" if repro.recipe.stands_in else "") + ":", "",
            *_fenced("\n".join([*repro.install, f"python {name}"]), "sh"),
            f"It prints `REPRODUCED: ...` and exits 1 while the bug is there, `NOT REPRODUCED: ...` and 0 once "
            "it is fixed.", "",
            f"Found by toolfuzz as `{repro.kind}` in its `{repro.target}` target; fixture "
            f"`{printable(Path(repro.source).name)}`.", ""]
    return "\n".join(out)


def _tested(history: dict[str, Any]) -> str:
    """The releases bisect tried, oldest first: which passed, which failed, how many did not run."""
    tested = history.get("tested", {})
    said = {verdict: sorted((v for v, w in tested.items() if w == verdict), key=version_key)
            for verdict in ("passes", "fails", "error")}
    parts = [f"{verdict} on {', '.join(said[verdict])}" for verdict in ("passes", "fails") if said[verdict]]
    if said["error"]:
        parts.append(f"{len(said['error'])} release(s) did not run")
    return "; ".join(parts)


def _reads_said(case: Any) -> str:
    return f", in {len(case.reads)} network reads" if len(case.reads) > 1 else ""


def _fenced(text: str, language: str = "") -> list[str]:
    """A fenced block whose fence no backtick run inside it can close."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, printable(text), fence, ""]


def _wire(wire: bytes) -> str:
    """The wire as text, trimmed for a person: long lines cut in the middle, a long stream's middle left out."""
    text = wire.decode("utf-8", "backslashreplace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cut = [line if len(line) <= _LINE_CHARS else
           f"{line[:_LINE_CHARS // 2]} ... ({len(line) - _LINE_CHARS} characters left out) ... "
           f"{line[-_LINE_CHARS // 2:]}" for line in lines]
    if len(cut) > _WIRE_HEAD + _WIRE_TAIL + 1:
        left = len(cut) - _WIRE_HEAD - _WIRE_TAIL
        cut = [*cut[:_WIRE_HEAD], f"... ({left} lines left out: the script holds the whole stream) ...",
               *cut[-_WIRE_TAIL:]]
    return "\n".join(cut)


def _came_back(repro: Repro) -> list[str]:
    observation = repro.observation
    detail = str(repro.seen.get("detail") or "")
    out: list[str] = []
    if "raised" in observation:
        out += [f"It raised `{printable(str(observation['raised']))}`."]
        state = observation.get("crash_state") or repro.fixture.found.get("crash_state")
        if state:
            out += ["", f"Raised at: `{printable(str(state))}`."]
        return out + [""]
    if observation.get("timed_out"):
        return [f"No answer: {printable(detail)}.", ""]
    if "calls" in observation and repro.answers is not Answers.STREAMED:
        out += ["The calls it hands on:", "", *_fenced(_json(observation["calls"]), "json")]
    elif "events" in observation:
        out += ["The events it dispatches:", "", *_fenced(_json(observation["events"]), "json")]
    elif "prefixes" in observation:
        shown = [p for p in observation["prefixes"] if isinstance(p, dict) and p.get("raised")][:3]
        out += ["On prefixes of the argument text:", "", *_fenced(_json(shown), "json")]
    elif repro.answers is Answers.STREAMED:
        out += ["What the server streams (content, and the tool-call deltas) and what it parses from the whole "
                "text:", "", *_fenced(_json({k: observation.get(k) for k in ("content", "deltas", "whole")}),
                                      "json")]
    if detail:
        out += [f"In toolfuzz's words ({repro.kind}): {printable(detail)}.", ""]
    return out


def _expected(repro: Repro) -> list[str]:
    case = repro.fixture.case
    if repro.answers is Answers.STREAMED:
        written = [{"name": c.name, "arguments": c.arguments} for c in case.expected.calls]
        return ["The calls the model wrote, and the text around them:", "",
                *_fenced(_json({"calls": written, "content": case.expected.content}), "json")]
    if repro.answers is Answers.EVENTS:
        events = [{"event": e.event, "data": e.data, "id": e.id} for e in expected_events(case)]
        return ["The events the stream dispatches by the WHATWG rules:", "", *_fenced(_json(events), "json")]
    if repro.answers is Answers.PREFIX_VALUES:
        return ["A value (or nothing yet) for every prefix of the argument text, and never a raise: the parser "
                "promises to read incomplete JSON.", ""]
    calls = case.expected.to_json()["calls"]
    return ["The calls the stream makes (`status`: whether the stream finished each, so that it may be run):", "",
            *_fenced(_json(calls), "json")]


def _evidence(repro: Repro) -> list[str]:
    grade = repro.grade
    if grade is None:
        return ["(The fixture records no grade for this target.)", ""]
    out = [f"- **Severity:** `{grade.severity.value}`: {grade.severity.meaning} (toolfuzz's docs/severity.md).",
           f"- **Harm:** {grade.harm.meaning}.",
           f"- **Rule:** {grade.rule.cite} (source: {grade.rule.source.value}).", ]
    for feature, evidence in grade.shapes:
        shape = shape_of(feature, repro.fixture.case.dialect)
        servers = ", ".join(sorted(shape.seen_from | shape.documented_by))
        out.append(f"- **Shape `{feature}`** ({evidence.label}): {printable(shape.cite)}"
                   + (f"; sent by {servers}" if servers else "") + ".")
    return out + [""]


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
