"""``toolfuzz assemble`` prints exactly ``json.dumps(outcome, indent=2, ensure_ascii=False)``, however it is made."""

from __future__ import annotations

import json

import pytest

from toolfuzz.cli import main
from toolfuzz.cli.assemble import _pretty
from tests.paths import ROOT

EXAMPLES = ROOT / "harness" / "examples"


def test_the_printed_outcome_is_the_standard_indented_json_text(capsys):
    code = main(["assemble", str(EXAMPLES / "two-calls.sse"), "--tools", str(EXAMPLES / "tools.json")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "Zürich" in out and "☕" in out  # non-ASCII is written as is
    assert out == json.dumps(json.loads(out), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("document", [
    {"calls": [], "error": None},
    {"calls": [{"choice": 0, "index": 3, "id": None, "name": "f", "arguments": "\x00\x1f\x7f\"\\\u2028é😀\n\t",
                "status": "complete"}, {}], "error": {"code": "bad_chunk", "message": "x"}},
    # What orjson refuses takes the standard library's way, with the same text as before.
    {"calls": [{"arguments": "{\"a\": \"\ud83d\"}"}], "error": None},
    {"calls": [{"index": 2**70}], "error": None},
])
def test_pretty_is_json_dumps_indent_2(document):
    assert _pretty(document) == json.dumps(document, indent=2, ensure_ascii=False)
