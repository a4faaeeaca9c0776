"""toolfuzz inside a user's own tests: search an assembler, and fail naming the fixtures of what it gets wrong.

::

    from toolfuzz.testing import check_assembler

    def test_my_assembler():
        check_assembler(my_assemble)   # fn(chunks) -> calls, as a --target module:attr takes

:func:`check_assembler` runs the search ``toolfuzz run`` runs, on one
target, ended by a number of examples (never by time, so that it finds the
same on any machine), from a seed derived from the test's pytest node id.
Each root cause it finds is reduced and written as a fixture file, and the
call raises :class:`AssertionError` naming each one with its file; a
correct assembler returns quietly.

It searches in the test's own process, not in a worker as ``toolfuzz run``
does by default: the function under test is the test's object (a closure, a
fixture's, a lambda), which a worker could not import again; what it raises
is the test's to show, with pytest's traceback and debugger; and a segfault
ends the test process as any code a test calls would.  The search itself is
the same, a ``MemoryError`` a ``memory`` root cause; ``toolfuzz run --target
module:function`` runs the same function isolated.

:func:`check_fixture` judges a target on one fixture file the way a run and
``toolfuzz corpus check`` judge it: the module ``toolfuzz export --format
pytest`` writes calls it once per exported case.

The pytest plugin (:mod:`toolfuzz.pytest_plugin`, registered on install)
adds ``--toolfuzz-findings DIR`` (where the fixtures go) and
``--toolfuzz-seed N`` (one seed for every test), and a ``toolfuzz`` fixture
that is this function with those options applied.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterable

from hypothesis.errors import InvalidArgument

from toolfuzz.corpus.findings import FindingWriter
from toolfuzz.corpus.fixtures import FixtureError, load
from toolfuzz.corpus.replay import judged
from toolfuzz.engine.search import search
from toolfuzz.targets.specs import plain_target, qualified_name
from toolfuzz.errors import UsageError
from toolfuzz.severity import Severity
from toolfuzz.state import DEFAULT, kept
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import LEVELS, Target
from toolfuzz.vocabulary import DIALECTS, Tool

__all__ = ["check_assembler", "Check", "check_fixture", "Diverges", "seed_for", "DEFAULT_FINDINGS", "settings"]

#: Where fixtures go when neither the call nor ``--toolfuzz-findings`` says: out of any tracked folder.
DEFAULT_FINDINGS = DEFAULT / "findings"
#: What the pytest plugin sets from its options: ``findings`` (a folder) and ``seed`` (an int or None).
settings: dict[str, Any] = {"findings": None, "seed": None}


def seed_for(node_id: str) -> int:
    """The seed of a test: the same for the same test id, whatever the machine or the run."""
    return int.from_bytes(hashlib.sha256(node_id.encode("utf-8")).digest()[:4], "big")


def _current_test() -> str:
    # pytest sets it to "path::name (call)" while a test runs.
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]


class Diverges(AssertionError):
    """What :func:`check_fixture` raises: an AssertionError that names, and holds, the divergences."""

    def __init__(self, message: str, divergences: tuple[Any, ...]) -> None:
        super().__init__(message)
        #: The divergences, as the harness's comparison gives them (toolfuzz.judge.compare.Divergence).
        self.divergences = divergences


def _as_target(fn: Callable[..., Any] | Target, level: str) -> Target:
    if level not in LEVELS:
        raise UsageError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if isinstance(fn, Target):
        return fn
    if not callable(fn):
        raise UsageError(f"toolfuzz takes an assembler function or a Target, not a {type(fn).__name__}")
    # The name `--target module:attr` gives it, so that a run, a replay and an export of its findings agree.
    return plain_target(fn, qualified_name(fn), level)


def check_fixture(fn: Callable[..., Any] | Target, path: str | os.PathLike[str], *, level: str = "events",
                  timeout: float = 5.0) -> None:
    """Judge ``fn`` on the fixture at ``path`` as a run would; raise AssertionError naming each divergence.

    The case is fed as it is to any target of ``level`` (the fixture's events, or its network reads) and
    compared with the outcome it was built with, by the one comparison the harness has.
    """
    __tracebackhide__ = True
    target = _as_target(fn, level)
    try:
        case = load(path).case
    except FixtureError as e:
        raise UsageError(str(e)) from None
    found, _ = judged(case, target, timeout)
    if found:
        raise Diverges("\n".join([f"toolfuzz: {target.name} diverges on {path}:",
                                  *(f"  {d.kind}: {d.detail}" for d in found),
                                  f"  (toolfuzz show {shlex.quote(str(path))} shows the stream)"]), tuple(found))


@dataclass(frozen=True)
class Check:
    """What :func:`check_assembler` searches, and what fails it.

    ``level``: what a plain function takes (parsed chunks at ``events``, the network reads at ``bytes`` and
    ``sse``); ``profiles`` restricts the call shapes (default: every one of ``dialect``), ``servers`` every
    shape, framing and ending to what those servers are known to send (``toolfuzz profiles --servers``),
    ``tools`` the schemas (default: the bundled corpus).  ``max_examples`` ends the search, never time.
    Every root cause is written under ``findings`` (default: the plugin's ``--toolfuzz-findings``, else
    ``.toolfuzz/findings``); the call fails on those of severity ``fail_on`` or graver (docs/severity.md).
    ``seed`` defaults to the plugin's ``--toolfuzz-seed``, else one derived from the running test's id.
    """

    level: str = "events"
    dialect: str = "openai-chat"
    profiles: Collection[str] | None = None
    tools: Iterable[Tool] | None = None
    max_examples: int = 200
    findings: str | os.PathLike[str] | None = None
    seed: int | None = None
    timeout: float = 5.0
    servers: Collection[str] | None = None
    fail_on: Severity | str = Severity.BUG


def check_assembler(fn: Callable[..., Any] | Target, **options: Any) -> None:
    """Search ``fn`` for ``max_examples`` cases; raise AssertionError naming what it gets wrong.

    ``fn`` takes what a ``--target`` of the check's level takes and returns the calls (docs/contract.md); a
    :class:`Target` is taken as it is.  ``options`` are :class:`Check`'s fields (a misspelt one is a
    TypeError naming it).
    """
    __tracebackhide__ = True  # pytest shows the caller's line and this message, not toolfuzz's insides
    check = Check(**options)
    target = _as_target(fn, check.level)
    if check.dialect not in DIALECTS:
        raise UsageError(f"dialect must be one of {', '.join(DIALECTS)}, not {check.dialect!r}")
    test = _current_test()
    seed = check.seed
    if seed is None:
        seed = settings["seed"] if settings["seed"] is not None else seed_for(test or target.name)
    root = Path(check.findings if check.findings is not None else settings["findings"] or DEFAULT_FINDINGS)
    if root == DEFAULT_FINDINGS:
        kept(DEFAULT)
    try:
        fail_on = check.fail_on
        floor = fail_on if isinstance(fail_on, Severity) else Severity.parse(fail_on)
        planner = Planner(tools=check.tools, profiles=list(check.profiles) if check.profiles is not None else None,
                          dialect=check.dialect, servers=None if check.servers is None else list(check.servers))
    except (InvalidArgument, ValueError) as e:  # an unknown profile, dialect, server or severity: one line
        raise UsageError(str(e)) from None
    writer = FindingWriter(root)
    # Ended by examples, never by time: a budget far past what the examples take.
    _, stats = search([target], planner, max_examples=check.max_examples, budget=10 * 24 * 3600, seed=seed,
                      timeout=check.timeout, emit=writer, plain=PLAIN_FEATURES)
    failing = [(f, path) for f, path, _ in writer.saved if f.grade.severity.at_least(floor)]
    if not failing:
        return
    lines = [f"toolfuzz: {target.name} diverges in {len(failing)} root cause{'s' * (len(failing) != 1)} of "
             f"severity {floor.value} or graver ({stats.examples} examples, seed {seed}):"]
    for finding, path in failing:
        lines.append(f"  {finding.grade.severity.value}: {finding.signature}: {finding.divergence.detail}")
        lines.append(f"    -> {path}   (toolfuzz show {shlex.quote(str(path))})")
    raise AssertionError("\n".join(lines))
