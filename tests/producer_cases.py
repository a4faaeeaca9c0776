"""What the serving engines' adapter tests share: plain calls, the case of them in a format, and a target's
answer and kinds on it (tests/targets/adapters/test_sglang.py and test_vllm.py, each in its engine's
environment)."""

from __future__ import annotations

import json

from toolfuzz.judge.compare import compare
from toolfuzz.judge.compare_producer import same_value
from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies.markup import FORMATS, Written
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome, Tool, text_tokens

TOOLS = (Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                              "required": ["city"]}),
         Tool("search", {"type": "object", "properties": {"query": {"type": "string"}, "exact": {"type": "boolean"},
                                                         "tags": {"type": "array", "items": {"type": "string"}},
                                                         "filters": {"type": "object"}}}))
#: Plain calls every format writes (no negative number: sglang's pythonic whole parse loses those, a finding).
CALLS = (Written("get_weather", {"city": "Paris", "days": 3}, '{"city": "Paris", "days": 3}'),
         Written("search", {"query": "cafés near me", "exact": True, "tags": ["a", "b"], "filters": {"open": None}},
                 '{"query": "cafés near me", "exact": true, "tags": ["a", "b"], "filters": {"open": null}}'))


def case(fmt: str, calls=CALLS, before: str = "", after: str = "", batches: str | int = "one") -> Case:
    """``calls`` written in ``fmt`` and cut into one batch, a token each (``"tokens"``), or ``n`` tokens each; each
    call's arguments as the format can write them (its fit), as the strategies draw them."""
    schemas = {t.name: t.parameters for t in TOOLS}
    calls = [c if FORMATS[fmt].json_text else Written(c.name, value := FORMATS[fmt].fit(c.value, schemas[c.name]),
                                                      json.dumps(value)) for c in calls]
    text = FORMATS[fmt].render(calls, before, [], after)
    pieces = text_tokens(text, FORMATS[fmt].atoms)
    if batches == "one":
        pieces = [text]
    elif isinstance(batches, int):
        pieces = ["".join(pieces[i:i + batches]) for i in range(0, len(pieces), batches)]
    expected = tuple(Call(0, k, None, c.name, json.dumps(c.value), COMPLETE) for k, c in enumerate(calls))
    return Case(reads=tuple(p.encode() for p in pieces), expected=Outcome(expected, None, FORMATS[fmt].joiner.join(
        p for p in (before, after) if p)), tools=TOOLS, dialect=f"text:{fmt}", events=())


def answer(target: Target, c: Case) -> dict:
    """What ``target`` answers for ``c``, called directly."""
    return target.fn([r.decode() for r in c.reads], tools=c.tools, limits=c.limits)


def kinds(target: Target, c: Case, timeout: float = 60.0) -> list[str]:
    """The kinds ``target`` diverges with on ``c``, run as a run runs it; it must not raise."""
    seen = observe(target, c, timeout=timeout)
    assert seen.raised is None, seen.raised
    return [d.kind for d in compare(c.expected, seen, target)]


def assert_reads_the_plain_rendering_back(target: Target, fmt: str) -> None:
    """The evidence that a rendering is the format ``target``'s parser reads: its whole-text parse, which a
    server hands on for a response it does not stream, gives back every call written, value for value (one
    call, two, and one tool twice)."""
    for calls in (CALLS[:1], CALLS, (CALLS[0], CALLS[0])):
        written = case(fmt, calls)
        expected = written.expected.calls  # as the format writes them (its fit)
        got = answer(target, written)["whole"]
        assert [c["name"] for c in got["calls"]] == [c.name for c in expected], (fmt, got)
        assert all(same_value(json.loads(g["arguments"]), json.loads(w.arguments))
                   for g, w in zip(got["calls"], expected)), (fmt, got)
        assert got["content"].strip() == "", (fmt, got)
