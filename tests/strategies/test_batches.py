"""toolfuzz.strategies.batches: a model's text cut between tokens into the batches a server parses."""

from __future__ import annotations

from random import Random

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


#: Two calls; their names begin at tokens 1 and 7, characters 3 and 14.
TWO = ["<a>", "f", "(", "1", ")", "</a>", "<a>", "g", "(", "2", ")", "</a>"]


@given(token_batches(TWO, [1, 7]))
def test_with_calls_the_batches_still_join_to_the_text_and_fall_between_tokens(batches):
    assert "".join(batches) == "".join(TWO)
    ends = {sum(len(t) for t in TWO[:i]) for i in range(len(TWO) + 1)}
    assert all(sum(len(b) for b in batches[:i + 1]) in ends for i in range(len(batches)))


def test_a_call_that_streamed_may_be_followed_by_one_that_comes_whole_in_one_step():
    drawn = [token_batches.draw(Drawer(rnd=Random(seed)), TWO, [1, 7]) for seed in range(300)]
    whole = [b for b in drawn if "streamed-then-whole" in batch_features(b, TWO, [3, 14], [7, 18])]
    # Drawn on purpose, not by luck of the cuts (52 of these 300 streams; the cuts alone make 21, below).
    assert len(whole) >= 40
    # The second call, its name and arguments, is in one batch, and the first came in more than one.
    assert all(any("g(2)" in b for b in batches) and not any("f(1)" in b for b in batches)
               for batches in whole)
    # Without its calls named, only the random cuts make one, far more rarely.
    by_chance = [b for b in (token_batches.draw(Drawer(rnd=Random(seed)), TWO) for seed in range(300))
                 if "streamed-then-whole" in batch_features(b, TWO, [3, 14], [7, 18])]
    assert len(by_chance) < len(whole) / 2


def test_the_feature_says_a_whole_call_came_after_one_that_streamed():
    # Where the calls' arguments end is known ("f(1)" ends at 7, "g(2)" at 18), and where it is not.
    for ends in ([7, 18], []):
        assert "streamed-then-whole" in batch_features(("<a>", "f(1", ")</a><a>", "g(2)</a>"), TWO, [3, 14], ends)
    # The second call streamed too; the first came whole; everything in one batch.
    for batches in (("<a>", "f(1", ")</a><a>g", "(2)</a>"), ("<a>f(1)</a>", "<a>", "g(2)</a>"), ("".join(TWO),)):
        assert "streamed-then-whole" not in batch_features(batches, TWO, [3, 14], [7, 18])
