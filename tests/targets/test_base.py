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
