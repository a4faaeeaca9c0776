"""toolfuzz verify on the command line: what it refuses, in one line each (tests/corpus/test_verification.py runs
the adapters' tests in a real environment)."""

from __future__ import annotations

from toolfuzz.cli import main


def test_an_unknown_library_is_one_line_naming_the_known_ones(capsys):
    assert main(["verify", "nosuch-lib"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolfuzz verify: no adapter is built on nosuch-lib (known: openai, langchain-core, ")
    assert err.count("\n") == 1


def test_without_a_checkout_there_are_no_tests_to_run_and_it_says_so(monkeypatch, capsys):
    from toolfuzz.targets import environments

    monkeypatch.setattr(environments, "source_folder", lambda: None)
    assert main(["verify"]) == 2
    assert capsys.readouterr().err == ("toolfuzz verify: needs a source checkout: it runs the adapters' tests, which live "
                                       "there; install toolfuzz from one (pip install -e .) and run it there\n")
