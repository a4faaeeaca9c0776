"""The state folder (``.toolfuzz/`` unless ``--state`` says otherwise): a run's database, its findings unless told
otherwise, its cases in flight and toolfuzz's own crash reports.

It ignores itself in git, as Hypothesis's ``.hypothesis/`` does: a run inside a user's repository leaves
``git status`` as it was, and nothing in it is ever committed by a plain ``git add .``.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT", "IGNORE", "kept"]

DEFAULT = Path(".toolfuzz")
#: The ``.gitignore`` written in it: everything in the folder, itself included.
IGNORE = "# Written by toolfuzz: what it keeps between runs is not for version control.\n*\n"


def kept(folder: str | os.PathLike[str] = DEFAULT) -> Path:
    """``folder``, made if missing, holding its ``.gitignore`` (one already there, whatever it says, is left
    as the user has it)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: two runs starting at once write it once, and neither overwrites what a user put there.
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return folder
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(IGNORE)
    return folder
