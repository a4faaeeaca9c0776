"""json-repair, used to "fix" streamed arguments: ``json_repair.loads`` on a text still arriving.

``json-repair`` (partial): ``json_repair.loads(text)``; ``json-repair-stream-stable``:
``json_repair.loads(text, stream_stable=True)``, the mode it offers for
streamed text.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import json_repair

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "loads", "stream_stable"]


def loads(text: str) -> Any:
    """json_repair.loads(text)."""
    return json_repair.loads(text)


def stream_stable(text: str) -> Any:
    """json_repair.loads(text, stream_stable=True)."""
    return json_repair.loads(text, stream_stable=True)


_VERSION = metadata.version("json-repair")
TARGETS = (
    Target(name="json-repair", fn=loads, level="partial", reports=PARTIAL_CLAIMS, dialects=DIALECTS,
           version=_VERSION, summary="json_repair.loads(text)"),
    Target(name="json-repair-stream-stable", fn=stream_stable, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, version=_VERSION, summary="json_repair.loads(text, stream_stable=True)"),
)
