"""A correct assembler for the documented OpenAI shape, written apart from toolfuzz, as a user would."""


def assemble(chunks):
    calls = {}
    done = set()
    for chunk in chunks:
        if chunk.get("error"):
            break
        for choice in chunk.get("choices") or []:
            c = choice.get("index", 0)
            for tc in (choice.get("delta") or {}).get("tool_calls") or []:
                slot = calls.setdefault((c, tc["index"]), {"id": None, "name": None, "args": []})
                slot["id"] = slot["id"] or tc.get("id") or None
                fn = tc.get("function") or {}
                slot["name"] = slot["name"] or fn.get("name") or None
                slot["args"].append(fn.get("arguments") or "")
            if choice.get("finish_reason") in ("tool_calls", "stop"):
                done.add(c)
    return [{"choice": c, "index": i, "id": s["id"], "name": s["name"], "arguments": "".join(s["args"]),
             "complete": c in done} for (c, i), s in sorted(calls.items())]
