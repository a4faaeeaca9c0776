"""toolfuzz.judge.exits: the exit status a process that ran a target dies with names what the target did."""

from __future__ import annotations

import multiprocessing
import resource
import threading

import pytest

from toolfuzz.judge.exits import cap_memory, death_of, exiting_on_fatal


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


def _capped_under_a_lower_limit(conn):
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))  # as `ulimit -v` leaves it
    try:
        cap_memory(4 * 2**30, 4 * 2**30)
    except (ValueError, OSError) as e:
        conn.send(str(e))
    else:
        conn.send(resource.getrlimit(resource.RLIMIT_AS))


def test_a_limit_already_lower_than_the_cap_stands_and_the_process_goes_on():
    reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)
    process = multiprocessing.get_context("fork").Process(target=_capped_under_a_lower_limit, args=(writer,))
    process.start()
    process.join(60)
    assert reader.poll(0) and reader.recv() == (3 * 2**30, 3 * 2**30)


def test_an_answer_passes_through():
    assert exiting_on_fatal(lambda arg: arg + 1)(1) == 2


_THREADS = 24
_HEADROOM = 512 * 2**20


def _threads_under_a_cap(conn):
    # Each thread allocates while all are alive, as a thread pool's workers do; under glibc each would
    # reserve an arena of 64 MB: 24 of them pass a cap of 512 MB over what is mapped already.
    cap_memory(_mapped() + _HEADROOM, resource.RLIM_INFINITY)
    release, started, held = threading.Event(), [], []

    def work():
        held.append(bytearray(4096))
        release.wait()

    try:
        for _ in range(_THREADS):
            thread = threading.Thread(target=work)
            thread.start()
            started.append(thread)
        conn.send((len(started), None))
    except RuntimeError as e:
        conn.send((len(started), str(e)))
    finally:
        release.set()
        for thread in started:
            thread.join()


def _mapped():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))


def test_threads_that_allocate_do_not_use_up_the_memory_cap_with_address_space_nobody_uses():
    reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)
    process = multiprocessing.get_context("fork").Process(target=_threads_under_a_cap, args=(writer,))
    process.start()
    process.join(60)
    assert reader.poll(0) and reader.recv() == (_THREADS, None)
