"""Targets that attack the process running them, one way each, for the supervisor's and the runner's tests.

Loaded by path (``tests/data/hostile.py:segv``); never imported by the suite itself.  The ``*_sometimes``
ones attack on about one case in three (the same cases on every run) and assemble the others as the plain
assembler does, rightly: a run meets the attack, and its other examples are ordinary ones.
"""

import ctypes
import json
import os
import signal
import socket
import time
import zlib

from toolfuzz.targets.selftest.plain import assemble_chunks


def segv(chunks):
    os.write(2, b"about to segfault\n")  # what the finding of the death shows
    os.kill(os.getpid(), signal.SIGSEGV)


def hang(chunks):
    # Deaf to the per-case time limit: SIGALRM stays pending, as it would in a C loop.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        time.sleep(60)  # asleep, not spinning: as deaf, and it leaves the core to the tests beside it


def hog(chunks):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 2**20))


def phone(chunks):
    with socket.socket() as s:
        s.connect(("127.0.0.1", 9))
    return []


def leave(chunks):
    raise SystemExit(3)


def _sometimes(chunks):
    return zlib.crc32(json.dumps(chunks, sort_keys=True).encode()) % 3 == 0


def exit_sometimes(chunks):
    if _sometimes(chunks):
        os._exit(3)
    return assemble_chunks(chunks)


def segfault_sometimes(chunks):
    if _sometimes(chunks):
        ctypes.string_at(0)  # a read of address 0 in C: SIGSEGV
    return assemble_chunks(chunks)


def hog_sometimes(chunks):
    if _sometimes(chunks):
        hoard = []
        while True:
            # Address space, not memory: calloc maps pages it never touches, so the cap is met at once and the
            # machine's memory is never used (without a cap, the mappings run out first).
            hoard.append(bytes(64 * 2**20))
    return assemble_chunks(chunks)


_answered = 0


def _answer(chunks):
    global _answered
    _answered += 1
    return assemble_chunks(chunks)


def hang_sometimes(chunks):
    # Never on the first case a process gets: whichever case a seed draws first, the target beside it has an
    # example counted before the first hang, which costs a run of a few seconds the rest of its budget.
    if _answered and _sometimes(chunks):
        hang(chunks)
    return _answer(chunks)


#: How long slow_hog pauses before it allocates: past a time limit of 2 s, and within twice that.
PAUSE = 3.5


def slow_hog(chunks):
    # A hog that grows slowly (as one on a slow machine does): its first run outlasts a 2-s time limit, and the
    # time-out's second run, with twice the limit, meets the memory cap.
    time.sleep(PAUSE)
    hoard = []
    while True:
        hoard.append(bytes(64 * 2**20))


def slow_drop(chunks):
    # A second a call, and a finished call the stream never sent on every case, whatever the case holds (a
    # call dropped would be no divergence where the case's last call is one a cut stream never finished):
    # every probe of its reduction takes that long.
    time.sleep(1.0)
    never_sent = {"choice": 0, "index": 999, "id": "never-sent", "name": "never_sent", "arguments": "{}",
                  "complete": True}
    return [*assemble_chunks(chunks), never_sent]


_loaded = time.monotonic()


def hang_late(chunks):
    # Once the process answered a case, so that a machine slow to start it still counts an example first.
    if _answered and time.monotonic() - _loaded > 2:
        hang(chunks)
    return _answer(chunks)


_calls = 0


def exit_on_tenth(chunks):
    # Nine cases answered rightly in each process it runs in, then an exit: what the nine were counts.
    global _calls
    _calls += 1
    if _calls == 10:
        os._exit(3)
    return assemble_chunks(chunks)
