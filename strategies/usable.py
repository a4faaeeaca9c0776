"""Which tools can generate arguments: draw once from each, report the rest."""

from __future__ import annotations

from typing import Iterable

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import HypothesisException
from jsonschema.exceptions import SchemaError

from toolfuzz.schemas.patterns import UntranslatablePattern, validator as ecma_validator
from toolfuzz.vocabulary import Tool
from toolfuzz.strategies.arguments import Unsupported, tool_arguments

__all__ = ["usable_tools"]

_ONCE = settings(max_examples=1, database=None, derandomize=True, phases=[Phase.generate],
                 deadline=None, suppress_health_check=list(HealthCheck))

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
        # from_schema() only fails when first drawn, so draw: that is the test.
        find(tool_arguments(tool), lambda _: True, settings=_ONCE)
    except Unsupported as e:
        return f"cannot generate arguments: {e}"[:500]
    except HypothesisException as e:
        return f"cannot generate arguments: {type(e).__name__}: {e}".strip()[:300]
    except Exception as e:  # noqa: BLE001 - a bad user schema must never end the run
        return f"cannot generate arguments: {type(e).__name__}: {e}".strip()[:300]
    return None


def usable_tools(tools: Iterable[Tool]) -> tuple[tuple[Tool, ...], tuple[tuple[Tool, str], ...]]:
    """``(usable, skipped)``: tools whose schema draws a value, and the others with the reason."""
    import json

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
