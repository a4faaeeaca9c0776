"""Turning ``--target SPEC`` into a :class:`toolfuzz.targets.base.Target`.

A spec is one of:

* the name of a built-in target (``toolfuzz targets`` lists them), or
  ``selftest`` for every self-test mutant;
* ``module:attr`` - a callable (or a Target) importable by module path, installed or in the current
  folder (as ``python -m`` finds it);
* ``path/to/file.py:attr`` - the same from a file, loaded without editing
  the project or ``sys.path``;
* ``cmd:COMMAND`` - a program in any language speaking the subprocess
  protocol (docs/subprocess.md): COMMAND is split as a shell would split it
  (``cmd:"node assemble.js"``), started now, and named, levelled and judged
  as its handshake line says.

A plain callable becomes a target at the level given by ``--level``; it is
judged on association, ids, names, argument strings and completion (at
``--level sse``, an SSE decoder, on the events it dispatches).  Its findings
are filed under its module-qualified name (:func:`qualified_name`), the same
however it is named: ``mypkg.mod:assemble`` given as ``mypkg.mod:assemble``,
as ``mypkg:assemble`` where ``mypkg`` imports it, or handed to
``toolfuzz.testing.check_assembler``; a function of a file given as
``path/to/file.py:attr`` is named after the file's path relative to the current
folder, as a module (``path.to.file:attr``), or its absolute path when the file
is outside that folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import shlex
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolfuzz.errors import UsageError
from toolfuzz.vocabulary import DIALECTS, TEXT_DIALECTS
from toolfuzz.targets.base import LEVELS, PARTIAL_CLAIMS, PLAIN_CLAIMS, Target
from toolfuzz.targets import environments
from toolfuzz.targets import adapters
from toolfuzz.targets.adapters.scopes import scope_for
from toolfuzz.targets.command import CommandError, command_targets
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.selftest import SELFTEST

__all__ = ["resolve", "resolve_each", "resolve_all", "default_targets", "default_producers", "qualified_name",
           "plain_target"]

#: The prefix of the module name a ``file.py:attr`` spec's file is loaded under (it is never imported by that name).
_FILE_MODULE = "toolfuzz_target_"


def default_targets() -> list[Target]:
    """What ``toolfuzz run`` runs with no ``--target``: every built-in target that is installed."""
    return list(builtin_targets().values())


def default_producers() -> list[str]:
    """What ``toolfuzz run --level producer`` runs with no ``--target``: every producer target installed here,
    and every one of an adapter whose built-in environment has been made (``TARGET@NAME``)."""
    here = [t.name for t in builtin_targets().values() if t.level == "producer"]
    made = {env.name for env in environments.listed()}
    elsewhere = [f"{name}@{a.environment}" for a in adapters.KNOWN if a.environment in made
                 for name in a.names if name not in here]
    if not here and not elsewhere:
        recipes = sorted({a.environment for a in adapters.KNOWN if a.environment})
        raise UsageError("no serving engine's parser here: make one's environment first ("
                         + "; ".join(f"toolfuzz env add {r}" for r in recipes) + "), or name --target")
    return here + elsewhere


def resolve_all(specs: list[str], level: str = "events") -> list[Target]:
    targets: list[Target] = []
    for spec, group in resolve_each(specs, level):
        for t in group:
            if t.name in {x.name for x in targets}:
                raise UsageError(f"--target {spec}: a target named {t.name!r} is already in this run")
            targets.append(t)
    return targets


def resolve_each(specs: list[str], level: str = "events") -> list[tuple[str, list[Target]]]:
    """Each spec with its targets, in order, as :func:`resolve` makes them, but for the ``TARGET@ENV`` specs: those
    of one environment are served by one program, so that a run holds one import of their library, not one each."""
    served = _served_together(specs, level)
    return [(spec, [served[spec]] if spec in served else resolve(spec, level)) for spec in specs]


def resolve(spec: str, level: str = "events") -> list[Target]:
    if level not in LEVELS:
        raise UsageError(f"--level must be one of {', '.join(LEVELS)}, not {level!r}")
    if spec.startswith("cmd:"):
        # Before the registry: a run of programs alone need not import every library adapter.
        return _command(spec, spec[len("cmd:"):], level)
    if environments.split_spec(spec) is not None:
        return [_served_together([spec], level)[spec]]
    builtins = builtin_targets([spec])
    if spec in builtins:
        return [builtins[spec]]
    if spec == "selftest":
        return list(SELFTEST)
    why = adapters.unavailable(spec)
    if why is not None:
        raise UsageError(f"--target {spec}: a built-in target whose library is {why}")
    where, colon, attr = spec.rpartition(":")
    if not colon or not where or not attr:
        known = ", ".join(sorted(builtin_targets()))
        raise UsageError(f"--target {spec}: not a built-in target ({known}) nor module:attr nor file.py:attr")
    module = _load_file(spec, where) if where.endswith(".py") else _import(spec, where)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"--target {spec}: {where} has no attribute {attr!r}") from None
    if isinstance(obj, Target):
        return [obj]
    if not callable(obj):
        raise UsageError(f"--target {spec}: {attr} is a {type(obj).__name__}, not a callable")
    try:
        inspect.signature(obj).bind(None)
    except TypeError:
        raise UsageError(f"--target {spec}: {attr} must take one argument (the chunks, the reads "
                         f"at --level bytes and sse, a prefix of an argument text at --level partial)") from None
    except ValueError:
        pass  # builtins without a signature: let the call decide
    return [plain_target(obj, qualified_name(obj, module, attr), level, str(getattr(module, "__version__", "")))]


def qualified_name(fn: Any, module: Any = None, attr: str = "") -> str:
    """What a plain callable's findings are filed under: ``<module>:<qualified name>`` of where it is defined.

    A function (or method) is named by its own module and ``__qualname__``, so that two modules' ``assemble``
    never share a name, and one function has one name however it was reached.  Any other callable (an
    instance) is named by the spec's ``module`` and ``attr`` when there is one, else by its class.  A module
    that has no importable name (a file loaded for ``file.py:attr``, ``__main__``) is named after its file.
    """
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        where, name = getattr(fn, "__module__", None) or "", fn.__qualname__
    elif module is not None and attr:
        where, name = module.__name__, attr
    else:
        where, name = type(fn).__module__, type(fn).__qualname__
    # A lambda's or a nested function's qualified name holds <lambda> or <locals>.
    return f"{_module_name(where)}:{name.replace('<', '').replace('>', '')}"


def _module_name(name: str) -> str:
    """``name``, or for a module that has no importable name, its file's path from here, as a module's."""
    file = getattr(sys.modules.get(name), "__file__", None)
    if file is None or not (name == "__main__" or name.startswith(_FILE_MODULE)):
        return name or "unknown"
    path = Path(file).resolve()
    try:
        inside = path.relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return ".".join(inside.with_suffix("").parts)


def plain_target(fn: Any, name: str, level: str, version: str = "") -> Target:
    """A plain function as a target of ``level``: judged on the plain claims (a partial parser on the partial
    ones), in every dialect."""
    # A plain function is handed whatever the run's dialect gives (docs/dialects.md): it runs in every one; a
    # parser at level producer reads the formats --dialect names (all, unless one is named), with the tools.
    if level == "producer":
        return Target(name=name, fn=fn, level=level, version=version, summary=(fn.__doc__ or "").strip()[:80],
                      dialects=TEXT_DIALECTS, reports=frozenset({"ids", "names"}), takes_request=True)
    return Target(name=name, fn=fn, level=level, version=version, summary=(fn.__doc__ or "").strip()[:80],
                  dialects=DIALECTS, reports=PARTIAL_CLAIMS if level == "partial" else PLAIN_CLAIMS)


def _served_together(specs: list[str], level: str) -> dict[str, Target]:
    """The ``TARGET@ENV`` specs among ``specs``, each named so, those of one environment served by one program
    (``toolfuzz serve A B ...``)."""
    members: dict[str, dict[str, str]] = {}
    for spec in specs:
        inside = None if spec.startswith("cmd:") else environments.split_spec(spec)
        if inside is not None:
            name, where = inside
            members.setdefault(where, {})[spec] = name
    served: dict[str, Target] = {}
    for where, named in members.items():
        env = environments.find(where)
        try:
            targets = env.served(list(named.values()), level=level)
        except CommandError as e:
            raise UsageError(f"--target {', '.join(named)}: {e}") from None
        for (spec, name), t in zip(named.items(), targets):
            served[spec] = replace(t, name=spec, scope=scope_for(name))
    return served


def _command(spec: str, command: str, level: str) -> list[Target]:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageError(f"--target {spec}: cannot split the command: {e}") from None
    if not argv:
        raise UsageError(f"--target {spec}: no command after cmd:")
    if shutil.which(argv[0]) is None:
        raise UsageError(f"--target {spec}: command not found: {argv[0]}")
    try:
        return command_targets(argv, level=level)
    except CommandError as e:
        raise UsageError(f"--target {spec}: {e}") from None


def _import(spec: str, name: str) -> Any:
    try:
        return _import_from_here(name)
    except ImportError as e:
        raise UsageError(f"--target {spec}: cannot import {name}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the module's own import-time failure, reported in one line
        raise UsageError(f"--target {spec}: importing {name} raised {type(e).__name__}: {e}") from None


def _import_from_here(name: str) -> Any:
    """Import ``name`` as ``python -m`` would find it: installed, or else in the current folder.

    ``python -m`` and ``python -c`` put the current folder on the import path; the ``toolfuzz`` script puts its
    own folder there instead, so ``--target my_module:assemble`` beside the user was not found without
    ``PYTHONPATH=.``.  The current folder goes last, so a file that happens to share an installed package's
    name never shadows it; a worker resolves its targets by the same rule from the same folder.
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        here = os.getcwd()
        if e.name != name.partition(".")[0] or "" in sys.path or here in sys.path:
            raise
        sys.path.append(here)
        return importlib.import_module(name)


def _load_file(spec: str, path: str) -> Any:
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--target {spec}: no file {path}")
    name = f"{_FILE_MODULE}{abs(hash(str(file.resolve())))}"
    loader_spec = importlib.util.spec_from_file_location(name, file)
    if loader_spec is None or loader_spec.loader is None:
        raise UsageError(f"--target {spec}: cannot load {path} as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001
        del sys.modules[name]
        raise UsageError(f"--target {spec}: loading {path} raised {type(e).__name__}: {e}") from None
    return module
