"""How models write tool calls as text: one rendering per format a serving engine parses.

A serving engine's tool parser reads the text a model generates and hands on
the calls in it (docs/producers.md).  Each :class:`Format` here writes calls
the way one model family does, from the layout its engine's parser documents
(docstring, regular expressions, structural tag) and its chat template; the
docs name the evidence for each.  A format says which of its marks a
tokenizer holds as one special token (a batch boundary never falls inside
one), whether text may sit between two calls, and which names and argument
values it can write at all (a pythonic call needs identifiers for its name
and keywords), so that a case never asks a parser for what its format cannot
say.

The rendering is the project's own: the calls a case writes are known by
construction, and a parser is judged on reading them back.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from toolfuzz.vocabulary import TEXT_FORMATS, TEXT_SPECIALS, TEXT_TOKENS

__all__ = ["Format", "Written", "FORMATS", "python_literal"]


@dataclass(frozen=True)
class Written:
    """One call as the model writes it: the name, the arguments value, and that value as the JSON text it wrote."""

    name: str
    value: Any
    text: str


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def python_literal(value: Any) -> str:
    """``value`` (a JSON value) as a Python literal, as a pythonic model writes a keyword's value."""
    if value is True or value is False or value is None:
        return {True: "True", False: "False", None: "None"}[value]
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


