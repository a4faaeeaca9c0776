from hypothesis import find, given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import read_cuts
from toolfuzz.strategies.reads import read_features

WIRE = "data: {\"a\": \"é€😀\"}\r\n\r\ndata: [DONE]\r\n\r\n".encode()


@settings(max_examples=300)
@given(st.data())
def test_reads_join_to_the_wire(data):
    wire = data.draw(st.binary(max_size=300))
    reads = data.draw(read_cuts(wire))
    assert b"".join(reads) == wire
    assert all(reads) or reads == (b"",)


def test_reads_reach_the_hard_cuts():
    seen = set()

    @settings(max_examples=400, database=None)
    @given(read_cuts(WIRE))
    def look(reads):
        seen.update(read_features(WIRE, reads))

    look()
    assert seen >= {"single-read", "byte-reads", "read-splits-utf8", "read-splits-crlf", "read-splits-field"}


def test_reads_shrink_to_one_read():
    assert find(read_cuts(WIRE), lambda r: True) == (WIRE,)
