"""The releases of a package that a bisection covers: the final ones the index offers, with when each came out.

The version list comes from ``pip index versions``, so it is the one pip installs
from (the configured index, ``PIP_FIND_LINKS`` and all).  The upload dates come
from the index's JSON form of its simple pages (PEP 691, ``upload-time`` from PEP
700), asked once per package.  An index that does not say, or cannot be reached,
leaves the dates unknown: the default range then falls back to the newest
releases, and a release the index has no date for (a wheel from a find-links
folder) is kept, since its age cannot be told.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

from toolfuzz.vocabulary import version_key
from toolfuzz.errors import UsageError

__all__ = ["releases", "choose", "upload_dates", "DEFAULT_YEARS", "FALLBACK_RELEASES"]

#: Without ``--between``: the releases of this many years back to the newest.
DEFAULT_YEARS = 2
#: Without ``--between`` and without dates from the index: this many newest releases.
FALLBACK_RELEASES = 12
_PRE = re.compile(r"(a|b|rc|dev|alpha|beta)\d*", re.IGNORECASE)
_JSON = "application/vnd.pypi.simple.v1+json"


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
                          capture_output=True, text=True)


def _index_url() -> str:
    """The index pip installs from: as the environment or pip's configuration says, else pip's own default."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    said = _pip("config", "get", "global.index-url")
    if said.returncode == 0 and said.stdout.strip():
        return said.stdout.strip()
    try:
        from pip._internal.models.index import PyPI  # pip's default index, named nowhere here
    except ImportError:
        return ""
    return PyPI.simple_url


def upload_dates(package: str, timeout: float = 30.0) -> dict[str, datetime.date]:
    """When each release of ``package`` was first uploaded, as the index says; empty where it does not say."""
    name = re.sub(r"[-_.]+", "-", package).lower()
    url = f"{_index_url().rstrip('/')}/{name}/"
    if not url.startswith(("https://", "http://")):
        return {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": _JSON}), timeout=timeout) as r:
            page = json.loads(r.read())
    except (urllib.error.URLError, OSError, ValueError):
        return {}
    dates: dict[str, datetime.date] = {}
    for entry in page.get("files", []) if isinstance(page, dict) else []:
        when = entry.get("upload-time") if isinstance(entry, dict) else None
        filename = entry.get("filename") if isinstance(entry, dict) else None
        version = _version_of(filename) if isinstance(filename, str) else None
        if not isinstance(when, str) or version is None:
            continue
        try:
            day = datetime.date.fromisoformat(when[:10])
        except ValueError:
            continue
        dates[version] = min(day, dates.get(version, day))
    return dates


def _version_of(filename: str) -> str | None:
    """The version in a wheel's or an sdist's file name (``name-1.2.3-py3-none-any.whl``, ``name-1.2.3.tar.gz``):
    a wheel's second field; an sdist's last, since a version holds no ``-``."""
    if filename.endswith(".whl"):
        parts = filename.split("-")
        return parts[1] if len(parts) >= 5 else None
    stem = re.sub(r"\.(tar\.gz|zip|tar\.bz2)$", "", filename)
    return stem.rpartition("-")[2] if stem != filename and "-" in stem else None


def releases(package: str, between: tuple[str, str] | None = None) -> tuple[list[str], str]:
    """The final releases of ``package`` to cover, oldest first, and how they were chosen (for a person)."""
    done = _pip("index", "versions", package)
    line = next((x for x in done.stdout.splitlines() if x.startswith("Available versions:")), None)
    if done.returncode != 0 or line is None:
        said = [x for x in (done.stderr or done.stdout).strip().splitlines() if not x.startswith("WARNING:")]
        tail = " / ".join(said[-2:])
        raise UsageError(f"--package {package}: the index lists no releases ({tail[:300]})")
    found = [v.strip() for v in line.partition(":")[2].split(",")]
    return choose(package, found, between, None if between else upload_dates(package), datetime.date.today())


def choose(package: str, found: list[str], between: tuple[str, str] | None, dates: dict[str, datetime.date] | None,
           today: datetime.date) -> tuple[list[str], str]:
    """The final releases among ``found``, oldest first: within ``between`` when given; else those uploaded in the
    last :data:`DEFAULT_YEARS` years and the one in use when they began, or the newest :data:`FALLBACK_RELEASES` when ``dates`` knows none of them."""
    final = sorted({v for v in found if v and not _PRE.search(v)}, key=version_key)
    if between is not None:
        old, new = version_key(between[0]), version_key(between[1])
        chosen = [v for v in final if old <= version_key(v) <= new]
        if not chosen:
            raise UsageError(f"--between {between[0]} {between[1]}: no release of {package} in that range")
        return chosen, f"between {between[0]} and {between[1]}"
    dates = dates or {}
    if not any(v in dates for v in final):
        return final[-FALLBACK_RELEASES:], f"the {FALLBACK_RELEASES} newest (the index gives no dates)"
    since = today.replace(year=today.year - DEFAULT_YEARS, day=min(today.day, 28))
    # The release in use on that day counts too: a user pinned then runs it still.
    before = [v for v in final if v in dates and dates[v] < since]
    chosen = [v for v in final if v not in dates or dates[v] >= since or (before and v == before[-1])]
    return chosen, f"in use since {since.isoformat()}"
