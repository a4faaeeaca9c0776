"""One hash seed for toolfuzz's processes (toolfuzz.hash_seed): the command runs itself again under it."""

from __future__ import annotations

import os
import subprocess
import sys

from toolfuzz import __version__
from toolfuzz.hash_seed import HASH_SEED, pinned

#: A command line that says the seed it runs under and what a string hashes to, then runs ``toolfuzz --version``.
SAYS = ("import os, sys; print(os.environ.get('PYTHONHASHSEED'), hash('toolfuzz'), flush=True); "
        "sys.argv = ['toolfuzz', '--version']; from toolfuzz.cli import main; sys.exit(main())")


def said(**environ: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"} | environ
    done = subprocess.run([sys.executable, "-c", SAYS], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.endswith(f"toolfuzz {__version__}\n"), done.stdout + done.stderr
    return done.stdout.splitlines()[:-1]


def test_the_environment_gets_the_seed_only_where_none_was_chosen():
    assert pinned({"HOME": "/h"}) == {"HOME": "/h", "PYTHONHASHSEED": HASH_SEED}
    assert pinned({"PYTHONHASHSEED": "random"}) is None


def test_the_command_runs_again_under_the_seed_and_hashes_alike_each_time():
    first, again = said(), said()
    # The first process saw no seed; the one that ran the command, toolfuzz's.
    assert [line.split()[0] for line in first] == ["None", HASH_SEED]
    assert first[1] == again[1]


def test_a_seed_the_user_chose_is_kept_and_the_command_runs_once():
    (line,) = said(PYTHONHASHSEED="5")
    assert line.split()[0] == "5"
