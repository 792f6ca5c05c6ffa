"""Text the APIs read loosely: which characters are blanks, and comma lists.

The blanks are an explicit set, the one the specs' text patterns name (`[ \\t\\n\\r\\f\\v]`), because `\\s`
differs between the regex engines that read a spec: Python's counts the ASCII separators \\x1c-\\x1f as
blanks, ECMAScript's and Rust's do not. A mock that trimmed with `str.strip()` would accept what a
client's validator (or a stock schemathesis run) reads as schema-invalid.
"""

from __future__ import annotations

BLANKS = " \t\n\r\f\v"


def comma_items(raw: str | None) -> list[str]:
    """The items of a comma list, in order, without the blanks around them; blank items are dropped."""
    return [item for item in (part.strip(BLANKS) for part in (raw or "").split(",")) if item]
