"""Every divergence kind, in one table: what it means, where it is judged, what it costs, the rule it breaks.

Theory of operation
-------------------

The judge reports a divergence as a *kind*; everything else the project says of a kind is a column of
:data:`TABLE`, read from here and nowhere else:

* **where** it is judged (:class:`Where`): how a target failed to answer at all (any level), the calls an
  assembler hands on, the events an SSE decoder dispatches, a partial parser's answer per prefix, or a serving
  engine's streamed and whole-text parse;
* its **harm** (:class:`toolfuzz.severity.Harm`) and the **rule** it breaks, with that rule's source
  (:class:`toolfuzz.severity.Rule`): together with the evidence for a case's shapes, its severity;
* its **traits** (:class:`Trait`): how root causes of it are told apart (:mod:`toolfuzz.engine.known`);
* its **meaning**, the line docs/divergences.md, the findings matrix and every report print.

The rows are in the order the judge checks the kinds: a case that diverges in several kinds at once is
reported under the first.  docs/divergences.md prints the table (tests/test_kinds.py holds the two the same).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from toolfuzz.severity import Harm, Rule, Source

__all__ = ["Where", "Trait", "Kind", "TABLE", "KINDS", "HARM", "RULES", "meanings", "with_trait", "markdown"]


class Where(enum.Enum):
    """Where a kind is judged."""

    #: How a target failed to give an answer to judge, at any level: blocked, out of time or memory, raised,
    #: killed its process, returned something of no usable shape.
    ANSWER = "answer"
    #: An assembler's calls (levels events and bytes).
    CALLS = "calls"
    #: An SSE decoder's events (level sse).
    SSE = "sse"
    #: A partial JSON parser's answer at each prefix (level partial).
    PARTIAL = "partial"
    #: A serving engine's parser of a model's text (level producer).
    PRODUCER = "producer"


class Trait(enum.Flag):
    """How root causes of a kind are told apart."""

    #: One root cause a target, whatever the case: running out of time or memory says how large a case was,
    #: not what in it the target got wrong, and the features left after reducing one would depend on the
    #: machine's speed.
    PER_TARGET = enum.auto()
    #: Told apart by what the target did, not by the calls it gave: never a variant of another kind, nor
    #: another kind a variant of it (raises are variants of raises).  The partial level's kinds are each a rule
    #: of the contract of their own, which a parser keeps or breaks apart from the others: one it breaks
    #: everywhere must not swallow the rarer ones as its variants; so are the producer level's rules for content
    #: and for the whole-text parse, beside its rule for the streamed calls.
    APART = enum.auto()
    #: Never taken for a root cause of a target below seen from above as another kind: it says nothing of how
    #: the target read the stream, or is a contract of its own.
    NEVER_ACROSS = enum.auto()
    #: Clustered by its crash state alone, whatever the case's features.
    BY_STATE = enum.auto()
    #: A rule of a producer's contract of its own (the content it hands on, what the whole text parses to): a
    #: parser that breaks the calls' rule on the plainest text breaks these apart from it.
    OWN_RULE = enum.auto()


@dataclass(frozen=True)
class Kind:
    name: str
    where: Where
    harm: Harm
    rule: Rule
    traits: Trait
    meaning: str


_CHAT = Rule(Source.PROVIDER, "OpenAI API reference, chat.completion.chunk: each tool_calls entry's index names "
                              "its call, id and function.name arrive once, function.arguments fragments are "
                              "concatenated; openai-python types/chat/chat_completion_chunk.py")
_FINISH = Rule(Source.PROVIDER, "OpenAI API reference, finish_reason: tool_calls when the model called a tool, "
                                "length when the output was cut off; a stream that stops before any finish "
                                "was cut (Responses: response.completed; Anthropic: stop_reason tool_use)")
_SSE = Rule(Source.SPEC, "WHATWG HTML, 9.2.6 Interpreting an event stream")
_JSON = Rule(Source.SPEC, "RFC 8259 and Python's json.loads: the value of the complete text")
_PARTIAL = Rule(Source.CHOICE, "docs/contract.md 9: what a partial parser may show of a prefix is the "
                               "project's rule, no spec states it")
_TEMPLATE = Rule(Source.PROVIDER, "the parser's own docstring and whole-text parse (detect_and_parse): the format "
                                   "it parses, and what a streamed text must come to")
_ANY = Rule(Source.INHERENT, "a library should not raise on, or hang over, a stream it reads")
_OURS = Rule(Source.CHOICE, "the project's own rule")

ANSWER, CALLS, SSE, PARTIAL, PRODUCER = Where

#: Every kind, in the order the judge checks them.
TABLE: tuple[Kind, ...] = (
    Kind("blocked_action", ANSWER, Harm.HARNESS, _OURS, Trait.APART | Trait.NEVER_ACROSS,
         "tried to open a socket, start a process or write outside the temporary folder"),
    Kind("timed_out", ANSWER, Harm.CRASH, _ANY, Trait.PER_TARGET | Trait.APART | Trait.NEVER_ACROSS,
         "ran past the per-case time limit"),
    # Worker deaths (toolfuzz.engine.supervisor): the case is the one in flight, not shrunk.
    Kind("crash", ANSWER, Harm.CRASH, _ANY, Trait.APART | Trait.NEVER_ACROSS,
         "killed the process that ran it (a signal such as SIGSEGV, or an exit)"),
    Kind("hang", ANSWER, Harm.CRASH, _ANY, Trait.PER_TARGET | Trait.APART | Trait.NEVER_ACROSS,
         "did not return, even to the time limit's signal, and its process was killed"),
    Kind("memory", ANSWER, Harm.CRASH, _ANY, Trait.PER_TARGET | Trait.APART | Trait.NEVER_ACROSS,
         "ran out of memory (MemoryError, or the --memory-cap of its worker)"),
    Kind("raised", ANSWER, Harm.CRASH, _ANY, Trait.APART | Trait.BY_STATE,
         "raised an exception"),
    Kind("bad_return", ANSWER, Harm.HARNESS, _OURS, Trait.APART | Trait.NEVER_ACROSS,
         "returned something that is not a list of calls"),
    Kind("choices_mixed", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "fragments of one choice ended up in another"),
    Kind("arguments_misattributed", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "the arguments are all there, but attached to the wrong calls"),
    Kind("call_lost", CALLS, Harm.LOST, _CHAT, Trait(0),
         "a call the stream finished is missing"),
    Kind("phantom_call", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "a call the stream never made"),
    Kind("arguments_differ", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "a call's arguments are not the concatenation of its fragments"),
    Kind("reserialised", CALLS, Harm.LABEL, _CHAT, Trait(0),
         "the arguments are the same JSON value written differently"),
    # A wrong id or name is the call's identity lost: the tool result cannot be matched, or the wrong tool runs.
    Kind("id_differs", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "a call's id is not the one the stream gave"),
    Kind("name_differs", CALLS, Harm.CORRUPTED, _CHAT, Trait(0),
         "a call's name is not the one the stream gave"),
    Kind("incomplete_handed_on", CALLS, Harm.UNSAFE, _FINISH, Trait(0),
         "a call the stream never finished is handed on as complete"),
    Kind("complete_withheld", CALLS, Harm.LOST, _FINISH, Trait(0),
         "a call the stream finished is withheld as incomplete"),
    Kind("status_differs", CALLS, Harm.LABEL, Rule(Source.SPEC, "RFC 8259 and JSON Schema 2020-12: whether the "
                                                   "arguments are JSON and satisfy the tool's schema"), Trait(0),
         "a validating target gives a call another status"),
    Kind("error_differs", CALLS, Harm.LABEL, _OURS, Trait(0),
         "the stream error a target ended with is not the one the stream gave"),
    # The sse level (toolfuzz.judge.compare_events): decoders judged on the events they dispatch.
    Kind("event_lost", SSE, Harm.LOST, _SSE, Trait(0),
         "an event the stream dispatched is missing"),
    Kind("phantom_event", SSE, Harm.CORRUPTED, _SSE, Trait(0),
         "an event the stream never dispatched"),
    Kind("data_differs", SSE, Harm.CORRUPTED, _SSE, Trait(0),
         "an event's data is not its data lines joined with LF"),
    Kind("event_type_differs", SSE, Harm.CORRUPTED, _SSE, Trait(0),
         "an event's type is not the one the stream gave"),
    Kind("event_id_differs", SSE, Harm.LABEL, _SSE, Trait(0),
         "an event's last event id is not the one the stream set"),
    # The partial level (toolfuzz.judge.compare_partial): partial parsers judged on every prefix.
    Kind("final_differs", PARTIAL, Harm.CORRUPTED, _JSON, Trait.APART | Trait.NEVER_ACROSS,
         "the complete text's value is not exactly what json.loads gives"),
    Kind("raised_on_prefix", PARTIAL, Harm.CRASH, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS | Trait.BY_STATE,
         "raised on a prefix that holds the start of the value"),
    Kind("invented_key", PARTIAL, Harm.CORRUPTED, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a key the final object does not have there"),
    Kind("invented_value", PARTIAL, Harm.CORRUPTED, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a value before any of it arrived"),
    Kind("type_differs", PARTIAL, Harm.CORRUPTED, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a value of another type than its final one"),
    Kind("string_not_prefix", PARTIAL, Harm.CORRUPTED, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a string that is neither its final string nor, while open, a prefix of it"),
    # A number shown early, or a shown value changed later, is what a display of a growing text flickers with.
    Kind("number_before_complete", PARTIAL, Harm.LABEL, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a number before its text was complete, as a value it does not end as"),
    Kind("scalar_differs", PARTIAL, Harm.LABEL, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "showed a complete number, true, false or null as another value"),
    Kind("value_taken_back", PARTIAL, Harm.LABEL, _PARTIAL, Trait.APART | Trait.NEVER_ACROSS,
         "took back or changed what it had shown at an earlier prefix"),
    # The producer level (toolfuzz.judge.compare_producer): serving engines' parsers of a model's text; it
    # shares call_lost, phantom_call, name_differs, arguments_differ and id_differs with the assemblers' levels.
    Kind("arguments_invalid", PRODUCER, Harm.CORRUPTED, _TEMPLATE, Trait(0),
         "a call's arguments are not one JSON text"),
    Kind("index_differs", PRODUCER, Harm.LABEL,
         Rule(Source.PROVIDER, "OpenAI API reference: a choice's tool calls are numbered 0, 1, 2..."), Trait(0),
         "the calls' indexes are not 0, 1, 2... in the order the model wrote them"),
    Kind("markup_leaked", PRODUCER, Harm.CORRUPTED, _TEMPLATE, Trait.APART | Trait.OWN_RULE,
         "the format's markup, or a call's text, is handed on as content"),
    Kind("content_differs", PRODUCER, Harm.LOST, _TEMPLATE, Trait.APART | Trait.OWN_RULE,
         "the text around the calls is not handed on as content"),
    Kind("whole_differs", PRODUCER, Harm.CORRUPTED, _TEMPLATE, Trait.APART | Trait.OWN_RULE,
         "the whole-text parse of the same text gives other calls or content than were written"),
)

#: Each kind by name.
KINDS: dict[str, Kind] = {k.name: k for k in TABLE}
#: Every kind's harm and rule, by name (docs/severity.md; tests/test_severity.py holds them to every kind).
HARM: dict[str, Harm] = {k.name: k.harm for k in TABLE}
RULES: dict[str, Rule] = {k.name: k.rule for k in TABLE}


def meanings(*where: Where) -> dict[str, str]:
    """The kinds judged in ``where`` (every kind when none is given), in check order, with what each means."""
    return {k.name: k.meaning for k in TABLE if not where or k.where in where}


def with_trait(trait: Trait) -> frozenset[str]:
    """The names of the kinds that have ``trait``."""
    return frozenset(k.name for k in TABLE if trait in k.traits)


def markdown() -> str:
    """The table as docs/divergences.md prints it: kind, where it is judged, harm, and what it means."""
    lines = ["| kind | judged on | harm | meaning |", "|---|---|---|---|"]
    lines += [f"| `{k.name}` | {k.where.value} | {k.harm.value} | {k.meaning} |" for k in TABLE]
    return "\n".join(lines) + "\n"
