"""anthropic-sse (anthropic._streaming.SSEDecoder) on hand-written wires: where it follows the spec, where not.

anthropic is an optional extra (``pip install -e ".[targets]"``); without it this module is skipped (under CI it fails).
"""

from __future__ import annotations

from tests.adapter_checks import require

require("anthropic")

from toolfuzz.targets.adapters.anthropic_sse import TARGETS  # noqa: E402
from tests.sse_wires import DISPATCHES_WITHOUT_DATA, decoded, spec_tests  # noqa: E402

TARGET = TARGETS[0]
#: Where anthropic's decoder parts from the spec, and the kind the harness finds.
DIVERGES = {
    # The BOM is not dropped: the first line's field is "\ufeffdata", ignored, so the first event never comes.
    "bom": "event_lost",
    **DISPATCHES_WITHOUT_DATA,
    # Lines are decoded strictly: the unterminated tail of a disconnect, cut inside a character, raises.
    "disconnect-mid-utf8": "raised",
}

test_follows_the_spec, test_diverges_from_the_spec = spec_tests(TARGET, DIVERGES)


def test_leaves_the_type_and_id_unset_rather_than_message_and_empty():
    assert decoded(TARGET, "cr-only") == [{"event": None, "data": '{"a": 1}', "id": None},
                                          {"event": None, "data": "[DONE]", "id": None}]


def test_the_phantom_event_has_the_type_and_no_data():
    """The client's Stream skips events with no data, so this phantom never reaches a user of messages.stream()."""
    assert decoded(TARGET, "data-less-event-block")[0] == {"event": "ping", "data": "", "id": None}
