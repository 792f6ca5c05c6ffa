"""Filter operators and sorts (§3.5), on the fields an operation declares in
the spec (`x-filters`, `x-sorts`). Unknown filter keys are ignored, not
rejected; a bad sort key is `400 invalid_argument`.

`in:a,b` is set membership; `gte:`, `lte:`, `gt:`, `lt:` compare (timestamps
compare as instants, so `2026-04-01` and `2026-04-01T00:00:00Z` agree); `like:`
and `ilike:` match SQL patterns (`%` any run, `_` one character), case-sensitive
and not; a value with no recognised prefix is an exact match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from mock_server.policies.problems import invalid

_OPS = ("in", "gte", "lte", "gt", "lt", "like", "ilike")


def parse_filter(raw: str) -> tuple[str, Any]:
    head, sep, rest = raw.partition(":")
    if sep and head in _OPS:
        if head == "in":
            return "in", [part for part in rest.split(",")]
        return head, rest
    return "eq", raw


def _instant(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and len(value) >= 10 and value[4:5] == "-":
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return value


def _like(pattern: str, flags: int = 0) -> re.Pattern[str]:
    parts = []
    for char in pattern:
        parts.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
    return re.compile("^" + "".join(parts) + "$", flags | re.DOTALL)


def predicate(op: str, operand: Any) -> Callable[[Any], bool]:
    if op == "eq":
        return lambda value: value is not None and str(value) == operand
    if op == "in":
        wanted = set(operand)
        return lambda value: value is not None and str(value) in wanted
    if op in ("like", "ilike"):
        pattern = _like(operand, re.IGNORECASE if op == "ilike" else 0)
        return lambda value: value is not None and bool(pattern.match(str(value)))
    bound = _instant(operand)

    def compare(value: Any) -> bool:
        if value is None:
            return False
        left = _instant(value)
        right = bound
        try:
            if isinstance(left, int | float) and isinstance(right, str):
                right = float(right)
            if op == "gte":
                return left >= right
            if op == "lte":
                return left <= right
            if op == "gt":
                return left > right
            return left < right
        except TypeError:
            return False

    return compare


def build_filters(query: Mapping[str, str], declared: Mapping[str, Iterable[str]]) -> list[tuple[str, Callable]]:
    """(field, predicate) for each declared field present in the query."""
    if not query:
        return []
    out = []
    for name, ops in declared.items():
        raw = query.get(name)
        if raw is None:
            continue
        op, operand = parse_filter(raw)
        if op not in ops and not (op == "eq" and "eq" in ops):
            raise invalid(f"query parameter '{name}': operator '{op}' is not accepted here", field=name)
        out.append((name, predicate(op, operand)))
    return out


def parse_sort(raw: str | None, allowed: Iterable[str], default: str) -> list[tuple[str, bool]]:
    """[(field, descending)] from `sort=-started_at,cost_billed`."""
    return list(_parse_sort(raw or default, tuple(allowed)))


@lru_cache(maxsize=256)  # most listings send no sort, or the same few
def _parse_sort(spec: str, allowed: tuple[str, ...]) -> tuple[tuple[str, bool], ...]:
    keys = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        descending = part.startswith("-")
        name = part.lstrip("-")
        if name not in allowed:
            raise invalid(
                f"query parameter 'sort': '{name}' is not sortable; use one of {sorted(allowed)}", field="sort"
            )
        keys.append((name, descending))
    return tuple(keys)


def apply_sort(rows: list[Any], keys: list[tuple[str, bool]], value_of: Callable[[Any, str], Any]) -> list[Any]:
    """Stable multi-key sort; missing values sort last in either direction."""
    out = list(rows)
    for name, descending in reversed(keys):
        present = [r for r in out if value_of(r, name) is not None]
        missing = [r for r in out if value_of(r, name) is None]
        present.sort(key=lambda r: _instant(value_of(r, name)), reverse=descending)
        out = present + missing
    return out
