"""Target: wrapping every function a target runs, its dialects' own included."""

from __future__ import annotations

from toolfuzz.targets.base import Target


def test_wrapped_reaches_fn_and_every_dialects_function():
    def plain(arg):
        return "plain"

    def anthropic(arg):
        return "anthropic"

    target = Target("t", plain, dialects=("openai-chat", "anthropic"), extra={"by_dialect": {"anthropic": anthropic},
                                                                             "other": 1})
    seen = []

    def wrap(fn):
        def call(arg):
            seen.append(fn.__name__)
            return fn(arg)
        return call

    wrapped = target.wrapped(wrap)
    assert wrapped.fn_for("openai-chat")(None) == "plain" and wrapped.fn_for("anthropic")(None) == "anthropic"
    assert seen == ["plain", "anthropic"]
    assert wrapped.extra["other"] == 1 and target.fn_for("anthropic") is anthropic  # the original is untouched


def test_a_scope_admits_the_cases_a_library_can_be_asked_for_and_says_why_not_the_others():
    from toolfuzz.targets.base import Scope

    one = Scope(choices=1, integer_ids=False)
    assert one.admits(["multi-call", "index-missing"]) is None
    assert one.admits(["multi-choice"]) == "more choices than the 1 it can ask for"
    assert one.admits(["integer-id"]) == "integer ids, which its types do not admit"
    assert Scope().admits(["multi-choice", "integer-id"]) is None


def test_a_target_s_scope_names_only_known_servers_and_specs():
    import pytest

    from toolfuzz.targets.base import Scope

    with pytest.raises(ValueError, match="unknown servers in its scope"):
        Target("t", len, scope=Scope(servers=frozenset({"openia"})))
    with pytest.raises(ValueError, match="unknown specs in its scope"):
        Target("t", len, scope=Scope(specs=frozenset({"html"})))
