"""jiter, the Rust JSON parser under the openai and anthropic SDKs' streaming helpers, in partial mode.

``jiter-partial`` (partial): ``jiter.from_json(text.encode(), partial_mode="on")``,
which leaves out a string still arriving; ``jiter-trailing-strings``:
``partial_mode="trailing-strings"``, which shows it, as the SDKs do for the
arguments of a tool call being streamed.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import jiter

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "partial_on", "trailing_strings"]


def partial_on(text: str) -> Any:
    """jiter.from_json(text.encode(), partial_mode="on")."""
    return jiter.from_json(text.encode("utf-8", "surrogatepass"), partial_mode="on")


def trailing_strings(text: str) -> Any:
    """jiter.from_json(text.encode(), partial_mode="trailing-strings")."""
    return jiter.from_json(text.encode("utf-8", "surrogatepass"), partial_mode="trailing-strings")


_VERSION = metadata.version("jiter")
TARGETS = (
    Target(name="jiter-partial", fn=partial_on, level="partial", reports=PARTIAL_CLAIMS, dialects=DIALECTS,
           version=_VERSION, summary='jiter.from_json(text, partial_mode="on")'),
    Target(name="jiter-trailing-strings", fn=trailing_strings, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, version=_VERSION, summary='jiter.from_json(text, partial_mode="trailing-strings")'),
)
