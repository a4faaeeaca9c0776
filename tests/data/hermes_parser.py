"""A serving engine's tool parser for the hermes format, written for the tests: it reads the format right.

It waits for the whole text whatever the batches (so where they fall cannot matter), hands on each
``<tool_call>`` block as one call with its arguments written again, and the rest as content. ``drops_after``
is the same with one mistake real parsers make: the text after the calls is lost.
"""

from __future__ import annotations

import json
import re

BLOCK = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)


def parse(batches, tools=(), limits=None, keep_after=True):
    text = "".join(batches)
    calls = [json.loads(m.group(1)) for m in BLOCK.finditer(text)]
    content = BLOCK.sub("", text)
    if not keep_after and calls:
        content = text[:text.index("<tool_call>")]
    parsed = [{"name": c["name"], "arguments": json.dumps(c["arguments"])} for c in calls]
    deltas = [{"index": k, "id": f"call_{k}", "type": "function", "function": c} for k, c in enumerate(parsed)]
    return {"content": content, "deltas": deltas, "whole": {"content": BLOCK.sub("", text), "calls": parsed}}


def drops_after(batches, tools=(), limits=None):
    return parse(batches, tools, limits, keep_after=False)
