"""Copying a piece of toolfuzz's own source, with what it needs, into a script that runs without toolfuzz.

A repro script (:mod:`toolfuzz.outputs.repro`) carries the code toolfuzz feeds
a library with: the adapter's own functions, copied as they are written, so
that the text a script runs is the text toolfuzz's own tests run.
:func:`excerpt` starts from the names some expressions use and follows them:

* a name a module binds at its top level (a function, a class, an
  assignment, an import inside ``try``) is copied, statement and all, with
  the names it uses in turn, and the comment lines just above it;
* a statement that binds no name is the module's set-up
  (``litellm.telemetry = False``, ``os.environ.setdefault(...)``) and is
  copied whenever anything of its module is, unless it uses a name the
  module defines: that is a warm-up, toolfuzz's own business;
* an import of a library or of the standard library is copied with only the
  names used;
* a name imported from another of toolfuzz's modules is copied from there
  when that module is one a script may copy (:data:`COPYABLE`: the adapters,
  the vocabulary, the repro checks), or written as its value when it is
  plain data (a table of finish reasons); anything else of toolfuzz is an
  :class:`ExcerptError` naming it, since a script cannot import toolfuzz.

Each module's statements keep their order, a module's after those of the
modules it takes names from.  The adapters are read as source, never
imported: a repro is written where its library is not installed.
Annotations are not followed (the script says ``from __future__ import
annotations``, so none is evaluated).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import pprint
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = ["COPYABLE", "ExcerptError", "excerpt", "literal"]

#: The modules (and packages) whose source a script may copy: none of them needs toolfuzz to run.
COPYABLE = ("toolfuzz.targets.adapters", "toolfuzz.vocabulary", "toolfuzz.outputs.repro_checks")


class ExcerptError(ValueError):
    """What a script would need that it cannot have: a name of toolfuzz's that is neither copyable nor data."""


def literal(value: Any, width: int = 116) -> str:
    """``value`` as Python source, laid out to read: a long list one item to a line (dicts keep their order)."""
    if isinstance(value, (list, tuple)) and value and len(repr(value)) > width:
        items = [textwrap.indent(pprint.pformat(v, width=width - 4, sort_dicts=False), "    ") for v in value]
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        return opening + "\n" + ",\n".join(items) + ",\n" + closing
    return pprint.pformat(value, width=width, sort_dicts=False)


def _is_data(value: Any) -> bool:
    if value is None or isinstance(value, (str, bytes, bool, int, float)):
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return all(_is_data(v) for v in value)
    if isinstance(value, dict):
        return all(_is_data(k) and _is_data(v) for k, v in value.items())
    return False


@dataclass
class _Statement:
    node: ast.stmt
    text: str
    binds: set[str]
    uses: set[str]
    #: Import statements: the names each binds, and what it binds them to (module, name or None).
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)


def _uses(node: ast.AST) -> set[str]:
    """The names ``node`` reads, annotations left out (a script never evaluates them)."""
    found: set[str] = set()

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            found.add(n.id)
        elif isinstance(n, ast.Global):
            found.update(n.names)
        for name, child in ast.iter_fields(n):
            if name in ("annotation", "returns"):
                continue
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, ast.AST):
                    walk(item)

    walk(node)
    return found


