"""pydantic-core's ``from_json`` with ``allow_partial``, the parser pydantic models validate streamed JSON with.

``pydantic-core-partial`` (partial): ``pydantic_core.from_json(text, allow_partial=True)``;
``pydantic-core-trailing-strings``: ``allow_partial="trailing-strings"``.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pydantic_core

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "partial", "trailing_strings"]


def partial(text: str) -> Any:
    """pydantic_core.from_json(text, allow_partial=True)."""
    return pydantic_core.from_json(text, allow_partial=True)


def trailing_strings(text: str) -> Any:
    """pydantic_core.from_json(text, allow_partial="trailing-strings")."""
    return pydantic_core.from_json(text, allow_partial="trailing-strings")


_VERSION = metadata.version("pydantic-core")
TARGETS = (
    Target(name="pydantic-core-partial", fn=partial, level="partial", reports=PARTIAL_CLAIMS, dialects=DIALECTS,
           version=_VERSION, summary="pydantic_core.from_json(text, allow_partial=True)"),
    Target(name="pydantic-core-trailing-strings", fn=trailing_strings, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, version=_VERSION,
           summary='pydantic_core.from_json(text, allow_partial="trailing-strings")'),
)
