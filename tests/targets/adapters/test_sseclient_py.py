"""sseclient-py (SSEClient over an iterator of reads) on hand-written wires: where it follows the spec, where not.

sseclient-py is an optional extra (``pip install -e ".[sse]"``); without it this module is skipped (under CI it fails).
"""

from __future__ import annotations

from tests.adapter_checks import require

require("sseclient")

from toolfuzz.targets.adapters.sseclient_py import TARGETS  # noqa: E402
from tests.sse_wires import decoded, spec_tests  # noqa: E402

TARGET = TARGETS[0]
#: Where sseclient-py parts from the spec, and the kind the harness finds.
DIVERGES = {
    # The BOM is not dropped: the first line's field is "\ufeffdata", unknown, so the first event never comes.
    "bom": "event_lost",
    # Every block starts a fresh Event: the last event id does not carry over to the next event.
    "id-persists": "event_id_differs",
    "data-less-block-after-id": "event_id_differs",
    # What is left at the end of the stream is dispatched, closing blank line or not.
    "unterminated-last-event": "phantom_event",
    # Lines are decoded strictly: the unterminated tail of a disconnect, cut inside a character, raises.
    "disconnect-mid-utf8": "raised",
}

test_follows_the_spec, test_diverges_from_the_spec = spec_tests(TARGET, DIVERGES)


def test_the_id_is_only_on_the_event_whose_block_set_it():
    assert decoded(TARGET, "id-persists") == [{"event": "message", "data": "a", "id": "7"},
                                              {"event": "message", "data": "b", "id": None}]


def test_the_unterminated_event_is_dispatched_at_end_of_stream():
    assert [e["data"] for e in decoded(TARGET, "unterminated-last-event")] == ["a", "b"]
