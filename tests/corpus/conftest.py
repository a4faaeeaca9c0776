"""What the bisection and verification tests share."""

from __future__ import annotations

import pytest

from toolfuzz.errors import UsageError
from toolfuzz.targets import environments


@pytest.fixture
def environments_asked(monkeypatch) -> list[tuple[str, list[str]]]:
    """Every ``(name, requirements)`` an environment is asked for; none is made (each ask fails as an install
    that did not work would)."""
    asked: list[tuple[str, list[str]]] = []

    def ensure(name, requirements, say):
        asked.append((name, requirements))
        raise UsageError("not made in this test")

    monkeypatch.setattr(environments, "ensure", ensure)
    return asked
