"""The bundled tool corpus: schemas this project wrote to cover what real tools use.

The files under ``strategies/corpus`` are plain ``{"name", "parameters"}``
lists, read with the same loader users' ``--tools`` files go through.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from harness.model import Tool
from harness.toolfile import parse_tools

__all__ = ["bundled_tools"]


@lru_cache(maxsize=1)
def bundled_tools() -> tuple[Tool, ...]:
    """Every bundled tool, the simplest (``get_weather``) first so that cases shrink toward it."""
    import json

    folder = resources.files("strategies") / "corpus"
    tools: list[Tool] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".json"):
            tools.extend(parse_tools(json.loads(entry.read_text(encoding="utf-8")), f"corpus/{entry.name}"))
    return tuple(tools)
