"""How much a finding matters, and on what grounds: harm, evidence and severity, as tables.

Theory of operation
-------------------

A maintainer acts on a report only if each finding in it is a real bug in
the library's own terms.  So every root cause is graded from two things
that can be looked up, never typed by hand:

* the **harm** of its kind (:data:`toolfuzz.kinds.HARM`): data lost, corrupted or given to
  the wrong call; an unfinished call handed on as executable; a crash or a
  hang; or a label, spelling or display difference that loses nothing;
* the **evidence** for its case: for each feature the case needs (its
  minimal feature set), whether a spec the target follows or a provider it
  reads documents that shape, a server it reads was seen sending it, it was
  seen only from servers the target never promised to read, or nobody has
  seen it at all (:class:`Evidence`, weakest first); the case's evidence is
  its weakest feature's.  And the **rule** it breaks (:data:`toolfuzz.kinds.RULES`): each
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

__all__ = ["Harm", "Source", "Evidence", "Severity", "Rule", "HARMFUL", "grade", "SPECS",
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
