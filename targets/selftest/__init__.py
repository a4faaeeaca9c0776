"""The harness's own self-test: a correct plain assembler and one broken target per known mistake.

``SELFTEST`` lists the mutants with the divergence kind each must be caught with.
"""

from targets.base import Target
from targets.selftest import mutants
from targets.selftest.plain import assemble_chunks


def _mutant(name: str, fn, mistake: str, level: str = "events", calls: int = 1, reads: int = 1) -> Target:
    # ``minimal``: the smallest case that shows the mistake, in calls and network reads;
    # the self-test asserts that shrinking reaches it.
    return Target(name=f"selftest-{name}", fn=fn, level=level, selftest=True, mistake=mistake,
                  summary=(fn.__doc__ or "").strip().splitlines()[0], extra={"minimal": {"calls": calls, "reads": reads}})


PLAIN = Target(name="selftest-plain", fn=assemble_chunks, summary="a correct plain assembler (must never diverge)",
               selftest=True)

SELFTEST = (
    _mutant("shared-buffer", mutants.shared_buffer, "arguments_misattributed", calls=2),
    _mutant("parse-each-fragment", mutants.parse_each_fragment, "arguments_differ"),
    _mutant("key-by-id", mutants.key_by_id, "arguments_misattributed"),
    _mutant("shared-placeholder", mutants.shared_placeholder, "id_differs"),
    _mutant("brace-completion", mutants.brace_completion, "incomplete_handed_on"),
    _mutant("decode-each-read", mutants.decode_each_read, "arguments_differ", level="bytes", reads=2),
    # Two cuts: one inside `data:` loses a chunk, but the next readable chunk must not bring the call back.
    _mutant("read-as-delta", mutants.read_as_delta, "call_lost", level="bytes", reads=3),
    _mutant("hand-out-after-disconnect", mutants.hand_out_after_disconnect, "incomplete_handed_on"),
    _mutant("concat-names-and-ids", mutants.concat_names_and_ids, "id_differs"),
)

__all__ = ["PLAIN", "SELFTEST"]
