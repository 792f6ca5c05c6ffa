"""The client author's examples of docs/bench.md, run as written through the installed pytest plugin (the
`bench_mock` fixture), as tests/test_readme.py runs the README's: a tracer example reads its trace back whole
(C-03, C-17; the tracer's wire is the client's, docs/interpretations.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "bench.md"


def examples() -> list[str]:
    """Every ```python block of docs/bench.md that defines a test."""
    blocks = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)
    return [block for block in blocks if re.search(r"^def test_", block, re.MULTILINE)]


def test_the_guide_has_a_tracer_example():
    (block,) = examples()
    assert "Bench(" in block and "bench_mock" in block and "get_trace" in block


@pytest.mark.http
def test_the_guide_examples_pass(pytester: pytest.Pytester):
    for index, block in enumerate(examples()):
        pytester.makepyfile(**{f"test_guide_{index}": block})
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(examples()))
