"""The pytest plugin: ``--toolfuzz-findings``, ``--toolfuzz-seed`` and the ``toolfuzz`` fixture.

Registered under the ``pytest11`` entry point, so it is active wherever toolfuzz is installed; it adds
options and a fixture, and changes nothing else about a test session.  toolfuzz itself is imported only
when a test asks for it: importing it builds Hypothesis strategies, which must not happen before
Hypothesis's own plugin has loaded.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("toolfuzz")
    group.addoption("--toolfuzz-findings", metavar="DIR", default=None,
                    help="where toolfuzz.testing.check_assembler writes its fixtures (default .toolfuzz/findings)")
    group.addoption("--toolfuzz-seed", metavar="N", type=int, default=None,
                    help="one seed for every check_assembler call (default: one derived from each test's id)")


def pytest_configure(config: Any) -> None:
    findings, seed = config.getoption("toolfuzz_findings"), config.getoption("toolfuzz_seed")
    if findings is not None or seed is not None:
        from toolfuzz import testing

        testing.settings.update(findings=findings, seed=seed)


def pytest_unconfigure(config: Any) -> None:
    # A session run inside another (pytester) leaves the outer one's settings as they were.
    if config.getoption("toolfuzz_findings") is not None or config.getoption("toolfuzz_seed") is not None:
        from toolfuzz import testing

        testing.settings.update(findings=None, seed=None)


@pytest.fixture
def toolfuzz() -> Callable[..., None]:
    """:func:`toolfuzz.testing.check_assembler`, with this session's ``--toolfuzz-*`` options."""
    from toolfuzz.testing import check_assembler

    return check_assembler
