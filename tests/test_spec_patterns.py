"""Every spec's text patterns name their blanks: `\\s` and `\\S` mean different sets in the engines that
read a spec (Python's `re` counts \\x1c-\\x1f, ECMAScript's and Rust's do not), so a pattern using them
lets a client's validator and the mock disagree on what is schema-valid. A stock schemathesis run found
this twice (Bench's emails, Benchwright's `?expand=\\x1d` on §10.1): the specs write `[ \\t\\n\\r\\f\\v]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from mock_server.apis import APIS, bundle

_CLASS_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[sS]")
_ANY = r"[\s\S]"  # any character at all: the same set in every engine


def _patterns(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield where, value
            else:
                yield from _patterns(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _patterns(value, f"{where}/{index}")


@pytest.mark.parametrize("api", list(APIS))
def test_spec_patterns_name_their_blanks(api):
    found = [
        (where, pattern)
        for where, pattern in _patterns(bundle(api), "")
        if _CLASS_ESCAPE.search(pattern.replace(_ANY, ""))
    ]
    assert found == []


def test_the_rule_sees_an_escape_and_not_an_escaped_backslash():
    assert _CLASS_ESCAPE.search(r"^\s*a$")
    assert _CLASS_ESCAPE.search(r"[^/?#\S]")
    assert not _CLASS_ESCAPE.search(r"^a\\s$")
    assert not _CLASS_ESCAPE.search(r"^[ \t\n\r\f\v]*$")
    assert not _CLASS_ESCAPE.search(r"^manual-[\s\S]".replace(_ANY, ""))
