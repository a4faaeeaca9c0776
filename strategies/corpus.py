"""The tools cases are drawn for: the bundled corpus, or a user's tool file made usable.

The files under ``strategies/corpus`` are plain ``{"name", "parameters"}``
lists, read with the same loader users' ``--tools`` files go through.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from importlib import resources
from typing import Callable

from toolfuzz.errors import UsageError
from toolfuzz.schemas.load import ToolFileError, load_tools, parse_tools
from toolfuzz.schemas.repair import normalise_tools
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


def resolve_tools(path: str | None, say: Callable[[str], None], verbose: bool = False) -> tuple[Tool, ...]:
    """Tools from a file, normalised: each rejected or unusable tool reported on a line of its own, the
    rewrites counted by kind on one line (``verbose``: each on a line of its own)."""
    if path is None:
        return bundled_tools()
    notes: list[str] = []
    try:
        loaded = load_tools(path, notes)
    except ToolFileError as e:
        raise UsageError(str(e)) from None
    for note in notes:
        say(f"{path}: {note}")
    tools, rewrites, rejected = normalise_tools(loaded)
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
    usable, skipped = usable_tools(tools)
    for tool, reason in skipped:
        say(f"{path}: skipped tool {tool.name!r}: {reason}")
    if not usable:
        raise UsageError(f"{path}: no tool can generate arguments")
    return usable
