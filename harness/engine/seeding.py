"""What a seed depends on: the seed and the strategies, not the source code that happens to be loaded.

Hypothesis (since 6.131) mixes into its draws the literals of every *local*
module loaded at the time: any module outside site-packages, the standard
library and test folders, which includes toolfuzz run from a checkout and the
user's target file.  Their short strings and numbers become values that a
draw may pick.  That is good for finding bugs in the code under test, but it ties
``toolfuzz run --seed S`` to the exact text of those files: correcting a
message in a target, or importing one more module, gives the same seed
another run.  A user who reruns a night's seed after a fix, or a test that
knows what a seed finds, then sees a different search.

toolfuzz's strategies already aim at the hard places of the wire, so
:func:`seeded_by_strategies_only` turns that source of draws off while
toolfuzz drives Hypothesis, and restores it after, for any ``@given`` tests
of the caller.  The hook is private to Hypothesis: where it is missing
nothing is changed, and ``tests/engine/test_seeding.py`` fails when
the pinned Hypothesis no longer takes it.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

__all__ = ["seeded_by_strategies_only"]


@contextmanager
def seeded_by_strategies_only() -> Iterator[None]:
    """Within the block, Hypothesis draws no literals from loaded local modules."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # a Hypothesis without local constants: nothing to turn off
        providers = None
    found = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if found is None or cache is None:
        yield
        return
    none = Constants()
    # The cache holds the constants each kind of draw may pick, local ones included: emptied on the
    # way in so that none drawn before reach this run, and on the way out so that none of ours stay.
    cache.cache.clear()
    providers._get_local_constants = lambda: none
    try:
        yield
    finally:
        providers._get_local_constants = found
        cache.cache.clear()
