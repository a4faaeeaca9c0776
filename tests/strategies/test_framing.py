import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import Payload, framings
from toolfuzz.targets.reference import SSEDecoder

PAYLOADS = st.lists(
    st.one_of(
        st.builds(lambda d: Payload(d), st.dictionaries(st.text(max_size=5), st.text(max_size=8), max_size=3)),
        st.just(Payload("[DONE]")),
        st.builds(lambda d: Payload(d, event="error"), st.dictionaries(st.just("error"), st.text(max_size=5))),
    ),
    min_size=1, max_size=5)


def _decode(wire: bytes) -> list:
    d = SSEDecoder()
    events = d.feed(wire)
    d.close()
    return events


@settings(max_examples=400)
@given(st.data())
def test_framing_decodes_back_to_the_payloads(data):
    payloads = data.draw(PAYLOADS)
    framed = data.draw(framings(payloads))
    events = _decode(framed.wire)
    dispatched = [e for e in framed.events if e.dispatch_at is not None]
    assert [e.data for e in events] == [e.data for e in dispatched]
    for got, ev in zip(events, dispatched):
        body = payloads[ev.payload].body
        assert got.event == ("error" if payloads[ev.payload].event == "error" else "message")
        if isinstance(body, str):
            assert got.data == body.encode()
        else:
            assert json.loads(got.data) == body


@settings(max_examples=300)
@given(st.data())
def test_dispatch_offsets_are_exact(data):
    payloads = data.draw(PAYLOADS)
    framed = data.draw(framings(payloads))
    for k, ev in enumerate(framed.events):
        if ev.dispatch_at is None:
            # Only the last event may be left unterminated, and then the whole wire never dispatches it.
            assert k == len(framed.events) - 1 and "unterminated-event" in framed.features
            assert len(_decode(framed.wire)) == k
            continue
        before = len([e for e in framed.events if e.dispatch_at is not None and e.dispatch_at < ev.dispatch_at])
        assert len(_decode(framed.wire[:ev.dispatch_at])) == before + 1
        assert len(_decode(framed.wire[:ev.dispatch_at - 1])) == before


def test_framing_reaches_every_variant():
    seen = set()

    @settings(max_examples=400, database=None)
    @given(framings([Payload({"a": 1, "b": [1, 2]}), Payload("[DONE]")]))
    def look(framed):
        seen.update(framed.features)

    look()
    assert seen >= {"lf", "crlf", "cr", "bom", "no-space", "comments", "sse-fields", "multiline-data",
                    "unterminated-event"}
