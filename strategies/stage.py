"""The one drawing interface of the pipeline: Hypothesis's ``draw`` or a plan's :class:`Drawer`.

Every stage draws through :func:`integer`, :func:`boolean`, :func:`pick`,
:func:`text`, :func:`floating` and :func:`opaque`.  Given Hypothesis's
``draw`` they are Hypothesis draws (the public strategies, shrunk by
Hypothesis); given a :class:`~toolfuzz.strategies.plans.Drawer` they are
named decisions of a plan (the engine's fast path, reduced on the plan).
Both shrink toward the same place: the lowest integer, ``False``, the first
item, the shortest text.

:func:`stage` makes a drawing function both a public strategy and a stage:
``f(...)`` is a strategy, ``f.draw(draw, ...)`` draws inside another stage
without building a strategy (which costs Hypothesis a validation pass each
time), and under a Drawer the stage's draws are named within it.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

from hypothesis import strategies as st

from toolfuzz.strategies.plans import Drawer

__all__ = ["stage", "pick", "integer", "boolean", "text", "floating", "opaque", "named", "Drawer", "allows", "within"]

#: The features the case being drawn may have (None: every one), while a run draws only what some servers
#: send (``Planner(servers=...)``).  A stage that would add a feature outside them draws its decision all
#: the same, so that a plan keeps its shape, and takes the plain way instead.
_WITHIN: ContextVar[frozenset[str] | None] = ContextVar("toolfuzz_within", default=None)


def allows(feature: str) -> bool:
    """Whether the case being drawn may have ``feature``."""
    within = _WITHIN.get()
    return within is None or feature in within


@contextmanager
def within(features: frozenset[str] | None) -> Iterator[None]:
    """Cases drawn inside have no feature outside ``features`` that a stage can leave out (None: no bound)."""
    token = _WITHIN.set(features)
    try:
        yield
    finally:
        _WITHIN.reset(token)


def stage(fn: Callable[..., Any]) -> Any:
    name = fn.__name__.lstrip("_")

    def drawn(draw: Any, *args: Any, **kwargs: Any) -> Any:
        if type(draw) is Drawer:
            draw.enter(name)
            try:
                return fn(draw, *args, **kwargs)
            finally:
                draw.leave()
        return fn(draw, *args, **kwargs)

    @functools.wraps(fn)
    def factory(*args: Any, **kwargs: Any) -> st.SearchStrategy[Any]:
        strategy = st.composite(lambda draw: fn(draw, *args, **kwargs))()
        strategy.toolfuzz_stage = (drawn, args, kwargs)  # how a Drawer draws it (plans.Drawer.__call__)
        return strategy

    factory.draw = drawn  # type: ignore[attr-defined]
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
    if type(draw) is Drawer:
        return draw.integer(lo, hi)
    s = _INTEGERS.get((lo, hi))
    if s is None:
        s = _ready(st.integers(lo, hi))
        if len(_INTEGERS) < 10_000:
            _INTEGERS[(lo, hi)] = s
    return draw(s)


def boolean(draw: Any) -> bool:
    if type(draw) is Drawer:
        return draw.boolean()
    return draw(_BOOLEANS)


def pick(draw: Any, items: Any) -> Any:
    """One of ``items``, shrinking toward the first: an index is cheaper to draw than a sampled_from."""
    items = items if isinstance(items, (list, tuple)) else list(items)
    return items[integer(draw, 0, len(items) - 1)] if len(items) > 1 else items[0]


_TEXTS: dict[tuple[Any, ...], st.SearchStrategy[str]] = {}


def text(draw: Any, alphabet: str | None, min_size: int, max_size: int, extra: tuple[str, ...] = ()) -> str:
    """A string from ``alphabet``, or (``None``) from ``extra`` and any code point but a surrogate."""
    if type(draw) is Drawer:
        return draw.text(alphabet, min_size, max_size, extra)
    key = (alphabet, min_size, max_size, extra)
    s = _TEXTS.get(key)
    if s is None:
        if alphabet:
            s = _ready(st.text(alphabet=alphabet, min_size=min_size, max_size=max_size))
        else:
            # A list of characters, not st.text: st.text merges a one_of alphabet into one character set,
            # and the few characters of ``extra`` would come up as rarely as any other.
            char = st.one_of(*([st.sampled_from(extra)] if extra else []), st.characters(exclude_categories=("Cs",)))
            s = _ready(st.lists(char, min_size=min_size, max_size=max_size).map("".join))
        _TEXTS[key] = s
    return draw(s)


_FLOATS: dict[tuple[Any, Any], st.SearchStrategy[float]] = {}


def floating(draw: Any, lo: float | None, hi: float | None) -> float:
    """A finite float in ``[lo, hi]`` (either bound may be None)."""
    if type(draw) is Drawer:
        return draw.floating(lo, hi)
    s = _FLOATS.get((lo, hi))
    if s is None:
        s = _ready(st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False))
        if len(_FLOATS) < 10_000:
            _FLOATS[(lo, hi)] = s
    return draw(s)


def opaque(draw: Any, strategy: st.SearchStrategy[Any]) -> Any:
    """A value of a strategy the pipeline does not draw itself (a regex, a format, hypothesis-jsonschema)."""
    if type(draw) is Drawer:
        return draw.opaque(strategy)
    return draw(strategy)


@contextmanager
def named(draw: Any, name: str) -> Iterator[None]:
    """Under a Drawer, the draws in the block are named within ``name`` (a choice, a call); else nothing."""
    if type(draw) is Drawer:
        draw.enter(name)
        try:
            yield
        finally:
            draw.leave()
    else:
        yield
