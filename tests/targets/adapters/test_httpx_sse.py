"""httpx-sse (EventSource over an in-process httpx.Response) on hand-written wires: where it follows the spec.

httpx-sse is an optional extra (``pip install -e ".[sse]"``); without it this module is skipped (under CI it fails).
"""

from __future__ import annotations

from tests.adapter_checks import require

require("httpx_sse")

from toolfuzz.targets.adapters.httpx_sse import TARGETS  # noqa: E402
from tests.sse_wires import DISPATCHES_WITHOUT_DATA, decoded, spec_tests  # noqa: E402

TARGET = TARGETS[0]
#: Where httpx-sse parts from the spec, and the kind the harness finds.
DIVERGES = {
    # httpx decodes the body as "utf-8", not "utf-8-sig", and httpx-sse does not drop the BOM either:
    # the first line's field is "\ufeffdata", ignored, so the first event never comes.
    "bom": "event_lost",
    **DISPATCHES_WITHOUT_DATA,
}

test_follows_the_spec, test_diverges_from_the_spec = spec_tests(TARGET, DIVERGES)


def test_names_the_type_message_and_the_id_empty_as_the_spec_does():
    assert decoded(TARGET, "id-persists") == [{"event": "message", "data": "a", "id": "7"},
                                              {"event": "message", "data": "b", "id": "7"}]


def test_a_character_cut_by_a_disconnect_is_replaced_not_raised():
    """httpx's text decoder replaces bad bytes, so the unterminated tail is simply discarded, as it should be."""
    assert decoded(TARGET, "disconnect-mid-utf8") == [{"event": "message", "data": "a", "id": ""}]
