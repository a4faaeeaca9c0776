"""Exporting fixtures in the forms other projects consume.

* ``json``   - ``<stem>.json``: ``{"chunks": [...], "events": [...], "expected": <outcome>, "tools": [...]}``
  (``events``: the SSE events the wire dispatches, what an sse-level target is judged on);
* ``jsonl``  - ``<stem>.jsonl``: the parsed chunks, one per line;
* ``sse``    - ``<stem>.sse``: the wire bytes as captured, with ``<stem>.reads.json``
  (the cut offsets, and the command that replays it), ``<stem>.expected.json``
  (the outcome exactly as ``toolfuzz assemble`` prints it) and, when the case
  offers tools, ``<stem>.tools.json``;
* ``pytest`` - ``cases/<stem>.json``: the fixture, and once for the export
  ``test_toolfuzz_regressions.py``: one module, parametrised over the cases,
  with one marked place to plug an assembler in; it judges each case with
  toolfuzz's own comparison (:func:`toolfuzz.testing.check_fixture`);
* ``repro``  - for a library's maintainers rather than another project: a
  script and an issue per diverging target, written by
  :mod:`toolfuzz.outputs.repro` (:func:`render` does not make them).

The chunks are exactly what :func:`toolfuzz.judge.sandbox.observe` hands an
events-level target: they are captured from it, not derived a second way.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

from toolfuzz.corpus.fixtures import Fixture, dumps
from toolfuzz.vocabulary import Case, Limits
from toolfuzz.judge.compare_events import expected_events
from toolfuzz.judge.feeding import chunks_of, parse_chunks
from toolfuzz.targets.base import LEVEL, Answers

__all__ = ["FORMATS", "MARK_BEGIN", "MARK_END", "PYTEST_MODULE", "events_of", "stem_for", "render", "pytest_module"]

FORMATS = ("json", "jsonl", "sse", "pytest", "repro")
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
        # The events too: what an sse-level target (a decoder) is judged on, as the chunks are an assembler's.
        events = [{"event": e.event, "data": e.data, "id": e.id} for e in expected_events(case)]
        doc = {"chunks": events_of(case), "events": events, "expected": case.expected.to_json(), "tools": tools}
        return [(f"{stem}.json", (_json_text(doc, indent=2) + "\n").encode("utf-8"))]
    if fmt == "jsonl":
        return [(f"{stem}.jsonl", "".join(_compact(c) + "\n" for c in events_of(case)).encode("utf-8"))]
    if fmt == "sse":
        return _sse(case, stem, tools)
    if fmt == "pytest":
        # The fixture itself: the module (PYTEST_MODULE, written once) judges it as toolfuzz does.
        return [(f"cases/{stem}.json", dumps(fixture).encode("utf-8"))]
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


# -- the pytest module --------------------------------------------------------

#: The one module a pytest export writes beside its ``cases/`` folder.
PYTEST_MODULE = "test_toolfuzz_regressions.py"


def pytest_module(level: str = "events") -> str:
    """The module that tests an assembler on every exported case, by toolfuzz's own comparison."""
    fed = LEVEL[level].takes
    returns = _PARTIAL_RETURNS if LEVEL[level].answers is Answers.PREFIX_VALUES else _CALLS_RETURN
    return _TEMPLATE.format(begin=MARK_BEGIN, end=MARK_END, fed=fed, level=level, returns=returns,
                            signature={"events": "chunks", "partial": "text"}.get(level, "reads"))


_CALLS_RETURN = '''# and returns the calls it would hand on (docs/contract.md), one dict each:
#     {"choice": 0, "index": 0, "id": "call_1", "name": "get_weather",
#      "arguments": "{\\"city\\": \\"Paris\\"}", "complete": True}'''
_PARTIAL_RETURNS = '''# and returns the value it would show for it (dicts, lists, str, int, float, bool, or None for
# nothing yet), judged by the rules of docs/contract.md section 9.'''


_TEMPLATE = '''"""Regressions exported by toolfuzz: one test per case file in cases/.

Plug your assembler in at the one marked place below and run pytest on this file. Each case is judged as
`toolfuzz run` judges a target (toolfuzz.testing.check_fixture, the harness's own comparison), so a test
here fails exactly where toolfuzz would report a divergence; `toolfuzz show cases/<case>.json` shows the
stream. Needs toolfuzz and pytest.
"""

from pathlib import Path

import pytest

from toolfuzz.testing import check_fixture

{begin}
# Replace this function with yours, or import it under this name, e.g.
#     from mypackage.streaming import assemble_tool_calls as assemble
# It is given {fed},
{returns}
LEVEL = "{level}"


def assemble({signature}):
    raise NotImplementedError


assemble.unplugged = True
{end}

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case(case):
    if getattr(assemble, "unplugged", False):
        pytest.fail("plug your assembler in: replace assemble() between the marks at the top of " + __file__)
    check_fixture(assemble, case, level=LEVEL)
'''
