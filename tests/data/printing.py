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

