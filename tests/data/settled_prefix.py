"""A correct partial JSON parser written apart from toolfuzz: it shows what is settled and nothing more.

It cuts the prefix back to the last place where everything before it is
settled (just inside an opened object or array, or just after a finished
value), closes what is still open, and hands that to ``json.loads``.  It
never shows a string, a number or a literal before it ends, so it keeps
every rule of the partial contract; tests/targets/selftest/test_partial.py
searches it over 2,000 examples.
"""

import json

_CLOSE = {"{": "}", "[": "]"}


def parse(prefix):
    stack = []
    cut, closers = None, ""
    i, n = 0, len(prefix)
    while i < n:
        c = prefix[i]
        if c in " \t\n\r":
            i += 1
        elif c in "{[":
            stack.append(c)
            i += 1
            cut, closers = i, "".join(_CLOSE[s] for s in reversed(stack))
        elif c in "}]":
            stack.pop()
            i += 1
            cut, closers = i, "".join(_CLOSE[s] for s in reversed(stack))
        elif c in ",:":
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and prefix[j] != '"':
                j += 2 if prefix[j] == "\\" else 1
            if j >= n:
                break  # a string still arriving
            i = j + 1
            after = i
            while after < n and prefix[after] in " \t\n\r":
                after += 1
            if after < n and prefix[after] == ":":
                continue  # a key: settled only with its value
            if after >= n and stack and stack[-1] == "{" and _expects_key(prefix, i):
                break  # a key whose colon has not arrived
            cut, closers = i, "".join(_CLOSE[s] for s in reversed(stack))
        else:
            j = i
            while j < n and prefix[j] not in ",:]} \t\n\r":
                j += 1
            if j >= n:
                break  # a number or literal that may go on
            i = j
            cut, closers = i, "".join(_CLOSE[s] for s in reversed(stack))
    if cut is None:
        return None
    return json.loads(prefix[:cut] + closers)


def _expects_key(prefix, end):
    """Whether the string that ends at ``end`` sits where an object expects a key (after "{" or ",")."""
    # Walk back over the string itself to what comes before its opening quote.
    i = end - 2
    while i >= 0:
        if prefix[i] == '"':
            backslashes = 0
            k = i - 1
            while k >= 0 and prefix[k] == "\\":
                backslashes += 1
                k -= 1
            if backslashes % 2 == 0:
                break
        i -= 1
    i -= 1
    while i >= 0 and prefix[i] in " \t\n\r":
        i -= 1
    return i >= 0 and prefix[i] in "{,"
