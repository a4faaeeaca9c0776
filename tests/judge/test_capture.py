"""What a target writes while it runs is caught at the file descriptors, per call, and kept by its two ends."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading

from toolfuzz.judge import capture
from toolfuzz.vocabulary import OUTPUT_KEPT, Output


def captured(fn) -> Output:
    assert capture.begin()
    try:
        fn()
    finally:
        output = capture.end()
    return output


def in_a_process_of_its_own(code: str) -> subprocess.CompletedProcess:
    """``code`` run by a Python whose stdout is a pipe, buffered as a pipe is (PYTHONUNBUFFERED would not)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


def every_way_of_writing() -> None:
    print("print")
    os.write(1, b"fd 1\n")
    ctypes.CDLL(None).printf(b"printf\n")
    print("print to stderr", file=sys.stderr)
    os.write(2, b"fd 2\n")


def test_print_the_descriptors_and_the_c_library_are_all_caught_and_none_of_it_reaches_the_real_ones(capfd):
    capfd.readouterr()
    assert captured(every_way_of_writing) == Output("print\nfd 1\nprintf\n", "print to stderr\nfd 2\n")
    print("the run's own")
    # What the call wrote never reached the process's stdout and stderr; what the run writes after it does.
    assert capfd.readouterr() == ("the run's own\n", "")


def test_what_the_c_library_holds_in_its_buffer_is_flushed_into_the_capture():
    code = ("import ctypes, sys\n"
            "from toolfuzz.judge import capture\n"
            "capture.begin()\n"
            "ctypes.CDLL(None).printf(b'printf')\n"
            "sys.stderr.write(repr(capture.end()))\n")
    done = in_a_process_of_its_own(code)
    assert (done.stdout, done.stderr) == ("", repr(Output("printf"))), done.stderr


def test_each_call_gets_its_own_output_and_a_quiet_call_none():
    assert captured(lambda: print("first")).stdout == "first\n"
    assert captured(lambda: None) == Output() and not captured(lambda: None)
    assert captured(lambda: print("third")).stdout == "third\n"


def test_what_the_run_had_in_its_buffer_before_the_call_is_the_runs():
    code = ("import sys\n"
            "from toolfuzz.judge import capture\n"
            "sys.stdout.write('pending, not yet flushed')\n"
            "capture.begin()\n"
            "print(\"the call's\")\n"
            "sys.stderr.write(repr(capture.end()))\n")
    done = in_a_process_of_its_own(code)
    assert (done.stdout, done.stderr) == ("pending, not yet flushed", repr(Output("the call's\n"))), done.stderr


def test_what_a_library_writes_to_the_sys_stdout_it_kept_before_the_call_is_the_calls():
    code = ("import sys\n"
            "from toolfuzz.judge import capture\n"
            "kept = sys.stdout\n"
            "capture.begin()\n"
            "kept.write('through a kept reference\\n')\n"
            "sys.stderr.write(repr(capture.end()))\n")
    done = in_a_process_of_its_own(code)
    assert (done.stdout, done.stderr) == ("", repr(Output("through a kept reference\n"))), done.stderr


def test_a_long_output_keeps_its_two_ends_and_counts_what_it_left_out():
    middle = 10 * OUTPUT_KEPT
    output = captured(lambda: os.write(1, b"<" + b"m" * middle + b">"))
    head, gap, tail = output.stdout.split("\n")
    assert head == "<" + "m" * (OUTPUT_KEPT - 1) and tail == "m" * (OUTPUT_KEPT - 1) + ">"
    assert gap == f"[... {middle + 2 - 2 * OUTPUT_KEPT} bytes left out ...]"


def test_a_call_on_another_thread_while_one_is_captured_is_not_captured_and_both_go_on():
    assert capture.begin()
    try:
        other: list[bool] = []
        thread = threading.Thread(target=lambda: other.append(capture.begin()))
        thread.start()
        thread.join()
    finally:
        capture.end()
    assert other == [False]
    assert captured(lambda: print("again")).stdout == "again\n"


def test_a_process_that_dies_in_a_call_leaves_its_output_where_another_can_read_it(tmp_path):
    files = (tmp_path / "out", tmp_path / "err")
    pid = os.fork()
    if pid == 0:  # the child: a worker whose target ends its process mid-call
        try:
            capture.keep_in(*files)
            capture.begin()
            print("last words")
            os.write(2, b"on stderr\n")
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 3
    assert capture.read_kept(*files) == Output("last words\n", "on stderr\n")
