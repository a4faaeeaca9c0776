from hypothesis import find, given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import interleavings, merge


@settings(max_examples=300)
@given(st.data())
def test_interleavings_keep_each_sequence_in_order(data):
    lengths = data.draw(st.lists(st.integers(0, 5), max_size=4))
    order = data.draw(interleavings(lengths))
    assert sorted(order) == [k for k, n in enumerate(lengths) for _ in range(n)]
    seqs = [[(k, i) for i in range(n)] for k, n in enumerate(lengths)]
    merged = merge(seqs, order)
    for k in range(len(lengths)):
        assert [x for x in merged if x[0] == k] == seqs[k]


def test_the_seed_two_call_example_is_an_interleaving():
    # part of call 0, call 1's start, the rest of call 0, the end of call 1
    wanted = [0, 0, 1, 0, 1]
    assert find(interleavings([3, 2]), lambda o: o == wanted) == wanted


def test_interleavings_shrink_to_sequential():
    assert find(interleavings([2, 2, 1]), lambda o: True) == [0, 0, 1, 1, 2]


def test_disallowed_interleaving_is_sequential():
    @given(interleavings([2, 3], allow=False))
    def check(order):
        assert order == [0, 0, 1, 1, 1]

    check()
