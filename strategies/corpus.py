"""The tools cases are drawn for: the bundled corpus, or a user's tool file made usable.

The files under ``strategies/corpus`` are plain ``{"name", "parameters"}``
lists, read with the same loader users' ``--tools`` files go through.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from functools import lru_cache
from importlib import resources
from typing import Callable

from toolfuzz.errors import UsageError
from toolfuzz.schemas.load import ToolFileError, load_tools, parse_tools, tool_files
from toolfuzz.schemas.repair import Rewrite, SchemaRejected, normalise_tools
from toolfuzz.strategies.usable import usable_tools
from toolfuzz.vocabulary import Tool

__all__ = ["bundled_tools", "resolve_tools"]


@lru_cache(maxsize=1)
def bundled_tools() -> tuple[Tool, ...]:
    """Every bundled tool, the simplest (``get_weather``) first so that cases shrink toward it."""
    import json

    folder = resources.files(__package__) / "corpus"
    tools: list[Tool] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".json"):
            tools.extend(parse_tools(json.loads(entry.read_text(encoding="utf-8")), f"corpus/{entry.name}"))
    return tuple(tools)


#: Seconds between the lines that say loading a tool file still goes on.
PROGRESS_EVERY = 10.0


def resolve_tools(path: str | None, say: Callable[[str], None], verbose: bool = False) -> tuple[Tool, ...]:
    """Tools from a file, normalised: each rejected or unusable tool reported on a line of its own, the
    rewrites counted by kind on one line (``verbose``: each on a line of its own), then what was loaded
    (``N tools from M files, K skipped``); a line at least every PROGRESS_EVERY seconds while it goes on."""
    if path is None:
        return bundled_tools()
    notes: list[str] = []
    with _Loading(path, say) as loading:
        try:
            files = tool_files(path)
            loaded = load_tools(path, notes, lambda file: loading.now(f"reading {file}"))
        except ToolFileError as e:
            raise UsageError(str(e)) from None
        tools: list[Tool] = []
        rewrites: list[Rewrite] = []
        rejected: list[SchemaRejected] = []
        for n, tool in enumerate(loaded, 1):
            loading.now(f"normalising tool {n} of {len(loaded)} ({tool.name})")
            kept, notes_of_one, rejected_of_one = normalise_tools([tool])
            tools.extend(kept)
            rewrites.extend(notes_of_one)
            rejected.extend(rejected_of_one)
        usable, skipped = [], []
        for n, tool in enumerate(tools, 1):
            loading.now(f"drawing arguments from tool {n} of {len(tools)} ({tool.name})")
            fit, unfit = usable_tools([tool])
            usable.extend(fit)
            skipped.extend(unfit)
    for note in notes:
        say(f"{path}: {note}")
    if verbose:
        for note in rewrites:
            say(f"{path}: rewrote {note}")
    elif rewrites:
        kinds = Counter(note.note for note in rewrites)
        say(f"{path}: rewrote {len(rewrites)} places in {len({note.tool for note in rewrites})} tools as JSON "
            f"Schema: " + "; ".join(f"{text} ({n})" for text, n in kinds.most_common())
            + " (--verbose lists each)")
    for problem in rejected:
        say(f"{path}: skipped {problem}")
    for tool, reason in skipped:
        say(f"{path}: skipped tool {tool.name!r}: {reason}")
    say(f"{path}: {len(loaded)} tool{'s' * (len(loaded) != 1)} from {len(files)} file{'s' * (len(files) != 1)}, "
        f"{len(rejected) + len(skipped)} skipped")
    if not usable:
        raise UsageError(f"{path}: no tool can generate arguments")
    return tuple(usable)


class _Loading:
    """What loading a tool file is doing, said from a thread of its own every PROGRESS_EVERY seconds it lasts:
    one schema can take long in a step that says nothing itself."""

    def __init__(self, path: str, say: Callable[[str], None]) -> None:
        self.path, self.say = path, say
        self.doing = "starting"
        self.started = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tell, name="toolfuzz-loading", daemon=True)

    def now(self, doing: str) -> None:
        self.doing = doing

    def _tell(self) -> None:
        while not self._done.wait(PROGRESS_EVERY):
            self.say(f"{self.path}: still loading, {time.monotonic() - self.started:.0f} s: {self.doing}")

    def __enter__(self) -> _Loading:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
