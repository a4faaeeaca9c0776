"""Exporting fixtures in the forms other projects consume.

* ``json``   - ``<stem>.json``: ``{"chunks": [...], "expected": <outcome>, "tools": [...]}``;
* ``jsonl``  - ``<stem>.jsonl``: the parsed chunks, one per line;
* ``sse``    - ``<stem>.sse``: the wire bytes as captured, with ``<stem>.reads.json``
  (the cut offsets, and the command that replays it), ``<stem>.expected.json``
  (the outcome exactly as ``toolfuzz assemble`` prints it) and, when the case
  offers tools, ``<stem>.tools.json``;
* ``pytest`` - ``test_<stem>.py``: a standalone pytest module that embeds the
  case and tests an assembler plugged in at one marked place.

The chunks are exactly what :func:`toolfuzz.judge.sandbox.observe` hands an
events-level target: they are captured from it, not derived a second way.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import textwrap
import unicodedata
from typing import Any

from toolfuzz.corpus.fixtures import Fixture
from toolfuzz.vocabulary import INCOMPLETE, Case, Limits
from toolfuzz.judge.sandbox import chunks_of, parse_chunks

__all__ = ["FORMATS", "MARK_BEGIN", "MARK_END", "events_of", "stem_for", "render"]

FORMATS = ("json", "jsonl", "sse", "pytest")
#: The lines around the one place a user edits in an exported pytest module.
MARK_BEGIN = "# >>> YOUR ASSEMBLER >>>"
MARK_END = "# <<< YOUR ASSEMBLER <<<"

_NOT_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
#: Names Windows refuses for a file whatever its extension.
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
MAX_STEM = 80


def events_of(case: Case) -> list[dict[str, Any]]:
    """The parsed chunks an events-level target is fed for ``case``, exactly as ``observe`` feeds them."""
    return parse_chunks(chunks_of(case))


def stem_for(name: str, taken: set[str], python: bool = False) -> str:
    """A file-name stem from a fixture name: safe on every filesystem, unique among ``taken`` (any case).

    No dots, so that one stem's companion files (``.reads.json``) can never be
    another stem's.  ``python`` makes it an importable module name too.
    """
    # Accents come off rather than the letters ("café" is "cafe"); what is left outside ASCII goes.
    ascii_ = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    stem = _NOT_SAFE.sub("-", ascii_).strip("-_") or "fixture"
    if python:
        stem = stem.replace("-", "_").lower()
    if len(stem) > MAX_STEM:
        digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem = f"{stem[:MAX_STEM - 9]}-{digest}".replace("-", "_" if python else "-")
    if stem.lower() in _RESERVED:
        stem += "_fixture" if python else "-fixture"
    unique, n = stem, 2
    while unique.casefold() in taken:  # case-insensitive filesystems (macOS, Windows) would merge them
        unique, n = f"{stem}{'_' if python else '-'}{n}", n + 1
    taken.add(unique.casefold())
    return unique


def _json_text(value: Any, **kwargs: Any) -> str:
    """JSON that is readable where it can be, and always writable as UTF-8.

    A chunk may hold a lone UTF-16 surrogate (a fragment that split a
    character between its halves); written raw it is not UTF-8, so such a
    document is written with \\u escapes instead.
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, **kwargs)
    return text


def _compact(value: Any) -> str:
    return _json_text(value, separators=(",", ":"))


def render(fixture: Fixture, fmt: str, stem: str, level: str = "events") -> list[tuple[str, bytes]]:
    """The files one fixture becomes in ``fmt``: (file name, contents)."""
    case = fixture.case
    tools = [t.to_json() for t in case.tools]
    if fmt == "json":
        doc = {"chunks": events_of(case), "expected": case.expected.to_json(), "tools": tools}
        return [(f"{stem}.json", (_json_text(doc, indent=2) + "\n").encode("utf-8"))]
    if fmt == "jsonl":
        return [(f"{stem}.jsonl", "".join(_compact(c) + "\n" for c in events_of(case)).encode("utf-8"))]
    if fmt == "sse":
        return _sse(case, stem, tools)
    if fmt == "pytest":
        return [(f"test_{stem}.py", pytest_module(fixture, level).encode("utf-8"))]
    raise ValueError(f"unknown format {fmt!r}")


