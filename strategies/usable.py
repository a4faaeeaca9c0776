"""Which tools can generate arguments: draw from each as a run draws, report the rest with a reason that is true."""

from __future__ import annotations

import json
from random import Random
from typing import Iterable

from hypothesis.errors import HypothesisException, InvalidArgument
from jsonschema.exceptions import SchemaError

from toolfuzz.schemas.patterns import UntranslatablePattern, validator as ecma_validator
from toolfuzz.strategies.arguments import Unsupported, tool_arguments
from toolfuzz.strategies.plans import Drawer
from toolfuzz.vocabulary import Tool

__all__ = ["usable_tools"]

#: Random draws after the simplest one: each a value a run could meet, from a seed of its own.
_RANDOM_DRAWS = 2

_verdicts: dict[tuple[str, str], str | None] = {}


def _problem(tool: Tool) -> str | None:
    try:
        ecma_validator(tool.parameters, check=True)
    except SchemaError as e:
        where = "/".join(str(p) for p in e.path) or "(root)"
        return f"invalid schema at {where}: {e.message}"
    except UntranslatablePattern as e:
        return f"cannot read a pattern as ECMA-262 does: {e}"[:500]
    try:
        arguments = tool_arguments(tool)
        # Drawn the way a run draws (toolfuzz.strategies.plans.Drawer): the simplest value, then at random.  Not
        # through Hypothesis's own engine, whose bound on a test case's size refuses the draws of a schema with
        # tens of thousands of properties, and which calls that "unsatisfiable".
        Drawer(given={})(arguments)
        for seed in range(_RANDOM_DRAWS):
            Drawer(rnd=Random(seed))(arguments)
    except (Unsupported, InvalidArgument) as e:  # what the schema asks is outside the subset, or contradicts itself
        return f"cannot generate arguments: {e}"[:500]
    except HypothesisException as e:
        # Hypothesis gives up after so many tries; that proves nothing about the schema.
        return (f"cannot generate arguments: no value drawn in Hypothesis's tries was valid, which does not prove "
                f"that none is (Hypothesis: {e})").strip()[:500]
    except Exception as e:  # noqa: BLE001 - a bad user schema must never end the run
        return f"cannot generate arguments: {type(e).__name__}: {e}".strip()[:300]
    return None


def usable_tools(tools: Iterable[Tool]) -> tuple[tuple[Tool, ...], tuple[tuple[Tool, str], ...]]:
    """``(usable, skipped)``: tools whose schema draws a value, and the others with the reason."""
    usable, skipped = [], []
    for tool in tools:
        key = (tool.name, json.dumps(tool.parameters, sort_keys=True, default=str))
        if key not in _verdicts:
            _verdicts[key] = _problem(tool)
        reason = _verdicts[key]
        if reason is None:
            usable.append(tool)
        else:
            skipped.append((tool, reason))
    return tuple(usable), tuple(skipped)
