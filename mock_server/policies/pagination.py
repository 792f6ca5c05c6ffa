"""Cursor pagination and silent clamps (§3.4).

Clamps come from each parameter's `x-clamp` in the spec: absent means the
default, above the max means the max. Cursors are opaque to clients; here they
are base64url JSON of the position, tagged with the operation so a token from
one list is refused (`400 invalid_argument`) by another.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from mock_server.policies.problems import invalid


def clamp(value: Any, rule: dict[str, Any] | None) -> Any:
    """`x-clamp: {default, max | maximum, min | minimum}`: absent means the default, out of
    range means the nearest bound (silently: a documented clamp is not a rejection)."""
    if rule is None:
        return value
    if value is None:
        return rule.get("default")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return value
    high = rule.get("max", rule.get("maximum"))
    if isinstance(high, int | float) and value > high:
        return high
    low = rule.get("min", rule.get("minimum"))
    if isinstance(low, int | float) and value < low:
        return low
    return value


def encode_cursor(kind: str, position: Any) -> str:
    raw = orjson.dumps({"k": kind, "p": position})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(kind: str, token: str) -> Any:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = orjson.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(data, dict) or data.get("k") != kind:
            raise ValueError
        return data["p"]
    except (ValueError, TypeError, KeyError, orjson.JSONDecodeError):
        raise invalid("query parameter 'page_token': not a page token of this list", field="page_token") from None


def page(
    items: Sequence[Any],
    limit: int,
    page_token: str | None,
    kind: str,
    key: Callable[[Any], Any] | None = None,
) -> tuple[list[Any], dict[str, Any]]:
    """Slice an already-ordered sequence. The cursor records the last key seen,
    so rows added or removed between pages neither repeat nor skip the rest."""
    key = key or (lambda item: item["id"])
    start = 0
    if page_token:
        after = decode_cursor(kind, page_token)
        keys = [key(item) for item in items]
        start = next((i + 1 for i, k in enumerate(keys) if k == after), None)
        if start is None:
            # the row we stopped at is gone: resume at the first row ordered after it
            start = next((i for i, k in enumerate(keys) if _after(k, after)), len(items))
    chunk = list(items[start : start + limit])
    has_more = start + limit < len(items)
    pagination: dict[str, Any] = {"has_more": has_more}
    if has_more and chunk:
        pagination["next_page_token"] = encode_cursor(kind, key(chunk[-1]))
    return chunk, pagination


def _after(candidate: Any, after: Any) -> bool:
    try:
        return candidate > after
    except TypeError:
        return False


def limit_offset(rows: Sequence[Any], limit: int | None, offset: int | None) -> list[Any]:
    """`limit`/`offset` paging: `limit=None` is unbounded; offsets past the end give `[]`."""
    start = max(0, offset or 0)
    return list(rows[start:] if limit is None else rows[start : start + max(0, limit)])


def page_number(rows: Sequence[Any], page: int, page_size: int) -> tuple[list[Any], bool]:
    """`page`/`page_size` paging (1-based): the page's rows and whether a next page exists."""
    start = (max(1, page) - 1) * page_size
    return list(rows[start : start + page_size]), start + page_size < len(rows)
