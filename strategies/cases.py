"""The end-to-end strategy: tools in, complete cases out, outcome known by construction.

Each dialect draws its cases in a module of its own behind one interface
(:mod:`toolfuzz.strategies.dialects`): the wire dialects, and the producer
level's text formats; this module checks what is asked for and hands it to
the dialect's module.
"""

from __future__ import annotations

from dataclasses import replace
from random import Random
from typing import Any, Collection, Iterable, Mapping

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from toolfuzz.strategies.arguments import tool_arguments
from toolfuzz.strategies.captured import Template, captured_case, template_of
from toolfuzz.strategies.corpus import bundled_tools
from toolfuzz.strategies.dialects import MODULES
from toolfuzz.strategies.dialects.calls import LARGE_ARGUMENTS
from toolfuzz.strategies.dialects.chat import profile_sets
from toolfuzz.strategies.profiles import DIALECT_PROFILES
from toolfuzz.strategies.dialects.text import usable_for
from toolfuzz.strategies.features import sent_by
from toolfuzz.strategies.plans import Drawer, Key
from toolfuzz.strategies.stage import integer, named, stage, within
from toolfuzz.strategies.usable import usable_tools
from toolfuzz.vocabulary import DIALECTS, TEXT_DIALECTS, Case, Tool

__all__ = ["cases", "Planner", "profile_sets", "LARGE_ARGUMENTS", "PLAIN_FEATURES", "PLAIN_WIRE", "PLAIN_TEXT"]

#: The features of the plainest wire case, the one every case shrinks toward: one
#: read, LF framing, the documented shape, a clean [DONE].  A finding's
#: signature leaves them out (tests/strategies/test_cases.py holds this true).
PLAIN_WIRE = frozenset({"done", "lf", "openai", "single-read"})
#: The producer level's: the model's text in one batch (tests/strategies/test_text.py).
PLAIN_TEXT = frozenset({"single-batch"})
#: What a signature leaves out, whatever the level.
PLAIN_FEATURES = PLAIN_WIRE | PLAIN_TEXT


def cases(tools: Iterable[Tool] | None = None, profiles: Collection[str] | None = None,
          dialect: str = "openai-chat", servers: Collection[str] | None = None) -> st.SearchStrategy[Case]:
    """Complete cases: reads, tools and the expected outcome.

    ``tools=None`` uses the bundled corpus; tools that cannot generate are
    skipped (see :func:`usable_tools`).  ``profiles`` restricts the call
    shapes to those names (``None``: all of them), from the dialect's own
    profiles (``toolfuzz.strategies.profiles.DIALECT_PROFILES``).
    ``servers`` restricts every feature, framing and endings too, to what
    those servers are known to send (:func:`toolfuzz.strategies.features.sent_by`).
    """
    bound = _within(servers, dialect)
    module, generators, allowed = _prepare(tools, _narrowed(profiles, bound, dialect), dialect)
    drawn = module.cases(generators, allowed)
    if bound is None:
        return drawn

    @st.composite
    def restricted(draw: Any) -> Case:
        with within(bound):
            return draw(drawn)

    return restricted().filter(lambda case: bound.issuperset(case.features))


