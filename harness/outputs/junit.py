"""JUnit XML, written one way for every command that writes it (``toolfuzz run``, ``toolfuzz replay``).

A report is ``<testsuites>`` of ``<testsuite>`` elements, each with its
counts, and totals on the root, so that a CI system reads the same shape
from either command.  Text is made :func:`~toolfuzz.corpus.fixtures.printable`
first: a fixture may hold any character, and XML 1.0 cannot.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from toolfuzz.corpus.fixtures import printable

__all__ = ["Result", "Suite", "junit_xml"]

MAX_MESSAGE = 500


@dataclass(frozen=True)
class Result:
    """One ``<testcase>``: passed, failed (``failure``: type, message, text), skipped (the reason), or with output."""

    classname: str
    name: str
    seconds: float = 0.0
    failure: tuple[str, str, str] | None = None
    skipped: str | None = None
    output: str | None = None


@dataclass(frozen=True)
class Suite:
    name: str
    results: tuple[Result, ...]
    seconds: float | None = None
    file: str | None = None


def junit_xml(name: str, suites: list[Suite]) -> str:
    root = ET.Element("testsuites", name=printable(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        element = ET.SubElement(root, "testsuite", name=printable(suite.name))
        if suite.file is not None:
            element.set("file", printable(suite.file))
        counts = {"tests": len(suite.results), "failures": 0, "errors": 0, "skipped": 0}
        for r in suite.results:
            case = ET.SubElement(element, "testcase", classname=printable(r.classname), name=printable(r.name),
                                 time=f"{r.seconds:.3f}")
            if r.failure is not None:
                counts["failures"] += 1
                kind, message, text = r.failure
                failure = ET.SubElement(case, "failure", type=printable(kind),
                                        message=printable(message[:MAX_MESSAGE]))
                failure.text = printable(text)
            elif r.skipped is not None:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=printable(r.skipped[:MAX_MESSAGE]))
            if r.output is not None:
                ET.SubElement(case, "system-out").text = printable(r.output)
        for key, value in counts.items():
            element.set(key, str(value))
            totals[key] += value
        if suite.seconds is not None:
            element.set("time", f"{suite.seconds:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
