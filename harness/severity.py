"""How much a finding matters, and on what grounds: harm, evidence and severity, as tables.

Theory of operation
-------------------

A maintainer acts on a report only if each finding in it is a real bug in
the library's own terms.  So every root cause is graded from two things
that can be looked up, never typed by hand:

* the **harm** of its kind (:data:`HARM`): data lost, corrupted or given to
  the wrong call; an unfinished call handed on as executable; a crash or a
  hang; or a label, spelling or display difference that loses nothing;
* the **evidence** for its case: for each feature the case needs (its
  minimal feature set), whether a spec the target follows or a provider it
  reads documents that shape, a server it reads was seen sending it, it was
  seen only from servers the target never promised to read, or nobody has
  seen it at all (:class:`Evidence`, weakest first); the case's evidence is
  its weakest feature's.  And the **rule** it breaks (:data:`RULES`): each
  rule of the contract has a source, and a rule that is the project's own
  choice where the wire leaves the meaning open grounds no bug by itself.

:func:`grade` turns them into a :class:`Severity`:

==============================  ===========================  ==============
harm                            evidence and rule            severity
==============================  ===========================  ==============
lost, corrupted, unsafe, crash  documented or observed,      ``bug``
                                a rule with a source
lost, corrupted, unsafe, crash  anything weaker              ``robustness``
label, harness                  any                          ``note``
==============================  ===========================  ==============

What evidence each drawn feature has is in
:mod:`toolfuzz.strategies.features`; what each target promises to read is
its :class:`toolfuzz.targets.base.Scope`; :mod:`toolfuzz.judge.grading`
puts the three together.  docs/severity.md says the same for people.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Harm", "Source", "Evidence", "Severity", "Rule", "HARM", "RULES", "HARMFUL", "grade", "SPECS",
           "SERVERS", "ANY_SERVER"]


class Harm(enum.Enum):
    """What a divergence of a kind costs a user of the library."""

    LOST = "lost"
    CORRUPTED = "corrupted"
    UNSAFE = "unsafe"
    CRASH = "crash"
    LABEL = "label"
    HARNESS = "harness"

    @property
    def meaning(self) -> str:
        return _HARM_MEANING[self]


_HARM_MEANING = {
    Harm.LOST: "data the stream sent is lost: a call, its arguments, an event or text",
    Harm.CORRUPTED: "data is corrupted, made up or given to the wrong call",
    Harm.UNSAFE: "a call the stream never finished is handed on as executable",
    Harm.CRASH: "a raise on a stream it should read, a crash or a hang",
    Harm.LABEL: "a label, spelling or display difference: nothing a user runs is lost or changed",
    Harm.HARNESS: "says more about the sandbox or the adapter than about the library",
}

#: The harms that can make a bug; the others never do.
HARMFUL = frozenset({Harm.LOST, Harm.CORRUPTED, Harm.UNSAFE, Harm.CRASH})


class Source(enum.Enum):
    """Where a rule, or the claim that a server sends a shape, comes from."""

    #: A published specification: WHATWG's server-sent events, RFC 8259's JSON, JSON Schema.
    SPEC = "spec"
    #: A provider's own documentation, or the types of its SDK.
    PROVIDER = "provider"
    #: Captured traffic, a server's own code, or an issue quoting what a server sent.
    CAPTURE = "capture"
    #: True of any stream: a network read may end at any byte, a model may write any value the schema allows.
    INHERENT = "inherent"
    #: Nothing shows a server sending it; drawn because the wire's keying allows it.
    INFERRED = "inferred"
    #: The project's own resolution where the wire leaves the meaning open.
    CHOICE = "choice"


class Evidence(enum.IntEnum):
    """How well a case's shapes are established for one target, weakest first (the case takes its weakest)."""

    INFERRED = 0
    #: Seen from servers, but none the target promises to read.
    ELSEWHERE = 1
    #: Seen from a server the target promises to read.
    OBSERVED = 2
    #: Documented by a spec the target follows or by a provider it reads, or inherent to every stream.
    DOCUMENTED = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Severity(enum.Enum):
    """A root cause's grade; ``--fail-on`` names one, and a run fails on it and on every graver one."""

    BUG = "bug"
    ROBUSTNESS = "robustness"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Gravest first: 0 for a bug."""
        return _ORDER.index(self)

    def at_least(self, floor: "Severity") -> bool:
        return self.rank <= floor.rank

    @property
    def meaning(self) -> str:
        return _SEVERITY_MEANING[self]

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"a severity is one of {', '.join(s.value for s in cls)}, not {text!r}") from None


_ORDER = (Severity.BUG, Severity.ROBUSTNESS, Severity.NOTE)
_SEVERITY_MEANING = {
    Severity.BUG: "harm on shapes the target promises to read, by a rule with a source",
    Severity.ROBUSTNESS: "harm, but on shapes no server the target reads is known to send, or by the project's "
                         "own rule",
    Severity.NOTE: "a label, spelling or display difference, or the harness's own",
}


@dataclass(frozen=True)
class Rule:
    """Where the rule a kind reports comes from."""

    source: Source
    cite: str


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

#: Every kind's harm (docs/severity.md; tests/test_severity.py holds it to every kind the judge reports).
HARM: dict[str, Harm] = {
    "blocked_action": Harm.HARNESS, "timed_out": Harm.CRASH, "crash": Harm.CRASH, "hang": Harm.CRASH,
    "memory": Harm.CRASH, "raised": Harm.CRASH, "bad_return": Harm.HARNESS,
    "choices_mixed": Harm.CORRUPTED, "arguments_misattributed": Harm.CORRUPTED, "call_lost": Harm.LOST,
    "phantom_call": Harm.CORRUPTED, "arguments_differ": Harm.CORRUPTED, "reserialised": Harm.LABEL,
    # A wrong id or name is the call's identity lost: the tool result cannot be matched, or the wrong tool runs.
    "id_differs": Harm.CORRUPTED, "name_differs": Harm.CORRUPTED,
    "incomplete_handed_on": Harm.UNSAFE, "complete_withheld": Harm.LOST,
    "status_differs": Harm.LABEL, "error_differs": Harm.LABEL,
    "event_lost": Harm.LOST, "phantom_event": Harm.CORRUPTED, "data_differs": Harm.CORRUPTED,
    "event_type_differs": Harm.CORRUPTED, "event_id_differs": Harm.LABEL,
    "final_differs": Harm.CORRUPTED, "raised_on_prefix": Harm.CRASH, "invented_key": Harm.CORRUPTED,
    "invented_value": Harm.CORRUPTED, "type_differs": Harm.CORRUPTED, "string_not_prefix": Harm.CORRUPTED,
    # A number shown early, or a shown value changed later, is what a display of a growing text flickers with.
    "number_before_complete": Harm.LABEL, "scalar_differs": Harm.LABEL, "value_taken_back": Harm.LABEL,
    "arguments_invalid": Harm.CORRUPTED, "index_differs": Harm.LABEL, "markup_leaked": Harm.CORRUPTED,
    "content_differs": Harm.LOST, "whole_differs": Harm.CORRUPTED,
}

#: Where the rule each kind reports comes from (docs/contract.md cites the same for each rule).
RULES: dict[str, Rule] = {
    "blocked_action": _OURS, "timed_out": _ANY, "crash": _ANY, "hang": _ANY, "memory": _ANY, "raised": _ANY,
    "bad_return": _OURS,
    **dict.fromkeys(("choices_mixed", "arguments_misattributed", "call_lost", "phantom_call", "arguments_differ",
                     "reserialised", "id_differs", "name_differs"), _CHAT),
    "incomplete_handed_on": _FINISH, "complete_withheld": _FINISH,
    "status_differs": Rule(Source.SPEC, "RFC 8259 and JSON Schema 2020-12: whether the arguments are JSON and "
                                        "satisfy the tool's schema"),
    "error_differs": _OURS,
    **dict.fromkeys(("event_lost", "phantom_event", "data_differs", "event_type_differs", "event_id_differs"), _SSE),
    "final_differs": _JSON,
    **dict.fromkeys(("raised_on_prefix", "invented_key", "invented_value", "type_differs", "string_not_prefix",
                     "number_before_complete", "scalar_differs", "value_taken_back"), _PARTIAL),
    **dict.fromkeys(("arguments_invalid", "markup_leaked", "content_differs", "whole_differs"), _TEMPLATE),
    "index_differs": Rule(Source.PROVIDER, "OpenAI API reference: a choice's tool calls are numbered 0, 1, 2..."),
}

#: Specs a target may promise to follow (``Scope.specs``).
SPECS = {
    "sse": "WHATWG HTML, 9.2 Server-sent events",
    "json": "RFC 8259, The JavaScript Object Notation (JSON) Data Interchange Format",
}

#: Marks a scope that promises every server: a library that reads whatever OpenAI-compatible server it is
#: pointed at, as its docs say.
ANY_SERVER = "*"

#: The servers a feature's evidence may name and a target's scope may promise (``toolfuzz servers`` lists them).
SERVERS = {
    "openai": "OpenAI's API",
    "azure": "Azure OpenAI",
    "anthropic": "Anthropic's Messages API",
    "vllm": "vLLM's OpenAI-compatible server",
    "sglang": "SGLang's OpenAI-compatible server",
    "llama.cpp": "llama.cpp's llama-server",
    "ollama": "Ollama's OpenAI-compatible endpoint",
    "lm-studio": "LM Studio's local server",
    "github-copilot": "GitHub Copilot's Responses endpoint",
    "tgi": "Hugging Face text-generation-inference",
    "gemini-compat": "Gemini's OpenAI-compatible endpoint",
    "groq": "Groq",
    "mistral": "Mistral's La Plateforme",
    "xai": "xAI's Grok API",
    "fireworks": "Fireworks AI",
    "openrouter": "OpenRouter",
    "deepseek": "DeepSeek's API",
    "moonshot": "Moonshot's Kimi API",
    "poolside": "Poolside",
    "nvidia-nim": "NVIDIA NIM",
    "foundry-local": "Microsoft Foundry Local",
    "bedrock-gateway": "AWS's bedrock-access-gateway",
    "dynamo": "NVIDIA Dynamo",
    "mistral.rs": "mistral.rs",
    "sambanova": "SambaNova Cloud",
    # Seen in real captures (findings/captures/).
    "alibaba": "Alibaba Cloud Model Studio (Qwen)",
    "bedrock-mantle": "AWS Bedrock's OpenAI-compatible Responses endpoint",
    "cerebras": "Cerebras",
    "perplexity": "Perplexity's Sonar API",
    "vertex-anthropic": "Anthropic's models on Google Vertex AI",
    "writer": "Writer's chat API",
}


def grade(harm: Harm, evidence: Evidence, grounded: bool) -> Severity:
    """The severity of a root cause of ``harm``, on a case with ``evidence``, by a rule that is ``grounded``
    (has a source other than the project's choice)."""
    if harm not in HARMFUL:
        return Severity.NOTE
    if grounded and evidence >= Evidence.OBSERVED:
        return Severity.BUG
    return Severity.ROBUSTNESS
