"""toolfuzz.judge.exits: the exit status a process that ran a target dies with names what the target did."""

from __future__ import annotations

import multiprocessing

import pytest

from toolfuzz.judge.exits import death_of, exiting_on_fatal


def _hoard(arg):
    raise MemoryError


def _leave(arg):
    raise SystemExit(0)  # status 0 would read as a clean end: the wrapper must not let it through


def _run(fn):
    process = multiprocessing.get_context("fork").Process(target=exiting_on_fatal(fn), args=(None,))
    process.start()
    process.join(30)
    return process.exitcode


@pytest.mark.parametrize("fn,kind,words", [(_hoard, "memory", "MemoryError"), (_leave, "crash", "SystemExit")])
def test_a_fatal_exception_ends_the_process_with_a_status_that_names_it(fn, kind, words):
    found, detail = death_of(_run(fn))
    assert found == kind and words in detail


def test_signals_and_other_statuses_are_crashes_that_say_which():
    assert death_of(-11, "the worker") == ("crash", "the worker was killed by SIGSEGV")
    assert death_of(3) == ("crash", "the process exited with status 3")


def test_an_answer_passes_through():
    assert exiting_on_fatal(lambda arg: arg + 1)(1) == 2
