"""outputs/agreement_report.py: `toolfuzz corpus agree`'s table by source, its ambiguities and its differences."""

from __future__ import annotations

from toolfuzz.corpus.agreement import agreement
from toolfuzz.outputs.agreement_report import render_agreement, render_agreement_markdown, tally
from tests.paths import ROOT

LLM = ROOT / "findings" / "captures" / "llm"


def test_a_response_read_through_an_ambiguity_is_counted_apart_and_its_reason_shown():
    verdicts = list(agreement([LLM]))
    [source], ambiguous = tally(verdicts)
    assert (source.responses, source.ambiguous, source.agree, source.differ) == (8, 1, 7, [])
    [one] = ambiguous
    text = render_agreement(verdicts)
    assert f"ambiguous  {one.entry.recording}: the server (OpenRouter" in text
    assert text.splitlines()[-1] == ("pass: 8 responses from 1 sources; the reference reads 8 as their tests do "
                                     "(1 through a documented ambiguity), 0 otherwise")


def test_the_markdown_table_has_a_row_per_source_and_the_totals():
    lines = render_agreement_markdown(agreement([LLM, ROOT / "findings" / "captures" / "openai-node"])).splitlines()
    assert lines[2].startswith("| simonw/llm | Apache-2.0 | chat, responses | 4 | 8 |")
    assert lines[-1] == "| **all 2** | | | 5 | 9 | 4 | 8 | 1 | 0 |"
