"""The SSE decoder against the WHATWG rules, each stream cut once at every offset, twice at chosen pairs (splits.py)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from toolfuzz.targets.reference.sse import SSEDecoder, SSEEvent
from tests.targets.reference.splits import every_split


def decode(reads: list[bytes]) -> list[tuple[str, str, str]]:
    d = SSEDecoder()
    events: list[SSEEvent] = []
    for r in reads:
        events.extend(d.feed(r))
    events.extend(d.close())
    return [(e.event, e.text, e.id) for e in events]


def assert_decodes(wire: bytes, expected: list[tuple[str, str, str]]) -> None:
    for reads in every_split(wire):
        got = decode(reads)
        assert got == expected, (reads, got)


def msg(data: str, event: str = "message", id: str = "") -> tuple[str, str, str]:
    return (event, data, id)


def test_lf_crlf_and_lone_cr_all_end_lines():
    assert_decodes(b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n", [msg("a"), msg("b"), msg("c"), msg("d")])


def test_crlf_split_across_reads_is_one_line_end_not_a_blank_line():
    # If the CR ending read 1 and the LF opening read 2 were two line ends,
    # the event would dispatch after its first data line.
    d = SSEDecoder()
    assert d.feed(b"data: one\r") == []
    assert d.feed(b"\ndata: two\r") == []
    assert d.feed(b"\n\r\n") == [SSEEvent(b"one\ntwo")]


def test_a_crlf_with_an_empty_read_between_its_cr_and_lf_is_still_one_line_end():
    # Two data lines: a blank line seen between CR and LF would dispatch "one" alone.
    assert_decodes(b"data: one\r\ndata: two\r\n\r\n", [msg("one\ntwo")])


def test_one_leading_bom_is_dropped_even_split_across_reads():
    assert_decodes(b"\xef\xbb\xbfdata: x\n\n", [msg("x")])


def test_a_second_bom_is_text_and_spoils_the_field_name():
    assert_decodes(b"\xef\xbb\xbf\xef\xbb\xbfdata: 1\n\ndata: 2\n\n", [msg("2")])


def test_a_bom_later_in_the_stream_is_not_dropped():
    assert_decodes(b"data: 1\n\n\xef\xbb\xbfdata: 2\n\ndata: 3\n\n", [msg("1"), msg("3")])


def test_comments_are_skipped():
    assert_decodes(b": keep-alive\n:\ndata: x\n: more\n\n", [msg("x")])


def test_several_data_lines_join_with_lf():
    assert_decodes(b"data: {\"a\":\ndata:  1}\ndata\n\n", [msg('{"a":\n 1}\n')])


def test_exactly_one_space_after_the_colon_is_removed():
    assert_decodes(b"data:x\n\ndata:  y\n\ndata:\tz\n\n", [msg("x"), msg(" y"), msg("\tz")])


def test_a_blank_line_without_data_dispatches_nothing():
    assert_decodes(b"event: ping\n\nid: 7\n\n\n\n", [])


def test_empty_data_dispatches_an_empty_event():
    assert_decodes(b"data:\n\n", [msg("")])


def test_event_id_and_retry_fields():
    d = SSEDecoder()
    got = d.feed(b"event: error\nid: 42\nretry: 3000\ndata: x\n\ndata: y\n\n")
    assert got == [SSEEvent(b"x", "error", "42"), SSEEvent(b"y", "message", "42")]
    assert d.retry == 3000 and d.last_event_id == "42"


def test_id_with_nul_and_retry_with_non_digits_are_ignored():
    d = SSEDecoder()
    got = d.feed(b"id: 1\nretry: 10\ndata: a\n\nid: 2\x00\nretry: 1e3\ndata: b\n\n")
    assert [e.id for e in got] == ["1", "1"]
    assert d.retry == 10


def test_unknown_fields_and_field_names_with_spaces_are_ignored():
    assert_decodes(b"foo: bar\ndata : no\nData: no\ndata: yes\n\n", [msg("yes")])


def test_a_final_event_without_its_blank_line_is_discarded_at_eof():
    assert_decodes(b"data: 1\n\ndata: 2\n", [msg("1")])
    assert_decodes(b"data: 1\n\ndata: [DONE]", [msg("1")])


def test_a_final_blank_line_ended_by_a_lone_cr_still_dispatches():
    assert_decodes(b"data: x\n\r", [msg("x")])


def test_multibyte_characters_split_across_reads_decode_whole():
    text = "é☕😀"
    wire = f"data: {text}\n\n".encode()
    assert_decodes(wire, [msg(text)])


def test_invalid_utf8_becomes_replacement_characters():
    assert decode([b"data: a\xffb\xf0\x9f\n\n"]) == [msg("a\ufffdb\ufffd")]


def test_unicode_line_separators_are_data_not_line_ends():
    assert_decodes("data: a\u2028b\u0085c\x0bd\n\n".encode(), [msg("a\u2028b\u0085c\x0bd")])


def test_nothing_is_dispatched_before_the_blank_line_arrives():
    d = SSEDecoder()
    assert d.feed(b"data: {\"a\": 1}\n") == []
    assert d.feed(b"\n") == [SSEEvent(b'{"a": 1}')]


_line_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12)


@given(
    events=st.lists(st.lists(_line_text, min_size=1, max_size=3), max_size=5),
    eols=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
    bom=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=6),
)
def test_any_events_framed_any_way_and_cut_anywhere_decode_back(events, eols, bom, cuts):
    parts = ["\ufeff"] if bom else []
    for k, lines in enumerate(events):
        eol = eols[k % len(eols)]
        parts.extend(f"data: {line}{eol}" for line in lines)
        parts.append(eol)
    wire = "".join(parts).encode()
    offsets = sorted({c % (len(wire) + 1) for c in cuts})
    bounds = [0, *offsets, len(wire)]
    reads = [wire[a:b] for a, b in zip(bounds, bounds[1:])]
    assert decode(reads) == [msg("\n".join(lines)) for lines in events]