#: A Python identifier: a pythonic call's keywords, and a tool name as every format can hold it (written bare
#: between special tokens, after ``functions.``, or as a Python callee).
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _keywords_only(value: Any, parameters: Any) -> Any:
    """The arguments a pythonic call can pass: keywords that are Python identifiers, not Python's keywords."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if _IDENTIFIER.fullmatch(k) and not keyword.iskeyword(k)}


#: Each JSON Schema type, and the values of it.
_OF_TYPE: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list), "null": lambda v: v is None}
#: The marks of Qwen3-Coder's XML layout, which no parameter's text may hold.
_XML_MARKS = re.compile(r"<\s*/?\s*(?:parameter|function|tool_call)")
#: The marks of GLM's layout, likewise.
_GLM_MARKS = re.compile(r"<\s*/?\s*(?:arg_key|arg_value|tool_call)")
#: The marks of MiniMax M2's layout, likewise.
_MINIMAX_MARKS = re.compile(r"<\s*/?\s*(?:parameter|invoke|minimax:tool_call)")
#: A parameter's name as ``<parameter=NAME>`` can hold it.
_PARAMETER = re.compile(r"[^<>\s](?:[^<>]*[^<>\s])?")
#: A parameter's name as ``name="NAME"`` holds it.
_ATTRIBUTE = re.compile(r'[^"<>\s](?:[^"<>]*[^"<>\s])?')


def _typed(marks: re.Pattern[str], plain_strings: bool = False, key: re.Pattern[str] = _PARAMETER
           ) -> Callable[[Any, Any], Any]:
    """The arguments an XML call can pass: each parameter's text is its string, or the JSON of any other value,
    so a text means one value only where the schema gives the parameter one type, and the value is of it (the
    text ``5`` is a string or a number as the schema says).  Nor may a text hold the layout's ``marks``, nor a
    parameter's name be other than ``key`` holds.  With
    ``plain_strings``, nor may a string be wrapped in quotes: where the parsers read such a text as a quoted
    string too (GLM's: sglang strips them, a tolerance of models that quote), it says the string or the one
    inside."""

    def fit(value: Any, parameters: Any) -> Any:
        if not isinstance(value, dict) or not isinstance(parameters, dict):
            return {}
        properties = parameters.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        kept = {}
        for k, v in value.items():
            schema = properties.get(k)
            kind = schema.get("type") if isinstance(schema, dict) else None
            if (isinstance(kind, str) and kind in _OF_TYPE and _OF_TYPE[kind](v) and key.fullmatch(k)
                    and not marks.search(_parameter_text(v)) and not (plain_strings and _unplain(v))):
                kept[k] = v
        return kept

    return fit


def _unplain(value: Any) -> bool:
    return isinstance(value, str) and len(value) > 1 and value[0] == value[-1] and value[0] in "\"'"


_typed_parameters = _typed(_XML_MARKS)


def _parameter_text(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


@dataclass(frozen=True)
class Format:
    name: str
    #: The calls' block, for one call or all of them (see ``between``).
    block: Callable[[Sequence[Written]], str]
    #: Marks a tokenizer holds as one token: never cut inside, and never content.
    specials: tuple[str, ...]
    #: Whether the model may write text between two calls (each call a block of its own).
    between: bool = False
    #: What joins content and a block.
    joiner: str = ""
    #: Whether the model may write text after its calls (a chat template that ends the turn with them: not).
    trailing: bool = True
    #: The tool names the format can write.
    names: re.Pattern[str] = _IDENTIFIER
    #: The arguments value as the format can write it, given the tool's parameters schema (the value a case
    #: then expects).
    fit: Callable[[Any, Any], Any] = field(default=lambda value, parameters: value)
    #: Whether a call's arguments are written as their JSON text (the text a case then expects), or as the
    #: format's own spelling of the value (the case then expects the value's JSON).
    json_text: bool = True
    #: Where the layout comes from: the engine's parser (docs/producers.md has the lines).
    evidence: str = ""
    #: Marks a tokenizer holds as one token that decodes as text: never cut inside, but no special token.
    tokens: tuple[str, ...] = ()

    @property
    def atoms(self) -> tuple[str, ...]:
        """Every mark a batch boundary never falls inside: the special ones and the plain tokens."""
        return self.specials + self.tokens

    def render(self, calls: Sequence[Written], before: str, between: Sequence[str], after: str) -> str:
        """The model's whole text: ``before``, the calls (with ``between[k]`` after call k, where the format
        allows text there), ``after``."""
        if self.between:
            parts = []
            for k, call in enumerate(calls):
                parts.append(self.block([call]))
                if k < len(calls) - 1:
                    parts.append(self.joiner + (between[k] if k < len(between) else "") + self.joiner)
            body = "".join(parts)
        else:
            body = self.block(calls)
        return (before + self.joiner if before else "") + body + (self.joiner + after if after and self.trailing
                                                                   else "")


def _hermes(calls: Sequence[Written]) -> str:
    return "\n".join(f'<tool_call>\n{{"name": {_json(c.name)}, "arguments": {c.text}}}\n</tool_call>' for c in calls)


def _llama3(calls: Sequence[Written]) -> str:
    return "<|python_tag|>" + ";".join(f'{{"name": {_json(c.name)}, "parameters": {c.text}}}' for c in calls)


def _mistral(calls: Sequence[Written]) -> str:
    return "[TOOL_CALLS] [" + ", ".join(f'{{"name": {_json(c.name)}, "arguments": {c.text}}}' for c in calls) + "]"


def _deepseek_v3(calls: Sequence[Written]) -> str:
    body = "\n".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{c.name}\n```json\n{c.text}\n```<｜tool▁call▁end｜>"
                     for c in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _deepseek_v31(calls: Sequence[Written]) -> str:
    body = "".join(f"<｜tool▁call▁begin｜>{c.name}<｜tool▁sep｜>{c.text}<｜tool▁call▁end｜>" for c in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _kimi_k2(calls: Sequence[Written]) -> str:
    body = "".join(f"<|tool_call_begin|>functions.{c.name}:{k}<|tool_call_argument_begin|>{c.text}<|tool_call_end|>"
                   for k, c in enumerate(calls))
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


def _pythonic(calls: Sequence[Written]) -> str:
    return "[" + ", ".join(
        f"{c.name}(" + ", ".join(f"{k}={python_literal(v)}" for k, v in c.value.items()) + ")" for c in calls) + "]"


def _internlm(calls: Sequence[Written]) -> str:
    return "".join(f'<|action_start|> <|plugin|>\n{{"name": {_json(c.name)}, "parameters": {c.text}}}<|action_end|>'
                   for c in calls)


def _cohere_command4(calls: Sequence[Written]) -> str:
    items = [f'{{"tool_call_id": "{k}", "tool_name": {_json(c.name)}, "parameters": {c.text}}}'
             for k, c in enumerate(calls)]
    return "<|START_ACTION|>[\n    " + ",\n    ".join(items) + "\n]<|END_ACTION|>"


def _qwen3_coder(calls: Sequence[Written]) -> str:
    return "\n".join(
        "<tool_call>\n<function=" + c.name + ">\n"
        + "".join(f"<parameter={k}>\n{_parameter_text(v)}\n</parameter>\n" for k, v in c.value.items())
        + "</function>\n</tool_call>" for c in calls)


def _glm47(calls: Sequence[Written]) -> str:
    return "".join(
        "<tool_call>" + c.name
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{_parameter_text(v)}</arg_value>" for k, v in c.value.items())
        + "</tool_call>" for c in calls)


def _glm45(calls: Sequence[Written]) -> str:
    # GLM-4.5's and 4.6's layout, as sglang's glm45 grammar writes it (glm4_moe_detector.py: the separator
    # "\n" before each call, after the name, between a key and its value, after each value).
    return "".join(
        "\n<tool_call>" + c.name + "\n"
        + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_parameter_text(v)}</arg_value>\n" for k, v in c.value.items())
        + "</tool_call>" for c in calls)


_DSML = "｜DSML｜"
#: The marks of DeepSeek V3.2's DSML layout, which no parameter's name or text may hold.
_DSML_MARKS = re.compile(r"<\s*/?\s*" + _DSML)


def _self_typed(marks: re.Pattern[str]) -> Callable[[Any, Any], Any]:
    """The arguments a call can pass whose parameters each say their type (DSML's ``string="true"``, Kimi K3's
    ``type="number"``): any value is one value; only its name must fit the attribute, and neither name nor text
    hold one of the layout's ``marks``."""

    def fit(value: Any, parameters: Any) -> Any:
        if not isinstance(value, dict):
            return {}
        return {k: v for k, v in value.items()
                if _ATTRIBUTE.fullmatch(k) and not marks.search(k + _parameter_text(v))}

    return fit


