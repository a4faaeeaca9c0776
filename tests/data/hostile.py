"""Targets that attack the process running them, one way each, for the supervisor's tests.

Loaded by path (``tests/data/hostile.py:segv``); never imported by the suite itself.
"""

import os
import signal
import socket


def segv(chunks):
    os.write(2, b"about to segfault\n")  # what the finding of the death shows
    os.kill(os.getpid(), signal.SIGSEGV)


def hang(chunks):
    # Deaf to the per-case time limit: SIGALRM stays pending, as it would in a C loop.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass


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
