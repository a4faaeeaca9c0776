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


def test_what_a_library_documents_it_does_on_a_shape_is_in_its_scope_with_where_it_says_so():
    documented = {
        ("haystack", "call_lost", "invalid-json"), ("vllm-pythonic", "call_lost", "content-before"),
        ("sseclient-py", "phantom_event", "unterminated-event"), ("sseclient-py", "raised", "disconnect"),
        ("openai-stream-state", "raised", "length"),
        ("langchain-core", "arguments_misattributed", "index-missing"), ("langchain-core", "name_differs",
                                                                          "name-every-fragment"),
        ("sglang-qwen3-coder", "arguments_differ", "lookalike-strings"),
        ("smolagents-agglomerate", "incomplete_handed_on", "length"), ("smolagents-agglomerate", "raised",
                                                                         "index-missing"),
        ("openai-agents", "incomplete_handed_on", "length"), ("litellm-builder", "incomplete_handed_on", "disconnect"),
        ("haystack", "incomplete_handed_on", "length"), ("openai-agents", "incomplete_handed_on", "disconnect"),
        ("llama-index", "arguments_differ", "invalid-json"), ("pydantic-ai-parts", "name_differs",
                                                              "name-every-fragment"),
    }
    for name, kind, feature in documented:
        assert scope_for(name).limit_for(kind, [feature]).cite, (name, kind, feature)
    # What the same libraries never said: a decoder's lost BOM, an SDK's raise on an Azure chunk.
    assert scope_for("sseclient-py").limit_for("event_lost", ["bom"]) is None
    assert scope_for("sseclient-py").limit_for("raised", ["bom"]) is None
    assert scope_for("openai-stream-state").limit_for("raised", ["content-filter-chunk"]) is None
    assert scope_for("smolagents-agglomerate").limit_for("raised", ["content-filter-chunk"]) is None
    assert scope_for("openai-agents").limit_for("raised", ["disconnect"]) is None


def test_libraries_whose_types_say_an_id_is_a_string_leave_out_integer_ids():
    for name in ("litellm-builder", "openai-agents", "langchain-core", "openai-stream-state"):
        assert SCOPES[name].admits(["integer-id"]) is not None, name
