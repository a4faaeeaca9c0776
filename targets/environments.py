"""Environments of their own: a virtual environment per set of requirements, where a built-in target runs.

A library that cannot share toolfuzz's environment (llama-index-llms-openai wants openai<3), or an older
release of one that can (to compare a library with its own last release), runs in an environment made for
it: ``toolfuzz env add NAME REQUIREMENT...`` makes one with toolfuzz and those requirements, and the target
spec ``TARGET@NAME`` runs the built-in target there, over the subprocess protocol
(``toolfuzz serve TARGET`` on the far side, :mod:`toolfuzz.cli.serve`), side by side with in-process
targets.

Environments live under ``$TOOLFUZZ_ENVS``, else ``~/.cache/toolfuzz/envs``, one folder each, with a
``toolfuzz-env.json`` saying what was asked for.  They are made with uv when it is installed, else with
venv and the pip toolfuzz runs beside (``pip --python``; the environment's own where that one is too old).
toolfuzz itself goes in as it is installed here: editable from its source folder when that is where it runs from (an editable install or a checkout), else the same release from the package index; an
environment made with another toolfuzz is made again when a bisection asks for it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Callable

from toolfuzz import __version__
from toolfuzz.errors import UsageError
from toolfuzz.targets.base import Target
from toolfuzz.targets.command import CommandError, command_targets

__all__ = ["Environment", "root", "add", "ensure", "remove", "listed", "find", "split_spec", "RECIPES",
           "requirements_for", "source_folder", "name_for", "HANDSHAKE_SECONDS"]

#: Environments a name alone makes: what cannot be a plain extra of toolfuzz's own environment.  A requirement
#: after ``--no-deps`` is installed without its dependencies, in a step of its own.
RECIPES: dict[str, tuple[str, ...]] = {
    # llama-index-llms-openai requires openai<3, the other adapters openai>=3.
    "llama-index": ("llama-index-llms-openai>=0.4",),
    # sglang's tool parsers (the sglang-* producer targets).  Its metadata asks for torch, triton and a serving
    # stack its parsers never import, and pins openai 2.8: the parsers' own imports, and the package alone.
    "sglang": ("pydantic", "orjson", "partial-json-parser", "msgspec", "regex", "openai==2.8.0",
               "--no-deps", "sglang==0.5.23"),
    # vLLM's tool parsers (the vllm-* producer targets).  Their imports reach vLLM's config, which runs torch
    # code: torch goes in, pinned to a release whose build here is the CPU one (a plain requirement, and
    # vLLM's own pin, pull the GPU build).  vLLM's metadata asks for a GPU serving stack besides, and pins a
    # torch of its own, so it goes in without its dependencies, beside what its parsers import; xgrammar (the
    # engine parsers' grammars) and its FFI likewise, as their pins ask for that torch again.
    "vllm": ("torch==2.13.0", "transformers>=5.16.1,<5.23", "openai>=2.25", "pydantic", "numpy", "regex", "psutil",
             "pyzmq", "aiohttp", "requests", "fastapi", "pillow", "pybase64", "cachetools", "prometheus-client",
             "openai-harmony", "cbor2", "cloudpickle", "uvloop", "py-cpuinfo", "partial-json-parser", "msgspec",
             "orjson", "ijson", "mistral-common",
             "--no-deps", "xgrammar==0.2.8", "apache-tvm-ffi==0.1.11", "vllm==0.34.0"),
}
_NO_DEPS = "--no-deps"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: How long a served target may take to say hello: it imports its library first, and the first time in a new
#: environment Python compiles all of it (litellm: tens of seconds on a loaded machine).
HANDSHAKE_SECONDS = 180.0
_RECORD = "toolfuzz-env.json"


@dataclass(frozen=True)
class Environment:
    name: str
    folder: Path
    requirements: tuple[str, ...]
    toolfuzz: str

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"

    @property
    def serve(self) -> list[str]:
        """The command that serves built-in targets of this environment over the subprocess protocol."""
        return [str(self.python), "-m", "toolfuzz", "serve"]

    def served(self, targets: list[str], level: str = "events") -> list[Target]:
        """The built-in ``targets`` served from here, all by one program (one import of their library), each
        described as served from here (:class:`~toolfuzz.targets.command.CommandError` if it cannot start)."""
        served = command_targets([*self.serve, *targets], level=level, handshake_seconds=HANDSHAKE_SECONDS)
        # One target for each name asked, in order: a name that stands for several (a group) would hand one
        # spec's cases to another's parser. An import spec (module:attr) is served under its object's own name.
        if len(served) != len(targets) or any(":" not in asked and asked != t.name
                                              for asked, t in zip(targets, served)):
            served[0].extra["child"].stop()
            raise CommandError(f"it serves {', '.join(t.name for t in served)}, not {', '.join(targets)}")
        return [replace(t, summary=f"{t.name} in the environment {self.name}") for t in served]


def name_for(purpose: str, package: str, version: str) -> str:
    """The cached environment a bisection or a verification makes for one release: ``bisect-openai-3.57.0``."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", f"{purpose}-{package}-{version}")[:64]


def root() -> Path:
    given = os.environ.get("TOOLFUZZ_ENVS")
    return Path(given) if given else Path.home() / ".cache" / "toolfuzz" / "envs"


def split_spec(spec: str) -> tuple[str, str] | None:
    """``(target, environment)`` for a ``TARGET@NAME`` spec, else None."""
    target, at, name = spec.rpartition("@")
    if not at or not target or not _NAME.fullmatch(name) or ":" in target:
        return None
    return target, name


