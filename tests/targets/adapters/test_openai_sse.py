"""openai-sse (openai._streaming.SSEDecoder) on hand-written wires: where it follows the spec, where it does not.

openai is an optional extra (``pip install -e ".[targets]"``); without it this module is skipped (under CI it fails).
"""

from __future__ import annotations

from tests.adapter_checks import require

require("openai")
require("httpx2")

from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.vocabulary import Case  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.openai_chat import TARGETS as CLIENTS  # noqa: E402
from toolfuzz.targets.adapters.openai_sse import TARGETS  # noqa: E402
from toolfuzz.targets.reference import assemble  # noqa: E402
from tests.sse_wires import DISPATCHES_WITHOUT_DATA, decoded, spec_tests  # noqa: E402
from tests.streams import chunk, head, sse  # noqa: E402

TARGET = TARGETS[0]
#: Where openai's decoder parts from the spec, and the kind the harness finds.
DIVERGES = {
    # The BOM is not dropped: the first line's field is "\ufeffdata", ignored, so the first event never comes.
    "bom": "event_lost",
    **DISPATCHES_WITHOUT_DATA,
    # Each line is decoded strictly: the unterminated tail of a disconnect, cut inside a character, raises.
    "disconnect-mid-utf8": "raised",
}

test_follows_the_spec, test_diverges_from_the_spec = spec_tests(TARGET, DIVERGES)


def test_leaves_the_type_and_id_unset_rather_than_message_and_empty():
    assert decoded(TARGET, "crlf") == [{"event": None, "data": '{"a": 1}', "id": None},
                                       {"event": None, "data": "[DONE]", "id": None}]


def test_the_phantom_event_is_data_less_and_carries_the_last_id():
    assert decoded(TARGET, "data-less-block-after-id")[1] == {"event": None, "data": "", "id": "7"}


def test_the_client_fails_the_whole_stream_on_a_keep_alive_after_an_id():
    """End to end: the decoder's phantom event reaches sse.json() in openai.OpenAI's Stream, which raises."""
    client = {t.name: t for t in CLIENTS}["openai-client"]
    body = sse(chunk(head(0, "call_1", "get_weather", '{"city": "Paris"}')), chunk(finish="tool_calls"))
    wire = b"id: 7\n" + body.replace(b"\n\n", b"\n\n: ping\n\n", 1)
    case = Case(reads=(wire,), expected=assemble([wire]))
    assert [c.status for c in case.expected.calls] == ["complete"]
    divergences = compare(case.expected, observe(client, case), client)
    assert [d.kind for d in divergences] == ["raised"]
    assert "JSONDecodeError" in divergences[0].detail