def _deepseek_v32(calls: Sequence[Written]) -> str:
    # As DeepSeek's own encoding writes a message's calls (encoding_dsv32.py, copied in vLLM's
    # tokenizers/deepseek_v32_encoding.py): the block after a blank line, one line a parameter.
    def parameter(k: str, v: Any) -> str:
        kind = "true" if isinstance(v, str) else "false"
        return f'<{_DSML}parameter name="{k}" string="{kind}">{_parameter_text(v)}</{_DSML}parameter>'

    invokes = [f'<{_DSML}invoke name="{c.name}">\n' + "\n".join(parameter(k, v) for k, v in c.value.items())
               + f"\n</{_DSML}invoke>" for c in calls]
    return f"\n\n<{_DSML}function_calls>\n" + "\n".join(invokes) + f"\n</{_DSML}function_calls>"


def _minimax_m2(calls: Sequence[Written]) -> str:
    # As MiniMax's tool-calling guide and sglang's detector docstring lay it out: one block, an invoke a call.
    invokes = "".join(f'<invoke name="{c.name}">\n'
                      + "".join(f'<parameter name="{k}">{_parameter_text(v)}</parameter>\n' for k, v in c.value.items())
                      + "</invoke>\n" for c in calls)
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


#: Kimi K3's marks open with ``<|`` (``<|open|>``, ``<|close|>``, ``<|sep|>``), which no name or text may hold.
_KIMI_K3_MARKS = re.compile(r"<\|")
#: The type a Kimi K3 argument says it has (an integer is a number).
_KIMI_K3_TYPES = ((bool, "boolean"), (int, "number"), (float, "number"), (str, "string"), (list, "array"),
                  (dict, "object"), (type(None), "null"))


def _kimi_k3_type(value: Any) -> str:
    return next(name for kind, name in _KIMI_K3_TYPES if isinstance(value, kind))


def _kimi_k3_attribute(text: str) -> str:
    # As the grammar both engines constrain K3 to escapes an attribute (sglang kimik3_structural_tag.py; vLLM
    # tool_parsers/structural_tag_registry.py), and both parsers undo.
    return text.replace("&", "&amp;").replace('"', "&quot;")


def _kimi_k3(calls: Sequence[Written]) -> str:
    # The response channel the prompt opened is closed, then one tools channel, a call an index from 1, each
    # argument saying its type (a string raw, any other value its JSON), and the message ends: no whitespace
    # anywhere (the engines' grammars; neither ships K3's renderer).
    def argument(k: str, v: Any) -> str:
        return (f'<|open|>argument key="{_kimi_k3_attribute(k)}" type="{_kimi_k3_type(v)}"<|sep|>'
                f"{_parameter_text(v)}<|close|>argument<|sep|>")

    body = "".join(f'<|open|>call tool="{_kimi_k3_attribute(c.name)}" index="{i}"<|sep|>'
                   + "".join(argument(k, v) for k, v in c.value.items()) + "<|close|>call<|sep|>"
                   for i, c in enumerate(calls, 1))
    return f"<|close|>response<|sep|><|open|>tools<|sep|>{body}<|close|>tools<|sep|><|close|>message<|sep|>"


#: Step3's marks: its invoke and parameter tags, and the bars of its block's (U+FF5C, with a plain underscore).
_STEP3_MARKS = re.compile(r"<\s*/?\s*steptml:|｜tool_")


_step3_typed = _typed(_STEP3_MARKS, key=_ATTRIBUTE)