def find(name: str) -> Environment:
    folder = root() / name
    try:
        doc = json.loads((folder / _RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = ", ".join(e.name for e in listed()) or "none yet"
        raise UsageError(f"no environment {name!r} (toolfuzz env add {name} REQUIREMENT...; known: {known})") from None
    return Environment(name, folder, tuple(doc.get("requirements", ())), str(doc.get("toolfuzz", "")))


def listed() -> list[Environment]:
    base = root()
    if not base.is_dir():
        return []
    return [find(p.name) for p in sorted(base.iterdir()) if (p / _RECORD).is_file()]


def _toolfuzz_install() -> list[str]:
    """How an environment installs this toolfuzz: editable from its source folder when it runs from one (the
    environment then runs the adapters as they are in that folder now, not as they were when it was made),
    else its release."""
    source = _toolfuzz_source()
    return ["-e", source] if Path(source).is_dir() else [source]


def _toolfuzz_source() -> str:
    """Where this toolfuzz comes from: its source folder when it runs from one, else its release."""
    try:
        direct = json.loads(metadata.distribution("toolfuzz").read_text("direct_url.json") or "{}")
    except metadata.PackageNotFoundError:
        direct = {}
    url = direct.get("url", "")
    if url.startswith("file://") and Path(url[len("file://"):], "pyproject.toml").is_file():
        return url[len("file://"):]
    # This file is targets/environments.py of a checkout: the checkout holds pyproject.toml and harness/ beside it.
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file() and (checkout / "harness").is_dir():
        return str(checkout)
    return f"toolfuzz=={__version__}"


def source_folder() -> Path | None:
    """The source folder this toolfuzz runs from (a checkout, or an editable install), or None for a release."""
    source = _toolfuzz_source()
    return Path(source) if Path(source).is_dir() else None


def requirements_for(name: str, given: list[str]) -> list[str]:
    """``given``, or with none given the recipe of that name; a name with neither makes toolfuzz alone."""
    return list(given) if given else list(RECIPES.get(name, ()))


def add(name: str, requirements: list[str], say: Callable[[str], None] = lambda text: None) -> Environment:
    """Make (or make again) the environment ``name`` with toolfuzz and ``requirements`` (none given: the recipe
    of that name, if there is one)."""
    if not _NAME.fullmatch(name):
        raise UsageError(f"environment name {name!r}: letters, digits, '.', '_' and '-', at most 64")
    requirements = requirements_for(name, requirements)
    folder = root() / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    toolfuzz = _toolfuzz_install()
    make, install, how = _installer(folder / "bin" / "python")
    cut = requirements.index(_NO_DEPS) if _NO_DEPS in requirements else len(requirements)
    plain, bare = requirements[:cut], requirements[cut + 1:]
    steps = [[*make, str(folder)], [*install, *toolfuzz, *plain]]
    if bare:
        steps.append([*install, "--no-deps", *bare])
    say(f"making {folder} with {how}: toolfuzz from {' '.join(toolfuzz)}"
        + (f", {' '.join(requirements)}" if requirements else ""))
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            said = [x for x in (done.stderr or done.stdout).strip().splitlines() if not x.startswith("WARNING:")]
            tail = said[-3:]
            raise UsageError(f"environment {name!r}: {' '.join(argv[:3])} ... failed: {' / '.join(tail)[:500]}")
    env = Environment(name, folder, tuple(requirements), " ".join(toolfuzz))
    record = {"name": name, "requirements": list(requirements), "toolfuzz": env.toolfuzz}
    # Written last, and whole: a folder without it is an environment that was never finished.
    partial = folder / (_RECORD + ".part")
    partial.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, folder / _RECORD)
    return env


#: The oldest pip that installs into another interpreter's environment (``pip --python``, pip 22.3).
_PIP_PYTHON = (22, 3)


def _installer(python: Path) -> tuple[list[str], list[str], str]:
    """How an environment is made and installed into, with what it says: uv when it is installed; else, when
    this python's pip can install elsewhere, a venv without a pip of its own and this pip (``--python``), which
    spares each environment the few seconds ensurepip takes and the old pip it leaves; else venv and its pip."""
    uv = shutil.which("uv")
    if uv:
        return ([uv, "venv", "--quiet", "--python", sys.executable],
                [uv, "pip", "install", "--quiet", "--python", str(python)], "uv")
    quiet = ["install", "--quiet", "--disable-pip-version-check"]
    if _pip_version() >= _PIP_PYTHON:
        return ([sys.executable, "-m", "venv", "--without-pip"],
                [sys.executable, "-m", "pip", "--python", str(python), *quiet], "venv and this pip")
    return [sys.executable, "-m", "venv"], [str(python), "-m", "pip", *quiet], "venv and pip"


def _pip_version() -> tuple[int, ...]:
    """This python's pip as numbers (none: ``()``), for :func:`_installer`."""
    try:
        given = metadata.version("pip")
    except metadata.PackageNotFoundError:
        return ()
    return tuple(int(part) for part in re.findall(r"\d+", given)[:2])


def ensure(name: str, requirements: list[str], say: Callable[[str], None] = lambda text: None) -> Environment:
    """The environment ``name`` as made before with these ``requirements`` and this toolfuzz, or made now."""
    try:
        env = find(name)
    except UsageError:
        return add(name, requirements, say)
    same = list(env.requirements) == requirements and env.toolfuzz == " ".join(_toolfuzz_install())
    return env if same else add(name, requirements, say)


def remove(name: str) -> Path:
    env = find(name)
    shutil.rmtree(env.folder)
    return env.folder
