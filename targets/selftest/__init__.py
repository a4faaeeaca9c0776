"""The harness's own self-test: a correct plain assembler and one broken target per known mistake.

``SELFTEST`` lists the mutants with the divergence kind each must be caught with.
"""

import functools

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.targets.base import PARTIAL_CLAIMS, Target
from toolfuzz.targets.selftest import mutants, partial
from toolfuzz.targets.selftest.dialects import ItemIdForCallId, ToolNumberAsIndex, in_dialect
from toolfuzz.targets.selftest.plain import PlainAssembler, assemble_chunks

#: Every mistake that can be made on every wire.
_ALL = DIALECTS
_CHAT = ("openai-chat",)


def _in(fn, dialect: str):
    cls = getattr(fn, "mutant", None)
    if cls is not None:
        return mutants._events(in_dialect(cls, dialect))
    return functools.partial(fn, assembler=in_dialect(PlainAssembler, dialect))


def _mutant(name: str, fn, mistake: str, level: str = "events", calls: int = 1, reads: int = 1,
            dialects: tuple[str, ...] = _ALL) -> Target:
    # ``minimal``: the smallest case that shows the mistake, in calls and network reads;
    # the self-test asserts that shrinking reaches it.  ``by_dialect``: the same
    # mistake on top of each dialect's plain assembler.
    return Target(name=f"selftest-{name}", fn=fn, level=level, selftest=True, mistake=mistake, dialects=dialects,
                  summary=(fn.__doc__ or "").strip().splitlines()[0],
                  extra={"minimal": {"calls": calls, "reads": reads},
                         "by_dialect": {d: _in(fn, d) for d in dialects if d != "openai-chat"}})


def _partial(name: str, fn, mistake: str) -> Target:
    # A partial parser reads no wire: the same function in every dialect, and one call shows its mistake.
    return Target(name=f"selftest-partial-{name}", fn=fn, level="partial", reports=PARTIAL_CLAIMS, selftest=True,
                  mistake=mistake, dialects=_ALL, summary=(fn.__doc__ or "").strip().splitlines()[0],
                  extra={"minimal": {"calls": 1, "reads": 1}})


PLAIN = Target(name="selftest-plain", fn=assemble_chunks, summary="a correct plain assembler (must never diverge)",
               selftest=True, dialects=_ALL, extra={"by_dialect": {d: _in(mutants._events(PlainAssembler), d)
                                                                   for d in _ALL if d != "openai-chat"}})

SELFTEST = (
    _mutant("shared-buffer", mutants.shared_buffer, "arguments_misattributed", calls=2),
    _mutant("parse-each-fragment", mutants.parse_each_fragment, "arguments_differ"),
    # Calls in the event dialects are keyed by index or item, and always carry an id.
    _mutant("key-by-id", mutants.key_by_id, "arguments_misattributed", dialects=_CHAT),
    _mutant("shared-placeholder", mutants.shared_placeholder, "id_differs", dialects=_CHAT),
    _mutant("brace-completion", mutants.brace_completion, "incomplete_handed_on"),
    _mutant("decode-each-read", mutants.decode_each_read, "arguments_differ", level="bytes", reads=2),
    # Two cuts: one inside `data:` loses a chunk, but the next readable chunk must not bring the call back.
    _mutant("read-as-delta", mutants.read_as_delta, "call_lost", level="bytes", reads=3),
    _mutant("hand-out-after-disconnect", mutants.hand_out_after_disconnect, "incomplete_handed_on"),
    # Anthropic sends a call's id and name once; Responses repeats them in output_item.done.
    _mutant("concat-names-and-ids", mutants.concat_names_and_ids, "id_differs", dialects=("openai-chat", "openai-responses")),
    # Mistakes only one dialect's wire invites.
    _mutant("item-id-for-call-id", mutants._events(ItemIdForCallId), "id_differs", dialects=("openai-responses",)),
    _mutant("tool-number-as-index", mutants._events(ToolNumberAsIndex), "arguments_misattributed", dialects=("anthropic",)),
    # Partial parsers (level partial), each breaking one rule of the partial contract.
    _partial("number-early", partial.number_early, "number_before_complete"),
    _partial("raw-escape", partial.raw_escape, "string_not_prefix"),
    _partial("key-early", partial.key_early, "invented_key"),
    _partial("null-for-missing", partial.null_for_missing, "invented_value"),
    _partial("raise-in-string", partial.raise_in_string, "raised_on_prefix"),
    _partial("forget-at-escape", partial.forget_at_escape, "value_taken_back"),
)

__all__ = ["PLAIN", "SELFTEST"]
