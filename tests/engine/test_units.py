"""engine/units.py: the planner of a unit of work, built once a process for the bundled tools."""

from __future__ import annotations

import importlib

import pytest

from toolfuzz.engine import units
from toolfuzz.engine.units import cases_for
from toolfuzz.engine.worker import PRELOAD
from toolfuzz.errors import UsageError


def test_the_bundled_tools_planner_is_built_once_a_process_and_the_fork_server_builds_the_default_one():
    assert cases_for(None, None, None) is cases_for(None, None, "openai-chat")
    assert cases_for(None, ("openai",), None) is not cases_for(None, None, None)
    # Each worker, and each restart of one, forks from the fork server with the default planner built.
    assert "toolfuzz.engine.warm" in PRELOAD
    units._bundled.cache_clear()
    importlib.reload(importlib.import_module("toolfuzz.engine.warm"))
    before = units._bundled.cache_info()
    cases_for(None, None, None)
    assert units._bundled.cache_info().hits == before.hits + 1


def test_a_profile_the_dialect_lacks_is_a_usage_error_every_time():
    for _ in range(2):
        with pytest.raises(UsageError, match="unknown profile"):
            cases_for(None, ("no-such-profile",), None)