class Planner:
    """The same cases as :func:`cases`, drawn from a seed or rendered from a plan: the engine's fast path.

    ``draw(seed)`` draws a case at random (a few microseconds a decision
    instead of Hypothesis's tens) and keeps its plan in ``case.plan``;
    ``render(plan)`` renders a plan, or an edit of one, again
    (:mod:`toolfuzz.strategies.plans`).  With several ``dialects`` (the
    producer level's formats), each case is of one of them, the plan's first
    decision.
    """

    def __init__(self, tools: Iterable[Tool] | None = None, profiles: Collection[str] | None = None,
                 dialect: str = "openai-chat", dialects: Collection[str] = (),
                 servers: Collection[str] | None = None, captured: Iterable[tuple[str, Case]] = ()) -> None:
        self.dialects = tuple(dialects) or (dialect,)
        self.dialect = self.dialects[0]
        tools = None if tools is None else tuple(tools)
        #: With ``servers``: the features each dialect's cases may have, the rest drawn again (see draw).
        self.within = {d: _within(servers, d) for d in self.dialects}
        self._prepared = [_prepare(tools, _narrowed(profiles, self.within[d], d), d) for d in self.dialects]
        #: Real captures (origin, case) a case may be grown from (toolfuzz.strategies.captured), by dialect.
        self.templates: dict[str, list[Template]] = {d: [] for d in self.dialects}
        for origin, case in captured:
            template = template_of(origin, case) if case.dialect in self.templates else None
            if template is not None:
                self.templates[case.dialect].append(template)

    def draw(self, seed: int) -> Case:
        """The case of ``seed``.  Restricted to some servers' shapes, a case with a feature none of them sends
        is drawn again from a seed derived from this one: the framing and endings stages draw every variant,
        and most cases keep within a server's (tests/strategies/test_cases.py counts how many tries it takes)."""
        seeds = Random(seed)
        for _ in range(_MAX_TRIES):
            case = self._run(Drawer(rnd=Random(seed)))
            bound = self.within[case.dialect]
            if bound is None or bound.issuperset(case.features):
                return case
            seed = seeds.getrandbits(63)
        raise InvalidArgument(f"no case within the shapes of the servers asked for in {_MAX_TRIES} tries")

    def render(self, plan: Mapping[Key, Any], redraw: tuple[int, Key] | None = None) -> Case:
        """The case of ``plan``; what it lacks is the simplest draw, or with ``redraw = (seed, stage)``,
        within that stage, drawn from that seed."""
        if redraw is None:
            return self._run(Drawer(given=plan))
        seed, under = redraw
        return self._run(Drawer(given=plan, rnd=Random(seed), under=under))

    def _run(self, drawer: Drawer) -> Case:
        which = _dialect_choice.draw(drawer, len(self._prepared)) if len(self._prepared) > 1 else 0
        templates = self.templates[self.dialects[which]]
        if templates:
            # One case in GROWN_SHARE is grown from a real capture; the plainest draw is a generated one, so a
            # reduction that takes the decision out asks whether the mistake needs the capture at all.
            with named(drawer, "origin"):
                grown = integer(drawer, 0, GROWN_SHARE - 1) == GROWN_SHARE - 1
                template = templates[integer(drawer, 0, len(templates) - 1)] if grown else None
            if template is not None:
                with within(self.within[self.dialects[which]]):
                    case = captured_case.draw(drawer, template)
                return replace(case, plan=drawer.decisions)
        module, generators, allowed = self._prepared[which]
        with within(self.within[self.dialects[which]]):
            case = module.draw_case(drawer, generators, allowed)
        return replace(case, plan=drawer.decisions)


#: With captures given, one case in this many is grown from one of them.
GROWN_SHARE = 4

#: Draws a restricted Planner makes for one case at most before it gives up.
_MAX_TRIES = 1000


def _within(servers: Collection[str] | None, dialect: str) -> frozenset[str] | None:
    if servers is None:
        return None
    try:
        return sent_by(servers, dialect)
    except ValueError as e:
        raise InvalidArgument(str(e)) from None


def _narrowed(profiles: Collection[str] | None, within: frozenset[str] | None, dialect: str) -> Collection[str] | None:
    """``profiles`` (every one of the dialect's, if None) less those ``within`` leaves out."""
    if within is None or dialect not in DIALECT_PROFILES:
        return profiles
    return [p for p in (DIALECT_PROFILES[dialect] if profiles is None else profiles) if p in within]


@stage
def _dialect_choice(draw: Any, n: int) -> int:
    return integer(draw, 0, n - 1)


def _prepare(tools: Iterable[Tool] | None, profiles: Collection[str] | None,
             dialect: str) -> tuple[Any, tuple[tuple[Tool, Any], ...], frozenset[str]]:
    if dialect not in DIALECTS + TEXT_DIALECTS:
        raise InvalidArgument(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS + TEXT_DIALECTS)}")
    if dialect in TEXT_DIALECTS:
        # A model's text has no call-shape profiles: its format is the shape.
        if profiles:
            raise InvalidArgument(f"dialect {dialect} has no call-shape profiles (given: {', '.join(profiles)})")
        allowed: tuple[str, ...] = ()
    else:
        known = DIALECT_PROFILES[dialect]
        allowed = tuple(known) if profiles is None else tuple(profiles)
        unknown = [p for p in allowed if p not in known]
        if unknown or not allowed:
            raise InvalidArgument(f"unknown profile {unknown[0]!r} for dialect {dialect}" if unknown
                                  else "no profiles given")
    usable, skipped = usable_tools(bundled_tools() if tools is None else tools)
    if not usable:
        reasons = "; ".join(f"{t.name}: {why}" for t, why in skipped) or "no tools given"
        raise InvalidArgument(f"no tool can generate arguments ({reasons})")
    generators = tuple((t, tool_arguments(t)) for t in usable)
    module = MODULES[dialect]
    if dialect in TEXT_DIALECTS and not usable_for(module.format, generators):
        raise InvalidArgument(f"dialect {dialect}: no tool has a name the format can write "
                              f"({', '.join(t.name for t in usable)})")
    return module, generators, frozenset(allowed)
