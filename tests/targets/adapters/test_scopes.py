"""targets/adapters/scopes.py: one scope for every built-in adapter target, each from its library's promise."""

from __future__ import annotations

from toolfuzz.targets import adapters
from toolfuzz.targets.adapters.scopes import SCOPES, scope_for
from toolfuzz.targets.base import ANY_SCOPE

PRODUCERS = {name for a in adapters.KNOWN if a.level == "producer" for name in a.names}


def test_every_built_in_adapter_target_but_the_serving_engines_parsers_has_a_scope_with_its_source():
    named = {name for a in adapters.KNOWN for name in a.names} - PRODUCERS
    assert named - set(SCOPES) == set()
    assert all(scope.cite and scope.surface for scope in SCOPES.values())


def test_each_installed_target_carries_the_scope_of_the_table():
    for target in adapters.installed():
        assert target.scope == SCOPES.get(target.name, ANY_SCOPE), target.name


def test_a_target_served_from_an_environment_has_its_built_in_scope_and_others_the_open_one():
    assert scope_for("pydantic-ai-openai@old") == SCOPES["pydantic-ai-openai"]
    assert scope_for("mymodule:assemble") == ANY_SCOPE


def test_the_libraries_that_never_ask_for_a_second_choice_say_so():
    for name in ("pydantic-ai-parts", "pydantic-ai-openai", "langchain-openai", "langchain-core", "openai-agents",
                 "smolagents-agglomerate", "haystack", "llama-index"):
        assert SCOPES[name].admits(["multi-choice"]) is not None, name
    assert SCOPES["openai-stream-state"].admits(["multi-choice"]) is None
