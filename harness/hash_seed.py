"""The hash seed toolfuzz runs Python under, unless the user chose one (``PYTHONHASHSEED``).

A set of strings iterates in an order the process's hash seed decides, and Python draws a new seed for every
process. A library that streams a set's members in that order (sglang's MiniMax M2 detector sends the
parameters new in a batch so) behaves one way under one seed and another way under the next: a run would
then not be reproducible from its ``--seed``, and a replay or a repro script would pass or fail by chance.
So the ``toolfuzz`` command, the programs it serves targets from, and the repro scripts it writes each run
under this one seed, and a user who sets ``PYTHONHASHSEED`` (``random`` too) keeps theirs.
"""

from __future__ import annotations

import os
from typing import Mapping

__all__ = ["HASH_SEED", "VARIABLE", "pinned"]

VARIABLE = "PYTHONHASHSEED"
HASH_SEED = "0"


def pinned(environ: Mapping[str, str] = os.environ) -> dict[str, str] | None:
    """``environ`` with the hash seed set, or None when it already names one."""
    if VARIABLE in environ:
        return None
    return {**environ, VARIABLE: HASH_SEED}
