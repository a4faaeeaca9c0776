"""partial-json-parser, which vLLM's and lmdeploy's tool parsers read a call's growing arguments with.

``partial-json-parser`` (partial): ``partial_json_parser.loads(text, Allow.ALL)``.
``partial-json-parser-no-str``: ``Allow.ALL & ~Allow.STR``, the flags vLLM's
tool parsers pass until a call's name has been sent, so that no string is
shown while it is still arriving.

Both are driven as their users drive them, and both ask for partial numbers:
the library's README says ``Allow`` "determines what types can be partial",
``Allow.NUM`` is "Allow partial number", ``Allow.ALL`` holds it, and
``loads`` takes ``Allow.ALL`` when given no flags.  Showing ``1`` while
``10`` arrives is what it was asked for, so both declare the
``partial-numbers`` relaxation and the judge does not flag it; every other
rule holds (a lone UTF-16 half in a string is asked for by no flag).
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import partial_json_parser
from partial_json_parser import Allow

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target

__all__ = ["TARGETS", "allow_all", "no_partial_strings"]


def allow_all(text: str) -> Any:
    """partial_json_parser.loads(text, Allow.ALL)."""
    return partial_json_parser.loads(text, Allow.ALL)


def no_partial_strings(text: str) -> Any:
    """partial_json_parser.loads(text, Allow.ALL & ~Allow.STR)."""
    return partial_json_parser.loads(text, Allow.ALL & ~Allow.STR)


_VERSION = metadata.version("partial-json-parser")
#: Allow.NUM, which both sets of flags hold.
_ASKED = frozenset({"partial-numbers"})
TARGETS = (
    Target(name="partial-json-parser", fn=allow_all, level="partial", reports=PARTIAL_CLAIMS, dialects=DIALECTS,
           version=_VERSION, summary="partial_json_parser.loads(text, Allow.ALL)", relaxations=_ASKED),
    Target(name="partial-json-parser-no-str", fn=no_partial_strings, level="partial", reports=PARTIAL_CLAIMS,
           dialects=DIALECTS, version=_VERSION, relaxations=_ASKED,
           summary="partial_json_parser.loads(text, Allow.ALL & ~Allow.STR), as vLLM's tool parsers call it"),
)
