"""toolfuzz.strategies.batches: a model's text cut between tokens into the batches a server parses."""

from __future__ import annotations

from hypothesis import given

from toolfuzz.strategies.batches import batch_features, token_batches
from toolfuzz.strategies.plans import Drawer

TOKENS = ["<tool_call>", "\n", "{", '"', "name", '"', ":", " ", '"', "f", '"', "}", "\n", "</tool_call>"]


@given(token_batches(TOKENS))
def test_batches_join_to_the_text_and_fall_between_tokens(batches):
    assert "".join(batches) == "".join(TOKENS)
    bounds, at = {0}, 0
    for token in TOKENS:
        at += len(token)
        bounds.add(at)
    at = 0
    for batch in batches:
        at += len(batch)
        assert at in bounds
    # Empty only as the last batch: the stop token in a step of its own.
    assert all(batches[:-1]) and (batches[-1] or len(batches) > 1)


def test_the_plainest_draw_is_one_batch_of_everything():
    assert token_batches.draw(Drawer(given={}), TOKENS) == ("".join(TOKENS),)


def test_the_features_say_how_the_batches_fall():
    one = ("".join(TOKENS),)
    assert batch_features(one, TOKENS, [0]) == {"single-batch"}
    assert batch_features(tuple(TOKENS), TOKENS, [0]) == {"one-token-batches"}
    assert batch_features(("<tool_call>\n{", '"name":" "f"}\n</tool_call>', ""), TOKENS, [0]) == {"batched",
                                                                                                  "stop-alone"}
    text = "<a>x</a><a>y</a>"
    assert "calls-in-one-batch" in batch_features((text,), list(text), [0, 8])
    assert "calls-in-one-batch" not in batch_features((text[:8], text[8:]), list(text), [0, 8])
