"""``python -m bench --markdown FILE``: the figures docs/benchmarks.md quotes are the last run's, never typed."""

import pytest

from bench.__main__ import BEGIN, END, checked_page, markdown, write_markdown
from tests.paths import ROOT


def test_only_the_generated_part_of_the_page_is_rewritten(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text(f"# Benchmarks\n\nprose before\n{BEGIN}\nold figures\n{END}\nhistory after\n", encoding="utf-8")
    write_markdown(str(page), markdown([("reference", "reference / floor", "1.78x (goal < 2x)"),
                                        ("partial", "a | b", "3 s")], "measured here:"))
    assert page.read_text(encoding="utf-8") == (
        f"# Benchmarks\n\nprose before\n{BEGIN}\nmeasured here:\n\n| benchmark | measure | value |\n|---|---|---|\n"
        f"| reference | reference / floor | 1.78x (goal < 2x) |\n| partial | a \\| b | 3 s |\n{END}\nhistory after\n")


def test_a_page_without_the_part_is_one_error_naming_it_before_anything_is_measured(tmp_path):
    page = tmp_path / "notes.md"
    page.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="notes.md: the page has no"):
        checked_page(str(page))
    assert page.read_text(encoding="utf-8") == "no markers\n"
    with pytest.raises(SystemExit, match="missing.md"):
        checked_page(str(tmp_path / "missing.md"))


def test_the_benchmarks_page_holds_the_part_and_figures_in_it():
    text = checked_page(str(ROOT / "docs" / "benchmarks.md"))
    generated = text[text.index(BEGIN):text.index(END)]
    assert "| reference | reference / floor |" in generated
