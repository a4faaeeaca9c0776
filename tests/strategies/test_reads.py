from hypothesis import find, given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import read_cuts
from toolfuzz.strategies.cases import Planner
from toolfuzz.strategies.reads import STAGE, moved_cuts, pinned, read_features

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


# -- cuts kept where they were while a reduction edits the wire ---------------

A, B, C = b'data: {"a": 1}\n', b'data: {"b": 22}\n', b'data: {"c": 333}\n'


def test_a_cut_moves_with_its_line_and_goes_with_a_line_taken_out():
    old = A + B + C
    inside_b, inside_c, start_c = len(A) + 3, len(A + B) + 7, len(A + B)
    assert moved_cuts(old, [inside_b, inside_c, start_c], A + C) == [len(A), len(A) + 7]
    # A line the edit changed keeps its cut inside it, however short it became.
    shorter = b'data: {"c": 3}\n'
    assert moved_cuts(old, [len(A + B) + 15], A + B + shorter) == [len(A + B) + 14]
    assert moved_cuts(old, [inside_c], b"") == []


def test_pinned_cuts_render_exactly_where_they_are_asked():
    planner = Planner()
    # Not byte reads (a plan cannot pin those), and cuts the plan drew.
    case = next(c for c in map(planner.draw, range(500)) if 2 < len(c.reads) <= 9 and len(c.wire) > 100
                and any(STAGE in key for key in c.plan))
    wanted = [7, 50, len(case.wire) - 1]
    again = planner.render(pinned(case.plan, wanted))
    assert again.wire == case.wire and list(again.cuts) == wanted
    assert planner.render(pinned(case.plan, [])).reads == (case.wire,)
    # Too many cuts, or none in the plan to pin: it says it cannot.
    assert pinned(case.plan, list(range(1, 11))) is None
    assert pinned({}, [3]) is None
