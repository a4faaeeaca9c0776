"""No function in the package over 80 lines or 10 parameters: state lives in objects with names, phases in
methods of their own (issue 36), and this keeps it so."""

import ast

import pytest

from tests.paths import ROOT

MAX_LINES, MAX_PARAMETERS = 80, 10
FOLDERS = ("harness", "strategies", "targets")


def _too_big(source: str, name: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        parameters = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if parameters and parameters[0].arg in ("self", "cls"):
            parameters = parameters[1:]
        count = len(parameters) + (args.vararg is not None) + (args.kwarg is not None)
        lines = node.end_lineno - node.lineno + 1
        if lines > MAX_LINES or count > MAX_PARAMETERS:
            out.append(f"{name}:{node.lineno} {node.name}: {lines} lines, {count} parameters")
    return out


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_function_is_over_80_lines_or_10_parameters(folder):
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        found += _too_big(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == []


def test_the_check_sees_a_long_function_and_a_long_signature():
    long_body = "def f():\n" + "    x = 1\n" * MAX_LINES
    many = "def g(self, " + ", ".join(f"a{i}" for i in range(MAX_PARAMETERS)) + ", *rest):\n    pass\n"
    assert [line.split(" ")[1] for line in _too_big(long_body + many, "m.py")] == ["f:", "g:"]
    assert _too_big("def h(self, " + ", ".join(f"a{i}" for i in range(MAX_PARAMETERS)) + "):\n    pass\n", "m") == []