def _binds(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds (not those inside its functions or classes)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    found: set[str] = set()
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    for target in targets:
        found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            found |= _binds(child)
        elif isinstance(child, ast.ExceptHandler):
            found.update([child.name] if child.name else [])
            for stmt in child.body:
                found |= _binds(stmt)
    return found


class _Module:
    """One module's top-level statements, read from its source file."""

    def __init__(self, name: str) -> None:
        spec = importlib.util.find_spec(name)  # finds the file; runs only the packages above it
        if spec is None or spec.origin is None:
            raise ExcerptError(f"{name}: no such module")
        self.name = name
        self.path = Path(spec.origin)
        source = self.path.read_text(encoding="utf-8")
        self.lines = source.splitlines()
        tree = ast.parse(source, str(self.path))
        self.statements: list[_Statement] = []
        for k, node in enumerate(tree.body):
            if k == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # the module's docstring
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            statement = _Statement(node, self._text(node), _binds(node), _uses(node))
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if isinstance(node, ast.Import):
                        # ``import a.b`` binds ``a``; the script needs the whole dotted import.
                        statement.imports[(alias.asname or alias.name).split(".")[0]] = (alias.name, None)
                    else:
                        statement.imports[alias.asname or alias.name] = (node.module or "", alias.name)
            self.statements.append(statement)
        self.defined = set().union(*(s.binds for s in self.statements if not s.imports))

    def _text(self, node: ast.stmt) -> str:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        # The comment lines just above a statement are its documentation (``#:``, or why it is there).
        while start > 1 and self.lines[start - 2].lstrip().startswith("#") and not self.lines[start - 2].startswith(
                "# --"):
            start -= 1
        return "\n".join(self.lines[start - 1:node.end_lineno])

    def binding(self, name: str) -> list[_Statement]:
        return [s for s in self.statements if name in s.binds]

    def setup(self) -> list[_Statement]:
        """Statements that bind nothing and use none of the module's own names: its set-up."""
        return [s for s in self.statements if not s.binds and not (s.uses & self.defined)]


def _copyable(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in COPYABLE)


def _toolfuzz(module: str) -> bool:
    return module == "toolfuzz" or module.startswith("toolfuzz.")


class _Excerpt:
    """The statements wanted from each module, and which modules take names from which."""

    def __init__(self) -> None:
        self.modules: dict[str, _Module] = {}
        #: Per module, the positions of the statements wanted; for an import, the names wanted of it.
        self.wanted: dict[str, dict[int, set[str]]] = {}
        #: Per module, the modules it takes names from, in the order first met.
        self.sources: dict[str, list[str]] = {}
        #: Per module and import statement, lines for names it imports from toolfuzz: an alias of a copied name,
        #: or plain data, written where the import was.
        self.extra: dict[str, dict[int, list[str]]] = {}
        #: Every name the copied code binds, once written.
        self.bound: set[str] = set()

    def module(self, name: str) -> _Module:
        if name not in self.modules:
            module = self.modules[name] = _Module(name)
            self.wanted[name], self.sources[name], self.extra[name] = {}, [], {}
            for statement in module.setup():
                self.want(name, statement)
        return self.modules[name]

    def need(self, module_name: str, names: Iterable[str]) -> None:
        """Copy what binds ``names`` in the module (names it does not bind are left alone: locals, builtins)."""
        module = self.module(module_name)
        for name in sorted(set(names)):
            for statement in module.binding(name):
                self.want(module_name, statement, name)

    def want(self, module_name: str, statement: _Statement, name: str | None = None) -> None:
        module = self.modules[module_name]
        k = module.statements.index(statement)
        if statement.imports:
            for alias in [name] if name is not None else list(statement.imports):
                self.imported(module_name, k, alias)
            return
        if k in self.wanted[module_name]:
            return
        self.wanted[module_name][k] = set()
        # Names it does not bind (builtins, locals) are passed over by need().
        self.need(module_name, statement.uses)

    def imported(self, module_name: str, k: int, alias: str) -> None:
        """A name an import binds: a library's import is kept for it; a toolfuzz name is copied or written out."""
        source, attribute = self.modules[module_name].statements[k].imports[alias]
        if not (_toolfuzz(source) or _copyable(source)):
            self.wanted[module_name].setdefault(k, set()).add(alias)
            return
        if attribute is None:
            raise ExcerptError(f"{module_name} imports the module {source}: a script imports names of it only")
        if _toolfuzz(source) and not source.startswith("toolfuzz.targets.adapters"):
            # Importable without any library: plain data is written as its value.
            value = getattr(importlib.import_module(source), attribute, None)
            if _is_data(value):
                self.add_line(module_name, k, f"{alias} = {literal(value)}")
                return
            if not _copyable(source):
                raise ExcerptError(f"{module_name} uses {source}.{attribute}, which a script without toolfuzz "
                                   "cannot import")
        if module_name in self.depends_on(source):
            raise ExcerptError(f"{module_name} and {source} take names from each other")
        if source not in self.sources[module_name]:
            self.sources[module_name].append(source)
        self.need(source, [attribute])
        if alias != attribute:
            self.add_line(module_name, k, f"{alias} = {attribute}")

    def add_line(self, module_name: str, k: int, line: str) -> None:
        lines = self.extra[module_name].setdefault(k, [])
        if line not in lines:
            lines.append(line)

    def depends_on(self, module_name: str) -> set[str]:
        found: set[str] = set()
        todo = [module_name]
        while todo:
            for source in self.sources.get(todo.pop(), []):
                if source not in found:
                    found.add(source)
                    todo.append(source)
        return found

    def ordered(self, roots: list[str]) -> list[str]:
        """Every module met, each after the modules it takes names from."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name not in order:
                for source in self.sources[name]:
                    visit(source)
                order.append(name)

        for name in [*roots, *self.modules]:
            visit(name)
        return order

    def text(self, roots: list[str]) -> str:
        blocks: list[str] = []
        bound: dict[str, str] = {}

        def bind(names: Iterable[str], text: str, where: str) -> bool:
            """Whether ``text`` is new; the same text met again (two modules writing one table) is not."""
            names = list(names)
            if names and all(bound.get(name) == text for name in names):
                return False
            for name in names:
                if name in bound and bound[name] != text:
                    raise ExcerptError(f"two definitions of {name}, one in {where}: a script has one namespace")
                bound[name] = text
            return True

        for module_name in self.ordered(roots):
            module = self.modules[module_name]
            parts: list[str] = []
            for k in sorted(set(self.wanted[module_name]) | set(self.extra[module_name])):
                statement = module.statements[k]
                if statement.imports and k in self.wanted[module_name]:
                    # Each name on its own: one imported already, the same way, by a module before is left out.
                    aliases = {a for a in self.wanted[module_name][k]
                               if bind([a], _spelled(statement, {a}), module_name)}
                    if aliases:
                        parts.append(_spelled(statement, aliases))
                elif not statement.imports and bind(statement.binds, statement.text, module_name):
                    parts.append(statement.text)
                for line in self.extra[module_name].get(k, []):
                    if bind([line.split(" = ", 1)[0]], line, module_name):
                        parts.append(line)
            if parts:
                blocks.append(f"# ---- from {_shown(module)} ----\n\n{_joined(parts)}")
        self.bound = set(bound)
        return "\n\n\n".join(blocks)


def _spelled(statement: _Statement, aliases: set[str]) -> str:
    """An import statement binding ``aliases`` only, spelled the one way (comments and all else left out)."""
    node = statement.node
    names = [a for a in node.names if (a.asname or a.name).split(".")[0] in aliases]
    spelled = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in names)
    if isinstance(node, ast.Import):
        return f"import {spelled}"
    assert isinstance(node, ast.ImportFrom)
    return f"from {'.' * node.level}{node.module or ''} import {spelled}"


def _joined(parts: list[str]) -> str:
    """Statements laid out as the modules lay them out: two blank lines around a definition, one-line
    statements together."""
    out = parts[0]
    for before, part in zip(parts, parts[1:]):
        if _definition(before) or _definition(part):
            out += "\n\n\n"
        elif "\n" in before or "\n" in part or _importing(before) != _importing(part):
            out += "\n\n"
        else:
            out += "\n"
        out += part
    return out


def _importing(text: str) -> bool:
    return text.startswith(("import ", "from "))


def _definition(text: str) -> bool:
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    return bool(code) and code[0].startswith(("def ", "async def ", "class ", "@"))


def _shown(module: _Module) -> str:
    """The module's file as a reader of toolfuzz's repository finds it."""
    parts = module.name.split(".")
    root = {"targets": "targets", "strategies": "strategies"}.get(parts[1], "harness") if len(parts) > 1 else "harness"
    rest = parts[2:] if root != "harness" else parts[1:]
    return f"{module.name} ({root}/{'/'.join(rest)}.py in toolfuzz's repository)"


def excerpt(roots: Iterable[tuple[str, str]], own: Iterable[str] = ()) -> str:
    """The source a script needs to evaluate each ``(module, expression)`` of ``roots`` as that module would.

    Names an expression uses that no module binds are the script's own (its data), left for it to define;
    ``own`` names them, and copying a definition of one of them is an :class:`ExcerptError`.
    """
    state = _Excerpt()
    names: list[str] = []
    for module_name, expression in roots:
        if not _copyable(module_name):
            raise ExcerptError(f"{module_name}: not a module a script may copy ({', '.join(COPYABLE)})")
        tree = ast.parse(expression, mode="eval")
        # A lambda's parameters and a comprehension's variables are the expression's own.
        local = {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        uses = _uses(tree) - set(dir(builtins)) - local
        module = state.module(module_name)
        unknown = sorted(uses - set(own) - {n for s in module.statements for n in s.binds})
        if unknown:
            raise ExcerptError(f"{module_name} defines no {unknown[0]}")
        state.need(module_name, uses)
        names.append(module_name)
    text = state.text(names)
    taken = sorted(set(own) & state.bound)
    if taken:
        raise ExcerptError(f"the copied code defines {taken[0]}, a name the script keeps for itself")
    return text
