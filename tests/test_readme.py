"""The README is a landing page whose examples run (docs/pytest-plugin.md).

Its fixture examples, one per API, are extracted from README.md and run as a client's test suite
would run them, through the installed pytest plugin; its links to `docs/` name files that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
README = Path(__file__).resolve().parents[1] / "README.md"
FIXTURES = ("benchwright_mock", "benchsdk_mock", "benchgen_mock", "bench_mock")


def examples() -> list[str]:
    """Every ```python block of README.md that defines a test."""
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)
    return [block for block in blocks if re.search(r"^def test_", block, re.MULTILINE)]


def test_one_short_example_per_fixture():
    """One example per API's fixture, each about ten lines (blank lines aside: the blocks are ruff-formatted)."""
    found = examples()
    used = [next(name for name in FIXTURES if re.search(rf"def test_\w+\({name}\)", block)) for block in found]
    assert sorted(used) == sorted(FIXTURES), used
    lengths = [sum(1 for line in block.splitlines() if line.strip()) for block in found]
    assert all(length <= 11 for length in lengths), lengths


@pytest.mark.http
def test_the_readme_examples_pass(pytester: pytest.Pytester):
    """Each example, as written in the README, passes against the mock its fixture serves (§4.1.1, §3.9 for
    Benchwright; A-03 benchsdk; B-26, B-29 BenchGen; C-48, C-49 Bench, as each example asserts)."""
    for index, block in enumerate(examples()):
        pytester.makepyfile(**{f"test_readme_{index}": block})
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(FIXTURES))


def test_the_readme_links_resolve():
    """Every relative link of the README names a file of the project."""
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert links and all((README.parent / link).is_file() for link in links), [
        link for link in links if not (README.parent / link).is_file()
    ]
