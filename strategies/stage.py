"""One definition, two uses: a public strategy, and a drawing function for the pipeline.

``cases()`` draws every stage inside one composite.  Building a fresh
strategy object per draw costs Hypothesis a validation pass each time,
which was most of the generation time; ``f.draw(draw, ...)`` skips that.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from hypothesis import strategies as st

__all__ = ["stage", "pick", "integer", "boolean"]


def stage(fn: Callable[..., Any]) -> Any:
    @functools.wraps(fn)
    def factory(*args: Any, **kwargs: Any) -> st.SearchStrategy[Any]:
        return st.composite(lambda draw: fn(draw, *args, **kwargs))()

    factory.draw = fn  # type: ignore[attr-defined]
    return factory


_INTEGERS: dict[tuple[Any, Any], st.SearchStrategy[int]] = {}


def _ready(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # st.integers() hands back a lazy wrapper that is unwrapped and checked on
    # every draw; keeping the validated inner strategy saves that each time.
    strategy.validate()
    return getattr(strategy, "wrapped_strategy", strategy)


_BOOLEANS = _ready(st.booleans())


def integer(draw: Any, lo: int | None, hi: int | None) -> int:
    """``draw(st.integers(lo, hi))``, without building the strategy again each time."""
    s = _INTEGERS.get((lo, hi))
    if s is None:
        s = _ready(st.integers(lo, hi))
        if len(_INTEGERS) < 10_000:
            _INTEGERS[(lo, hi)] = s
    return draw(s)


def boolean(draw: Any) -> bool:
    return draw(_BOOLEANS)


def pick(draw: Any, items: Any) -> Any:
    """One of ``items``, shrinking toward the first: an index is cheaper to draw than a sampled_from."""
    items = items if isinstance(items, (list, tuple)) else list(items)
    return items[integer(draw, 0, len(items) - 1)] if len(items) > 1 else items[0]