def _step3_fit(value: Any, parameters: Any) -> Any:
    # Both engines strip a parameter's text (sglang step3_detector.py, vLLM step3_tool_parser.py), and nothing
    # says whether Step3 writes a string's edge whitespace: a string with any is not passed.
    kept = _step3_typed(value, parameters)
    return {k: v for k, v in kept.items() if not (isinstance(v, str) and v != v.strip())}


_M3 = TEXT_TOKENS["minimax-m3"][0]
#: A MiniMax M3 element's name, as both engines read a tag back: a ``<parameter=NAME>``'s name (no ``<`` or ``>``,
#: no white space at either end: sglang strips a tag's name, vLLM keeps it) not opening with ``/`` (a closing tag).
_M3_TAG = re.compile("(?!/)" + _PARAMETER.pattern)


def _m3_fits(value: Any, schema: Any) -> bool:
    """Whether MiniMax M3's elements write ``value`` so that a parser reads it back one way: its schema gives it
    one type, and it is of it (an element's text ``5`` is a string or a number as the schema says, and a child
    element is the schema's property of that name or, in an array, its item); no string holds the namespace mark,
    and an object's keys are names its schema gives, each written as a tag."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if not (isinstance(kind, str) and kind in _OF_TYPE and _OF_TYPE[kind](value)):
        return False
    if isinstance(value, str):
        return _M3 not in value
    if isinstance(value, dict):
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        return all(k in properties and _M3_TAG.fullmatch(k) and _m3_fits(v, properties[k]) for k, v in value.items())
    if isinstance(value, list):
        return all(_m3_fits(v, schema.get("items")) for v in value)
    return True


def _minimax_m3_fit(value: Any, parameters: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(parameters, dict):
        return {}
    return {k: v for k, v in value.items() if _m3_fits({k: v}, {"type": "object", **parameters})}


def _m3_element(name: str, value: Any) -> str:
    if isinstance(value, dict):
        inner = "".join(_m3_element(k, v) for k, v in value.items())
    elif isinstance(value, list):
        inner = "".join(_m3_element("item", v) for v in value)
    else:
        inner = _parameter_text(value)
    return f"{_M3}<{name}>{inner}{_M3}</{name}>"


def _minimax_m3(calls: Sequence[Written]) -> str:
    # As vLLM's parser docstring lays it out (parser/minimax_m3.py): every tag opens with the namespace mark, each
    # argument an element on a line of its own; a container's children each on a line of their own, their own
    # children inline; an array's items are <item> elements.  The grammar both engines' servers constrain M3 to
    # (xgrammar's minimax_m3_xml) writes a value raw between its tags, and a null as null.
    def parameter(k: str, v: Any) -> str:
        if not (isinstance(v, (dict, list)) and v):
            return _m3_element(k, v) + "\n"
        children = v.items() if isinstance(v, dict) else (("item", x) for x in v)
        return f"{_M3}<{k}>\n" + "".join(_m3_element(c, x) + "\n" for c, x in children) + f"{_M3}</{k}>\n"

    invokes = "".join(f'{_M3}<invoke name="{c.name}">\n' + "".join(parameter(k, v) for k, v in c.value.items())
                      + f"{_M3}</invoke>\n" for c in calls)
    return f"{_M3}<tool_call>\n{invokes}{_M3}</tool_call>"


def _step3(calls: Sequence[Written]) -> str:
    # As sglang's detector's docstring and both engines' tests lay it out: the block on lines of its own, a
    # parameter a line, an invoke with no parameters still a line break.
    def call(c: Written) -> str:
        return (f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{c.name}">\n'
                + "".join(f'<steptml:parameter name="{k}">{_parameter_text(v)}</steptml:parameter>\n'
                          for k, v in c.value.items())
                + "</steptml:invoke><｜tool_call_end｜>")

    return "<｜tool_calls_begin｜>\n" + "\n".join(call(c) for c in calls) + "\n<｜tool_calls_end｜>"


def _apertus(calls: Sequence[Written]) -> str:
    return "<|tools_prefix|>[" + ", ".join(f"{{{_json(c.name)}: {c.text}}}" for c in calls) + "]<|tools_suffix|>"


#: Every format, by name (``toolfuzz.vocabulary.TEXT_FORMATS`` lists the same names).
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("hermes", _hermes, TEXT_SPECIALS["hermes"], between=True, joiner="\n",
           evidence="sglang function_call/hermes_detector.py"),
    Format("qwen25", _hermes, TEXT_SPECIALS["qwen25"], between=True, joiner="\n",
           evidence="sglang function_call/qwen25_detector.py"),
    Format("llama3", _llama3, TEXT_SPECIALS["llama3"], evidence="sglang function_call/llama32_detector.py"),
    Format("mistral", _mistral, TEXT_SPECIALS["mistral"], evidence="sglang function_call/mistral_detector.py"),
    Format("deepseek-v3", _deepseek_v3, TEXT_SPECIALS["deepseek-v3"],
           evidence="sglang function_call/deepseekv3_detector.py"),
    Format("deepseek-v31", _deepseek_v31, TEXT_SPECIALS["deepseek-v31"],
           evidence="sglang function_call/deepseekv31_detector.py"),
    Format("kimi-k2", _kimi_k2, TEXT_SPECIALS["kimi-k2"], evidence="sglang function_call/kimik2_detector.py"),
    Format("pythonic", _pythonic, TEXT_SPECIALS["pythonic"], joiner=" ", fit=_keywords_only,
           json_text=False, evidence="sglang function_call/pythonic_detector.py"),
    Format("internlm", _internlm, TEXT_SPECIALS["internlm"], between=True,
           evidence="sglang function_call/internlm_detector.py"),
    Format("cohere-command4", _cohere_command4, TEXT_SPECIALS["cohere-command4"],
           evidence="sglang function_call/cohere_command4_detector.py"),
    Format("apertus", _apertus, TEXT_SPECIALS["apertus"],
           evidence="sglang function_call/apertus2509_detector.py"),
    Format("qwen3-coder", _qwen3_coder, TEXT_SPECIALS["qwen3-coder"], joiner="\n", fit=_typed_parameters,
           json_text=False, evidence="sglang function_call/qwen3_coder_detector.py; Qwen3-Coder's chat template"),
    Format("glm47", _glm47, TEXT_SPECIALS["glm47"], fit=_typed(_GLM_MARKS, plain_strings=True), json_text=False,
           trailing=False, evidence="sglang parser/glm53_chat_template.py (GLM's renderer: the calls end the turn); "
           "function_call/glm47_moe_detector.py; vLLM parser/glm47_moe.py"),
    Format("glm45", _glm45, TEXT_SPECIALS["glm45"], fit=_typed(_GLM_MARKS, plain_strings=True), json_text=False,
           trailing=False, evidence="sglang function_call/glm4_moe_detector.py (docstring, and the glm45 grammar a "
           "server constrains GLM-4.5 to); vLLM parser/glm47_moe.py, which reads both GLM layouts"),
    Format("deepseek-v32", _deepseek_v32, TEXT_SPECIALS["deepseek-v32"], fit=_self_typed(_DSML_MARKS), json_text=False,
           trailing=False, evidence="DeepSeek's encoding_dsv32.py as vLLM copies it (tokenizers/deepseek_v32_encoding.py: "
           "the calls end the message); sglang function_call/deepseekv32_detector.py; vLLM parser/deepseek_v32.py"),
    Format("minimax-m2", _minimax_m2, TEXT_SPECIALS["minimax-m2"], fit=_typed(_MINIMAX_MARKS, key=_ATTRIBUTE),
           json_text=False, evidence="sglang function_call/minimax_m2.py (docstring); vLLM "
           "parser/minimax_m2.py and tool_parsers/structural_tag_registry.py (the grammar a server constrains it to)"),
    Format("kimi-k3", _kimi_k3, TEXT_SPECIALS["kimi-k3"], fit=_self_typed(_KIMI_K3_MARKS), json_text=False,
           trailing=False, evidence="the grammars both engines constrain Kimi K3 to (sglang "
           "function_call/kimik3_structural_tag.py, vLLM tool_parsers/structural_tag_registry.py: the calls end the "
           "message) and their parsers' docstrings (kimik3_detector.py, tool_parsers/kimi_k3_tool_parser.py)"),
    Format("step3", _step3, TEXT_SPECIALS["step3"], joiner="\n", fit=_step3_fit, json_text=False,
           evidence="sglang function_call/step3_detector.py (docstring) and its tests; vLLM "
           "tool_parsers/step3_tool_parser.py and tests/tool_parsers/test_step3_tool_parser.py"),
    Format("minimax-m3", _minimax_m3, TEXT_SPECIALS["minimax-m3"], tokens=TEXT_TOKENS["minimax-m3"],
           fit=_minimax_m3_fit, json_text=False, trailing=False,
           evidence="vLLM parser/minimax_m3.py (docstring; the tool block ends the message) and the grammar its "
           "server constrains M3 to (xgrammar builtin_structural_tag.py, minimax_m3_xml); sglang "
           "function_call/minimax_m3.py"),
)}
assert tuple(FORMATS) == TEXT_FORMATS, "vocabulary.TEXT_FORMATS and strategies.markup.FORMATS must agree"
