"""The argument types the subcommands share: durations for ``--budget`` and ``--timeout``."""

from __future__ import annotations

import argparse

import pytest

from toolfuzz.cli import main
from toolfuzz.cli.arguments import positive_seconds


@pytest.mark.parametrize("text,seconds", [
    ("90", 90.0), ("2.5", 2.5), ("1e3", 1000.0), ("90s", 90.0), ("30m", 1800.0), ("2.5m", 150.0),
    ("8h", 28800.0), ("1h30m", 5400.0), ("1h0m5s", 3605.0), ("8H", 28800.0), (" 45m ", 2700.0),
])
def test_a_duration_is_seconds_or_numbers_with_units(text, seconds):
    assert positive_seconds(text) == seconds


@pytest.mark.parametrize("text,words", [
    ("8x", "is not a duration"), ("h", "is not a duration"), ("", "is not a duration"),
    ("1h30", "is not a duration"), ("30m1h", "is not a duration"), ("1.2.3", "is not a duration"),
    ("0", "is not a positive duration"), ("0h", "is not a positive duration"), ("-5", "is not a positive duration"),
    ("inf", "is not a positive duration"), ("nan", "is not a positive duration"),
])
def test_anything_else_is_refused_with_the_text_it_was_given(text, words):
    with pytest.raises(argparse.ArgumentTypeError, match=words) as refused:
        positive_seconds(text)
    assert text.strip() in str(refused.value)


def test_a_bad_budget_is_one_usage_error_naming_the_option(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--budget", "8x", "--findings", str(tmp_path)])
    _, err = capsys.readouterr()
    assert stopped.value.code == 2
    assert "argument --budget" in err and "'8x' is not a duration" in err and "Traceback" not in err


def test_a_run_takes_its_budget_in_hours(tmp_path, capsys):
    code = main(["run", "--target", "reference", "--budget", "1h", "--max-examples", "5", "--seed", "1",
                 "--findings", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "or 3600 s" in out + err
