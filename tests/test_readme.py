"""README.md is a front door: short, the two commands and where the code is early, and every link leads somewhere.

The docs it links to are checked the same way: a page moved or a heading renamed breaks a test, not a reader.
"""

import re
import textwrap

import pytest

from tests.paths import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation but hyphens dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page) -> set[str]:
    in_code, anchors = False, set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            anchors.add(_slug(line.lstrip("#")))
    return anchors


def test_the_readme_is_short_with_the_two_commands_and_where_the_code_is_near_the_top():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    top = "\n".join(lines[:150])
    assert "pip install -e . && toolfuzz run" in top and "bash .ci/run" in top
    assert "## Where the code is" in top and "| folder | import name | layer | what it does |" in top


def test_where_the_code_is_names_every_layer_of_the_import_contract():
    contract = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    layers = re.search(r"layers = \[(.*?)\]", contract, re.S).group(1)
    packages = set(re.findall(r"toolfuzz\.(\w+)", layers)) - {"pytest_plugin", "errors", "severity", "state"}
    table = README.read_text(encoding="utf-8").split("## Where the code is", 1)[1].split("\n## ", 1)[0]
    assert {p for p in packages if f"`toolfuzz.{p}`" not in table} == set()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # an address, not a file of this repository
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(target)
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            broken.append(target)
    assert broken == []


def test_the_readme_s_own_target_declaration_builds_a_target_toolfuzz_accepts():
    from toolfuzz.targets.base import Target

    text = README.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "Target(" in b)
    namespace: dict = {"assemble": lambda chunks: []}
    exec(textwrap.dedent(block), namespace)
    target = namespace["target"]
    assert isinstance(target, Target) and target.builds_on == ("openai-sse",)
    target.scope.check()
