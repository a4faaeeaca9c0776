"""The execution boundary: which calls a caller may hand to its own tool runner.

Assembly decides what the stream said; it authorises nothing.  A call
crosses this gate only if its status is ``complete`` and the caller's own
authorisation hook says yes to it.  A right name or valid arguments
authorise nothing by themselves, and there is no default hook: a caller who
wants everything through must say so in code.  toolfuzz never runs a tool.
"""

from __future__ import annotations

from typing import Callable

from toolfuzz.vocabulary import EXECUTABLE, Call, Outcome

__all__ = ["releasable"]


def releasable(outcome: Outcome, authorise: Callable[[Call], bool]) -> list[Call]:
    """The calls of ``outcome`` that are complete and that ``authorise`` accepts.

    ``authorise`` is asked only about complete calls; an incomplete or invalid
    call never reaches it.  Only ``True`` itself authorises: a truthy string
    from a careless hook does not.
    """
    if not callable(authorise):
        raise TypeError("authorise must be a callable that decides each complete call")
    return [c for c in outcome.calls if c.status == EXECUTABLE and authorise(c) is True]