def _sse(case: Case, stem: str, tools: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    command = ["toolfuzz", "assemble", f"{stem}.sse"]
    files = [(f"{stem}.sse", case.wire)]
    if tools:
        files.append((f"{stem}.tools.json", (_json_text(tools, indent=2) + "\n").encode("utf-8")))
        command += ["--tools", f"{stem}.tools.json"]
    defaults = Limits()
    for flag, attr in (("--max-events", "max_events"), ("--max-bytes", "max_stream_bytes"),
                       ("--max-argument-bytes", "max_argument_bytes")):
        if getattr(case.limits, attr) != getattr(defaults, attr):
            command += [flag, str(getattr(case.limits, attr))]
    # Byte for byte what `toolfuzz assemble` prints, so that `diff` compares them.
    expected = json.dumps(case.expected.to_json(), indent=2, ensure_ascii=False) + "\n"
    files.append((f"{stem}.expected.json", expected.encode("utf-8", "surrogatepass")))
    reads = {
        "sse": f"{stem}.sse",
        "bytes": len(case.wire),
        # Where one network read ends and the next begins: re-cut the .sse
        # file at these offsets to feed it as it was read.
        "cuts": list(case.cuts),
        "expected": f"{stem}.expected.json",
        "replay": " ".join(command),
    }
    files.append((f"{stem}.reads.json", (_json_text(reads, indent=2) + "\n").encode("utf-8")))
    return files


# -- the standalone pytest module ----------------------------------------------

def pytest_module(fixture: Fixture, level: str = "events") -> str:
    case = fixture.case
    expected = [{"choice": c.choice, "index": c.index, "id": c.id, "name": c.name, "arguments": c.arguments,
                 "finished": c.status != INCOMPLETE} for c in case.expected.calls]
    if level == "bytes":
        fed = "the network reads, a list of bytes in arrival order"
        signature = "reads"
        data = ("# The network reads, base64, in arrival order: the cuts fall where the server's bytes did.\n"
                "READS = [\n" + "".join(f"    {base64.b64encode(r).decode('ascii')!r},\n" for r in case.reads)
                + "]\n\n\ndef _input():\n    return [base64.b64decode(r) for r in READS]\n")
    else:
        fed = "the parsed chat.completion.chunk objects, a list of dicts in order"
        signature = "chunks"
        data = ("# The parsed chat.completion.chunk objects, one JSON text each, in order.\n"
                "CHUNKS = [\n" + "".join(f"    {_compact(c)!r},\n" for c in events_of(case))
                + "]\n\n\ndef _input():\n"
                "    # Fresh objects for every test: an assembler that changes them cannot affect the next.\n"
                "    return [json.loads(c) for c in CHUNKS]\n")
    description = " ".join(fixture.description.split()) or "(no description)"
    header = _docstring([f"toolfuzz case: {fixture.name}", "", *textwrap.wrap(description, 76), "",
                         "Plug your assembler in at the one marked place below, then run pytest on this",
                         "file; it needs pytest, not toolfuzz."])
    return _TEMPLATE.format(
        header=header, imports="import base64\nimport json" if level == "bytes" else "import json", begin=MARK_BEGIN, end=MARK_END, signature=signature, fed=fed,
        data=data, expected="[\n" + "".join(f"    {_compact(e)!r},\n" for e in expected) + "]",
    )


def _docstring(lines: list[str]) -> str:
    # Each line repr-escaped: whatever a fixture's name or description holds
    # stays inert text in the generated source.
    body = "\n".join(repr(line)[1:-1].replace('"', '\\"') for line in lines)
    return f'"""{body}\n"""'


_TEMPLATE = '''{header}

{imports}

{begin}
# Replace this function with yours, or import it under this name, e.g.
#     from mypackage.streaming import assemble_tool_calls as assemble
# It is given {fed},
# and returns one dict per tool call it would hand on:
#     {{"choice": 0, "index": 0, "id": "call_1", "name": "get_weather",
#      "arguments": "{{\\"city\\": \\"Paris\\"}}", "complete": True}}
# "choice" defaults to 0; "complete" (default True) is False for a call it
# would hold back because the stream never finished it.
def assemble({signature}):
    raise NotImplementedError("plug your assembler in: edit assemble() at the top of " + __file__)
{end}


{data}

# The calls the stream makes. "finished": the stream said the call is done;
# an unfinished call may be left out, but must never be handed on as complete.
EXPECTED = [json.loads(e) for e in {expected}]


def _where(call):
    return f"call {{call['index']}} of choice {{call['choice']}}"


def _text(value):
    # An id or name of "" is no id or name; an integer id is its decimal text.
    return None if value in (None, "") else str(value)


def _returned():
    result = assemble(_input())
    assert isinstance(result, (list, tuple)), f"assemble() returned {{type(result).__name__}}, not a list of calls"
    for i, call in enumerate(result):
        assert isinstance(call, dict), f"assemble() item {{i}} is {{type(call).__name__}}, not a dict"
    return list(result)


def _paired():
    """Expected and returned calls paired by (choice, index), in order within one key; and the rest."""
    want, have = {{}}, {{}}
    for e in EXPECTED:
        want.setdefault((e["choice"], e["index"]), []).append(e)
    for o in _returned():
        have.setdefault((o.get("choice") or 0, o.get("index")), []).append(o)
    pairs, lost, made_up = [], [], []
    for key, es in want.items():
        os_ = have.pop(key, [])
        pairs.extend(zip(es, os_))
        lost.extend(es[len(os_):])
        made_up.extend(os_[len(es):])
    for os_ in have.values():
        made_up.extend(os_)
    return pairs, lost, made_up


def _check(problems):
    assert not problems, "\\n".join(problems)


def test_every_finished_call_is_handed_on():
    _, lost, _ = _paired()
    _check([f"{{_where(e)}} (name {{e['name']!r}}, id {{e['id']!r}}) is missing, but the stream finished it"
            for e in lost if e["finished"]])


def test_no_call_is_made_up():
    _, _, made_up = _paired()
    _check([f"returned a call the stream never made: choice {{o.get('choice') or 0}} index {{o.get('index')!r}} "
            f"name {{o.get('name')!r}} arguments {{str(o.get('arguments'))[:80]!r}}" for o in made_up])


def test_arguments_are_the_exact_concatenation_of_the_fragments():
    problems = []
    for e, o in _paired()[0]:
        got = o.get("arguments", "")
        if got == e["arguments"]:
            continue
        try:
            same = isinstance(got, str) and json.loads(got) == json.loads(e["arguments"])
        except ValueError:
            same = False
        why = " (the same JSON value written differently: hand on the streamed text)" if same else ""
        problems.append(f"{{_where(e)}}: arguments should be {{e['arguments']!r}}, got {{got!r}}{{why}}")
    _check(problems)


def test_ids_are_the_ones_the_stream_gave():
    _check([f"{{_where(e)}}: id should be {{e['id']!r}}, got {{_text(o.get('id'))!r}}"
            for e, o in _paired()[0] if _text(o.get("id")) != e["id"]])


def test_names_are_the_ones_the_stream_gave():
    _check([f"{{_where(e)}}: name should be {{e['name']!r}}, got {{_text(o.get('name'))!r}}"
            for e, o in _paired()[0] if _text(o.get("name")) != e["name"]])


def test_completion_follows_the_stream():
    problems = []
    for e, o in _paired()[0]:
        complete = o.get("complete", True)
        if complete is not True and complete is not False:
            problems.append(f"{{_where(e)}}: complete should be True or False, got {{complete!r}}")
        elif complete and not e["finished"]:
            problems.append(f"{{_where(e)}} is handed on as complete, but the stream never finished it: "
                            f"it must not run")
        elif e["finished"] and not complete:
            problems.append(f"{{_where(e)}} is held back as incomplete, but the stream finished it")
    _check(problems)
'''
