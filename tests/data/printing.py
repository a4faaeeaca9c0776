"""A target that writes to stdout and stderr in every way a library can, then loses every call.

Loaded by path (``tests/data/printing.py:assemble``); never imported by the suite itself.
"""

import os
import sys


def assemble(chunks):
    print("printed by the target")
    os.write(1, b"written to descriptor 1\n")
    print("printed to stderr", file=sys.stderr)
    os.write(2, b"written to descriptor 2\n")
    return []


def later(chunks):
    """Writes to descriptor 1 from a thread of its own, after the call has answered."""
    import threading

    threading.Timer(0.2, lambda: os.write(1, b"from a thread, after the call\n")).start()
    return assemble(chunks)
